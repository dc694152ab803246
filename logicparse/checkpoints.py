"""Training checkpoints that hold tensors and plain data only, so resuming cannot run code, and
that are written whole or not at all.

A run folder may come from someone else. ``torch.load(weights_only=False)`` unpickles anything, and
an unpickled object can run code as it is built; ``weights_only=True`` builds tensors, numbers,
strings and containers and refuses the rest before anything runs. Every failure to read is turned
into a short reason the caller puts in its own coded message (which names the command's fix).
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
import warnings
import zipfile
from pathlib import Path
from typing import Callable, Iterable, Optional

import torch

from .errors import Errors, OutputError


def save_checkpoint(obj: dict, path: str | os.PathLike) -> None:
    """Write ``obj`` to ``path`` atomically (a stopped run leaves the old checkpoint whole). A
    write that fails, a full disk above all, leaves no partial file: E538 says how much room the
    checkpoint needs."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        # Through a Python file: torch's own writer reports a full disk as "unexpected pos",
        # while a Python file's OSError rides along with it and says what happened.
        with open(tmp, "wb") as f:
            torch.save(obj, f)
        os.replace(tmp, path)
    except BaseException as e:
        tmp.unlink(missing_ok=True)
        error = _write_error(e, path, tensor_bytes(obj))
        if error is None:
            raise
        raise error from e


def save_folder(path: str | os.PathLike, *parts) -> None:
    """Save ``parts`` (a model, its tokenizer: ``save_pretrained`` objects) as the folder ``path``,
    whole or not at all: written beside it and renamed into place, so a failure (E538 on a full
    disk) never leaves a folder holding a config without its weights, and keeps the previous one."""
    path = Path(path)
    tmp, old = path.with_name(path.name + ".tmp"), path.with_name(path.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)  # left by a run killed while writing
    if path.exists():
        shutil.rmtree(old, ignore_errors=True)
    try:
        for part in parts:
            part.save_pretrained(tmp)
        if path.exists():  # a folder cannot be renamed onto one that holds files
            os.replace(path, old)
        os.replace(tmp, path)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if old.exists() and not path.exists():
            os.replace(old, path)
        error = _write_error(e, path, sum(tensor_bytes(p.state_dict()) for p in parts
                                          if hasattr(p, "state_dict")))
        if error is None:
            raise
        raise error from e
    shutil.rmtree(old, ignore_errors=True)


