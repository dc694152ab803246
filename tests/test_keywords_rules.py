"""Tree rules for keyword decisions, on hand-written trees (no parser, no encoder), and the
decisions as the Annotator applies them (``annotate_trees`` with ``senses="rules"``)."""

import pytest

import logicparse
from logicparse.senses import load_senses
from logicparse.senses.decide import KeywordDecisions, query
from logicparse.senses.rules import CONNECTIVE, UNDECIDED, base, decide
from logicparse.taxonomy import keywords
from logicparse.trees import read_tree


def rule(tree: str, keyword: str, nth: int = 0):
    """The rule's decision for the nth occurrence of ``keyword`` (one or more words) in ``tree``."""
    t = read_tree(tree)
    words = [w.lower() for w in t.leaves]
    kw = keyword.split()
    hits = [i for i in range(len(words)) if words[i:i + len(kw)] == kw]
    start = hits[nth]
    return decide(keyword, t, start, start + len(kw))


@pytest.mark.parametrize("tree,keyword,expected", [
    # like: verb, adjective, filler, quotative -> none; preposition -> analogy or example
    ("(S (NP (PRP I)) (VP (VBP like) (NP (NNS apples))) (. .))", "like", None),
    ("(S (NP (JJ native) (HYPH -) (JJ like) (NNS levels)))", "like", None),
    ("(S (NP (PRP it)) (VP (VBD was) (, ,) (INTJ (UH like)) (, ,) (ADJP (JJ huge))))", "like", None),
    ("(S (NP (PRP I)) (VP (VBD was) (PP (IN like) (, ,) (S (VP (VB let) (S (NP (PRP 's)) (VP (VB go))))))))",
     "like", None),
    ("(S (NP (PRP It)) (VP (VBZ works) (PP (IN like) (NP (DT a) (NN charm)))) (. .))", "like", "analogy"),
    ("(S (NP (NP (NNS fruits)) (PP (IN like) (NP (NNS apples) (CC and) (NNS pears)))) (VP (VBP grow)))",
     "like", "example"),
    ("(S (NP (PRP It)) (VP (VBZ looks) (PP (IN like) (NP (CD sixteen)))))", "like", None),
    # when: question, embedded question, relative, 'when it comes to' -> none; adverbial -> temporal
    ("(SBARQ (WHADVP (WRB When)) (SQ (VBD was) (NP (DT this))) (. ?))", "when", None),
    ("(S (NP (PRP I)) (VP (VBP do) (RB n't) (VP (VB know) (SBAR (WHADVP (WRB when)) (S (NP (PRP he)) (VP (VBD left)))))))",
     "when", None),
    ("(S (NP (NP (DT the) (NN day)) (SBAR (WHADVP (WRB when)) (S (NP (PRP we)) (VP (VBD met))))))", "when", None),
    ("(S (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ comes) (PP (TO to) (NP (NNS pockets)))))) (, ,) (NP (PRP we)) (VP (VBP win)))",
     "when", None),
    ("(S (NP (PRP I)) (VP (VBD cried) (SBAR (WHADVP (WRB when)) (S (NP (PRP he)) (VP (VBD left))))) (. .))",
     "when", "temporal"),
    # if: whether -> none; 'even if' -> adversative; 'few if any' -> none; else conditional
    ("(S (NP (PRP I)) (VP (VBD asked) (SBAR (IN if) (S (NP (PRP he)) (VP (VBD came))))))", "if", None),
    ("(S (NP (PRP I)) (VP (VBP am) (RB not) (ADJP (JJ sure) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ is)))))))",
     "if", None),
    ("(S (NP (PRP We)) (VP (VBP go) (SBAR (RB even) (IN if) (S (NP (PRP it)) (VP (VBZ rains))))))", "if",
     "adversative"),
    ("(S (NP (JJ few) (IN if) (DT any) (NNS firms)) (VP (VBP use) (NP (PRP it))))", "if", None),
    ("(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (NP (PRP I)) (VP (VBP go)) (. .))", "if",
     "conditional"),
    # then: after 'if' -> none; 'the then president' -> none; 'then again' -> comparative
    ("(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (ADVP (RB then)) (NP (PRP I)) (VP (VBP go)))",
     "then", None),
    ("(S (NP (DT the) (JJ then) (NN president)) (VP (VBD spoke)))", "then", None),
    ("(S (ADVP (RB then) (RB again)) (, ,) (ADVP (RB maybe)) (RB not))", "then", "comparative"),
    ("(S (NP (PRP We)) (VP (VBD ate) (CC and) (ADVP (RB then)) (VP (VBD left))))", "then", UNDECIDED),
    # since: heading a time expression or alone -> temporal; a clause -> the classifier, not none
    ("(S (NP (PRP It)) (VP (VBZ has) (VP (VBN rained) (PP (IN since) (NP (CD 1990))))))", "since", "temporal"),
    ("(S (NP (PRP I)) (VP (VBP have) (ADVP (RB since)) (VP (VBN learned) (NP (PRP it)))))", "since", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD stayed) (SBAR (IN since) (S (NP (PRP it)) (VP (VBD rained))))))", "since",
     CONNECTIVE),
    ("(S (NP (PRP We)) (VP (VBD stayed) (SBAR (IN since) (S (VP (VBG raining))))))", "since", UNDECIDED),
    # as: role or equative -> none; comment clause or a clause missing its verb's complement ->
    # analogy; a clause -> the classifier, not none
    ("(S (NP (PRP She)) (VP (VBZ works) (PP (IN as) (NP (DT a) (NN teacher)))))", "as", None),
    ("(S (NP (PRP He)) (VP (VBZ is) (ADJP (RB as) (JJ tall) (SBAR (IN as) (S (NP (PRP$ his) (NN father)))))))",
     "as", None),
    ("(S (SBAR (IN As) (S (NP (PRP you)) (VP (VBP know)))) (, ,) (NP (PRP it)) (VP (VBD rained)))", "as",
     "analogy"),
    ("(S (SBAR (IN As) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we)) (VP (VBD stayed)))", "as",
     CONNECTIVE),
    ("(S (NP (PRP They)) (VP (VBP are) (RB not) (, ,) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP are) (RB not) (, ,)"
     " (PP (IN under) (NP (NNS pressures))))))))", "as", "analogy"),
    ("(S (NP (PRP It)) (VP (VBZ takes) (NP (NN place)) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ has)"
     " (VP (PP (IN for) (NP (CD two) (NNS centuries)))))))))", "as", "analogy"),
    ("(S (NP (PRP They)) (VP (VBD acted) (, ,) (SBAR (IN as) (S (NP (DT the) (NNS founders)) (VP (VBD intended))))))",
     "as", "analogy"),
    ("(S (SBAR (ADJP (JJ Great)) (IN as) (S (NP (PRP$ our) (NN burden)) (VP (VBZ is)))) (, ,) (NP (PRP it))"
     " (VP (VBZ works)))", "as", "adversative"),
    ("(S (NP (PRP They)) (VP (VBD acted) (SBAR (IN as) (S (NP (DT the) (NNS founders)) (VP (VBD intended)"
     " (NP (PRP it)))))))", "as", CONNECTIVE),
    ("(S (NP (PRP It)) (VP (VBD fell) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD was) (PP (IN in) (NP (NNP Rome))))))))",
     "as", CONNECTIVE),
    # while: noun -> none; before a participle or a clause -> a connective (the classifier picks
    # the relation: "while respecting human rights" is "and also", not "during")
    ("(S (NP (PRP We)) (VP (VBD waited) (PP (IN for) (NP (DT a) (NN while)))))", "while", None),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (VP (VBG waiting))))))", "while", CONNECTIVE),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (NP (PRP she)) (VP (VBD slept))))))", "while",
     CONNECTIVE),
    # yet: 'not yet' / clause-final -> none; 'and yet' -> adversative (a concession)
    ("(S (NP (PRP It)) (VP (VBZ is) (RB not) (ADVP (RB yet)) (ADJP (JJ done))))", "yet", None),
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC and) (ADVP (RB yet)) (S (NP (PRP it)) (VP (VBZ works))))",
     "yet", "adversative"),
    # in: only a time expression is temporal
    ("(S (NP (PRP It)) (VP (VBD was) (VP (VBN held) (PP (IN in) (NP (NNP Paris))) (PP (IN in) (NP (CD 1998))))))",
     "in", None),
    ("(S (VP (VBN held) (PP (IN in) (NP (NNP Paris))) (PP (IN in) (NP (CD 1998)))))", "in", None),
    ("(S (NP (PRP I)) (VP (VBP leave) (PP (IN in) (NP (DT the) (NN morning)))))", "in", "temporal"),
    ("(S (NP (PRP I)) (VP (VBP am) (ADJP (JJ interested) (PP (IN in) (NP (NN art))))))", "in", None),
    ("(S (NP (DT a) (NN house) (SBAR (WHPP (IN in) (WHNP (WDT which))) (S (NP (PRP we)) (VP (VBP live))))))",
     "in", None),
    # fixed phrases
    ("(S (ADVP (DT no) (NN matter)) (NP (PRP it)) (VP (VBZ works)))", "no", None),
    ("(S (ADVP (RB So)) (NP (DT that)) (VP (VBZ 's) (NP (PRP it))))", "so that", None),
])
def test_rule(tree, keyword, expected):
    assert rule(tree, keyword) is expected if expected in (None, UNDECIDED, CONNECTIVE) else \
        rule(tree, keyword) == expected


