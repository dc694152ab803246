"""What the cases of benchmarks/robustness/robustness.py share: the check record, the real
commands."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

# This folder is on sys.path when run as a script; service_load.py is in benchmarks/speed/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "speed"))
from service_load import run_server  # noqa: E402

SENTENCE = "She left early since she had a train to catch."
CLI = [sys.executable, "-c", "from logicparse.cli import main; main()"]
RESULTS: list[dict] = []

CORPUS = [
    "If it rains tomorrow, we will stay at home and read.",
    "She left early since she had a train to catch.",
    "The plan was cheap; however, nobody liked it.",
    "He kept working while the others went out for lunch.",
    "Although the team played well, they did not win the final.",
    "The road was closed due to the storm, so we went back.",
]


def corpus_jsonl(path: Path) -> Path:
    """CORPUS as a .jsonl file at ``path``, ids d0, d1, ..."""
    path.write_text("".join(json.dumps({"id": f"d{i}", "text": t}) + "\n"
                            for i, t in enumerate(CORPUS)))
    return path


def check(case: int, name: str, ok: bool, detail: str = "") -> bool:
    RESULTS.append({"case": case, "check": name, "ok": bool(ok), "detail": detail})
    print(f"  [{'pass' if ok else 'FAIL'}] {name}" + (f": {detail}" if detail else ""), flush=True)
    return ok


@contextlib.contextmanager
def serve(*flags: str, log: Path):
    """`logicparse serve` on a free port of 127.0.0.1; yields (url, port, process)."""
    with run_server(*flags, log=log, ready_within=300) as (url, port, proc, _):
        yield url, port, proc


def without_permission_override() -> None:
    """Drop CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH from the bounding set (Linux): root then
    meets file permissions like any user, which it otherwise reads and writes through."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def annotate(*args, cwd: Path, user: bool = False, timeout: float = 600
             ) -> subprocess.CompletedProcess:
    """`logicparse annotate ...`; ``user``: bound by file permissions even when run as root."""
    kw = {"preexec_fn": without_permission_override} if user and os.geteuid() == 0 else {}
    return subprocess.run([*CLI, "annotate", *map(os.fsdecode, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, **kw)


def rows_of(out: Path) -> dict:
    """{id: the first six characters of its error ('' when none)} of a finished run."""
    from logicparse.batch import read_shards

    return {row["id"]: (row["error"] or "")[:6] for row in read_shards(out).to_pylist()}
