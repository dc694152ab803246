"""Does logic help training on this data? The label sources side by side, several seeds each
(``logicparse compare``; ``benchmarks/downstream/downstream_table.py`` runs the same for the
benchmark tasks).

Every missing cell (source × seed, all with the same training size, epochs and learning rate) is
trained, one model at a time, and appended as one JSON object to the results file; a rerun skips
finished cells, so a table fills over several sittings. A cell whose run was fed other labels than
today's annotation gives its source is run again (and left out of the report, which names it),
unless the report is asked for the runs as recorded. The report, and :func:`compare_sources`
which runs both, are in ``comparison_report.py``.

Sources: none (the plain model), paper (the paper's literal labels), default (the annotator's
labels), shuffled (default's labels permuted over each text's tokens: the control for where
labels sit), random (default's labelled tokens with label ids drawn at random: the control for
which label), all-e (the logical layer fed no labels: the control for the layer).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..errors import DataFormatError, Errors
from . import compare as C
from .labels import ABLATIONS, SOURCES as ORDER  # the sources in the table's order


@dataclass
class CompareConfig:
    task: str = "table"
    data: Optional[str] = None  # a benchmark task's folder
    train_file: Optional[str] = None  # --task table: the user's files
    dev_file: Optional[str] = None
    test_file: Optional[str] = None
    text_column: Optional[str] = None
    pair_column: Optional[str] = None
    label_column: Optional[str] = None
    choices_column: Optional[str] = None
    seeds: list = field(default_factory=lambda: [0, 1, 2])
    logic: list = field(default_factory=lambda: list(ORDER))
    train_size: Optional[int] = None
    dev_size: Optional[int] = None
    epochs: int = 6
    lr: float = 1e-4
    logic_lr: Optional[float] = None
    layer: str = "centered"
    batch_size: int = 32
    max_length: int = 128
    model: str = "all-MiniLM-L6-v2"
    cpu_bf16: bool = False  # bf16 autocast on CPU too (a cell of its own: other numerics)
    bucket: bool = True  # batches of similar length (False: a cell of its own, other batches)
    shards: Optional[str] = None
    annotate_workers: int = 2
    results: str = "compare/results.jsonl"
    work: str = "compare"  # each run's metrics.jsonl
    plot: Optional[str] = None
    report_only: bool = False
    no_report: bool = False
    as_recorded: bool = False  # report the runs as recorded, without today's labels check
    half_width: float = 0.01  # the seeds needed for an interval this narrow are reported
    quiet: bool = False


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
    """A run's cell; runs from before the centered layer used the paper's layer, and runs that
    record no model, precision or batching trained the bundled MiniLM in fp32, bucketed."""
    return (row["task"], row["logic"], int(row["seed"]), row["train_size"], int(row["epochs"]),
            float(row["lr"]), row.get("layer") or "paper", row.get("logic_lr"),
            row.get("model") or "all-MiniLM-L6-v2", bool(row.get("cpu_bf16")),
            row.get("bucket", True))


def protocol(cfg: CompareConfig) -> tuple:
    return (cfg.train_size, cfg.epochs, float(cfg.lr), cfg.layer, cfg.logic_lr, cfg.model,
            cfg.cpu_bf16, cfg.bucket)


def train_config(cfg: CompareConfig, logic: str, seed: int, **extra):
    """The TrainConfig of one cell (the same data options for every cell)."""
    from . import TrainConfig

    return TrainConfig(task=cfg.task, model=cfg.model, data=cfg.data, train_file=cfg.train_file,
                       dev_file=cfg.dev_file, test_file=cfg.test_file,
                       text_column=cfg.text_column, pair_column=cfg.pair_column,
                       label_column=cfg.label_column, choices_column=cfg.choices_column,
                       shards=cfg.shards, logic=logic, seed=seed,
                       train_size=cfg.train_size, dev_size=cfg.dev_size, **extra)


def run_cell(cfg: CompareConfig, logic: str, seed: int, rows: list[dict]) -> dict:
    import torch

    from . import train

    tc = train_config(cfg, logic, seed, out=os.path.join(cfg.work, f"{cfg.task}-{logic}-seed{seed}"),
                      layer=cfg.layer, logic_lr=cfg.logic_lr, epochs=cfg.epochs, lr=cfg.lr,
                      batch_size=cfg.batch_size, eval_batch_size=64, max_length=cfg.max_length,
                      checkpoint=False, quiet=True, annotate_workers=cfg.annotate_workers,
                      cpu_bf16=cfg.cpu_bf16, bucket=cfg.bucket)
    started = time.perf_counter()
    result = train(tc)
    same = [r["step_seconds"] for r in rows if r["logic"] == "none" and r.get("step_seconds")
            and cell_key(r)[3:] == protocol(cfg)]
    ablations = {f"test_{a}_{k}": result[f"test_{a}"][v] for a in ABLATIONS
                 if f"test_{a}" in result for k, v in (("accuracy", "accuracy"),
                                                      ("predictions", "predictions"))}
    return {"task": cfg.task, "logic": logic, "seed": seed, "train_size": cfg.train_size,
            "train_examples": result["train"], "layer": cfg.layer, "logic_lr": cfg.logic_lr,
            "labels_sha": result.get("labels_sha"),
            "test_annotation_sha": result.get("test_annotation_sha"),
            "label_share": result.get("label_share"),
            "epochs": cfg.epochs, "lr": cfg.lr, "dev_accuracy": result["dev"]["accuracy"],
            "test_accuracy": result["test"]["accuracy"], "steps": result["steps"],
            "seconds": round(time.perf_counter() - started, 1),
            "step_seconds": result["step_seconds"],
            "step_ratio": round(result["step_seconds"] / np.mean(same), 4) if same else None,
            "best_epoch": result["dev"]["epoch"], "dev_curve": result["dev_curve"],
            "batch_size": cfg.batch_size, "max_length": cfg.max_length, "model": cfg.model,
            "cpu_bf16": cfg.cpu_bf16, "bucket": cfg.bucket,
            "dev_size": cfg.dev_size, "torch_threads": torch.get_num_threads(),
            "load_average": round(os.getloadavg()[0], 2),
            "test_predictions": result["test"]["predictions"], **ablations}


_DIGESTS: dict = {}


def todays_digest(cfg: CompareConfig, row: dict) -> str:
    """The fingerprint of the labels a run of ``row``'s source and seed would be fed today (the
    texts it reads, from today's annotation); ``shuffled`` and ``random`` depend on the seed."""
    from .labels import digest, labels_for, texts_of
    from .splits import read_splits

    key = (cfg.task, row["logic"], row["seed"] if row["logic"] in ("shuffled", "random") else None)
    if key not in _DIGESTS:
        _, files, splits = read_splits(train_config(cfg, row["logic"], row["seed"]))
        texts = texts_of(ex for exs in splits.values() for ex in exs)
        _DIGESTS[key] = digest(labels_for(texts, cfg.shards, files["train"], source=row["logic"],
                                          seed=row["seed"], workers=cfg.annotate_workers), texts)
    return _DIGESTS[key]


