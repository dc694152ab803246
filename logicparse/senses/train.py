"""Training and evaluation of the per-keyword sense SVMs.

Training encodes every annotation once (all layers, every part: one forward pass), then picks
per keyword the layer, pooling, kernel and C with the best stratified 5-fold cross-validated
accuracy (repeated 3 times) on the training annotations, and fits the winner on all of them. Probabilities
(``SenseDecision.confidence``) come from sigmoid calibration over cross-validated decision values.
"""

from __future__ import annotations

import collections
import json
import logging
import warnings
from datetime import datetime, timezone
from itertools import product
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..errors import Errors, LogicparseError
from ..resources import file_sha256
from .classifier import META
from .data import NONE, Annotation, data_hash
from .features import POOLINGS, Encoder, Occurrence, assemble

logger = logging.getLogger(__name__)

# SVM hyperparameters tried per (layer, pooling); features are standardised first.
SVM_GRID = (
    {"kernel": "linear", "C": 0.01},
    {"kernel": "linear", "C": 0.1},
    {"kernel": "rbf", "C": 1.0},
    {"kernel": "rbf", "C": 10.0},
)
# Subwords around the keyword that are encoded: sentences of speeches and laws run past 100
# subwords, and context that far away costs encoder time without telling the keyword's sense.
WINDOW = 64
MIN_PER_LABEL = 3  # a label seen fewer times cannot be learned or calibrated: left out


def _svm(params: dict):
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return make_pipeline(StandardScaler(), SVC(class_weight="balanced", **params))


def _trainable(anns: Sequence[Annotation]) -> list[Annotation]:
    counts = collections.Counter(a.label for a in anns)
    return [a for a in anns if counts[a.label] >= MIN_PER_LABEL]


