"""Does logic help training? One task, four label sources side by side, several seeds each.

    python benchmarks/downstream_table.py --task conjnli --data DIR \\
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
import os
import sys
import time
from pathlib import Path

import numpy as np

from logicparse.resources import offline_environment

offline_environment()

from logicparse.errors import DataFormatError, Errors  # noqa: E402
from logicparse.training import compare as C  # noqa: E402

HERE = Path(__file__).resolve().parent
ORDER = ("none", "paper", "default", "shuffled", "random", "all-e")
PAIRS = (("default", "none"), ("default", "shuffled"), ("default", "random"), ("default", "all-e"),
         ("paper", "none"), ("default", "paper"), ("shuffled", "none"), ("random", "none"),
         ("all-e", "none"))
ABLATIONS = ("shuffled", "random", "all-e")
# Test pairs grouped by the relations the annotator (default source) finds in premise or hypothesis.
GROUPS = {"disjunction": {"disjunction"}, "negation": {"negation"},
          "adversative/comparative": {"adversative", "comparative"}}


def read_results(path: Path) -> list[dict]:
    """The finished runs; a line that is not a JSON object with every result key is refused,
    naming the line, and the file is left as it is."""
    rows = []
    if not path.exists():
        return rows
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as e:
                raise DataFormatError(Errors.E531.format(path=path, line=n, reason=f"not JSON ({e})"))
            missing = [k for k in C.RESULT_KEYS if not isinstance(row, dict) or k not in row]
            if missing:
                raise DataFormatError(Errors.E531.format(path=path, line=n,
                                                         reason=f"no {', '.join(missing)}"))
            rows.append(row)
    return rows


def cell_key(row: dict) -> tuple:
    """A run's cell; runs from before the centered layer used the paper's layer."""
    return (row["task"], row["logic"], int(row["seed"]), row["train_size"], int(row["epochs"]),
            float(row["lr"]), row.get("layer") or "paper", row.get("logic_lr"))


def protocol(args) -> tuple:
    return (args.train_size, args.epochs, float(args.lr), args.layer, args.logic_lr)


def run_cell(args, logic: str, seed: int, rows: list[dict]) -> dict:
    from logicparse.training import TrainConfig, train

    cfg = TrainConfig(task=args.task, model=args.model, data=args.data, shards=args.shards,
                      out=os.path.join(args.work, f"{args.task}-{logic}-seed{seed}"), logic=logic,
                      layer=args.layer, logic_lr=args.logic_lr,
                      train_size=args.train_size, dev_size=args.dev_size, epochs=args.epochs,
                      lr=args.lr, batch_size=args.batch_size, eval_batch_size=64,
                      max_length=args.max_length, seed=seed, checkpoint=False, quiet=True,
                      annotate_workers=args.annotate_workers)
    started = time.perf_counter()
    result = train(cfg)
    same = [r["step_seconds"] for r in rows if r["logic"] == "none" and r.get("step_seconds")
            and cell_key(r)[3:] == protocol(args)]
    ablations = {f"test_{a}_{k}": result[f"test_{a}"][v] for a in ABLATIONS
                 if f"test_{a}" in result for k, v in (("accuracy", "accuracy"),
                                                      ("predictions", "predictions"))}
    return {"task": args.task, "logic": logic, "seed": seed, "train_size": args.train_size,
            "train_examples": result["train"], "layer": args.layer, "logic_lr": args.logic_lr,
            "labels_sha": result.get("labels_sha"),
            "test_annotation_sha": result.get("test_annotation_sha"),
            "label_share": result.get("label_share"),
            "epochs": args.epochs, "lr": args.lr, "dev_accuracy": result["dev"]["accuracy"],
            "test_accuracy": result["test"]["accuracy"], "steps": result["steps"],
            "seconds": round(time.perf_counter() - started, 1),
            "step_seconds": result["step_seconds"],
            "step_ratio": round(result["step_seconds"] / np.mean(same), 4) if same else None,
            "best_epoch": result["dev"]["epoch"], "dev_curve": result["dev_curve"],
            "batch_size": args.batch_size, "max_length": args.max_length,
            "dev_size": args.dev_size, "torch_threads": _threads(),
            "load_average": round(os.getloadavg()[0], 2),
            "test_predictions": result["test"]["predictions"], **ablations}


def _threads() -> int:
    import torch

    return torch.get_num_threads()


def test_groups(args) -> tuple[list[int], dict[str, np.ndarray]]:
    """Gold labels of the test examples and a mask per relation group (from today's default
    labels, the labels the runs' fingerprints are checked against)."""
    from logicparse.training import get_task
    from logicparse.training.labels import labels_for, texts_of
    from logicparse.training.tasks import split_files

    task = get_task(args.task)
    files = split_files(task, args.data, {})
    test = task.read(files["test"])
    labels = labels_for(texts_of(test), args.shards, files["train"], source="default",
                        workers=args.annotate_workers)
    present = [{r.relation for t in ex.texts() for r in labels[t].relations} for ex in test]
    masks = {g: np.array([bool(p & rels) for p in present]) for g, rels in GROUPS.items()}
    masks["none of these"] = ~np.any(np.stack(list(masks.values())), axis=0)
    if args.task == "pararule-balanced":
        masks.update(statement_groups(files["test"]))
    return [ex.label for ex in test], masks


def statement_groups(path: str) -> dict[str, np.ndarray]:
    """Masks of the re-balanced PARARULE-Plus test statements by depth and by negation, from the
    ``meta`` the build wrote (in the reader's order: contexts, then their questions)."""
    from logicparse.training.pararule import read_rows

    meta = [q["meta"] for r in read_rows(path) for q in r["questions"]]
    out = {f"depth {d}": np.array([m["QDep"] == d for m in meta])
           for d in sorted({m["QDep"] for m in meta})}
    out["negated"] = np.array([bool(m["negated"]) for m in meta])
    out["not negated"] = ~out["negated"]
    return out


_DIGESTS: dict = {}


def todays_digest(args, row: dict) -> str:
    """The fingerprint of the labels a run of ``row``'s source and seed would be fed today (the
    texts it reads, from today's annotation); ``shuffled`` and ``random`` depend on the seed."""
    from logicparse.training import TrainConfig
    from logicparse.training.labels import digest, labels_for, texts_of
    from logicparse.training.train import read_splits

    key = (row["logic"], row["seed"] if row["logic"] in ("shuffled", "random") else None)
    if key not in _DIGESTS:
        cfg = TrainConfig(task=args.task, data=args.data, logic=row["logic"], seed=row["seed"],
                          train_size=args.train_size, dev_size=args.dev_size)
        _, files, splits = read_splits(cfg)
        texts = texts_of(ex for exs in splits.values() for ex in exs)
        _DIGESTS[key] = digest(labels_for(texts, args.shards, files["train"], source=row["logic"],
                                          seed=row["seed"], workers=args.annotate_workers), texts)
    return _DIGESTS[key]


def _interval(diffs: list[float]) -> str:
    ci = C.seed_interval(diffs)
    return f"[{ci[0]:+.4f}, {ci[1]:+.4f}] (±{(ci[1] - ci[0]) / 2:.4f})" if ci else "-"


def _share(rs: list[dict], when: str) -> str:
    values = [r["label_share"][when]["labelled"] for r in rs if r.get("label_share")]
    return f"{np.mean(values):.3f}" if values else "-"


def report(args, rows: list[dict]) -> dict:
    rows = [r for r in rows if r["task"] == args.task and cell_key(r)[3:] == protocol(args)]
    out = {"task": args.task, "train_size": args.train_size, "epochs": args.epochs, "lr": args.lr,
           "layer": args.layer, "logic_lr": args.logic_lr, "sources": {}, "differences": {},
           "ablations": {}, "groups": {}, "stale": []}
    print(f"\n{args.task}: train {args.train_size}, {args.epochs} epochs, lr {args.lr:g}"
          f"{f', logic lr {args.logic_lr:g}' if args.logic_lr else ''}, {args.layer} layer, "
          f"test = {len(rows[0]['test_predictions']) if rows else 0} pairs")
    if not rows:
        return out
    gold, masks = test_groups(args)
    stale = [r for r in rows if r["logic"] != "none" and r.get("labels_sha") != todays_digest(args, r)]
    if stale:
        print(f"\nleft out: {len(stale)} runs fed other labels than today's annotation gives "
              f"their source: " + ", ".join(f"{r['logic']}/seed {r['seed']}" for r in stale))
        out["stale"] = [[r["logic"], r["seed"], r.get("labels_sha")] for r in stale]
        rows = [r for r in rows if r not in stale]
    by = {s: sorted((r for r in rows if r["logic"] == s), key=lambda r: r["seed"]) for s in ORDER}
    by = {s: rs for s, rs in by.items() if rs}
    print("\n| source | seeds | dev acc | test acc | best epoch (mean) | s / step (median) "
          "| vs none, same seed | label share, init → after | labels |")
    print("|---|---|---|---|---|---|---|---|---|")
    plain = {r["seed"]: r["step_seconds"] for r in by.get("none", []) if r.get("step_seconds")}
    for s, rs in by.items():
        dev, test = C.mean_std([r["dev_accuracy"] for r in rs]), C.mean_std([r["test_accuracy"] for r in rs])
        steps = [r["step_seconds"] for r in rs if r.get("step_seconds")]
        # Runs of one seed follow each other, so they share the machine's load more than any others.
        ratios = [r["step_seconds"] / plain[r["seed"]] for r in rs
                  if r.get("step_seconds") and r["seed"] in plain]
        hashes = sorted({r.get("labels_sha") or "-" for r in rs})
        print(f"| {s} | {len(rs)} | {dev[0]:.4f} ± {dev[1]:.4f} | {test[0]:.4f} ± {test[1]:.4f} "
              f"| {np.mean([r['best_epoch'] + 1 for r in rs]):.1f} "
              f"| {f'{np.median(steps):.2f}' if steps else '-'} "
              f"| {f'{np.median(ratios):.3f}' if ratios else '-'} "
              f"| {_share(rs, 'init')} → {_share(rs, 'after')} "
              f"| {hashes[0] if len(hashes) == 1 else f'{len(hashes)} sets'} |")
        out["sources"][s] = {"seeds": [r["seed"] for r in rs], "dev": dev, "test": test,
                             "test_per_seed": [r["test_accuracy"] for r in rs]}
    correct = {s: C.correct_matrix([r["test_predictions"] for r in rs], gold) for s, rs in by.items()}
    print("\n| difference (test) | seeds | mean | bootstrap 95% over test pairs "
          "| t 95% over seeds (± half-width) | seeds for ±0.01 |")
    print("|---|---|---|---|---|---|")
    for a, b in PAIRS:
        if a not in by or b not in by:
            continue
        seeds = sorted({r["seed"] for r in by[a]} & {r["seed"] for r in by[b]})
        pa = [next(r for r in by[a] if r["seed"] == s) for s in seeds]
        pb = [next(r for r in by[b] if r["seed"] == s) for s in seeds]
        per_seed = [x["test_accuracy"] - y["test_accuracy"] for x, y in zip(pa, pb)]
        diff, lo, hi = C.paired_bootstrap(C.correct_matrix([r["test_predictions"] for r in pa], gold),
                                          C.correct_matrix([r["test_predictions"] for r in pb], gold))
        need = C.seeds_needed(per_seed, 0.01)
        print(f"| {a} − {b} | {len(seeds)} | {diff:+.4f} | [{lo:+.4f}, {hi:+.4f}] "
              f"| {_interval(per_seed)} | {need or '-'} |")
        ci = C.seed_interval(per_seed)
        out["differences"][f"{a}-{b}"] = {"seeds": seeds, "per_seed": per_seed, "mean": diff,
                                          "ci95": [lo, hi], "ci95_seeds": list(ci) if ci else None,
                                          "seeds_for_0.01": need}
    print("\n| test-time ablation: own labels minus | source | seeds | mean | t 95% over seeds |")
    print("|---|---|---|---|---|")
    for s, rs in by.items():
        for a in ABLATIONS:
            drops = [r["test_accuracy"] - r[f"test_{a}_accuracy"] for r in rs
                     if f"test_{a}_accuracy" in r]
            if drops:
                print(f"| {a} labels | {s} | {len(drops)} | {np.mean(drops):+.4f} | {_interval(drops)} |")
                ci = C.seed_interval(drops)
                out["ablations"][f"{s}-{a}"] = {"per_seed": drops, "mean": float(np.mean(drops)),
                                                "ci95_seeds": list(ci) if ci else None}
    print("\n| test pairs with (today's labels) | n | " + " | ".join(by) + " |")
    print("|---|---|" + "---|" * len(by))
    for g, mask in masks.items():
        cells = {s: C.group_accuracy(correct[s], mask) for s in by}
        n = int(mask.sum())
        print(f"| {g} | {n} | " + " | ".join(f"{c[0]:.4f} ± {c[1]:.4f}" if c else "-" for c in cells.values()) + " |")
        out["groups"][g] = {"n": n, **{s: (c[:2] if c else None) for s, c in cells.items()}}
    if args.plot:
        plot(by, args.plot, f"{args.task}: dev accuracy per epoch (train {args.train_size})")
    return out


def plot(by: dict, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for i, (s, rs) in enumerate(by.items()):
        color = f"C{i}"
        curves = [r["dev_curve"] for r in rs]
        for c in curves:
            ax.plot(range(1, len(c) + 1), c, color=color, alpha=0.25, linewidth=1)
        width = min(len(c) for c in curves)
        ax.plot(range(1, width + 1), np.mean([c[:width] for c in curves], axis=0), color=color,
                linewidth=2, marker="o", label=f"{s} ({len(rs)} seeds)")
    ax.set_xlabel("epoch")
    ax.set_ylabel("dev accuracy")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nplot: {path}")


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
    p.add_argument("--shards", default=None, help="Label shards (default: the user cache).")
    p.add_argument("--annotate-workers", type=int, default=2)
    p.add_argument("--results", default=None, help="Default: benchmarks/results/downstream_<task>.jsonl")
    p.add_argument("--work", default="out/downstream", help="Each run's metrics.jsonl.")
    p.add_argument("--plot", default=None, help="PNG of dev accuracy per epoch (e.g. docs/downstream_conjnli.png).")
    p.add_argument("--report", action="store_true", help="Print the table from the results; run nothing.")
    p.add_argument("--no-report", action="store_true", help="Run the missing cells; print no table.")
    args = p.parse_args(argv)
    results = Path(args.results or HERE / "results" / f"downstream_{args.task}.jsonl")
    try:
        rows = read_results(results)
        # A cell is finished only by a run fed today's labels: one fed an older annotation is
        # left out of the table, so it is run again.
        done = {cell_key(r) for r in rows if args.report or r["logic"] == "none"
                or cell_key(r)[3:] != protocol(args) or r.get("labels_sha") == todays_digest(args, r)}
        todo = [(lg, s) for s in args.seeds for lg in ORDER if lg in args.logic
                and (args.task, lg, s, *protocol(args)) not in done]
        for i, (logic, seed) in enumerate(todo if not args.report else []):
            print(f"[{i + 1}/{len(todo)}] {args.task} logic={logic} seed={seed}", file=sys.stderr, flush=True)
            row = run_cell(args, logic, seed, rows)
            results.parent.mkdir(parents=True, exist_ok=True)
            with open(results, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            rows.append(row)
            print(f"  dev {row['dev_accuracy']:.4f} test {row['test_accuracy']:.4f} "
                  f"({row['seconds']:.0f} s)", file=sys.stderr, flush=True)
        if args.no_report:
            return 0
        summary = report(args, rows)
    except DataFormatError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
