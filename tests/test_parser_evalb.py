"""The bracket scorer against the reference EVALB: its own sample trees scored with COLLINS.prm must
give the figures of the reference program's output (tests/fixtures/parser/evalb_sample/), sentence
by sentence and in both summaries (all sentences, len<=40)."""

import re
from pathlib import Path

import pytest

from logicparse.errors import DataFormatError
from logicparse.parser import evalb as E

SAMPLE = Path(__file__).parent / "fixtures" / "parser" / "evalb_sample"


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
    gold = [line for line in _lines("sample.gld")]
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