def test_in_the_second_pp_is_the_time():
    tree = "(S (VP (VBN held) (PP (IN in) (NP (NNP Paris))) (PP (IN in) (NP (CD 1998)))))"
    assert rule(tree, "in", 0) is None
    assert rule(tree, "in", 1) == "temporal"


@pytest.mark.parametrize("tree,keyword", [
    ("(FRAG (IN Since))", "since"),  # alone in its sentence
    ("(FRAG (IN like))", "like"),
    ("(FRAG (WRB When))", "when"),
    ("(FRAG (IN in))", "in"),
    ("(S (NP (PRP I)) (VP (VBD left)) (ADVP (RB then)))", "then"),  # last token
    ("(S (ADVP (RB Then)) (NP (PRP I)) (VP (VBD left)))", "then"),  # first token
    ("(S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ like))))", "like"),
    ("(S (NP (PRP We)) (VP (VBD left) (SBAR (IN as))))", "as"),
    ("(S (NP (PRP It)) (VP (VBZ has) (VP (VBN been) (ADVP (RB since)))))", "since"),
])
def test_keyword_at_the_edges_gets_a_decision(tree, keyword):
    """A keyword at the start or end of a sentence, or alone in it: every rule answers."""
    r = rule(tree, keyword)
    assert r is UNDECIDED or r is None or r in logicparse.RELATIONS


