"""The output folder of a run: one run at a time (a lock), and whether it may be resumed.

The lock is an ``fcntl`` lock on ``.lock`` in the folder, which holds the pid of the run that
has it. The system drops the lock when that process ends, however it ends, so a lock left by a
run that was killed is simply taken by the next run; a run that finds the lock held stops with
E343, naming the pid.
"""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path
from typing import Optional

from ..errors import DataFormatError, Errors, OutputError
from . import shards as sh
from .identity import describe_change

LOCK = ".lock"


class OutputLock:
    """``with OutputLock(out):`` creates ``out`` if needed and holds its lock."""

    def __init__(self, out: Path):
        self.out = Path(out)
        self._fd: Optional[int] = None

    def __enter__(self) -> "OutputLock":
        if self.out.exists() and not self.out.is_dir():
            raise DataFormatError(Errors.E347.format(path=self.out))
        path = self.out / LOCK
        try:
            self.out.mkdir(parents=True, exist_ok=True)
            for _ in range(10):
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
                    os.close(fd)
                    raise OutputError(Errors.E343.format(path=self.out, pid=holder)) from None
                # The run before may have removed the file between our open and our lock: the
                # lock must be on the file that is there now.
                try:
                    same = os.stat(path).st_ino == os.fstat(fd).st_ino
                except FileNotFoundError:
                    same = False
                if same:
                    break
                os.close(fd)
            else:
                raise OutputError(Errors.E343.format(path=self.out, pid="unknown"))
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as e:
            if isinstance(e, OutputError):
                raise
            raise OutputError(Errors.E337.format(path=self.out, reason=e.strerror or e)) from e
        self._fd = fd
        return self

    def __exit__(self, *exc) -> bool:
        if self._fd is not None:
            try:
                (self.out / LOCK).unlink()  # removed while still held
            except OSError:  # gone already (removed by hand): nothing to release but the fd
                pass
            os.close(self._fd)
            self._fd = None
        return False


def prepare(out: Path, fingerprint: str, overwrite: bool,
            identity: Optional[dict] = None) -> Optional[dict]:
    """Check that ``out`` (locked, see OutputLock) is new, empty or holds this run; returns the
    previous manifest if resuming. With ``overwrite`` the previous shards and manifest go, even
    a damaged manifest, but never a manifest.json or shard file that logicparse did not write
    (E346, in either mode: such a folder is not a run to resume either)."""
    try:
        for stale in out.glob(f"{sh.TMP_PREFIX}*"):  # left by a run that was killed mid-write
            stale.unlink()
        ours = sh.shard_paths(out)
        foreign = foreign_file(out, ours, overwrite)
        if foreign is None and overwrite:
            for p in ours:
                p.unlink()
            (out / sh.MANIFEST).unlink(missing_ok=True)
            return None
        previous = sh.read_manifest(out) if foreign is None else None  # E342 when damaged
        others = sorted(p.name for p in out.iterdir() if p.name != LOCK)
    except OSError as e:
        raise OutputError(Errors.E337.format(path=out, reason=e.strerror or e)) from e
    if foreign is not None:
        raise DataFormatError(Errors.E346.format(path=foreign[0], reason=foreign[1]))
    if previous is None:
        if others:
            names = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if others[3:] else "")
            raise DataFormatError(Errors.E311.format(path=out, names=names))
        return None
    if previous.get("fingerprint") != fingerprint:
        if not ours and not previous.get("shards"):
            # A run that stopped before its first shard (a model that failed to load) left
            # nothing a new run could mix with: start afresh.
            (out / sh.MANIFEST).unlink(missing_ok=True)
            return None
        try:
            reason = describe_change(previous.get("identity"), identity)
        except (AttributeError, KeyError, TypeError, ValueError):  # an identity edited by hand
            reason = describe_change(None, identity)
        raise DataFormatError(Errors.E310.format(path=out, reason=reason))
    return previous


# Manifests are written with "format" as their first key, so even a truncated one says whose it is.
_MARK = f'"format": "{sh.FORMAT}"'.encode()
_MAX_MANIFEST = 64 << 20  # far above any run's manifest; a larger file is not parsed, only its head


def foreign_file(out: Path, shards: list, overwrite: bool) -> Optional[tuple]:
    """(path, why) of the first file a run would resume from or delete that logicparse did not
    write: manifest.json, and with ``overwrite`` the shard files when no manifest of logicparse
    vouches for them. None when there is none."""
    path = out / sh.MANIFEST
    if not os.path.lexists(path):
        for p in shards if overwrite else ():
            if not sh.carries_version(p):
                return p, "it is not an Arrow IPC file with a logicparse schema"
        return None
    if not path.is_file():  # never read: a FIFO would block the run
        return path, ("it is a folder" if path.is_dir() else "it is not a regular file"
                      if path.exists() else "it is a link to nothing")
    size = path.stat().st_size
    if size == 0:  # nothing to lose, and a run cut off by a power loss can leave one
        return None
    try:
        manifest = json.loads(path.read_bytes()) if size <= _MAX_MANIFEST else None
    except (UnicodeDecodeError, RecursionError, ValueError):
        manifest = None
    if isinstance(manifest, dict):
        if manifest.get("format") == sh.FORMAT:
            return None
        return path, f'its "format" is {manifest.get("format")!r}, not {sh.FORMAT!r}'
    # Damaged or not an object: logicparse's if its head says so or a shard of logicparse's is
    # beside it.
    with open(path, "rb") as f:
        if _MARK in f.read(256) or any(sh.carries_version(p) for p in shards):
            return None
    return path, "it is not a manifest of logicparse's, and no logicparse shard is beside it"
