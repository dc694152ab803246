"""Detection + mapping + layering on given trees (no parser): sentences per second on one core.

    python benchmarks/speed/mapping_speed.py [--treebank ../shared/data/treebanks/ptb_wsj22.mrg] [--repeat 5]
    python benchmarks/speed/mapping_speed.py --sentences-per-call 20    # documents of 20 trees

Times `annotate_trees` one sentence at a time (or ``--sentences-per-call`` consecutive trees as
one document, as a batch run's documents are) over every tree of the treebank (reading the
bracketed string included), best of --repeat runs, for both mappings in the same process,
interleaved: "paper" (Algorithm 1), "default" (the wider arguments) and "learned" (the default's
spans or a candidate the bundled classifier prefers), so that the rates compare.
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from logicparse import annotate_trees  # noqa: E402
from logicparse.ptb import split_trees  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--treebank", default=str(Path(__file__).resolve().parents[2].parent / "shared/data/treebanks/ptb_wsj22.mrg"))
ap.add_argument("--repeat", type=int, default=5)
ap.add_argument("--sentences-per-call", type=int, default=1)
args = ap.parse_args()

trees = list(split_trees(Path(args.treebank).read_text(encoding="utf-8")))
size = max(1, args.sentences_per_call)
calls = [trees[i:i + size] for i in range(0, len(trees), size)]
print(f"treebank        {args.treebank}")
best = {"paper": float("inf"), "default": float("inf"), "learned": float("inf")}
counts = {}
# Interleaved, so that a load change on a shared machine hits both mappings alike.
for _ in range(args.repeat):
    for mapping in best:
        t0 = time.perf_counter()
        relations = tokens = 0
        for call in calls:
            doc = annotate_trees(call, mapping=mapping)
            relations += len(doc.relations)
            tokens += len(doc.tokens)
        best[mapping] = min(best[mapping], time.perf_counter() - t0)
        counts[mapping] = (tokens, relations)
for mapping, seconds in best.items():
    tokens, relations = counts[mapping]
    print(f"{mapping:8s}        {len(trees) / seconds:,.0f} sentences/s  "
          f"{1e6 * seconds / len(trees):.1f} us/sentence  ({len(trees)} sentences, {tokens} tokens, "
          f"{relations} relations; {size} a call, best of {args.repeat}, one process, one core)")
