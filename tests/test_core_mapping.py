"""Keyword detection, Algorithm 1 and layering on given trees (no parser needed)."""

from pathlib import Path

import pyarrow as pa
import pytest

import logicparse
from logicparse import LABELS, RELATIONS, annotate_trees
from logicparse.errors import TreeFormatError
from logicparse.mapping import find_keywords, keyword_node
from logicparse.taxonomy import category, keywords
from logicparse.tokens import ARROW_SCHEMA, Document
from logicparse.ptb import split_trees
from logicparse.trees import read_tree

FIXTURES = Path(__file__).parent / "fixtures" / "core"
PAPER_TREE = (FIXTURES / "paper_example.mrg").read_text()


def rows(doc):
    """Table 1 view: relation -> per-token role ('key', 'alpha', 'beta' or '-')."""
    out = {}
    for rel in doc.relations:
        roles = ["-"] * len(doc.tokens)
        for role in ("key", "alpha", "beta"):
            for a, b in getattr(rel, role):
                for t in range(a, b):
                    roles[t] = role
        out[rel.relation] = roles
    return out


def test_labels_and_relations_follow_the_contract():
    assert len(LABELS) == 35 and LABELS[0] == "E"
    assert LABELS[7:9] == ["negation:key", "negation:alpha"]
    assert LABELS[12] == "negative_conditional:key" and LABELS[34] == "example:alpha"
    assert RELATIONS[0] == "conjunction" and RELATIONS[-1] == "example" and len(RELATIONS) == 12
    assert logicparse.LABELS is LABELS


def test_paper_example_reproduces_table_1():
    doc = annotate_trees([PAPER_TREE], mapping="paper")
    assert doc.tokens[0] == "But" and doc.tokens[-1] == "."
    table = rows(doc)
    assert set(table) == {"comparative", "causal", "negation"}
    n = len(doc.tokens)  # 19: But ... them .
    assert table["comparative"] == ["key"] + ["beta"] * (n - 1)
    assert table["causal"] == ["-", "-"] + ["alpha"] * 8 + ["key"] + ["beta"] * 7 + ["-"]
    assert table["negation"] == ["-"] * 5 + ["key"] + ["alpha"] * 4 + ["-"] * 9
    # Layers: comparative (depth 1) first; 'not' and 'because' tie at depth 3, keyword position wins.
    i_to = doc.tokens.index("to")
    assert [LABELS[i] for i in doc.logic[i_to]] == ["comparative:beta", "negation:alpha", "causal:alpha"]
    assert doc.logic[doc.tokens.index("because")] == [LABELS.index("comparative:beta"), LABELS.index("causal:key")]


def test_extrinsic_keyword_at_sentence_start_takes_previous_sentence():
    first = "(S (NP (PRP It)) (VP (VBD rained)) (. .))"
    second = "(S (ADVP (RB However)) (, ,) (NP (PRP we)) (VP (VBD played)) (. .))"
    doc = annotate_trees([first, second], mapping="paper")
    (rel,) = doc.relations
    assert rel.relation == "comparative" and rel.category == "extrinsic"
    assert rel.alpha == [[0, 3]]  # the whole previous sentence
    assert rel.beta == [[4, 8]]
    assert rel.sentence == 1 and doc.sentence_starts == [0, 3]
    alone = annotate_trees([second], mapping="paper")
    assert alone.relations[0].alpha == [] and alone.relations[0].beta == [[1, 5]]


def test_intrinsic_splits_parent_and_grandparent_difference_can_be_discontinuous():
    doc = annotate_trees(["(NP (NNS apples) (CC and) (NNS oranges))"], mapping="paper")
    (rel,) = doc.relations
    assert (rel.category, rel.alpha, rel.beta) == ("intrinsic", [[0, 1]], [[2, 3]])
    # 'if' clause in the middle of its grandparent VP: alpha has pieces on both sides.
    tree = ("(S (NP (PRP We)) (VP (MD will) (VP (VB go) (SBAR (IN if) (S (NP (PRP it)) "
            "(VP (VBZ stops)))) (ADVP (RB tomorrow)))) (. .))")
    (rel,) = annotate_trees([tree], mapping="paper").relations
    assert rel.relation == "conditional" and rel.alpha == [[2, 3], [6, 7]] and rel.beta == [[4, 6]]


def test_multiword_keyword_that_is_not_a_constituent_uses_lowest_covering_node():
    tree = ("(S (NP (PRP She)) (VP (VBD saved) (NP (NN money)) (SBAR (IN in) (NN order) "
            "(S (VP (TO to) (VP (VB travel)))))) (. .))")
    doc = annotate_trees([tree], mapping="paper")
    (rel,) = doc.relations
    assert rel.keyword == "in order to" and rel.key == [[3, 6]]
    t = read_tree(tree)
    n, pa_, depth = keyword_node(t, 3, 6)
    assert n == -1 and t.labels[pa_] == "SBAR" and depth == t.depths[pa_] + 1
    assert rel.beta == [[6, 7]]  # SBAR minus the phrase: 'travel'
    assert rel.alpha == [[1, 3]]  # VP minus SBAR: 'saved money'


