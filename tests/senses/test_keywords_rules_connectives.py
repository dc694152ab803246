"""Tree rules for if, then, since, as and the rarer keywords: one hand-built sentence for each
branch and each listed word or tag of a rule (no parser, no encoder). Labels follow
docs/labelling.md; ``like`` and ``when`` are in test_keywords_rules.py."""

import pytest

from logicparse.senses.rules import CONNECTIVE, UNDECIDED, base
from test_keywords_rules import decided


IF = [
    # hedges "if any", "if anything", "if ever": none; "if anything happens": a condition
    ("(NP (NP (JJ little)) (, ,) (SBAR (IN if) (NP (NN anything))) (, ,))", None),
    ("(NP (JJ little) (IN if) (DT any) (NN effect))", None),
    ("(S (NP (PRP They)) (ADVP (RB rarely) (IN if) (RB ever)) (VP (VBP call)))", None),
    ("(S (NP (PRP They)) (ADVP (RB seldom) (IN if) (RB ever)) (VP (VBP call)))", None),
    ("(NP (NP (DT the) (NNS effects)) (, ,) (SBAR (IN if) (NP (DT any))) (, ,))", None),
    ("(S (NP (PRP I)) (VP (MD will) (VP (VB call) (SBAR (IN if) (S (NP (NN anything)) (VP (VBZ happens)))))))",
     "conditional"),
    # "what if": a hypothetical condition, even after a verb of asking
    ("(S (ADVP (RB So)) (NP (PRP I)) (VP (VBD asked) (SBAR (WHNP (WP what)) (SBAR (IN if) (S (NP (PRP it)) "
     "(VP (VBZ rains)))))))", "conditional"),
    # "ask if": whether, up to three words back, from the first word on; not past a comma
    ("(S (VP (VB Ask) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ open)))))) (. .))", None),
    ("(S (NP (PRP I)) (VP (VBD asked) (NP (PRP him)) (SBAR (IN if) (S (NP (PRP he)) (VP (VBD came))))))", None),
    ("(S (NP (PRP I)) (VP (VBD asked) (NP (PRP him)) (ADVP (RB quietly)) (SBAR (IN if) (S (NP (PRP he)) "
     "(VP (VBD came))))))", None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (S (NP (PRP we)) (VP (VBP go) (ADVP (RB home)) (SBAR (IN if) "
     "(S (NP (PRP it)) (VP (VBZ rains)))))))))", "conditional"),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (IN that) (, ,) (SBAR (IN if) (S (NP (PRP you)) (VP (VBP go)))) (, ,) "
     "(S (NP (PRP I)) (VP (VBP go))))))", "conditional"),
    ("(S (NP (PRP We)) (VP (MD will) (VP (VB leave) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ rains)))))))",
     "conditional"),
    # prepositions and "say" among the question takers do not make an `if` a "whether"
    ("(S (VP (VB Turn) (NP (DT the) (NN light)) (PRT (RP on)) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ is) "
     "(ADJP (JJ dark)))))))", "conditional"),
    ("(S (VP (VB Call) (PP (IN upon) (NP (PRP me))) (SBAR (IN if) (S (NP (PRP you)) (VP (VBP need) "
     "(NP (NN help)))))))", "conditional"),
    ("(S (VP (VB Talk) (PP (IN about) (NP (PRP it))) (SBAR (IN if) (S (NP (PRP you)) (VP (VBP want))))))",
     "conditional"),
    ("(S (VP (VB Think) (PP (IN of) (NP (PRP me))) (SBAR (IN if) (S (NP (PRP you)) (VP (MD can))))))",
     "conditional"),
    ("(S (VP (VB Say) (ADVP (RB so)) (SBAR (IN if) (S (NP (PRP you)) (VP (VBP agree))))))", "conditional"),
    ("(S (NP (PRP I)) (VP (VBD said) (INTJ (UH yes)) (SBAR (IN if) (S (NP (PRP he)) (VP (VBZ pays))))))",
     "conditional"),
]


@pytest.mark.parametrize("tree,expected", IF)
def test_if_branches(tree, expected):
    decided(tree, "if", 0, expected)


THEN = [
    ("(S (NP (NP (PRP$ His) (JJ then) (NN wife)) (VP (VBD left))))", None),  # adjective
    ("(S (NP (DT The) (RB then) (NN president)) (VP (VBD spoke)))", None),  # mis-tagged adjective
    ("(S (NP (DT A) (RB then) (JJ unknown) (NN actor)) (VP (VBD won)))", None),
    # "and then": next in a sequence (not "now and then" at the end); ", then ,": an inference
    ("(S (NP (PRP We)) (VP (VBD ate)) (CC and) (S (ADVP (RB then)) (NP (NN dinner)) (VP (VBD came))))", "temporal"),
    ("(S (NP (PRP We)) (VP (VBP meet) (ADVP (RB now) (CC and) (RB then))) (. .))", UNDECIDED),
    ("(S (NP (PRP We)) (VP (VBP meet) (ADVP (RB now) (CC and) (RB then))))", UNDECIDED),
    ("(SQ (WHADVP (WRB Why)) (, ,) (ADVP (RB then)) (, ,) (MD should) (NP (PRP we)) (VP (VB wait)) (. ?))", "causal"),
    ("(S (ADVP (RB Then)) (, ,) (NP (PRP we)) (VP (VBD left)) (. .))", UNDECIDED),
    ("(S (NP (PRP We)) (VP (VBD left)) (, ,) (ADVP (RB then)) (NP (PRP they)) (VP (VBD came)) (. .))", UNDECIDED),
    ("(S (NP (PRP We)) (VP (VBD saw) (, ,) (ADVP (RB then)) (VP (VBD left))) (. .))", UNDECIDED),
]


@pytest.mark.parametrize("tree,expected", THEN)
def test_then_branches(tree, expected):
    decided(tree, "then", 0, expected)


SINCE = [
    ("(S (NP (PRP She)) (VP (VBZ has) (RB since) (VP (VBN learned) (NP (PRP it)))))", "temporal"),
    ("(S (NP (PRP It)) (VP (VBZ has) (ADVP (RB long) (IN since)) (VP (VBN closed))))", "temporal"),
    ("(S (NP (PRP We)) (VP (VBP have) (VP (VBN met) (SBAR (RB ever) (IN since) (S (NP (PRP he)) "
     "(VP (VBD left)))))))", "temporal"),
    ("(S (NP (PRP We)) (VP (VBP have) (RB n't) (VP (VBN had) (NP (DT a) (NN show)) (SBAR (IN since)))) (. .))",
     "temporal"),
    ("(S (NP (PRP We)) (VP (VBP have) (RB n't) (VP (VBN met) (SBAR (IN since)))))", "temporal"),
    ("(PP (IN Since) (NP (CD 1990)))", "temporal"),  # a heading: the PP is the whole tree
    # opening the sentence with no verb before its comma: a time, however parsed (a verb or a
    # modal before it, or `since` inside the sentence: the clause's relation)
    ("(S (SBAR (IN Since) (S (NP (PRP$ its) (NN outset)))) (, ,) (NP (PRP it)) (VP (VBZ has) (VP (VBN grown))) (. .))",
     "temporal"),
    ("(S (SBAR (IN Since) (S (NP (PRP we)) (VP (VBP care)))) (, ,) (NP (PRP we)) (VP (VBP act)) (. .))", CONNECTIVE),
    ("(S (SBAR (IN Since) (S (NP (PRP we)) (VP (MD can) (VP (VB act))))) (, ,) (NP (PRP we)) (VP (VBP do)) (. .))",
     "causal"),
    ("(S (NP (PRP We)) (VP (VBP act) (SBAR (IN since) (S (NP (PRP it)) (VP (VBZ matters))))) (, ,) (NP (PRP it)) (VP (VBZ is) (ADJP (JJ good))) (. .))",
     CONNECTIVE),
    # since + a gerund with no finite verb: from that event on; a gerund subject of a finite verb: not
    ("(S (SBAR (IN since) (S (VP (VBG using) (NP (NNS shoes))))) (, ,) (NP (PRP$ my) (NN time)) "
     "(VP (VBZ has) (VP (VBN improved))) (. .))", "temporal"),
    ("(S (SBAR (IN Since) (S (VP (VBG having) (NP (NNS children)) (VBZ is) (ADJP (JJ hard))))) (, ,) "
     "(NP (PRP we)) (VP (VBP wait)) (. .))", UNDECIDED),
    # an event's clause beside a perfect (have/has/had + past participle): the time from which
    # it holds, before or after it; a perfect inside the since clause, or have with an object
    # around it, leaves it to the classifier; a stative clause stays a reason
    ("(S (SBAR (IN Since) (S (NP (DT the) (NN war)) (VP (VBD ended)))) (, ,) (NP (NNS prices)) "
     "(VP (VBP have) (VP (VBN risen))) (. .))", "temporal"),
    ("(S (NP (PRP I)) (VP (VBP 've) (VP (VBN been) (VP (VBG working) (SBAR (IN since) (S (NP (PRP I)) "
     "(VP (VBD was) (ADJP (JJ young)))))))))", "temporal"),
    ("(S (SBAR (IN Since) (S (NP (PRP he)) (VP (VBD left)))) (, ,) (NP (PRP she)) (VP (VBD had) "
     "(VP (VBN waited))) (. .))", "temporal"),
    ("(S (SBAR (IN Since) (S (NP (PRP you)) (VP (VBP have) (VP (VBN asked))))) (, ,) (NP (PRP I)) "
     "(VP (MD will) (VP (VB tell))) (. .))", CONNECTIVE),
    ("(S (SBAR (IN Since) (S (NP (PRP he)) (VP (VBD left)))) (, ,) (NP (PRP she)) (VP (VBD had) "
     "(NP (DT a) (NN car))) (. .))", CONNECTIVE),
    ("(S (SBAR (IN Since) (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ late))))) (, ,) (NP (PRP we)) "
     "(VP (VBP have) (VP (VBN left))) (. .))", "causal"),
]


@pytest.mark.parametrize("tree,expected", SINCE)
def test_since_branches(tree, expected):
    decided(tree, "since", 0, expected)


AS = [
    # "so as to": purpose, causal; "so foolish as to": an equative, none
    ("(S (NP (PRP We)) (VP (VBD left) (ADVP (RB early)) (, ,) (RB so) (SBAR (IN as) (S (VP (TO to) "
     "(VP (VB rest)))))) (. .))", 0, "causal"),
    ("(S (NP (PRP He)) (VP (VBD was) (ADJP (RB so) (JJ foolish) (SBAR (IN as) (S (VP (TO to) (VP (VB believe) "
     "(NP (PRP it)))))))) (. .))", 0, None),
    # "as the result of": a cause; "as opposed to": = rather than, a contrast `as` is not listed
    # for (none); a clause whose subject or
    # object is the other argument's ("as are short skirts"): analogy; a comment on the source ("as shown in figure 1"): none
    ("(S (PP (IN As) (NP (NP (DT the) (NN result)) (PP (IN of) (NP (DT these) (NNS programs))))) (, ,) "
     "(NP (PRP we)) (VP (VBD grew)))", 0, "causal"),
    ("(S (VP (VB Keep) (ADJP (JJ fun)) (PP (IN as) (VP (VBN opposed) (PP (TO to) (ADJP (JJ mean)))))))", 0,
     None),
    ("(S (NP (NNS Shorts)) (VP (VBP are) (ADJP (JJ inappropriate)) (, ,) (SBAR (IN as) (SINV (VBP are) "
     "(NP (JJ short) (NNS skirts))))))", 0, "analogy"),
    ("(S (NP (NNS Homes)) (VP (VBP are) (ADJP (JJ typical)) (, ,) (SBAR (IN as) (VP (VBN shown) (PP (IN in) "
     "(NP (NN figure) (CD 1)))))))", 0, None),
    ("(S (NP (NNS Wages)) (VP (VBD rose) (, ,) (SBAR (IN as) (VP (VBN recommended) (PP (IN by) (NP (PRP me)))))))",
     0, None),
    # "such … as" further back than four words, and "as is" closing a clause: no comment clause
    ("(S (NP (PRP We)) (VP (VBP need) (NP (NP (JJ such) (NNS amendments)) (PP (TO to) (NP (DT the) (NN Constitution))) "
     "(SBAR (IN as) (S (VP (MD may) (VP (VB be) (VP (VBN needed)))))))))", 0, None),
    ("(S (NP (PRP It)) (VP (VBD was) (VP (VBN sold) (SBAR (IN as) (S (VP (VBZ is)))))) (. .))", 0, UNDECIDED),
    # "only as" + a clause, "so long as": a condition; "as one example": an example
    ("(S (NP (PRP This)) (VP (MD will) (VP (VB succeed) (ADVP (RB only) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP cooperate))))))))", 0, "conditional"),
    ("(S (ADVP (RB so) (RB long) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP remember))))) (, ,) (NP (PRP we)) "
     "(VP (VBP win)))", 0, "conditional"),
    ("(S (PP (IN As) (NP (CD one) (NN example))) (, ,) (VP (VB consider) (NP (PRP$ our) (NNS schools))))",
     0, "example"),
    # ... not a cleft's time, a comparison, or a role
    ("(S (NP (PRP It)) (VP (VBD was) (ADVP (RB only) (SBAR (IN as) (S (NP (PRP I)) (VP (VBD grew) (ADVP (RBR older)))))) "
     "(SBAR (IN that) (S (NP (PRP I)) (VP (VBD understood))))))", 0, CONNECTIVE),
    ("(S (NP (PRP It)) (VP (VBZ is) (RB not) (ADVP (RB so) (RB long) (PP (IN as) (NP (DT that) (CD one))))))", 0, None),
    ("(S (NP (PRP He)) (VP (VBD served) (RB not) (PP (RB only) (IN as) (NP (DT a) (NN leader)))))", 0, None),
    ("(S (PP (IN As) (NP (DT another) (NN illustration))) (, ,) (VP (VB consider) (NP (DT the) (NNS schools))))",
     0, "example"),
    # equatives and comparisons of degree: both `as` of "as tall as", "so far as", "such ... as", "the same as"
    ("(S (NP (PRP He)) (VP (VBZ is) (ADJP (RB as) (JJ tall) (SBAR (IN as) (S (NP (PRP$ his) (NN father)))))))",
     1, None),
    ("(S (SBAR (RB As) (ADJP (JJ tall)) (IN as) (S (NP (PRP he)) (VP (VBZ is)))) (, ,) (NP (PRP he)) "
     "(ADVP (RB still)) (VP (VBD fell)))", 1, None),
    ("(S (NP (PRP I)) (VP (VBP agree) (SBAR (ADVP (RB so) (RB far)) (IN as) (S (NP (PRP I)) (VP (VBP know))))))",
     0, None),
    ("(S (SBAR (ADVP (RB So) (RB far)) (IN as) (S (NP (PRP I)) (VP (VBP know)))) (, ,) (NP (PRP it)) "
     "(VP (VBZ works)))", 0, None),
    ("(S (NP (PRP He)) (VP (VBD spoke) (PP (IN in) (NP (NP (JJ such) (DT a) (NN way)) (SBAR (IN as) "
     "(S (VP (TO to) (VP (VB please)))))))))", 0, None),
    ("(S (NP (PRP It)) (VP (VBZ is) (NP (NP (DT the) (JJ same)) (SBAR (IN as) (ADVP (RB before))))))", 0, None),
    ("(S (NP (PRP He)) (VP (VBD ran) (ADVP (RB as) (RB fast) (SBAR (IN as) (S (NP (PRP he)) (VP (MD could)))))))",
     0, None),
    ("(S (NP (NN Today)) (NP (PRP he)) (VP (VBZ is) (ADJP (RB as) (JJ tall) (SBAR (IN as) (S (NP (PRP$ his) "
     "(NN father)))))))", 0, None),
    # a role or a fixed phrase: none
    ("(S (NP (PRP She)) (VP (VBD acted) (PP (IN as) (ADJP (JJ such)))))", 0, None),
    ("(S (NP (PRP She)) (VP (VBZ works) (IN as) (NP (DT a) (NN teacher))))", 0, None),  # flat parse
    ("(S (NP (PRP She)) (VP (VBZ works) (IN as) (NP (NN staff))))", 0, None),
    ("(S (NP (PRP They)) (VP (VBP work) (IN as) (NP (NNS teachers))))", 0, None),
    ("(S (NP (PRP He)) (VP (VBZ is) (VP (VBN known) (IN as) (NP (NNP Bob)))))", 0, None),
    ("(S (NP (PRP She)) (VP (VBD joined) (IN as) (NP (PRP$ his) (NN assistant))))", 0, None),
    ("(S (NP (PRP He)) (VP (VBD ranked) (IN as) (NP (CD one))))", 0, None),
    # comment clauses on the source: none, only from the words after `as`
    ("(S (NP (PRP We)) (VP (VBD met) (, ,) (SBAR (IN as) (S (NP (PRP you)) (VP (VBP know))))) (. .))",
     0, None),
    ("(S (ADVP (RB So)) (NP (PRP we)) (VP (VBD met) (, ,) (SBAR (IN as) (S (NP (PRP you)) (VP (VBP know))))))",
     0, None),
    ("(SBAR (IN As) (S (NP (PRP you)) (VP (VBP know))))", 0, None),  # a fragment
    # a clause that leaves its verb's complement out (a modal, "been", "done", an adverb after it): analogy
    ("(S (NP (PRP It)) (VP (VBZ works) (SBAR (IN as) (S (NP (PRP it)) (VP (MD should))))))", 0, "analogy"),
    ("(S (NP (PRP He)) (VP (VBD left) (, ,) (SBAR (IN as) (S (NP (PRP$ his) (NN father)) (VP (VBD had) "
     "(VP (VBN done)))))))", 0, "analogy"),
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ quiet)) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ has) "
     "(VP (VBN been)))))))", 0, "analogy"),
    ("(S (VP (VB Leave) (NP (PRP it)) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ is) (ADVP (RB now)))))))", 0,
     "analogy"),
    # ... but not when the complement follows the negation, or an inner verb phrase has it
    ("(S (NP (PRP We)) (VP (VBD stayed) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD had) (VP (VBN rained)))))))",
     0, CONNECTIVE),
    ("(S (NP (PRP They)) (VP (VBD left) (, ,) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP are) (RB not) "
     "(ADJP (JJ happy)))))))", 0, "causal"),  # a state: a reason
    ("(S (SBAR (IN As) (S (ADVP (RB previously)) (VP (VBN mentioned)))) (, ,) (NP (PRP it)) (VP (VBD rained)))",
     0, None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (S (NP (PRP it)) (VP (VBD rained) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBD left)))))))))", 0, CONNECTIVE),
    # a clause with its own subject: a connective, whose relation the classifier picks (also with
    # another `as` further on, or a comma inside it)
    ("(S (SBAR (IN As) (S (NP (DT the) (NN child)) (VP (VBZ grows)))) (, ,) (NP (PRP it)) (VP (VBZ learns)))",
     0, CONNECTIVE),
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) "
     "(PP (IN as) (ADJP (JJ usual)))))", 0, CONNECTIVE),
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN as) (S (NP (NP (NNP John)) (, ,) (NP (PRP$ my) (NN friend)) (, ,)) "
     "(VP (VBD arrived))))))", 0, CONNECTIVE),
]