def test_every_rule_output_is_a_relation_or_none_on_the_committed_sets():
    from logicparse.resources import ANNOTATIONS_DIR
    from logicparse.senses.data import read_annotations
    from logicparse.senses.scoring import decide_annotations

    anns = read_annotations([ANNOTATIONS_DIR / "keywords_dev.jsonl"])
    for d in decide_annotations(load_senses("rules"), anns):
        assert d.relation is None or d.relation in logicparse.RELATIONS
        assert d.source in ("rule", "lexicon")


def test_annotate_trees_applies_the_decisions():
    """The Annotator's own path: `in Paris` and the verb `like` are dropped, `in 1998` is temporal,
    `if` stays conditional and the `then` of `if ... then` is dropped; each relation names its
    source."""
    trees = [
        "(S (NP (DT The) (NN meeting)) (VP (VBD was) (VP (VBN held) (PP (IN in) (NP (NNP Paris))) "
        "(PP (IN in) (NP (CD 1998))))) (. .))",
        "(S (NP (PRP I)) (VP (VBP like) (NP (NNS apples))) (. .))",
        "(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (ADVP (RB then)) (NP (PRP I)) "
        "(VP (VBP go) (ADVP (RB too))) (. .))",
    ]
    doc = logicparse.annotate_trees(trees, senses="rules")
    got = [(r.keyword, r.relation, r.sense_source, r.key) for r in doc.relations]
    assert got == [("in", "temporal", "rule", [[6, 7]]), ("If", "conditional", "rule", [[13, 14]])]
    lexicon = logicparse.annotate_trees(trees, senses=None)
    assert [(r.keyword, r.relation, r.sense_source) for r in lexicon.relations] == [
        ("in", "temporal", "lexicon"), ("in", "temporal", "lexicon"), ("like", "example", "lexicon"),
        ("If", "conditional", "lexicon"), ("then", "temporal", "lexicon")]


