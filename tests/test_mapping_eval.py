"""`logicparse mapping eval`: known answers on hand-made GDTB documents (the default and the
paper's mapping, undetected, unary and unplaced connectives), the errors file, trees from a parser
or a tree directory, saved and read back. The default mapping on trees: test_mapping_trees.py."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse.cli import _register, app

GDTB = Path(__file__).parent / "fixtures" / "mapping" / "gdtb"

_register()


def run_eval(*args):
    r = CliRunner().invoke(app, ["mapping", "eval", "--gdtb", str(GDTB), *map(str, args)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout.strip().splitlines()[-1])


# The fixture: "It rained . But we played because it was fun . He came and saw(s) ." (tokens 0-15),
# gold: but  Arg1 = It rained,  Arg2 = we played because it was fun
#       because  Arg1 = we played,  Arg2 = it was fun
#       and  Arg1 = He came,  Arg2 = saw(s)         (punctuation is never scored)
# default mapping: but α = the previous sentence, β = the rest of its sentence (exact);
#   because α = But we played (one extra token: 'But'), β = it was fun;
#   and α = He came (the VP conjunct with its clause's subject), β = saw(s) (exact).
#   α: 7 predicted, 6 gold, 6 right: P 6/7, R 1, F1 12/13; β all 10 right; exact 2/3.
# paper mapping (Algorithm 1): but α = A = nothing; because α = pa(pa) \ pa = played;
#   and α = A = came; β as above. α: 2 predicted, both right, of 6: P 1, R 1/3, F1 1/2; exact 0.
def test_known_answer_default_mapping(tmp_path):
    errors = tmp_path / "misses.jsonl"
    r = run_eval("--errors", errors)
    assert (r["n"], r["mapping"], r["trees"], r["split"]) == (3, "default", "gold", "dev")
    assert r["alpha"] == {"precision": round(6 / 7, 4), "recall": 1.0, "f1": round(12 / 13, 4)}
    assert r["alpha_f1"] == round(12 / 13, 4) and r["beta_f1"] == 1.0
    assert r["exact"] == round(2 / 3, 4)
    assert r["per_relation"]["causal"] == {"n": 1, "exact": 0.0, "alpha_f1": 0.8, "beta_f1": 1.0}
    assert r["per_category"]["intrinsic"] == {"n": 2, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": 1.0}
    assert r["per_category"]["extrinsic"]["alpha_f1"] == 0.8
    # 'But' opens its sentence; 'because' and 'and' do not. Medial α: 5 predicted, 4 right, 4 gold.
    assert r["per_position"]["initial"] == {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": 1.0}
    assert r["per_position"]["medial"] == {"n": 2, "exact": 0.5, "alpha_f1": round(16 / 18, 4),
                                           "beta_f1": 1.0}
    # 'But''s Arg1 is the sentence before it; the other two lie in their keyword's sentence.
    assert r["per_alpha_place"] == {
        "previous": {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": 1.0},
        "same": {"n": 2, "exact": 0.5, "alpha_f1": round(16 / 18, 4), "beta_f1": 1.0}}
    # Each α was taken where its gold lies; every gold β is in its keyword's sentence.
    assert r["per_alpha_choice"] == {"previous/previous": r["per_alpha_place"]["previous"],
                                     "same/same": r["per_alpha_place"]["same"]}
    assert r["per_beta_place"] == {"same": {"n": 3, "exact": round(2 / 3, 4),
                                            "alpha_f1": round(12 / 13, 4), "beta_f1": 1.0}}
    # 'But' attaches to its clause, 'because' heads an SBAR, 'and' joins two VPs.
    assert r["per_keyword_parent"] == {
        "extrinsic SBAR": {"n": 1, "exact": 0.0, "alpha_f1": 0.8, "beta_f1": 1.0},
        "intrinsic S": {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": 1.0},
        "intrinsic VP": {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": 1.0}}
    (miss,) = [json.loads(line) for line in errors.read_text().splitlines()]
    assert (miss["keyword"], miss["position"], miss["sentence"]) == ("because", "medial", 1)
    assert miss["alpha"] == {"predicted": "But we played", "gold": "we played",
                             "gold_argument": "Arg1", "missing": "", "extra": "But"}
    assert miss["beta"]["missing"] == miss["beta"]["extra"] == ""


def test_known_answer_paper_mapping(tmp_path):
    errors = tmp_path / "misses.jsonl"
    r = run_eval("--mapping", "paper", "--errors", errors)
    assert r["mapping"] == "paper"
    assert r["alpha"] == {"precision": 1.0, "recall": round(1 / 3, 4), "f1": 0.5}
    assert r["beta_f1"] == 1.0 and r["exact"] == 0.0
    # Intrinsic: α 'came' of 'It rained' + 'He came' -> P 1, R 1/4, F1 0.4.
    assert r["per_category"]["intrinsic"]["alpha_f1"] == 0.4
    assert r["per_position"]["initial"]["alpha_f1"] == 0.0
    # Algorithm 1 gives 'But' no α where GDTB has the sentence before.
    assert r["per_alpha_choice"]["previous/none"] == {"n": 1, "exact": 0.0, "alpha_f1": 0.0,
                                                      "beta_f1": 1.0}
    misses = [json.loads(line) for line in errors.read_text().splitlines()]
    assert [m["keyword"] for m in misses] == ["But", "because", "and"]
    assert misses[0]["alpha"]["missing"] == "It rained"


def test_trees_saved_and_read_back_give_the_same_figures(tmp_path):
    first = run_eval("--save-trees", tmp_path / "trees")
    assert sorted(p.name for p in (tmp_path / "trees").iterdir()) == ["GUM_fixture_map.mrg"]
    # A token holding brackets is written escaped, so that the tree reads back.
    assert "(VBD saw-LRB-s-RRB-)" in (tmp_path / "trees" / "GUM_fixture_map.mrg").read_text()
    again = run_eval("--trees", tmp_path / "trees")
    assert again["trees"] == str(tmp_path / "trees")
    assert {k: again[k] for k in ("alpha", "beta", "exact", "per_relation")} == \
        {k: first[k] for k in ("alpha", "beta", "exact", "per_relation")}


@pytest.mark.parametrize("args,message", [
    (["--mapping", "literal"], "[E009] Invalid value for '--mapping': 'literal' is not one of "
                               "'default', 'paper'"),
    (["--trees", "/no/such/dir"], "[E009] Invalid value for '--trees': '/no/such/dir' is not "
                                  "'gold', 'parser' or a directory"),
])
def test_bad_options_are_refused_with_the_choices(args, message):
    r = CliRunner().invoke(app, ["mapping", "eval", "--gdtb", str(GDTB), *args])
    assert r.exit_code != 0 and message in " ".join(r.output.split())


class GoldShapedParser:
    """Parser stand-in: the fixture's gold trees with the raw tokens as leaves, as a real
    parser returns them (``saw(s)``, not ``saw-LRB-s-RRB-``)."""

    def __init__(self, doc):
        from logicparse.trees import read_tree

        self.trees = [read_tree(t) for t in doc.trees]

    def parse(self, token_lists):
        import dataclasses

        return [dataclasses.replace(t, leaves=list(toks)) for t, toks in zip(self.trees, token_lists)]


def test_parser_trees_with_bracketed_tokens_are_saved_readably(tmp_path):
    from logicparse.gdtb import read_gdtb
    from logicparse.scorer import evaluate_mapping

    (doc,) = read_gdtb(GDTB, "dev")
    parsed = evaluate_mapping([doc], parser=GoldShapedParser(doc), save_trees=tmp_path)
    saved = (tmp_path / "GUM_fixture_map.mrg").read_text()
    assert "saw-LRB-s-RRB-" in saved and "saw(s)" not in saved
    again = evaluate_mapping([doc], trees=lambda d: saved.splitlines())
    assert again == parsed == evaluate_mapping([doc])


# The edge-case fixture (split 'test'): five sentences, one gold relation each.
#   0 'Brand X sold , sadly , less because prices rose .'  because: Arg1 'sold , sadly , less'.
#     The default α is the clause less its keyword and SBAR: 'Brand X sold , sadly , less .', so
#     α 5 tokens predicted (punctuation never counts), 3 right, 3 gold; β 'prices rose' exact.
#   1 'We stayed as long as it rained .'  gold connective 'as' (the second): logicparse takes
#     'as long as', so 'as' is not detected: relation its lexicon sense (temporal), α and β empty
#     against 'We stayed' / 'it rained'.
#   2 'He ran just like a hare .'  'like' inside 'just like': not detected either; 'like' is
#     unary (example), so its empty α is compared with Arg2 'a hare'.
#   3 'But it did not stop .'  the connective's character span starts inside 'But' and covers
#     no token: position 'none', nothing predicted against Arg1 'He ran just like a hare' (6)
#     and Arg2 'it did not stop' (4).
#   4 'For example , prices fell .'  unary, sentence-initial: α ', prices fell .' = Arg2 (exact).
# α: 5 right of 7 predicted and 15 gold: P 5/7, R 1/3, F1 10/22.  β: 2 of 2, of 8: P 1, R 1/4, F1 0.4.
EDGE_MISSES = [
    {"doc": "GUM_fixture_edges", "sentence": 0, "keyword": "because", "relation": "causal",
     "category": "extrinsic", "position": "medial", "detected": True,
     "text": "Brand X sold , sadly , less because prices rose .",
     "tree": "(S (NP (NN Brand) (NNP X)) (VP (VBD sold) (, ,) (ADVP (RB sadly)) (, ,) (NP (JJR less)) "
             "(SBAR (IN because) (S (NP (NNS prices)) (VP (VBD rose))))) (. .))",
     # the commas are not scored: each leaves a gap, marked '…'
     "alpha": {"predicted": "Brand X sold … sadly … less", "gold": "sold … sadly … less",
               "gold_argument": "Arg1", "missing": "", "extra": "Brand X"},
     "beta": {"predicted": "prices rose", "gold": "prices rose", "gold_argument": "Arg2",
              "missing": "", "extra": ""}},
    {"doc": "GUM_fixture_edges", "sentence": 1, "keyword": "as", "relation": "temporal",
     "category": "extrinsic", "position": "medial", "detected": False,
     "text": "We stayed as long as it rained .",
     "tree": "(S (NP (PRP We)) (VP (VBD stayed) (SBAR (ADVP (RB as) (RB long)) (IN as) (S (NP (PRP it)) "
             "(VP (VBD rained))))) (. .))",
     "alpha": {"predicted": "", "gold": "We stayed", "gold_argument": "Arg1",
               "missing": "We stayed", "extra": ""},
     "beta": {"predicted": "", "gold": "it rained", "gold_argument": "Arg2",
              "missing": "it rained", "extra": ""}},
    {"doc": "GUM_fixture_edges", "sentence": 2, "keyword": "like", "relation": "example",
     "category": "unary", "position": "medial", "detected": False,
     "text": "He ran just like a hare .",
     "tree": "(S (NP (PRP He)) (VP (VBD ran) (PP (ADVP (RB just)) (IN like) (NP (DT a) (NN hare)))) (. .))",
     "alpha": {"predicted": "", "gold": "a hare", "gold_argument": "Arg2", "missing": "a hare",
               "extra": ""}},
    {"doc": "GUM_fixture_edges", "sentence": -1, "keyword": "", "relation": "comparative",
     "category": "intrinsic", "position": "none", "detected": False, "text": "", "tree": "",
     "alpha": {"predicted": "", "gold": "He ran just like a hare", "gold_argument": "Arg1",
               "missing": "He ran just like a hare", "extra": ""},
     "beta": {"predicted": "", "gold": "it did not stop", "gold_argument": "Arg2",
              "missing": "it did not stop", "extra": ""}},
]


def test_known_answer_undetected_unary_and_unplaced_connectives(tmp_path):
    errors = tmp_path / "misses.jsonl"
    r = CliRunner().invoke(app, ["mapping", "eval", "--gdtb", str(GDTB), "--split", "test",
                                 "--errors", str(errors)])
    assert r.exit_code == 0, r.output
    assert "[1/1] GUM_fixture_edges" in r.stderr
    r = json.loads(r.stdout.strip().splitlines()[-1])
    assert (r["n"], r["exact"]) == (5, 0.2)
    assert r["alpha"] == {"precision": round(5 / 7, 4), "recall": round(1 / 3, 4),
                          "f1": round(10 / 22, 4)}
    assert r["beta"] == {"precision": 1.0, "recall": 0.25, "f1": 0.4}
    assert r["per_relation"] == {
        "causal": {"n": 1, "exact": 0.0, "alpha_f1": 0.75, "beta_f1": 1.0},
        "comparative": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        # unary: α 2 of 2 predicted, of 4 gold; no β at all
        "example": {"n": 2, "exact": 0.5, "alpha_f1": round(2 / 3, 4), "beta_f1": None},
        # the undetected 'as': nothing predicted, but a gold β to find, so β F1 0, not None
        "temporal": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0}}
    assert r["per_category"] == {
        "extrinsic": {"n": 2, "exact": 0.0, "alpha_f1": 0.6, "beta_f1": round(2 / 3, 4)},
        "intrinsic": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "unary": {"n": 2, "exact": 0.5, "alpha_f1": round(2 / 3, 4), "beta_f1": None}}
    assert r["per_position"] == {
        "initial": {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": None},
        # α 3 right of 5 predicted, 7 gold: F1 2·(3/5)(3/7)/(3/5 + 3/7) = 1/2
        "medial": {"n": 3, "exact": 0.0, "alpha_f1": 0.5, "beta_f1": round(2 / 3, 4)},
        "none": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0}}
    # Every gold α (Arg2 for the unary ones) lies in its keyword's sentence, but the one whose
    # connective covers no token: no sentence to place it against. 'same' α: 5 right of 7
    # predicted, of 9 gold (3 + 2 + 2 + 2): F1 10/16.
    assert r["per_alpha_place"] == {
        "none": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "same": {"n": 4, "exact": 0.25, "alpha_f1": 0.625, "beta_f1": round(2 / 3, 4)}}
    # The undetected 'as' and 'like' have no α; 'because' and 'For example' one in their sentence
    # (α 5 right of 7 predicted, of 5 gold: F1 10/12).
    assert r["per_alpha_choice"] == {
        "none/none": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "same/none": {"n": 2, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "same/same": {"n": 2, "exact": 0.5, "alpha_f1": round(10 / 12, 4), "beta_f1": 1.0}}
    # β: binary relations only ('because', 'as' and the comparative without tokens).
    assert r["per_beta_place"] == {
        "none": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "same": {"n": 2, "exact": 0.0, "alpha_f1": 0.6, "beta_f1": round(2 / 3, 4)}}
    # 'because' and the second 'as' head their SBARs, 'like' is in a PP, 'For example' a PP
    # in its clause; a connective over no token has no parent.
    assert r["per_keyword_parent"] == {
        "extrinsic SBAR": {"n": 2, "exact": 0.0, "alpha_f1": 0.6, "beta_f1": round(2 / 3, 4)},
        "intrinsic none": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": 0.0},
        "unary PP": {"n": 1, "exact": 0.0, "alpha_f1": 0.0, "beta_f1": None},
        "unary S": {"n": 1, "exact": 1.0, "alpha_f1": 1.0, "beta_f1": None}}
    assert [json.loads(line) for line in errors.read_text().splitlines()] == EDGE_MISSES


def test_nothing_to_score_gives_zeros_not_a_division_error():
    from logicparse.scorer import evaluate_mapping

    zero = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert evaluate_mapping([]) == {
        "alpha_f1": 0.0, "beta_f1": 0.0, "exact": 0.0, "n": 0, "alpha": zero, "beta": zero,
        "mapping": "default", "per_relation": {}, "per_category": {}, "per_position": {},
        "per_alpha_place": {}, "per_alpha_choice": {}, "per_beta_place": {},
        "per_keyword_parent": {}}


class FlatParser:
    """A parser that knows no syntax: every sentence ``(S (X w) ...)``."""

    def parse(self, token_lists):
        from logicparse.trees import read_tree

        return [read_tree(flat(toks)) for toks in token_lists]


def flat(tokens):
    from logicparse.ptb import escape

    return "(S " + " ".join(f"(X {escape(t)})" for t in tokens) + ")"


# On flat trees 'because' has no clause: its α is the previous sentence 'It rained' (0 of 2
# right) and its β the rest of its sentence 'But we played it was fun' (3 of 6 right); 'But'
# and 'and' stay exact. α: 4 of 6 right, 6 gold; β: 10 of 13 right, 10 gold.
FLAT_FIGURES = {"alpha": {"precision": round(4 / 6, 4), "recall": round(4 / 6, 4),
                          "f1": round(4 / 6, 4)},
                "beta": {"precision": round(10 / 13, 4), "recall": 1.0, "f1": round(20 / 23, 4)},
                "exact": round(2 / 3, 4)}


def test_the_parsers_or_the_given_trees_are_mapped_and_saved(tmp_path):
    from logicparse.gdtb import read_gdtb
    from logicparse.scorer import evaluate_mapping

    (doc,) = read_gdtb(GDTB, "dev")
    flat_trees = [flat(doc.tokens[0:3]), flat(doc.tokens[3:11]), flat(doc.tokens[11:16])]
    saved = tmp_path / "new" / "trees"  # parents created
    parsed = evaluate_mapping([doc], parser=FlatParser(), save_trees=saved)
    assert (saved / "GUM_fixture_map.mrg").read_text() == "".join(t + "\n" for t in flat_trees)
    given = evaluate_mapping([doc], trees=lambda d: flat_trees)
    for r in (parsed, given):
        assert {k: r[k] for k in FLAT_FIGURES} == FLAT_FIGURES


def test_saved_trees_are_utf8_whatever_the_locale(tmp_path):
    """A machine whose locale is not UTF-8 (here ASCII) still writes 'Café' as UTF-8."""
    import locale

    from logicparse.gdtb import GdtbDocument
    from logicparse.scorer import evaluate_mapping

    tree = "(S (NP (NNP Café)) (VP (VBD opened)) (. .))"
    (tmp_path / "cafe.mrg").write_text(tree + "\n", encoding="utf-8")
    doc = GdtbDocument("cafe", "Café opened .", tmp_path / "cafe.mrg")
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        evaluate_mapping([doc], save_trees=tmp_path / "saved")
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
    assert (tmp_path / "saved" / "cafe.mrg").read_text(encoding="utf-8") == tree + "\n"


def test_gdtb_sentences_keep_each_tokens_offsets_in_the_text():
    from logicparse.gdtb import read_gdtb
    from logicparse.scorer import gdtb_sentences

    (doc,) = read_gdtb(GDTB, "test")
    sentences = gdtb_sentences(doc)
    assert [len(s.tokens) for s in sentences] == [11, 8, 7, 6, 6]
    assert [t for s in sentences for t in s.tokens] == doc.tokens
    for s in sentences:
        assert [doc.text[a:b] for a, b in zip(s.starts, s.ends)] == s.tokens


def test_the_gold_alphas_place_counts_sentences_back_from_the_keyword():
    from types import SimpleNamespace

    from logicparse.scorer import _place

    doc = SimpleNamespace(sentence_starts=[0, 5, 9, 14])  # sentences 0-4, 5-8, 9-13, 14-
    key = (15,)
    assert _place(doc, key, {14, 16}) == "same"
    assert _place(doc, key, {9, 13}) == "previous"
    assert _place(doc, key, {5, 6}) == "earlier"
    assert _place(doc, key, {0}) == "earlier"
    assert _place(doc, key, {8, 9}) == "across"
    assert _place(doc, (6,), {10}) == "later"
    assert _place(doc, (), {10}) == _place(doc, key, set()) == "none"
