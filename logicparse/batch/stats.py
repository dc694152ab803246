"""Corpus statistics of a shard directory (``logicparse shards stats``), computed with Arrow
kernels one shard at a time, so a large corpus never has to fit in memory."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.compute as pc

from ..taxonomy import RELATIONS
from . import shards as sh


def shard_stats(out_dir) -> dict:
    out_dir = Path(out_dir)
    paths = sh.checked_paths(out_dir, allow_incomplete=True)
    manifest = sh.read_manifest(out_dir) or {}
    docs = sentences = tokens = labelled = failed = 0
    per_relation: Counter = Counter()
    per_keyword: Counter = Counter()
    cols = ["tokens", "sentence_starts", "logic", "relations", "error"]
    for p in paths:
        t = sh.read_shard(p, cols)
        docs += t.num_rows
        failed += t.num_rows - t.column("error").null_count
        sentences += pc.sum(pc.list_value_length(t.column("sentence_starts"))).as_py() or 0
        tokens += pc.sum(pc.list_value_length(t.column("tokens"))).as_py() or 0
        per_token = pc.list_value_length(pc.list_flatten(t.column("logic")))
        labelled += pc.sum(pc.greater(per_token, 0)).as_py() or 0
        rels = pc.list_flatten(t.column("relations"))
        if len(rels):
            for v in pc.value_counts(pc.struct_field(rels, "relation")).to_pylist():
                per_relation[v["values"]] += v["counts"]
            for v in pc.value_counts(pc.utf8_lower(pc.struct_field(rels, "keyword"))).to_pylist():
                per_keyword[v["values"]] += v["counts"]
    return {
        "documents": docs,
        "sentences": sentences,
        "tokens": tokens,
        "relations": sum(per_relation.values()),
        "labelled_token_share": round(labelled / tokens, 4) if tokens else 0.0,
        "failed": failed,
        "shards": len(paths),
        "complete": bool(manifest.get("complete")),
        "parser": manifest.get("parser"),
        "senses": manifest.get("senses"),
        "per_relation": {r: per_relation.get(r, 0) for r in RELATIONS},
        "per_keyword": dict(sorted(per_keyword.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
