"""The count `benchmarks/speed/batch_independence.py` prints, on a parser with a known answer."""

from types import SimpleNamespace

from tests.conftest import benchmark_module


class _BatchSensitive:
    """A parser whose tree for "b" depends on whether "a" is in its batch."""

    def parse(self, sentences):
        near_a = ["a"] in sentences
        return [SimpleNamespace(to_string=lambda s=s: f"({'X' if near_a and s == ['b'] else 'Y'} "
                                                      f"{s[0]})") for s in sentences]


def test_it_counts_the_sentences_whose_tree_changes_with_the_batch():
    bench = benchmark_module("speed/batch_independence")
    out = bench.same_alone_and_batched(_BatchSensitive(), [["a"], ["b"], ["c"]])
    assert out["sentences"] == 3 and out["same"] == 2
    assert bench.same_alone_and_batched(_BatchSensitive(), [["b"], ["c"]])["same"] == 2
