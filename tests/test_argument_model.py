"""The learned α/β choice (``mapping="learned"``): the bundled model on sentences where it beats
the rules, how a chosen span becomes ranges, training deterministic under a seed, and a missing,
foreign or altered model refused with E542."""

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logicparse import annotate_trees
from logicparse.argument_candidates import CATEGORICAL, SAYING, contexts
from logicparse.argument_model import (ArgumentModel, bundled_model_dir, load_argument_model,
                                       to_ranges)
from logicparse.cli import _register, app
from logicparse.errors import LogicparseError

GDTB = Path(__file__).parent / "fixtures" / "mapping" / "gdtb"
WHEN = ("(S (NP-SBJ (PRP I)) (VP (VBP look) (PRT (RB forward)) (PP (IN to) (S-NOM (VP (VBG going) "
        "(PP (IN over) (NP (NN manuscript))) (PP (IN with) (NP (PRP you))) (SBAR (WHADVP (WRB when)) "
        "(S (NP-SBJ (PRP you)) (VP (VBP return)))))))) (. .))")
HEARINGS = ("(S (NP-SBJ (PRP We)) (VP (VP (VBD held) (NP (NNS hearings))) (, ,) (VP (VBD called) "
            "(NP (NNS witnesses))) (, ,) (CC and) (VP (VBD subpoenaed) (NP (NNS documents)))) (. .))")
JOKES = ("(S (NP-SBJ (NN Joke) (HYPH -) (NN telling)) (VP (VBZ is) (NP-PRD (NP (CD one)) (PP (IN of) "
         "(NP (NP (DT the) (JJS best) (NNS ways)) (SBAR (S (VP (TO to) (VP (VP (VB ease) (NP (NN "
         "tension))) (, ,) (VP (VB make) (NP (DT a) (JJ new) (NN friend))) (, ,) (CC or) (VP (VB "
         "light) (PRT (RP up)) (NP (DT a) (NN room))))))))))) (. .))")
BEFORE = ("(S (VP (VP (VB Go) (ADVP-TMP (RB ahead))) (CC and) (VP (VB fasten) (NP (DT both) "
          "(NNS straps)) (SBAR-ADV (IN before) (S (NP-SBJ (PRP you)) (VP (VBP wash)))))) (. .))")

_register()


def _words(doc, ranges):
    return " ".join(doc.tokens[t] for a, b in ranges for t in range(a, b))


def _relation(doc, keyword):
    return next(r for r in doc.relations if r.keyword == keyword)


@pytest.mark.parametrize("tree, keyword, rules_alpha, learned_alpha", [
    # The last coordinator of a list joins the conjunct before it, as GDTB's annotators read it;
    # the rules take every conjunct before it.
    (HEARINGS, "and", "We held hearings , called witnesses", "called witnesses"),
    (JOKES, "or", "ease tension , make a new friend", "make a new friend"),
])
def test_the_learned_alpha_is_the_span_a_reader_means(tree, keyword, rules_alpha, learned_alpha):
    rules = _relation(annotate_trees(tree), keyword)
    learned = _relation(annotate_trees(tree, mapping="learned"), keyword)
    assert _words(annotate_trees(tree), rules.alpha) == rules_alpha
    doc = annotate_trees(tree, mapping="learned")
    assert _words(doc, learned.alpha) == learned_alpha
    assert learned.beta == rules.beta and learned.key == rules.key


ALLIES = ("(S (NP (PRP We)) (VP (MD will) (VP (VB defend) (NP (NP (PRP$ our) (NNS allies)) (CC and) "
          "(NP (PRP$ our) (NNS interests))))) (. .))")


AS_WELL_AS = ("(S (NP (PRP We)) (VP (VBP defend) (NP (NP (PRP$ our) (NNS allies)) (CONJP (RB as) "
              "(RB well) (IN as)) (NP (PRP$ our) (NNS interests)))) (. .))")
UNLIKE = ("(S (NP (PRP He)) (VP (VBZ is) (UCP (ADJP (JJ tired)) (CC and) (NP (DT a) (NN bit) (JJ "
          "hungry)))) (. .))")


@pytest.mark.parametrize("tree, keyword, expected", [
    (ALLIES, "and", ("our allies", "our interests")),
    (AS_WELL_AS, "as well as", ("our allies", "our interests")),
    (UNLIKE, "and", ("tired", "a bit hungry")),
])
def test_a_coordinator_joining_phrases_keeps_the_rules_spans(tree, keyword, expected):
    # GDTB has no relation between phrases to learn from; the model alone widened α to the
    # clause (`We will defend our allies`, `He is tired`).
    learned = _relation(annotate_trees(tree, mapping="learned"), keyword)
    doc = annotate_trees(tree)
    assert (_words(doc, learned.alpha), _words(doc, learned.beta)) == expected


