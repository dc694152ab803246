"""The report of a comparison of label sources (comparison.py), from its results file alone:
mean ± std per source, the paired differences with a t interval over seeds and a bootstrap
interval over test examples, the seeds a chosen half-width would need, the test-time ablations,
accuracy by the relations a test example holds, a plot of dev accuracy per epoch, and a plain
sentence per primary difference that says no more than its interval allows."""

from __future__ import annotations

from typing import Optional

import numpy as np

from . import compare as C
from .comparison import (ABLATIONS, ORDER, CompareConfig, cell_key, protocol, run_missing,
                         todays_digest)

PAIRS = (("default", "none"), ("default", "shuffled"), ("default", "random"), ("default", "all-e"),
         ("paper", "none"), ("default", "paper"), ("shuffled", "none"), ("random", "none"),
         ("all-e", "none"))
PRIMARY = (("default", "shuffled"), ("default", "random"), ("default", "none"))
# Test examples grouped by the relations the annotator (default source) finds in their texts.
GROUPS = {"disjunction": {"disjunction"}, "negation": {"negation"},
          "adversative/comparative": {"adversative", "comparative"}}


def compare_sources(cfg: CompareConfig) -> Optional[dict]:
    """Run the missing cells (unless ``report_only``), then print the report (unless
    ``no_report``); returns the report's figures."""
    rows = run_missing(cfg)
    return None if cfg.no_report else report(cfg, rows)


def test_groups(cfg: CompareConfig) -> tuple[list[int], dict[str, np.ndarray]]:
    """Gold labels of the test examples and a mask per relation group (from today's default
    labels, the labels the runs' fingerprints are checked against)."""
    from .comparison import train_config
    from .labels import labels_for, texts_of
    from .splits import read_splits

    _, files, splits = read_splits(train_config(cfg, "none", 0))
    test = splits["test"]
    labels = labels_for(texts_of(test), cfg.shards, files["train"], source="default",
                        workers=cfg.annotate_workers)
    present = [{r.relation for t in ex.texts() for r in labels[t].relations} for ex in test]
    masks = {g: np.array([bool(p & rels) for p in present]) for g, rels in GROUPS.items()}
    masks["none of these"] = ~np.any(np.stack(list(masks.values())), axis=0)
    if cfg.task == "pararule-balanced":
        masks.update(statement_groups(files["test"]))
    return [ex.label for ex in test], masks


def statement_groups(path: str) -> dict[str, np.ndarray]:
    """Masks of the re-balanced PARARULE-Plus test statements by depth and by negation, from the
    ``meta`` the build wrote (in the reader's order: contexts, then their questions)."""
    from .pararule import read_rows

    meta = [q["meta"] for r in read_rows(path) for q in r["questions"]]
    out = {f"depth {d}": np.array([m["QDep"] == d for m in meta])
           for d in sorted({m["QDep"] for m in meta})}
    out["negated"] = np.array([bool(m["negated"]) for m in meta])
    out["not negated"] = ~out["negated"]
    return out


def _interval(diffs: list[float]) -> str:
    ci = C.seed_interval(diffs)
    return f"[{ci[0]:+.4f}, {ci[1]:+.4f}] (±{(ci[1] - ci[0]) / 2:.4f})" if ci else "-"


def _share(rs: list[dict], when: str) -> str:
    values = [r["label_share"][when]["labelled"] for r in rs if r.get("label_share")]
    return f"{np.mean(values):.3f}" if values else "-"


def verdict(a: str, b: str, per_seed: list[float], half_width: float,
            one_class: tuple = ()) -> str:
    """One sentence on ``a − b`` (test accuracy, paired by seed) that says no more than the t
    interval over seeds allows. ``one_class``: the sources whose every run answers one class for
    every test example; such runs learnt nothing and could not have shown an effect."""
    idle = [s for s in (a, b) if s in one_class]
    if idle:
        return (f"{a} − {b}: nothing can be concluded: every {' and every '.join(idle)} model "
                "answers one class for every test example, so these runs could not have shown "
                "an effect; train longer, on more data, or with another --lr.")
    mean = 100 * float(np.mean(per_seed))
    ci = C.seed_interval(per_seed)
    if ci is None:
        return (f"{a} − {b}: {mean:+.2f} points from one seed; no interval without two seeds "
                "or more.")
    lo, hi = 100 * ci[0], 100 * ci[1]
    n = len(per_seed)
    need = C.seeds_needed(per_seed, half_width)
    more = (f" About {need} seeds would narrow the interval to ±{100 * half_width:g} points."
            if need and (hi - lo) / 2 > 100 * half_width else "")
    if lo > 0:
        return (f"{a} scores above {b} by {mean:+.2f} points (95% over {n} seeds: {lo:+.2f} to "
                f"{hi:+.2f}).{more}")
    if hi < 0:
        return (f"{a} scores below {b} by {mean:+.2f} points (95% over {n} seeds: {lo:+.2f} to "
                f"{hi:+.2f}).{more}")
    return (f"{a} − {b}: no difference shown; over {n} seeds the data allow from {lo:+.2f} to "
            f"{hi:+.2f} points.{more}")


