"""`senses eval`'s figures on a model with fixed predictions: accuracy, the majority and lexicon
baselines, the confusion matrix and the error rows, all hand-computed."""

from logicparse.senses import SenseDecision
from logicparse.senses.data import NONE, Annotation
from logicparse.senses.train import errors, evaluate


class FixedModel:
    """A sense model whose decisions are a table keyed by sentence; it has a trained entry for
    `since` only (`while` falls back to the lexicon, as in a model directory without its SVM)."""

    entries = {"since": {"label_counts": {"causal": 5, "temporal": 9, NONE: 2}}}

    def __init__(self, predictions: dict):
        self.predictions = predictions

    def disambiguate(self, queries):
        labels = [self.predictions[q.text] for q in queries]
        return [SenseDecision(None if lab == NONE else lab, 1.0, "classifier") for lab in labels]

    def predict_labels(self, kw, occurrences):
        return [self.predictions[o.text] for o in occurrences]


def ann(keyword, text, label, doc="d"):
    start = text.index(keyword)
    return Annotation(keyword=keyword, text=text, char_start=start, char_end=start + len(keyword),
                      label=label, source="test", doc=doc)


ANNS = [
    ann("since", "since 1990 a", "temporal"),
    ann("since", "since it rained b", "causal"),
    ann("since", "since then c", "temporal"),
    ann("since", "since when d", NONE),
    ann("while", "while she slept e", "temporal"),
    ann("while", "while it is cheap f", "comparative"),
]
PRED = {"since 1990 a": "temporal", "since it rained b": "temporal", "since then c": "temporal",
        "since when d": "causal", "while she slept e": "temporal", "while it is cheap f": "temporal"}


def test_evaluate_hand_computed():
    out = evaluate(FixedModel(PRED), ANNS, ["since", "while", "as"])
    assert out["keywords"] == ["since", "while"] and out["n"] == 6  # no `as`: not reported
    since, whl = out["per_keyword"]["since"], out["per_keyword"]["while"]
    assert since["labels"] == ["causal", NONE, "temporal"]
    # rows gold, columns predicted
    assert since["confusion"] == [[0, 0, 1], [1, 0, 0], [0, 0, 2]]
    assert (since["accuracy"], since["n"]) == (0.5, 4)
    # majority from the training counts (temporal: 2 of 4); lexicon sense temporal: 2 of 4
    assert (since["majority_label"], since["majority_baseline"]) == ("temporal", 0.5)
    assert since["lexicon_baseline"] == 0.5 and since["source"] == "classifier"
    assert whl["labels"] == ["comparative", "temporal"]
    assert whl["confusion"] == [[0, 1], [0, 1]]
    assert (whl["accuracy"], whl["source"]) == (0.5, "lexicon")
    # no trained entry: the majority of the evaluated labels (a tie: the first seen)
    assert whl["majority_label"] == "temporal" and whl["majority_baseline"] == 0.5
    assert whl["lexicon_baseline"] == 0.5  # lexicon sense comparative: 1 of 2
    assert out["accuracy"] == round(3 / 6, 4)
    assert out["majority_baseline"] == 0.5 and out["lexicon_baseline"] == 0.5


def test_evaluate_overall_is_micro_averaged():
    pred = dict(PRED, **{"since it rained b": "causal", "since when d": NONE})
    out = evaluate(FixedModel(pred), ANNS, ["since", "while"])
    assert out["per_keyword"]["since"]["accuracy"] == 1.0
    assert out["accuracy"] == round(5 / 6, 4)
    assert evaluate(FixedModel(pred), ANNS, ["as"])["accuracy"] == 0.0  # nothing to score


def test_errors_are_exactly_the_wrong_rows():
    rows = errors(FixedModel(PRED), ANNS)
    assert [(r["keyword"], r["gold"], r["predicted"]) for r in rows] == [
        ("since", "causal", "temporal"), ("since", NONE, "causal"),
        ("while", "comparative", "temporal")]
    assert rows[0]["context"] == "since it rained b" and rows[0]["doc"] == "d"