def test_unary_relations_and_labels_follow_the_choice():
    trees = HEARINGS + " (S (NP (PRP I)) (VP (VBP do) (RB not) (VP (VB know))) (. .))"
    doc, rules = annotate_trees(trees, mapping="learned"), annotate_trees(trees)
    assert _relation(doc, "not").alpha == _relation(rules, "not").alpha  # unary: the rules' span
    assert _relation(doc, "and").alpha == [[4, 6]]  # "called witnesses"
    assert rules.logic[0] and not doc.logic[0]  # "We": in the rules' α only, so its label goes


def test_a_chosen_set_becomes_ranges_with_inner_punctuation_put_back():
    tokens = ["We", "held", "hearings", ",", "called", "witnesses", ",", "and", "left", "."]
    punct = {i for i, t in enumerate(tokens) if t in ",."}
    assert to_ranges(frozenset({0, 1, 2, 4, 5}), punct) == [[0, 6]]
    assert to_ranges(frozenset({0, 1, 8}), punct) == [[0, 2], [8, 9]]  # a word gap stays
    assert to_ranges(frozenset(), punct) == []


class _Prefers:
    """A booster stand-in that scores the ``index``-th row (candidate) above all others."""

    def __init__(self, index):
        self.index = index

    def predict(self, rows, num_threads=0):
        import numpy as np

        return np.array([1.0 if i == self.index else 0.1 for i in range(len(rows))])


def test_choose_takes_the_best_scored_candidate_of_each_relation():
    from logicparse.trees import read_tree

    doc = annotate_trees(WHEN)
    found = contexts([read_tree(WHEN)], doc.sentence_starts, doc.tokens, doc.relations)
    (rel, ctx), = found
    alphas, betas = ctx.candidates["alpha"], ctx.candidates["beta"]
    i, j = next((i, j) for i, a in enumerate(alphas) for j, b in enumerate(betas)
                if a[0] != ctx.rules["alpha"] and b[0] != ctx.rules["beta"] and not a[0] & b[0])
    model = ArgumentModel({"alpha": _Prefers(i), "beta": _Prefers(j)}, {}, {})
    model.code = lambda name, value: 0
    model.choose(found)
    assert rel.alpha == to_ranges(alphas[i][0], ctx.punct)
    assert rel.beta == to_ranges(betas[j][0], ctx.punct)
    # A preferred β that shares α's tokens gives way to the disjoint pair of the highest product
    # of scores, the first in candidate order (α, then β) where several tie.
    j = next(k for k, c in enumerate(betas) if c[0] & alphas[i][0])
    model.boosters["beta"] = _Prefers(j)
    model.choose(found)
    pa, pb = _Prefers(i).predict(alphas), _Prefers(j).predict(betas)
    pairs = [(a, b) for a in range(len(alphas)) for b in range(len(betas))
             if not alphas[a][0] & betas[b][0]]
    a, b = max(pairs, key=lambda ab: (pa[ab[0]] * pb[ab[1]], -ab[0], -ab[1]))
    assert (rel.alpha, rel.beta) == (to_ranges(alphas[a][0], ctx.punct),
                                     to_ranges(betas[b][0], ctx.punct))


def test_alpha_and_beta_share_no_token():
    import numpy as np

    from logicparse.argument_model import disjoint_pair

    alphas = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1]], dtype=bool)
    betas = np.array([[0, 1, 1, 0], [0, 0, 1, 1], [0, 0, 1, 0]], dtype=bool)
    # The best of each are disjoint: kept.
    assert disjoint_pair(alphas, betas, [0.9, 0.5, 0.1], [0.2, 0.3, 0.8]) == (0, 2)
    # The best of each share token 1: the disjoint pair of the highest product, here another α
    # (0.8 · 0.9 over 0.9 · 0.1).
    assert disjoint_pair(alphas, betas, [0.9, 0.8, 0.1], [0.9, 0.1, 0.1]) == (1, 0)
    # No disjoint pair: the best of each.
    assert disjoint_pair(alphas[:1], betas[:1], [0.9], [0.7]) == (0, 0)


