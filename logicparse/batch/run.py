"""One batch run: inputs -> chunks -> engine -> shards + manifest, with resume.

The plan depends on the input alone: documents are numbered in input order, shard ``i`` holds
documents ``[i * shard_size, (i + 1) * shard_size)``, and each shard is cut into chunks of about
``chunk_chars`` characters. A rerun of the same command keeps every finished shard that matches
its manifest entry (size and sha256) and whose documents, read again, have the digest the entry
recorded (changes.digest); it annotates again any that does not (and says so), and annotates the
rest. The manifest lists each shard as soon as it is written.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataFormatError, Errors, LogicparseError
from . import manifest as mf
from . import shards as sh
from .changes import digest, file_stats, holds_changed_rows
from .identity import fingerprint as input_fingerprint
from .identity import identity as input_identity
from .inputs import InputSpec, ReadOptions, count_documents, read_documents, resolve_inputs
from .outdir import OutputLock, prepare
from .progress import Progress, make_progress
from .worker import Chunk, ChunkResult, WorkerSpec

logger = logging.getLogger(__name__)

ENGINES = ("local", "ray")


class Interrupted(LogicparseError):
    """The run was stopped by SIGINT/SIGTERM; finished shards are kept and a rerun resumes."""


@dataclass
class RunConfig:
    """Everything that decides the shards' contents (and so goes into the resume fingerprint),
    plus how the run is executed (which does not)."""

    shard_size: int = 1000
    chunk_chars: int = 20_000  # a chunk is parsed together; cut by size so workers stay busy
    chunk_docs: int = 64
    read: ReadOptions = field(default_factory=ReadOptions)
    worker: WorkerSpec = field(default_factory=WorkerSpec)
    # execution only
    engine: str = "local"
    workers: int = 1
    ray_address: Optional[str] = None
    overwrite: bool = False

    def check(self) -> None:
        if self.engine not in ENGINES:
            raise LogicparseError(Errors.E316.format(value=self.engine))
        for name in ("shard_size", "chunk_chars", "chunk_docs", "workers"):
            if getattr(self, name) < 1:
                raise LogicparseError(Errors.E317.format(name=name.replace("_", "-"),
                                                         value=getattr(self, name)))
        if self.worker.threads < 1:
            raise LogicparseError(Errors.E317.format(name="threads", value=self.worker.threads))

    def content_settings(self) -> dict:
        w = self.worker
        return {"shard_size": self.shard_size, "chunk_chars": self.chunk_chars,
                "chunk_docs": self.chunk_docs, "read": asdict(self.read),
                "parser": w.parser, "senses": w.senses, "mapping": w.mapping, "device": w.device,
                "factory": w.factory, **network_precisions()}


def network_precisions() -> dict:
    """What the networks run in under ONNX Runtime (``LOGICPARSE_PARSER_PRECISION``,
    ``LOGICPARSE_ENCODER_PRECISION``): part of a run's settings, since an int8 network's labels
    differ from float32's in some sentences, so that a run is not resumed in another precision."""
    from ..parser.runtime import check_precision as parser_precision
    from ..senses.onnx_encoder import check_precision as encoder_precision

    return {"parser_precision": parser_precision(), "encoder_precision": encoder_precision()}


def annotate_corpus(inputs: list[str], out, config: Optional[RunConfig] = None,
                    progress: Optional[Progress] = None, stdin: Optional[BinaryIO] = None) -> dict:
    """Annotate ``inputs`` into shards under ``out``; returns the manifest (also written to
    ``out/manifest.json``). Raises :class:`Interrupted` on SIGINT/SIGTERM after cleaning up."""
    config = config or RunConfig()
    config.check()
    specs = resolve_inputs(inputs)
    _check_streams(specs, config.read, stdin)
    out = Path(out)
    stats = file_stats(specs)  # one look at the inputs: what the run reads is checked against it
    identity = input_identity(specs, config.content_settings(), stats)
    fingerprint = input_fingerprint(specs, config.content_settings(), stats)
    total = count_documents(specs, config.read)  # refuses bad schemas: before --out is touched
    with OutputLock(out):
        previous = prepare(out, fingerprint, config.overwrite, identity)
        return _annotate(specs, out, config, progress or make_progress(quiet=True), stdin,
                         previous, total, fingerprint, identity, stats)


def _check_streams(specs: list[InputSpec], read: ReadOptions, stdin) -> None:
    """Before anything is written: '-' with standard input closed (E352), and .jsonl or stdin
    lines in an encoding whose line break is not the byte 0x0A or shows inside other characters
    (UTF-16, UTF-32, EBCDIC), since lines are split before they are decoded (E353)."""
    import sys

    if stdin is None and sys.stdin is None and any(s.kind == "stdin" for s in specs):
        raise DataFormatError(Errors.E352)
    lines = [s.path for s in specs if s.kind == "jsonl" or (s.kind == "stdin"
                                                            and read.stdin_format != "text")]
    if lines and not _splits_lines(read.encoding):
        from ..terminal import safe

        raise DataFormatError(Errors.E353.format(encoding=read.encoding,
                                                 inputs=", ".join(safe(p) for p in lines)))


