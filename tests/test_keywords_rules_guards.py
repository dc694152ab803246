"""The conditions that keep a keyword rule from over-firing, and the words each rule's lists hold:
one hand-built sentence per condition (no parser, no encoder), labelled by docs/labelling.md.
Each sentence is one a broken condition decides otherwise (a word dropped from a list, a window
one word narrower or wider, a test on the wrong token). The other rule tests are in
test_keywords_rules.py and test_keywords_rules_connectives.py."""

import pytest

from logicparse.senses.rules import UNDECIDED
from test_keywords_rules import decided

WHEN = [
    # a question after punctuation or a dash (not only at the start): none
    ("(S (INTJ (UH Okay)) (, ,) (SBARQ (WHADVP (WRB when)) (SQ (VBZ is) (NP (PRP it)))) (. ?))", None),
    ("(S (NP (JJ How) (RB long)) (HYPH –) (SBARQ (WHADVP (WRB when)) (SQ (VBZ 's) (NP (DT the) (NN time)))) (. ?))",
     None),
    ("(S (NP (JJ How) (RB long)) (HYPH —) (SBARQ (WHADVP (WRB when)) (SQ (VBZ 's) (NP (DT the) (NN time)))) (. ?))",
     None),
    ("(S (NP (JJ How) (RB long)) (HYPH -) (SBARQ (WHADVP (WRB when)) (SQ (VBZ 's) (NP (DT the) (NN time)))) (. ?))",
     None),
    # "when to": an embedded question wherever it stands
    ("(S (NP (PRP I)) (VP (VBD showed) (NP (PRP them)) (SBAR (WHADVP (WRB when)) (S (VP (TO to) (VP (VB go)))))))",
     None),
    # a copula before `when` is a free relative, unless a comparison ("than it was when") or an
    # equative ("As it was when") comes first, within four words, from the first word on
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJR better) (SBAR (IN than) (S (NP (PRP it)) (VP (VBD was) "
     "(SBAR (WHADVP (WRB when)) (S (NP (PRP we)) (VP (VBD met))))))))))", "temporal"),
    ("(S (SBAR (IN As) (S (NP (PRP it)) (VP (VBD was) (SBAR (WHADVP (WRB when)) (S (NP (PRP we)) "
     "(VP (VBD met))))))) (, ,) (ADVP (RB so)) (NP (PRP it)) (VP (VBZ is)))", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD laughed) (SBAR (IN as) (S (NP (DT the) (JJS best) (NN part)) (VP (VBD was) "
     "(SBAR (WHADVP (WRB when)) (S (NP (PRP we)) (VP (VBD danced)))))))))", None),
    # "work out when" (= find out): an embedded question; a verb of asking two words back alone is not
    ("(S (NP (PRP We)) (VP (VBP work) (PRT (RP out)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ ends))))))",
     None),
    ("(S (NP (PRP He)) (VP (VBZ works) (PRT (RP out)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ ends))))))",
     None),
    ("(S (NP (PRP He)) (VP (VBD worked) (PRT (RP out)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) "
     "(VP (VBD ended))))))", None),
    ("(S (NP (PRP I)) (VP (VBD worked) (ADVP (RB hard)) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD was) "
     "(ADJP (JJ young)))))))", "temporal"),
    # a relative clause on a noun phrase with a time head further back: none (a noun phrase
    # without one keeps the clause temporal)
    ("(NP (NP (DT the) (NN day)) (PP (IN of) (NP (PRP$ our) (NN wedding))) (SBAR (WHADVP (WRB when)) "
     "(S (NP (PRP it)) (VP (VBD rained)))))", None),
    # a time noun opening the sentence, set off by a comma: a relative on it; "Years ago ,"
    # too (a time adverb after one word)
    ("(S (NP (NNP Monday)) (, ,) (SBAR (WHADVP (WRB when)) (S (NP (PRP we)) (VP (VBD met)))) (, ,) "
     "(NP (PRP it)) (VP (VBD rained)))", None),
    ("(S (ADVP (NP (NNS Years)) (RB ago)) (, ,) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD met) "
     "(NP (PRP you))))) (, ,) (NP (PRP it)) (VP (VBD rained)))", None),
]


@pytest.mark.parametrize("tree,expected", WHEN)
def test_when_guards(tree, expected):
    decided(tree, "when", 0, expected)


OTHERS = [
    # "even if" is a condition even after a verb of asking or knowing ("whether" otherwise)
    ("(S (NP (PRP I)) (VP (MD would) (RB not) (VP (VB know) (SBAR (RB even) (IN if) (S (NP (PRP you)) "
     "(VP (VBD told) (NP (PRP me))))))))", "if", "conditional"),
    # yet more / yet again / yet another (= still): none, after the first word; "yet more than"
    # and a sentence-initial coordinator stay a contrast
    ("(S (NP (PRP We)) (VP (VBP need) (NP (ADJP (RB yet) (JJR more)) (NN money))))", "yet", None),
    ("(S (NP (PRP He)) (VP (VBD failed) (ADVP (RB yet) (RB again))) (. .))", "yet", None),
    ("(S (ADVP (RB Then)) (NP (RB yet) (DT another) (NN delay)) (VP (VBD came)))", "yet", None),
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (, ,) (CC yet) (S (NP (QP (JJR more) (IN than) "
     "(CD three)) (PP (IN of) (NP (PRP us)))) (VP (VBP use) (NP (PRP it)))))", "yet", "comparative"),
    ("(S (CC Yet) (NP (JJR more) (NNS people)) (VP (VBD came)) (. .))", "yet", "comparative"),
    # "at the same time ," opening a clause after but / yet / and: "also" (the lexicon); inside
    # a clause, even before a comma: together in time
    ("(S (S (NP (PRP It)) (VP (VBZ helps))) (CC but) (PP (IN at) (NP (DT the) (JJ same) (NN time))) (, ,) "
     "(S (NP (PRP it)) (VP (VBZ hurts))))", "at the same time", UNDECIDED),
    ("(S (S (NP (PRP It)) (VP (VBZ helps))) (CC yet) (PP (IN at) (NP (DT the) (JJ same) (NN time))) (, ,) "
     "(S (NP (PRP it)) (VP (VBZ hurts))))", "at the same time", UNDECIDED),
    ("(S (S (NP (PRP It)) (VP (VBZ helps))) (CC and) (PP (IN at) (NP (DT the) (JJ same) (NN time))) (, ,) "
     "(S (NP (PRP it)) (VP (VBZ hurts))))", "at the same time", UNDECIDED),
    ("(S (NP (PRP They)) (VP (VBD sang) (CC and) (VBD danced) (PP (IN at) (NP (DT the) (JJ same) (NN time))) "
     "(, ,) (S (VP (VBG laughing)))))", "at the same time", "temporal"),
    # as well as + a clause with a pronoun or `there` as subject: an equative, none; + a noun
    # phrase: "and also" (the lexicon), even with a verb after it or one earlier in the sentence
    ("(S (NP (PRP We)) (VP (VBD played) (ADVP (RB as) (RB well) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (MD could)))))))", "as well as", None),
    ("(S (NP (PRP We)) (VP (VBD did) (ADVP (RB as) (RB well) (SBAR (IN as) (S (NP (EX there)) (VP (VBD was) "
     "(NP (NN time))))))))", "as well as", None),
    ("(S (NP (NNS Apples) (CONJP (RB as) (RB well) (IN as)) (NNS pears)) (VP (VBP grow)))", "as well as",
     UNDECIDED),
    ("(S (NP (PRP He)) (VP (VBD invited) (NP (NP (NNP Ann)) (CONJP (RB as) (RB well) (IN as)) (NP (PRP me)))) "
     "(. .))", "as well as", UNDECIDED),
    ("(S (NP (PRP He)) (VP (VBD invited) (NP (NP (NNP Ann)) (CONJP (RB as) (RB well) (IN as)) (NP (NP (PRP us)) "
     "(, ,) (SBAR (WHNP (WP who)) (S (VP (VBD came))))))))", "as well as", UNDECIDED),
    # thereby before a preposition or `to` (= by it): none
    ("(S (NP (PRP We)) (VP (VBP are) (ADJP (JJ bound) (ADVP (RB thereby)) (PP (TO to) (NP (DT the) (NN law))))))",
     "thereby", None),
]


@pytest.mark.parametrize("tree,keyword,expected", OTHERS)
def test_other_guards(tree, keyword, expected):
    decided(tree, keyword, 0, expected)
