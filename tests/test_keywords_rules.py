"""Tree rules for keyword decisions, on hand-written trees (no parser, no encoder), and the
decisions as the Annotator applies them (``annotate_trees`` with ``senses="rules"``)."""

import pytest

import logicparse
from logicparse.senses import load_senses
from logicparse.senses.decide import KeywordDecisions, query
from logicparse.senses.rules import CONNECTIVE, UNDECIDED, decide
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
    ("(S (NP (PRP They)) (VP (VBD acted) (, ,) (SBAR (IN as) (S (NP (DT the) (NNS founders)) (VP (VBD intended)"
     " (NP (PRP it)))))))", "as", CONNECTIVE),
    ("(S (NP (PRP It)) (VP (VBD fell) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD was) (PP (IN in) (NP (NNP Rome))))))))",
     "as", CONNECTIVE),
    # while: noun -> none; before a participle -> temporal; a clause -> the classifier
    ("(S (NP (PRP We)) (VP (VBD waited) (PP (IN for) (NP (DT a) (NN while)))))", "while", None),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (VP (VBG waiting))))))", "while", "temporal"),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (NP (PRP she)) (VP (VBD slept))))))", "while",
     CONNECTIVE),
    # yet: 'not yet' / clause-final -> none; 'and yet' -> comparative
    ("(S (NP (PRP It)) (VP (VBZ is) (RB not) (ADVP (RB yet)) (ADJP (JJ done))))", "yet", None),
    ("(S (S (NP (PRP It)) (VP (VBZ is) (ADJP (JJ cheap)))) (CC and) (ADVP (RB yet)) (S (NP (PRP it)) (VP (VBZ works))))",
     "yet", "comparative"),
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
