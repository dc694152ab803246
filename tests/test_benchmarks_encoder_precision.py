"""The figures `benchmarks/speed/encoder_precision.py` prints, on known decisions."""

import json

import pytest

from logicparse.senses.model import SenseDecision
from tests.conftest import benchmark_module


@pytest.fixture(scope="module")
def bench():
    return benchmark_module("speed/encoder_precision")


class Fixed:
    """A sense model whose decisions are given, in order."""

    def __init__(self, relations):
        self.relations = relations

    def disambiguate(self, queries):
        assert [q.keyword for q in queries] == ["since", "as", "while", "as"]
        return [SenseDecision(r, 0.9, "classifier") for r in self.relations]


def test_decisions_that_differ_and_those_right_are_counted(bench, tmp_path):
    rows = [{"keyword": "Since", "text": "Since then .", "char_start": 0, "char_end": 5,
             "label": "temporal"},
            {"keyword": "as", "text": "as it rained", "char_start": 0, "char_end": 2, "label": "causal"},
            {"keyword": "like", "text": "like this", "char_start": 0, "char_end": 4, "label": "none"},
            {"keyword": "while", "text": "while here", "char_start": 0, "char_end": 5, "label": "none"},
            {"keyword": "as", "text": "as well", "label": "none"},  # no span: not an occurrence
            {"keyword": "as", "text": "just as", "char_start": 5, "char_end": 7, "label": "none"}]
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    found = bench.occurrences(path, {"since", "as", "while"})
    assert [r["text"] for r in found] == ["Since then .", "as it rained", "while here", "just as"]
    first = Fixed(["temporal", "causal", None, "analogy"])  # 3 right
    second = Fixed(["temporal", "temporal", "comparative", "analogy"])  # 1 right
    assert bench.compare(first, second, found) == {"n": 4, "differ": 2, "right_first": 3,
                                                   "right_second": 1}
