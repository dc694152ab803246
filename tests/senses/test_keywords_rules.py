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
    # if: whether -> none; 'even if' -> conditional (if is listed as conditional only); 'few if any' -> none; else conditional
    ("(S (NP (PRP I)) (VP (VBD asked) (SBAR (IN if) (S (NP (PRP he)) (VP (VBD came))))))", "if", None),
    ("(S (NP (PRP I)) (VP (VBP am) (RB not) (ADJP (JJ sure) (SBAR (IN if) (S (NP (PRP it)) (VP (VBZ is)))))))",
     "if", None),
    ("(S (NP (PRP We)) (VP (VBP go) (SBAR (RB even) (IN if) (S (NP (PRP it)) (VP (VBZ rains))))))", "if",
     "conditional"),
    ("(S (NP (JJ few) (IN if) (DT any) (NNS firms)) (VP (VBP use) (NP (PRP it))))", "if", None),
    ("(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (NP (PRP I)) (VP (VBP go)) (. .))", "if",
     "conditional"),
    # then: after 'if' -> none; 'the then president' -> none; 'then again' -> none (then is listed as temporal only)
    ("(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (ADVP (RB then)) (NP (PRP I)) (VP (VBP go)))",
     "then", None),
    ("(S (NP (DT the) (JJ then) (NN president)) (VP (VBD spoke)))", "then", None),
    ("(S (ADVP (RB then) (RB again)) (, ,) (ADVP (RB maybe)) (RB not))", "then", None),
    # "and then": next in a sequence
    ("(S (NP (PRP We)) (VP (VBD ate) (CC and) (ADVP (RB then)) (VP (VBD left))))", "then", "temporal"),
    # since: heading a time expression or alone -> temporal; a clause -> the classifier, not none
    ("(S (NP (PRP It)) (VP (VBZ has) (VP (VBN rained) (PP (IN since) (NP (CD 1990))))))", "since", "temporal"),
    ("(S (NP (PRP I)) (VP (VBP have) (ADVP (RB since)) (VP (VBN learned) (NP (PRP it)))))", "since", "temporal"),
    ("(S (NP (PRP We)) (VP (VBD stayed) (SBAR (IN since) (S (NP (PRP it)) (VP (VBD rained))))))", "since",
     CONNECTIVE),
    ("(S (NP (PRP We)) (VP (VBD stayed) (SBAR (IN since) (S (VP (VBD rained))))))", "since", UNDECIDED),
    # as: role or equative -> none; comment clause or a clause missing its verb's complement ->
    # analogy; a clause -> the classifier, not none
    ("(S (NP (PRP She)) (VP (VBZ works) (PP (IN as) (NP (DT a) (NN teacher)))))", "as", None),
    ("(S (NP (PRP He)) (VP (VBZ is) (ADJP (RB as) (JJ tall) (SBAR (IN as) (S (NP (PRP$ his) (NN father)))))))",
     "as", None),
    ("(S (SBAR (IN As) (S (NP (PRP you)) (VP (VBP know)))) (, ,) (NP (PRP it)) (VP (VBD rained)))", "as",
     None),
    ("(S (SBAR (IN As) (S (NP (PRP it)) (VP (VBD rained)))) (, ,) (NP (PRP we)) (VP (VBD stayed)))", "as",
     CONNECTIVE),
    ("(S (NP (PRP They)) (VP (VBP are) (RB not) (, ,) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP are) (RB not) (, ,)"
     " (PP (IN under) (NP (NNS pressures))))))))", "as", "analogy"),
    ("(S (NP (PRP It)) (VP (VBZ takes) (NP (NN place)) (, ,) (SBAR (IN as) (S (NP (PRP it)) (VP (VBZ has)"
     " (VP (PP (IN for) (NP (CD two) (NNS centuries)))))))))", "as", "analogy"),
    ("(S (NP (PRP They)) (VP (VBD acted) (, ,) (SBAR (IN as) (S (NP (DT the) (NNS founders)) (VP (VBD intended))))))",
     "as", "analogy"),
    ("(S (SBAR (ADJP (JJ Great)) (IN as) (S (NP (PRP$ our) (NN burden)) (VP (VBZ is)))) (, ,) (NP (PRP it))"
     " (VP (VBZ works)))", "as", None),
    ("(S (NP (PRP They)) (VP (VBD acted) (SBAR (IN as) (S (NP (DT the) (NNS founders)) (VP (VBD intended)"
     " (NP (PRP it)))))))", "as", CONNECTIVE),
    # an adjective or participle opening its clause before `as` and a gapped clause: a concession
    # however parsed; after a verb or an adverb, the way things are
    ("(S (ADJP (JJ Tired)) (SBAR (IN as) (S (NP (PRP we)) (VP (VBD were)))) (, ,) (NP (PRP we)) (VP (VBD went)))",
     "as", None),
    ("(S (NP (PRP We)) (VP (VBP are) (ADJP (JJ happy)) (SBAR (IN as) (S (NP (PRP we)) (VP (VBP are))))))",
     "as", "analogy"),
    # "as some would have us believe": a comment clause (not the modal's reason)
    ("(S (NP (PRP We)) (VP (VBP are) (RB not) (, ,) (SBAR (IN as) (S (NP (DT some)) (VP (MD would) (VP (VB have) "
     "(S (NP (PRP us)) (VP (VB believe)))))))) (, ,) (ADJP (JJ doomed)))", "as", None),
    ("(S (NP (PRP It)) (VP (VBD fell) (SBAR (IN as) (S (NP (PRP it)) (VP (VBD was) (PP (IN in) (NP (NNP Rome))))))))",
     "as", CONNECTIVE),
    # while: noun -> none; before a participle or a clause -> a connective (the classifier picks
    # the relation: "while respecting human rights" is "and also", not "during")
    ("(S (NP (PRP We)) (VP (VBD waited) (PP (IN for) (NP (DT a) (NN while)))))", "while", None),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (VP (VBG waiting))))))", "while", CONNECTIVE),
    ("(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (NP (PRP she)) (VP (VBD slept))))))", "while",
     CONNECTIVE),
    # yet: 'not yet' / clause-final -> none; 'and yet' -> comparative (yet is listed as comparative)
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


