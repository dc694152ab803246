"""The paper's Table 2 in miniature: DREAM with all-MiniLM-L6-v2, baseline vs logical, N seeds
each, same hyperparameters; dev accuracy (best epoch) and test accuracy, mean ± std.

Needs a GPU to finish in reasonable time, and DREAM's texts annotated once (the first logical run
annotates them into the shard cache with the bundled parser; or pass --shards from
`logicparse annotate`).

    python benchmarks/downstream/modeling_dream_table.py --data ../shared/data/tasks/dream --out out/table2

Prints a Markdown table and, last, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics

from logicparse.resources import offline_environment  # noqa: E402

offline_environment()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--out", default="out/table2")
    p.add_argument("--model", default="all-MiniLM-L6-v2")
    p.add_argument("--shards", default=None)
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--lr", type=float, default=3e-5)
    p.add_argument("--max-length", type=int, default=512)
    p.add_argument("--k", type=int, default=3)
    p.add_argument("--limit", type=int, default=None, help="first N examples per split (a quick check)")
    args = p.parse_args()

    from logicparse.training import TrainConfig, train

    rows = {"baseline": [], "logical": []}
    for logic in (False, True):
        name = "logical" if logic else "baseline"
        for seed in args.seeds:
            cfg = TrainConfig(task="dream", model=args.model, data=args.data, shards=args.shards,
                              out=os.path.join(args.out, f"{name}-seed{seed}"), logic=logic,
                              k=args.k, epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
                              max_length=args.max_length, seed=seed, limit=args.limit, quiet=True)
            result = train(cfg)
            rows[name].append({"seed": seed, "dev": result["dev"]["accuracy"],
                               "test": result["test"]["accuracy"]})
            print(json.dumps({"variant": name, **rows[name][-1]}), flush=True)

    def stat(values):
        values = [100 * v for v in values]
        return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)

    summary = {}
    print(f"\n| DREAM, all-MiniLM-L6-v2 ({len(args.seeds)} seeds) | dev acc | test acc |")
    print("|---|---|---|")
    for name, runs in rows.items():
        dev, test = stat([r["dev"] for r in runs]), stat([r["test"] for r in runs])
        summary[name] = {"dev_mean": dev[0], "dev_std": dev[1], "test_mean": test[0],
                         "test_std": test[1], "runs": runs}
        print(f"| {name} | {dev[0]:.2f} ± {dev[1]:.2f} | {test[0]:.2f} ± {test[1]:.2f} |")
    print(json.dumps({"task": "dream", "model": args.model, "seeds": args.seeds,
                      "epochs": args.epochs, "lr": args.lr, "batch_size": args.batch_size, **summary}))


if __name__ == "__main__":
    main()
