"""One batch run: inputs -> chunks -> engine -> shards + manifest, with resume.

The plan depends on the input alone: documents are numbered in input order, shard ``i`` holds
documents ``[i * shard_size, (i + 1) * shard_size)``, and each shard is cut into chunks of about
``chunk_chars`` characters. A rerun of the same command keeps every finished shard whose ids match
the plan and annotates only the rest.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import platform
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc

from ..errors import DataFormatError, Errors, LogicparseError
from ..tokens import SCHEMA_VERSION
from . import shards as sh
from .inputs import InputSpec, ReadOptions, count_documents, read_documents, resolve_inputs
from .progress import Progress, make_progress
from .worker import Chunk, ChunkResult, WorkerSpec

logger = logging.getLogger(__name__)

ENGINES = ("local", "ray")
_VERSIONED = ("logicparse", "pyarrow", "torch", "transformers", "spacy", "benepar", "numpy",
              "scikit-learn")


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
                "factory": w.factory}


def annotate_corpus(inputs: list[str], out, config: Optional[RunConfig] = None,
                    progress: Optional[Progress] = None, stdin: Optional[BinaryIO] = None) -> dict:
    """Annotate ``inputs`` into shards under ``out``; returns the manifest (also written to
    ``out/manifest.json``). Raises :class:`Interrupted` on SIGINT/SIGTERM after cleaning up."""
    config = config or RunConfig()
    config.check()
    specs = resolve_inputs(inputs)
    out = Path(out)
    fingerprint = _fingerprint(specs, config)
    previous = _prepare_dir(out, fingerprint, config.overwrite)
    total = count_documents(specs, config.read)
    progress = progress or make_progress(quiet=True)

    manifest = {
        "format": sh.FORMAT,
        "schema_version": SCHEMA_VERSION,
        "complete": False,
        "documents": total,
        "planned_shards": math.ceil(total / config.shard_size) if total is not None else None,
        "shard_size": config.shard_size,
        "compression": sh.COMPRESSION,
        "parser": (previous or {}).get("parser", config.worker.parser),
        "senses": (previous or {}).get("senses", config.worker.senses),
        "mapping": config.worker.mapping,
        "settings": config.content_settings(),
        "fingerprint": fingerprint,
        "inputs": [s.describe() for s in specs],
        "versions": _versions(config.engine),
        "shards": [],
    }
    sh.write_manifest(out, manifest)

    run = _Run(out, config, specs, manifest, progress, stdin)
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
                 progress: Progress, stdin):
        self.out, self.config, self.specs, self.manifest = out, config, specs, manifest
        self.progress, self.stdin = progress, stdin
        self.entries: dict[int, dict] = {}
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
        self._last_manifest = time.monotonic()

    # -- plan ---------------------------------------------------------------------------------
    def plan(self) -> Iterator[Chunk]:
        shard, ids, texts = 0, [], []
        for spec, doc in read_documents(self.specs, self.config.read, self.stdin):
            self.documents += 1
            info = self.per_input[spec.path]
            info["documents"] += 1
            if doc.fallback:
                info["decoding_fallback"] += 1
                if len(info["fallback_ids"]) < 100:
                    info["fallback_ids"].append(doc.id)
            ids.append(doc.id)
            texts.append(doc.text)
            if len(ids) == self.config.shard_size:
                yield from self._plan_shard(shard, ids, texts)
                shard, ids, texts = shard + 1, [], []
        if ids:
            yield from self._plan_shard(shard, ids, texts)

    def _plan_shard(self, shard: int, ids: list, texts: list) -> Iterator[Chunk]:
        path = self.out / sh.shard_name(shard)
        if path.exists():
            try:
                done_ids = sh.read_shard(path, ["id"]).column("id").to_pylist()
            except (pa.ArrowInvalid, OSError, DataFormatError) as e:
                logger.warning("redoing unreadable shard %s: %s", path, e)
                path.unlink()
            else:
                if done_ids != ids:
                    raise DataFormatError(Errors.E310.format(
                        path=self.out, reason=f"{path.name} holds other document ids"))
                self.entries[shard] = sh.shard_entry(path)
                self.resumed += 1
                self.progress.skip(len(ids))
                return
        self.expected[shard] = len(ids)
        for start, end in cut_chunks(texts, self.config.chunk_chars, self.config.chunk_docs):
            yield Chunk(shard, start, tuple(ids[start:end]), tuple(texts[start:end]))

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
        if "pid" in stats:
            self.worker_rss[stats["pid"]] = stats["rss_mb"]
            self.worker_peak[stats["pid"]] = max(stats["peak_rss_mb"],
                                                 self.worker_peak.get(stats["pid"], 0))
        if stats.get("parser") is not None or "senses" in stats:
            self.models = {"parser": stats.get("parser"), "senses": stats.get("senses")}
        if "load_s" in stats:
            self.load_seconds = max(self.load_seconds, stats["load_s"])
            self.ready_at = max(self.ready_at, stats["ready_at"])
        if "parse_s" in stats:  # cumulative per worker
            self.parse_s[stats["pid"]] = stats["parse_s"]
        sentences = pc.sum(pc.list_value_length(table.column("sentence_starts"))).as_py() or 0
        failed = table.num_rows - table.column("error").null_count
        self.progress.advance(table.num_rows, sentences, failed)
        shard = result.chunk.shard
        self.parts.setdefault(shard, []).append((result.chunk.start, table))
        if sum(t.num_rows for _, t in self.parts[shard]) == self.expected.get(shard, -1):
            parts = sorted(self.parts.pop(shard), key=lambda p: p[0])
            table = pa.concat_tables([t for _, t in parts])
            self.entries[shard] = sh.write_shard(self.out, shard, table)
            self.memory_at_shards.append({"shard": shard, "workers_rss_mb": dict(self.worker_rss),
                                          "main_rss_mb": _own_rss_mb()})
            if time.monotonic() - self._last_manifest > 30:
                self._write_manifest(complete=False)

    # -- manifest -----------------------------------------------------------------------------
    def _write_manifest(self, complete: bool, seconds: Optional[float] = None) -> dict:
        m = self.manifest
        m["complete"] = complete
        m["shards"] = [self.entries[i] for i in sorted(self.entries)]
        rows = sum(e["rows"] for e in m["shards"])
        m["failed"] = sum(e["failed"] for e in m["shards"])
        if self.models:
            m["parser"], m["senses"] = self.models["parser"], self.models["senses"]
        if complete:
            m["documents"] = rows
            m["planned_shards"] = len(m["shards"])
            m["failed_ids"] = _failed_ids(self.out, m["shards"])
        for spec_info, spec in zip(m["inputs"], self.specs):
            spec_info.update({k: v for k, v in self.per_input[spec.path].items()})
        m["decoding"] = {
            "encoding": self.config.read.encoding, "fallback": self.config.read.fallback,
            "documents": sum(v["decoding_fallback"] for v in self.per_input.values())}
        if seconds is not None:
            firsts = self.memory_at_shards[:1]
            lasts = self.memory_at_shards[-1:]
            m["run"] = {
                "engine": self.config.engine, "workers": self.config.workers,
                "threads_per_worker": self.config.worker.threads,
                "seconds": round(seconds, 3), "model_load_seconds": round(self.load_seconds, 3),
                # from the start of the run until the last worker had its models loaded
                "startup_seconds": round(max(self.ready_at - self.started_at, 0.0), 3),
                "parse_seconds": round(sum(self.parse_s.values()), 3),  # over all workers
                "resumed_shards": self.resumed,
                "written_shards": len(self.memory_at_shards),
                "documents_annotated": self.progress.docs,
                "sentences_annotated": self.progress.sentences,
                "memory": {
                    "peak_rss_mb_per_worker": {str(k): v for k, v in
                                               sorted(self.worker_peak.items())},
                    "first_shard": firsts[0] if firsts else None,
                    "last_shard": lasts[0] if lasts else None,
                    # the largest worker RSS when each shard was written, in writing order
                    "workers_max_rss_mb_by_shard": [max(x["workers_rss_mb"].values(), default=0)
                                                    for x in self.memory_at_shards],
                    "main_peak_rss_mb": _own_peak_mb()},
            }
        sh.write_manifest(self.out, m)
        self._last_manifest = time.monotonic()
        return m

    def finish(self, seconds: float, complete: bool) -> dict:
        return self._write_manifest(complete, seconds)


def cut_chunks(texts: list, chunk_chars: int, chunk_docs: int) -> list[tuple[int, int]]:
    """[start, end) ranges of one shard's documents: consecutive documents until about
    ``chunk_chars`` characters or ``chunk_docs`` documents. Depends on the texts alone."""
    out, start = [], 0
    while start < len(texts):
        end, chars = start, 0
        while end < len(texts) and (end == start or (chars < chunk_chars
                                                     and end - start < chunk_docs)):
            chars += len(texts[end] or "")
            end += 1
        out.append((start, end))
        start = end
    return out


def _make_engine(config: RunConfig):
    if config.engine == "ray":
        from .raydata import RayEngine

        return RayEngine(config.worker, workers=config.workers, address=config.ray_address)
    from .local import LocalEngine

    return LocalEngine(config.worker, workers=config.workers)


def _failed_ids(out: Path, entries: list[dict], limit: int = 1000) -> list[str]:
    found = []
    for e in entries:
        if e["failed"] and len(found) < limit:
            t = sh.read_shard(out / e["file"], ["id", "error"])
            found.extend(t.filter(pc.is_valid(t.column("error"))).column("id").to_pylist())
    return found[:limit]


def _prepare_dir(out: Path, fingerprint: str, overwrite: bool) -> Optional[dict]:
    """Create ``out`` or check that it holds this run; returns the previous manifest if resuming."""
    if out.exists() and not out.is_dir():
        raise DataFormatError(Errors.E311.format(path=out))
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob(f"{sh.TMP_PREFIX}*"):  # left by a run that was killed mid-write
        stale.unlink()
    previous = sh.read_manifest(out)
    ours = sh.shard_paths(out)
    if overwrite:
        for p in ours:
            p.unlink()
        (out / sh.MANIFEST).unlink(missing_ok=True)
        return None
    if previous is None:
        if ours or any(out.iterdir()):
            raise DataFormatError(Errors.E311.format(path=out))
        return None
    if previous.get("format") != sh.FORMAT:
        raise DataFormatError(Errors.E311.format(path=out))
    if previous.get("fingerprint") != fingerprint:
        raise DataFormatError(Errors.E310.format(
            path=out, reason="other inputs, input files changed since, or other settings"))
    return previous


def _fingerprint(specs: list[InputSpec], config: RunConfig) -> str:
    """Identifies what the shards will contain: the inputs (paths, sizes, modification times)
    and the settings that change rows. Execution settings (workers, engine) are left out, so a
    run may be resumed with other ones."""
    ident = []
    for s in specs:
        if s.kind == "stdin":
            ident.append(["-"])
            continue
        files = s.files if s.kind == "dir" else [Path(s.path)]
        h = hashlib.sha256()
        for f in files:
            st = f.stat()
            h.update(f"{f.as_posix()}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        ident.append([str(Path(s.path).resolve()), s.kind, h.hexdigest()])
    blob = json.dumps({"inputs": ident, "settings": config.content_settings(),
                       "schema": SCHEMA_VERSION}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _versions(engine: str) -> dict:
    names = _VERSIONED + (("ray",) if engine == "ray" else ())
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def _own_rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def _own_peak_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round((peak if sys.platform == "darwin" else peak * 1024) / 2**20, 1)


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
