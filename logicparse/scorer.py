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

The same figures are given per relation, per mapping category (unary, intrinsic, extrinsic) and
per keyword position: ``initial`` when only punctuation precedes the keyword in its sentence,
``medial`` otherwise (``none`` for a connective whose character span covers no token), and per
place of the gold α against the keyword's sentence: ``same``, ``previous``, ``earlier`` (two or
more sentences back), ``later``, ``across`` (over several sentences), ``none`` (no gold α or no
connective tokens). Three slices tell where the errors lie: ``per_alpha_choice``, the gold α's
place and the mapped α's (``earlier/previous``: GDTB's α lies two or more sentences back, the
mapping took the sentence before); ``per_beta_place``, the gold β's place (binary relations only;
``across`` is an Arg2 running on past the keyword's sentence); ``per_keyword_parent``, the
category and the label of the constituent the keyword attaches to (pa(n), function tags left out:
``intrinsic VP`` is a coordinator joining predicates, ``extrinsic SBAR`` a subordinator heading
its clause; ``none`` where the keyword has no parent or no tokens).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Optional, Sequence

from .annotator import Sentence, build_documents
from .constituents import base_label, is_punct
from .errors import DataFormatError, Errors
from .gdtb import GdtbDocument
from .mapping import DEFAULT_MAPPING, keyword_node
from .taxonomy import UNARY_RELATIONS, category, keywords
from .trees import read_tree, strip_wrappers


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


def gdtb_sentences(doc: GdtbDocument, parser=None, trees: Optional[Sequence[str]] = None
                   ) -> list[Sentence]:
    """The document's sentences with the gold trees of ``const/``, the given bracketed ``trees``
    (one per gold sentence, over the same tokens), or the given parser's trees over the same
    tokens and sentence boundaries."""
    gold = [read_tree(t) for t in doc.trees]
    token_lists, pos = [], 0
    for tree in gold:
        token_lists.append(doc.tokens[pos:pos + len(tree.leaves)])
        pos += len(tree.leaves)
    if trees is not None:
        trees = [read_tree(t) for t in trees]
        if [len(t.leaves) for t in trees] != [len(toks) for toks in token_lists]:
            raise DataFormatError(Errors.E033.format(name=doc.name))
    else:
        trees = parser.parse(token_lists) if parser is not None else gold
    sentences, pos = [], 0
    for toks, tree in zip(token_lists, trees):
        starts = doc.token_starts[pos:pos + len(toks)]
        sentences.append(Sentence(toks, starts, [a + len(t) for a, t in zip(starts, toks)],
                                  strip_wrappers(tree), tree.to_string()))
        pos += len(toks)
    return sentences


class _Group:
    """Scores of one slice of the relations (all, one relation, one category, one position)."""

    def __init__(self) -> None:
        self.alpha, self.beta = _PRF(), _PRF()
        self.n = self.exact = 0

    def add(self, pairs: dict, hit: bool) -> None:
        for role, (pred, gold) in pairs.items():
            getattr(self, role).add(pred, gold)
        self.n += 1
        self.exact += hit

    def scores(self) -> dict:
        return {"n": self.n, "exact": round(self.exact / self.n, 4) if self.n else 0.0,
                "alpha_f1": self.alpha.scores()["f1"],
                "beta_f1": self.beta.scores()["f1"] if self.beta.gold or self.beta.pred else None}


def _text(tokens: Sequence[str], idx: set[int]) -> str:
    """Tokens of ``idx`` in order, ``…`` marking each gap."""
    out, last = [], None
    for i in sorted(idx):
        if last is not None and i != last + 1:
            out.append("…")
        out.append(tokens[i])
        last = i
    return " ".join(out)