@pytest.mark.parametrize("tree,nth,expected", AS)
def test_as_branches(tree, nth, expected):
    decided(tree, "as", nth, expected)


OTHERS = [
    # while: a noun ("a good while", and mis-tagged after "a", "the", "worth"): none
    ("(S (NP (PRP It)) (VP (VBD took) (NP (DT a) (JJ good) (NN while))))", "while", None),
    ("(S (NP (PRP We)) (VP (VBD waited) (PP (IN for) (NP (DT a) (IN while)))))", "while", None),
    ("(S (NP (PRP He)) (VP (VBD smiled) (NP (DT the) (IN while))))", "while", None),
    # "all the while": the whole time
    ("(S (NP (PRP He)) (VP (VBD smiled) (NP (DT all) (DT the) (IN while))))", "while", "temporal"),
    ("(S (NP (PRP He)) (VP (VBD saw) (NP (DT all) (NP (DT the) (NN while)))))", "while", "temporal"),
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ worth) (IN while))))", "while", None),
    # while at / in / on: temporal; a clause: a connective
    ("(S (NP (PRP We)) (VP (VBD met) (SBAR (IN while) (PP (IN at) (NP (NN school))))))", "while", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD met) (SBAR (IN while) (PP (IN in) (NP (NNP Paris))))))", "while", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD met) (SBAR (IN while) (PP (IN on) (NP (NN holiday))))))", "while", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN while) (S (NP (PRP he)) (VP (VBD slept))))))", "while",
     CONNECTIVE),
    # a connective only as an SBAR's subordinator before a clause with a subject; a fragment SBAR too
    ("(S (NP (PRP He)) (VP (VBD married) (SBAR (IN while) (ADJP (RB still) (JJ young)))))", "while", UNDECIDED),
    ("(S (NP (PRP He)) (VP (VBD read) (PP (IN while) (S (NP (PRP she)) (VP (VBD slept))))))", "while", UNDECIDED),
    ("(SBAR (IN Since) (S (NP (PRP it)) (VP (VBD rained))))", "since", CONNECTIVE),
    # yet: "but yet" and the coordinator: = but, comparative (concessive or not)
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC but) (ADVP (RB yet)) (S (NP (PRP it)) "
     "(VP (VBZ works))))", "yet", "comparative"),
    ("(S (NP (PRP It)) (VP (VBD caused) (NP (NP (DT a) (NN delay)) (CC and) (NP (RB yet) (DT another) (NN delay)))))",
     "yet", None),
    ("(S (CC Yet) (NP (QP (JJR more) (IN than) (CD three)) (PP (IN of) (NP (PRP us)))) (VP (VBP lack) (NP (NN care))))",
     "yet", "comparative"),
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC yet) (S (NP (PRP it)) (VP (VBZ works))))",
     "yet", "comparative"),
    # yet as aspect, at the end of its clause: none; "have yet to", or a lone "Yet ?": the classifier
    ("(S (NP (PRP I)) (VP (VBP have) (RB n't) (VP (VBN told) (NP (PRP you)) (ADVP (RB yet)))) (. .))", "yet", None),
    ("(NP (NN Nothing) (ADVP (RB yet)) (. .))", "yet", None),
    ("(S (NP (PRP They)) (VP (VBP have) (ADVP (RB yet)) (S (VP (TO to) (VP (VB decide))))))", "yet", UNDECIDED),
    ("(FRAG (ADVP (RB Yet)) (. ?))", "yet", UNDECIDED),
    # so that / now that with `that` as a pronoun (before a verb): none; the subordinator: the classifier
    ("(S (ADVP (RB So)) (NP (DT that)) (VP (VBZ alarms) (NP (PRP me))))", "so that", None),
    ("(S (ADVP (RB So)) (NP (DT that)) (VP (MD will) (VP (VB do))))", "so that", None),
    ("(S (ADVP (RB So)) (NP (DT that)) (VP (POS 's) (NP (PRP it))))", "so that", None),  # mis-tagged 's
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN so) (IN that) (S (NP (PRP we)) (VP (MD could) (VP (VB rest)))))))",
     "so that", UNDECIDED),
    ("(S (ADVP (RB Now)) (NP (DT that)) (VP (VBZ is) (ADJP (JJ up) (PP (TO to) (NP (PRP you))))))", "now that", None),
    # no matter / after all: none; otherwise the classifier or the lexicon
    ("(S (NP (EX There)) (VP (VBZ is) (NP (DT no) (NN doubt))))", "no", UNDECIDED),
    ("(S (NP (PRP It)) (VP (VBD worked) (, ,) (ADVP (IN after) (DT all))))", "after", None),
    ("(S (NP (PRP It)) (VP (VBD rained) (PP (IN after) (NP (DT the) (NN game)))))", "after", UNDECIDED),
    # just as before an adjective, adverb or noun phrase (a degree or a role): none; a clause: the classifier
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (RB just) (RB as) (JJ high))))", "just as", None),
    ("(S (NP (PRP It)) (VP (VBZ rains) (ADVP (RB just) (RB as) (RB often))))", "just as", None),
    ("(S (NP (PRP They)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (NNS employees)))))", "just as", None),
    ("(S (NP (PRP They)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (NN staff)))))", "just as", None),
    ("(S (NP (PRP They)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (DT a) (NN team)))))", "just as", None),
    ("(S (NP (PRP They)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (PRP$ our) (NNS friends)))))",
     "just as", None),
    ("(S (NP (PRP He)) (VP (VBD counted) (RB not) (PP (RB just) (IN as) (NP (CD one)))))", "just as", None),
    ("(S (SBAR (RB Just) (IN as) (S (NP (PRP I)) (VP (VBD said)))) (, ,) (NP (PRP it)) (VP (VBD rained)))",
     "just as", UNDECIDED),
    # a clause whose subject opens with a determiner, a possessive or a noun: the classifier too
    # ("just as the sun rises , so we rise"; "not just as employees" has no verb before its comma)
    ("(S (SBAR (RB Just) (IN as) (S (NP (DT the) (NN sun)) (VP (VBZ rises)))) (, ,) (ADVP (RB so)) "
     "(NP (PRP we)) (VP (VBP rise)) (. .))", "just as", UNDECIDED),
    ("(S (NP (PRP He)) (VP (VBD worked) (SBAR (RB just) (IN as) (S (NP (PRP$ his) (NN father)) (VP (VBD did))))))",
     "just as", UNDECIDED),
    ("(S (NP (PRP They)) (VP (VBD came) (RB not) (PP (RB just) (IN as) (NP (NNS employees))) (, ,) "
     "(SBAR (IN as) (S (NP (PRP we)) (VP (VBD saw))))))", "just as", None),
    # just like as a filler (before a verb, an adverb, an adjective, a filler, "you", "I", "so", a comma): none
    ("(S (NP (PRP I)) (VP (MD could) (ADVP (RB just) (UH like)) (VP (VB post) (NP (DT a) (NN vlog)))))",
     "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (ADVP (RB just) (UH like)) (NP (DT the) (JJS best))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (ADVP (RB just) (RB like)) (NP (DT the) (JJS best))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (ADVP (RB just) (INTJ like)) (NP (DT the) (JJS best))))", "just like", None),
    ("(S (NP (PRP I)) (VP (MD could) (PP (RB just) (IN like) (VP (VB post) (NP (DT a) (NN vlog))))))",
     "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (ADJP (RB really) (JJ good)))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (ADJP (JJ awesome)))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (INTJ (UH um)))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (NP (PRP you)) (VP (VBP know)))))", "just like",
     None),
    ("(S (NP (PRP I)) (VP (VBD was) (PP (RB just) (IN like) (S (NP (PRP I)) (VP (VBP do) (RB n't) "
     "(VP (VB care)))))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (ADVP (RB so) (JJ awesome)))))", "just like", None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (RB just) (IN like) (, ,) (ADJP (JJ huge)))))", "just like", None),
    ("(S (NP (PRP He)) (VP (VBD worked) (PP (RB just) (IN like) (NP (PRP$ his) (NN father)))))", "just like",
     UNDECIDED),
    # in: a particle; a relative "in which"; a time expression
    ("(S (NP (PRP He)) (VP (VBD came) (PRT (RP in)) (NP (DT this) (NN morning))))", "in", None),
    ("(S (NP (PRP He)) (VP (VBD came) (ADVP (RB in)) (NP (DT this) (NN morning))))", "in", None),
    # in: the object ends with the PP (or at a verb in a flat parse), so a later time is not its object
    ("(S (NP (PRP He)) (VP (VBD arrived) (PP (IN in) (NP (NNP Paris))) (NP (DT this) (NN morning))))", "in", None),
    ("(S (NP (NP (NNS People)) (IN in) (NP (NNP Paris))) (VBD spent) (NP (DT the) (NN summer)))", "in", None),
    # ... and is read six words deep: a time word past a long place name is the event's time
    ("(S (PP (IN In) (NP (NP (DT the) (NNP London) (NNP Stock) (NNP Exchange) (NN trading) (NN room)) "
     "(NP-TMP (NN yesterday)))) (, ,) (NP (NNS shares)) (VP (VBD fell)))", "in", None),
    # in: a quantity of a time unit ("in tens of seconds", "in a matter of ten seconds"); not of
    # anything else
    ("(S (NP (DT A) (NN person)) (VP (VBZ dies) (PP (IN in) (NP (NP (NNS tens)) (PP (IN of) "
     "(NP (NNS seconds)))))) (. .))", "in", "temporal"),
    ("(S (NP (NNS Trades)) (VP (VBP occur) (PP (IN in) (NP (NP (DT a) (NN matter)) (PP (IN of) "
     "(NP (CD ten) (NNS seconds)))))) (. .))", "in", "temporal"),
    ("(S (NP (PRP It)) (VP (VBZ sells) (PP (IN in) (NP (NP (NNS tens)) (PP (IN of) (NP (NNS cities)))))) (. .))",
     "in", None),
    ("(S (NP (PRP It)) (VP (VBZ is) (PP (IN in) (NP (NP (DT a) (NN matter)) (PP (IN of) (NP (NN principle)))))) "
     "(. .))", "in", None),
    # ... a historical period, past a coordination of names; a coordination of common nouns ends
    # the object (its time word is no time of the event)
    ("(S (NP (NP (NNS Exams)) (PP (IN in) (NP (DT the) (NNP Ming) (CC and) (NNP Qing) (NNPS Dynasties)))) "
     "(VP (VBD were) (ADJP (JJ hard))) (. .))", "in", "temporal"),
    ("(S (NP (PRP We)) (VP (VBP work) (PP (IN in) (NP (NN school) (CC and) (NN summer) (NNS camps)))) (. .))",
     "in", None),
    # like: a parse whose PP holds only the preposition still reads the object after it
    ("(NP (NP (DT a) (NN country)) (PP (IN like)) (NP (NNP Australia)))", "like", "example"),
]


@pytest.mark.parametrize("tree,keyword,expected", OTHERS)
def test_other_rule_branches(tree, keyword, expected):
    decided(tree, keyword, 0, expected)


@pytest.mark.parametrize("label,expected", [
    ("PP-TMP", "PP"), ("NP-SBJ-2", "NP"), ("NP=2", "NP"), ("NP-SBJ=1", "NP"), ("SBAR", "SBAR"),
    ("-LRB-", "-LRB-"), ("-NONE-", "-NONE-"),
])
def test_base_drops_function_tags(label, expected):
    assert base(label) == expected
