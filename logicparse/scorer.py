"""Evaluation of α/β mapping against GDTB gold arguments.

For every Explicit GDTB relation whose connective is a taxonomy keyword, the relation logicparse
maps on that keyword is compared with the gold arguments: α with Arg1 and β with Arg2. A unary
relation (negation, example) has only α, the span the keyword attaches to, which PDTB annotates as
Arg2 (``for example [Arg2]``): its α is compared with Arg2. Token sets ignore punctuation tokens,
since PDTB arguments usually leave out the final period that a constituent includes (the EVALB
convention for the same reason). Precision, recall and F1 are micro-averaged over tokens; ``exact``
is the share of relations whose mapped spans equal the gold arguments.

A connective that logicparse does not detect as that keyword (a longer phrase took it) counts as
an empty prediction, so recall reflects it.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from typing import Iterable, Optional

from .annotator import Sentence, build_documents
from .gdtb import GdtbDocument
from .taxonomy import UNARY_RELATIONS, keywords
from .trees import read_tree, strip_wrappers


def _is_punct(tok: str) -> bool:
    return all(unicodedata.category(c).startswith("P") or c in "`'" for c in tok)


class _PRF:
    def __init__(self) -> None:
        self.tp = self.pred = self.gold = 0

    def add(self, pred: set[int], gold: set[int]) -> None:
        self.tp += len(pred & gold)
        self.pred += len(pred)
        self.gold += len(gold)

    def scores(self) -> dict:
        p = self.tp / self.pred if self.pred else 0.0
        r = self.tp / self.gold if self.gold else 0.0
        f = 2 * p * r / (p + r) if p + r else 0.0
        return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def _tokens(ranges) -> set[int]:
    return {t for a, b in ranges for t in range(a, b)}


def gdtb_sentences(doc: GdtbDocument, parser=None) -> list[Sentence]:
    """The document's sentences with the gold trees of ``const/``, or the given parser's trees
    over the same tokens and sentence boundaries."""
    gold = [read_tree(t) for t in doc.trees]
    token_lists, pos = [], 0
    for tree in gold:
        token_lists.append(doc.tokens[pos:pos + len(tree.leaves)])
        pos += len(tree.leaves)
    trees = parser.parse(token_lists) if parser is not None else gold
    sentences, pos = [], 0
    for toks, tree in zip(token_lists, trees):
        starts = doc.token_starts[pos:pos + len(toks)]
        sentences.append(Sentence(toks, starts, [a + len(t) for a, t in zip(starts, toks)],
                                  strip_wrappers(tree), tree.to_string()))
        pos += len(toks)
    return sentences


def evaluate_mapping(docs: Iterable[GdtbDocument], parser=None, progress=None) -> dict:
    """Mapping scores over the Explicit relations of ``docs`` (see the module docstring)."""
    kw = keywords()
    totals = {"alpha": _PRF(), "beta": _PRF()}
    per_rel: dict[str, dict] = defaultdict(lambda: {"alpha": _PRF(), "beta": _PRF(), "n": 0, "exact": 0})
    n = exact = 0
    for doc in docs:
        sentences = gdtb_sentences(doc, parser)
        mapped = build_documents([(doc.name, doc.text, sentences)], senses=None)[0]
        punct = {i for i, t in enumerate(mapped.tokens) if _is_punct(t)}
        by_key = {tuple(sorted(_tokens(r.key))): r for r in mapped.relations}
        for rel in doc.explicit:
            conn = rel.connective.lower()
            if conn not in kw:
                continue
            key = tuple(sorted(doc.tokens_in(rel.connective_spans)))
            found = by_key.get(key)
            arg1 = doc.tokens_in(rel.arg1) - punct
            arg2 = doc.tokens_in(rel.arg2) - punct
            name = found.relation if found else kw[conn].senses[0]
            if name in UNARY_RELATIONS:
                pairs = {"alpha": ((_tokens(found.alpha) if found else set()) - punct, arg2)}
            else:
                pairs = {"alpha": ((_tokens(found.alpha) if found else set()) - punct, arg1),
                         "beta": ((_tokens(found.beta) if found else set()) - punct, arg2)}
            stats = per_rel[name]
            for role, (pred, gold) in pairs.items():
                totals[role].add(pred, gold)
                stats[role].add(pred, gold)
            hit = all(pred == gold for pred, gold in pairs.values())
            n += 1
            exact += hit
            stats["n"] += 1
            stats["exact"] += hit
        if progress is not None:
            progress(doc.name)
    return {
        "alpha_f1": totals["alpha"].scores()["f1"],
        "beta_f1": totals["beta"].scores()["f1"],
        "exact": round(exact / n, 4) if n else 0.0,
        "n": n,
        "alpha": totals["alpha"].scores(),
        "beta": totals["beta"].scores(),
        "per_relation": {
            name: {"n": s["n"], "exact": round(s["exact"] / s["n"], 4) if s["n"] else 0.0,
                   "alpha_f1": s["alpha"].scores()["f1"],
                   "beta_f1": s["beta"].scores()["f1"] if s["beta"].gold or s["beta"].pred else None}
            for name, s in sorted(per_rel.items())
        },
    }
