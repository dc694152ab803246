"""The labelling guide's settled cases and the conversational and legal uses the rules decide:
comment `as`, `then` in conversation, filler `like`, "but great as it is", `if` after "idk", an unpunctuated `otherwise`, a preamble's
upper-case WHEREAS, tag questions, `nothing but`, "oh , no !", "sounds as if", the verb `just
like`, and `when` opening a question after "so". Each tree is the bundled parser's for the
sentence (no parser, no encoder here); labels follow docs/labelling.md."""

import pytest

from logicparse.senses.rules import CONNECTIVE, UNDECIDED
from test_keywords_rules import decided

SETTLED = [
    # `as` opening a comment on the source: none (it was analogy)
    ("(TOP (S (SBAR (IN As) (S (NP (PRP I)) (VP (VBD said)))) (, ,) (NP (DT the) (NN meeting)) (VP (VBZ is) "
     "(PP (IN on) (NP (NNP Monday)))) (. .)))", "as", 0, None),
    ("(TOP (S (NP (PRP It)) (VP (VBD was) (VP (VBN shown) (, ,) (SBAR (IN as) (S (VP (VBN discussed) (PP (IN in) "
     "(NP (NNP Chapter) (CD 1)))))))) (. .)))", "as", 0, None),
    ("(S (NP (PRP$ Your) (NN theory)) (SBAR (IN as) (S (NP (PRP I)) (VP (VBD understood) (NP (PRP it))))) (, ,) "
     "(VP (VBD was) (ADJP (JJ clear))))", "as", 0, None),
    # a clause whose second word is "in" is no reporting participle's source: the clause's relation
    ("(S (NP (PRP He)) (VP (VBD rose) (SBAR (IN as) (S (NP (NP (NNS prices)) (PP (IN in) (NP (NNP Asia)))) "
     "(VP (VBD fell))))))", "as", 0, CONNECTIVE),
    # ... not a likeness, "as are short skirts"
    ("(S (NP (NNS Skirts)) (VP (VBP are) (ADJP (JJ short)) (, ,) (SBAR (IN as) (S (VP (VBP are) (NP (NNS coats)))))))",
     "as", 0, "analogy"),
    # `then` = "in that case": conditional; a filler closing a turn: none; a time: temporal
    ("(TOP (FRAG (WRB How) (IN about) (NP (NNPS sheep)) (ADVP (RB then)) (. ?)))", "then", 0, "conditional"),
    ("(TOP (SBARQ (ADVP (RB Then)) (WHNP (WP what)) (SQ (MD can) (NP (PRP I)) (VP (VB do))) (. ?)))", "then", 0,
     "conditional"),
    ("(TOP (S (INTJ (UH Ok)) (, ,) (ADVP (RB then)) (NP (PRP I)) (VP (MD 'll) (VP (VB go) (PP (IN with) "
     "(NP (NNP Dan))))) (. .)))", "then", 0, "conditional"),
    ("(TOP (FRAG (UH Okay) (ADVP (RB then)) (. .)))", "then", 0, None),
    ("(TOP (S (IN By) (ADVP (RB then)) (NP (PRP it)) (VP (VBD was) (ADVP (RB over))) (. .)))", "then", 0,
     "temporal"),
    ("(TOP (S (NP (DT That)) (VP (VBD was) (ADVP (RB then))) (. .)))", "then", 0, "temporal"),
    ("(TOP (S (CC But) (ADVP (RB then)) (, ,) (NP (DT that)) (VP (MD will) (VP (VB allow) (S (NP (PRP us)) "
     "(VP (TO to) (VP (VB learn)))))) (. .)))", "then", 0, None),
    # a question about the past, "What did you do then ?": a time, left to the classifier
    ("(SBARQ (WHNP (WP What)) (SQ (VBD did) (NP (PRP you)) (VP (VB do) (ADVP (RB then)))) (. ?))", "then", 0,
     UNDECIDED),
    # `if` = whether after "idk" (I don't know)
    ("(TOP (FRAG (INTJ (UH idk)) (SBAR (IN if) (S (NP (PRP it)) (VP (VP (VBZ works)) (ADVP (RB tho)))))))", "if",
     0, None),
    # `otherwise` with no comma before a subject and its verb: heads the clause (the lexicon's
    # negative condition); inside a clause after its verb: none
    ("(TOP (S (NP (PRP u)) (VBP need) (S (VP (TO to) (VP (VB enable) (NP (NN 2fa))))) (RB otherwise) (S (NP (PRP u))"
     " (VP (MD ca) (S (VP (TO nt) (VP (VB access) (NP (DT the) (NN api)))))))))", "otherwise", 0, UNDECIDED),
    ("(S (NP (PRP It)) (VP (MD would) (ADVP (RB otherwise)) (VP (VB be) (VP (VBN lost)))))", "otherwise", 0, None),
    # ... another subject pronoun, a present verb after it, or a "u" the parser calls a noun
    ("(S (VP (VB Enable) (NP (PRP it)) (ADVP (RB otherwise)) (S (NP (PRP you)) (VP (VBP lose) (NP (NN access))))))",
     "otherwise", 0, UNDECIDED),
    ("(S (VP (VB Enable) (NP (NN 2fa)) (ADVP (RB otherwise)) (S (NP (NN u)) (VP (MD ca) (RB nt) (VP (VB log))))))",
     "otherwise", 0, UNDECIDED),
    ("(S (VP (VB Enable) (NP (PRP it)) (ADVP (RB otherwise)) (S (NP (NN ur)) (VP (VBG gon) (S (VP (TO na) "
     "(VP (VB lose) (NP (PRP it)))))))))", "otherwise", 0, UNDECIDED),
    # ... but after the clause's verb or modal it is the adverb ("we did otherwise", "could otherwise")
    ("(S (NP (PRP We)) (VP (VBD did) (ADVP (RB otherwise)) (S (NP (PRP they)) (VP (MD would) (VP (VB know))))))",
     "otherwise", 0, None),
    ("(S (NP (PRP It)) (VP (MD could) (ADVP (RB otherwise)) (S (NP (PRP it)) (VP (MD would) (VP (VB fail))))))",
     "otherwise", 0, None),
    # a preamble's upper-case WHEREAS: "given that" (a lower-case `whereas` is a contrast)
    ("(TOP (S (SBAR (IN WHEREAS) (S (NP (DT the) (NNS Parties)) (VP (VBP wish) (S (VP (TO to) (VP (VB cooperate)))))))"
     " (, ,) (NP (DT the) (NNS Parties)) (VP (VBP agree)) (. .)))", "whereas", 0, None),
    ("(S (SBAR (IN Whereas) (S (NP (PRP we)) (VP (VBP stay)))) (, ,) (NP (PRP they)) (VP (VBP go)))", "whereas",
     0, UNDECIDED),
    ("(S (SBAR (IN Whereas) (, ,) (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ necessary))))))", "whereas", 0, None),
    # a tag question's `n't`: none; a negative question of its own: negation (the lexicon)
    ("(TOP (S (S (NP (PRP We)) (VP (VBP have) (VP (VBN had) (NP (CD five))))) (, ,) (SQ (VBP have) (RB n't) "
     "(NP (PRP we))) (. ?)))", "n't", 0, None),
    ("(TOP (SQ (VBD Did) (RB n't) (NP (PRP you)) (VP (VB see) (NP (PRP him))) (. ?)))", "n't", 0, UNDECIDED),
    ("(SQ (VBZ Is) (RB n't) (NP (PRP it)) (. ?))", "n't", 0, UNDECIDED),
    # ... a tag after a verb and a modal with no comma, "there" as its subject, a comma or nothing
    # after its subject, a modal as the only verb before it; "Why is n't it ?" asks on its own
    ("(SQ (VB Sit) (MD wo) (RB n't) (NP (PRP you)) (. ?))", "n't", 0, None),
    ("(S (S (EX There) (VP (VBZ 's) (NP (DT a) (NN problem)))) (, ,) (SQ (VBZ is) (RB n't) (NP (EX there))) (. ?))",
     "n't", 0, None),
    ("(S (S (NP (PRP We)) (VP (VBD left))) (, ,) (SQ (VBD did) (RB n't) (NP (PRP we))) (, ,) (NP (NNP Anne)) (. ?))",
     "n't", 0, None),
    ("(S (S (NP (PRP We)) (VP (VBD left))) (, ,) (SQ (VBD did) (RB n't) (NP (PRP we))))", "n't", 0, None),
    ("(S (S (NP (PRP You)) (VP (MD will))) (, ,) (SQ (MD wo) (RB n't) (NP (PRP you))) (. ?))", "n't", 0, None),
    ("(SBARQ (WHADVP (WRB Why)) (SQ (VBZ is) (RB n't) (NP (PRP it))) (. ?))", "n't", 0, UNDECIDED),
    # `nothing but`: only, negating nothing
    ("(TOP (S (NP (PRP He)) (VP (VP (VBD did) (NP (NN nothing))) (CC but) (VP (VB complain))) (. .)))", "nothing",
     0, None),
    ("(S (NP (PRP He)) (VP (VBD did) (NP (NN nothing))) (. .))", "nothing", 0, UNDECIDED),
    # "Oh , no !": dismay; "No , I did n't": an answer
    ("(TOP (INTJ (UH Oh) (, ,) (UH no) (. !)))", "no", 0, None),
    ("(INTJ (UH Oh) (UH no) (. !))", "no", 0, None),
    ("(INTJ (UH Oh) (UH no))", "no", 0, None),
    ("(S (INTJ (UH Oh) (, ,) (DT no)) (NP (NN problem)))", "no", 0, UNDECIDED),
    ("(INTJ (UH Well) (, ,) (UH no) (. !))", "no", 0, UNDECIDED),
    ("(S (INTJ (UH No)) (, ,) (NP (PRP I)) (VP (VBD did) (RB n't)))", "no", 0, UNDECIDED),
    # "sounds as if": it seems that; "treats us as if": a likeness
    ("(TOP (S (NP (PRP It)) (VP (VBZ sounds) (PP (IN as) (SBAR (IN if) (S (NP (NN something)) (VP (VBZ is) "
     "(VP (VBN broken))))))) (. .)))", "as if", 0, None),
    ("(TOP (S (NP (PRP He)) (VP (VBZ treats) (NP (PRP us)) (PP (IN as) (IN if) (S (NP (PRP we)) (VP (VBD were) "
     "(NP (NNS children)))))) (. .)))", "as if", 0, UNDECIDED),
    # the verb `just like` after its subject
    ("(TOP (S (NP (PRP I)) (ADVP (RB just)) (VP (VBP like) (S (VP (TO to) (VP (VB sleep))))) (. .)))", "just like",
     0, None),
    # a filler `like` after a copula before an adverb, or between a noun phrase's adjective and
    # its noun; a likeness after an adjective with no determiner before it
    ("(S (NP (PRP They)) (VP (VBP 're) (PP (IN like) (ADVP (RB technically)) (PP (IN in) (NP (NNP Forest) "
     "(NNP Park))))) (. .))", "like", 0, None),
    ("(TOP (S (RB So) (NP (PRP I)) (VP (VBP am) (RB not) (NP (DT a) (JJ huge) (PP (IN like) (JJ nature) "
     "(NN person)))) (. .)))", "like", 0, None),
    ("(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (JJ big) (PP (IN like) (NN party)))))", "like", 0, None),
    ("(S (NP (PRP It)) (VP (VBZ is) (NP (DT a) (JJ huge) (PP (IN like) (NNS fans)))))", "like", 0, None),
    ("(TOP (S (NP (PRP It)) (VP (VBZ is) (ADJP (ADJP (JJ cold)) (PP (IN like) (NP (NN ice))))) (. .)))", "like", 0,
     "analogy"),
    # "But great as our tax burden is": a concession after a coordinator too
    ("(TOP (S (CC But) (ADJP (ADJP (JJ great)) (SBAR (IN as) (S (NP (PRP$ our) (NN tax) (NN burden)) (VP (VBZ is)))))"
     " (, ,) (NP (PRP it)) (VP (VBZ has) (RB not) (VP (VBN kept) (NP (NN pace)))) (. .)))", "as", 0, None),
    # the verb `just like` before "to" after a noun subject, or after a pronoun before its object
    ("(S (NP (NNS Kids)) (ADVP (RB just)) (VP (VBP like) (S (VP (TO to) (VP (VB play))))) (. .))", "just like", 0,
     None),
    ("(S (NP (PRP I)) (ADVP (RB just)) (VP (VBP like) (NP (NN pizza))) (. .))", "just like", 0, None),
    # `then` opening a turn after a filler word (first, or after punctuation), before a subject and
    # a modal: in that case; not after any first word ("Yes , then …", "So then we went")
    ("(S (INTJ (UH Well)) (ADVP (RB then)) (, ,) (NP (PRP I)) (VP (MD 'll) (VP (VB read))) (. .))", "then", 0,
     "conditional"),
    ("(S (INTJ (UH Fine)) (, ,) (INTJ (UH okay)) (ADVP (RB then)) (NP (PRP we)) (VP (MD 'll) (VP (VB go))) (. .))",
     "then", 0, "conditional"),
    ("(S (INTJ (UH Yes)) (, ,) (ADVP (RB then)) (NP (PRP I)) (VP (MD 'll) (VP (VB go))) (. .))", "then", 0,
     UNDECIDED),
    ("(S (RB So) (ADVP (RB then)) (NP (PRP we)) (VP (VBD went) (ADVP (RB home))) (. .))", "then", 0, UNDECIDED),
    ("(INTJ (UH Oh) (, ,) (UH okay) (ADVP (RB then)) (. .))", "then", 0, None),
    # `when` opening a question after "so" or "and": a question word, none
    ("(TOP (SBARQ (RB So) (WHADVP (WRB when)) (SQ (VBP are) (NP (PRP you)) (VP (VBG coming) (ADVP (RB back)))) "
     "(. ?)))", "when", 0, None),
]