def evaluate_mapping(docs: Iterable[GdtbDocument], parser=None, progress=None,
                     mapping: str = DEFAULT_MAPPING, trees=None, errors: Optional[list] = None,
                     save_trees=None, arguments=None) -> dict:
    """Mapping scores over the Explicit relations of ``docs`` (see the module docstring).

    ``trees``: None for the gold trees (or ``parser``'s), else a function from a document to its
    bracketed trees. ``errors``: a list that receives one dict per relation not matched exactly.
    ``save_trees``: a directory to write each document's trees to (``DOC.mrg``, one per line).
    ``arguments``: for ``mapping="learned"``, a function from a document to the ArgumentModel
    that maps it (the bundled model by default).
    """
    kw = keywords()
    total = _Group()
    groups: dict[str, dict[str, _Group]] = {
        "per_relation": defaultdict(_Group), "per_category": defaultdict(_Group),
        "per_position": defaultdict(_Group), "per_alpha_place": defaultdict(_Group),
        "per_alpha_choice": defaultdict(_Group), "per_beta_place": defaultdict(_Group),
        "per_keyword_parent": defaultdict(_Group)}
    for doc in docs:
        sentences = gdtb_sentences(doc, parser, trees(doc) if trees is not None else None)
        if save_trees is not None:
            save_trees = Path(save_trees)
            save_trees.mkdir(parents=True, exist_ok=True)
            (save_trees / f"{doc.name}.mrg").write_text(
                "".join(s.tree.to_string() + "\n" for s in sentences), encoding="utf-8")
        mapped = build_documents([(doc.name, doc.text, sentences)], senses=None, mapping=mapping,
                                 arguments=arguments(doc) if arguments is not None else None)[0]
        punct = {i for i, t in enumerate(mapped.tokens) if is_punct(t)}
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
            alpha = (_tokens(found.alpha) if found else set()) - punct
            if name in UNARY_RELATIONS:
                pairs = {"alpha": (alpha, arg2)}
            else:
                beta = (_tokens(found.beta) if found else set()) - punct
                pairs = {"alpha": (alpha, arg1), "beta": (beta, arg2)}
            hit = all(pred == gold for pred, gold in pairs.values())
            cat = found.category if found else category(conn, name)
            position = _position(mapped, key, punct)
            total.add(pairs, hit)
            gold_place = _place(mapped, key, pairs["alpha"][1])
            slots = [("per_relation", name), ("per_category", cat), ("per_position", position),
                     ("per_alpha_place", gold_place),
                     ("per_alpha_choice", f"{gold_place}/{_place(mapped, key, pairs['alpha'][0])}"),
                     ("per_keyword_parent", f"{cat} {_parent_label(sentences, mapped, key)}")]
            if "beta" in pairs:
                slots.append(("per_beta_place", _place(mapped, key, pairs["beta"][1])))
            for group, slot in slots:
                groups[group][slot].add(pairs, hit)
            if errors is not None and not hit:
                errors.append(_miss(doc, mapped, key, name, cat, position, pairs, found))
        if progress is not None:
            progress(doc.name)
    result = {
        "alpha_f1": total.alpha.scores()["f1"],
        "beta_f1": total.beta.scores()["f1"],
        "exact": total.scores()["exact"],
        "n": total.n,
        "alpha": total.alpha.scores(),
        "beta": total.beta.scores(),
        "mapping": mapping,
    }
    for group, slots in groups.items():
        result[group] = {slot: g.scores() for slot, g in sorted(slots.items())}
    return result


def _position(doc, key: tuple[int, ...], punct: set[int]) -> str:
    """``initial`` when only punctuation precedes the keyword in its sentence, else ``medial``
    (``none`` for a connective whose tokens were not found)."""
    if not key:
        return "none"
    first = doc.sentence_starts[bisect.bisect_right(doc.sentence_starts, key[0]) - 1]
    return "initial" if all(t in punct for t in range(first, key[0])) else "medial"


def _place(doc, key: tuple[int, ...], tokens: set[int]) -> str:
    """Where ``tokens`` (a gold or mapped argument) lie against the keyword's sentence (see the
    module docstring)."""
    if not key or not tokens:
        return "none"
    starts = doc.sentence_starts
    places = {bisect.bisect_right(starts, key[0]) - bisect.bisect_right(starts, t)
              for t in tokens}
    if len(places) > 1:
        return "across"
    back = places.pop()
    return {0: "same", 1: "previous"}.get(back, "earlier" if back > 1 else "later")


def _parent_label(sentences: Sequence[Sentence], doc, key: tuple[int, ...]) -> str:
    """The label of the constituent the keyword attaches to, pa(n), without function tags."""
    if not key:
        return "none"
    s = bisect.bisect_right(doc.sentence_starts, key[0]) - 1
    first, tree = doc.sentence_starts[s], sentences[s].tree
    # A connective of several pieces is taken within its first token's sentence.
    _, pa, _ = keyword_node(tree, key[0] - first, min(key[-1] + 1 - first, len(tree.leaves)))
    return base_label(tree.labels[pa]) if pa >= 0 else "none"


def _miss(doc: GdtbDocument, mapped, key, relation, cat, position, pairs, found) -> dict:
    toks = mapped.tokens
    s, text, tree = -1, "", ""  # a connective over no token has no sentence
    if key:
        s = bisect.bisect_right(mapped.sentence_starts, key[0]) - 1
        end = (mapped.sentence_starts + [len(toks)])[s + 1]
        text, tree = _text(toks, set(range(mapped.sentence_starts[s], end))), mapped.parse[s]
    gold_arg = {"alpha": "Arg1" if "beta" in pairs else "Arg2", "beta": "Arg2"}
    out = {"doc": doc.name, "sentence": s, "keyword": _text(toks, set(key)), "relation": relation,
           "category": cat, "position": position, "detected": found is not None, "text": text,
           "tree": tree}
    for role, (pred, gold) in pairs.items():
        out[role] = {"predicted": _text(toks, pred), "gold": _text(toks, gold),
                     "gold_argument": gold_arg[role], "missing": _text(toks, gold - pred),
                     "extra": _text(toks, pred - gold)}
    return out
