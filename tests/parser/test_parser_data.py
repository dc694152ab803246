"""Treebank cleaning and the EVALB scorer, on small hand-made trees (no model needed)."""

from pathlib import Path

import nltk
import pytest

from logicparse.errors import DataFormatError
from logicparse.parser.evalb import evalb, score_sentence
from logicparse.parser.treebank import clean_tree, read_trees, strip_label
from logicparse.ptb import raw_tokens, split_trees

FIX = Path(__file__).parents[1] / "fixtures" / "parser"


def test_strip_label():
    assert strip_label("NP-SBJ-1") == "NP"
    assert strip_label("NP-SBJ=2") == "NP"
    assert strip_label("PP-LOC") == "PP"
    assert strip_label("S") == "S"
    assert strip_label("PRT|ADVP") == "PRT"
    # Whole labels that begin with a dash are not function-tagged categories.
    for lab in ("-NONE-", "-LRB-", "-RRB-"):
        assert strip_label(lab) == lab


def test_split_trees_multiline_and_blank_lines():
    trees = list(split_trees((FIX / "raw_wsj.mrg").read_text()))
    assert len(trees) == 3
    with pytest.raises(DataFormatError):
        list(split_trees("(S (NP x)"))
    with pytest.raises(DataFormatError):
        list(split_trees("(S (NP x)))"))


def test_clean_wsj_traces_tags_indices_and_empty_top():
    t1, t2, t3 = read_trees(FIX / "raw_wsj.mrg")
    # The trace subject and the NP it leaves empty go; NP-SBJ-1 / NP-PRD lose tag and index;
    # the empty top bracket becomes TOP.
    assert str(t1) == str(nltk.Tree.fromstring(
        "(TOP (S (NP (NP (NNP Rudolph) (NNP Agnew)) (, ,)) (VP (VBD was) (VP (VBN named) "
        "(S (NP (DT a) (NN director))))) (. .)))"))
    # A clause made only of traces disappears with its SBAR.
    assert str(t2) == str(nltk.Tree.fromstring(
        "(TOP (S (NP (PRP He)) (VP (VBD said)) (. .)))"))
    # PTB tokens and bracket tags are kept as they are.
    assert t3.leaves() == ["-LRB-", "it", "-RRB-", "works", "."]
    assert t3.pos()[0] == ("-LRB-", "-LRB-")
    assert t3[0][0].label() == "NP"


def test_clean_gum_root_and_hyph():
    t1, t2 = read_trees(FIX / "raw_gum.mrg")
    assert t1.label() == "TOP" and t1[0].label() == "S" and t1[0][0].label() == "NP"
    assert ("-", "HYPH") in t2.pos()


def test_clean_all_trace_tree_is_dropped():
    assert clean_tree(nltk.Tree.fromstring("( (S (NP-SBJ (-NONE- *)) ))")) is None


def test_read_trees_errors(tmp_path):
    with pytest.raises(DataFormatError, match="does not exist"):
        read_trees(tmp_path / "nope.mrg")
    empty = tmp_path / "empty.mrg"
    empty.write_text("( (S (-NONE- *)) )\n")
    with pytest.raises(DataFormatError, match="no usable trees"):
        read_trees(empty)


def test_raw_tokens():
    assert raw_tokens(["-LRB-", "``", "a", "''", "-RRB-"]) == ["(", '"', "a", '"', ")"]


# ---- EVALB, hand-computed ---------------------------------------------------------------------
GOLD = "(TOP (S (NP (DT The) (NN cat)) (VP (VBD sat) (PP (IN on) (NP (DT the) (NN mat)))) (. .)))"


def test_evalb_identical():
    m, g, t = score_sentence(GOLD, GOLD)
    # S, NP, VP, PP, NP: five brackets; TOP and preterminals are not scored.
    assert (m, g, t) == (5, 5, 5)
    s = evalb([GOLD], [GOLD])
    assert s.f1 == 1.0 and s.sentences == 1 and s.exact == 1


def test_evalb_one_wrong_attachment():
    # PP attached to the NP "the cat ... " is not possible here; instead the test tree
    # brackets "sat on" as a VP-internal NP: brackets S(0,6) NP(0,2) VP(2,6) NP(2,4) NP(4,6)
    # (punctuation removed, so spans count 6 words).
    test = "(TOP (S (NP (DT The) (NN cat)) (VP (NP (VBD sat) (IN on)) (NP (DT the) (NN mat))) (. .)))"
    m, g, t = score_sentence(GOLD, test)
    # Matches: S, NP(the cat), VP, NP(the mat) = 4 of gold 5 and test 5.
    assert (m, g, t) == (4, 5, 5)
    s = evalb([GOLD], [test])
    assert s.precision == pytest.approx(0.8) and s.recall == pytest.approx(0.8)


def test_evalb_punctuation_ignored_and_function_tags_stripped():
    gold = "(TOP (S (NP-SBJ (PRP I)) (VP (VBP like) (NP (NN tea))) (. .)))"
    # The test tree puts the final period inside the VP: after deleting punctuation the VP
    # spans the same words, so it still matches. NP-SBJ = NP.
    test = "(TOP (S (NP (PRP I)) (VP (VBP like) (NP (NN tea)) (. .))))"
    assert score_sentence(gold, test) == (4, 4, 4)


def test_evalb_advp_prt_equivalent_and_unary_chain_counts_twice():
    gold = "(TOP (S (NP (PRP He)) (VP (VBD gave) (PRT (RP up)))))"
    test = "(TOP (S (NP (NP (PRP He))) (VP (VBD gave) (ADVP (RP up)))))"
    # gold: S NP VP PRT(=ADVP) = 4; test: S NP NP VP ADVP = 5; matched 4.
    assert score_sentence(gold, test) == (4, 4, 5)


def test_evalb_bracket_of_only_punctuation_is_not_scored():
    gold = "(TOP (S (NP (NNP Yes)) (FRAG (. .))))"
    test = "(TOP (S (NP (NNP Yes)) (. .)))"
    assert score_sentence(gold, test) == (2, 2, 2)


def test_evalb_length_mismatch_is_an_error_sentence():
    # As in EVALB: counted, not scored (more than MAX_ERROR of them stop the evaluation).
    s = evalb(["(TOP (S (NN a) (NN b)))", GOLD], ["(TOP (S (NN a)))", GOLD])
    assert (s.errors, s.sentences, s.f1) == (1, 1, 1.0)
    with pytest.raises(DataFormatError, match="Length unmatch"):
        score_sentence("(TOP (S (NN a) (NN b)))", "(TOP (S (NN a)))")
    with pytest.raises(DataFormatError):
        evalb([GOLD, GOLD], [GOLD])


def test_evalb_micro_average_over_sentences():
    test_bad = "(TOP (X (DT The) (NN cat) (VBD sat) (IN on) (DT the) (NN mat) (. .)))"
    s = evalb([GOLD, GOLD], [GOLD, test_bad])
    # 5 + 0 matched, 10 gold, 5 + 1 test.
    assert (s.matched, s.gold, s.test) == (5, 10, 6)
    assert s.f1 == pytest.approx(2 * (5 / 6) * 0.5 / (5 / 6 + 0.5))
