"""The conditions that keep a keyword rule from over-firing, and the words each rule's lists hold:
one hand-built sentence per condition (no parser, no encoder), labelled by docs/labelling.md.
Each sentence is one a broken condition decides otherwise (a word dropped from a list, a window
one word narrower or wider, a test on the wrong token). The other rule tests are in
test_keywords_rules.py and test_keywords_rules_connectives.py."""

import pytest

from logicparse.senses.rules import CONNECTIVE, UNDECIDED
from test_keywords_rules import decided, rule

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
    # since + a gerund that is the subject of a past, plural or modal verb: the classifier; the
    # finite verb is looked for from the gerund on (the main clause's "has" does not count)
    ("(S (SBAR (IN Since) (S (VP (VBG having) (NP (NNS children)) (VBD was) (ADJP (JJ hard))))) (, ,) "
     "(NP (PRP we)) (VP (VBD waited)) (. .))", "since", UNDECIDED),
    ("(S (SBAR (IN Since) (S (VP (VBG cooking) (CC and) (VBG cleaning) (VBP take) (NP (NN time))))) (, ,) "
     "(NP (PRP we)) (VP (VBP hire) (NP (NN help))) (. .))", "since", UNDECIDED),
    ("(S (SBAR (IN Since) (S (VP (VBG having) (NP (NNS children)) (MD can) (VP (VB be) (ADJP (JJ hard)))))) "
     "(, ,) (NP (PRP we)) (VP (VBP wait)) (. .))", "since", UNDECIDED),
    ("(S (NP (PRP He)) (VP (VBZ has) (VP (VBN changed) (SBAR (IN since) (S (VP (VBG leaving) (NP (NN school))))))))",
     "since", "temporal"),
]


@pytest.mark.parametrize("tree,keyword,expected", OTHERS)
def test_other_guards(tree, keyword, expected):
    decided(tree, keyword, 0, expected)


