"""What a run's output depends on: its inputs (paths, sizes, modification times) and the
settings that change rows. The fingerprint (a hash) decides whether an output folder may be
resumed; the identity (the same, readable, kept in the manifest) says what changed when not.

Size and time only: a copy of the corpus (another inode, a new status change time) is the same
input. What they cannot show, content changed under the same size and time, a resumed run finds
shard by shard (changes.digest)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Optional

from ..tokens import SCHEMA_VERSION
from .changes import file_stat
from .inputs import InputSpec
from .records import escape_id


def identity(specs: list[InputSpec], settings: dict, stats: Optional[dict] = None) -> dict:
    """What the fingerprint is made of, kept in the manifest so that a refused rerun can say
    what changed: each input file's size and modification time (``stats``, from
    changes.file_stats, or read now), and the settings."""
    inputs = []
    for s in specs:
        if s.kind == "stdin":
            inputs.append({"path": "-", "kind": "stdin", "files": {}})
            continue
        root = Path(s.path)
        files = {}
        for f in (s.files if s.kind == "dir" else [root]):
            st = stats[str(f)] if stats is not None else file_stat(f)
            name = f.relative_to(root).as_posix() if s.kind == "dir" else f.name
            files[escape_id(name, name=True)] = list(st[:2]) if st else None
        inputs.append({"path": escape_id(str(root.resolve()), name=True), "kind": s.kind,
                       "files": files})
    return {"inputs": inputs, "settings": settings}


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


def fingerprint(specs: list[InputSpec], settings: dict, stats: Optional[dict] = None) -> str:
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
            st = stats[str(f)] if stats is not None else file_stat(f)
            size, mtime = st[:2] if st else (-1, -1)
            # bytes, not text: a file name need not be UTF-8
            h.update(os.fsencode(f) + f"\0{size}\0{mtime}\n".encode())
        ident.append([escape_id(str(Path(s.path).resolve()), name=True), s.kind, h.hexdigest()])
    blob = json.dumps({"inputs": ident, "settings": settings, "schema": SCHEMA_VERSION},
                      sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