def test_decider_without_tree_falls_back_to_the_lexicon():
    """A query without a tree (a caller that has none) skips the rules."""
    kw = keywords()["in"]
    d = KeywordDecisions(None)
    with_tree = query(kw, ["in", "Paris"], 0, 1, read_tree("(PP (IN in) (NP (NNP Paris)))"))
    without = query(kw, ["in", "Paris"], 0, 1)
    assert [(x.relation, x.source) for x in d.disambiguate([with_tree, without])] == [
        (None, "rule"), ("temporal", "lexicon")]


def test_rules_never_raise_on_any_position():
    """Every rule at every token of real trees (where the keyword may not even stand) returns a
    relation, None, UNDECIDED or CONNECTIVE: an odd tree cannot crash a batch in the decision step."""
    from logicparse.resources import ANNOTATIONS_DIR
    from logicparse.senses.data import read_annotations
    from logicparse.senses.rules import RULES

    anns = read_annotations([ANNOTATIONS_DIR / "keywords_rules_test.jsonl"])[::5]
    for a in anns:
        t = read_tree(a.tree)
        for kw in RULES:
            width = len(kw.split())
            for start in range(0, len(t.leaves) - width + 1):
                r = decide(kw, t, start, start + width)
                assert r is UNDECIDED or r is CONNECTIVE or r is None or r in logicparse.RELATIONS


def decided(tree: str, keyword: str, nth: int, expected):
    """Assert the rule's decision (a relation, None, UNDECIDED or CONNECTIVE) for one occurrence."""
    got = rule(tree, keyword, nth)
    assert (got is expected) if expected in (None, UNDECIDED, CONNECTIVE) else got == expected, got


