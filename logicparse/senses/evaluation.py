"""Scoring the sense models on labelled occurrences (``logicparse senses eval``)."""

from __future__ import annotations

import collections
from typing import Sequence

from .classifier import SVMSenseModel
from .data import Annotation
from .features import Occurrence


def evaluate(model: SVMSenseModel, annotations: Sequence[Annotation],
             keywords: Sequence[str]) -> dict:
    """Accuracy of ``model`` on the annotations of ``keywords``, against the majority label per
    keyword from the model's training data and the lexicon's first
    sense; per keyword: accuracy, n and a confusion matrix (rows gold, columns predicted)."""
    from sklearn.metrics import confusion_matrix

    from ..taxonomy import keywords as kws

    per, correct, base, lex, n = {}, 0, 0, 0, 0
    for kw in keywords:
        anns = [a for a in annotations if a.keyword == kw]
        if not anns:
            continue
        gold = [a.label for a in anns]
        pred = model.predict_labels(kw, [Occurrence(a.text, a.char_start, a.char_end) for a in anns])
        entry = model.entries.get(kw)
        if entry:
            counts = entry["label_counts"]
            majority = max(sorted(counts), key=counts.get)
        else:  # no model: the lexicon decides; majority taken from the evaluated data itself
            majority = collections.Counter(gold).most_common(1)[0][0]
        lexicon = kws()[kw].senses[0]
        labels = sorted(set(gold) | set(pred))
        k_ok = sum(g == p for g, p in zip(gold, pred))
        k_base = sum(g == majority for g in gold)
        k_lex = sum(g == lexicon for g in gold)
        per[kw] = {
            "accuracy": round(k_ok / len(anns), 4), "n": len(anns),
            "majority_baseline": round(k_base / len(anns), 4), "majority_label": majority,
            "lexicon_baseline": round(k_lex / len(anns), 4),
            "source": "classifier" if entry else "lexicon",
            "labels": labels,
            "confusion": confusion_matrix(gold, pred, labels=labels).tolist(),
        }
        correct, base, lex, n = correct + k_ok, base + k_base, lex + k_lex, n + len(anns)
    return {"accuracy": round(correct / n, 4) if n else 0.0,
            "majority_baseline": round(base / n, 4) if n else 0.0,
            "lexicon_baseline": round(lex / n, 4) if n else 0.0,
            "n": n, "keywords": list(per), "per_keyword": per}


def errors(model: SVMSenseModel, annotations: Sequence[Annotation]) -> list[dict]:
    """The misclassified annotations, for error analysis."""
    out = []
    for kw in sorted({a.keyword for a in annotations}):
        anns = [a for a in annotations if a.keyword == kw]
        pred = model.predict_labels(kw, [Occurrence(a.text, a.char_start, a.char_end) for a in anns])
        out += [{"keyword": kw, "gold": a.label, "predicted": p, "doc": a.doc,
                 "context": a.text[max(0, a.char_start - 80):a.char_end + 60]}
                for a, p in zip(anns, pred) if p != a.label]
    return out
