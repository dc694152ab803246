"""Rules that read the relation off the clause (``senses/clauses.py``; the comment, reduced and
peripheral clauses of `as`) and the `when` / `like` rules for time clauses and examples, on
hand-written trees (no parser, no encoder)."""

import pytest

from logicparse.senses.rules import CONNECTIVE, UNDECIDED, decide
from logicparse.trees import read_tree


def rule(tree: str, keyword: str, nth: int = 0):
    t = read_tree(tree)
    words = [w.lower() for w in t.leaves]
    kw = keyword.split()
    start = [i for i in range(len(words)) if words[i:i + len(kw)] == kw][nth]
    return decide(keyword, t, start, start + len(kw))


def check(tree, keyword, expected, nth=0):
    got = rule(tree, keyword, nth)
    assert (got is expected) if expected in (None, UNDECIDED, CONNECTIVE) else got == expected, got


LATE = "(S (SBAR (IN {kw}) (S (NP (PRP I)) (VP ({tag} {verb}) {rest}))) (, ,) (NP (PRP I)) (VP (VBD took) (NP (DT a) (NN taxi))) (. .))"


@pytest.mark.parametrize("kw,tag,verb,rest,expected", [
    # a state (be + adjective or noun phrase, have + object, a modal): a reason
    ("As", "VBD", "was", "(ADJP (JJ late))", "causal"),
    ("As", "VBD", "was", "(NP (DT a) (NN guest))", "causal"),
    ("As", "VBD", "had", "(NP (DT no) (NN car))", "causal"),
    ("As", "MD", "could", "(VP (VB walk))", "causal"),
    ("Since", "VBP", "am", "(ADJP (JJ late))", "causal"),
    ("Since", "VBP", "have", "(NP (DT no) (NN car))", "causal"),
    # an event, or be before a place or in the progressive: the classifier picks (not none)
    ("As", "VBD", "left", "(NP (DT the) (NN house))", CONNECTIVE),
    ("As", "VBD", "was", "(VP (VBG walking))", CONNECTIVE),
    ("As", "VBD", "was", "(PP (IN in) (NP (NNP Rome)))", CONNECTIVE),
    # since + a past verb before a simple past ("since I was young, I took"): the classifier
    ("Since", "VBD", "was", "(ADJP (JJ young))", CONNECTIVE),
    ("Since", "VBD", "left", "(NP (NNP Rome))", CONNECTIVE),
    # while + a modal, or a negated adjective or one with its own clause: no time, a contrast
    # (comparative, concessive or not); a plain adjective ("while it is warm": a time) or a noun
    # phrase: the classifier
    ("While", "VBP", "am", "(ADJP (JJ late))", CONNECTIVE),
    ("While", "VBP", "am", "(RB not) (ADJP (JJ late))", "comparative"),
    ("While", "VBP", "am", "(ADJP (JJ unlikely) (S (VP (TO to) (VP (VB win)))))", "comparative"),
    ("While", "MD", "may", "(VP (VB be) (ADJP (JJ late)))", "comparative"),
    ("While", "VBP", "have", "(NP (DT no) (NN car))", CONNECTIVE),
    ("While", "VBD", "slept", "", CONNECTIVE),
])
def test_cause_or_time_from_the_clause(kw, tag, verb, rest, expected):
    check(LATE.format(kw=kw, tag=tag, verb=verb, rest=rest), kw.lower(), expected)


def test_an_equatives_clause_is_left_to_the_classifier():
    # "as brave and calm as a human being could": a modal, but the clause of an equative, no reason
    check("(S (NP (PRP I)) (VP (VBD stayed) (ADJP (RB as) (JJ brave) (CC and) (JJ calm) (SBAR (IN as) (S (NP (DT a) (NN human))"
          " (VP (MD could) (PP (IN under) (NP (NNS circumstances)))))))))", "as", CONNECTIVE, nth=1)