LIKE = [
    # a filler tagged as an adverb or interjection, or opening the sentence before one: none
    ("(S (NP (PRP It)) (VP (VBD was) (ADVP (RB like)) (ADJP (JJ huge))))", None),
    ("(S (INTJ (IN Like) (UH um)) (, ,) (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB know))))", None),
    ("(NP (DT those) (IN like) (JJ tiny) (NNS videos))", None),
    # ... but "Like you , I agree" compares: analogy
    ("(S (PP (IN Like) (NP (PRP you))) (, ,) (NP (PRP I)) (VP (VBP agree)) (. .))", "analogy"),
    # before a clause with a modal (= I mean): none
    ("(S (NP (PRP It)) (VP (VBZ 's) (ADJP (JJ fine)) (, ,) (PP (IN like) (S (NP (PRP we)) (VP (MD can) "
     "(VP (VB go)))))))", None),
    # "'s like" + a gerund: a likeness to an activity; after a subject pronoun, a filler
    ("(S (NP (DT That)) (VP (VBZ 's) (PP (IN like) (S (VP (VBG asking) (PP (IN for) (NP (NN trouble))))))))",
     "analogy"),
    ("(S (NP (PRP He)) (VP (VBZ 's) (PP (IN like) (S (VP (VBG freaking) (PRT (RP out)))))))", None),
    # evidential after a perception verb (mis-tagged as a noun, or before a bare modal): none
    ("(S (NP (PRP She)) (VP (NNS looks) (PP (IN like) (NP (CD sixteen)))))", None),
    ("(S (NP (PRP It)) (VP (VBZ looks) (SBAR (IN like) (S (NP (NNS prices)) (VP (MD will))))) (. .))", None),
    # a noun phrase after `like` is its object, even after "what I wanted" or "what … seemed": analogy
    ("(S (NP (PRP I)) (VP (VBD did) (SBAR (WHNP (WP what)) (S (NP (PRP I)) (VP (VBD wanted) (PP (IN like) "
     "(NP (DT a) (NN child))))))))", "analogy"),
    ("(S (NP (PRP I)) (VP (VBD did) (SBAR (WHNP (WP what)) (S (NP (PRP I)) (VP (VBD wanted) (PP (IN like) "
     "(NP (NN magic))))))))", "analogy"),
    ("(S (NP (PRP I)) (VP (VBD did) (SBAR (WHNP (WP what)) (S (NP (PRP I)) (VP (VBD wanted) (PP (IN like) "
     "(NP (JJ mad))))))))", "analogy"),
    ("(S (NP (PRP I)) (VP (VBD did) (SBAR (WHNP (WP what)) (S (NP (PRP I)) (VP (VBD wanted) (PP (IN like) "
     "(NP (PRP him))))))))", "analogy"),
    ("(S (NP (PRP We)) (VP (VBD waited) (PP (IN for) (SBAR (WHNP (WP what)) (S (VP (VBD seemed) (PP (IN like) "
     "(ADVP (RB forever)))))))) (. .))", "analogy"),
    # stranded after "what" (from the first word on; a verb before "what" does not count; "now"
    # and "then" after it, however tagged): none
    ("(S (SBAR (WHNP (WP What)) (S (NP (PRP it)) (VP (VBD was) (PP (IN like) (PP (IN in) (NP (NN winter))))))) "
     "(VP (VBZ is) (ADJP (JJ unclear))))", None),
    ("(S (NP (PRP I)) (VP (VBP wonder) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (VP (MD will) (VP (VB be) "
     "(PP (IN like) (PP (IN in) (NP (NN winter))))))))))", None),
    # a long subject between them (the nearest "what" counts), and a gerund extraposed after the
    # subject's verb: stranded too
    ("(S (NP (PRP I)) (VP (VBP wonder) (SBAR (WHNP (WP what)) (S (NP (NP (DT the) (JJ big) (JJ old) (NN house)) "
     "(PP (IN on) (NP (DT the) (NN hill)))) (VP (VBD was) (PP (IN like))))) (. .)))", None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (WHNP (WP what)) (S (NP (NN life)) (VP (VBZ is) (PP (IN like) "
     "(S (VP (VBG living) (ADVP (RB here))))))))) (. .))", None),
    # ... but not past a comma: "what" belongs to another clause
    ("(S (ADVP (DT No) (NN matter) (WP what)) (, ,) (NP (PRP it)) (VP (VBD ended) (PP (IN like) (PP (IN in) "
     "(NP (DT the) (NNS movies))))))", "analogy"),
    ("(NP (NP (NNS Memories)) (PP (IN of) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (VP (VBD was) (PP (IN like) "
     "(PP (IN in) (NP (NN winter)))))))))", None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (VP (VBD was) (PP (IN like) "
     "(NP (NN then))))))))", None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (VP (VBZ is) (PP (IN like) "
     "(NP (NN now))))))))", None),
    # examples after a plural noun: a determiner, an adjective, a proper plural before it
    ("(NP (NP (NNPS Olympians)) (PP (IN like) (NP (DT the) (NN sprinter))))", "example"),
    ("(NP (NP (NNS fruits)) (PP (IN like) (NP (JJ ripe) (NNS apples))))", "example"),
    ("(NP (NP (NNS fruits)) (PP (IN like) (NP (DT the) (NN apple))))", "example"),
    ("(NP (NP (NNS places)) (PP (IN like) (NP (DT some) (NNS parks))))", "example"),
    ("(S (NP (PRP They)) (VP (VBD sang) (NP (NNS songs)) (PP (IN like) (NP (DT no) (NN one) (RB else)))))",
     "analogy"),
    # set off by commas after a plural (also a proper plural, before a plural): examples; after a
    # singular noun, or without a comma: a likeness; a possessive object: a likeness
    ("(S (NP (NP (NNPS Americans)) (, ,) (PP (IN like) (NP (NNS veterans))) (, ,)) (VP (VBD voted)))", "example"),
    ("(S (NP (NP (DT Some) (NNS foods)) (, ,) (PP (IN like) (NP (NNS apples))) (, ,)) (VP (VBP are) "
     "(ADJP (JJ sweet))))", "example"),
    ("(S (NP (PRP He)) (VP (VBD ran) (PP (IN like) (NP (NN lightning))) (, ,) (CC and) (VP (VBD won))))", "analogy"),
    ("(S (NP (NP (DT the) (NN house)) (, ,) (PP (IN like) (NP (DT a) (NN castle))) (, ,)) (VP (VBD stood)))",
     "analogy"),
    ("(S (NP (NP (PRP$ its) (NNS antennae)) (, ,) (PP (IN like) (NP (NP (NN carter) (POS 's)) (NNS whips))) "
     "(, ,)) (VP (VBP wave)))", "analogy"),
    ("(S (NP (NP (PRP$ its) (NNS antennae)) (, ,) (PP (IN like) (NP (NP (NN carter) (POS ’s)) (NNS whips))) "
     "(, ,)) (VP (VBP wave)))", "analogy"),
    ("(S (NP (NP (PRP$ its) (NNS antennae)) (, ,) (PP (IN like) (NP (NP (NNS carters) (POS ’)) (NNS whips))) "
     "(, ,)) (VP (VBP wave)))", "analogy"),
    # a singular noun or a comma before, names or a list after: examples
    ("(NP (NP (DT a) (NN palace)) (, ,) (PP (IN like) (NP (NNP Versailles))))", "example"),
    ("(NP (NP (DT a) (NN band)) (PP (IN like) (NP (DT the) (NNPS Beatles))))", "example"),
    ("(NP (NP (DT a) (NN dish)) (PP (IN like) (NP (NN rice) (CC and) (NNS beans))))", "example"),
    ("(NP (NP (DT a) (NN pet)) (PP (IN like) (NP (DT a) (NN cat) (CC or) (DT a) (NN dog))))", "example"),
    ("(NP (NP (DT a) (NN meal)) (PP (IN like) (NP (NN rice) (, ,) (NNS beans) (, ,) (NN soup))))", "example"),
    # `like` tagged as a preposition after a proper plural, or after a plural or coordinated
    # subject and adverbs, in a clause with no verb phrase: the verb, none; a subject that
    # ends before a colon leaves `like` the preposition of a verbless heading: analogy
    ("(S (NP (NNPS Americans)) (PP (IN like) (NP (NN baseball))))", None),
    ("(S (NP (NNP Tom) (CC and) (NNP Ann)) (ADVP (RB often)) (PP (IN like) (NP (NN fish))))", None),
    ("(S (NP (NNS Cats)) (RB often) (PP (IN like) (NP (NN fish))))", None),
    ("(S (NP (NNP Tom) (CC and) (NNP Ann)) (RB also) (ADVP (RB often)) (PP (IN like) (NP (NN fish))))", None),
    ("(S (NP (NNS Apples) (CC and) (NNS pears)) (: :) (PP (IN like) (NP (NN candy))))", "analogy"),
]


@pytest.mark.parametrize("tree,expected", LIKE)
def test_like_guards(tree, expected):
    decided(tree, "like", 0, expected)


def test_like_alone_is_read_without_error():
    """A tree that is `like`'s preterminal alone (a one-word sentence in a tree file) has no
    clause around `like` to read."""
    rule("(IN Like)", "like", 0)


AS = [
    ("(S (PP (IN As) (NP (NP (DT a) (NN result)) (PP (IN of) (NP (DT the) (NN rain))))) (, ,) (NP (PRP we)) "
     "(VP (VBD stayed)))", "causal"),
    # a verb of saying five words on is no comment clause's ("as I watched the ripples that told …")
    ("(S (SBAR (IN As) (S (NP (PRP I)) (VP (VBD watched) (NP (NP (DT the) (NNS ripples)) (SBAR (WHNP (WDT that)) "
     "(S (VP (VBD told) (PP (IN of) (NP (NNS worms)))))))))) (, ,) (NP (PRP I)) (VP (VBD felt) (NP (DT a) "
     "(NN chill))))", CONNECTIVE),
    ("(S (PP (IN As) (NP (CD one) (NN indication))) (, ,) (VP (VB consider) (NP (DT the) (NNS figures))))", "example"),
    ("(S (NP (PRP It)) (VP (VBZ holds) (SBAR (RB insofar) (IN as) (S (NP (PRP we)) (VP (VBP agree))))))", None),
    # "as is to be expected": a comment clause, not "as … to"
    ("(S (NP (PRP It)) (VP (VBD failed) (, ,) (SBAR (IN as) (S (VP (VBZ is) (S (VP (TO to) (VP (VB be) "
     "(VP (VBN expected))))))))))", "analogy"),
    # a verb of saying or recalling with its own object ("said that …", "recall the hopes") is
    # no comment clause; without one ("as I recall it", "as I said the other day") it is, and none
    ("(S (NP (PRP It)) (VP (VBD rained) (, ,) (SBAR (IN as) (S (NP (PRP they)) (VP (VBD said) (SBAR (IN that) "
     "(S (NP (PRP it)) (VP (MD would)))))))))", CONNECTIVE),
    ("(S (NP (PRP I)) (VP (VBP smile) (SBAR (IN as) (S (NP (PRP I)) (VP (VBP recall) (NP (DT the) (NNS hopes)))))))",
     CONNECTIVE),
    ("(S (SBAR (IN As) (S (NP (PRP I)) (VP (VBP recall) (NP (PRP it))))) (, ,) (NP (PRP it)) (VP (VBD rained)))",
     None),
    ("(S (SBAR (IN As) (S (NP (PRP I)) (VP (VBD said) (NP (DT the) (JJ other) (NN day))))) (, ,) (NP (PRP it)) "
     "(VP (VBZ works)))", None),
    # the equative's clause: an `as` before an adjective or adverb up to six words back, from the
    # first word on, not any word before one, nor the keyword itself
    ("(S (NP (PRP They)) (VP (VBD left) (ADVP (RB very) (RB early)) (, ,) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP are) (RB not) (ADJP (JJ happy)))))))", "causal"),
    ("(S (NP (PRP He)) (VP (VBD ran) (ADVP (RB as) (RB quickly) (CC and) (RB quietly) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP are) (ADJP (JJ able))))))))", CONNECTIVE, 1),
    ("(S (PP (IN As) (ADJP (JJ usual))) (, ,) (NP (PRP we)) (VP (VBD left) (, ,) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP are) (ADJP (JJ tired)))))))", CONNECTIVE, 1),
    ("(S (PP (IN As) (ADJP (JJ usual))) (, ,) (NP (PRP we)) (VP (VBD left) (ADVP (RB early)) (NP (NN today)) (, ,) "
     "(SBAR (IN as) (S (NP (PRP we)) (VP (VBP are) (ADJP (JJ tired)))))))", "causal", 1),
    ("(S (NP (PRP We)) (VP (VBD left) (ADVP (RB early)) (, ,) (SBAR (IN as) (S (ADVP (RB usually)) (NP (PRP we)) "
     "(VP (VBP are) (ADJP (JJ tired)))))))", "causal"),
    # "X , as Y" after a clause with a past, present or modal verb: the reason
    ("(S (NP (DT The) (NN chicken)) (VP (VBD gave) (NP (DT an) (NN act)) (, ,) (SBAR (IN as) (S (NP (PRP it)) "
     "(VP (VBZ continues) (S (VP (TO to) (VP (VB blink)))))))))", "causal"),
    ("(S (NP (PRP We)) (VP (VBP stay) (ADVP (RB inside)) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ continues) "
     "(S (VP (TO to) (VP (VB rain)))))))))", "causal"),
    ("(S (NP (PRP We)) (VP (MD will) (VP (VB stay) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ continues) "
     "(S (VP (TO to) (VP (VB rain))))))))))", "causal"),
    # "such" anywhere back in the clause, the first word too: none
    ("(S (NP (NP (JJ Such) (NNS laws)) (SBAR (IN as) (S (VP (MD may) (VP (VB be) (VP (VBN needed))))))) "
     "(VP (MD will) (VP (VB pass))))", None),
    ("(S (NP (PRP We)) (VP (VBP need) (NP (NP (JJ such) (NNS changes)) (PP (TO to) (NP (PRP it))) (SBAR (IN as) "
     "(S (VP (MD may) (VP (VB be) (VP (VBN needed)))))))))", None),
    # a comment clause whose verb thinks, with an adverb or a prepositional phrase after it: none
    ("(S (NP (PRP It)) (VP (VBZ works) (, ,) (SBAR (IN as) (S (NP (JJ many) (NNS people)) (VP (VBP believe) "
     "(ADVP (RB nowadays)))))))", None),
    ("(S (NP (PRP It)) (VP (VBZ works) (, ,) (SBAR (IN as) (S (NP (JJ many) (NNS people)) (VP (VBP believe) "
     "(RB now))))))", None),
    ("(S (NP (PRP It)) (VP (VBZ works) (, ,) (SBAR (IN as) (S (NP (JJ many) (NNS people)) (VP (VBP believe) "
     "(PP (IN in) (NP (NNP Europe))))))))", None),
]


@pytest.mark.parametrize("case", AS)
def test_as_guards(case):
    tree, expected, nth = case if len(case) == 3 else case + (0,)
    decided(tree, "as", nth, expected)


LISTED = [
    # `otherwise` after a clause opener but before a participle, adjective or adverb (= in other
    # respects): none
    ("(NP (NP (NNS buildings)) (, ,) (ADJP (RB otherwise) (VBN abandoned)))", "otherwise", None),
    ("(S (NP (NP (DT The) (NN room)) (, ,) (ADJP (RB otherwise) (JJ empty)) (, ,)) (VP (VBD held) (NP (DT a) "
     "(NN chair))))", "otherwise", None),
    ("(S (NP (PRP He)) (VP (VBD spoke) (ADVP (RB slowly)) (CC but) (ADVP (RB otherwise) (RB well))))",
     "otherwise", None),
    # `such as` before a finite verb: the relative of such … as, no example
    ("(NP (NP (NNS funds)) (PP (JJ such) (IN as) (S (VP (VBD were) (VP (VBN needed))))))", "such as", None),
    ("(NP (NP (NNS goods)) (PP (JJ such) (IN as) (S (VP (VBP are) (ADJP (JJ ready))))))", "such as", None),
    ("(NP (NP (NN help)) (PP (JJ such) (IN as) (S (VP (VBZ is) (VP (VBN needed))))))", "such as", None),
]


@pytest.mark.parametrize("tree,keyword,expected", LISTED)
def test_listed_guards(tree, keyword, expected):
    decided(tree, keyword, 0, expected)
