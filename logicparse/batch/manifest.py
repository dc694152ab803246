"""``manifest.json`` of a run: what the run was (inputs, settings, models, versions) and what it
wrote (each shard's entry, the counts, the run's timings and memory). The format itself, reading
and checking it, is shards.py's."""

from __future__ import annotations

import math
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Optional

import pyarrow.compute as pc

from ..tokens import SCHEMA_VERSION
from . import shards as sh

_VERSIONED = ("logicparse", "pyarrow", "torch", "transformers", "spacy", "benepar", "numpy",
              "scikit-learn")


def start(specs, config, previous: Optional[dict], total: Optional[int], fingerprint: str,
          identity: dict) -> dict:
    """The manifest of a run that starts (``previous``: the manifest of the run it resumes)."""
    return {
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
        "versions": versions(config.engine),
        # until each is checked, the previous run's shards stay listed (a run killed meanwhile
        # must still be able to verify them)
        "shards": (previous or {}).get("shards", []),
        "identity": identity,
    }


def write(run, complete: bool, seconds: Optional[float] = None) -> dict:
    """Brings ``run.manifest`` up to date with the run (``seconds``: it has ended) and writes
    it. Once complete, every count comes from shards this run wrote or verified (read back from
    the shard files, never from the manifest it resumed)."""
    m = run.manifest
    m["complete"] = complete
    listed = run.entries if complete else {**run.unchecked, **run.entries}
    m["shards"] = [listed[i] for i in sorted(listed)]
    rows = sum(e["rows"] for e in m["shards"])
    m["failed"] = sum(e["failed"] for e in m["shards"])
    if run.models:
        m["parser"], m["senses"] = run.models["parser"], run.models["senses"]
    if complete:
        m["documents"] = rows
        m["planned_shards"] = len(m["shards"])
        m["failed_ids"] = failed_ids(run.out, m["shards"])
    for spec_info, spec in zip(m["inputs"], run.specs):
        spec_info.update({k: v for k, v in run.per_input[spec.path].items()})
    m["duplicate_ids"] = {"count": run.n_duplicates, "examples": run.duplicates}
    m["decoding"] = {
        "encoding": run.config.read.encoding, "fallback": run.config.read.fallback,
        "documents": sum(v["decoding_fallback"] for v in run.per_input.values())}
    if seconds is not None:
        firsts = run.memory_at_shards[:1]
        lasts = run.memory_at_shards[-1:]
        m["run"] = {
            "engine": run.config.engine, "workers": run.config.workers,
            "threads_per_worker": run.config.worker.threads,
            "seconds": round(seconds, 3), "model_load_seconds": round(run.load_seconds, 3),
            # from the start of the run until the last worker had its models loaded
            "startup_seconds": round(max(run.ready_at - run.started_at, 0.0), 3),
            "parse_seconds": round(sum(run.parse_s.values()), 3),  # over all workers
            "resumed_shards": run.resumed,
            "rewritten_shards": run.rewritten,
            "written_shards": len(run.memory_at_shards),
            "documents_annotated": run.progress.docs,
            "sentences_annotated": run.progress.sentences,
            "memory": {
                "peak_rss_mb_per_worker": {str(k): v for k, v in
                                           sorted(run.worker_peak.items())},
                "first_shard": firsts[0] if firsts else None,
                "last_shard": lasts[0] if lasts else None,
                # the largest worker RSS when each shard was written, in writing order
                "workers_max_rss_mb_by_shard": [max(x["workers_rss_mb"].values(), default=0)
                                                for x in run.memory_at_shards],
                "main_peak_rss_mb": own_peak_mb()},
        }
    sh.write_manifest(run.out, m)
    return m


def failed_ids(out: Path, entries: list[dict], limit: int = 1000) -> list[str]:
    found = []
    for e in entries:
        if e["failed"] and len(found) < limit:
            t = sh.read_shard(out / e["file"], ["id", "error"])
            found.extend(t.filter(pc.is_valid(t.column("error"))).column("id").to_pylist())
    return found[:limit]


def versions(engine: str) -> dict:
    names = _VERSIONED + (("ray",) if engine == "ray" else ())
    out = {"python": platform.python_version()}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def own_rss_mb() -> float:
    import psutil

    return round(psutil.Process().memory_info().rss / 2**20, 1)


def own_peak_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round((peak if sys.platform == "darwin" else peak * 1024) / 2**20, 1)
