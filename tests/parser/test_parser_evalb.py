"""The bracket scorer against the reference EVALB: its own sample trees scored with COLLINS.prm must
give the figures of the reference program's output (tests/fixtures/parser/evalb_sample/), sentence
by sentence and in both summaries (all sentences, len<=40)."""

import re
from pathlib import Path

import pytest

from logicparse.errors import DataFormatError
from logicparse.parser import evalb as E

SAMPLE = Path(__file__).parents[1] / "fixtures" / "parser" / "evalb_sample"


def _lines(name: str) -> list[str]:
    return (SAMPLE / name).read_text().split("\n")[:24]


def _reference_rows() -> list[list[float]]:
    """The per-sentence table of sample.collins.rsl: id, len, stat, recall, precision, matched,
    gold, test, crossing, words, correct tags, tag accuracy."""
    rows = []
    for line in (SAMPLE / "sample.collins.rsl").read_text().splitlines():
        fields = line.split()
        if len(fields) == 12 and fields[0].isdigit():
            rows.append([float(x) for x in fields])
    assert len(rows) == 24
    return rows


def _reference_summary(section: str) -> dict:
    text = (SAMPLE / "sample.collins.rsl").read_text()
    block = text.split(f"-- {section} --")[1].split("\n\n")[0]
    return {k.strip(): float(v) for k, v in re.findall(r"^(.+?)=\s*([\d.]+)", block, re.M)}


@pytest.fixture(scope="module")
def score():
    return E.evalb(_lines("sample.gld"), _lines("sample.tst"))


def test_sample_gives_the_reference_rows(score):
    ours = [[i + 1, r.length, r.status, round(100 * r.recall, 2), round(100 * r.precision, 2),
             r.matched, r.gold, r.test, r.crossing, r.words, r.correct_tags,
             round(100 * r.correct_tags / r.words, 2) if r.words else 0.0]
            for i, r in enumerate(score.rows)]
    assert ours == _reference_rows()


def test_sample_error_reasons_are_evalbs(score):
    head = (SAMPLE / "sample.collins.rsl").read_text().split("  Sent.")[0]
    reference = [line.strip() for line in head.splitlines() if line.strip()]
    ours = [f"{i + 1} : {r.reason}" for i, r in enumerate(score.rows) if r.status == E.ERROR]
    assert ours == reference


@pytest.mark.parametrize("section,max_length", [("All", None), ("len<=40", E.CUTOFF_LEN)])
def test_sample_gives_the_reference_summary(score, section, max_length):
    s = score if max_length is None else score.cutoff(max_length)
    ref = _reference_summary(section)
    ours = {
        "Number of sentence": len(s.rows),
        "Number of Error sentence": s.errors,
        "Number of Skip  sentence": s.skipped,
        "Number of Valid sentence": s.sentences,
        "Bracketing Recall": round(100 * s.recall, 2),
        "Bracketing Precision": round(100 * s.precision, 2),
        "Bracketing FMeasure": round(100 * s.f1, 2),
        "Complete match": round(100 * s.exact / s.sentences, 2),
        "Average crossing": round(s.average_crossing, 2),
        "No crossing": round(100 * s.crossing_at_most(0), 2),
        "2 or less crossing": round(100 * s.crossing_at_most(2), 2),
        "Tagging accuracy": round(100 * s.tagging_accuracy, 2),
    }
    assert ours == ref


def test_constants_are_collins_prm():
    prm = (SAMPLE / "COLLINS.prm").read_text().splitlines()
    values = [line.split() for line in prm if line and not line.startswith("#")]
    deleted = {v[1] for v in values if v[0] == "DELETE_LABEL"}
    # ROOT is deleted too: GUM's root label plays TOP's part.
    assert E.DELETE_LABELS == deleted | {"ROOT"}
    assert E.PUNCT_TAGS == deleted - {"TOP"}
    assert E.LENGTH_DELETE_TAGS == {v[1] for v in values if v[0] == "DELETE_LABEL_FOR_LENGTH"}
    assert {(v[1], v[2]) for v in values if v[0] == "EQ_LABEL"} == {
        (b, a) for a, b in E.EQ_LABELS.items()}
    settings = {v[0]: v[1] for v in values if len(v) == 2}
    assert int(settings["MAX_ERROR"]) == E.MAX_ERROR and int(settings["CUTOFF_LEN"]) == E.CUTOFF_LEN
    assert settings["LABELED"] == "1"


