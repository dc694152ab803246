"""Training checkpoints that hold tensors and plain data only, so resuming cannot run code.

A run folder may come from someone else. ``torch.load(weights_only=False)`` unpickles anything, and
an unpickled object can run code as it is built; ``weights_only=True`` builds tensors, numbers,
strings and containers and refuses the rest before anything runs. Every failure is turned into a
short reason the caller puts in its own coded message (which names the command's fix).
"""

from __future__ import annotations

import os
import pickle
import warnings
from pathlib import Path
from typing import Callable, Iterable

import torch


def save_checkpoint(obj: dict, path: str | os.PathLike) -> None:
    """Write ``obj`` to ``path`` atomically (a stopped run leaves the old checkpoint whole)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


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


def load_checkpoint(path: str | os.PathLike, required: Iterable[str],
                    fail: Callable[[str], Exception], map_location="cpu") -> dict:
    """The checkpoint at ``path`` as a dict holding every key of ``required``.

    ``fail(reason)`` builds the exception raised when the file is missing, empty, not a torch
    checkpoint, holds objects other than tensors and plain data, or lacks a key.
    """
    path = Path(path)
    if not path.is_file():
        raise fail("no such file")
    if path.stat().st_size == 0:
        raise fail("the file is empty (a run stopped while writing it, or it was truncated)")
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
