"""Inputs that change while a run reads them (appended to, truncated, rewritten).

A run's identity (identity.py) records each input file's size and modification time when the run
starts, and a resumed run trusts the shards of an unchanged identity. A document read after its
file changed would mix two versions of the input under the old identity, so every read is checked
against the recorded stat: a document read from a changed file becomes a row with an E322 error
(never a row of the new content that passes for the old), and a resumed run annotates again the
shards holding such rows (the input may be whole again by then).
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Optional

from ..errors import Errors

Stat = Optional[tuple]  # (size in bytes, modification time in ns), None: could not be read
CHANGED = "[E322]"


def stat_pair(path) -> Stat:
    try:
        st = os.stat(path)
    except OSError:  # a symlink loop or a dangling link: read as a row with its error
        return None
    return (st.st_size, st.st_mtime_ns)


def file_stats(specs) -> dict[str, Stat]:
    """Each input file's (size, mtime) now, by path as the readers open it."""
    out = {}
    for s in specs:
        if s.kind != "stdin":
            for f in (s.files if s.kind == "dir" else [Path(s.path)]):
                out[str(f)] = stat_pair(f)
    return out


def difference(then: Stat, now: Stat, bytes_read: Optional[int] = None) -> Optional[str]:
    """How a file differs from its recorded stat, in words; None when it does not."""
    if then is None:
        return None  # unreadable at the start: its row already carries the reason
    if now is None:
        return "it is gone or unreadable now"
    if now[0] != then[0]:
        return f"it had {then[0]:,} bytes when the run started, {now[0]:,} when read"
    if now[1] != then[1]:
        return "it was modified after the run started (same size)"
    if bytes_read is not None and bytes_read != then[0]:
        return f"{bytes_read:,} bytes were read of the {then[0]:,} it had when the run started"
    return None


def mark(doc, path, reason: str):
    """``doc`` as a row with the E322 error; it keeps a prefix of what was read of its text."""
    from .records import PREFIX_CHARS, escape_id

    text = doc.text[:PREFIX_CHARS] if isinstance(doc.text, str) else None
    return replace(doc, text=text, error=Errors.E322.format(
        path=escape_id(str(path), name=True), reason=reason))


def watch_records(docs: Iterator, path: Path, then: Stat, stem: str) -> Iterator:
    """The documents of a record file (.jsonl, .parquet, .arrow), each checked against the
    file's recorded stat once read. A change noticed only after the last record (a file
    truncated while read ends early) adds one error row, ``<stem>:changed``."""
    marked = False
    for doc in docs:
        reason = difference(then, stat_pair(path))
        if reason:
            marked = True
            doc = mark(doc, path, reason)
        yield doc
    reason = difference(then, stat_pair(path))
    if reason and not marked:
        from .inputs import InputDoc

        yield mark(InputDoc(f"{stem}:changed", None), path, reason)


def holds_changed_rows(errors) -> bool:
    """Whether a finished shard's ``error`` column has rows of inputs that changed when read."""
    return any(isinstance(e, str) and e.startswith(CHANGED) for e in errors)