# One sentence for each branch and each listed word or tag of a rule: a broken word list or a
# flipped test changes the decision on at least one of them. Labels follow docs/labelling.md.
LIKE = [
    # a verb, an adjective, a noun, a filler or a quotative: none, whatever follows
    ("(S (NP (NNS People)) (PP (IN of) (NP (JJ like) (NN mind))) (VP (VBP agree)))", None),
    ("(S (NP (DT The) (NN post)) (VP (VBD got) (NP (DT a) (NN like))) (. .))", None),
    ("(S (NP (PRP it)) (VP (VBD was) (INTJ (UH like)) (ADJP (JJ huge))))", None),
    ("(S (NP (PRP it)) (VP (VBD was) (INTJ like) (ADJP (JJ huge))))", None),
    ("(S (NP (PRP It)) (VP (VBZ costs) (NP (QP (RB like) (CD five)) (NNS dollars))))", None),
    ("(S (NP (PRP he)) (VP (VBD was) (PRT (RP like)) (INTJ (UH oh) (PRP$ my) (NN god))))", None),
    # a dash or a pause around it: an adjective or a filler, even when tagged as a preposition
    ("(NP (DT a) (NN dream) (HYPH -) (IN like) (NN state))", None),
    ("(NP (DT a) (NN dream) (HYPH –) (IN like) (NN state))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (, ,) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: –) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: -) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: —) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: :) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: ...) (S (NP (PRP I)) (VP (VBP know))))))", None),
    ("(S (CC and) (NP (PRP he)) (VP (VBZ goes) (PP (IN like) (: …) (S (NP (PRP I)) (VP (VBP know))))))", None),
    # quotative "was like" before a quote; "was like" a noun phrase, or "like" a quoted sound, is a resemblance
    ('(S (NP (PRP I)) (VP (VBD was) (PP (IN like) (`` ") (INTJ (UH no)) (\'\' "))))', None),
    ('(S (NP (PRP I)) (VP (VBD was) (PP (IN like) (`` “) (INTJ (UH no)) (\'\' ”))))', None),
    ("(S (NP (PRP It)) (VP (VBD was) (PP (IN like) (NP (DT a) (NN dream)))))", "analogy"),
    ('(S (NP (PRP It)) (VP (VBD made) (NP (NP (DT a) (NN noise)) (PP (IN like) (`` ") (NP (NN pop)) (\'\' ")))))',
     "analogy"),
    # evidential "looks like" (= it seems): none
    ("(S (NP (PRP They)) (VP (VBP look) (PP (IN like) (NP (CD sixteen)))))", None),
    ("(S (NP (PRP It)) (VP (VBD looked) (PP (IN like) (S (NP (EX there)) (VP (VBD was) (NP (DT a) (NN drop)))))))", None),
    ("(S (NP (PRP It)) (VP (VBZ seems) (PP (IN like) (S (NP (NN everyone)) (VP (VBD left))))))", None),
    ("(S (NP (PRP They)) (VP (VBP seem) (PP (IN like) (S (NP (PRP they)) (VP (VBD won))))))", None),
    ("(S (NP (PRP It)) (VP (VBD seemed) (PP (IN like) (S (NP (NN everyone)) (VP (VBD left))))))", None),
    ("(S (NP (PRP It)) (VP (VBZ sounds) (PP (IN like) (S (NP (PRP they)) (VP (VBD won))))))", None),
    ("(S (NP (PRP You)) (VP (VBP sound) (PP (IN like) (S (NP (PRP you)) (VP (VBD won))))))", None),
    ("(S (NP (PRP It)) (VP (VBD sounded) (PP (IN like) (S (NP (PRP they)) (VP (VBD won))))))", None),
    ("(S (NP (PRP It)) (VP (VBD felt) (PP (IN like) (NP (DT a) (NN drop)))))", "analogy"),
    ("(S (NP (PRP It)) (VP (VBD felt) (IN like) (PP (IN like) (S (NP (EX there)) (VP (VBD was))))))", None),
    ("(S (NP (PRP I)) (VP (VBP feel) (SBAR (IN like) (S (NP (PRP you)) (VP (VBP need) (NP (PRP it)))))))", None),
    ("(S (NP (PRP It)) (VP (VBZ tastes) (PP (IN like) (NP (CD 1999)))))", None),
    ("(S (NP (PRP I)) (VP (VBP feel) (PP (IN like) (S (NP (PRP it)) (VP (MD will))))))", None),
    # ... but after such a verb, a noun phrase is a resemblance: "looks like a resort"
    ("(S (VP (VBZ Looks) (PP (IN like) (NP (DT a) (NN resort)))))", "analogy"),
    ("(S (NP (PRP It)) (VP (VBZ smells) (PP (IN like) (NP (DT the) (NN spice)))))", "analogy"),
    # a filler before a verb
    ("(S (NP (PRP I)) (VP (MD could) (PP (IN like) (VP (VB post) (NP (DT a) (NN vlog))))))", None),
    # examples: a class noun (or a comma) on the left, names or a list on the right
    ("(NP (NP (DT a) (NN country)) (PP (IN like) (NP (NNP Australia))))", "example"),
    ("(NP (NP (NNS bands)) (PP (IN like) (NP (DT the) (NNPS Beatles))))", "example"),
    ("(NP (NP (NNS fruits)) (PP (IN like) (NP (NP (DT the) (NN apple)) (CC and) (NP (DT the) (NN pear)))))",
     "example"),
    ("(NP (NP (NNS things)) (, ,) (PP (IN like) (NP (NNS shirts) (CC or) (NNS blankets))))", "example"),
    ("(NP (NP (NNS items)) (PP (IN like) (NP (NNS shirts) (CC or) (NNS blankets))))", "example"),
    ("(NP (NP (NNS items)) (PP (IN like) (NP (NNS toiletries) (, ,) (NN paper) (, ,) (NN water))))", "example"),
    # similar to, no members named: analogy
    ("(NP (NP (DT a) (NN noise)) (PP (IN like) (NP (NN paper))))", "analogy"),
    ("(S (S (NP (PRP It)) (VP (VBD stopped))) (CC and) (S (NP (PRP I)) (VP (VBD heard) (NP (NP (DT a) "
     "(NN noise)) (PP (IN like) (NP (NN paper)))))))", "analogy"),
    ("(S (NP (NNP John)) (VP (VBZ knows) (NP (NP (NNS people)) (PP (IN like) (NP (DT that))))))", "analogy"),
    ("(S (NP (PRP He)) (VP (VBD dressed) (PRT (RP up)) (PP (IN like) (NP (NNP Undertaker)))))", "analogy"),
    # set off by commas after a plural noun, a bare noun or a gerund: examples; a possessive
    # object stays a likeness ("its antennae , like carters ' whips")
    ("(S (NP (NP (DT Some) (NNS concepts)) (, ,) (PP (IN like) (NP (NN tolerance))) (, ,)) (VP (VBP are) "
     "(ADJP (JJ common))))", "example"),
    ("(S (NP (NP (PRP$ its) (NNS antennae)) (, ,) (PP (IN like) (NP (NP (NNS carters) (POS ')) (NNS whips))) "
     "(, ,)) (VP (VBP wave)))", "analogy"),
    # stranded after "what": the object is the question word, none
    ("(S (NP (PRP It)) (VP (VBZ shows) (SBAR (WHNP (WP what)) (S (NP (DT this) (NN town)) (VP (VBD was) "
     "(PP (IN like)) (ADVP (NP (NNS centuries)) (RB ago)))))))", None),
    ("(S (NP (PRP I)) (VP (VBP know) (SBAR (WHNP (WP what)) (S (NP (PRP it)) (VP (VBZ looks) (PP (IN like) "
     "(PP (IN in) (NP (NN winter)))))))))", None),
    # a likeness to an activity after a copula: analogy
    ("(S (S (VP (VBG Leaving) (NP (PRP it)) (VP (VBG running)))) (VP (VBZ is) (PP (IN like) (S (VP (VBG sitting) "
     "(PRT (RP down)))))))", "analogy"),
]