def run_missing(cfg: CompareConfig) -> list[dict]:
    """Every finished run of the results file, after running the missing cells (none with
    ``report_only``)."""
    results = Path(cfg.results)
    rows = read_results(results)
    if not cfg.report_only:
        # A cell is finished only by a run fed today's labels: one fed an older annotation is
        # left out of the table, so it is run again.
        done = {cell_key(r) for r in rows if r["logic"] == "none" or cell_key(r)[3:] != protocol(cfg)
                or r.get("labels_sha") == todays_digest(cfg, r)}
        todo = [(lg, s) for s in cfg.seeds for lg in ORDER if lg in cfg.logic
                and (cfg.task, lg, s, *protocol(cfg)) not in done]
        for i, (logic, seed) in enumerate(todo):
            if not cfg.quiet:
                print(f"[{i + 1}/{len(todo)}] {cfg.task} logic={logic} seed={seed}",
                      file=sys.stderr, flush=True)
            row = run_cell(cfg, logic, seed, rows)
            results.parent.mkdir(parents=True, exist_ok=True)
            with open(results, "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")
            rows.append(row)
            if not cfg.quiet:
                print(f"  dev {row['dev_accuracy']:.4f} test {row['test_accuracy']:.4f} "
                      f"({row['seconds']:.0f} s)", file=sys.stderr, flush=True)
    return rows
