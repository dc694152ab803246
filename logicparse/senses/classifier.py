"""SVM sense models: one scikit-learn classifier per keyword over encoder vectors (paper §3.1).

A model directory (the bundled ``logicparse/models/senses/``, or what ``logicparse senses train --out DIR``
writes) holds ``meta.json`` and one ``<keyword>.skops`` per keyword. ``meta.json`` records the
encoder (name, spec, weight fingerprint), and per keyword: file, sha256, layer, pooling, labels,
hyperparameters, training-data hash and cross-validated accuracy.

Loading is strict because a wrong model silently mislabels every training example built from it:
a file that is missing, truncated, changed since training (sha256), or holds types outside
:data:`TRUSTED_TYPES` is refused, and so are models trained for another encoder than the one
loaded (features of another encoder mean nothing to the SVMs).
"""

from __future__ import annotations

import json
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..errors import Errors, InputTextError, ModelLoadError
from ..resources import file_sha256, sense_models_dir
from ..taxonomy import keywords as taxonomy_keywords
from .data import NONE
from .decide import lexicon_decision
from .features import DEFAULT_ENCODER, Encoder, Occurrence, assemble, pooling_parts
from .model import SenseDecision, SenseQuery


META = "meta.json"
# What skops must instantiate for the estimators `senses train` writes, beyond the types skops
# trusts by default. Anything else in a file is refused.
TRUSTED_TYPES = frozenset({
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._SigmoidCalibration",
    "sklearn.calibration.CalibratedClassifierCV",
    "sklearn.pipeline.Pipeline",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.svm._classes.SVC",
    "sklearn.model_selection._split.StratifiedKFold",
})


def bundled_models_dir() -> Path:
    """The bundled sense models (``LOGICPARSE_SVM_MODELS`` overrides them)."""
    return sense_models_dir()


def mpnet_models_dir() -> Path:
    """The bundled SVMs over all-mpnet-base-v2 (``load_senses("mpnet")``)."""
    from ..resources import SENSES_MPNET_DIR

    return SENSES_MPNET_DIR


@lru_cache(maxsize=4)
def get_encoder(spec: str = DEFAULT_ENCODER, device: str = "cpu") -> Encoder:
    """One encoder per (spec, device) per process: every model and command shares it. From what
    an earlier run left in the cache, without PyTorch, where it can (``light.py``)."""
    from .light import load_light_encoder

    return load_light_encoder(spec, device) or Encoder(spec, device=device)


def load_estimator(path: Path, sha256: Optional[str] = None, trusted=TRUSTED_TYPES):
    """A skops file, checked: present, unchanged since training, readable, and holding no type
    beyond skops' own and ``trusted``."""
    import skops.io as sio

    if not path.is_file():
        raise ModelLoadError(Errors.E205.format(path=path))
    if sha256 is not None and file_sha256(path) != sha256:
        raise ModelLoadError(Errors.E207.format(path=path))
    try:
        untrusted = sio.get_untrusted_types(file=path)
    except (zipfile.BadZipFile, json.JSONDecodeError, KeyError, ValueError, OSError, EOFError) as e:
        raise ModelLoadError(Errors.E206.format(path=path, reason=e)) from e
    bad = sorted(set(untrusted) - trusted)
    if bad:
        raise ModelLoadError(Errors.E208.format(path=path, types=bad))
    try:
        return sio.load(path, trusted=list(untrusted))
    except Exception as e:  # skops raises many kinds on damaged content
        raise ModelLoadError(Errors.E206.format(path=path, reason=e)) from e


