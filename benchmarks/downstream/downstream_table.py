"""Does logic help training? One task, four label sources side by side, several seeds each.

    python benchmarks/downstream/downstream_table.py --task conjnli --data DIR \\
        --seeds 0 1 2 --logic none default shuffled all-e --train-size 3000 --epochs 6 --lr 1e-4

Runs every missing cell (source x seed, all with the same training size, epochs and learning
rate), appending one JSON object per finished run to the results file
(benchmarks/results/downstream_<task>.jsonl); rerunning skips finished cells, so a table can be
filled over several sittings (a cell whose run was fed another annotation than today's is run
again). Then prints the table from the results file alone: mean ± std per
source, the per-seed paired differences, a bootstrap 95% interval over the test examples, test
accuracy by the relations present in a pair, the test-time ablations (each logical model evaluated
again with its labels shuffled and with none), the label-dependent share of the embedding, and,
last, one JSON object; and draws dev accuracy per epoch by source (--plot). ``--report`` prints
without running anything.

Sources: none (the plain model), paper (the paper's literal labels), default (the annotator's
labels), shuffled (default's labels permuted over each text's tokens: the control for positions),
random (default's labelled tokens with label ids drawn at random: the control for which label),
all-e (the logical layer fed no labels: the control for the layer). Every run records a fingerprint
of the labels it was fed and of the test texts' annotation; runs whose annotation is not today's are
named and left out of the table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from logicparse.resources import offline_environment

offline_environment()

from logicparse.errors import DataFormatError  # noqa: E402
from logicparse.training.comparison import ORDER, CompareConfig  # noqa: E402
from logicparse.training.comparison_report import compare_sources  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"  # benchmarks/results/


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="conjnli")
    p.add_argument("--data", required=True, help="The task's data folder (e.g. data/tasks/conjnli).")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--logic", nargs="+", default=list(ORDER), choices=ORDER)
    p.add_argument("--train-size", type=int, default=3000)
    p.add_argument("--dev-size", type=int, default=1000)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--logic-lr", type=float, default=None,
                   help="The logical layer's learning rate (default: --lr); choose it on dev.")
    p.add_argument("--layer", default="centered", choices=["centered", "paper"])
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-length", type=int, default=128)
    p.add_argument("--model", default="all-MiniLM-L6-v2")
    p.add_argument("--cpu-bf16", action="store_true", help="bf16 autocast on CPU too (about 3x "
                   "faster on CPUs with AVX512-BF16 or AMX); its runs are cells of their own.")
    p.add_argument("--shards", default=None, help="Label shards (default: the user cache).")
    p.add_argument("--annotate-workers", type=int, default=2)
    p.add_argument("--results", default=None, help="Default: benchmarks/results/downstream_<task>.jsonl")
    p.add_argument("--work", default="out/downstream", help="Each run's metrics.jsonl.")
    p.add_argument("--plot", default=None, help="PNG of dev accuracy per epoch (e.g. docs/downstream_conjnli.png).")
    p.add_argument("--no-bucket", action="store_true", help="Batches in seeded random order, "
                   "not of similar lengths (which put a PARARULE-Plus quartet's four statements "
                   "in one batch); its runs are cells of their own.")
    p.add_argument("--half-width", type=float, default=0.01, help="Report how many seeds an "
                   "interval of this half-width would need (accuracy: 0.01 is one point).")
    p.add_argument("--report", action="store_true", help="Print the table from the results; run nothing.")
    p.add_argument("--no-report", action="store_true", help="Run the missing cells; print no table.")
    p.add_argument("--as-recorded", action="store_true", help="Report the runs as recorded: "
                   "no check of their labels against today's annotation.")
    args = p.parse_args(argv)
    cfg = CompareConfig(
        task=args.task, data=args.data, seeds=args.seeds, logic=args.logic,
        train_size=args.train_size, dev_size=args.dev_size, epochs=args.epochs, lr=args.lr,
        logic_lr=args.logic_lr, layer=args.layer, batch_size=args.batch_size,
        max_length=args.max_length, model=args.model, cpu_bf16=args.cpu_bf16, shards=args.shards,
        bucket=not args.no_bucket,
        annotate_workers=args.annotate_workers, work=args.work, plot=args.plot,
        results=str(args.results or RESULTS / f"downstream_{args.task}.jsonl"),
        half_width=args.half_width, report_only=args.report, no_report=args.no_report,
        as_recorded=args.as_recorded)
    try:
        summary = compare_sources(cfg)
        if summary is None:
            return 0
    except DataFormatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