# `when` opening a question after a coordinator or a filler word: a question word, none
WHEN_QUESTIONS = [
    "(SBARQ (CC And) (WHADVP (WRB when)) (SQ (MD will) (NP (PRP you)) (VP (VB return))) (. ?))",
    "(SBARQ (CC But) (WHADVP (WRB when)) (SQ (VBP are) (NP (PRP you)) (VP (VBG leaving))) (. ?))",
    "(SBARQ (INTJ (UH Well)) (WHADVP (WRB when)) (SQ (VBZ is) (NP (PRP it))) (. ?))",
    "(SBARQ (INTJ (UH Ok)) (WHADVP (WRB when)) (SQ (VBP do) (NP (PRP we)) (VP (VB go))) (. ?))",
    "(SBARQ (INTJ (UH Okay)) (WHADVP (WRB when)) (SQ (VBP do) (NP (PRP we)) (VP (VB go))) (. ?))",
    "(SBARQ (RB Then) (WHADVP (WRB when)) (SQ (MD can) (NP (PRP we)) (VP (VB meet))) (. ?))",
]


@pytest.mark.parametrize("tree", WHEN_QUESTIONS)
def test_when_opening_a_question_after_a_coordinator_or_filler(tree):
    decided(tree, "when", 0, None)


@pytest.mark.parametrize("tree,keyword,nth,expected", SETTLED)
def test_settled_and_conversational_cases(tree, keyword, nth, expected):
    decided(tree, keyword, nth, expected)