def report(cfg: CompareConfig, rows: list[dict]) -> dict:
    rows = [r for r in rows if r["task"] == cfg.task and cell_key(r)[3:] == protocol(cfg)]
    out = {"task": cfg.task, "train_size": cfg.train_size, "epochs": cfg.epochs, "lr": cfg.lr,
           "layer": cfg.layer, "logic_lr": cfg.logic_lr, "sources": {}, "differences": {},
           "ablations": {}, "groups": {}, "stale": [], "verdicts": []}
    print(f"\n{cfg.task}: train {cfg.train_size or 'all'}, {cfg.epochs} epochs, lr {cfg.lr:g}"
          f"{f', logic lr {cfg.logic_lr:g}' if cfg.logic_lr is not None else ''}, {cfg.layer} layer, "
          f"test = {len(rows[0]['test_predictions']) if rows else 0} examples")
    if not rows:
        return out
    gold, masks = test_groups(cfg)
    stale = [] if cfg.as_recorded else [r for r in rows if r["logic"] != "none"
                                        and r.get("labels_sha") != todays_digest(cfg, r)]
    if stale:
        print(f"\nleft out: {len(stale)} runs fed other labels than today's annotation gives "
              f"their source: " + ", ".join(f"{r['logic']}/seed {r['seed']}" for r in stale))
        out["stale"] = [[r["logic"], r["seed"], r.get("labels_sha")] for r in stale]
        rows = [r for r in rows if r not in stale]
    # One run per cell: the last one recorded (a cell run again, fed newer labels, supersedes).
    rows = list({cell_key(r): r for r in rows}.values())
    by = {s: sorted((r for r in rows if r["logic"] == s), key=lambda r: r["seed"]) for s in ORDER}
    by = {s: rs for s, rs in by.items() if rs}
    _sources(by, out)
    correct = {s: C.correct_matrix([r["test_predictions"] for r in rs], gold) for s, rs in by.items()}
    _differences(by, gold, cfg.half_width, out)
    _ablations(by, out)
    print("\n| test examples with (today's labels) | n | " + " | ".join(by) + " |")
    print("|---|---|" + "---|" * len(by))
    for g, mask in masks.items():
        cells = {s: C.group_accuracy(correct[s], mask) for s in by}
        n = int(mask.sum())
        print(f"| {g} | {n} | " + " | ".join(f"{c[0]:.4f} ± {c[1]:.4f}" if c else "-" for c in cells.values()) + " |")
        out["groups"][g] = {"n": n, **{s: (c[:2] if c else None) for s, c in cells.items()}}
    if out["verdicts"]:
        print("\n" + "\n".join(out["verdicts"]))
    if cfg.plot:
        plot(by, cfg.plot, f"{cfg.task}: dev accuracy per epoch (train {cfg.train_size or 'all'})")
    return out


def _sources(by: dict, out: dict) -> None:
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


def _differences(by: dict, gold: list, half_width: float, out: dict) -> None:
    print("\n| difference (test) | seeds | mean | bootstrap 95% over test examples "
          f"| t 95% over seeds (± half-width) | seeds for ±{half_width:g} |")
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
        need = C.seeds_needed(per_seed, half_width)
        print(f"| {a} − {b} | {len(seeds)} | {diff:+.4f} | [{lo:+.4f}, {hi:+.4f}] "
              f"| {_interval(per_seed)} | {need or '-'} |")
        ci = C.seed_interval(per_seed)
        out["differences"][f"{a}-{b}"] = {"seeds": seeds, "per_seed": per_seed, "mean": diff,
                                          "ci95": [lo, hi], "ci95_seeds": list(ci) if ci else None,
                                          f"seeds_for_{half_width:g}": need}
        if (a, b) in PRIMARY:
            one_class = tuple(s for s in (a, b) if all(
                len(set(r["test_predictions"])) == 1 for r in by[s]))
            out["verdicts"].append(verdict(a, b, per_seed, half_width, one_class))


def _ablations(by: dict, out: dict) -> None:
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


def plot(by: dict, path: str, title: str) -> Optional[str]:
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
    plt.close(fig)
    print(f"\nplot: {path}")
    return path
