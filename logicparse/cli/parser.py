"""``logicparse parser``: train, evaluate and export the constituency parser."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import List, Optional

import typer

from ..terminal import safe

parser_app = typer.Typer(
    rich_markup_mode=None,
    help="The constituency parser under Algorithm 1: benepar's ChartParser. Train it on "
    "treebanks, score it with EVALB conventions, export it.",
    no_args_is_help=True,
)


def _progress(iterable, total: int, desc: str):
    """rich-free, dependency-light progress: a tqdm bar on a TTY, plain lines otherwise."""
    from tqdm import tqdm

    if sys.stderr.isatty():
        return tqdm(iterable, total=total, desc=desc, unit="sent")
    return tqdm(iterable, total=total, desc=desc, unit="sent", mininterval=30, ascii=True)


def _parse_overrides(values: List[str]) -> dict:
    out = {}
    for item in values:
        key, _, raw = item.partition("=")
        if not _:
            raise typer.BadParameter(f"--set takes KEY=VALUE, got {item!r}")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


@parser_app.command("train")
def train_cmd(
    config: Path = typer.Option(Path("configs/parser.toml"), "--config", "-c",
                                help="TOML config: [model] benepar hyperparameters, [train] data "
                                "paths, seed, schedule."),
    out: Path = typer.Option(Path("runs/parser"), "--out", "-o",
                             help="Run directory: log, checkpoint.pt, model/ (best so far)."),
    resume: bool = typer.Option(False, "--resume", help="Continue from OUT/checkpoint.pt."),
    export: Optional[Path] = typer.Option(None, "--export",
                                          help="Also write each new best model here, e.g. "
                                          "logicparse/models/parser (the bundled model)."),
    set_: List[str] = typer.Option([], "--set", help="Override a config key, e.g. "
                                   "--set max_minutes=60 --set 'train=[\"a.mrg\"]'."),
    random_init: bool = typer.Option(False, "--random-init", hidden=True,
                                     help="Random encoder weights (smoke tests)."),
) -> None:
    """Train benepar's ChartParser; prints progress and dev F1, writes the best model. The last
    stdout line is a JSON summary."""
    from ..parser.training import train

    summary = train(str(config), str(out), resume=resume, overrides=_parse_overrides(set_),
                    export_to=str(export) if export else None, pretrained=not random_init)
    summary.pop("history", None)
    print(json.dumps(summary))


@parser_app.command("eval")
def eval_cmd(
    treebank: Path = typer.Option(..., "--treebank", "-t", help="Gold trees (.mrg, bracketed)."),
    parser: str = typer.Option("default", "--parser", "-p",
                               help="'default' (bundled), a benepar model name, or a model dir."),
    limit: int = typer.Option(0, "--limit", help="Score only the first N trees (0 = all; with "
                              "--longer-than, the first N of those)."),
    longer_than: int = typer.Option(
        0, "--longer-than", help="Score only the trees of more than N words (0 = all): how the "
        "parser does past a length, e.g. past the 60 words the bundled network was trained on."),
    batch_size: int = typer.Option(64, "--batch-size"),
    device: str = typer.Option("cpu", "--device"),
    save_trees: Optional[Path] = typer.Option(None, "--save-trees",
                                              help="Write the predicted trees here."),
    predicted: Optional[Path] = typer.Option(
        None, "--predicted", help="Score these trees (bracketed, in the treebank's order, e.g. "
        "another parser's output or a --save-trees file; the whole treebank's, or only those "
        "--limit and --longer-than keep) instead of parsing."),
) -> None:
    """Labelled bracketing F1 (EVALB, COLLINS.prm) against a treebank. Last stdout line:
    {"f1", "precision", "recall", "sentences", "exact_match", "error_sentences", ...}."""
    from ..errors import ParseError
    from ..parser import load_parser
    from ..parser.evalb import evalb
    from ..parser.treebank import read_trees
    from ..ptb import raw_tokens
    from ..retry import one_by_one

    gold = read_trees(treebank)
    keep = [i for i, t in enumerate(gold) if len(t.leaves()) > longer_than]
    keep = keep[:limit] if limit else keep
    gold = [gold[i] for i in keep]
    if predicted is not None:
        test = read_trees(predicted)
        if len(test) != len(keep):  # the whole treebank's trees, in its order
            test = [test[i] for i in keep if i < len(test)]
        score = evalb(gold, test).to_dict()
        score.update(predicted=str(predicted), treebank=str(treebank))
        print(json.dumps(score))
        return
    t0 = time.time()
    model = load_parser(parser, device=device)
    load_s = time.time() - t0
    if hasattr(model, "batch_size"):
        model.batch_size = batch_size
    sentences = [raw_tokens(t.leaves()) for t in gold]
    predicted, failed = [], []
    t0 = time.time()
    chunk = max(batch_size * 4, 1)
    bar = _progress(range(len(sentences)), len(sentences), "parsing")

    def flat(s, e):  # a sentence the parser fails on alone scores as a flat tree
        print(f"sentence failed: {safe(e, lines=True)}", file=sys.stderr)
        failed.append(s)
        return "(TOP " + " ".join(f"(X {w})" for w in s) + ")"

    for a in range(0, len(sentences), chunk):
        part = sentences[a : a + chunk]
        predicted += one_by_one(part, lambda b: [t.to_string() for t in model.parse(b)], flat,
                                catch=ParseError)
        bar.update(len(part))
    bar.close()
    parse_s = time.time() - t0
    if save_trees:
        save_trees.write_text("\n".join(predicted) + "\n")
    score = evalb(gold, predicted).to_dict()
    score.update(failed=len(failed), parser=getattr(model, "name", parser), treebank=str(treebank),
                 sentences_per_second=round(len(sentences) / parse_s, 2),
                 load_seconds=round(load_s, 2))
    print(json.dumps(score))


@parser_app.command("export")
def export_cmd(
    model: str = typer.Argument(..., help="A model directory, 'default', or a benepar model name."),
    out: Path = typer.Argument(..., help="Directory to write."),
    full: bool = typer.Option(False, "--full", help="Include every weight (the encoder's word "
                              "embeddings too), so that plain benepar.Parser(OUT) and spaCy's "
                              "benepar component load it."),
    dtype: str = typer.Option("float16", "--dtype", help="float16 or float32."),
) -> None:
    """Write a model in benepar's release format."""
    from ..parser.export import export_model
    from ..parser.loading import load_parser

    loaded = load_parser(model, runtime="torch")  # the weights themselves are written
    export_model(loaded.chart_parser, out, name=loaded.name, dtype=dtype,
                 omit_word_embeddings=not full, metrics=getattr(loaded, "metrics", {}),
                 max_train_words=loaded.piece_words)
    print(json.dumps({"model": str(out), "full": full, "dtype": dtype}))


