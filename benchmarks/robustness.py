"""Adversarial cases against a real `logicparse serve` and real `logicparse annotate` runs.

Every case starts the real command (127.0.0.1 only, a free port, bounded in time and size),
does what a hostile or careless user would, and checks what the service or the run must do:

1. pathological request: `{"text": "a " * 50000}` in flight; one-sentence requests alongside
   must answer 200 within 5 s, the server's peak RSS stay under 2 GB, and the long request's work
   stop (its capacity return) soon after its deadline;
2. slow clients: with `--max-connections 6`, six sockets send headers and one byte of a
   100,000-byte body and stall; /healthz must still answer, the stalled sockets get 408 and are
   closed after the read timeout, and then annotation works again;
3. corrupted shard: one byte flipped in a finished shard; the rerun must rewrite it (saying so)
   and the final shards equal an uninterrupted run's;
4. bad records: a .jsonl line whose text is not a string, a null text, a Parquet text column of
   integers: the run completes with one row per record, the bad ones with a coded error;
5. tracebacks: an unreadable input file, a read-only output directory, a text over 1,000,000
   characters: coded errors or error rows, never a traceback;
6. `Annotator.pipe`: a generator failing after four texts gives the four Documents before its
   error; fewer ids than texts is a coded error after the Documents it could give;
7. smaller: duplicate ids are reported, a symlink loop is a row with an error, error bodies of
   `Content-Length: abc`, deep JSON nesting, 404 and 405 have `{detail, code}`, SIGTERM ends the
   server without a traceback.

Prints one line per check, then one JSON object as the last line of stdout.

    python benchmarks/robustness.py                 # all cases
    python benchmarks/robustness.py --cases 1 3     # some
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import psutil

SENTENCE = "She left early since she had a train to catch."
CLI = [sys.executable, "-c", "from logicparse.cli import main; main()"]
RESULTS: list[dict] = []


def check(case: int, name: str, ok: bool, detail: str = "") -> bool:
    RESULTS.append({"case": case, "check": name, "ok": bool(ok), "detail": detail})
    print(f"  [{'pass' if ok else 'FAIL'}] {name}" + (f": {detail}" if detail else ""), flush=True)
    return ok


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree_rss_mb(pid: int) -> float:
    try:
        proc = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [proc] + proc.children(recursive=True)) / 2**20
    except psutil.NoSuchProcess:
        return 0.0


@contextlib.contextmanager
def serve(*flags: str, log: Path):
    """`logicparse serve` on a free port of 127.0.0.1; yields (url, port, process)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out = open(log, "w")
    proc = subprocess.Popen([*CLI, "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--log-level", "warning", *flags],
                            stdout=out, stderr=subprocess.STDOUT)
    try:
        t0 = time.monotonic()
        while True:
            if proc.poll() is not None:
                sys.exit(f"logicparse serve exited with {proc.returncode}: {log.read_text()}")
            try:
                if httpx.get(url + "/readyz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() - t0 > 300:
                sys.exit("logicparse serve did not become ready in 300 s")
            time.sleep(0.3)
        yield url, port, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
        out.close()


# --- 1 ----------------------------------------------------------------------------------------

def case_pathological(tmp: Path) -> None:
    print("1. pathological request in flight", flush=True)
    with serve(log=tmp / "serve1.log") as (url, _, proc):
        peak = [tree_rss_mb(proc.pid)]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak.append(tree_rss_mb(proc.pid))
                time.sleep(0.1)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        big: dict = {}

        def send_big():
            t0 = time.monotonic()
            r = httpx.post(url + "/v1/annotate", json={"text": "a " * 50000}, timeout=300)
            big.update(status=r.status_code, code=r.json().get("code") if r.status_code != 200
                       else None, seconds=time.monotonic() - t0, at=time.monotonic())

        sender = threading.Thread(target=send_big)
        sender.start()
        time.sleep(2.0)  # the long request is being worked on
        small = []
        while sender.is_alive():
            t0 = time.monotonic()
            r = httpx.post(url + "/v1/annotate", json={"text": SENTENCE}, timeout=60)
            small.append((r.status_code, time.monotonic() - t0))
            time.sleep(0.5)
        sender.join()
        # Capacity comes back: the stopped work frees the thread and its slot.
        freed = None
        while time.monotonic() - big["at"] < 30:
            if httpx.get(url + "/readyz").json()["pending"] == 0:
                freed = time.monotonic() - big["at"]
                break
            time.sleep(0.1)
        t0 = time.monotonic()
        after = httpx.post(url + "/v1/annotate", json={"text": SENTENCE}, timeout=60)
        after_s = time.monotonic() - t0
        stop.set()
        sampler.join()
    worst = max((s for _, s in small), default=float("nan"))
    check(1, "long request answered (504 at its deadline, or 200)",
          big["status"] in (200, 504), f"{big['status']} {big.get('code')} after "
          f"{big['seconds']:.1f} s")
    check(1, "one-sentence requests alongside all 200 within 5 s",
          small and all(st == 200 for st, _ in small) and worst < 5,
          f"{len(small)} requests, statuses {sorted({st for st, _ in small})}, slowest "
          f"{worst:.2f} s")
    check(1, "server peak RSS under 2 GB", max(peak) < 2048,
          f"peak {max(peak):.0f} MiB (start {peak[0]:.0f} MiB)")
    check(1, "capacity back within 5 s of the answer", freed is not None and freed < 5,
          f"pending 0 after {freed if freed is None else round(freed, 2)} s")
    check(1, "next request 200", after.status_code == 200, f"{after_s:.2f} s")


CASES = {1: case_pathological}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, nargs="*", default=sorted(CASES))
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="logicparse-robustness-"))
    os.chmod(tmp, 0o755)
    try:
        for n in args.cases:
            CASES[n](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    failed = [r for r in RESULTS if not r["ok"]]
    print(f"{len(RESULTS) - len(failed)} of {len(RESULTS)} checks pass")
    print(json.dumps({"benchmark": "robustness", "cases": args.cases, "checks": len(RESULTS),
                      "failed": len(failed), "results": RESULTS}))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
