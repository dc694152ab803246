"""Cases 24-32 of benchmarks/robustness/robustness.py: hostile files and runs. Every command a
case starts is bounded in time and in its main process's RSS (robustness_hostile_runs.bounded),
and killed with its descendants past either bound.

24. `annotate --engine ray` on one machine: every socket of the run's processes (GCS, raylet,
    driver, workers) listens on loopback only, and no Ray process is left once it ends;
25. shards from elsewhere: column types swapped under a valid version tag, a label id of 200, a
    shard that is a dangling link or a folder, `--shards` through a link to `/`: `shards stats`,
    `shards show --labels` and `train --shards` exit 2 with E513, E511 or E348 (train: E314 for a
    listed shard that is not a file), never a traceback; a link to `/` in a folder is not followed;
26. a shard whose id, relation category and sense source carry OSC 52, clear-screen and tag
    characters (U+E0041...): `shards show` (plain, --labels, --json) and `shards stats` print
    none of ESC, BEL or a tag character, and show the fields escaped;
27. `train --resume` on a 3 MiB zip-bomb ckpt.pt declaring 3 GiB: E523 within 60 s, main process
    under 1 GiB; on a checkpoint of another model size: one E523 line naming both shapes;
28. `annotate --overwrite --out DIR` where DIR holds another program's manifest.json, or a
    shard-00000.arrow that is not logicparse's: E346, the files kept byte for byte;
29. inputs changed under the same size between runs (an edit put back with `touch -r`, a
    same-size link of the same time swapped in): the rerun annotates them again; a file deleted
    mid-run and restored: an E322 row, then a rerun with no failures;
30. training records: a DREAM `"choice": "xy"`, a PARARULE-Plus question whose text is 7, `train
    --task dialogsum` with the bundled encoder-only model: E520 (file, what was expected), no
    traceback, nothing annotated;
31. spaCy `nlp.pipe(texts, n_process=2)` with the default senses: two workers, done within 180 s
    (the script and its workers are killed past it), the same Docs as one process;
32. compressed tables: an Arrow IPC file (Zstandard buffers) and a Parquet file (Zstandard, one row
    group), each of 2,200 texts of 1 MB in well under 1 MB: `annotate` exits 2 with E355 within
    60 s, its main process under 1 GiB, `--out` not created.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pyarrow as pa
from _received_files import write_finished_run
from robustness_common import CORPUS, check
from robustness_hostile_runs import CASES as RUNS, CONJ_FIX, bounded, told
from robustness_received import coded

TREE = ("(S (NP (PRP I)) (VP (MD will) (RB not) (VP (VB go) (SBAR (IN if) (S (NP (PRP it)) "
        "(VP (VBZ rains)))))) (. .))")


def _docs(n: int = 2) -> list:
    import logicparse

    return [logicparse.annotate_trees(TREE, id=f"d{i}") for i in range(n)]


# --- 25 ---------------------------------------------------------------------------------------

def case_foreign_shards(tmp: Path) -> None:
    print("25. shards from elsewhere: swapped column types, label id 200, links, a link to /",
          flush=True)
    from logicparse.batch import shards as sh
    from logicparse.tokens import ARROW_SCHEMA

    table = sh.documents_to_table(_docs())
    cols = {n: table.column(n) for n in table.column_names}
    cols["tokens"], cols["token_starts"] = cols["token_starts"], cols["tokens"]
    base = tmp / "s25"
    swapped = write_finished_run(base / "swapped", pa.table(cols).replace_schema_metadata(
        ARROW_SCHEMA.metadata))
    bad = _docs()
    bad[1].logic[2] = [3, 200]
    labels = write_finished_run(base / "labels" / "run", sh.documents_to_table(bad))
    (base / "labels" / "root").symlink_to("/")  # the search must not follow it
    kinds = {}
    for kind in ("dangling", "folder"):
        d = write_finished_run(base / kind, table)
        (d / "shard-00000.arrow").unlink()
        if kind == "folder":
            (d / "shard-00000.arrow").mkdir()
        else:
            (d / "shard-00000.arrow").symlink_to(tmp / "gone.arrow")
        kinds[kind] = d
    (base / "to-root").symlink_to("/")
    # What each command must say: train verifies each shard against manifest.json first (E314
    # for a file missing or not a file), the others read it as they find it (E513).
    dirs = {"swapped column types": (swapped, "E513", "E513"),
            "label id 200": (labels, "E511", "E511"),
            "dangling link as shard": (kinds["dangling"], "E513", "E314"),
            "folder as shard": (kinds["folder"], "E513", "E314")}
    for name, (d, code, _) in dirs.items():
        for args in (["shards", "stats", d], ["shards", "show", d, "--id", "d1", "--labels"]):
            r = bounded(*args, cwd=tmp, timeout=120)
            check(25, f"{name}: {' '.join(map(str, args[:2]))}{' --labels' * (len(args) > 3)} "
                  f"exit 2 with {code}", coded(r, code), told(r))
    train = ["train", "--task", "conjnli", "--data", CONJ_FIX, "--dev-size", "2", "--senses",
             "none", "--max-steps", "1", "--out", tmp / "o25", "--quiet", "--shards"]
    for name, (d, _, code) in {**dirs, "a folder holding a link to / beside a run":
                               (base / "labels", None, "E511"),
                               "--shards a link to /": (base / "to-root", None, "E348")}.items():
        r = bounded(*train, d, cwd=tmp, timeout=300)
        check(25, f"{name}: train --shards exit 2 with {code}", coded(r, code), told(r))


# --- 26 ---------------------------------------------------------------------------------------

OSC52, CLEAR = "\x1b]52;c;ZWNobyBvd25lZA==\x07", "\x1b[2J\x1b[H"
LINK = "\x1b]8;;https://x.example/\x07"
TAGS = "".join(chr(0xE0000 + ord(c)) for c in "AB")  # U+E0041 U+E0042: invisible ASCII


def raw(text: str) -> list:
    """The characters of ``text`` a terminal acts on or shows as nothing: C0 but tab and newline,
    DEL, C1, the bidi and zero-width format characters, separators, tags."""
    return sorted({c for c in text if (c < " " and c not in "\t\n") or "\x7f" <= c <= "\x9f"
                   or "\u200b" <= c <= "\u200f" or "\u2028" <= c <= "\u202e"
                   or "\u2060" <= c <= "\u206f" or c == "\ufeff" or 0xE0000 <= ord(c) <= 0xE0FFF})


def case_terminal_fields(tmp: Path) -> None:
    print("26. escapes in a received shard's id, relation category and sense source", flush=True)
    from logicparse.batch import shards as sh
    from logicparse.tokens import Document

    doc = _docs(1)[0]
    doc.id = "d" + CLEAR + TAGS
    for r in doc.relations:
        r.keyword, r.relation = TAGS + r.keyword, r.relation + CLEAR
        r.category, r.sense_source = OSC52 + r.category + CLEAR, LINK + TAGS + r.sense_source
    failed = Document.failed("e" + TAGS, "text " + OSC52, "Boom " + CLEAR + TAGS)
    out = write_finished_run(tmp / "s26", sh.documents_to_table([doc, failed]), parser=OSC52 + "p",
                     senses=LINK + TAGS)
    for doc_id in (doc.id, failed.id):
        for extra in ([], ["--labels"], ["--json"]):
            r = bounded("shards", "show", out, "--id", doc_id, *extra, cwd=tmp, timeout=120)
            shown = "".join(r.stdout.split())
            escaped = ("\\U000e0041" in shown or "\\udb40\\udc41" in shown) and (
                doc_id != doc.id or "--json" in extra or "\\x1b]52;c;" in shown)
            check(26, f"shards show {' '.join(extra) or '(plain)'} --id {ascii(doc_id)[:20]}: "
                  "no ESC, BEL or tag character; the fields shown escaped",
                  r.returncode == 0 and not raw(r.stdout + r.stderr) and escaped,
                  f"{told(r)}; raw {[hex(ord(c)) for c in raw(r.stdout + r.stderr)][:6]}")
    r = bounded("shards", "stats", out, cwd=tmp, timeout=120)
    check(26, "shards stats: no ESC, BEL or tag character",
          r.returncode == 0 and not raw(r.stdout + r.stderr) and "\\x1b]52;c;" in r.stdout,
          f"{told(r)}; raw {[hex(ord(c)) for c in raw(r.stdout + r.stderr)][:6]}")


# --- 28 ---------------------------------------------------------------------------------------

def case_foreign_manifest(tmp: Path) -> None:
    print("28. --overwrite into a folder holding another program's manifest.json", flush=True)
    src = tmp / "in28.txt"
    src.write_text(CORPUS[0])
    site = tmp / "site28"
    site.mkdir()
    (site / "manifest.json").write_text('{"name": "my-site", "version": "1.0", "files": []}\n')
    other = tmp / "other28"
    other.mkdir()
    (other / "shard-00000.arrow").write_bytes(b"ARROW1 someone else's data")
    for out, extra in ((site, ["--overwrite"]), (site, []), (other, ["--overwrite"])):
        before = {p.name: p.read_bytes() for p in out.iterdir()}
        r = bounded("annotate", src, "--out", out, "--senses", "none", "--quiet", *extra,
                    cwd=tmp, timeout=300)
        after = {p.name: p.read_bytes() for p in out.iterdir()}
        check(28, f"{out.name} ({', '.join(before)}) {' '.join(extra) or 'without --overwrite'}:"
              " E346, every file kept", coded(r, "E346") and after == before, told(r))


# --- 29 ---------------------------------------------------------------------------------------

def case_same_size_changes(tmp: Path) -> None:
    print("29. inputs changed under the same size and time; an input lost mid-run", flush=True)
    from logicparse.batch import read_manifest, read_shards

    src = tmp / "in29"
    src.mkdir()
    for name, text in zip("abc", CORPUS):
        (src / f"{name}.txt").write_text(text)
    args = [src, "--out", tmp / "out29", "--senses", "none", "--shard-size", "1"]
    r = bounded("annotate", *args, "--quiet", cwd=tmp, timeout=300)
    check(29, "first run", r.returncode == 0, told(r))
    b, c = src / "b.txt", src / "c.txt"
    new_b = CORPUS[1].replace("She ", "Sue ")  # the same size
    new_c = CORPUS[2].replace("cheap", "quick")
    subprocess.run(["touch", "-r", b, tmp / "b-time"], check=True)
    b.write_text(new_b)
    subprocess.run(["touch", "-r", tmp / "b-time", b], check=True)  # its time set back
    elsewhere = tmp / "c-elsewhere.txt"
    elsewhere.write_text(new_c)
    subprocess.run(["touch", "-r", c, elsewhere], check=True)
    c.unlink()
    c.symlink_to(elsewhere)
    r = bounded("annotate", *args, cwd=tmp, timeout=300)
    rows = {row["id"]: row for row in read_shards(tmp / "out29").to_pylist()} \
        if r.returncode == 0 else {}
    m = read_manifest(tmp / "out29") if r.returncode == 0 else {}
    redone = sorted(e["file"] for e in (m.get("run") or {}).get("rewritten_shards", []))
    check(29, "the rerun annotates the edited file and the swapped link again (W310), keeps a",
          r.returncode == 0 and "[W310]" in r.stderr and redone == ["shard-00001.arrow",
          "shard-00002.arrow"] and rows["b"]["text"] == new_b and rows["c"]["text"] == new_c
          and rows["b"]["error"] is None and rows["c"]["error"] is None, f"{told(r)}; rewritten "
          f"{redone}, b {rows.get('b', {}).get('text', '')[:12]!r}")
    _lost_mid_run(tmp)


def _lost_mid_run(tmp: Path) -> None:
    from logicparse.batch import read_manifest, read_shards

    src = tmp / "in29b"
    src.mkdir()
    for i in range(400):
        (src / f"f{i:03d}.txt").write_text(CORPUS[i % len(CORPUS)])
    lost = src / "f399.txt"
    data, t = lost.read_bytes(), lost.stat().st_mtime_ns
    out = tmp / "out29b"
    args = [src, "--out", out, "--senses", "none", "--shard-size", "10", "--quiet"]
    gone: list = []

    def lose(_) -> None:  # once the run has looked at its inputs (its manifest is written)
        if not gone and (out / "manifest.json").exists():
            lost.unlink()
            gone.append(time.monotonic())

    r = bounded("annotate", *args, cwd=tmp, timeout=600, watch=lose)
    m = read_manifest(out) if r.returncode == 0 else {}
    error = {row["id"]: row["error"] for row in read_shards(out).to_pylist()}.get("f399") \
        if r.returncode == 0 else None
    check(29, "a file deleted mid-run: the run ends, its row E322 (rerun, not --overwrite)",
          gone and m.get("failed_ids") == ["f399"] and (error or "").startswith("[E322]")
          and "rerun the same command" in error, f"{told(r)}; f399 {(error or '')[:80]}")
    lost.write_bytes(data)
    os.utime(lost, ns=(t, t))
    r = bounded("annotate", *args, cwd=tmp, timeout=600)
    m = read_manifest(out) if r.returncode == 0 else {}
    redone = [e["file"] for e in (m.get("run") or {}).get("rewritten_shards", [])]
    check(29, "restored: the next run ends with no failures, only that shard redone",
          r.returncode == 0 and m.get("complete") and m.get("failed") == 0
          and m.get("failed_ids") == [] and redone == ["shard-00039.arrow"],
          f"{told(r)}; failed {m.get('failed')}, rewritten {redone}")


# --- 32 ---------------------------------------------------------------------------------------

def case_compressed_tables(tmp: Path) -> None:
    print("32. Arrow and Parquet files whose compressed columns inflate past 2 GiB", flush=True)
    import pyarrow.parquet as pq

    table = pa.table({"text": pa.array(["a" * 1_000_000] * 2200, type=pa.large_string())})
    arrow, parquet = tmp / "bomb32.arrow", tmp / "bomb32.parquet"
    with pa.OSFile(str(arrow), "wb") as sink, pa.ipc.new_file(
            sink, table.schema, options=pa.ipc.IpcWriteOptions(compression="zstd")) as w:
        w.write_table(table)
    pq.write_table(table, parquet, compression="zstd", use_dictionary=False, row_group_size=2200)
    del table
    for path in (arrow, parquet):
        out = tmp / f"out32-{path.suffix[1:]}"
        r = bounded("annotate", path, "--out", out, "--senses", "none", "--quiet", cwd=tmp,
                    timeout=60, cap_mb=1024)
        check(32, f"{path.suffix[1:]} of {path.stat().st_size:,} bytes, 2.2 GB of text: E355, "
              "under 1 GiB, no --out", coded(r, "E355") and not out.exists(), told(r))


CASES = {25: case_foreign_shards, 26: case_terminal_fields, 28: case_foreign_manifest,
         29: case_same_size_changes, 32: case_compressed_tables, **RUNS}
CASES = dict(sorted(CASES.items()))
