"""The learned choice's candidates (``argument_candidates.Context``): held as rows of token masks
for speed, they must be, in order, the token sets the model was trained on. The reference below is
the first, set-by-set way of drawing them (with what changed since: no candidate of the keyword's
tokens only; of the sentences before, only each whole one; the word before added to four kinds
only, and never the leading word removed); and documents scored together get what each gets
alone."""

from pathlib import Path

from logicparse.annotator import _tree_sentences, build_documents
from logicparse.argument_candidates import contexts
from logicparse.constituents import CLAUSES, base_label, children, is_punct
from logicparse.gdtb import read_gdtb
from logicparse.scorer import gdtb_sentences

GDTB = Path(__file__).parent / "fixtures" / "mapping" / "gdtb"
# 40 consecutive trees of GUM dev (CC BY 4.0; the silver trees of the project's treebank data).
GUM = Path(__file__).parent / "fixtures" / "mapping" / "gum_dev_40.mrg"
LONG = ("(S (S (NP (PRP We)) (VP (VBD met) (SBAR (IN because) (S (NP (PRP they)) (VP (VBD asked) "
        "(PP (IN for) (NP (NN advice)))))))) (, ,) (CC but) (S (ADVP (RB then)) (NP (PRP they)) "
        "(VP (VBD left) (SBAR (IN before) (S (NP (PRP we)) (VP (VBD spoke) (CC or) (VBD ate)))))) "
        "(. .))")
# A time adjunct deep inside a VP: candidates at every level above it.
WHEN = ("(S (NP-SBJ (PRP I)) (VP (VBP look) (PRT (RB forward)) (PP (IN to) (S-NOM (VP (VBG going) "
        "(PP (IN over) (NP (NN manuscript))) (PP (IN with) (NP (PRP you))) (SBAR (WHADVP (WRB when)) "
        "(S (NP-SBJ (PRP you)) (VP (VBP return)))))))) (. .))")
PREVIOUS = "(S (NP (PRP It)) (VP (VBD rained) (PP (IN in) (NP (NNP London)))) (. .))"


def _tag(tree, i):
    return base_label(tree.labels[tree.leaf_parents[i]]) if 0 <= i < len(tree.leaves) else "NONE"


def _span(tree, node):
    return set(range(tree.starts[node], tree.ends[node]))


def _in_sentence(tree, start, end, pa):
    key, alpha, beta, node, level = set(range(start, end)), [], [], pa if pa >= 0 else 0, 0
    while node >= 0:
        s, e, label = tree.starts[node], tree.ends[node], base_label(tree.labels[node])
        kids = children(tree, node)
        branch = next((c for c in kids if tree.starts[c] <= start and tree.ends[c] >= end), None)
        whole = set(range(s, e))
        beta += [(whole - key, "key", level, label), (set(range(end, e)), "after", level, label)]
        alpha.append((set(range(s, start)), "before", level, label))
        if branch is not None:
            own = _span(tree, branch)
            alpha += [(whole - own, "minusbranch", level, label),
                      (set(range(s, tree.starts[branch])), "beforebranch", level, label),
                      (set(range(tree.ends[branch], e)), "afterbranch", level, label)]
            beta.append((own - key, "branch", level, base_label(tree.labels[branch])))
        for c in kids:
            if c == branch:
                continue
            own, cl = _span(tree, c), base_label(tree.labels[c])
            alpha.append((own, "child", level, cl))
            if tree.starts[c] >= end:
                beta.append((set(range(end, tree.ends[c])), "tochild", level, cl))
            if cl in CLAUSES or cl == "VP":
                for g in children(tree, c):
                    alpha.append((own - _span(tree, g), "childminus", level,
                                  base_label(tree.labels[g])))
        node, level = tree.parents[node], level + 1
    return alpha, beta


def _before(tree, back):
    return [(set(range(len(tree.leaves))), "prevall", back, base_label(tree.labels[0]))]


def _variants(cands, tree):
    out = []
    for toks, op, level, label in cands:
        if toks and op in ("before", "child", "minusbranch", "key"):
            lo = min(toks)
            if lo > 0 and _tag(tree, lo - 1) in ("CC", "IN"):
                out.append((toks | {lo - 1}, op + "+prevword", level, label))
    return out


def _lift(cands, offset, punct):
    return [(frozenset(t + offset for t in toks if t + offset not in punct), op, lvl, lab)
            for toks, op, lvl, lab in cands]


def _reference(trees, starts, punct, sentence, ctx):
    """Each role's candidates, drawn set by set as the bundled model was first trained on."""
    from logicparse.mapping import keyword_node

    tree, off = trees[sentence], starts[sentence]
    ks, ke = ctx.key[0] - off, ctx.key[1] - off
    alpha, beta = _in_sentence(tree, ks, ke, keyword_node(tree, ks, ke)[1])
    alpha, beta = alpha + _variants(alpha, tree), beta + _variants(beta, tree)
    before = []
    for back in (1, 2):
        if sentence - back >= 0:
            before += _lift(_before(trees[sentence - back], back), starts[sentence - back], punct)
    out, key = {}, {t for a, b in ctx.rel.key for t in range(a, b)}
    lifted = {"alpha": _lift(alpha, off, punct) + before, "beta": _lift(beta, off, punct)}
    for role, cands in lifted.items():
        seen: dict = {}
        ends = [(ctx.rules[role], "rule", -1, "RULE"), (ctx.paper[role], "paper", -1, "PAPER")]
        for c in cands + ends:
            if c[0] - key and c[0] not in seen:
                seen[c[0]] = c
        out[role] = list(seen.values())
    return out


