"""One batch run: inputs -> chunks -> engine -> shards + manifest, with resume.

The plan depends on the input alone: documents are numbered in input order, shard ``i`` holds
documents ``[i * shard_size, (i + 1) * shard_size)``, and each shard is cut into chunks of about
``chunk_chars`` characters. A rerun of the same command keeps every finished shard that matches
its manifest entry (size and sha256) and the plan's ids, annotates again any that does not (and
says so), and annotates the rest. The manifest lists each shard as soon as it is written.
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

from ..errors import DataFormatError, Errors, LogicparseError, OutputError
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
    identity = _identity(specs, config)
    fingerprint = _fingerprint(specs, config)
    previous = _prepare_dir(out, fingerprint, config.overwrite, identity)
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
        # until each is checked, the previous run's shards stay listed (a run killed meanwhile
        # must still be able to verify them)
        "shards": (previous or {}).get("shards", []),
        "identity": identity,
    }
    sh.write_manifest(out, manifest)

    run = _Run(out, config, specs, manifest, progress, stdin, previous)
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
                 progress: Progress, stdin, previous: Optional[dict] = None):
        self.out, self.config, self.specs, self.manifest = out, config, specs, manifest
        self.progress, self.stdin = progress, stdin
        self.entries: dict[int, dict] = {}
        # the previous run's manifest entries not checked yet, by shard index
        self.unchecked: dict[int, dict] = {}
        for e in (previous or {}).get("shards", []):
            m = sh.SHARD_RE.match(e.get("file", ""))
            if m:
                self.unchecked[int(m.group(1))] = e
        self.rewritten: list[dict] = []
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
        for spec, doc in read_documents(self.specs, self.config.read, self.stdin):
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
        if path.exists():
            reason = sh.mismatch(path, entry)
            if reason is None:
                try:
                    done_ids = sh.read_shard(path, ["id"]).column("id").to_pylist()
                except (pa.ArrowInvalid, OSError, DataFormatError) as e:
                    reason = f"unreadable: {e}"
            if reason is None:
                if done_ids != ids:
                    raise DataFormatError(Errors.E310.format(
                        path=self.out, reason=f"{path.name} holds other document ids"))
                self.entries[shard] = entry
                self.resumed += 1
                self.progress.skip(len(ids))
                return
            logger.warning(Errors.W310.format(file=path.name, reason=reason))
            self.rewritten.append({"file": path.name, "reason": reason})
            path.unlink()
        self.expected[shard] = len(ids)
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
            self.entries[shard] = sh.write_shard(self.out, shard, table)
            self.memory_at_shards.append({"shard": shard, "workers_rss_mb": dict(self.worker_rss),
                                          "main_rss_mb": _own_rss_mb()})
            # Every shard is listed at once: a resumed run verifies each against its entry.
            self._write_manifest(complete=False)

    # -- manifest -----------------------------------------------------------------------------
    def _write_manifest(self, complete: bool, seconds: Optional[float] = None) -> dict:
        m = self.manifest
        m["complete"] = complete
        listed = self.entries if complete else {**self.unchecked, **self.entries}
        m["shards"] = [listed[i] for i in sorted(listed)]
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
        m["duplicate_ids"] = {"count": self.n_duplicates, "examples": self.duplicates}
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
                "rewritten_shards": self.rewritten,
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
        return m

    def finish(self, seconds: float, complete: bool) -> dict:
        if self.n_duplicates:
            logger.warning(Errors.W311.format(n=self.n_duplicates,
                                              examples=", ".join(map(repr, self.duplicates[:5]))))
        return self._write_manifest(complete, seconds)


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


def _prepare_dir(out: Path, fingerprint: str, overwrite: bool,
                 identity: Optional[dict] = None) -> Optional[dict]:
    """Create ``out`` or check that it holds this run; returns the previous manifest if resuming."""
    if out.exists() and not out.is_dir():
        raise DataFormatError(Errors.E311.format(path=out))
    try:
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
    except OSError as e:
        raise OutputError(Errors.E337.format(path=out, reason=e.strerror or e)) from e
    if previous is None:
        if ours or any(out.iterdir()):
            raise DataFormatError(Errors.E311.format(path=out))
        return None
    if previous.get("format") != sh.FORMAT:
        raise DataFormatError(Errors.E311.format(path=out))
    if previous.get("fingerprint") != fingerprint:
        raise DataFormatError(Errors.E310.format(
            path=out, reason=describe_change(previous.get("identity"), identity)))
    return previous


def _identity(specs: list[InputSpec], config: RunConfig) -> dict:
    """What the fingerprint is made of, kept in the manifest so that a refused rerun can say
    what changed: each input file's size and modification time, and the settings."""
    inputs = []
    for s in specs:
        if s.kind == "stdin":
            inputs.append({"path": "-", "kind": "stdin", "files": {}})
            continue
        root = Path(s.path)
        files = {}
        for f in (s.files if s.kind == "dir" else [root]):
            st = _stat(f)
            files[f.relative_to(root).as_posix() if s.kind == "dir" else f.name] = (
                [st.st_size, st.st_mtime_ns] if st else None)
        inputs.append({"path": str(root.resolve()), "kind": s.kind, "files": files})
    return {"inputs": inputs, "settings": config.content_settings()}


def _stat(f: Path):
    try:
        return f.stat()
    except OSError:  # a symlink loop or a dangling link: read as a row with its error
        return None


def describe_change(before: Optional[dict], now: Optional[dict]) -> str:
    """What differs between two runs' identities, in words."""
    if not before or not now:
        return "other inputs, input files changed since, or other settings"
    changes = []
    old_s, new_s = _flat(before.get("settings", {})), _flat(now["settings"])
    for k in sorted(set(old_s) | set(new_s)):
        if old_s.get(k) != new_s.get(k):
            changes.append(f"setting {k} was {old_s.get(k)!r}, now {new_s.get(k)!r}")
    old_in = [i["path"] for i in before.get("inputs", [])]
    new_in = [i["path"] for i in now["inputs"]]
    if old_in != new_in:
        changes.append(f"inputs were {old_in}, now {new_in}")
    else:
        for old, new in zip(before["inputs"], now["inputs"]):
            changes.extend(_file_changes(old["path"], old["kind"], old["files"], new["files"]))
    if not changes:
        return "it was written by another version of logicparse"
    shown = changes[:8] + ([f"... and {len(changes) - 8} more"] if len(changes) > 8 else [])
    return "; ".join(shown)


def _file_changes(root: str, kind: str, old: dict, new: dict) -> list[str]:
    out = []
    where = (lambda name: f"{root}/{name}") if kind == "dir" else (lambda name: root)
    added = sorted(set(new) - set(old))
    removed = sorted(set(old) - set(new))
    if added:
        out.append(f"{len(added)} file(s) added to {root} ({', '.join(added[:3])}"
                   f"{' ...' if len(added) > 3 else ''})")
    if removed:
        out.append(f"{len(removed)} file(s) gone from {root} ({', '.join(removed[:3])}"
                   f"{' ...' if len(removed) > 3 else ''})")
    for name in sorted(set(old) & set(new)):
        a, b = old[name], new[name]
        if a != b:
            if a and b and a[0] != b[0]:
                out.append(f"{where(name)} changed: {a[0]} bytes, now {b[0]}")
            else:
                out.append(f"{where(name)} was modified since (same size)")
    return out


def _flat(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


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
            st = _stat(f)
            size, mtime = (st.st_size, st.st_mtime_ns) if st else (-1, -1)
            h.update(f"{f.as_posix()}\0{size}\0{mtime}\n".encode())
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