def test_unary_chain_is_one_keyword_node():
    t = read_tree("(S (ADVP (RB However)) (NP (PRP it)) (VP (VBD worked)))")
    n, pa_, depth = keyword_node(t, 0, 1)
    assert t.labels[n] == "ADVP" and pa_ == 0 and depth == 1


def test_longest_phrase_wins_and_case_is_ignored():
    found = [(m.keyword.text, m.start) for m in find_keywords("As well as that , AS SOON AS possible".split())]
    assert found == [("as well as", 0), ("as soon as", 5)]


def _keyword_cases():
    for line in (FIXTURES / "keyword_sentences.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            kw, sentence = line.split("\t")
            yield kw, sentence


def test_every_keyword_of_section_2_is_covered_by_a_test_sentence():
    assert {kw for kw, _ in _keyword_cases()} == set(keywords())


@pytest.mark.parametrize("kw,sentence", list(_keyword_cases()))
def test_every_keyword_is_detected_and_mapped(kw, sentence):
    tokens = sentence.split()
    assert kw in [m.keyword.text for m in find_keywords(tokens)]
    # A flat tree is enough to check that detection feeds mapping for every keyword.
    tree = "(S " + " ".join(f"(X {t})" for t in tokens) + ")"
    doc = annotate_trees([tree])
    rel = next(r for r in doc.relations if r.keyword.lower() == kw)
    assert rel.relation == keywords()[kw].senses[0]
    assert rel.category == category(kw, rel.relation)
    assert all(LABELS.index(f"{rel.relation}:key") in doc.logic[t] for a, b in rel.key for t in range(a, b))


def test_tree_reader_strips_wrappers_and_reads_escaped_brackets():
    t = read_tree("( (S (NP (NNP Mr.) (-LRB- -LRB-) (NNP X) (-RRB- -RRB-)) (VP (VBD left))) )")
    assert t.labels[0] == "S" and t.leaves == ["Mr.", "(", "X", ")", "left"]
    assert t.to_string() == "(S (NP (NNP Mr.) (-LRB- -LRB-) (NNP X) (-RRB- -RRB-)) (VP (VBD left)))"
    # A bracket inside a token is escaped in place (as GUM writes it) and read back.
    inner = read_tree("(S (NP (NNS friend-LRB-s-RRB-) (NN a{b}c)) (VP (VBD came)))")
    assert inner.leaves == ["friend(s)", "a{b}c", "came"]
    assert inner.to_string() == "(S (NP (NNS friend-LRB-s-RRB-) (NN a-LCB-b-RCB-c)) (VP (VBD came)))"
    assert read_tree(inner.to_string()) == inner
    assert list(split_trees("(S (X a))\n(S (X b)\n (Y c))")) == ["(S (X a))", "(S (X b)\n (Y c))"]
    assert read_tree("(ROOT (S (NN a) (NN b)))").to_string() == "(S (NN a) (NN b))"


@pytest.mark.parametrize("bad", ["", "   ", "(S (NP a)", "(S (NP a)))", "S a b", "(S (NP))", "(S a) (S b)"])
def test_malformed_trees_raise_a_clear_error(bad):
    with pytest.raises(TreeFormatError, match="tree|Tree"):
        annotate_trees([bad])


def test_tree_input_must_be_strings():
    with pytest.raises(TreeFormatError, match="list of bracketed tree strings"):
        annotate_trees(42)


def test_document_dict_round_trip_and_arrow_schema():
    doc = annotate_trees(PAPER_TREE, id="paper")  # one string holding the tree(s) works too
    d = doc.to_dict()
    assert set(d) == {"id", "text", "tokens", "token_starts", "token_ends", "sentence_starts",
                      "logic", "relations", "parse", "error"}
    assert d["text"] == "" and d["error"] is None and d["parse"][0].startswith("(TOP")
    assert d["token_starts"][:2] == [0, 4] and d["token_ends"][0] == 3
    assert Document.from_dict(d) == doc
    table = pa.Table.from_pylist([d], schema=ARROW_SCHEMA)
    assert table.schema.field("logic").type == pa.list_(pa.list_(pa.uint8()))
    assert Document.from_dict(table.to_pylist()[0]) == doc
    assert set(d["relations"][0]) == {f.name for f in ARROW_SCHEMA.field("relations").type.value_type}