def train_models(annotations: Sequence[Annotation], encoder: Encoder, keywords: Sequence[str],
                 out: Path, folds: int = 5, repeats: int = 3, seed: int = 0, layers: Optional[Sequence[int]] = None,
                 window: Optional[int] = WINDOW, progress: bool = True, say=print,
                 keep: bool = False) -> dict:
    """Fit one SVM per keyword and write ``out/<kw>.skops`` and ``out/meta.json``. ``window``:
    subwords (specials included) around the keyword that are encoded, in training and at
    annotation time alike (None: the encoder's limit). ``keep``: the models ``out`` already holds
    for other keywords stay (they must be trained for the same encoder)."""
    import sklearn
    import skops
    import skops.io as sio
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, cross_val_score

    out = Path(out)
    kept = _kept_entries(out, encoder, keywords) if keep else {}
    out.mkdir(parents=True, exist_ok=True)
    by_kw = {kw: _trainable([a for a in annotations if a.keyword == kw]) for kw in keywords}
    for kw, anns in by_kw.items():
        labels = {a.label for a in anns}
        if len(labels) < 2:
            raise LogicparseError(Errors.E212.format(
                keyword=kw, reason=f"{len(anns)} usable annotations, labels {sorted(labels)}; "
                "an SVM needs at least two labels with three examples each"))
    todo = [a for kw in keywords for a in by_kw[kw]]
    feats = encoder.encode([Occurrence(a.text, a.char_start, a.char_end) for a in todo],
                           layers=layers, progress=progress, max_length=window)
    row = {id(a): i for i, a in enumerate(todo)}
    meta = {"format": 1, "name": out.name, "encoder": encoder.identity,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "versions": {"scikit-learn": sklearn.__version__, "skops": skops.__version__},
            "keywords": dict(kept)}
    for kw in keywords:
        anns = by_kw[kw]
        idx = [row[id(a)] for a in anns]
        y = np.array([a.label for a in anns])
        n_splits = min(folds, min(collections.Counter(y).values()))
        # Repeated: with a few hundred examples one 5-fold split ranks near-equal settings by
        # noise; three shuffles average much of it away.
        cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=repeats, random_state=seed)
        best = None
        layers_seen = sorted({l for l, _ in feats})
        for layer, pooling in product(layers_seen, POOLINGS):
            X = assemble(feats, layer, pooling)[idx]
            for params in SVM_GRID:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    score = cross_val_score(_svm(params), X, y, cv=cv).mean()
                if best is None or score > best[0] + 1e-9:
                    best = (score, layer, pooling, params)
        score, layer, pooling, params = best
        X = assemble(feats, layer, pooling)[idx]
        calib_cv = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
        model = CalibratedClassifierCV(_svm(params), ensemble=False, cv=calib_cv).fit(X, y)
        path = out / f"{kw}.skops"
        sio.dump(model, path)
        counts = collections.Counter(y.tolist())
        meta["keywords"][kw] = {
            "file": path.name, "sha256": file_sha256(path), "layer": layer, "pooling": pooling,
            "window": window,
            "params": params, "labels": sorted(counts), "label_counts": dict(sorted(counts.items())),
            "n_train": len(anns), "cv_folds": n_splits, "cv_repeats": repeats, "cv_accuracy": round(float(score), 4),
            "data_hash": data_hash(anns),
            "sources": dict(collections.Counter(a.source for a in anns)),
        }
        say(f"{kw}: n={len(anns)} layer={layer} pooling={pooling} {params} "
            f"cv_accuracy={score:.3f}")
    (out / META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return meta


def _kept_entries(out: Path, encoder: Encoder, keywords: Sequence[str]) -> dict:
    """The entries of ``out/meta.json`` for keywords not retrained ({} if there is none yet);
    refused (E209) if they were trained for another encoder."""
    from ..errors import ModelLoadError

    path = out / META
    if not path.is_file():
        return {}
    old = json.loads(path.read_text(encoding="utf-8"))
    trained = old.get("encoder", {})
    if trained.get("fingerprint") != encoder.fingerprint:
        raise ModelLoadError(Errors.E209.format(
            path=out, trained=trained.get("name"), trained_fp=trained.get("fingerprint"),
            loaded=encoder.name, loaded_fp=encoder.fingerprint))
    return {kw: e for kw, e in old.get("keywords", {}).items() if kw not in keywords}


def _entries(model) -> dict:
    """Per-keyword training metadata of the classifier inside ``model`` ({} for none)."""
    clf = getattr(model, "classifier", model)
    return getattr(clf, "entries", {}) or {}


def _confusion(gold: list, pred: list, labels: list) -> list:
    from sklearn.metrics import confusion_matrix

    with warnings.catch_warnings():
        # One label in gold and predictions: the 1 x 1 matrix is right, sklearn warns anyway.
        warnings.filterwarnings("ignore", message="A single label was found", category=UserWarning)
        return confusion_matrix(gold, pred, labels=labels).tolist()


def evaluate(model, annotations: Sequence[Annotation], keywords: Sequence[str]) -> dict:
    """Accuracy of ``model`` (a sense model: tree rules + classifiers, or the SVMs alone) on the
    annotations of ``keywords``, decided as the Annotator decides them (with each annotation's
    tree, if it has one), against the majority label per keyword from the model's training data
    (the classifiers' baseline) and the lexicon's first sense; per keyword: accuracy, n, the
    sources that decided and a confusion matrix (rows gold, columns predicted)."""
    from ..taxonomy import keywords as kws
    from .scoring import decide_annotations

    entries = _entries(model)
    per, correct, base, lex, n = {}, 0, 0, 0, 0
    for kw in keywords:
        anns = [a for a in annotations if a.keyword == kw]
        if not anns:
            continue
        gold = [a.label for a in anns]
        decisions = decide_annotations(model, anns)
        pred = [d.relation or NONE for d in decisions]
        entry = entries.get(kw)
        if entry:
            counts = entry["label_counts"]
            majority = max(sorted(counts), key=counts.get)
        else:  # no model: majority taken from the evaluated data itself
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
            "sources": dict(collections.Counter(d.source for d in decisions)),
            "labels": labels,
            "confusion": _confusion(gold, pred, labels),
        }
        correct, base, lex, n = correct + k_ok, base + k_base, lex + k_lex, n + len(anns)
    return {"accuracy": round(correct / n, 4) if n else 0.0,
            "majority_baseline": round(base / n, 4) if n else 0.0,
            "lexicon_baseline": round(lex / n, 4) if n else 0.0,
            "n": n, "keywords": list(per), "per_keyword": per}


def errors(model, annotations: Sequence[Annotation]) -> list[dict]:
    """The misclassified annotations, for error analysis."""
    from .scoring import decide_annotations

    out = []
    for kw in sorted({a.keyword for a in annotations}):
        anns = [a for a in annotations if a.keyword == kw]
        pred = [d.relation or NONE for d in decide_annotations(model, anns)]
        out += [{"keyword": kw, "gold": a.label, "predicted": p, "doc": a.doc,
                 "context": a.text[max(0, a.char_start - 80):a.char_end + 60]}
                for a, p in zip(anns, pred) if p != a.label]
    return out


__all__ = ["train_models", "evaluate", "errors", "NONE"]
