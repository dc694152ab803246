"""The identity figures that benchmarks/speed/annotate_ab.py prints when two runs' trees are
compared (the same checkout in two settings, or two checkouts), on hand-counted trees."""

from conftest import benchmark_module

A = "(TOP (S (NP (PRP I)) (VP (VBD left) (PP (IN to) (NP (NN town)))) (. .)))"
A_TAG = "(TOP (S (NP (PRP I)) (VP (VBD left) (PP (TO to) (NP (NN town)))) (. .)))"  # a tag only
A_FLAT = "(TOP (S (NP (PRP I)) (VP (VBD left) (IN to) (NP (NN town))) (. .)))"  # a PP fewer


def test_identical_trees_brackets_and_bracket_f1():
    ab = benchmark_module("speed/annotate_ab")
    # The TOP wrapper is no bracket (read_tree drops it), nor are the tags.
    assert ab.brackets(A) == [("NP", 0, 1), ("NP", 3, 4), ("PP", 2, 4), ("S", 0, 5), ("VP", 1, 4)]
    out = ab.bracket_agreement([(A, A), (A, A_TAG), (A, A_FLAT)])
    assert out["identical_trees"] == 1 and out["identical_share"] == round(1 / 3, 5)
    assert out["identical_brackets_share"] == round(2 / 3, 5)  # a changed tag is no bracket
    # 5 + 5 + 4 brackets shared of 5 + 5 + 5 and 5 + 5 + 4: 2 * 14 / (15 + 14)
    assert out["bracket_f1"] == round(28 / 29, 5)
    assert ab.bracket_agreement([])["bracket_f1"] == 0
