"""Batch annotation throughput, overhead over bare parsing, memory, and kill-and-resume.

    python benchmarks/speed/batch_throughput.py [--corpus ../shared/data/corpora/inaugural]

What it runs, in one process tree, one after the other (the machine should be otherwise idle):

1. ``logicparse annotate CORPUS --workers 1`` and ``--workers 2`` (bundled parser, ``--senses
   none`` unless ``--senses`` says otherwise): documents/s and sentences/s, end to end and after
   start-up (process spawn, imports, model loading), and the speed-up of 2 workers over 1.
2. Bare parsing: the same sentences (the Annotator's own segmentation, same chunks) through
   ``parser.parse`` alone, in this process, with the same torch threads as one worker. Overhead =
   worker-1 annotation time after start-up / bare parse time - 1. Also the same ratio within the
   worker-1 run (its time inside ``parser.parse``, which the worker records), immune to load
   changes between the two measurements.
3. Peak RSS per worker, and the workers' RSS when the first and the last shard were written.
4. A run with 2 workers killed with SIGKILL when about half of its shards exist, then rerun to
   completion: its shards' sha256 must equal those of the uninterrupted runs.

Prints a readable report and, as the last line of stdout, one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CORPUS = ROOT.parent / "shared" / "data" / "corpora" / "inaugural"
LOGICPARSE = [sys.executable, "-c", "from logicparse.cli import main; main()"]


def annotate(corpus: Path, out: Path, workers: int, args, overwrite=True) -> tuple[dict, float]:
    cmd = [*LOGICPARSE, "annotate", str(corpus), "--out", str(out), "--workers", str(workers),
           "--shard-size", str(args.shard_size), "--senses", args.senses, "--parser", args.parser,
           "--quiet"] + (["--overwrite"] if overwrite else [])
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    return json.loads((out / "manifest.json").read_text()), wall


def rates(m: dict, wall: float) -> dict:
    run = m["run"]
    busy = run["seconds"] - run["startup_seconds"]
    return {
        "documents": m["documents"], "sentences": run["sentences_annotated"],
        "wall_seconds": round(wall, 2), "run_seconds": run["seconds"],
        "startup_seconds": run["startup_seconds"], "annotate_seconds": round(busy, 2),
        "docs_per_s": round(m["documents"] / run["seconds"], 3),
        "sentences_per_s": round(run["sentences_annotated"] / run["seconds"], 2),
        "docs_per_s_after_startup": round(m["documents"] / busy, 3),
        "sentences_per_s_after_startup": round(run["sentences_annotated"] / busy, 2),
        "parse_seconds_in_workers": run["parse_seconds"],
        "peak_rss_mb_per_worker": run["memory"]["peak_rss_mb_per_worker"],
        "rss_mb_first_shard": run["memory"]["first_shard"]["workers_rss_mb"],
        "rss_mb_last_shard": run["memory"]["last_shard"]["workers_rss_mb"],
        "max_worker_rss_mb_by_shard": run["memory"]["workers_max_rss_mb_by_shard"],
        "main_peak_rss_mb": run["memory"]["main_peak_rss_mb"],
    }


def bare_parse(corpus: Path, args) -> dict:
    """The same sentences through the parser alone, chunked as the batch run chunks them."""
    from logicparse.batch.inputs import ReadOptions, read_documents, resolve_inputs
    from logicparse.batch.run import RunConfig, cut_chunks
    from logicparse.batch.worker import limit_threads

    limit_threads(1)
    from logicparse import Annotator

    limit_threads(1)
    ann = Annotator(parser=args.parser, senses=None)
    texts = [d.text for _, d in read_documents(resolve_inputs([str(corpus)]), ReadOptions())]
    cfg = RunConfig()
    chunks = []
    for s in range(0, len(texts), args.shard_size):
        shard = texts[s:s + args.shard_size]
        for a, b in cut_chunks(shard, cfg.chunk_chars, cfg.chunk_docs):
            chunks.append([toks for t in shard[a:b] for toks, _, _ in ann.segment(t)])
    n = sum(len(c) for c in chunks)
    t0 = time.perf_counter()
    for c in chunks:
        ann.parser.parse(c)
    seconds = time.perf_counter() - t0
    return {"sentences": n, "seconds": round(seconds, 2), "sentences_per_s": round(n / seconds, 2)}


def killed_and_resumed(corpus: Path, out: Path, args, total_shards: int) -> dict:
    cmd = [*LOGICPARSE, "annotate", str(corpus), "--out", str(out), "--workers", "2",
           "--shard-size", str(args.shard_size), "--senses", args.senses, "--parser", args.parser,
           "--quiet", "--overwrite"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, start_new_session=True)
    target = max(1, total_shards // 2)
    while proc.poll() is None and len(list(out.glob("shard-*.arrow"))) < target:
        time.sleep(0.2)
    # SIGKILL the whole process group: no handler runs, nothing is cleaned up.
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = len(list(out.glob("shard-*.arrow")))
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".tmp-")]
    m, wall = annotate(corpus, out, 2, args, overwrite=False)
    return {"shards_when_killed": at_kill, "temporary_files_after_kill": leftovers,
            "resumed_shards": m["run"]["resumed_shards"],
            "annotated_after_resume": m["run"]["documents_annotated"],
            "resume_wall_seconds": round(wall, 2), "manifest": m}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--out", type=Path, default=ROOT / "out" / "bench-batch")
    ap.add_argument("--shard-size", type=int, default=4)
    ap.add_argument("--senses", default="none")
    ap.add_argument("--parser", default="default")
    args = ap.parse_args()
    if not args.corpus.exists():
        sys.exit(f"corpus {args.corpus} not found: pass --corpus DIR")
    from logicparse.resources import offline_environment

    offline_environment()
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    if args.parser == "default":
        # Pin a copy: the bundled model may be replaced (training goes on) while this runs, and
        # the runs compared here must use the same weights.
        from logicparse.parser.loading import BUNDLED_DIR

        args.parser = str(shutil.copytree(BUNDLED_DIR, args.out / "parser"))
    load_before = os.getloadavg()

    m1, w1 = annotate(args.corpus, args.out / "w1", 1, args)
    r1 = rates(m1, w1)
    print(f"workers 1: {r1['docs_per_s']} docs/s, {r1['sentences_per_s']} sentences/s "
          f"({r1['docs_per_s_after_startup']} / {r1['sentences_per_s_after_startup']} after "
          f"{r1['startup_seconds']}s start-up)", flush=True)
    m2, w2 = annotate(args.corpus, args.out / "w2", 2, args)
    r2 = rates(m2, w2)
    print(f"workers 2: {r2['docs_per_s']} docs/s, {r2['sentences_per_s']} sentences/s "
          f"({r2['docs_per_s_after_startup']} / {r2['sentences_per_s_after_startup']} after "
          f"{r2['startup_seconds']}s start-up)", flush=True)
    bare = bare_parse(args.corpus, args)
    overhead = r1["annotate_seconds"] / bare["seconds"] - 1
    # The same comparison inside the run itself (same process, same moment, same load): time
    # the worker spent in parser.parse against the run's time after start-up.
    in_run = r1["annotate_seconds"] / r1["parse_seconds_in_workers"] - 1
    print(f"bare parsing: {bare['sentences']} sentences in {bare['seconds']}s; batch overhead "
          f"{100 * overhead:.1f}% (in-run accounting: {100 * in_run:.1f}%)", flush=True)
    kr = killed_and_resumed(args.corpus, args.out / "killed", args, len(m2["shards"]))
    km = kr.pop("manifest")
    hashes = {name: [s["sha256"] for s in m["shards"]] for name, m in
              (("w1", m1), ("w2", m2), ("killed_resumed", km))}
    same = hashes["w1"] == hashes["w2"] == hashes["killed_resumed"]
    print(f"killed at {kr['shards_when_killed']}/{len(m2['shards'])} shards, resumed "
          f"{kr['resumed_shards']}: shards identical to uninterrupted runs: {same}", flush=True)

    result = {
        "corpus": str(args.corpus), "senses": args.senses, "shard_size": args.shard_size,
        "parser": m1["parser"], "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "workers_1": r1, "workers_2": r2,
        "speedup_2_over_1": round(r2["docs_per_s"] / r1["docs_per_s"], 3),
        "speedup_2_over_1_after_startup": round(
            r2["docs_per_s_after_startup"] / r1["docs_per_s_after_startup"], 3),
        "bare_parse": bare, "overhead_over_bare_parse": round(overhead, 4),
        "overhead_over_parse_time_in_run": round(in_run, 4),
        "kill_resume": {**kr, "identical_to_uninterrupted": same},
        "failed_documents": m1["failed"],
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
