"""The logic labels a training run reads: one Document per distinct text, from a label source,
annotated once and cached as Arrow shards.

Labels are looked up by text (a hash of it), not by position, so the same sentence shared by many
examples is annotated once, and shards made by ``logicparse annotate`` on a JSONL of
``{"id", "text"}`` rows serve as well as the cache this module writes.

The label source says which labels a logical model is fed:

* ``default``: the annotator as it ships (keyword decisions, the default mapping);
* ``paper``: the paper's literal labels (Algorithm 1 exactly, the lexicon's first sense), mapped
  on the parse trees of ``default``'s Documents: the two sources see the same trees, so they differ
  only in the mapping and the keyword decisions;
* ``shuffled``: the control: ``default``'s labels moved to the wrong tokens. Each text keeps its
  number of labelled tokens and its label frequencies (its label rows are permuted, seeded), so a
  model fed them gets the same amount of logic signal in the wrong places.
* ``random``: the control for *which* label: ``default``'s labelled tokens keep their places and
  their number of labels, and each label id is drawn uniformly (seeded) from the 34 that are not E.
  Against ``shuffled`` (right labels, wrong places) it separates "where" from "which".
* ``all-e``: the logical layer fed no labels (every layer E): the control for the layer itself.
  With the centered layer it computes exactly what the plain model computes;
* ``none``: no labels (the plain model); nothing is annotated.

:func:`digest` fingerprints the labels a model was fed, so a results table can refuse runs made
with other labels than today's.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from ..errors import DataFormatError, Errors
from ..taxonomy import LABELS
from ..tokens import Document

log = logging.getLogger(__name__)

SOURCES = ("none", "paper", "default", "shuffled", "random", "all-e")
# Test-time ablations: a trained logical model is also evaluated with its labels replaced by these.
ABLATIONS = ("shuffled", "random", "all-e")


def check_source(source: str) -> str:
    if source not in SOURCES:
        raise DataFormatError(Errors.E506.format(what="label source", name=source,
                                                 opts=", ".join(SOURCES)))
    return source


def text_id(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def texts_of(examples: Iterable) -> list[str]:
    """Every text a model reads, once each, in first-seen order (each example's ``texts()``:
    a context, a question and its options, a premise and a hypothesis, a dialogue). Texts are
    annotated apart; a question and an option are joined after annotation."""
    seen: dict[str, None] = {}
    for ex in examples:
        for t in ex.texts():
            seen.setdefault(t, None)
    return list(seen)


def default_cache_dir(data_file: str) -> Path:
    """Under the user cache (``$XDG_CACHE_HOME/logicparse/labels``), one folder per data folder:
    a data set is often shared and read-only, and is never written to."""
    here = Path(data_file).resolve().parent
    key = hashlib.sha1(str(here).encode()).hexdigest()[:12]
    root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return root / "logicparse" / "labels" / f"{here.name}-{key}"


def load_labels(shards: str, texts: list[str], mapping: Optional[str] = None,
                made_with: Optional[dict] = None) -> tuple[dict[str, Document], list[str]]:
    """Documents of the shard directories at or under ``shards`` for ``texts`` (by text),
    checked; returns them and the missing texts. A finished run is verified against its manifest
    (sha256); an unfinished one (an annotation that was interrupted) is not read, so its texts
    count as missing and are annotated again. With ``mapping``, a run whose manifest records
    another mapping is not read either (its labels belong to another label source), nor, with
    ``made_with`` ({"parser": ..., "senses": ...}), one annotated with other settings."""
    from ..batch.shards import find_shard_dirs, iter_documents, read_manifest
    from ..modeling.aligner import check_document, document_text

    wanted = {text_id(t): t for t in texts}
    found: dict[str, Document] = {}
    for run in find_shard_dirs(shards):
        manifest = read_manifest(run)
        if manifest is not None and not manifest.get("complete"):
            log.warning("%s is an unfinished annotation run: not read", run)
            continue
        if mapping and manifest is not None and manifest.get("mapping", mapping) != mapping:
            log.warning("%s was annotated with mapping=%r, not %r: not read", run,
                        manifest.get("mapping"), mapping)
            continue
        if other_annotator(run, manifest, made_with):
            continue
        for doc in iter_documents(run, verify=True):
            check_document(doc, str(run))
            key = text_id(doc.text) if doc.text else doc.id
            if key in wanted and key not in found:
                found[key] = doc
            elif doc.id in wanted and doc.id not in found:
                # Same id as the text's hash but another text: offsets would point at wrong words.
                if document_text(doc) != wanted[doc.id]:
                    raise DataFormatError(Errors.E516.format(where=shards, id=doc.id))
                found[doc.id] = doc
    missing = [t for k, t in wanted.items() if k not in found]
    return {wanted[k]: d for k, d in found.items()}, missing


def other_annotator(run, manifest: Optional[dict], made_with: Optional[dict]) -> bool:
    """Whether ``run`` was annotated with a parser or senses setting other than ``made_with``'s
    (said in a warning). A run that does not record its settings (shards written by a custom
    annotator) is taken as it is."""
    recorded = (manifest or {}).get("settings") or {}
    for setting, want in (made_with or {}).items():
        if setting in recorded and recorded[setting] != want:
            got = "none" if recorded[setting] is None else recorded[setting]
            log.warning(Errors.E533.format(path=run, setting=setting, got=got,
                                           want=want))
            return True
    return False


def annotate_missing(texts: list[str], shards: Path, annotator=None, parser: str = "default",
                     senses: Optional[str] = "default", device: str = "cpu", workers: int = 1,
                     batch_size: int = 32) -> Path:
    """Annotate ``texts`` into a new shard directory under ``shards`` (once; later runs read it)
    and return that directory.

    With no ``annotator`` this is the batch annotator (``logicparse annotate``) on a JSONL of the
    texts, so the same shards can be made ahead of time, on more workers, with that command.
    An ``annotator`` object (anything with ``.pipe(texts, batch_size=, ids=)``) runs in process.
    """
    digest = hashlib.sha1("\n\x00".join(texts).encode("utf-8")).hexdigest()[:12]
    out = shards / f"run-{digest}"
    out.parent.mkdir(parents=True, exist_ok=True)
    jsonl = shards / f"texts-{digest}.jsonl"
    with open(jsonl, "w", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"id": text_id(t), "text": t}, ensure_ascii=False) + "\n")
    log.info("annotating %d texts into %s (or run: logicparse annotate %s --out %s)",
             len(texts), out, jsonl, out)
    if annotator is not None:
        from ..batch.shards import write_documents

        docs = list(annotator.pipe(texts, batch_size=batch_size, ids=[text_id(t) for t in texts]))
        write_documents(out, docs)
        return out
    from ..batch import RunConfig, WorkerSpec, annotate_corpus
    from ..batch.progress import make_progress

    config = RunConfig(workers=workers, overwrite=True,
                       worker=WorkerSpec(parser=parser, senses=senses, device=device))
    annotate_corpus([str(jsonl)], out, config, progress=make_progress(quiet=False))
    return out


def labels_for(texts: list[str], shards: Optional[str], data_file: str, source: str = "default",
               annotate: bool = True, seed: int = 0, **annotate_kwargs) -> dict[str, Document]:
    """text -> Document for every text from label ``source``, annotating the missing ones once
    (cached; ``annotate_kwargs`` go to :func:`annotate_missing`). Every source but ``none`` reads
    the annotator's Documents; ``paper`` maps their trees again, ``shuffled`` permutes their rows."""
    if check_source(source) == "none":
        return {}
    from ..batch.run import network_precisions

    cache = Path(shards) if shards else default_cache_dir(data_file)
    # The settings annotate_missing would annotate with (a custom annotator records none).
    made_with = None if annotate_kwargs.get("annotator") is not None else {
        "parser": annotate_kwargs.get("parser", "default"),
        "senses": annotate_kwargs.get("senses", "default"), **network_precisions()}
    found, missing = load_labels(str(cache), texts, mapping="default", made_with=made_with)
    if missing and annotate:
        # Only the new run is read: the cache's other runs were verified a moment ago.
        new, missing = load_labels(str(annotate_missing(missing, cache, **annotate_kwargs)),
                                   missing, mapping="default")
        found.update(new)
    if missing:
        raise DataFormatError(Errors.E514.format(where=cache, id=text_id(missing[0]),
                                                 text=missing[0][:60]))
    failed = sum(1 for d in found.values() if d.error)
    if failed:
        log.warning("%d of %d texts failed annotation; their tokens take E", failed, len(found))
    return {t: transform(d, source, seed, str(cache)) for t, d in found.items()}


