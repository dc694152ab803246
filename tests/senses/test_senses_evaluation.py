"""`senses eval`'s figures on a model with fixed predictions: accuracy, the majority and lexicon
baselines, the confusion matrix and the error rows, all hand-computed; and `senses plot`'s figure."""

from typer.testing import CliRunner

from logicparse.resources import ANNOTATIONS_DIR
from logicparse.senses import SenseDecision
from logicparse.senses.data import NONE, Annotation
from logicparse.senses.train import errors, evaluate


class FixedModel:
    """A sense model whose decisions are a table keyed by sentence; it has a trained entry for
    `since` only (`while` falls back to the lexicon, as in a model directory without its SVM).
    It checks that it is asked about the keyword's own span."""

    entries = {"since": {"label_counts": {"causal": 9, "temporal": 5, NONE: 2}}}

    def __init__(self, predictions: dict):
        self.predictions = predictions

    def _label(self, kw, text, start, end):
        assert text[start:end] == kw, (kw, text, start, end)
        return self.predictions[text]

    def disambiguate(self, queries):
        labels = [self._label(q.keyword, q.text, q.char_start, q.char_end) for q in queries]
        return [SenseDecision(None if lab == NONE else lab, 1.0, "classifier") for lab in labels]


def ann(keyword, text, label, doc="d"):
    start = text.index(keyword)
    return Annotation(keyword=keyword, text=text, char_start=start, char_end=start + len(keyword),
                      label=label, source="test", doc=doc)


ANNS = [
    ann("since", "a since 1990", "temporal"),
    ann("since", "b since it rained", "causal"),
    ann("since", "c since then", "temporal"),
    ann("since", "d since when", NONE),
    ann("since", "e since you ask", "causal"),
    ann("since", "f since noon", "temporal"),
    ann("while", "g while she slept", "temporal"),
    ann("while", "h while it is cheap", "comparative"),
    ann("while", "i while he read", "temporal"),
]
PRED = {"a since 1990": "temporal", "b since it rained": "temporal", "c since then": "temporal",
        "d since when": "causal", "e since you ask": "causal", "f since noon": "temporal",
        "g while she slept": "temporal", "h while it is cheap": "temporal",
        "i while he read": "comparative"}


def test_evaluate_hand_computed():
    # `as` first: a keyword without annotations is passed over, not the end of the loop.
    out = evaluate(FixedModel(PRED), ANNS, ["as", "since", "while"])
    assert out["keywords"] == ["since", "while"] and out["n"] == 9
    since, whl = out["per_keyword"]["since"], out["per_keyword"]["while"]
    assert since["labels"] == ["causal", NONE, "temporal"]
    # rows gold, columns predicted
    assert since["confusion"] == [[1, 0, 1], [1, 0, 0], [0, 0, 3]]
    assert (since["accuracy"], since["n"]) == (round(4 / 6, 4), 6)
    # majority from the training counts (causal, 9 of 16): 2 of 6 here; lexicon sense temporal: 3
    assert (since["majority_label"], since["majority_baseline"]) == ("causal", round(2 / 6, 4))
    assert since["lexicon_baseline"] == 0.5 and since["source"] == "classifier"
    assert whl["labels"] == ["comparative", "temporal"]
    assert whl["confusion"] == [[0, 1], [1, 1]]
    assert (whl["accuracy"], whl["source"]) == (round(1 / 3, 4), "lexicon")
    # no trained entry: the majority of the evaluated labels (temporal, 2 of 3)
    assert whl["majority_label"] == "temporal" and whl["majority_baseline"] == round(2 / 3, 4)
    assert whl["lexicon_baseline"] == round(1 / 3, 4)  # lexicon sense comparative
    assert out["accuracy"] == round(5 / 9, 4)
    assert out["majority_baseline"] == round(4 / 9, 4)
    assert out["lexicon_baseline"] == round(4 / 9, 4)


def test_evaluate_overall_is_micro_averaged():
    pred = dict(PRED, **{"b since it rained": "causal", "d since when": NONE})
    out = evaluate(FixedModel(pred), ANNS, ["since", "while"])
    assert out["per_keyword"]["since"]["accuracy"] == 1.0
    assert out["accuracy"] == round(7 / 9, 4)
    nothing = evaluate(FixedModel(pred), ANNS, ["as"])
    assert (nothing["accuracy"], nothing["majority_baseline"], nothing["lexicon_baseline"],
            nothing["n"]) == (0.0, 0.0, 0.0, 0)


def test_errors_are_exactly_the_wrong_rows():
    rows = errors(FixedModel(PRED), ANNS)
    assert [(r["keyword"], r["gold"], r["predicted"]) for r in rows] == [
        ("since", "causal", "temporal"), ("since", NONE, "causal"),
        ("while", "comparative", "temporal"), ("while", "temporal", "comparative")]
    assert rows[0]["context"] == "b since it rained" and rows[0]["doc"] == "d"


def test_error_context_is_80_characters_before_and_60_after():
    text = "x" * 100 + " since " + "y" * 100
    a = ann("since", text, "temporal")
    (row,) = errors(FixedModel({text: "causal"}), [a])
    assert row["context"] == text[a.char_start - 80:a.char_end + 60]
    assert row["context"].startswith("x" * 79 + " since") and row["context"].endswith("y" * 59)


def test_decision_sources_and_a_model_wrapping_its_classifier():
    out = evaluate(FixedModel(PRED), ANNS, ["since", "while"])
    assert out["per_keyword"]["since"]["sources"] == {"classifier": 6}

    class Wrapped:
        """Rules in front of the classifier, as load_senses builds it: the training counts are
        the classifier's."""

        def __init__(self, classifier):
            self.classifier = classifier

        def disambiguate(self, queries):
            return self.classifier.disambiguate(queries)

    class Bare:
        """Decisions without training counts anywhere (a rules-only model)."""

        def __init__(self, classifier):
            self._classifier = classifier

        def disambiguate(self, queries):
            return self._classifier.disambiguate(queries)

    wrapped = evaluate(Wrapped(FixedModel(PRED)), ANNS, ["since"])["per_keyword"]["since"]
    assert (wrapped["majority_label"], wrapped["source"]) == ("causal", "classifier")
    bare = evaluate(Bare(FixedModel(PRED)), ANNS, ["since"])["per_keyword"]["since"]
    # no training counts: the majority of the evaluated labels (temporal, 3 of 6)
    assert (bare["majority_label"], bare["source"]) == ("temporal", "lexicon")


def test_a_keyword_with_one_label_gets_its_1x1_matrix_without_a_warning(recwarn):
    # every `while` gold and predicted temporal: scikit-learn's "single label" warning is noise
    anns = [ann("while", "g while she slept", "temporal"), ann("while", "i while he read", "temporal")]
    out = evaluate(FixedModel({a.text: "temporal" for a in anns}), anns, ["while"])
    whl = out["per_keyword"]["while"]
    assert (whl["labels"], whl["confusion"], whl["accuracy"]) == (["temporal"], [[2]], 1.0)
    assert [str(w.message) for w in recwarn] == []


def test_plot_cli_writes_png(tmp_path):
    from logicparse.cli import _register, app

    _register()
    png = tmp_path / "since.png"
    res = CliRunner().invoke(app, ["senses", "plot", "--out", str(png), "--annotations",
                                   str(ANNOTATIONS_DIR / "hand.jsonl")])
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
