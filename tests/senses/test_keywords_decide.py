"""The decision order of :class:`KeywordDecisions` (tree rule, then classifier, then lexicon) with a
classifier whose answers are fixed, the queries it is handed, and the occurrences of
``keywords eval`` decided as the Annotator decides them. No encoder is loaded."""

import logging

import pytest

from logicparse.senses import SenseDecision, SenseQuery
from logicparse.senses.data import Annotation
from logicparse.senses.decide import KeywordDecisions, query
from logicparse.senses.scoring import decide_annotations
from logicparse.taxonomy import keywords
from logicparse.trees import read_tree


class FixedClassifier:
    """A classifier for 'in', 'then' and 'while' that answers every query 'causal' with
    confidence 0.75 and records each batch it is asked: (keyword, its characters, whether the
    tree showed a connective)."""

    name = "fixed"
    estimators = {"in": None, "then": None, "while": None}

    def __init__(self, directory="models/fixed"):
        self.batches = []
        if directory:  # the classifier's model directory, when it has one
            self.directory = directory

    def disambiguate(self, queries):
        self.batches.append([(q.keyword, q.text[q.char_start:q.char_end], q.connective)
                             for q in queries])
        return [SenseDecision("causal", 0.75, "classifier") for _ in queries]


def q(keyword, tree=None, text=None):
    """The query for the first occurrence of ``keyword`` in ``tree`` (or in ``text``)."""
    tokens = read_tree(tree).leaves if tree else text.split(" ")
    start = [t.lower() for t in tokens].index(keyword)
    return query(keywords()[keyword], tokens, start, start + 1, read_tree(tree) if tree else None)


IN_1998 = "(S (NP (PRP We)) (VP (VBD met) (PP (IN in) (NP (CD 1998)))))"
IF_THEN = ("(S (SBAR (IN If) (S (NP (PRP you)) (VP (VBP go)))) (, ,) (ADVP (RB then)) (NP (PRP I)) "
           "(VP (VBP go)))")
THEN_AFTER_COMMA = "(S (NP (PRP We)) (VP (VBD left)) (, ,) (ADVP (RB then)) (NP (PRP they)) (VP (VBD came)))"  # no rule
BECAUSE = "(S (NP (PRP We)) (VP (VBD left) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained))))))"
# 'while' heading a clause with its own subject: the rule says connective, the classifier decides
WHILE = "(S (NP (PRP He)) (VP (VBD read) (SBAR (IN while) (S (NP (PRP she)) (VP (VBD slept))))))"
QUERIES = [q("in", IN_1998), q("then", IF_THEN), q("then", THEN_AFTER_COMMA), q("in", text="in Paris"),
           q("because", BECAUSE), q("while", WHILE)]


def decided(model, queries=QUERIES):
    return [(d.relation, d.confidence, d.source) for d in model.disambiguate(queries)]


def test_a_rule_decides_first_then_the_classifier_then_the_lexicon():
    clf = FixedClassifier()
    # 'in 1998' and the 'then' of 'if ... then' are settled by their rules although the classifier
    # has both keywords; the rule-less 'then', the tree-less 'in' and the connective 'while' (told
    # so) go to the classifier, in one batch; 'because' has no rule and no classifier: its
    # lexicon sense. The classifier's 'causal' for 'while' is read by the keyword lists: `while`
    # is a time or a contrast, so any other relation is its contrast, comparative.
    assert decided(KeywordDecisions(clf)) == [
        ("temporal", 1.0, "rule"), (None, 1.0, "rule"), ("causal", 0.75, "classifier"),
        ("causal", 0.75, "classifier"), ("causal", 1.0, "lexicon"), ("comparative", 0.75, "classifier")]
    assert clf.batches == [[("then", "then", False), ("in", "in", False), ("while", "while", True)]]
    # Without rules the classifier decides each of its keywords, and no tree is read.
    clf = FixedClassifier()
    assert decided(KeywordDecisions(clf, rules=False)) == [
        ("causal", 0.75, "classifier")] * 4 + [("causal", 1.0, "lexicon"), ("comparative", 0.75, "classifier")]
    assert clf.batches == [[("in", "in", False), ("then", "then", False), ("then", "then", False),
                            ("in", "in", False), ("while", "while", False)]]
    # Rules only: what no rule settles keeps its lexicon sense (a connective 'while' too).
    assert decided(KeywordDecisions(None)) == [
        ("temporal", 1.0, "rule"), (None, 1.0, "rule"), ("temporal", 1.0, "lexicon"),
        ("temporal", 1.0, "lexicon"), ("causal", 1.0, "lexicon"), ("comparative", 1.0, "lexicon")]