def _splits_lines(encoding: str) -> bool:
    """Whether bytes split at 0x0A decode, in ``encoding``, to the lines of the text."""
    try:
        return b"a\nb".decode(encoding) == "a\nb"
    except UnicodeError:
        return False


def _annotate(specs, out: Path, config: RunConfig, progress: Progress, stdin, previous,
              total: Optional[int], fingerprint: str, identity: dict,
              stats: Optional[dict] = None) -> dict:
    """The run itself, in an output folder already locked and checked."""
    manifest = mf.start(specs, config, previous, total, fingerprint, identity)
    sh.write_manifest(out, manifest)

    run = _Run(out, config, specs, manifest, progress, stdin, previous, stats)
    started = time.perf_counter()
    with _stop_on_sigterm():
        try:
            run.execute(total)
        except KeyboardInterrupt:
            run.finish(time.perf_counter() - started, complete=False)
            raise Interrupted(f"interrupted: {len(run.entries)} shard(s) written to {out}; rerun "
                              "the same command to resume") from None
    return run.finish(time.perf_counter() - started, complete=True)


class _Run:
    def __init__(self, out: Path, config: RunConfig, specs: list[InputSpec], manifest: dict,
                 progress: Progress, stdin, previous: Optional[dict] = None,
                 stats: Optional[dict] = None):
        self.out, self.config, self.specs, self.manifest = out, config, specs, manifest
        self.stats = stats
        self.after_changed = False  # a shard with rows of a changed input was found and redone
        self.progress, self.stdin = progress, stdin
        self.entries: dict[int, dict] = {}
        # the previous run's manifest entries not checked yet, by shard index
        self.unchecked: dict[int, dict] = {}
        for e in (previous or {}).get("shards", []):
            m = sh.SHARD_RE.match(e.get("file", ""))
            if m:
                self.unchecked[int(m.group(1))] = e
        self.rewritten: list[dict] = []
        self.digests: dict[int, str] = {}  # shard in flight -> digest of its documents
        self.seen_ids: set[int] = set()
        self.duplicates: list[str] = []
        self.n_duplicates = 0
        self.expected: dict[int, int] = {}  # shard -> rows, known once the plan reached its end
        self.parts: dict[int, list[tuple[int, pa.Table]]] = {}
        self.per_input = {s.path: {"documents": 0, "decoding_fallback": 0, "fallback_ids": []}
                          for s in specs}
        self.documents = 0
        self.resumed = 0
        self.worker_rss: dict[int, float] = {}
        self.worker_peak: dict[int, float] = {}
        self.memory_at_shards: list[dict] = []
        self.models: dict = {}
        self.load_seconds = 0.0  # slowest worker's model loading
        self.ready_at = 0.0  # wall clock when the last worker to report was ready
        self.started_at = time.time()
        self.parse_s: dict[int, float] = {}  # worker -> seconds inside parser.parse

    # -- plan ---------------------------------------------------------------------------------
    def plan(self) -> Iterator[Chunk]:
        shard, ids, texts, errors = 0, [], [], []
        for spec, doc in read_documents(self.specs, self.config.read, self.stdin, self.stats):
            self.documents += 1
            info = self.per_input[spec.path]
            info["documents"] += 1
            if doc.fallback:
                info["decoding_fallback"] += 1
                if len(info["fallback_ids"]) < 100:
                    info["fallback_ids"].append(doc.id)
            self._check_unique(doc.id)
            ids.append(doc.id)
            texts.append(doc.text)
            errors.append(doc.error)
            if len(ids) == self.config.shard_size:
                yield from self._plan_shard(shard, ids, texts, errors)
                shard, ids, texts, errors = shard + 1, [], [], []
        if ids:
            yield from self._plan_shard(shard, ids, texts, errors)

    def _check_unique(self, doc_id: str) -> None:
        # Hashes, not the ids: memory stays small for corpora of millions of documents.
        h = hash(doc_id)
        if h in self.seen_ids:
            self.n_duplicates += 1
            if len(self.duplicates) < 20 and doc_id not in self.duplicates:
                self.duplicates.append(doc_id)
        else:
            self.seen_ids.add(h)

    def _plan_shard(self, shard: int, ids: list, texts: list, errors: list) -> Iterator[Chunk]:
        path = self.out / sh.shard_name(shard)
        entry = self.unchecked.pop(shard, None)
        read = digest(ids, texts, errors)
        if path.exists():
            reason = sh.mismatch(path, entry)
            if reason is None:
                try:
                    done = sh.read_shard(path, ["id", "error"])
                except (pa.ArrowInvalid, OSError, DataFormatError) as e:
                    reason = f"unreadable: {e}"
            if reason is None and holds_changed_rows(done.column("error").to_pylist()):
                reason = "it holds documents whose input changed while the run read them"
                self.after_changed = True
            if reason is None and self.after_changed and done.column("id").to_pylist() != ids:
                # an input that changed while read earlier gave other rows: these moved with it
                reason = "an input before it changed while the run read it"
            if reason is None and entry.get("input_digest") != read:
                # an input changed with its size and time kept (set back, or another file of
                # the same size and time): the identity cannot show it, what was read does
                reason = ("the documents read for it now differ from those it was annotated from"
                          if entry.get("input_digest") else
                          "manifest.json holds no digest of the documents it was annotated from")
            if reason is None:
                # Counts come from the verified shard itself, never from the manifest.
                self.entries[shard] = {**sh.shard_entry(path, done, sha256=entry["sha256"]),
                                       "input_digest": read}
                self.resumed += 1
                self.progress.skip(len(ids))
                return
            logger.warning(Errors.W310.format(file=path.name, reason=reason))
            self.rewritten.append({"file": path.name, "reason": reason})
            path.unlink()
        self.expected[shard] = len(ids)
        self.digests[shard] = read
        for start, end in cut_chunks(texts, self.config.chunk_chars, self.config.chunk_docs):
            yield Chunk(shard, start, tuple(ids[start:end]), tuple(texts[start:end]),
                        errors=tuple(errors[start:end]) if any(errors[start:end]) else ())

    # -- execute ------------------------------------------------------------------------------
    def execute(self, total: Optional[int]) -> None:
        engine = _make_engine(self.config)
        self.started_at = time.time()
        self.progress.start(total)
        try:
            for result in engine.run(self.plan()):
                self._collect(result)
        finally:
            engine.close()
            self.progress.close()
        missing = sorted(set(self.expected) - set(self.entries))
        if missing:  # an engine that lost rows is a bug: never report such a run complete
            raise RuntimeError(f"shards {missing} were planned but never completed")

    def _collect(self, result: ChunkResult) -> None:
        table, stats = result.table, result.stats
        if stats is not None:  # None: the chunk's worker died
            self.worker_rss[stats.pid] = stats.rss_mb
            self.worker_peak[stats.pid] = max(stats.peak_rss_mb,
                                              self.worker_peak.get(stats.pid, 0))
            self.models = {"parser": stats.parser, "senses": stats.senses}
            self.load_seconds = max(self.load_seconds, stats.load_s)
            self.ready_at = max(self.ready_at, stats.ready_at)
            self.parse_s[stats.pid] = stats.parse_s  # cumulative per worker
        sentences = pc.sum(pc.list_value_length(table.column("sentence_starts"))).as_py() or 0
        failed = table.num_rows - table.column("error").null_count
        self.progress.advance(table.num_rows, sentences, failed)
        shard = result.chunk.shard
        self.parts.setdefault(shard, []).append((result.chunk.start, table))
        if sum(t.num_rows for _, t in self.parts[shard]) == self.expected.get(shard, -1):
            parts = sorted(self.parts.pop(shard), key=lambda p: p[0])
            table = pa.concat_tables([t for _, t in parts])
            self.entries[shard] = {**sh.write_shard(self.out, shard, table),
                                   "input_digest": self.digests.pop(shard)}
            self.memory_at_shards.append({"shard": shard, "workers_rss_mb": dict(self.worker_rss),
                                          "main_rss_mb": mf.own_rss_mb()})
            # Every shard is listed at once: a resumed run verifies each against its entry.
            mf.write(self, complete=False)

    def finish(self, seconds: float, complete: bool) -> dict:
        if self.n_duplicates:
            logger.warning(Errors.W311.format(n=self.n_duplicates,
                                              examples=", ".join(map(repr, self.duplicates[:5]))))
        return mf.write(self, complete, seconds)


