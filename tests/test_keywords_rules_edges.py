"""Edges of the keyword rules' conditions that the other rule tests leave open: one hand-built
sentence per condition (no parser, no encoder), labelled by docs/labelling.md. Each sentence is
one that a broken condition decides otherwise: a word dropped from a list, a window one word
wider, a tag no longer read. The other rule tests are in test_keywords_rules.py,
test_keywords_rules_connectives.py and test_keywords_rules_guards.py."""

import pytest

from test_keywords_rules import decided

EDGES = [
    # a sentence-initial `since` whose clause before the comma has a modal and no other verb:
    # a clause giving the reason, not a time ("Since its very outset ," has no verb at all)
    ("(S (SBAR (IN Since) (S (NP (PRP we)) (VP (MD can)))) (, ,) (NP (PRP we)) (VP (MD will) (VP (VB help))) "
     "(. .))", "since", 0, "causal"),
    # an `as` before an adjective seven words back is no equative's first `as` (the window is six
    # words): the clause's own relation, a reason
    ("(S (ADVP (RB As) (JJ usual)) (, ,) (NP (PRP we)) (VP (VBD left) (ADVP (RB early)) (NP (NN today)) "
     "(SBAR (IN as) (S (NP (PRP we)) (VP (VBD were) (ADJP (JJ tired)))))) (. .))", "as", 1, "causal"),
    # set off by a comma after a plural, a list of gerunds joined by `and` with no closing comma:
    # examples, as with `or` ("chores , like taking out the trash or pulling weeds")
    ("(S (NP (PRP He)) (VP (VBZ does) (NP (NP (NNS chores)) (, ,) (PP (IN like) (S (VP (VP (VBG cooking)) "
     "(CC and) (VP (VBG cleaning))))))) (. .))", "like", 0, "example"),
    # "what" the subject and the gerund `like`'s object: a likeness, not a stranded `like`
    ("(SBARQ (WHNP (WP What) (RB else)) (SQ (VBZ is) (PP (IN like) (S (VP (VBG skiing))))) (. ?))", "like", 0,
     "analogy"),
]


@pytest.mark.parametrize("tree,keyword,nth,expected", EDGES)
def test_rule_edges(tree, keyword, nth, expected):
    decided(tree, keyword, nth, expected)
