"""Edges of the keyword rules' conditions that the other rule tests leave open: one hand-built
sentence per condition (no parser, no encoder), labelled by docs/labelling.md. Each sentence is
one that a broken condition decides otherwise: a word dropped from a list, a window one word
wider, a tag no longer read. The other rule tests are in test_keywords_rules.py,
test_keywords_rules_connectives.py and test_keywords_rules_guards.py."""

import pytest

from logicparse.senses.rules import UNDECIDED
from test_keywords_rules import decided

EDGES = [
    # an equative opening the sentence: its first `as` is word 0, which the look-back reads too
    ("(S (ADJP (RB As) (JJ tall) (SBAR (IN as) (S (NP (PRP$ his) (NN father))))) (, ,) (NP (PRP he)) "
     "(VP (VBD left)))", "as", 1, None),
    # `like` tagged a particle is no preposition: none, whatever follows
    ("(S (NP (PRP He)) (VP (VBD looked) (PRT (RP like)) (NP (DT a) (NN fool))))", "like", 0, None),
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
    # the same with words before "what": only the words after it can be a subject
    ("(S (NP (PRP I)) (VP (VBD asked) (NP (PRP him)) (SBAR (WHNP (WP what) (RB else)) (S (VP (VBZ is) "
     "(PP (IN like) (S (VP (VBG skiing)))))))) (. .))", "like", 0, "analogy"),
    # a pronoun subject after "what" (not just before the verb): the gerund is extraposed and
    # `like`'s object is "what", as in "what life is like living here"
    ("(S (NP (PRP You)) (VP (VBP know) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (ADVP (RB really)) (VP (VBZ is) "
     "(PP (IN like) (S (VP (VBG living) (ADVP (RB here))))))))) (. .))", "like", 0, None),
    # "ever since" a past event is the time from then on, with no perfect around it too
    ("(S (NP (PRP He)) (VP (VBD was) (ADJP (JJ sad)) (SBAR (ADVP (RB ever)) (IN since) (S (NP (PRP she)) "
     "(VP (VBD left))))) (. .))", "since", 0, "temporal"),
    # a comment clause with "think", or with a past "had": none, as "as some would have us believe"
    ("(S (NP (PRP We)) (VP (VBP are) (RB not) (, ,) (SBAR (IN as) (S (NP (DT some)) (VP (MD would) (VP (VB have) "
     "(S (NP (PRP us)) (VP (VB think)))))))) (, ,) (ADJP (JJ doomed)))", "as", 0, None),
    ("(S (NP (PRP We)) (VP (VBP are) (RB not) (, ,) (SBAR (IN as) (S (NP (PRP they)) (VP (VBD had) "
     "(S (NP (PRP us)) (VP (VB believe))))))) (, ,) (ADJP (JJ doomed)))", "as", 0, None),
    # a participle set off by a comma before `as` and a gapped clause: a concession ("…, concerned
    # as we are with matters that …" in the inaugural dev set, labelled none), not a likeness
    ("(S (NP (PRP We)) (VP (VBP act) (ADVP (RB now)) (, ,) (VP (VBN concerned) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP are) (PP (IN with) (NP (DT the) (NN future)))))))) (. .))", "as", 0, None),
    # `just as` before a clause whose verb is a plural present or a modal: the classifier (as with
    # "just as the sun rises")
    ("(S (SBAR (RB Just) (IN as) (S (NP (DT the) (NNS birds)) (VP (VBP sing)))) (, ,) (ADVP (RB so)) "
     "(NP (PRP we)) (VP (VBP sing)) (. .))", "just as", 0, UNDECIDED),
    ("(S (SBAR (RB Just) (IN as) (S (NP (DT the) (NN sun)) (VP (MD will) (VP (VB rise))))) (, ,) (ADVP (RB so)) "
     "(NP (PRP we)) (VP (MD will) (VP (VB rise))) (. .))", "just as", 0, UNDECIDED),
    # a role whose noun phrase runs on to a verb nine words after `just as` (the verb is looked for
    # within eight): still a role
    ("(S (NP (PRP She)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (NP (DT a) (NN friend)) (PP (IN of) "
     "(NP (NP (DT the) (JJ old) (NN man)) (SBAR (WHNP (WP who)) (S (NP (PRP I)) (VP (VBD knew))))))))) (. .))",
     "just as", 0, None),
]


@pytest.mark.parametrize("tree,keyword,nth,expected", EDGES)
def test_rule_edges(tree, keyword, nth, expected):
    decided(tree, keyword, nth, expected)