@parser_app.command("calibrate")
def calibrate_cmd(
    treebank: Path = typer.Option(..., "--treebank", "-t",
                                  help="Development trees (e.g. ptb_wsj22.mrg; never the test set)."),
    parser: str = typer.Option("default", "--parser", "-p", help="Model directory or 'default'."),
    limit: int = typer.Option(0, "--limit", help="Use only the first N trees (0 = all)."),
    write: bool = typer.Option(True, "--write/--dry-run",
                               help="Store the best bias in the model's config.json."),
) -> None:
    """Choose the decoder's span bias (precision/recall balance) on development trees. Last stdout
    line: {"span_bias", "f1", "f1_at_zero", "f1_by_bias"}."""
    from ..parser.calibration import best_bias, calibrate_span_bias, write_span_bias
    from ..parser.loading import load_parser
    from ..parser.treebank import load_examples

    examples = load_examples(treebank)
    if limit:
        examples = examples[:limit]
    model = load_parser(parser, runtime="torch")  # benepar's own parse gives the span scores
    results = calibrate_span_bias(model, examples)
    best = best_bias(results)
    if write:
        write_span_bias(model.path, best, results, str(treebank))
    print(json.dumps({"span_bias": best, "f1": results[best]["f1"],
                      "f1_at_zero": results.get(0.0, {}).get("f1"),
                      "f1_by_bias": {str(k): v["f1"] for k, v in results.items()},
                      "model": str(model.path), "written": write}))


def register(app: typer.Typer) -> None:
    app.add_typer(parser_app, name="parser")
