"""Contrast and concession told apart by the keyword, as the paper's lists do: the relabelling of
older labels, GDTB's senses, a classifier trained on older labels, and the rules for `not only`,
`otherwise` as an adverb and the default annotator's keyword extensions (no parser, no encoder)."""

import pytest

from logicparse.annotator import annotate_trees
from logicparse.mapping import find_keywords
from logicparse.senses import SenseDecision
from logicparse.senses.data import Annotation, gold_relation, relabel_by_lists
from logicparse.senses.decide import KeywordDecisions, query
from logicparse.senses.rules import UNDECIDED, decide
from logicparse.taxonomy import by_keyword_lists, keywords
from logicparse.trees import read_tree


@pytest.mark.parametrize("keyword,relation,expected", [
    ("but", "adversative", "comparative"),      # a concessive `but`: comparative
    ("however", "adversative", "comparative"),
    ("yet", "adversative", "comparative"),
    ("while", "adversative", "comparative"),
    ("while", "conjunction", "comparative"),    # `while` not temporal is a contrast
    ("while", "temporal", "temporal"),
    ("though", "comparative", "adversative"),   # listed as adversative
    ("but", "conjunction", None),               # not only … but also: the adding is `also`'s
    ("if", "adversative", "conditional"),       # even if: still a condition
    ("as", "adversative", None),                # great as it is
    ("then", "comparative", None),              # then again
    ("like", "analogy", "analogy"),             # no contrast: as it was
    ("as", "causal", "causal"),
    ("but", None, None),
])
def test_by_keyword_lists(keyword, relation, expected):
    assert by_keyword_lists(keyword, relation) == expected


def ann(keyword, text, label):
    start = (" " + text + " ").index(" " + keyword + " ")
    return Annotation(keyword, text, start, start + len(keyword), label, "hand")


def test_relabel_counts_the_moves():
    anns = [ann("but", "It rained but we went", "adversative"),
            ann("but", "It rained but we went", "comparative"),
            ann("though", "We went though it rained", "comparative"),
            ann("not", "They help not only the elites but society", "negation"),
            ann("not", "They help not just the elites but also society", "conjunction"),
            ann("not", "They are not just tired", "negation"),
            ann("when", "I left when it rained", "temporal")]
    out, moves = relabel_by_lists(anns)
    assert [a.label for a in out] == ["comparative", "comparative", "adversative", "none", "none",
                                      "negation", "temporal"]
    assert moves == {"but: adversative -> comparative": 1, "though: comparative -> adversative": 1,
                     "not: negation -> none": 1, "not: conjunction -> none": 1}


def test_gdtb_comparison_senses_by_the_keyword():
    assert gold_relation("Comparison.Concession.Arg2-as-denier", "but") == "comparative"
    assert gold_relation("Comparison.Contrast", "while") == "comparative"
    assert gold_relation("Comparison.Contrast", "though") == "adversative"
    assert gold_relation("Comparison.Contrast", "like") == "none"
    assert gold_relation("Temporal.Synchronous", "while") == "temporal"
    assert gold_relation("Comparison.Concession.Arg2-as-denier") == "adversative"  # no keyword


class OldLabels:
    """A `but`/`yet` classifier trained on labels of the older convention: concession."""

    name = "old"
    estimators = {"but": None, "yet": None}

    def disambiguate(self, queries):
        return [SenseDecision("adversative", 0.8, "classifier") for _ in queries]


def test_a_classifier_of_older_labels_is_read_by_the_lists():
    tree = "(S (S (NP (PRP It)) (VP (VBD rained))) (CC but) (S (NP (PRP we)) (VP (VBD went))))"
    tokens = read_tree(tree).leaves
    q = query(keywords()["but"], tokens, 3, 4, read_tree(tree))
    (d,) = KeywordDecisions(OldLabels()).disambiguate([q])
    assert (d.relation, d.confidence, d.source) == ("comparative", 0.8, "classifier")


def rule(tree, keyword, nth=0):
    t = read_tree(tree)
    words = [w.lower() for w in t.leaves]
    start = [i for i, w in enumerate(words) if w == keyword][nth]
    phrase = {"such": "such as", "due": "due to"}.get(keyword, keyword)
    return decide(phrase, t, start, start + len(phrase.split()))


