"""Keyword decisions through the real Annotator (bundled parser, bundled sense models): the
example a new user types on the page, and texts whose keyword stands at an edge or alone."""

import pytest

import logicparse

pytestmark = pytest.mark.slow

PAGE_EXAMPLE = ("The meeting was held in Paris in 1998. I like apples like these, but not pears. "
                "If you go, then I go too, as you know.")


@pytest.fixture(scope="module")
def annotator():
    return logicparse.Annotator(parser="default", senses="default")


def test_page_example(annotator):
    """`in Paris` (a place), the verb `like` and the `then` of `if ... then` give no relation;
    `in 1998` is temporal, `like these` a similarity, `as you know` a comment (none). `but not
    pears` is a contrast: `but` is listed as comparative, and no rule makes it none."""
    doc = annotator.annotate(PAGE_EXAMPLE)
    got = [(doc.tokens[r.key[0][0]], r.key[0][0], r.relation, r.sense_source) for r in doc.relations]
    assert got == [("in", 6, "temporal", "rule"), ("like", 12, "analogy", "rule"),
                   ("but", 15, "comparative", "lexicon"), ("not", 16, "negation", "lexicon"),
                   ("If", 19, "conditional", "rule")]
    # senses=None keeps the paper's literal behaviour: every keyword its lexicon relation.
    literal = logicparse.Annotator(parser=annotator.parser, senses=None).annotate(PAGE_EXAMPLE)
    assert [(r.keyword, r.relation) for r in literal.relations] == [
        ("in", "temporal"), ("in", "temporal"), ("like", "example"), ("like", "example"),
        ("but", "comparative"), ("not", "negation"), ("If", "conditional"), ("then", "temporal"),
        ("as", "temporal")]
    assert {r.sense_source for r in literal.relations} == {"lexicon"}


def test_classifier_decides_what_no_rule_settles(annotator):
    doc = annotator.annotate("We stayed inside since it rained.")
    (rel,) = doc.relations
    assert (rel.keyword, rel.relation, rel.sense_source) == ("since", "causal", "classifier")
    assert 0.5 < rel.confidence <= 1.0


def test_keywords_at_edges_and_alone_in_pipe(annotator):
    texts = ["since", "Like", "When?", "In 1990.", "It has rained ever since",
             "words " * 600 + "as it rained , we stayed"]
    docs = list(annotator.pipe(texts))
    assert len(docs) == len(texts) and all(d.error is None for d in docs)
    assert [(r.keyword, r.relation) for r in docs[3].relations] == [("In", "temporal")]
    assert [(r.keyword, r.relation) for r in docs[4].relations] == [("since", "temporal")]
    assert docs[2].relations == []  # a question word
    assert [r.sense_source for r in docs[5].relations] == ["classifier"]
