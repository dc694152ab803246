"""The relation of each keyword in the sentences a new user reported, through the real Annotator
(bundled parser, bundled sense models), and the paper's own worked example (its Table 1)."""

import pytest

import logicparse

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def annotator():
    return logicparse.Annotator(parser="default", senses="default")


def relations(annotator, text):
    return [(r.keyword, r.relation) for r in annotator.annotate(text).relations]


@pytest.mark.parametrize("text,expected", [
    # the paper's Table 1: the concessive "But" is comparative
    ("But I try very hard not to go that way because it would be too easy for them.",
     [("But", "comparative"), ("not", "negation"), ("because", "causal")]),
    ("If the error persists, restart the router or call support.",
     [("If", "conditional"), ("or", "disjunction")]),
    ("Stir the sauce until it thickens, but do not let it boil.",
     [("until", "temporal"), ("but", "comparative"), ("not", "negation")]),
    # `otherwise` as an adverb (= differently): none; the `unless` carries the condition
    ("Take the medicine after meals, unless your doctor says otherwise.",
     [("after", "temporal"), ("unless", "negative_conditional")]),
    ("The results, though preliminary, suggest a strong effect.", [("though", "adversative")]),
    # not only … but also: it adds; neither `not` nor `but` is a negation or a contrast
    ("The plan helps not only the farmers but also the towns around them.", [("also", "conjunction")]),
    # `but` = only
    ("I do but quote the report.", []),
    # without the apostrophe spaCy splits "cant" into "ca" + "nt"
    ("I cant go and it wont work.", [("nt", "negation"), ("and", "conjunction"), ("nt", "negation")]),
    ("Prices rose whereas wages fell.", [("whereas", "comparative")]),
    ("Nobody came; neither the mayor nor the council replied.",
     [("Nobody", "negation"), ("neither", "negation"), ("nor", "negation")]),
])
def test_quoted_sentence(annotator, text, expected):
    assert relations(annotator, text) == expected


def test_also_in_a_proportional_clause(annotator):
    got = relations(annotator, "As the temperature increases, the reaction rate also increases.")
    assert ("also", "conjunction") in got


def test_extensions_only_in_the_default_mode(annotator):
    """`nt`, `never`, `whereas` are the default annotator's extensions; the paper's lists stay
    exact with ``senses=None`` and with ``mapping="paper"``."""
    text = "He never came, whereas she cant stay."
    assert [k for k, _ in relations(annotator, text)] == ["never", "whereas", "nt"]
    for kwargs in ({"senses": None}, {"mapping": "paper"}):
        other = logicparse.Annotator(parser=annotator.parser, **{"senses": "default", **kwargs})
        assert other.annotate(text).relations == []