@pytest.mark.parametrize("tree,keyword,expected", [
    # a comment clause read off the clause's verb, however far from `as` (a comma or a
    # parenthesis on the way) and whatever verb of saying or thinking: analogy; not with an object
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN as) (S (NP (NP (NNP John)) (, ,) (NP (PRP$ my) (NN friend)) (, ,)) "
     "(VP (VBD said))))))", "as", None),
    ("(S (NP (NNS Typologies)) (VP (VBD grew) (, ,) (SBAR (IN as) (S (NP (NNP Canton) (-LRB- -LRB-) (CD 2011)"
     " (-RRB- -RRB-)) (VP (VBZ reviews))))) (. .))", "as", None),
    ("(S (NP (PRP It)) (VP (VBZ holds) (, ,) (SBAR (IN as) (S (NP (JJ many) (NNS philosophers)) (VP (VBP assume)))))"
     " (. .))", "as", None),
    ("(S (NP (PRP It)) (VP (VBZ holds) (SBAR (IN as) (S (NP (PRP they)) (VP (VBP assume) (NP (DT the) (NN risk)))))))",
     "as", CONNECTIVE),
    # "done" without its object, a place after it: analogy ("as people have done over the world")
    ("(S (NP (PRP You)) (VP (MD can) (VP (VB do) (NP (PRP it)) (SBAR (IN as) (S (NP (NNS people)) (VP (VBP have)"
     " (VP (VBN done) (PP (IN over) (NP (DT the) (NN world))))))))))", "as", "analogy"),
    # a reduced clause ("as promised", "as previously defined"): a connective; "as opposed to" is
    # a contrast, which `as` is not listed for: none
    ("(S (NP (PRP He)) (VP (VBD came) (SBAR (IN as) (VP (VBN promised)))))", "as", CONNECTIVE),
    ("(S (NP (NNS Results)) (VP (VBD came) (, ,) (SBAR (IN as) (ADVP (RB previously)) (VP (VBN defined)))))",
     "as", CONNECTIVE),
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ fun)) (SBAR (IN as) (VP (VBN opposed) (PP (TO to) (NP (NN malice)))))))",
     "as", None),
    # after a comma that closes a clause of its own: a reason; not after an opening adverb
    ("(S (NP (PRP It)) (VP (VBZ fails) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ continues) (S (VP (TO to)"
     " (VP (VB blink)))))))) (. .))", "as", "causal"),
    # ... not a past event or a progressive, as often the time: the classifier
    ("(S (NP (DT The) (NN phone)) (VP (VBD rang) (, ,) (SBAR (IN as) (S (NP (PRP I)) (VP (VBD was) (VP (VBG leaving)))))))",
     "as", CONNECTIVE),
    ("(S (NP (DT The) (NN crowd)) (VP (VBD cheered) (, ,) (SBAR (IN as) (S (NP (DT the) (NN team)) (VP (VBD came) "
     "(PP (IN onto) (NP (DT the) (NN field))))))))", "as", CONNECTIVE),
    ("(S (ADVP (RB Then)) (, ,) (SBAR (IN as) (S (NP (DT the) (NN class)) (VP (VBZ erupts)))) (, ,) (NP (PRP he))"
     " (VP (VBZ calms) (NP (PRP it))))", "as", CONNECTIVE),
    # a gerund subject is no participle: the clause decides ("While hypnotizing is unlikely to …")
    ("(S (SBAR (IN While) (S (NP (VBG hypnotizing)) (VP (VBZ is) (ADJP (JJ unlikely) (S (VP (TO to)"
     " (VP (VB cause) (NP (NN harm))))))))) (, ,) (NP (PRP it)) (VP (VBZ helps)))", "while", "comparative"),
])
def test_comment_reduced_and_peripheral_clauses(tree, keyword, expected):
    check(tree, keyword, expected)


