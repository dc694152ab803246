"""CPU seconds one batch worker spends on a corpus: a guide to the work per sentence that a
busy machine distorts less than wall time (not a timing; compare two checkouts on the same
machine, close together in time).

    PYTHONPATH=CHECKOUT python benchmarks/speed/worker_cpu.py [--corpus DIR] [--step 6] [--senses none]

One process, one thread, the worker's own code (``ChunkAnnotator``) over every ``--step``-th
``*.txt`` of ``--corpus``, chunked as ``logicparse annotate`` chunks one shard. Prints one JSON
object: sentences, CPU and wall seconds of the annotation (model loading apart), peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=ROOT.parent / "shared/data/corpora/inaugural")
    ap.add_argument("--step", type=int, default=6, help="every N-th file, in name order")
    ap.add_argument("--senses", default="none", help="'none' or a sense model spec")
    args = ap.parse_args()
    from logicparse.batch.run import cut_chunks
    from logicparse.batch.worker import Chunk, ChunkAnnotator, WorkerSpec, limit_threads

    limit_threads(1)
    files = sorted(args.corpus.glob("*.txt"))[:: args.step]
    texts = [f.read_bytes().decode("utf-8", errors="replace") for f in files]
    c0 = time.process_time()
    worker = ChunkAnnotator(WorkerSpec(senses=None if args.senses == "none" else args.senses))
    worker.annotator.parser.parse([["It", "rains", "."]])
    load_cpu = time.process_time() - c0
    chunks = [Chunk(0, a, tuple(f.stem for f in files[a:b]), tuple(texts[a:b]))
              for a, b in cut_chunks(texts, 20_000, 64)]
    c0, t0, sentences = time.process_time(), time.perf_counter(), 0
    for chunk in chunks:
        table = worker(chunk).table
        sentences += sum(len(s) for s in table.column("sentence_starts").to_pylist())
    print(json.dumps({
        "corpus": str(args.corpus), "documents": len(texts), "sentences": sentences,
        "cpu_seconds": round(time.process_time() - c0, 2),
        "wall_seconds": round(time.perf_counter() - t0, 2), "load_cpu_seconds": round(load_cpu, 2),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "load_average_1min": round(os.getloadavg()[0], 2)}))


if __name__ == "__main__":
    main()