def cut_chunks(texts: list, chunk_chars: int, chunk_docs: int) -> list[tuple[int, int]]:
    """[start, end) ranges of one shard's documents: consecutive documents until about
    ``chunk_chars`` characters or ``chunk_docs`` documents. Depends on the texts alone."""
    out, start = [], 0
    while start < len(texts):
        end, chars = start, 0
        while end < len(texts) and (end == start or (chars < chunk_chars
                                                     and end - start < chunk_docs)):
            chars += len(texts[end]) if isinstance(texts[end], str) else 0
            end += 1
        out.append((start, end))
        start = end
    return out


def _make_engine(config: RunConfig):
    if config.engine == "ray":
        from .ray_engine import RayEngine

        return RayEngine(config.worker, workers=config.workers, address=config.ray_address)
    from .local import LocalEngine

    return LocalEngine(config.worker, workers=config.workers)


class _stop_on_sigterm:
    """SIGTERM behaves like Ctrl-C for the duration of a run: finished shards stay, temporary
    files go, the manifest says the run is incomplete."""

    def __enter__(self):
        self._old = None
        if threading.current_thread() is threading.main_thread():
            self._old = signal.signal(signal.SIGTERM, self._raise)
        return self

    @staticmethod
    def _raise(signum, frame):
        raise KeyboardInterrupt

    def __exit__(self, *exc):
        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)
        return False
