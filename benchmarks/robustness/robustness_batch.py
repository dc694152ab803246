"""Batch cases of benchmarks/robustness/robustness.py: what a corpus holds (files, records,
manifests)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import psutil
from robustness_common import CLI, CORPUS, check, corpus_jsonl, rows_of

RSS_CAP_MB = 2048  # a run whose main process grows past this is stopped (and fails its check)


def watched(*args, cwd: Path, timeout: float = 900) -> dict:
    """`logicparse annotate ARGS` with its main process's RSS sampled every 0.1 s; stopped
    (killed) at RSS_CAP_MB or after ``timeout`` s, so that a case that hangs or grows without
    bound on old code still ends. {exit, stderr, peak_mb, seconds, stopped}"""
    proc = subprocess.Popen([*CLI, "annotate", *map(os.fsdecode, args)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err: list[bytes] = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()), daemon=True)
    reader.start()
    ps, peak, stopped, t0 = psutil.Process(proc.pid), 0.0, None, time.monotonic()
    while proc.poll() is None:
        try:
            peak = max(peak, ps.memory_info().rss / 2**20)
        except psutil.NoSuchProcess:
            break
        if peak > RSS_CAP_MB or time.monotonic() - t0 > timeout:
            stopped = f"killed at {peak:.0f} MiB" if peak > RSS_CAP_MB else \
                f"killed after {timeout:.0f} s"
            for child in ps.children(recursive=True):
                child.kill()
            proc.kill()
        time.sleep(0.1)
    proc.wait()
    reader.join(10)
    stderr = (err[0] if err else b"").decode("utf-8", "replace")
    return {"exit": proc.returncode, "stderr": stderr, "peak_mb": peak,
            "seconds": time.monotonic() - t0, "stopped": stopped}


def said(r: dict) -> str:
    last = r["stderr"].strip().splitlines()[-1][:120] if r["stderr"].strip() else ""
    return (f"exit {r['exit']}" + (f" ({r['stopped']})" if r["stopped"] else "")
            + f", {r['seconds']:.0f} s, main peak {r['peak_mb']:.0f} MiB"
            + (f", traceback: {last}" if "Traceback" in r["stderr"] else f": {last}" if last
               else ""))


def clean(r: dict) -> bool:
    return r["exit"] == 0 and "Traceback" not in r["stderr"] and not r["stopped"]


def rows(out: Path) -> dict:
    try:
        return rows_of(out)
    except Exception as e:  # noqa: BLE001 - an unreadable output is what the check reports
        return {"unreadable": type(e).__name__}


# --- 9 ----------------------------------------------------------------------------------------

def case_special_files(tmp: Path) -> None:
    print("9. inputs that are not plain files", flush=True)
    d = tmp / "in9"
    d.mkdir()
    (d / "a.txt").write_text(CORPUS[0])
    os.mkfifo(d / "fifo.txt")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "sock.txt"))
    r = watched(d, "--out", tmp / "out9a", "--senses", "none", "--quiet", cwd=tmp, timeout=900)
    got = rows(tmp / "out9a") if clean(r) else {}
    check(9, "a FIFO and a socket in the folder: the run ends, one row each with a coded error",
          clean(r) and got.get("a") == "" and got.get("fifo", "")[:2] == "[E"
          and got.get("sock", "")[:2] == "[E", said(r) + f", rows {got}")
    sock.close()
    for device in ("/dev/zero", "/dev/urandom"):
        d = tmp / f"in9{Path(device).name}"
        d.mkdir()
        (d / "a.txt").write_text(CORPUS[0])
        (d / "dev.txt").symlink_to(device)
        out = tmp / f"out9{Path(device).name}"
        r = watched(d, "--out", out, "--senses", "none", "--quiet", cwd=tmp, timeout=900)
        got = rows(out) if clean(r) else {}
        check(9, f"a link to {device}: main process under 2 GB, a row with a coded error",
              clean(r) and r["peak_mb"] < RSS_CAP_MB and got.get("dev", "")[:2] == "[E"
              and got.get("a") == "", said(r) + f", rows {got}")
    d = tmp / "in9name"
    d.mkdir()
    (d / "a.txt").write_text(CORPUS[0])
    with open(os.path.join(os.fsencode(d), b"caf\xe9.txt"), "w") as f:
        f.write(CORPUS[1])
    r = watched(d, "--out", tmp / "out9name", "--senses", "none", "--quiet", cwd=tmp)
    got = rows(tmp / "out9name") if clean(r) else {}
    check(9, "a file name that is not UTF-8: annotated under an escaped id",
          clean(r) and got == {"a": "", "caf\\xe9": ""}, said(r) + f", rows {got}")


def case_huge_file(tmp: Path) -> None:
    print("10. a 300 MB text file", flush=True)
    d = tmp / "in10"
    d.mkdir()
    (d / "a.txt").write_text(CORPUS[0])
    with open(d / "huge.txt", "wb") as f:
        block = b"word " * 200_000  # 1 MB
        for _ in range(300):
            f.write(block)
    r = watched(d, "--out", tmp / "out10", "--senses", "none", "--quiet", cwd=tmp)
    kept = None
    if clean(r):
        from logicparse.batch import read_shards

        table = read_shards(tmp / "out10")
        texts = dict(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))
        kept = len(texts.get("huge") or "")
    got = rows(tmp / "out10") if clean(r) else {}
    check(10, "an E333 row keeping a prefix (not the whole text); main process under 1 GB",
          clean(r) and got == {"a": "", "huge": "[E333]"} and kept is not None
          and kept <= 10_000 and r["peak_mb"] < 1024,
          said(r) + f", rows {got}, text kept {kept if kept is None else f'{kept:,}'} characters")
    (d / "huge.txt").unlink()


# --- 11 ---------------------------------------------------------------------------------------

def case_bad_values(tmp: Path) -> None:
    print("11. records a JSON parser or an Arrow reader fails on", flush=True)
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp / "values11.jsonl"
    lines = [
        json.dumps({"id": "ok", "text": CORPUS[0]}),
        '{"id": "bigint", "text": "%s", "n": %s}' % (CORPUS[1], "9" * 5000),
        '{"id": %s, "text": "%s"}' % ("7" * 5000, CORPUS[2]),
        '{"id": "surrogate-text", "text": "broken \\ud800 here"}',
        '{"id": "surrogate-\\udc80", "text": "%s"}' % CORPUS[3],
        '{"id": "deep", "text": "x", "meta": %s}' % ("[" * 100_000 + "]" * 100_000),
        json.dumps({"id": "ok2", "text": CORPUS[4]}),
    ]
    src.write_text("\n".join(lines) + "\n")
    bad = pa.array([CORPUS[5].encode(), b"caf\xe9 bad", None], pa.binary()).view(pa.string())
    table = pa.table({"id": ["good", "invalid", "null"], "text": bad})
    with pa.OSFile(str(tmp / "strings11.arrow"), "wb") as sink:
        with pa.ipc.new_file(sink, table.schema) as w:
            w.write_table(table)
    pq.write_table(table.set_column(0, "id", pa.array(["pgood", "pinvalid", "pnull"])),
                   tmp / "strings11.parquet")
    for attempt in ("run", "rerun"):
        r = watched(src, tmp / "strings11.arrow", tmp / "strings11.parquet", "--out",
                    tmp / "out11", "--senses", "none", "--quiet", cwd=tmp)
        got = rows(tmp / "out11") if clean(r) else {}
        coded = {k: v for k, v in got.items() if v[:2] == "[E"}
        check(11, f"{attempt}: exit 0, one row per record (13), the bad ones coded",
              clean(r) and len(got) == 13 and got.get("ok") == got.get("ok2") == ""
              and got.get("good") == got.get("pgood") == "" and len(coded) >= 7,
              said(r) + f", {len(got)} ids, rows {got}")


# --- 12 ---------------------------------------------------------------------------------------

def case_schema_first(tmp: Path) -> None:
    print("12. input schemas checked before --out is touched", flush=True)
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp / "first12.txt").write_text(CORPUS[0])
    pq.write_table(pa.table({"body": ["x"]}), tmp / "notext12.parquet")
    import pyarrow.feather as feather

    feather.write_feather(pa.table({"body": ["x"]}), tmp / "notext12.arrow")
    for name in ("notext12.parquet", "notext12.arrow"):
        out = tmp / f"out12-{name}"
        r = watched(tmp / "first12.txt", tmp / name, "--out", out, "--senses", "none",
                    "--quiet", cwd=tmp)
        check(12, f"{name} without the text column: E308, exit 2, --out not created",
              r["exit"] == 2 and "[E308]" in r["stderr"] and "Traceback" not in r["stderr"]
              and not out.exists(), said(r) + f", --out exists: {out.exists()}")


# --- 13 ---------------------------------------------------------------------------------------

def _command(*args, cwd: Path) -> dict:
    p = subprocess.run([*CLI, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                       timeout=600)
    return {"exit": p.returncode, "stderr": p.stderr, "stdout": p.stdout, "peak_mb": 0.0,
            "seconds": 0.0, "stopped": None}


def case_damaged_manifest(tmp: Path) -> None:
    print("13. a damaged manifest.json", flush=True)
    src = corpus_jsonl(tmp / "corpus13.jsonl")
    args = [src, "--shard-size", 2, "--senses", "none", "--quiet"]
    ref = tmp / "ref13"
    first = _command("annotate", *args, "--out", ref, cwd=tmp)
    if not check(13, "a first run", first["exit"] == 0, first["stderr"][-200:]):
        return
    good = (ref / "manifest.json").read_text()
    m = json.loads(good)
    damages = {"empty": "", "truncated": good[: len(good) // 2], "a list": "[]",
               "a shard entry that is a string": json.dumps({**m, "shards": ["shard-00000.arrow",
                                                                              *m["shards"][1:]]})}
    for name, text in damages.items():
        (ref / "manifest.json").write_text(text)
        results = {
            "annotate": _command("annotate", *args, "--out", ref, cwd=tmp),
            "shards stats": _command("shards", "stats", ref, cwd=tmp),
            "shards show": _command("shards", "show", ref, "--id", "d0", cwd=tmp),
        }
        ok = all(r["exit"] == 2 and "Traceback" not in r["stderr"] and "[E3" in r["stderr"]
                 for r in results.values())
        check(13, f"manifest {name}: annotate, shards stats, shards show: coded exit 2",
              ok, "; ".join(f"{k} exit {r['exit']}" + (" traceback" if "Traceback" in r["stderr"]
                                                        else "") for k, r in results.items()))
    forged = {**m, "failed": 99, "documents": 999,
              "shards": [{**e, "rows": 500, "failed": 77} for e in m["shards"]]}
    forged["run"] = m["run"]
    (ref / "manifest.json").write_text(json.dumps(forged))
    rerun = _command("annotate", *args, "--out", ref, cwd=tmp)
    after = json.loads((ref / "manifest.json").read_text()) if rerun["exit"] == 0 else {}
    check(13, "hand-edited rows and failed counts are rebuilt from the shards on resume",
          rerun["exit"] == 0 and after.get("documents") == len(CORPUS)
          and after.get("failed") == 0 and all(e["rows"] <= 2 for e in after.get("shards", [])),
          f"exit {rerun['exit']}, documents {after.get('documents')}, failed "
          f"{after.get('failed')}")


# --- 14 ---------------------------------------------------------------------------------------

def case_lock(tmp: Path) -> None:
    print("14. two runs on one --out", flush=True)
    src = tmp / "corpus14.jsonl"
    src.write_text("".join(json.dumps({"id": f"d{i}", "text": CORPUS[i % len(CORPUS)]}) + "\n"
                           for i in range(60)))
    out = tmp / "out14"
    args = [*CLI, "annotate", str(src), "--out", str(out), "--senses", "none", "--quiet",
            "--shard-size", "10"]
    first = subprocess.Popen(args, cwd=tmp, stderr=subprocess.PIPE, text=True)
    time.sleep(4.0)  # the first run holds --out (it is loading its models)
    second = subprocess.run(args, cwd=tmp, capture_output=True, text=True, timeout=600)
    _, first_err = first.communicate(timeout=600)
    check(14, "the second run is refused with a coded error naming the first one's pid",
          second.returncode == 2 and str(first.pid) in second.stderr and "[E3" in second.stderr,
          f"second: exit {second.returncode}: {second.stderr.strip()[-120:]}")
    got = rows(out) if first.returncode == 0 else {}
    check(14, "the first run completes with all its rows",
          first.returncode == 0 and len(got) == 60 and "Traceback" not in first_err,
          f"exit {first.returncode}, {len(got)} rows")
    dead = subprocess.Popen(["true"])
    dead.wait()
    out2 = tmp / "out14b"
    out2.mkdir()
    (out2 / ".lock").write_text(f"{dead.pid}\n")
    r = _command("annotate", src, "--out", out2, "--senses", "none", "--quiet", cwd=tmp)
    check(14, "a lock left by a dead run is taken over", r["exit"] == 0,
          f"exit {r['exit']}: {r['stderr'].strip()[-120:]}")


# --- 6 ----------------------------------------------------------------------------------------

def case_pipe(tmp: Path) -> None:
    print("6. Annotator.pipe keeps what it read", flush=True)
    from logicparse import Annotator

    annotator = Annotator(parser="default", senses=None)

    def failing():
        yield from CORPUS[:4]
        raise OSError("the source broke")

    got = []
    try:
        for doc in annotator.pipe(failing(), batch_size=32):
            got.append(doc)
        error = None
    except OSError as e:
        error = e
    check(6, "four Documents, then the generator's own error",
          len(got) == 4 and all(d.tokens and d.error is None for d in got) and error is not None,
          f"{len(got)} documents, then {type(error).__name__}: {error}")
    got = []
    try:
        for doc in annotator.pipe(CORPUS[:4], ids=["a", "b"]):
            got.append(doc.id)
        error = None
    except Exception as e:  # noqa: BLE001
        error = e
    check(6, "fewer ids than texts: the Documents with ids, then a coded error",
          got == ["a", "b"] and getattr(error, "code", None) == "E330",
          f"{got}, then {type(error).__name__}: {str(error)[:50]}")