def _documents():
    for doc in read_gdtb(GDTB, "dev"):
        yield doc.name, gdtb_sentences(doc)
    yield "gum", _tree_sentences(GUM.read_text(encoding="utf-8"))
    yield "long", _tree_sentences([PREVIOUS, PREVIOUS, LONG])
    yield "when", _tree_sentences([PREVIOUS, WHEN])


def test_the_candidates_are_the_set_by_set_references_in_order():
    seen = 0
    for name, sentences in _documents():
        doc = build_documents([(name, "", sentences)], senses=None)[0]
        trees = [s.tree for s in sentences]
        punct = {i for i, t in enumerate(doc.tokens) if is_punct(t)}
        for rel, ctx in contexts(trees, doc.sentence_starts, doc.tokens, doc.relations,
                                 phrases=True):
            want = _reference(trees, doc.sentence_starts, punct, rel.sentence, ctx)
            assert ctx.candidates == want, (name, rel.keyword)
            seen += len(want["alpha"]) + len(want["beta"])
    assert seen > 1000


def test_documents_scored_together_get_what_each_gets_alone():
    docs = [(name, "", sentences) for name, sentences in _documents()]
    together = build_documents(docs, mapping="learned")
    alone = [build_documents([d], mapping="learned")[0] for d in docs]
    assert [d.to_dict() for d in together] == [d.to_dict() for d in alone]
    rules = build_documents(docs)
    assert [d.to_dict() for d in together] != [d.to_dict() for d in rules]  # the choice acted


def test_the_features_of_many_contexts_at_once_are_each_contexts_own():
    """The choice counts the Contexts of a sentence together, both roles at once: the rows, and
    the order in which categories are first coded, are those of each Context and role alone (a
    padded window included)."""
    import numpy as np

    from logicparse.argument_candidates import feature_matrices, feature_matrix
    from logicparse.argument_training import _Codes

    found = []
    far = [("far", _tree_sentences([PREVIOUS] * 3 + [WHEN]))]
    for name, sentences in list(_documents()) + far:
        doc = build_documents([(name, "", sentences)], senses=None)[0]
        if name == "far":
            next(r for r in doc.relations if r.keyword == "when").alpha = [[0, 2]]
        found += [c for _, c in contexts([s.tree for s in sentences], doc.sentence_starts,
                                         doc.tokens, doc.relations, phrases=True)]
    assert len({id(c.pos) for c in found}) < len(found) - 20  # many share their sentence's window
    both = feature_matrices(found, lambda name, value: hash((name, value)) % 1000)
    for role in ("alpha", "beta"):
        together, alone = _Codes(), _Codes()
        got = feature_matrix(found, role, together)
        want = np.vstack([feature_matrix([c], role, alone) for c in found])
        assert got.shape == want.shape and (got == want).all() and together.codes == alone.codes
        # both roles counted in one pass: each role's rows, with the codes of a fixed lookup
        want = feature_matrix(found, role, lambda name, value: hash((name, value)) % 1000)
        assert both[role].shape == want.shape and (both[role] == want).all()


def test_a_rules_span_beyond_the_three_sentences_is_still_a_candidate():
    """The candidates' window covers the keyword's sentence and the two before it; a rules' span
    reaching further (none does on GDTB) widens it instead of being cut."""
    sentences = _tree_sentences([PREVIOUS, PREVIOUS, PREVIOUS, WHEN])
    doc = build_documents([("far", "", sentences)], senses=None)[0]
    trees = [s.tree for s in sentences]
    punct = {i for i, t in enumerate(doc.tokens) if is_punct(t)}
    (rel,) = [r for r in doc.relations if r.keyword == "when"]
    rel.alpha = [[0, 2]]  # "It rained", three sentences back
    (ctx,) = [c for r, c in contexts(trees, doc.sentence_starts, doc.tokens, [rel])]
    assert (frozenset({0, 1}), "rule", -1, "RULE") in ctx.candidates["alpha"]
    assert ctx.candidates == _reference(trees, doc.sentence_starts, punct, rel.sentence, ctx)
    assert ctx.feature_rows("alpha", lambda name, value: 0)[:, -27 + 1].max() == 1  # one is the rule


def test_a_keyword_is_never_its_own_argument():
    """`But .` alone: the coordinator before the full stop was a candidate β (the full stop
    with the word before it); no candidate made of the keyword's tokens only is kept."""
    from logicparse import annotate_trees

    for trees in ("(S (CC But) (. .))", PREVIOUS + " (S (CC But) (. .))"):
        learned, rules = annotate_trees(trees, mapping="learned"), annotate_trees(trees)
        rel = next(r for r in learned.relations if r.keyword == "But")
        assert rel.beta == next(r for r in rules.relations if r.keyword == "But").beta == []
        assert all(rel.key[0] != span for span in rel.alpha)


def test_a_coordinator_joining_phrases_has_a_context_for_training_only():
    from logicparse.trees import read_tree

    tree = ("(S (NP (PRP We)) (VP (VB defend) (NP (NP (PRP$ our) (NNS allies)) (CC and) (NP "
            "(PRP$ our) (NNS interests)))) (. .))")
    doc = build_documents([("allies", "", _tree_sentences([tree]))], senses=None)[0]
    args = ([read_tree(tree)], doc.sentence_starts, doc.tokens, doc.relations)
    assert [r.keyword for r, _ in contexts(*args, phrases=True)] == ["and"]
    assert contexts(*args) == []