def test_the_name_says_which_sources_decide():
    assert KeywordDecisions(FixedClassifier()).name == "rules+fixed"
    assert KeywordDecisions(FixedClassifier(), rules=False).name == "fixed"
    assert KeywordDecisions(None).name == "rules"
    assert KeywordDecisions(None, rules=False).name == "lexicon"


def test_an_ambiguous_keyword_without_its_classifier_is_named_once(caplog):
    """'since' is ambiguous and the classifier has no model for it: one warning naming the
    keyword, the model directory and the lexicon sense used; none for the unambiguous 'because',
    and none when there is no classifier at all (rules only: the lexicon is the plan)."""
    since = q("since", text="since it rained")
    with caplog.at_level(logging.WARNING, logger="logicparse.senses.decide"):
        model = KeywordDecisions(FixedClassifier())
        assert decided(model, [since, since, q("because", BECAUSE)]) == [
            ("temporal", 1.0, "lexicon")] * 2 + [("causal", 1.0, "lexicon")]
        decided(model, [since])
        decided(KeywordDecisions(None), [since, q("while", text="while it rained")])
        # A classifier with no model directory is named by its name.
        decided(KeywordDecisions(FixedClassifier(directory=None)), [since])
    assert [r.getMessage() for r in caplog.records] == [
        "No sense model for keyword 'since' in models/fixed: using its lexicon sense 'temporal'.",
        "No sense model for keyword 'since' in fixed: using its lexicon sense 'temporal'."]


def test_a_keyword_outside_the_lexicon_gets_no_relation():
    unknown = SenseQuery("whereupon", (), "whereupon we left", 0, 9)
    assert decided(KeywordDecisions(FixedClassifier()), [unknown]) == [(None, 1.0, "lexicon")]


@pytest.mark.parametrize("tokens,start,end", [
    (["Then", "we", "left"], 0, 1),
    (["We", "left", "as", "soon", "as", "it", "stopped"], 2, 5),
])
def test_query_holds_the_keywords_own_characters(tokens, start, end):
    kw = keywords()[" ".join(tokens[start:end]).lower()]
    sq = query(kw, tokens, start, end)
    assert sq.text == " ".join(tokens)
    assert sq.text[sq.char_start:sq.char_end] == " ".join(tokens[start:end])
    assert (sq.keyword, sq.candidates, sq.token_start, sq.token_end) == (kw.text, kw.senses, start, end)


def ann(keyword, text, label="none", tree=""):
    start = text.index(keyword)
    return Annotation(keyword=keyword.lower(), text=text, char_start=start,
                      char_end=start + len(keyword), label=label, source="test", doc="d", tree=tree)


class Recorder:
    """A sense model that records the queries it is handed and answers none."""

    name = "recorder"

    def disambiguate(self, queries):
        self.queries = list(queries)
        return [SenseDecision(None, 0.5, "classifier") for _ in queries]


def test_annotations_are_asked_as_the_annotator_asks():
    """Each occurrence becomes the query the Annotator would make: the keyword's tokens (a
    multi-word keyword; a token holding a no-break space is one token) and the sentence's tree:
    its own, or the one given in its place."""
    anns = [ann("as soon as", "We left as soon as it stopped ."),
            ann("in", "It cost 10\u00a0000 euros in 1998 ."), ann("in", "We met in 1998", tree=IN_1998)]
    model = Recorder()
    decide_annotations(model, anns)
    assert [(sq.keyword, sq.token_start, sq.token_end, sq.text[sq.char_start:sq.char_end])
            for sq in model.queries] == [("as soon as", 2, 5, "as soon as"), ("in", 4, 5, "in"),
                                         ("in", 2, 3, "in")]
    assert [sq.tree and sq.tree.to_string() for sq in model.queries] == [None, None, IN_1998]
    given = read_tree("(S (NP (PRP We)) (VP (VBD met) (PP (IN in) (NP (NNP May)))))")
    decide_annotations(model, anns, trees=[None, None, given])
    assert [sq.tree for sq in model.queries] == [None, None, given]


def test_stored_trees_reach_the_rules_and_no_model_is_the_lexicon():
    anns = [ann("in", "We met in 1998", "temporal", tree=IN_1998)]
    assert decide_annotations(KeywordDecisions(None), anns) == [SenseDecision("temporal", 1.0, "rule")]
    assert decide_annotations(None, anns + [ann("because", "We left because it rained")]) == [
        SenseDecision("temporal", 1.0, "lexicon"), SenseDecision("causal", 1.0, "lexicon")]
