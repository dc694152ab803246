"""The default mapping and the paper's on trees: the mapping option, the paper's sentence, small
trees, odd trees that must never break the mapping, and one tree per rule that the rule decides.
`logicparse mapping eval`'s known answers: test_mapping_eval.py."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse import Annotator, annotate_trees
from logicparse.cli import _register, app
from logicparse.errors import OptionError

PAPER_TREE = (Path(__file__).parent / "fixtures" / "core" / "paper_example.mrg").read_text()

_register()


def test_mapping_option_is_checked_everywhere():
    with pytest.raises(OptionError, match="Unknown mapping 'x'.*default, paper"):
        annotate_trees([PAPER_TREE], mapping="x")
    with pytest.raises(OptionError, match="Unknown mapping"):
        Annotator(parser=object(), senses=None, mapping="literal")


def spans(doc, keyword):
    rel = next(r for r in doc.relations if r.keyword == keyword)
    words = lambda ranges: " ".join(doc.tokens[t] for a, b in ranges for t in range(a, b))  # noqa: E731
    return words(rel.alpha), words(rel.beta)


def test_default_mapping_on_the_paper_sentence_differs_only_where_measured():
    paper, default = annotate_trees([PAPER_TREE], mapping="paper"), annotate_trees([PAPER_TREE])
    assert spans(paper, "because")[0] == "try very hard not to go that way"
    # α climbs to the clause: the subject joins, and the sentence's 'But' (GDTB's arguments keep
    # another relation's keyword, docs/mapping.md); the final period does not (punct_edges).
    assert spans(default, "because") == ("But I try very hard not to go that way",
                                         "it would be too easy for them")
    # Unary relations keep Algorithm 1's span; depths and keys never change.
    assert spans(default, "not") == spans(paper, "not")
    assert [(r.key, r.depth) for r in default.relations] == [(r.key, r.depth) for r in paper.relations]


def test_default_rules_on_small_trees():
    first = "(S (NP (PRP It)) (VP (VBD rained)) (. .))"
    # Sentence-initial coordinator: α is the previous sentence, β the rest of this one.
    doc = annotate_trees([first, "(S (CC And) (NP (PRP we)) (VP (VBD stayed)) (. .))"])
    assert spans(doc, "And") == ("It rained", "we stayed")
    # Discourse adverbial after the subject: β is its clause, α the previous sentence.
    doc = annotate_trees([first, "(S (NP (PRP We)) (ADVP (RB also)) (VP (VBD stayed)) (. .))"])
    assert spans(doc, "also") == ("It rained", "We stayed")
    # '..., and then Y': α the first conjunct, β the coordinator and the second conjunct.
    doc = annotate_trees(["(S (S (NP (PRP We)) (VP (VBD ate))) (, ,) (CC and) (ADVP (RB then)) "
                          "(S (NP (PRP we)) (VP (VBD left))) (. .))"])
    assert spans(doc, "then") == ("We ate", "and we left")
    # A coordinator opening an inner clause: β still runs to the end of the sentence.
    doc = annotate_trees([first, "(S (S (CC And) (S (NP (PRP we)) (VP (VBD stayed)))) (, ,) "
                                 "(CC but) (S (NP (PRP they)) (VP (VBD left))) (. .))"])
    assert spans(doc, "And") == ("It rained", "we stayed , but they left")
    # β of a coordinator stops at the next coordinator of the same list.
    doc = annotate_trees(["(S (NP (PRP He)) (VP (VP (VBD came)) (, ,) (VP (VBD saw)) (CC and) "
                          "(VP (VBD went)) (CC but) (VP (VBD returned))) (. .))"])
    assert spans(doc, "and") == ("He came , saw", "went")


BAD_TREES = {
    "unary chain": ["(S (S (S (NP (NP (PRP We))) (VP (VP (VBD left))))) (SBAR (SBAR (IN because) "
                    "(S (S (NP (PRP it)) (VP (VBD rained)))))))"],
    "empty constituents": ["(S (NP-SBJ (-NONE- *)) (NP ) (VP (VBD left) (SBAR (IN because) "
                           "(S (NP (-NONE- *T*-1)) (VP (VBD rained))))) (. .))",
                           "(S (NP (PRP We)) (VP (VP (-NONE- *?*)) (CC and) (ADVP (RB then)) "
                           "(VP (VBD left))) (. .))"],
    "keyword is the whole sentence": ["(S (NP (PRP It)) (VP (VBD rained)))", "(CC But)",
                                      "(INTJ (UH No))", "(ADVP (RB However))"],
    "one-token sentence": ["(RB However)", "(RB Also)"],
    "first sentence opens with an adverbial": ["(S (ADVP (RB However)) (, ,) (NP (PRP we)) "
                                               "(VP (VBD stayed) (ADVP (RB also))) (. .))"],
    "flat tree": ["(S (X And) (X then) (X because) (X we) (X left) (X but) (X also) (X if))"],
    "first sentence opens with an interjection": ["(S (INTJ (UH Um)) (CC but))"],
    "subordinate clause as the sentence": ["(SBAR (WHNP (WDT which)) (S (ADVP (RB also)) (VP (VBD left))))",
                                           "(S (SBAR (SBAR (IN because) (S (VP (VBD rained)))) "
                                           "(S (VP (VBD poured)))))"],
    "key phrase is the whole sentence": ["(PP (IN In) (NP (NN addition)))"],
}


@pytest.mark.parametrize("mapping", ["default", "paper"])
@pytest.mark.parametrize("case", sorted(BAD_TREES))
def test_odd_trees_give_valid_spans_never_an_exception(case, mapping):
    doc = annotate_trees(BAD_TREES[case], mapping=mapping)
    assert doc.relations, "every case holds at least one keyword"
    n = len(doc.tokens)
    for rel in doc.relations:
        for a, b in rel.key + rel.alpha + rel.beta:
            assert 0 <= a < b <= n
        assert not (set(range(*rel.key[0])) & {t for a, b in rel.alpha + rel.beta
                                               for t in range(a, b)}), "a key is never an argument"


def test_empty_constituents_are_not_tokens_and_first_sentence_has_no_previous():
    doc = annotate_trees(BAD_TREES["empty constituents"])
    assert doc.tokens == ["left", "because", "rained", ".", "We", "and", "then", "left", "."]
    assert spans(doc, "because") == ("left", "rained")
    # The empty VP is no conjunct: 'then' has no clause before it in its sentence.
    assert spans(doc, "then") == ("left because rained", "We and left")
    doc = annotate_trees(BAD_TREES["first sentence opens with an adverbial"])
    assert spans(doc, "However") == ("", "we stayed also")
    doc = annotate_trees(BAD_TREES["keyword is the whole sentence"])
    assert spans(doc, "But") == ("It rained", "")


def test_annotator_and_annotate_command_take_the_mapping(lexicon_annotator, tmp_path):
    """The real parser: the option reaches the mapping, and `annotate` records it."""
    from logicparse.batch import read_manifest, read_shards

    text = "I try very hard because it would be too easy."
    paper = Annotator(parser=lexicon_annotator.parser, senses=None, mapping="paper")
    assert (paper.mapping, lexicon_annotator.mapping) == ("paper", "default")
    assert spans(paper.annotate(text), "because")[0] == "try very hard"
    assert spans(lexicon_annotator.annotate(text), "because")[0] == "I try very hard"
    (tmp_path / "doc.txt").write_text(text)
    for mapping in ("paper", "default"):
        out = tmp_path / mapping
        r = CliRunner().invoke(app, ["annotate", str(tmp_path / "doc.txt"), "--out", str(out),
                                     "--senses", "none", "--mapping", mapping, "--quiet"])
        assert r.exit_code == 0, r.output
        manifest = read_manifest(out)
        assert manifest["mapping"] == manifest["settings"]["mapping"] == mapping
        (row,) = read_shards(out).to_pylist()
        rel = next(x for x in row["relations"] if x["keyword"] == "because")
        assert [row["tokens"][i] for a, b in rel["alpha"] for i in range(a, b)][0] == (
            "try" if mapping == "paper" else "I")


FIRST = "(S (NP (PRP It)) (VP (VBD rained)) (. .))"
RULE_CASES = [  # (rule, second sentence, keyword, (α, β) with the rule, (α, β) without it)
    ("skip_parentheticals", "(S (NP (PRP We)) (VP (VBD left) (PRN (, ,) (S (NP (PRP I)) (VP (VBP "
     "think))) (, ,)) (SBAR (IN because) (S (NP (PRP it)) (VP (VBD rained))))) (. .))",
     "because", ("We left .", "it rained"), ("We left , I think , .", "it rained")),
    ("conjunct_stop", "(S (NP (PRP We)) (VP (VP (VBD ate)) (, ,) (CC and) (VP (VBD left) (SBAR (IN "
     "because) (S (NP (PRP it)) (VP (VBD rained)))))) (. .))", "because", ("and left", "it rained"),
     ("We ate , and left .", "it rained")),
    # Without: flat_preposition takes the rest of the phrase, the PP after the clause too.
    ("flat_adjunct", "(S (NP (PRP It)) (VP (VBZ helps) (NP (NP (NN practice)) (IN in) (S (VP (VBG "
     "learning) (NP (NNS words)))) (PP (IN at) (NP (NN home))))) (. .))", "in",
     ("It helps practice at home .", "learning words"), ("It helps practice .", "learning words at home")),
    # Without: α the auxiliaries above the flat VP, β the rest of it.
    ("flat_preposition", "(S (NP (PRP I)) (VP (VBP have) (RB n't) (VP (VBN left) (NP (DT the) (NN "
     "office)) (IN before) (NP (CD 9) (NN PM)))) (. .))", "before", ("I have n't left the office .",
     "9 PM"), ("have n't", "left the office 9 PM")),
    ("split_keyword", "(S (NP (PRP We)) (VP (VBD left) (ADVP (ADVP (RB as) (RB soon)) (SBAR (IN as) "
     "(S (NP (PRP it)) (VP (VBD stopped)))))) (. .))", "as soon as", ("We left .", "it stopped"),
     ("It rained .", "We left it stopped .")),
    ("coordinated_any", "(S (SBAR (IN If) (S (NP (PRP it)) (VP (VBZ rains)))) (, ,) (CC and) (S "
     "(ADVP (RB then)) (NP (PRP we)) (VP (VBP stay))) (. .))", "then",
     ("If it rains", ", and we stay"), ("It rained .", "If it rains , and we stay .")),
    ("adverbs_only", "(S (NP (PRP We)) (VP (VBD worked) (PP (ADVP (IN as) (RB never) (RB before)) "
     "(PP (IN with) (NP (PRP them))))) (. .))", "as", ("with them", "never before"),
     ("It rained .", "We worked never before with them .")),
    ("vp_conjunct", "(S (NP (PRP We)) (VP (VP (VBD ate)) (, ,) (CC and) (VP (ADVP (RB therefore)) "
     "(VP (VBD left)))) (. .))", "therefore", ("We ate", ", and left"),
     ("It rained .", "We ate , and left .")),
    ("sentence_beta", "(S (S (NP (PRP We)) (ADVP (RB also)) (VP (VBD stayed))) (CC and) (S (NP "
     "(PRP they)) (VP (VBD left))) (. .))", "also", ("It rained .", "We stayed and they left ."),
     ("and they left .", "We stayed")),
    # Without: an interjection taken for the first conjunct.
    ("interjection_opening", "(S (INTJ (UH Um)) (, ,) (CC but) (S (NP (PRP we)) (VP (VBD stayed))) "
     "(. .))", "but", ("It rained .", "Um , we stayed ."), ("Um ,", "we stayed")),
    # Without: the relative pronoun is left in α.
    ("adverbial_sbar", "(S (NP (PRP We)) (VP (VBD bought) (NP (NP (DT a) (NN map)) (, ,) (SBAR (WHNP "
     "(WDT which)) (S (NP (PRP we)) (ADVP (RB then)) (VP (VBD lost)))))) (. .))", "then",
     ("We bought a map , .", "which we lost"), ("We bought a map , which .", "we lost")),
    # Without: 'On' read as a preposition heading the clause after it.
    ("phrase_adverbial", "(S (PP (IN On) (NP (DT the) (JJ other) (NN hand))) (, ,) (SBAR (WHADVP "
     "(WRB when)) (S (NP (PRP it)) (VP (VBZ rains)))) (, ,) (NP (PRP we)) (VP (VBP stay)) (. .))",
     "On the other hand", ("It rained .", ", when it rains , we stay ."), (", we stay .", ", when it rains")),
]


@pytest.mark.parametrize("rule,tree,keyword,expected,without", RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_each_rule_on_a_tree_it_decides(rule, tree, keyword, expected, without):
    from logicparse import arguments

    assert rule in arguments.RULES
    # Punctuation at the arguments' ends aside (punct_edges, tests/test_mapping_rules.py).
    arguments.ACTIVE.discard("punct_edges")
    try:
        assert spans(annotate_trees([FIRST, tree]), keyword) == expected
        arguments.ACTIVE.discard(rule)
        assert spans(annotate_trees([FIRST, tree]), keyword) == without
    finally:
        arguments.ACTIVE.update((rule, "punct_edges"))