class SVMSenseModel:
    """:class:`~logicparse.senses.SenseModel` backed by per-keyword SVMs and one encoder."""

    def __init__(self, directory, encoder: Optional[Encoder] = None, device: str = "cpu"):
        self.directory = Path(directory)
        meta_path = self.directory / META
        if not meta_path.is_file():
            raise ModelLoadError(Errors.E204.format(path=self.directory))
        try:
            self.meta = json.loads(meta_path.read_text(encoding="utf-8"))
            trained = self.meta["encoder"]
            entries = self.meta["keywords"]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise ModelLoadError(Errors.E206.format(path=meta_path, reason=e)) from e
        self.encoder = encoder or get_encoder(trained.get("spec", DEFAULT_ENCODER), device)
        if self.encoder.fingerprint != trained.get("fingerprint"):
            raise ModelLoadError(Errors.E209.format(
                path=self.directory, trained=trained.get("name"), trained_fp=trained.get("fingerprint"),
                loaded=self.encoder.name, loaded_fp=self.encoder.fingerprint))
        self.entries = entries
        self.estimators = {kw: load_estimator(self.directory / e["file"], e.get("sha256"))
                           for kw, e in entries.items()}
        self.name = f"svm:{self.meta.get('name', self.directory.name)}+{self.encoder.name}"
        self._warned: set[str] = set()

    @property
    def keywords(self) -> list[str]:
        return sorted(self.estimators)

    @property
    def precision(self) -> str:
        """What the encoder's blocks run in ("int8" by default on a CPU, else "fp32"): part of
        the models' name where shards and the service give it (``resources.model_name``)."""
        return getattr(self.encoder, "precision", "fp32")

    def disambiguate(self, queries: Sequence[SenseQuery]) -> list[SenseDecision]:
        out: list[Optional[SenseDecision]] = [None] * len(queries)
        by_kw: dict[str, list[int]] = {}
        for i, q in enumerate(queries):
            if not 0 <= q.char_start < q.char_end <= len(q.text):
                raise InputTextError(Errors.E210.format(start=q.char_start, end=q.char_end,
                                                    length=len(q.text)))
            kw = q.keyword.lower()
            if kw in self.estimators:
                by_kw.setdefault(kw, []).append(i)
            else:
                out[i] = self._lexicon(q)
        # Keywords whose models read the same layer through the same window share encoder
        # passes; each pass runs only the blocks up to that layer.
        groups: dict[tuple, list[str]] = {}
        for kw in by_kw:
            e = self.entries[kw]
            groups.setdefault((e["layer"], e.get("window")), []).append(kw)
        for (layer, window), kws in groups.items():
            todo = [i for kw in kws for i in by_kw[kw]]
            parts = sorted({x for kw in kws for x in pooling_parts(self.entries[kw]["pooling"])})
            feats = self.encoder.encode([Occurrence(queries[i].text, queries[i].char_start,
                                                    queries[i].char_end) for i in todo],
                                        layers=[layer], parts=parts, max_length=window)
            row = {i: r for r, i in enumerate(todo)}
            for kw in kws:
                idx = by_kw[kw]
                X = assemble(feats, layer, self.entries[kw]["pooling"])[[row[i] for i in idx]]
                for i, d in zip(idx, self._predict(kw, X, [queries[i].connective for i in idx])):
                    out[i] = d
        return out  # type: ignore[return-value]

    def warm_up(self) -> None:
        """One encoder pass to the deepest layer a classifier reads, so that the first query does
        not pay for opening the encoder's blocks (ONNX Runtime sessions, opened as first needed,
        or a first export): a service calls it before it takes requests."""
        if self.entries:
            top = max(int(e["layer"]) for e in self.entries.values())
            self.encoder.encode([Occurrence("Since then, it works.", 0, 5)], layers=[top],
                                parts=pooling_parts(next(iter(self.entries.values()))["pooling"]))

    def _predict(self, kw: str, X: np.ndarray, connective: Sequence[bool]) -> list[SenseDecision]:
        est = self.estimators[kw]
        proba = est.predict_proba(X)
        classes = list(est.classes_)
        not_none = np.array([c != NONE for c in classes])
        out = []
        for p, conn in zip(proba, connective):
            # A connective by its tree: its most probable relation, however probable `none` is.
            j = int(np.argmax(np.where(not_none, p, -1.0) if conn and not_none.any() else p))
            label = str(classes[j])
            out.append(SenseDecision(None if label == NONE else label, float(p[j]), "classifier"))
        return out

    def predict_labels(self, kw: str, texts_spans: Sequence[Occurrence]) -> list[str]:
        """Labels ("none" for not a connective) for occurrences of one keyword (evaluation)."""
        cands = taxonomy_keywords()[kw].senses if kw in taxonomy_keywords() else ()
        qs = [SenseQuery(kw, cands, o.text, o.char_start, o.char_end) for o in texts_spans]
        return [d.relation or NONE for d in self.disambiguate(qs)]

    def _lexicon(self, q: SenseQuery) -> SenseDecision:
        return lexicon_decision(q, self._warned, self.directory)


def load_senses(spec="default", device: str = "cpu", encoder=None) -> SVMSenseModel:
    """``"default"``: the bundled ``logicparse/models/senses/`` with their encoder (all-MiniLM-L6-v2, offline).
    ``"mpnet"``: the bundled ``logicparse/models/senses-mpnet/`` with all-mpnet-base-v2 from the
    optional extra ``logicparse[mpnet]`` (assembled at first use).
    A directory with ``meta.json``: those models with their encoder. Anything else (a Hugging Face
    name such as ``albert-base-v2`` in the local cache, or an encoder directory): the bundled
    models with that encoder, refused unless they were trained for it. ``encoder`` (a spec or an
    :class:`Encoder`) overrides the encoder a model directory names."""
    spec = str(spec)
    if spec == "default":
        directory = bundled_models_dir()
    elif spec == "mpnet":
        from .mpnet import mpnet_path

        directory, encoder = mpnet_models_dir(), encoder or str(mpnet_path())
    elif (Path(spec) / META).is_file():
        directory = Path(spec)
    elif Path(spec).is_dir() and not (Path(spec) / "config.json").is_file():
        raise ModelLoadError(Errors.E204.format(path=spec))
    else:
        directory, encoder = bundled_models_dir(), encoder or spec
    if isinstance(encoder, str):
        encoder = get_encoder(encoder, device)
    return SVMSenseModel(directory, encoder=encoder, device=device)