def _train(out, seed=0):
    r = CliRunner().invoke(app, ["mapping", "train", "--gdtb", str(GDTB), "--split", "dev",
                                 "--out", str(out), "--seed", str(seed)])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_training_sees_the_coordinators_joining_phrases(monkeypatch):
    """The choice leaves them to the rules, but their examples help the model on the rest."""
    import logicparse.argument_training as training
    from logicparse.gdtb import read_gdtb

    calls = []
    real = training.contexts
    monkeypatch.setattr(training, "contexts",
                        lambda *a, **k: calls.append(k.get("phrases")) or real(*a, **k))
    training.gdtb_examples(read_gdtb(GDTB, "dev"))
    assert calls and all(calls)


def test_training_is_deterministic_and_its_model_loads(tmp_path):
    """The same data and seed give the same files, byte for byte, and a model that scores."""
    import numpy as np

    from logicparse.argument_training import gdtb_examples
    from logicparse.gdtb import read_gdtb

    a, b = _train(tmp_path / "a"), _train(tmp_path / "b")
    assert a["relations"] == b["relations"] == 3 and a["files"] == b["files"]
    ma, mb = load_argument_model(str(tmp_path / "a")), load_argument_model(str(tmp_path / "b"))
    assert ma.codes == mb.codes and ma.codes["keyword"] == {"but": 0, "because": 1, "and": 2}
    examples = gdtb_examples(read_gdtb(GDTB, "dev"))
    for role in ("alpha", "beta"):
        rows = np.vstack([ctx.feature_rows(role, ma.code) for ctx, _ in examples])
        assert len(rows) > 3
        p = ma.boosters[role].predict(rows)
        assert (p == mb.boosters[role].predict(rows)).all() and ((p > 0) & (p < 1)).all()


def test_a_missing_foreign_or_altered_model_is_refused(tmp_path):
    with pytest.raises(LogicparseError, match=r"^\[E542\] Argument model .*nowhere.*mapping train"):
        load_argument_model(str(tmp_path / "nowhere"))
    copy = tmp_path / "copy"
    shutil.copytree(bundled_model_dir(), copy)
    meta = json.loads((copy / "meta.json").read_text())
    (copy / "meta.json").write_text(json.dumps(dict(meta, format="someone-else/2")))
    with pytest.raises(LogicparseError, match=r"E542.*someone-else/2"):
        load_argument_model(str(copy))
    (copy / "meta.json").write_text(json.dumps(meta))
    with (copy / "alpha.txt").open("ab") as f:
        f.write(b"\0")
    with pytest.raises(LogicparseError, match=r"E542.*sha256"):
        load_argument_model(str(copy))


