"""The reason the service gives for a keyword decided none by a tree rule: the rule and the case
it matched, in the rules' own comments (never a generic line where the rule names its case)."""

import sys

import pytest

from logicparse.service.decisions import REASONS, rule_reason
from logicparse.trees import read_tree

CASES = [
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ raining))) (, ,) (SQ (VBZ is) (RB n't) (NP (PRP it)))"
     " (. ?))", 5, "n't", "tree rule _nt: A tag question"),
    ("(S (NP (EX There)) (VP (VBZ is) (NP (NP (NN nothing)) (PP (CC but) (NP (NN rain))))) (. .))",
     2, "nothing", 'tree rule _nothing: "nothing but complain": only'),
    ("(S (NP (PRP They)) (VP (VBD came) (PRT (RP in))) (. .))", 2, "in",
     'tree rule _in: particle ("coming in")'),
    ("(S (NP (PRP I)) (VP (VBP live) (PP (IN in) (NP (NNP Paris)))) (. .))", 2, "in",
     'tree rule _in: not a time: a place, a thing, a state ("in Paris"'),
]


@pytest.mark.parametrize("tree,start,keyword,says", CASES)
def test_a_rule_decided_none_is_named_with_its_case(tree, start, keyword, says):
    parsed = read_tree(tree)
    assert parsed.leaves[start] == keyword
    assert rule_reason(keyword, parsed, start, start + 1).startswith(says)


def test_the_profiler_in_use_is_put_back():
    def mine(frame, event, arg):
        return None

    sys.setprofile(mine)
    try:
        rule_reason("in", read_tree(CASES[2][0]), 2, 3)
        assert sys.getprofile() is mine
    finally:
        sys.setprofile(None)


def test_a_keyword_without_a_rule_case_gets_the_generic_reason():
    # A keyword the rules do not decide returns no case: the generic reason stands.
    assert rule_reason("because", read_tree(CASES[3][0]), 2, 3) == REASONS["rule"]
