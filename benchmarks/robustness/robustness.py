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
   server without a traceback;
8. small requests beside pathological ones (timings): two `"a " * 50000` texts in flight, then
   a list of 230,000 numbers (460 KB, under the body limit): one-sentence requests 200 within
   5 s, /healthz within 1 s, the list a coded 413 within 2 s with a small body;
9. inputs that are not plain files: a FIFO and a socket in the input folder, links to /dev/zero
   and /dev/urandom (main process under 2 GB), a file name that is not UTF-8;
10. a 300 MB text file: an E333 row keeping a prefix, main process under 1 GB;
11. records a parser fails on: 5,000-digit numbers, escaped lone surrogates in text and id, deep
    nesting, invalid UTF-8 in Arrow and Parquet strings: one row each, run and rerun;
12. Parquet and Arrow inputs without the text column: E308 before --out is created;
13. a damaged manifest.json (empty, truncated, a list, a shard entry that is a string):
    `annotate`, `shards stats`, `shards show` exit 2 with a code; forged counts rebuilt;
14. two runs on one --out: the second refused naming the first's pid; a dead run's lock taken;
15. headers of 77 MB and 8 x 29 MB (431), a WebSocket upgrade, a valid request pipelined with a
    malformed one: `{detail, code}` each, the valid answer kept;
16. the 64 KB ambiguous-keyword request repeated beside 8 clients x 60 s: refused at once (E425),
    one-sentence requests within 2 s, no 5xx, RSS +10% at most; budget raised: 504, then free;
17. `"if " * 299 + "."`: at most 16 labels a token; 15 of them over the answer bound: 413 E426;
18. a forged Host: a relative redirect; HEAD / and /healthz 200; a 422 in the client's terms.
19-23. code-running checkpoints, escapes in ids and text, inputs changed mid-run, bad training
    files, Documents: robustness_received.py; 24-32. hostile files and runs: robustness_hostile.py.

Cases 1, 8 and 16 are timings: run them under the machine lock. Every run a case starts is bounded
(a time limit, and for batch runs an RSS cap of 2 GB on the main process), so that each case
ends by itself even on code that hangs or grows.

Prints one line per check, then one JSON object as the last line of stdout.

    python benchmarks/robustness/robustness.py                 # all cases
    python benchmarks/robustness/robustness.py --cases 1 3     # some