@pytest.mark.parametrize("tree,expected", LIKE)
def test_like_branches(tree, expected):
    decided(tree, "like", 0, expected)


WHEN = [
    # "when it comes to" (= regarding): none; "when it rains": temporal
    ("(S (SBAR (WHADVP (WRB When)) (S (NP (PRP it)) (VP (VBD came) (PP (TO to) (NP (NN money)))))) (, ,) "
     "(NP (PRP he)) (VP (VBD was) (ADJP (JJ cheap))))", 0, None),
    ("(S (SBAR (WHADVP (WRB When)) (S (NP (PRP it)) (VP (VBP come) (PP (TO to) (NP (NN money)))))) (, ,) "
     "(NP (PRP he)) (VP (VBZ is) (ADJP (JJ cheap))))", 0, None),
    ("(S (NP (PRP We)) (VP (VBP stay) (PP (IN in)) (SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ rains))))))",
     0, "temporal"),
    # a question: none; a clause opening a sentence that ends in a question: temporal
    ("(SBARQ (WHADVP (WRB When)) (. ?))", 0, None),
    ("(SBARQ (SBAR (WHADVP (WRB When)) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (SQ (MD will) (NP (PRP you)) "
     "(VP (VB call))) (. ?))", 0, "temporal"),
    ("(S (SBAR (WHADVP (WRB When)) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (VP (VB call) (NP (PRP me))) (. .))",
     0, "temporal"),
    # an embedded question, past a focus adverb: none
    ("(S (NP (PRP It)) (VP (VBZ is) (RB not) (ADJP (JJ clear) (SBAR (WHADVP (RB just) (WRB when)) "
     "(S (NP (DT the) (NN change)) (VP (VBD began)))))))", 0, None),
    # a relative clause on a noun phrase (also a noun phrase standing alone): none
    ("(NP (NP (DT the) (JJ barren) (NN time)) (PP (IN in) (NP (NNP March))) (SBAR (WHADVP (WRB when)) "
     "(S (NP (NNS trees)) (VP (VBP sleep)))))", 0, None),
    ("(S (NP (NP (DT the) (JJ barren) (NN time)) (PP (IN in) (NP (NNP March))) (SBAR-TMP (WHADVP (WRB when)) "
     "(S (NP (NNS trees)) (VP (VBP sleep))))) (VP (VBD ended)))", 0, None),
    # "how ... and when": a coordinated embedded question; a clause after "and" alone: temporal
    ("(S (NP (PRP I)) (VP (VBD asked) (SBAR (SBAR (WHADVP (WRB how)) (S (NP (PRP it)) (VP (VBZ works)))) (CC and) "
     "(SBAR (WHADVP (WRB when)) (S (NP (PRP it)) (VP (VBZ occurs)))))))", 0, None),
    ("(SBAR (SBAR (WHADVP (WRB How)) (S (NP (PRP it)) (VP (VBZ works)))) (CC and) (SBAR (WHADVP (WRB when)) "
     "(S (NP (PRP it)) (VP (VBZ occurs)))))", 0, None),
    ("(S (NP (PRP I)) (VP (VBD asked) (SBAR (WHADVP (WRB how) (CC and) (WRB when)) (S (NP (PRP it)) "
     "(VP (VBD happened))))))", 0, None),
    # a free relative heading a PP's object: none
    ("(NP (NP (NNS Memories)) (PP (IN from) (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD was) "
     "(ADJP (JJ young))))))", 0, None),
    ("(S (S (NP (PRP He)) (VP (VBD called))) (CC and) (S (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) "
     "(VP (VBD answered)))) (, ,) (NP (PRP he)) (VP (VBD asked) (SBAR (WHNP (WP what)) (S (NP (PRP I)) "
     "(VP (VBD wanted)))))))", 0, "temporal"),
    ("(S (SBAR (WHADVP (WRB When)) (S (NP (PRP it)) (VP (VBZ rains)))) (, ,) (SBAR (WHNP (WDT which)) "
     "(S (VP (VBZ is) (ADVP (RB often))))) (, ,) (NP (PRP we)) (VP (VBP stay) (ADVP (RB in))))", 0, "temporal"),
    # a relative on a time expression past a parenthetical adverb, or on a time adverb after a
    # comma: none; the adverb without the comma, or opening the sentence: a time clause
    ("(S (NP (NNS Hopes)) (VP (VBD were) (VP (VBN quashed) (PP (IN in) (NP (CD 1834))) (, ,) (ADVP (RB however)) "
     "(, ,) (SBAR (WHADVP (WRB when)) (S (NP (NNP Santa) (NNP Anna)) (VP (VBD dismissed) (NP (PRP it))))))))",
     0, None),
    ("(S (NP (PRP I)) (VP (VBD wanted) (S (VP (TO to) (VP (VB give) (NP (PRP it)) (NP (NN tomorrow)) (, ,) "
     "(SBAR (WHADVP (WRB when)) (S (NP (PRP we)) (VP (VBP go) (ADVP (RB over))))))))))", 0, None),
    ("(S (ADVP (NP (DT A) (NN year)) (RB ago)) (, ,) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD met) "
     "(PP (IN with) (NP (PRP you)))))) (, ,) (NP (DT the) (NN nation)) (VP (VBD was) (VP (VBG emerging))))", 0, None),
    ("(S (NP (NN Today)) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD came) (ADVP (RB in))))) "
     "(, ,) (NP (PRP it)) (VP (VBD rained)))", 0, "temporal"),
    ("(S (NP (NN Yesterday)) (, ,) (SBAR (WHADVP (WRB when)) (S (NP (PRP I)) (VP (VBD came) (ADVP (RB in))))) "
     "(, ,) (NP (PRP it)) (VP (VBD rained)))", 0, "temporal"),
    # an extraposed relative on a time noun: none
    ("(S (ADVP (RB now)) (NP (DT the) (NN time)) (VP (VBZ comes) (SBAR (WHADVP (WRB when)) (S (NP (PRP we)) "
     "(VP (MD shall) (VP (VB redeem) (NP (PRP$ our) (NN pledge))))))))", 0, None),
]


