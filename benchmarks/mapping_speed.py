"""Detection + mapping + layering on given trees (no parser): sentences per second on one core.

    python benchmarks/mapping_speed.py [--treebank ../shared/data/treebanks/ptb_wsj22.mrg] [--repeat 5]

Times `annotate_trees` one sentence at a time over every tree of the treebank (reading the
bracketed string included), best of --repeat runs.
"""

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from logicparse import annotate_trees  # noqa: E402
from logicparse.ptb import split_trees  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("--treebank", default=str(Path(__file__).resolve().parents[1].parent / "shared/data/treebanks/ptb_wsj22.mrg"))
ap.add_argument("--repeat", type=int, default=5)
args = ap.parse_args()

trees = list(split_trees(Path(args.treebank).read_text(encoding="utf-8")))
best = float("inf")
relations = tokens = 0
for _ in range(args.repeat):
    t0 = time.perf_counter()
    relations = tokens = 0
    for t in trees:
        doc = annotate_trees([t])
        relations += len(doc.relations)
        tokens += len(doc.tokens)
    best = min(best, time.perf_counter() - t0)
print(f"treebank        {args.treebank}")
print(f"sentences       {len(trees)}  tokens {tokens}  relations {relations}")
print(f"sentences/s     {len(trees) / best:,.0f}  (best of {args.repeat}, one process, one core)")
print(f"us/sentence     {1e6 * best / len(trees):.1f}")