@pytest.mark.parametrize("tree,keyword,expected", [
    # not only / not just … but: it adds, negating nothing; a plain `not`, `not just` alone: negation
    ("(S (NP (PRP They)) (VP (VBP help) (NP (NP (RB not) (RB only) (DT the) (NNS elites)) (, ,) (CC but)"
     " (NP (NN society)))) (. .))", "not", None),
    ("(S (NP (PRP It)) (VP (VBZ is) (RB not) (ADJP (RB just) (JJ big)) (CC but) (ADJP (JJ vast))) (. .))",
     "not", None),
    ("(S (NP (PRP They)) (VP (VBP are) (RB not) (ADJP (RB just) (JJ tired))) (. .))", "not", UNDECIDED),
    ("(S (NP (PRP They)) (VP (VBP do) (RB not) (VP (VB go))) (. .))", "not", UNDECIDED),
    # otherwise as an adverb: none; heading a clause: the lexicon (negative_conditional)
    ("(S (VP (VB Take) (NP (PRP it)) (, ,) (SBAR (IN unless) (S (NP (PRP$ your) (NN doctor)) (VP (VBZ says)"
     " (ADVP (RB otherwise)))))) (. .))", "otherwise", None),
    ("(S (SBAR (IN unless) (S (ADVP (RB otherwise)) (VP (VBN stated)))) (, ,) (NP (PRP it)) (VP (VBZ holds)))",
     "otherwise", None),
    ("(S (NP (NNS Means)) (, ,) (ADJP (JJ legal) (CC or) (RB otherwise)) (, ,) (VP (VBP count)) (. .))",
     "otherwise", None),
    ("(S (S (VP (VB Hurry))) (, ,) (ADVP (RB otherwise)) (S (NP (PRP we)) (VP (MD will) (VP (VB be)"
     " (ADJP (JJ late))))) (. .))", "otherwise", UNDECIDED),
    # ... inside its clause (would otherwise be lost, to do otherwise, or otherwise dealt with): none
    ("(S (NP (NNS Jobs)) (VP (MD would) (ADVP (RB otherwise)) (VP (VB be) (VP (VBN lost)))) (. .))",
     "otherwise", None),
    ("(S (S (VP (TO To) (VP (VB do) (ADVP (RB otherwise))))) (VP (MD would) (VP (VB fail))) (. .))",
     "otherwise", None),
    ("(S (NP (PRP We)) (VP (VBD arrested) (CC or) (ADVP (RB otherwise)) (VBD dealt) (PP (IN with) (NP (PRP them)))))",
     "otherwise", None),
    ("(S (ADVP (RB Otherwise)) (, ,) (NP (PRP we)) (VP (MD will) (VP (VB lose))) (. .))", "otherwise", UNDECIDED),
    # such as before a verb: the relative of such … as; due to before a verb: expected to
    ("(S (NP (NNS Laws)) (PP (JJ such) (IN as) (S (VP (MD may) (VP (VB be) (VP (VBN needed)))))))", "such", None),
    ("(S (NP (NNS Fruits)) (PP (JJ such) (IN as) (NP (NNS apples))) (VP (VBP grow)))", "such", UNDECIDED),
    ("(S (NP (DT The) (NN law)) (VP (VBZ is) (ADJP (JJ due) (S (VP (TO to) (VP (VB expire)))))))", "due", None),
    ("(S (NP (DT The) (NN delay)) (VP (VBZ is) (ADJP (JJ due) (PP (TO to) (NP (NN rain))))))", "due", UNDECIDED),
    # ... after a noun of what is owed, or that noun and a copula, adverbs between: owed to
    ("(S (NP (PRP We)) (VP (VBP owe) (NP (DT the) (NN respect)) (ADJP (JJ due) (PP (IN to) (NP (DT the) (NN office)))))"
     " (. .))", "due", None),
    ("(S (NP (DT The) (NN credit)) (VP (VBZ is) (ADJP (JJ due) (PP (IN to) (NP (PRP them))))) (. .))", "due", None),
    ("(S (NP (DT The) (NN credit)) (VP (VBZ is) (ADVP (RB rightly)) (ADJP (JJ due) (PP (IN to) (NP (PRP them)))))"
     " (. .))", "due", None),
    # whereas opening a preamble's clause ("WHEREAS , it is necessary …"): none
    ("(S (SBAR (IN WHEREAS) (, ,) (S (NP (PRP it)) (VP (VBZ is) (ADJP (JJ necessary))))) (. .))", "whereas", None),
    ("(S (NP (NNS Prices)) (VP (VBD rose) (SBAR (IN whereas) (S (NP (NNS wages)) (VP (VBD fell))))) (. .))",
     "whereas", UNDECIDED),
])
def test_not_only_otherwise_whereas(tree, keyword, expected):
    assert rule(tree, keyword) is expected


class RulesOnly(KeywordDecisions):
    def __init__(self):
        super().__init__(None, rules=True)


EXTENDED = ("(S (NP (PRP He)) (ADVP (RB never)) (VP (VBD came)) (, ,) (SBAR (IN whereas) (S (NP (PRP she))"
            " (VP (MD ca) (RB nt) (VP (VB stay))))) (. .))")


def test_extensions_in_the_default_mode_only():
    tokens = read_tree(EXTENDED).leaves
    assert [m.keyword.text for m in find_keywords(tokens)] == []
    assert [m.keyword.text for m in find_keywords(tokens, extended=True)] == ["never", "whereas", "nt"]
    got = annotate_trees(EXTENDED, senses=RulesOnly())
    assert [(r.keyword, r.relation) for r in got.relations] == [
        ("never", "negation"), ("whereas", "comparative"), ("nt", "negation")]
    assert annotate_trees(EXTENDED, senses=None).relations == []
    assert annotate_trees(EXTENDED, senses=RulesOnly(), mapping="paper").relations == []
    # the paper's lists stay as they are: no extension is a keyword there
    assert not {"never", "whereas", "nt", "nobody", "neither", "nor"} & set(keywords())
    assert {"never", "whereas", "nt", "nobody", "neither", "nor"} <= set(keywords(True))