def test_gold_given_as_prediction_scores_one():
    gold = _lines("sample.gld")
    s = E.evalb(gold, gold)
    assert (s.f1, s.precision, s.recall) == (1.0, 1.0, 1.0)
    assert s.exact == s.sentences == 24 and s.errors == s.skipped == 0
    assert s.matched == s.gold == 4 * 23 + 34 and s.tagging_accuracy == 1.0


def test_more_errors_than_max_error_stop_the_evaluation():
    gold, short = "(S (A (P this)) (B (Q is)))", "(S (A (P this)))"
    s = E.evalb([gold] * (E.MAX_ERROR + 1), [gold] + [short] * E.MAX_ERROR)
    assert s.errors == E.MAX_ERROR and s.sentences == 1 and s.f1 == 1.0
    with pytest.raises(DataFormatError, match="sentence 11: Length unmatch"):
        E.evalb([gold] * (E.MAX_ERROR + 2), [gold] + [short] * (E.MAX_ERROR + 1))


def test_punctuation_words_are_not_compared():
    # A parser given raw text writes `"` for both `` and '': not an error sentence.
    gold = "(S (`` ``) (NP (NN tea)) ('' ''))"
    test = "(S (`` \") (NP (NN tea)) ('' \"))"
    s = E.evalb([gold], [test])
    assert s.errors == 0 and (s.matched, s.gold, s.test) == (2, 2, 2)


def test_summary_dict_of_the_sample(score):
    # What `parser eval` prints: R 82/94, P 82/91, exact 8/16, over the 16 valid sentences.
    p, r = 82 / 91, 82 / 94
    assert score.to_dict() == {
        "f1": round(2 * p * r / (p + r), 6), "precision": round(p, 6), "recall": round(r, 6),
        "sentences": 16, "exact_match": 0.5, "error_sentences": 6, "skipped_sentences": 2}
    assert score.cutoff(E.CUTOFF_LEN).to_dict()["exact_match"] == round(7 / 15, 6)


def test_brackets_are_spans_of_kept_words():
    tree = E._as_tree("(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat)) (. .)))")
    assert E.brackets(tree, [True, True, True, False]) == {("S", 0, 3): 1, ("NP", 0, 2): 1,
                                                            ("VP", 2, 3): 1}
    # Without the first word every span moves left by one.
    assert E.brackets(tree, [False, True, True, False]) == {("S", 0, 2): 1, ("NP", 0, 1): 1,
                                                             ("VP", 1, 2): 1}


def test_empty_score_and_a_sentence_of_exactly_the_cutoff_length():
    empty = E.Score()
    assert (empty.f1, empty.tagging_accuracy, empty.average_crossing) == (0.0, 0.0, 0.0)
    assert empty.crossing_at_most(0) == 0.0 and empty.to_dict()["exact_match"] == 0.0
    forty = "(S " + " ".join(f"(NN w{i})" for i in range(E.CUTOFF_LEN)) + ")"
    s = E.evalb([forty], [forty])
    assert s.rows[0].length == E.CUTOFF_LEN and s.cutoff(E.CUTOFF_LEN).sentences == 1


def test_errors_name_the_counts():
    gold = "(S (A (P this)) (B (Q is)))"
    tail = ". The parser must return trees whose leaves are the gold tokens."
    # no one sentence is at fault: "-" for the whole set, "?" for a sentence scored alone
    with pytest.raises(DataFormatError) as e:
        E.evalb([gold, gold], [gold])
    assert str(e.value) == ("[E114] Gold and predicted trees differ for sentence -: "
                            "2 gold trees but 1 predicted" + tail)
    with pytest.raises(DataFormatError) as e:
        E.score_sentence(gold, "(S (A (P this)))")
    assert str(e.value) == ("[E114] Gold and predicted trees differ for sentence ?: "
                            "Length unmatch (2|1)" + tail)


def test_raw_brackets_in_gold_match_the_parsers_escaped_leaves():
    # GUM writes `[` and `{` raw where the parser writes -LSB- and -LCB-: the same word.
    gold = "(S (-LRB- [) (NP (NN tea) (-LRB- {) (NN x) (-RRB- })) (-RRB- ]) (: [...]))"
    test = "(S (-LRB- -LSB-) (NP (NN tea) (-LRB- -LCB-) (NN x) (-RRB- -RCB-)) (-RRB- -RSB-) (: -LSB-...-RSB-))"
    s = E.evalb([gold, test], [test, gold])
    assert s.errors == 0 and s.f1 == 1.0 and s.sentences == 2
    # Other words still have to match.
    assert E.evalb([gold], [test.replace("tea", "tee")]).errors == 1