def test_an_oversized_or_foreign_booster_file_is_refused(tmp_path, monkeypatch):
    import hashlib

    import logicparse.argument_model as am

    copy = tmp_path / "copy"
    shutil.copytree(bundled_model_dir(), copy)
    monkeypatch.setattr(am, "MAX_MODEL_BYTES", 1000)
    with pytest.raises(LogicparseError, match=r"E542.*alpha.txt has [0-9,]+ bytes, over 1,000"):
        load_argument_model(str(copy))
    monkeypatch.undo()
    meta = json.loads((copy / "meta.json").read_text())
    (copy / "alpha.txt").write_text("tree\nnot a booster at all\n")
    meta["files"]["alpha"]["sha256"] = hashlib.sha256((copy / "alpha.txt").read_bytes()).hexdigest()
    (copy / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(LogicparseError, match=r"E542.*alpha.txt is not a LightGBM model"):
        load_argument_model(str(copy))


@pytest.mark.parametrize("bound, value", [("MAX_TOKENS", 12), ("MAX_RELATIONS", 0),
                                          ("MAX_CANDIDATES", 10)])
def test_sentences_beyond_the_bounds_keep_the_default_spans(monkeypatch, bound, value):
    """Candidates grow with a sentence's length and keywords: beyond each bound (the WHEN
    sentence has 13 tokens, one binary relation, more than 10 candidates) the default's spans
    stand, so that no sentence can hold a run (300 keywords once took 53 s)."""
    import logicparse.argument_candidates as candidates

    monkeypatch.setattr(candidates, bound, value)
    when = _relation(annotate_trees(WHEN, mapping="learned"), "when")
    assert _words(annotate_trees(WHEN), when.alpha) == "to going over manuscript with you"


def test_a_sentence_of_300_keywords_keeps_the_default_spans():
    flat = "(S " + " ".join(f"(CC and) (NN x{i})" for i in range(300)) + " (. .))"
    doc, rules = annotate_trees(flat, mapping="learned"), annotate_trees(flat)
    assert len(doc.relations) == 300
    assert [r.to_dict() for r in doc.relations] == [r.to_dict() for r in rules.relations]


def test_training_on_documents_without_relations_is_refused(tmp_path, monkeypatch):
    import logicparse.argument_training as training

    monkeypatch.setattr(training, "gdtb_examples", lambda *a: [])
    r = CliRunner().invoke(app, ["mapping", "train", "--gdtb", str(GDTB), "--split", "dev",
                                 "--out", str(tmp_path / "m")])
    assert r.exit_code != 0 and "E532" in r.output and "no relation the annotator maps" in r.output
    assert not (tmp_path / "m").exists()


def test_an_annotator_with_a_broken_model_fails_when_built_not_mid_run(monkeypatch, tmp_path):
    import logicparse.argument_model as am
    from logicparse import Annotator

    monkeypatch.setattr(am, "bundled_model_dir", lambda: tmp_path / "gone")
    am.load_argument_model.cache_clear()
    try:
        with pytest.raises(LogicparseError, match=r"^\[E542\].*gone"):
            Annotator(senses=None, mapping="learned")
    finally:
        am.load_argument_model.cache_clear()


def _jac(a, b):
    return len(a & b) / len(a | b) if a or b else 1.0


def _reference_features(self, role: str, cand, code) -> list:
    """The features of one candidate, written set by set as the model was first trained on."""
    toks, op, level, label = cand
    rule, paper = self.rules[role], self.paper[role]
    off, n, (ks, ke) = self.off, len(self.tree.leaves), self.key
    lo, hi, size = min(toks), max(toks), len(toks)
    tags, words, rel = self.tags, self.words, self.rel
    name = rel.relation
    cats = (op, label, rel.keyword.lower(), name, rel.category, *self.labels,
            op.split("+")[-1] if "+" in op else "-", f"{name}:{op.split('+')[0].split('-')[0]}",
            tags.get(lo, "NONE"), tags.get(hi, "NONE"), tags.get(lo - 1, "NONE"),
            tags.get(hi + 1, "NONE"))
    return [*(code(k, v) for k, v in zip(CATEGORICAL, cats)),
            level, int(toks == rule), int(toks == paper), _jac(toks, rule),
            _jac(toks, paper), size, size / max(1, n), sum(x < ks for x in toks) / size,
            sum(x >= ke for x in toks) / size, sum(x < off for x in toks) / size,
            sum(1 for x in toks if x + 1 not in toks and x != hi),
            ks - hi if hi < ks else -1, lo - ke if lo >= ke else -1, int(self.initial), n,
            self.previous_length, len(toks & rule) / max(1, len(rule)), len(toks & rule) / size,
            int(lo >= off and hi < off + n), sum(words.get(x) in SAYING for x in toks),
            sum(tags.get(x, "").startswith("VB") for x in toks),
            sum(tags.get(x) in ("VBD", "VBZ", "VBP", "MD") for x in toks),
            len(toks - rule), len(rule - toks), int(words.get(off - 1) == "?"),
            int(toks < rule), int(toks > rule)]


def test_the_features_counted_over_a_window_equal_the_set_by_set_reference():
    """Every candidate's row, on GDTB fixture documents (three sentences of context, α in the
    sentences before, punctuation) and the sentences above, is the reference's to the last bit, so
    the bundled model scores what it was trained on; and category codes are given in the same
    order of first sight."""
    import numpy as np

    from logicparse.argument_training import _Codes, gdtb_examples
    from logicparse.gdtb import read_gdtb
    from logicparse.trees import read_tree

    examples = [ctx for ctx, _ in gdtb_examples(read_gdtb(GDTB, "dev"))]
    for text in (WHEN, BEFORE):
        doc = annotate_trees([text])
        examples += [ctx for _, ctx in contexts([read_tree(text)], [0], doc.tokens, doc.relations)]
    model, seen = load_argument_model(), 0
    for ctx in examples:
        for role in ("alpha", "beta"):
            cands = ctx.candidates[role]
            want = np.array([_reference_features(ctx, role, c, model.code) for c in cands],
                            dtype=float).reshape(len(cands), -1)
            got = ctx.feature_rows(role, model.code)
            assert got.shape == want.shape and (got == want).all(), (role, cands)
            a, b = _Codes(), _Codes()
            ctx.feature_rows(role, a)
            for c in cands:
                _reference_features(ctx, role, c, b)
            assert a.codes == b.codes
            seen += len(cands)
    assert seen > 80