BUT = [
    # a fragment: nothing after `but` but punctuation or fillers
    ("(S (CC But) (: –))", None),
    ("(S (NP (PRP I)) (VP (VBD said) (FRAG (CC but) (: –))))", None),
    ("(S (NP (PRP I)) (VP (VBP clean) (NP (PRP them)) (INTJ (UH um) (CC but) (UH yeah))) (. .))", None),
    # except / only
    ("(S (NP (DT all) (CC but) (NP (DT a) (JJ few))) (VP (VBD died)))", None),
    ("(S (NP (PRP It)) (VP (VBZ is) (NP (NN anything) (CC but) (DT that))) (. .))", None),
    ("(S (NP (DT The) (NN win)) (VP (VBZ is) (NP (CC but) (DT a) (NN step))) (. .))", None),
    # "I do but quote", "we can but hope": only
    ("(S (NP (PRP I)) (VP (VBP do) (RB but) (VP (VB quote))) (. .))", None),
    ("(S (NP (PRP We)) (VP (MD can) (RB but) (VP (VB hope))) (. .))", None),
    # not only X but (also) Y: it adds, no contrast
    ("(S (NP (PRP They)) (VP (VBP help) (NP (NP (RB not) (RB only) (DT the) (NNS elites)) (, ,) (CC but)"
     " (NP (NN society)))) (. .))", None),
    # ... however long X is, up to 30 words back; not past a semicolon
    ("(S (NP (PRP They)) (VP (VBP help) (NP (NP (RB not) (RB only) (DT the) (JJ old) (CC and) (JJ poor) (NNS farmers) "
     "(PP (IN of) (NP (DT the) (JJ dry) (JJ northern) (NNS plains)))) (, ,) (CC but) (NP (NN industry)))) (. .))",
     None),
    ("(S (S (NP (PRP They)) (VP (VBP help) (RB not) (RB only) (NP (NNS elites)))) (: ;) (S (NP (PRP it)) "
     "(VP (VBD rained))) (, ,) (CC but) (S (NP (PRP we)) (VP (VBD went))) (. .))", UNDECIDED),
    # everything else is a contrast, concessive or not: the lexicon's comparative (no rule decides
    # between contrast and concession): "anything but I …" coordinates clauses; "not X but Y";
    # two properties of one thing; two clauses; a sentence opened by `but`; verb phrases
    ("(S (S (NP (PRP I)) (VP (VBD had) (NP (NN nothing)))) (CC but) (S (NP (PRP I)) (VP (VBD waited))))",
     UNDECIDED),
    ("(S (NP (DT The) (NN money)) (VP (VBZ comes) (PP (PP (RB not) (IN from) (NP (NNS taxes))) (CC but)"
     " (PP (IN from) (NP (NN oil))))) (. .))", UNDECIDED),
    ("(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (ADJP (JJ small) (CC but) (JJ nice)) (NN airport))) (. .))",
     UNDECIDED),
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ sweet) (CC but) (RB very) (JJ dry))) (. .))", UNDECIDED),
    ("(S (S (NP (PRP It)) (VP (VBD rained))) (, ,) (CC but) (S (NP (PRP we)) (VP (VBD went))) (. .))",
     UNDECIDED),
    ("(S (CC But) (NP (PRP we)) (VP (VBD went)) (. .))", UNDECIDED),
    ("(S (INTJ (UH Uh)) (, ,) (CC but) (NP (PRP we)) (VP (VBD went)) (. .))", UNDECIDED),
    ("(S (NP (PRP He)) (VP (VP (VBD came)) (CC but) (VP (VBD left))) (. .))", UNDECIDED),
    ("(S (NP (PRP You)) (VP (MD ca) (RB n't) (VP (VB do) (NP (PRP it)) (CC but) (VP (VB try)))) (. .))",
     UNDECIDED),
]


@pytest.mark.parametrize("tree,expected", BUT)
def test_but(tree, expected):
    check(tree, "but", expected)


@pytest.mark.parametrize("tree,expected", [
    # a time clause under a noun phrase that names no time: a parser's attachment, still temporal
    ("(S (NP (PRP We)) (VP (VBD talked) (PP (TO to) (NP (NP (DT the) (NNS neighbours)) (SBAR (WHADVP (WRB when))"
     " (S (NP (PRP they)) (VP (VBD came))))))) (. .))", "temporal"),
    # ... a relative on a time noun or a date, also after a comma: none
    ("(S (NP (PRP It)) (VP (VBD happened) (PP (IN in) (NP (NP (DT the) (NNS 1920s)) (SBAR (WHADVP (WRB when))"
     " (S (NP (PRP it)) (VP (VBD boomed))))))) (. .))", None),
    ("(S (NP (PRP It)) (VP (VBD lasted) (PP (IN until) (NP (NNP January))) (, ,) (SBAR (WHADVP (WRB when))"
     " (S (NP (PRP it)) (VP (VBD closed))))) (. .))", None),
    # free relatives: after a copula or a preposition, the verb like; an infinitive question
    ("(S (NP (NN Day) (CD six)) (VP (VBD was) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD noticed)))))"
     " (. .))", None),
    ("(S (NP (PRP It)) (VP (VBD ran) (PP (IN from) (SBAR (WHADVP (WRB when)) (S (NP (PRP he)) (VP (VBD came)))))))",
     None),
    ("(S (NP (PRP I)) (VP (VBP like) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ rains))))))", None),
    ("(S (VP (VBG Knowing) (SBAR (WHADVP (WRB when)) (S (VP (TO to) (VP (VB invest)))))))", None),
    ("(S (VP (VB Figure) (PRT (RP out)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ ends))))))", None),
    ("(S (NP (PRP I)) (VP (VBP ask) (, ,) (: –) (SBAR (WHADVP (WRB when)) (SQ (VBZ 's) (NP (DT the) (NN time)))))"
     " (. ?))", None),
    # ... but "as it was when …" keeps its time, and "when it came out" is no "when it comes to"
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (RB as) (JJ strong) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD was)"
     " (SBAR (WHADVP (WRB when)) (S (NP (PRP he)) (VP (VBD lived))))))))) (. .))", "temporal"),
    ("(S (NP (PRP I)) (VP (VBD read) (NP (PRP it)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBD came)"
     " (PRT (RP out)))))) (. .))", "temporal"),
])
def test_when_time_clauses(tree, expected):
    check(tree, "when", expected)


