"""Scoring keyword decisions against hand labels (``logicparse keywords eval``).

Every labelled occurrence is decided exactly as the Annotator decides it (the same queries, with
the sentence's tree, through the same :class:`~logicparse.senses.SenseModel`), and compared with
its gold label, a relation or ``none``:

* accuracy: the decision equals the gold label (``none`` included);
* precision: of the relations emitted (decisions that are not ``none``), the share that are the
  gold relation: how many of the relations in an annotated corpus are right;
* recall: of the gold relations (labels that are not ``none``), the share emitted as that
  relation.

A rate whose denominator is zero (a keyword with nothing emitted) is ``None``.

The lexicon baseline (every keyword always its first relation, the paper's literal behaviour and
``senses=None``) is scored beside it on the same occurrences.
"""

from __future__ import annotations

import collections
from typing import Optional, Sequence

from ..taxonomy import keywords as taxonomy_keywords
from ..trees import ParseTree, read_tree
from .data import NONE, Annotation, token_span
from .model import SenseDecision


def decide_annotations(model, annotations: Sequence[Annotation],
                       trees: Optional[Sequence[Optional[ParseTree]]] = None
                       ) -> list[SenseDecision]:
    """The decision for each annotation, as the Annotator makes it. ``trees``: one tree per
    annotation (None: read each annotation's own ``tree``, if it has one). ``model`` None: the
    lexicon's first sense."""
    from .decide import query

    kws = taxonomy_keywords(True)
    if model is None:
        return [SenseDecision(kws[a.keyword].senses[0], 1.0, "lexicon") for a in annotations]
    queries = []
    for i, a in enumerate(annotations):
        tree = trees[i] if trees is not None else (read_tree(a.tree) if a.tree else None)
        start, end = token_span(a)
        queries.append(query(kws[a.keyword], a.text.split(" "), start, end, tree))
    return list(model.disambiguate(queries))


def _counts(gold: Sequence[str], pred: Sequence[str]) -> dict:
    ok = sum(g == p for g, p in zip(gold, pred))
    emitted = sum(p != NONE for p in pred)
    right = sum(p != NONE and p == g for g, p in zip(gold, pred))
    relations = sum(g != NONE for g in gold)
    return {"n": len(gold), "correct": ok, "emitted": emitted, "emitted_right": right,
            "gold_relations": relations}


def _ratio(a: int, b: int) -> Optional[float]:
    return round(a / b, 4) if b else None  # undefined (nothing emitted / nothing to find): null


def _rates(c: dict) -> dict:
    return {"accuracy": _ratio(c["correct"], c["n"]),
            "precision": _ratio(c["emitted_right"], c["emitted"]),
            "recall": _ratio(c["emitted_right"], c["gold_relations"]), **c}


def score(annotations: Sequence[Annotation], decisions: Sequence[SenseDecision]) -> dict:
    """Accuracy, precision and recall overall and per keyword, with the lexicon baseline and the
    number of decisions each source made."""
    kws = taxonomy_keywords(True)
    gold = [a.label for a in annotations]
    pred = [d.relation or NONE for d in decisions]
    lex = [kws[a.keyword].senses[0] for a in annotations]
    per = {}
    for kw in sorted({a.keyword for a in annotations}):
        idx = [i for i, a in enumerate(annotations) if a.keyword == kw]
        g = [gold[i] for i in idx]
        per[kw] = {**_rates(_counts(g, [pred[i] for i in idx])),
                   "lexicon": _rates(_counts(g, [lex[i] for i in idx])),
                   "sources": dict(collections.Counter(decisions[i].source for i in idx))}
    return {**_rates(_counts(gold, pred)), "lexicon": _rates(_counts(gold, lex)),
            "sources": dict(collections.Counter(d.source for d in decisions)),
            "per_keyword": per}


def errors(annotations: Sequence[Annotation], decisions: Sequence[SenseDecision]) -> list[dict]:
    """The wrongly decided occurrences, for error analysis."""
    return [{"keyword": a.keyword, "gold": a.label, "predicted": d.relation or NONE,
             "source": d.source, "doc": a.doc,
             "context": a.text[max(0, a.char_start - 80):a.char_start] + "[" +
             a.text[a.char_start:a.char_end] + "]" + a.text[a.char_end:a.char_end + 60]}
            for a, d in zip(annotations, decisions) if (d.relation or NONE) != a.label]