def decided(tree: str, keyword: str, nth: int, expected):
    """Assert the rule's decision (a relation, None, UNDECIDED or CONNECTIVE) for one occurrence."""
    got = rule(tree, keyword, nth)
    assert (got is expected) if expected in (None, UNDECIDED, CONNECTIVE) else got == expected, got


# One sentence for each branch and each listed word or tag of a rule: a broken word list or a
# flipped test changes the decision on at least one of them. Labels follow docs/labelling.md.
LIKE = [
    # a verb, an adjective, a noun, a filler or a quotative: none, whatever follows
    ("(S (NP (NNS People)) (PP (IN of) (NP (JJ like) (NN mind))) (VP (VBP agree)))", None),
    # "in like manner": likewise (not "in like fashion" nor "of like manner": an adjective)
    ("(S (PP (IN In) (NP (JJ like) (NN manner))) (, ,) (NP (PRP we)) (VP (VBP act)))", "analogy"),
    ("(S (PP (IN In) (NP (JJ like) (NN fashion))) (, ,) (NP (PRP we)) (VP (VBP act)))", None),
    ("(S (PP (IN Of) (NP (JJ like) (NN manner))) (, ,) (NP (PRP we)) (VP (VBP act)))", None),
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
    # the same, not over-firing: a likeness at the end of a clause, a subject before the copula,
    # a filler after "was like"
    ("(S (NP (DT The) (NNS children)) (VP (VBD ran) (PP (IN in) (NP (DT the) (NNS yards))) (, ,) "
     "(PP (IN like) (NP (NNS puppies)))) (. .))", "analogy"),
    ("(S (SBAR (WHNP (WP What)) (S (NP (PRP he)) (VP (VBZ does)))) (VP (VBZ is) (PP (IN like) (PP (IN in) "
     "(NP (DT the) (NNS movies))))))", "analogy"),
    ("(S (NP (PRP I)) (VP (VBD was) (PP (IN like) (S (VP (VBG freaking) (PRT (RP out)))))))", None),
    ("(S (NP (NP (NNS chores)) (, ,) (PP (IN like) (S (VP (VP (VBG taking) (PRT (RP out)) (NP (DT the) (NN trash))) "
     "(CC or) (VP (VBG pulling) (NP (NNS weeds))))))) (VP (VBP wait)))", "example"),
    # like tagged as a preposition but heading the predicate after a plural or coordinated subject,
    # with no other verb phrase in its clause: the verb, none
    ("(S (NP (DT All) (JJ good) (NNS critics)) (VP (IN like) (NP (DT every) (NN poet))) (. .))", None),
    ("(S (S (NP (DT A) (CC and) (NN B)) (PP (IN like) (NP (NN tea)))) (, ,) (CC and) (S (NP (PRP I)) "
     "(VP (VBP like) (NP (NN coffee)))) (. .))", None),
    # ... not inside a noun phrase, nor beside the clause's own verb phrase, nor after a singular
    ("(S (NP (NP (NNS Fruits)) (PP (IN like) (NP (NNS apples)))) (VP (VBP are) (ADJP (JJ healthy))) (. .))",
     "example"),
    ("(S (NP (NNS Critics)) (PP (IN like) (NP (NNP Green))) (VP (VBP praise) (NP (NNS poets))) (. .))", "example"),
    ("(S (NP (DT A) (NN day)) (PP (IN like) (NP (DT no) (JJ other))) (. .))", "analogy"),
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
    # after a comma, a relative on a war or a crisis too; without the comma, a time clause
    ("(S (NP (PRP It)) (VP (VBD grew) (PP (IN amid) (NP (DT the) (NN war))) (, ,) (SBAR (WHADVP (WRB when)) "
     "(S (NP (PRP we)) (VP (VBD struggled))))))", 0, None),
    ("(S (NP (PRP It)) (VP (VBD grew) (PP (IN in) (NP (DT the) (NN war))) (SBAR (WHADVP (WRB when)) "
     "(S (NP (PRP we)) (VP (VBD struggled))))))", 0, "temporal"),
    # an extraposed relative on a time noun: none
    ("(S (ADVP (RB now)) (NP (DT the) (NN time)) (VP (VBZ comes) (SBAR (WHADVP (WRB when)) (S (NP (PRP we)) "
     "(VP (MD shall) (VP (VB redeem) (NP (PRP$ our) (NN pledge))))))))", 0, None),
    # not over-firing: no time noun right before the verb ("help comes when"), no subject
    ("(S (PP (IN In) (NP (DT some) (NNS cases))) (, ,) (NP (NN help)) (VP (VBZ comes) (SBAR (WHADVP (WRB when)) "
     "(S (NP (PRP it)) (VP (VBZ is) (ADJP (RB too) (JJ late)))))))", 0, "temporal"),
    ("(S (NP (DT Every) (NN year)) (NP (PRP he)) (VP (VBZ comes) (SBAR (WHADVP (WRB when)) (S (NP (DT the) "
     "(NN snow)) (VP (VBZ melts))))))", 0, "temporal"),
]


@pytest.mark.parametrize("tree,nth,expected", WHEN)
def test_when_branches(tree, nth, expected):
    decided(tree, "when", nth, expected)