@pytest.mark.parametrize("tree,expected", [
    # after a plural noun, a noun phrase or a gerund names members of the class: example
    ("(S (NP (NP (NNS fruits)) (PP (IN like) (NP (NNS apples)))) (VP (VBP grow)) (. .))", "example"),
    ("(S (NP (PRP We)) (VP (VBD used) (NP (NP (NNS things)) (PP (IN like) (S (VP (VBG buying) (NP (NNS offsets))))))))",
     "example"),
    # ... but not a pronoun: similar to
    ("(S (NP (NP (NNS people)) (PP (IN like) (NP (DT that)))) (VP (VBP exist)))", "analogy"),
    ("(S (NP (NP (DT a) (NN noise)) (PP (IN like) (NP (NN paper)))) (VP (VBD came)))", "analogy"),
    # fillers: sentence-initial before an adverb or pronoun, between a determiner and its noun
    ("(S (PP (IN Like) (ADVP (RB now))) (NP (PRP I)) (VP (VBP am) (ADJP (JJ confused))) (. .))", None),
    ("(S (NP (PRP I)) (VP (VBD saw) (NP (DT those) (IN like) (NNS videos))) (. .))", None),
    ("(S (PP (IN Like) (NP (JJS most) (NNS adults))) (, ,) (NP (PRP he)) (VP (VBD forgot)) (. .))", "analogy"),
    # before a clause (= I mean) or a number (an approximator): none; "like I said": a comment
    ("(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB know))) (, ,) (SBAR (IN like) (S (NP (PRP I)) (VP (VBD washed)"
     " (NP (PRP them))))) (. .))", None),
    ("(S (NP (PRP We)) (VP (VBD drove) (PP (IN for) (PP (IN like) (NP (CD 40) (NNS minutes))))) (. .))", None),
    ("(S (SBAR (IN Like) (S (NP (PRP I)) (VP (VBD said)))) (, ,) (NP (PRP it)) (VP (VBZ works)) (. .))", "analogy"),
    ("(S (NP (NP (NNS numbers)) (PP (IN like) (NP (CD 5)))) (VP (VBP count)))", "example"),
])
def test_like_examples_and_fillers(tree, expected):
    check(tree, "like", expected)


@pytest.mark.parametrize("tree,keyword,expected", [
    # at the same time: together in time, unless it opens a sentence before a comma ("also")
    ("(S (NP (PRP They)) (VP (VBD said) (NP (PRP it)) (PP (IN at) (NP (DT the) (JJ same) (NN time)))) (. .))",
     "at the same time", "temporal"),
    ("(S (PP (IN At) (NP (DT the) (JJ same) (NN time))) (, ,) (NP (PRP it)) (VP (VBZ helps)) (. .))",
     "at the same time", UNDECIDED),
    # as well as before a clause with its own subject: an equative
    ("(S (NP (PRP We)) (VP (VBD did) (RB n't) (VP (VB play) (ADVP (RB as) (RB well) (SBAR (IN as) (S (NP (PRP we))"
     " (VP (VBD hoped))))))) (. .))", "as well as", None),
    ("(S (NP (PRP It)) (VP (MD can) (VP (VB write) (CONJP (RB as) (RB well) (IN as)) (VB read))) (. .))",
     "as well as", UNDECIDED),
    # thereby before a preposition: "by it", no relation; before a verb: the lexicon (causal)
    ("(S (NP (DT the) (NN authority) (ADVP (RB thereby)) (PP (IN in) (NP (PRP me))) (VBN vested)))",
     "thereby", None),
    ("(S (NP (PRP It)) (VP (VBD grew) (, ,) (S (ADVP (RB thereby)) (VP (VBG raising) (NP (NNS prices))))))",
     "thereby", UNDECIDED),
])
def test_phrases_the_guide_settles(tree, keyword, expected):
    check(tree, keyword, expected)


def test_yet_between_two_adjectives_or_clauses_is_comparative():
    # concessive or not, `yet` = "but" is comparative: the keyword is listed there
    check("(S (NP (PRP It)) (VP (VBZ has) (NP (ADJP (JJ simple) (CC yet) (JJ delicious)) (NN food))) (. .))",
          "yet", "comparative")
    check("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC yet) (S (NP (PRP it)) (VP (VBZ works))))",
          "yet", "comparative")