@pytest.mark.parametrize("tree,nth,expected", WHEN)
def test_when_branches(tree, nth, expected):
    decided(tree, "when", nth, expected)


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
    ("(S (NP (PRP We)) (VP (VBD ate)) (CC and) (S (ADVP (RB then)) (NP (NN dinner)) (VP (VBD came))))", UNDECIDED),
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
]


@pytest.mark.parametrize("tree,expected", SINCE)
def test_since_branches(tree, expected):
    decided(tree, "since", 0, expected)


AS = [
    # "as the result of": a cause; "as opposed to": = rather than; a clause whose subject or
    # object is the other argument's ("as are short skirts", "as shown in figure 1"): analogy
    ("(S (PP (IN As) (NP (NP (DT the) (NN result)) (PP (IN of) (NP (DT these) (NNS programs))))) (, ,) "
     "(NP (PRP we)) (VP (VBD grew)))", 0, "causal"),
    ("(S (VP (VB Keep) (ADJP (JJ fun)) (PP (IN as) (VP (VBN opposed) (PP (TO to) (ADJP (JJ mean)))))))", 0,
     "comparative"),
    ("(S (NP (NNS Shorts)) (VP (VBP are) (ADJP (JJ inappropriate)) (, ,) (SBAR (IN as) (SINV (VBP are) "
     "(NP (JJ short) (NNS skirts))))))", 0, "analogy"),
    ("(S (NP (NNS Homes)) (VP (VBP are) (ADJP (JJ typical)) (, ,) (SBAR (IN as) (VP (VBN shown) (PP (IN in) "
     "(NP (NN figure) (CD 1)))))))", 0, "analogy"),
    # "only as" + a clause, "so long as": a condition; "as one example": an example
    ("(S (NP (PRP This)) (VP (MD will) (VP (VB succeed) (ADVP (RB only) (SBAR (IN as) (S (NP (PRP we)) "
     "(VP (VBP cooperate))))))))", 0, "conditional"),
    ("(S (ADVP (RB so) (RB long) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP remember))))) (, ,) (NP (PRP we)) "
     "(VP (VBP win)))", 0, "conditional"),
    ("(S (PP (IN As) (NP (CD one) (NN example))) (, ,) (VP (VB consider) (NP (PRP$ our) (NNS schools))))",
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
    # comment clauses: analogy, only from the words after `as`
    ("(S (NP (PRP We)) (VP (VBD met) (, ,) (SBAR (IN as) (S (NP (PRP you)) (VP (VBP know))))) (. .))",
     0, "analogy"),
    ("(S (ADVP (RB So)) (NP (PRP we)) (VP (VBD met) (, ,) (SBAR (IN as) (S (NP (PRP you)) (VP (VBP know))))))",
     0, "analogy"),
    ("(SBAR (IN As) (S (NP (PRP you)) (VP (VBP know))))", 0, "analogy"),  # a fragment
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
     0, "analogy"),
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
    ("(S (NP (PRP He)) (VP (VBD smiled) (NP (DT all) (DT the) (IN while))))", "while", None),
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
    # yet: "but yet" and the coordinator: a concession
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC but) (ADVP (RB yet)) (S (NP (PRP it)) "
     "(VP (VBZ works))))", "yet", "adversative"),
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC yet) (S (NP (PRP it)) (VP (VBZ works))))",
     "yet", "adversative"),
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