def tensor_bytes(obj) -> int:
    """The bytes of the tensors in ``obj`` (dicts, lists and tuples searched), each storage once:
    about what torch.save or save_pretrained writes."""
    seen, total, stack = set(), 0, [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            storage = item.untyped_storage()
            if storage.data_ptr() not in seen:
                seen.add(storage.data_ptr())
                total += storage.nbytes()
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return total


def _write_error(e: BaseException, path: Path, need: int) -> Optional[OutputError]:
    """E538 for a write that failed in the file system, naming the room needed and free; None
    for any other failure. Writers wrap the OSError: torch in a RuntimeError whose context it is,
    safetensors in its own error as "(os error 28)"."""
    reason, cause = None, e
    while cause is not None and reason is None:
        if isinstance(cause, OSError):
            reason = cause.strerror or str(cause) or type(cause).__name__
        cause = cause.__cause__ or cause.__context__
    code = re.search(r"\(os error (\d+)\)", str(e))
    if reason is None and code:
        reason = os.strerror(int(code.group(1)))
    if reason is None:
        return None
    try:
        free = f"{shutil.disk_usage(path.parent).free / 1e6:,.1f} MB"
    except OSError:
        free = "an unknown amount"
    return OutputError(Errors.E538.format(path=path, reason=reason, need=f"{need / 1e6:,.1f} MB",
                                          free=free))


def rng_state(device: str) -> dict:
    """The random streams a resumed run must continue: torch's CPU stream and, for a run on a
    GPU, that GPU's (dropout draws from it there)."""
    state = {"torch": torch.get_rng_state()}
    if str(device).startswith("cuda"):
        state["cuda"] = torch.cuda.get_rng_state(device)
    return state


def set_rng_state(state: dict, device: str) -> None:
    """Restore what :func:`rng_state` saved, the GPU's stream onto the run's ``device`` (a run
    saved on the CPU and resumed on a GPU keeps the GPU stream its seed gave). The states are
    CPU byte tensors, so a checkpoint is loaded onto the CPU first."""
    torch.set_rng_state(state["torch"].cpu())
    if "cuda" in state and str(device).startswith("cuda"):
        torch.cuda.set_rng_state(state["cuda"].cpu(), device)


# torch.save stores its zip entries uncompressed, so a checkpoint it wrote declares no more bytes
# than its file holds. Deflate reaches about 1000x, so a small file can declare gigabytes, and
# torch allocates each entry's declared size before inflating it: a file that declares more than
# this many times its size (a re-zipped checkpoint stays far below) is refused unread.
MAX_INFLATION = 8
INFLATION_SLACK = 1 << 20


def check_inflation(path: Path, fail: Callable[[str], Exception]) -> None:
    """Raise ``fail(reason)`` when the zip archive at ``path`` declares more uncompressed bytes
    than :data:`MAX_INFLATION` times its size, reading only its central directory."""
    with open(path, "rb") as f:
        if f.read(4) != b"PK\x03\x04":
            return  # torch reads only files that start so as zip archives; others inflate nothing
    try:
        with zipfile.ZipFile(path) as archive:
            entries = archive.infolist()
    except Exception as e:  # noqa: BLE001 - torch would read a directory Python cannot: refuse
        raise fail(f"its zip directory cannot be read ({type(e).__name__}: {str(e)[:200]})"
                   ) from None
    size, total = path.stat().st_size, sum(e.file_size for e in entries)
    if entries and total > MAX_INFLATION * size + INFLATION_SLACK:
        worst = max(entries, key=lambda e: e.file_size / max(e.compress_size, 1))
        raise fail(f"its zip entries declare {total:,} bytes uncompressed in a file of {size:,} "
                   f"bytes ({worst.filename}: {worst.file_size:,} bytes from "
                   f"{worst.compress_size:,}), more than {MAX_INFLATION}x what torch.save writes, "
                   "so it was not inflated")


def load_state(module: torch.nn.Module, state, fail: Callable[[str], Exception]) -> None:
    """Load ``state`` into ``module`` (strictly), or raise ``fail(reason)`` naming the first tensor
    whose name or shape differs: a checkpoint of another model, refused before any weight is
    copied (torch's own error lists every tensor, dozens of lines)."""
    if not isinstance(state, dict):
        raise fail(f"its model weights are a {type(state).__name__}, not a state dictionary")
    own = module.state_dict()
    for name, tensor in own.items():
        theirs = state.get(name)
        if not isinstance(theirs, torch.Tensor):
            raise fail(f"it lacks this model's tensor {name} (it was trained from another model)")
        if theirs.shape != tensor.shape:
            raise fail(f"its tensor {name} is {list(theirs.shape)} and this model's is "
                       f"{list(tensor.shape)} (it was trained from another model)")
    extra = [name for name in state if name not in own]
    if extra:
        raise fail(f"it holds {len(extra)} tensor(s) this model lacks, first {extra[0]} (it was "
                   "trained from another model)")
    module.load_state_dict(state)


def load_checkpoint(path: str | os.PathLike, required: Iterable[str],
                    fail: Callable[[str], Exception], map_location="cpu") -> dict:
    """The checkpoint at ``path`` as a dict holding every key of ``required``.

    ``fail(reason)`` builds the exception raised when the file is missing, empty, not a torch
    checkpoint, would inflate far beyond its size, holds objects other than tensors and plain
    data, or lacks a key.
    """
    path = Path(path)
    if not path.is_file():
        raise fail("no such file")
    if path.stat().st_size == 0:
        raise fail("the file is empty (a run stopped while writing it, or it was truncated)")
    check_inflation(path, fail)
    try:
        with warnings.catch_warnings():
            # A pickle of another protocol draws a torch warning before it is refused below.
            warnings.simplefilter("ignore", UserWarning)
            ckpt = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as e:
        lines = [l.strip() for l in str(e).splitlines() if l.strip()] or [type(e).__name__]
        # torch names what it refused on a later line of its long message; show that line only.
        detail = next((l for l in lines if "unsupported global" in l.lower()), "")
        if detail:
            raise fail("it holds objects other than tensors and plain data, which could run code "
                       f"when loaded, so it was not loaded ({detail[:200]}); logicparse never "
                       "writes such checkpoints") from None
        detail = next((l for l in lines if "unsupported operand" in l.lower()), lines[0])
        raise fail(f"it is not a readable torch checkpoint ({detail[:200]})") from None
    except Exception as e:  # noqa: BLE001 - any failure on a received file is a refusal
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise fail(f"it is not a readable torch checkpoint ({type(e).__name__}: {first[:200]})") from None
    if not isinstance(ckpt, dict):
        raise fail(f"it holds a {type(ckpt).__name__}, not a checkpoint dictionary")
    missing = [k for k in required if k not in ckpt]
    if missing:
        raise fail(f"it lacks {', '.join(missing)} (it was not written by this training command)")
    return ckpt
