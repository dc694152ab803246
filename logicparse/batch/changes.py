"""Inputs that change while a run reads them (appended to, truncated, rewritten, replaced, lost).

A run's identity (identity.py) records each input file's size and modification time when the run
starts, and a resumed run trusts the shards of an unchanged identity. A document read after its
file changed would mix two versions of the input under the old identity, so every read is checked
against the stat taken at the start, which also holds the file's status change time, device and
inode: an edit whose time was set back (``touch -r``) or a file of the same size and time swapped
in shows there. A document read from a changed file becomes a row with an E322 error (never a row
of the new content that passes for the old), as does a file that could be read at the start and
is gone or no longer a regular file when read; a resumed run annotates again the shards holding
such rows (the input may be whole again by then).

Between runs only the content can tell: each shard's manifest entry keeps a digest of the
documents it was annotated from (``digest``), and a resumed run keeps a shard only if the
documents it reads for it now have the same digest.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import replace
from pathlib import Path
from typing import Iterator, Optional

from ..errors import Errors

# (size in bytes, modification time in ns, status change time in ns, device, inode); None: the
# file could not be read. The identity uses the first two only (see identity.py).
Stat = Optional[tuple]
CHANGED = "[E322]"


def stat_of(st: os.stat_result) -> tuple:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_dev, st.st_ino)


def file_stat(path) -> Stat:
    try:
        st = os.stat(path)
    except OSError:  # a symlink loop or a dangling link: read as a row with its error
        return None
    return stat_of(st)


def file_stats(specs) -> dict[str, Stat]:
    """Each input file's stat now (see ``Stat``), by path as the readers open it."""
    out = {}
    for s in specs:
        if s.kind != "stdin":
            for f in (s.files if s.kind == "dir" else [Path(s.path)]):
                out[str(f)] = file_stat(f)
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
    # Size and time can be set back (touch -r) or matched by another file; the file itself
    # (device, inode) and its status change time cannot.
    if now[3:5] != then[3:5]:
        return "it was replaced by another file after the run started (same size and time)"
    if now[2:3] != then[2:3]:
        return "it was written to after the run started, its size and time kept"
    if bytes_read is not None and bytes_read != then[0]:
        return f"{bytes_read:,} bytes were read of the {then[0]:,} it had when the run started"
    return None


def mark(doc, path, reason: str):
    """``doc`` as a row with the E322 error; it keeps a prefix of what was read of its text."""
    from .records import PREFIX_CHARS, escape_id

    text = doc.text[:PREFIX_CHARS] if isinstance(doc.text, str) else None
    return replace(doc, text=text, error=Errors.E322.format(
        path=escape_id(str(path), name=True), reason=reason))


def lost(doc, path, then: Stat, reason: str):
    """``doc``, the error row of a file that cannot be read now (``reason``: why), as an E322
    row if the file was another when the run started (readable, a regular file): a rerun with
    the file restored then annotates it again."""
    if difference(then, file_stat(path)) is None:
        return doc
    return mark(doc, path, reason)


def watch_records(docs: Iterator, path: Path, then: Stat, stem: str) -> Iterator:
    """The documents of a record file (.jsonl, .parquet, .arrow), each checked against the
    file's recorded stat once read. A change noticed only after the last record (a file
    truncated while read ends early) adds one error row, ``<stem>:changed``."""
    marked = False
    for doc in docs:
        reason = difference(then, file_stat(path))
        if reason:
            marked = True
            doc = mark(doc, path, reason)
        yield doc
    reason = difference(then, file_stat(path))
    if reason and not marked:
        from .records import InputDoc

        yield mark(InputDoc(f"{stem}:changed", None), path, reason)


def holds_changed_rows(errors) -> bool:
    """Whether a finished shard's ``error`` column has rows of inputs that changed when read."""
    return any(isinstance(e, str) and e.startswith(CHANGED) for e in errors)


def digest(ids, texts, errors) -> str:
    """A hash of a shard's documents as read (ids, texts, read errors), which decide its rows
    under the run's settings: kept in its manifest entry, compared when a run resumes."""
    h = hashlib.blake2b(digest_size=16)
    for fields in zip(ids, texts, errors):
        for value in fields:
            if value is None:
                h.update(b"n")
            else:  # length first: no two sequences of fields give the same bytes
                data = value.encode("utf-8", "surrogatepass")
                h.update(b"s" + len(data).to_bytes(8, "little") + data)
    return h.hexdigest()