def transform(doc: Document, source: str, seed: int = 0, where: str = "shards") -> Document:
    """The annotator's ``doc`` as label ``source`` feeds it (``default``: unchanged)."""
    if source == "paper":
        return paper_labels(doc, where)
    if source == "shuffled":
        return shuffle_labels(doc, seed)
    if source == "random":
        return random_labels(doc, seed)
    if source == "all-e":
        return dataclasses.replace(doc, logic=[[] for _ in doc.logic], relations=[])
    return doc


def digest(docs: dict[str, Document], texts: Iterable[str]) -> str:
    """A fingerprint of the labels of ``texts`` (their label rows, in text order): two runs with
    the same digest were fed the same labels."""
    h = hashlib.sha256()
    for t in texts:
        doc = docs.get(t)
        h.update(text_id(t).encode())
        h.update(json.dumps(doc.logic if doc is not None else None, separators=(",", ":")).encode())
    return h.hexdigest()[:16]


def paper_labels(doc: Document, where: str = "shards") -> Document:
    """``doc`` with the paper's literal labels: Algorithm 1 exactly and the lexicon's first sense,
    on ``doc``'s own parse trees (no parser runs; tokens and offsets are kept)."""
    from ..annotator import annotate_trees

    if doc.error or not doc.tokens:
        return doc
    if not doc.parse:
        raise DataFormatError(Errors.E530.format(where=where, id=doc.id))
    paper = annotate_trees(doc.parse, senses=None, id=doc.id, mapping="paper")
    if len(paper.tokens) != len(doc.tokens):
        raise DataFormatError(Errors.E530.format(where=where, id=doc.id))
    return dataclasses.replace(doc, logic=paper.logic, relations=paper.relations)


