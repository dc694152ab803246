"""`logicparse compare`: does logic help training on this data? Label sources side by side."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from .train import TaskName

SOURCES = ("none", "paper", "default", "shuffled", "random", "all-e")


def compare(
    train_file: Optional[Path] = typer.Option(None, "--train", help="Your labelled table (CSV, "
                                              "TSV, JSONL, Parquet, a datasets folder), as for "
                                              "`logicparse train`; implies --task table."),
    dev_file: Optional[Path] = typer.Option(None, "--dev", help="Dev table (default: a tenth of "
                                            "--train carved, the same for every run)."),
    test_file: Optional[Path] = typer.Option(None, "--test", help="Test table: the comparisons "
                                             "are made on it (required for a table)."),
    task: Optional[TaskName] = typer.Option(None, "--task", help="A benchmark task instead of a "
                                            "table (with --data), as for `logicparse train`."),
    data: Optional[Path] = typer.Option(None, "--data", help="The benchmark task's folder."),
    text_column: Optional[str] = typer.Option(None, "--text-column"),
    pair_column: Optional[str] = typer.Option(None, "--pair-column"),
    label_column: Optional[str] = typer.Option(None, "--label-column"),
    choices_column: Optional[str] = typer.Option(None, "--choices-column", help="Multiple "
                                                 "choice, as for `logicparse train`."),
    seeds: int = typer.Option(3, "--seeds", min=1, help="Seeds per source: 0 to N-1. More narrow "
                              "the intervals; the report says how many a half-width would need."),
    logic: str = typer.Option("none,default,shuffled,random", "--logic", help="Label sources, "
                              "comma-separated, from " + ", ".join(SOURCES) + ". shuffled: where "
                              "labels sit (each text's labels permuted); random: which label (the "
                              "same labelled tokens, ids drawn at random); all-e: the layer fed no "
                              "labels."),
    train_size: Optional[int] = typer.Option(None, "--train-size", min=1, help="A seeded subset "
                                             "of the training examples (default: all)."),
    dev_size: Optional[int] = typer.Option(None, "--dev-size", min=0),
    epochs: int = typer.Option(8, "--epochs", min=1, help="The defaults (8 epochs, lr 5e-5, "
                               "batch 8) fit a table of a few hundred rows; the ConjNLI table in "
                               "the docs used 6 epochs, lr 1e-4 and batch 32 on 3,000 pairs."),
    lr: float = typer.Option(5e-5, "--lr"),
    batch_size: int = typer.Option(8, "--batch-size", min=1),
    max_length: int = typer.Option(128, "--max-length", min=8),
    model: str = typer.Option("all-MiniLM-L6-v2", "--model"),
    cpu_bf16: bool = typer.Option(False, "--cpu-bf16", help="Train and evaluate under bf16 "
                                  "autocast on CPU too (about 3x faster on CPUs with AVX512-BF16 "
                                  "or AMX); its runs are cells of their own."),
    no_bucket: bool = typer.Option(False, "--no-bucket", help="Batches in seeded random order, "
                                   "not of similar lengths (which put examples that differ by a "
                                   "word, such as a PARARULE-Plus quartet, in one batch)."),
    shards: Optional[Path] = typer.Option(None, "--shards", help="Label shards (default: the "
                                          "user cache)."),
    out: Path = typer.Option(Path("compare"), "--out", help="Folder of the runs' metrics and of "
                             "results.jsonl (one line per finished run: a rerun resumes)."),
    results: Optional[Path] = typer.Option(None, "--results", help="Results file (default: "
                                           "OUT/results.jsonl)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="PNG of dev accuracy per epoch."),
    half_width: float = typer.Option(0.01, "--half-width", min=0.0001, help="Report how many "
                                     "seeds an interval of this half-width would need (accuracy, "
                                     "0.01 = one point)."),
    report: bool = typer.Option(False, "--report", help="Print the table from the results; run "
                                "nothing."),
    as_recorded: bool = typer.Option(False, "--as-recorded", help="Report the runs as recorded, "
                                     "without checking their labels against today's annotation."),
    quiet: bool = typer.Option(False, "--quiet", "-q"),
) -> None:
    """Train one model per label source and seed on the same data, then report: test accuracy per
    source, paired differences with a t interval over seeds and a bootstrap interval over test
    examples, the seeds a chosen half-width needs, test-time ablations, accuracy by the relations
    a test example holds, and one sentence per primary difference (default − shuffled, default −
    random, default − none) that says no more than its interval allows. One model at a time;
    finished runs are kept in the results file, so an interrupted comparison resumes. The last
    line of stdout is the report as one JSON object."""
    from ..training.comparison import CompareConfig
    from ..training.comparison_report import compare_sources

    sources = [s.strip() for s in logic.split(",") if s.strip()]
    bad = [s for s in sources if s not in SOURCES]
    if bad or not sources:
        raise typer.BadParameter(f"{', '.join(map(repr, bad)) or 'nothing'} is not a list of "
                                 f"{', '.join(map(repr, SOURCES))}", param_hint="'--logic'")
    if task is None:
        if train_file is None:
            raise typer.BadParameter("give --train FILE (your own table) or a benchmark task",
                                     param_hint="'--task'")
        task = TaskName.table
    if task == TaskName.table and test_file is None and not report:
        raise typer.BadParameter("a comparison is made on a test table: give one",
                                 param_hint="'--test'")
    cfg = CompareConfig(
        task=task.value, data=str(data) if data else None,
        train_file=str(train_file) if train_file else None,
        dev_file=str(dev_file) if dev_file else None, test_file=str(test_file) if test_file else None,
        text_column=text_column, pair_column=pair_column, label_column=label_column,
        choices_column=choices_column, seeds=list(range(seeds)), logic=sources, train_size=train_size, dev_size=dev_size,
        epochs=epochs, lr=lr, batch_size=batch_size, max_length=max_length, model=model,
        cpu_bf16=cpu_bf16, bucket=not no_bucket, shards=str(shards) if shards else None,
        work=str(out),
        results=str(results or out / "results.jsonl"), plot=str(plot) if plot else None,
        report_only=report, as_recorded=as_recorded, half_width=half_width, quiet=quiet)
    print(json.dumps(compare_sources(cfg)))


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