"""

from __future__ import annotations

import argparse
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
from robustness_common import CORPUS, RESULTS, SENTENCE, annotate, check, corpus_jsonl, serve
from robustness_batch import (case_bad_values, case_damaged_manifest, case_huge_file, case_lock,
                              case_pipe, case_schema_first, case_special_files)
from robustness_hostile import CASES as HOSTILE
from robustness_received import CASES as RECEIVED
from robustness_service import (case_amplification, case_http_details, case_one_request_holds,
                                case_protocol, case_starvation)
from service_load import rss_mb  # benchmarks/speed/, put on sys.path by robustness_common


# --- 1 ----------------------------------------------------------------------------------------

def case_pathological(tmp: Path) -> None:
    print("1. pathological request in flight", flush=True)
    with serve(log=tmp / "serve1.log") as (url, _, proc):
        peak = [rss_mb(proc.pid)]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak.append(rss_mb(proc.pid))
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


# --- 2 ----------------------------------------------------------------------------------------

def _stall(port: int, partial: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(partial)
    return s


def _answer(s: socket.socket, wait: float) -> tuple[bytes, float]:
    """What the server sends before it closes ``s``, and when (None: still open)."""
    s.settimeout(wait)
    t0, data = time.monotonic(), b""
    try:
        while chunk := s.recv(65536):
            data += chunk
        return data, time.monotonic() - t0
    except socket.timeout:
        return data, None
    finally:
        s.close()


def case_slow_clients(tmp: Path) -> None:
    print("2. slow clients (--max-connections 6, --read-timeout 5)", flush=True)
    with serve("--senses", "none", "--max-connections", "6", "--read-timeout", "5",
               log=tmp / "serve2.log") as (url, port, _):
        body_stalls = [_stall(port, b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\n"
                              b"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
                       for _ in range(6)]
        header_stalls = [_stall(port, b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\n")
                         for _ in range(6)]
        t_open = time.monotonic()
        time.sleep(0.5)
        health = httpx.get(url + "/healthz", timeout=5)
        check(2, "/healthz answers while 12 sockets stall", health.status_code == 200,
              str(health.status_code))
        busy = httpx.post(url + "/v1/annotate", json={"text": SENTENCE}, timeout=30)
        check(2, "a 7th body is refused with a coded 503 (not queued)",
              busy.status_code == 503 and busy.json().get("code") == "E417",
              f"{busy.status_code} {busy.json().get('code')}")
        answers = [_answer(s, 15 - (time.monotonic() - t_open)) for s in body_stalls + header_stalls]
        closed = [a for a in answers if a[1] is not None]
        check(2, "every stalled socket gets 408 {detail, code} and is closed within 5 s + 2 s",
              len(closed) == 12 and all(b" 408 " in d.split(b"\r\n")[0] and b'"code": "E416"'
                                        in d for d, _ in answers)
              and time.monotonic() - t_open < 8,
              f"{len(closed)} of 12 closed, {time.monotonic() - t_open:.1f} s after they stalled")
        ok = httpx.post(url + "/v1/annotate", json={"text": SENTENCE}, timeout=30)
        check(2, "annotation works again", ok.status_code == 200, str(ok.status_code))


# --- 3 ----------------------------------------------------------------------------------------

def sha256s(out: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.glob("shard-*.arrow"))]


def case_corrupted_shard(tmp: Path) -> None:
    print("3. corrupted shard", flush=True)
    src = corpus_jsonl(tmp / "corpus3.jsonl")
    args = [src, "--shard-size", 2, "--senses", "none", "--quiet"]
    ref = annotate(*args, "--out", tmp / "ref3", cwd=tmp)
    check(3, "uninterrupted run", ref.returncode == 0, ref.stderr.strip()[-200:])
    out = tmp / "bad3"
    shutil.copytree(tmp / "ref3", out)
    shard = out / "shard-00001.arrow"
    data = bytearray(shard.read_bytes())
    data[len(data) // 2] ^= 0xFF
    shard.write_bytes(bytes(data))
    rerun = annotate(*args, "--out", out, cwd=tmp)
    said = "shard-00001.arrow does not match manifest.json" in rerun.stderr
    check(3, "the rerun says it annotates the corrupted shard again",
          rerun.returncode == 0 and said, rerun.stderr.strip().splitlines()[0] if
          rerun.stderr.strip() else f"exit {rerun.returncode}")
    manifest = json.loads((out / "manifest.json").read_text())
    check(3, "final shards equal the uninterrupted run's (sha256)",
          sha256s(out) == sha256s(tmp / "ref3") and
          [e["sha256"] for e in manifest["shards"]] == sha256s(tmp / "ref3"),
          f"{len(sha256s(out))} shards, rewritten {manifest['run']['rewritten_shards']}")


# --- 4 ----------------------------------------------------------------------------------------

def case_bad_records(tmp: Path) -> None:
    print("4. bad records", flush=True)
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp / "bad4.jsonl"
    src.write_text(json.dumps({"id": "ok", "text": CORPUS[0]}) + "\n"
                   + json.dumps({"id": "int", "text": 42}) + "\n"
                   + json.dumps({"id": "null", "text": None}) + "\n"
                   + "{not json\n" + json.dumps({"id": "ok2", "text": CORPUS[1]}) + "\n")
    pq.write_table(pa.table({"text": [1, 2]}), tmp / "ints4.parquet")
    r = annotate(src, tmp / "ints4.parquet", "--out", tmp / "out4", "--senses", "none",
                 "--quiet", cwd=tmp)
    check(4, "the run completes (exit 0, no traceback)",
          r.returncode == 0 and "Traceback" not in r.stderr, f"exit {r.returncode}")
    if r.returncode != 0:
        return
    from logicparse.batch import read_shards

    rows = read_shards(tmp / "out4").to_pylist()
    got = {row["id"]: (row["error"] or "")[:6] for row in rows}
    check(4, "one row per record, bad ones with a coded error",
          got == {"ok": "", "int": "[E335]", "null": "[E335]", "bad4:4": "[E303]", "ok2": "",
                  "ints4:1": "[E335]", "ints4:2": "[E335]"}, json.dumps(got))


# --- 5 ----------------------------------------------------------------------------------------

def case_tracebacks(tmp: Path) -> None:
    print("5. errors instead of tracebacks", flush=True)
    d = tmp / "in5"
    d.mkdir()
    (d / "fine.txt").write_text(CORPUS[2])
    (d / "secret.txt").write_text(CORPUS[3])
    (d / "secret.txt").chmod(0o000)
    (d / "huge.txt").write_text("word " * 200_001)  # 1,000,005 characters
    r = annotate(d, "--out", tmp / "out5", "--senses", "none", "--quiet", cwd=tmp, user=True)
    ok = r.returncode == 0 and "Traceback" not in r.stderr
    rows = {}
    if ok:
        from logicparse.batch import read_shards

        rows = {row["id"]: (row["error"] or "")[:6] for row in
                read_shards(tmp / "out5").to_pylist()}
    check(5, "unreadable file and over-long text are rows with coded errors, the run completes",
          ok and rows == {"fine": "", "secret": "[E336]", "huge": "[E333]"},
          f"exit {r.returncode}, rows {rows}")
    ro = tmp / "readonly5"
    ro.mkdir()
    ro.chmod(0o555)
    r = annotate(d / "fine.txt", "--out", ro / "out", "--senses", "none", "--quiet", cwd=tmp,
                 user=True)
    check(5, "read-only output directory: a coded error, exit 2, no traceback",
          r.returncode == 2 and "[E337]" in r.stderr and "Traceback" not in r.stderr,
          r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}")
    # A full disk: a 4 KiB tmpfs (needs the right to mount; said so when it is missing).
    full = tmp / "full5"
    full.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(full)],
                             capture_output=True).returncode == 0
    if not mounted:
        print("  [skip] full disk: cannot mount a small tmpfs here", flush=True)
    else:
        try:
            r = annotate(d / "fine.txt", d / "huge.txt", "--out", full / "out", "--senses", "none",
                         "--quiet", cwd=tmp)
            check(5, "full disk: a coded error, exit 2, no traceback",
                  r.returncode == 2 and "[E337]" in r.stderr and "Traceback" not in r.stderr,
                  r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}")
        finally:
            subprocess.run(["umount", str(full)], check=False)
    from logicparse import Annotator

    try:
        Annotator(parser=_FlatParser(), senses=None).annotate("x" * 1_000_001)
        check(5, "Annotator.annotate of 1,000,001 characters: a coded error", False, "no error")
    except Exception as e:  # noqa: BLE001 - what kind is the point of the check
        check(5, "Annotator.annotate of 1,000,001 characters: a coded error",
              getattr(e, "code", None) == "E333", f"{type(e).__name__}: {str(e)[:60]}")


class _FlatParser:
    """Never reached: the text is refused before parsing (and no parser weights are loaded)."""

    name, max_length = "flat", 300

    def parse(self, sentences):
        raise AssertionError("the over-long text reached the parser")


# --- 7 ----------------------------------------------------------------------------------------

def _raw(port: int, request: bytes) -> tuple[int, dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def case_smaller(tmp: Path) -> None:
    print("7. smaller", flush=True)
    src = tmp / "dup7.jsonl"
    src.write_text("".join(json.dumps({"id": "same", "text": t}) + "\n" for t in CORPUS[:3]))
    r = annotate(src, "--out", tmp / "out7", "--senses", "none", "--quiet", cwd=tmp)
    check(7, "duplicate ids are reported", r.returncode == 0 and "[W311]" in r.stderr,
          r.stderr.strip().splitlines()[-1][:90] if r.stderr.strip() else "nothing said")
    d = tmp / "in7"
    d.mkdir()
    (d / "a.txt").write_text(CORPUS[0])
    (d / "loop.txt").symlink_to(d / "loop.txt")
    r = annotate(d, "--out", tmp / "out7b", "--senses", "none", "--quiet", cwd=tmp)
    rows = {}
    if r.returncode == 0:
        from logicparse.batch import read_shards

        rows = {row["id"]: (row["error"] or "")[:6] for row in
                read_shards(tmp / "out7b").to_pylist()}
    check(7, "a symlink loop is a row with a coded error", rows == {"a": "", "loop": "[E336]"},
          f"exit {r.returncode}, rows {rows}")
    with serve("--senses", "none", log=tmp / "serve7.log") as (url, port, proc):
        deep = b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
        cases = {
            "Content-Length: abc": b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\n"
                                   b"Content-Length: abc\r\n\r\n{}",
            "deep JSON nesting": b"POST /v1/annotate HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                 b"application/json\r\nConnection: close\r\nContent-Length: "
                                 + str(len(deep)).encode() + b"\r\n\r\n" + deep,
            "404": b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
            "405": b"DELETE /v1/annotate HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        }
        for name, request in cases.items():
            status, body = _raw(port, request)
            check(7, f"{name}: {{detail, code}}", 400 <= status < 500 and set(body) ==
                  {"detail", "code"} and body["code"].startswith("E4"), f"{status} {body['code']}")
        # SIGTERM with a request in flight: the server finishes and exits without a traceback.
        t = threading.Thread(target=lambda: httpx.post(url + "/v1/annotate",
                                                       json={"text": "a " * 3000}, timeout=60))
        t.start()
        time.sleep(1.0)
        proc.send_signal(signal.SIGTERM)
        proc.wait(90)
        t.join()
    log = (tmp / "serve7.log").read_text()
    check(7, "SIGTERM: the server exits without a traceback", "Traceback" not in log,
          f"exit {proc.returncode}")


CASES = {1: case_pathological, 2: case_slow_clients, 3: case_corrupted_shard, 4: case_bad_records,
         5: case_tracebacks, 6: case_pipe, 7: case_smaller, 8: case_starvation,
         9: case_special_files, 10: case_huge_file, 11: case_bad_values, 12: case_schema_first,
         13: case_damaged_manifest, 14: case_lock, 15: case_protocol, 16: case_one_request_holds,
         17: case_amplification, 18: case_http_details, **RECEIVED, **HOSTILE}


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