def shuffle_labels(doc: Document, seed: int = 0) -> Document:
    """``doc`` with its tokens' label rows permuted (seeded by ``seed`` and the text): the same
    labelled-token count and label frequencies on other tokens. Relations are dropped, since their
    spans no longer match the labels. A text whose rows are all alike cannot change."""
    rows = [list(r) for r in doc.logic]
    key = int(text_id(doc.text or " ".join(doc.tokens)), 16) % 2**32
    rng = np.random.default_rng([seed, key])
    shuffled = rows
    for _ in range(20):  # a permutation that leaves every row in place is not a control
        shuffled = [rows[i] for i in rng.permutation(len(rows))]
        if shuffled != rows or len({tuple(r) for r in rows}) < 2:
            break
    return dataclasses.replace(doc, logic=shuffled, relations=[])


def random_labels(doc: Document, seed: int = 0) -> Document:
    """``doc`` with every label id redrawn uniformly from the labels that are not E (seeded by
    ``seed`` and the text): each token keeps its number of labels, so the labelled positions and
    the amount of signal are ``doc``'s, and only which label each carries is random. Relations
    are dropped, since they no longer describe the labels."""
    key = int(text_id(doc.text or " ".join(doc.tokens)), 16) % 2**32
    rng = np.random.default_rng([seed, key, 1])  # not the stream shuffle_labels draws
    rows = [[int(v) for v in rng.integers(1, len(LABELS), size=len(r))] for r in doc.logic]
    return dataclasses.replace(doc, logic=rows, relations=[])
