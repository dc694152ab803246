"""`logicparse tasks pararule-balanced DATA`: build the re-balanced PARARULE-Plus set."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

tasks_app = typer.Typer(help="Build training sets derived from the downstream tasks' files.",
                        no_args_is_help=True, rich_markup_mode=None)


@tasks_app.command("pararule-balanced")
def pararule_balanced(
    data: Path = typer.Argument(..., metavar="DATA", help="The PARARULE-Plus folder "
                                "(depth2_dev.jsonl and depth2_test.jsonl)."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where train.jsonl, dev.jsonl and "
                                       "test.jsonl go. Default: DATA/balanced, which is where "
                                       "`logicparse train --task pararule-balanced --data DATA` "
                                       "reads them."),
    train_size: int = typer.Option(2000, "--train", min=4, help="Training statements (4 per "
                                   "quartet)."),
    dev_size: int = typer.Option(500, "--dev", min=4, help="Dev statements, from other contexts "
                                 "of the same file."),
    test_size: int = typer.Option(1000, "--test", min=4, help="Test statements, from the test file."),
    depths: str = typer.Option("0,1,2", "--depths", help="Depths asked, in turn: the rule "
                               "applications a true statement needs (0: stated in the context)."),
    source_depth: int = typer.Option(2, "--source-depth", min=2, max=3, help="Which released "
                                     "files the contexts come from (depth2_* or depth3_*)."),
    per_context: int = typer.Option(1, "--per-context", min=1, help="Quartets asked of each "
                                    "context, at different depths (more statements from fewer "
                                    "contexts)."),
    entities: Optional[int] = typer.Option(
        None, "--entities", min=2, help="Cut each context to the facts of this many of its "
        "entities (chosen at random) and its rules, and ask its statements of that shorter "
        "context. Default: the whole context."),
    warm_up: Optional[str] = typer.Option(
        None, "--warm-up", metavar="binding|quartets", help="A warm-up set instead: depth-0 "
        "quartets over two entities' facts (--depths 0 --entities 2) with the rules taken out of "
        "each context; 'binding' keeps only the statements without 'not' ('X is A.' true, 'Y is "
        "A.' false: which of two entities the context gives an attribute), 'quartets' all four. "
        "The sizes count the statements kept. Default --out: DATA/warm-up-KIND/balanced, so that "
        "--data DATA/warm-up-KIND trains on it."),
    seed: int = typer.Option(0, "--seed", help="The same seed builds the same files."),
) -> None:
    """Re-balanced PARARULE-Plus: statements about each context in quartets ("X is A." true,
    "X is not A." false, "Y is A." false, "Y is not A." true), so that no single word of a
    statement, "not" included, tells its answer. A closed-world reasoner derives each context's
    consequences, and is first checked against every released label (the command refuses, E537,
    if one disagrees). Prints the counts and the best single-word predictor's accuracy per split;
    the last line of stdout is the same as one JSON object."""
    from ..errors import DataFormatError, Errors
    from ..terminal import safe
    from ..training.pararule import WARM_UPS, build_balanced

    try:
        wanted = tuple(int(d) for d in depths.split(","))
    except ValueError:
        wanted = ()
    if warm_up is not None and warm_up not in WARM_UPS:
        raise DataFormatError(Errors.E506.format(what="--warm-up", name=warm_up,
                                                 opts=", ".join(WARM_UPS)))
    if not wanted or any(d < 0 or d > source_depth for d in wanted):
        raise DataFormatError(Errors.E506.format(what="--depths", name=depths,
                                                 opts=f"comma-separated depths from 0 to {source_depth}"))
    summary = build_balanced(str(data), str(out) if out else None,
                             (train_size, dev_size, test_size), wanted, seed, source_depth,
                             per_context, entities, warm_up)
    for name, check in summary["reasoner"].items():
        typer.echo(f"reasoner: {check['agree']:,} of {check['questions']:,} released labels "
                   f"reproduced ({safe(name)}, {check['contexts']:,} contexts)")
    for split, s in summary["splits"].items():
        word = s["best_single_word"]
        best = "no word beats the majority" if word == "(majority)" else f"'{safe(word)}'"
        typer.echo(f"{split}: {s['statements']:,} statements from {s['contexts']:,} contexts; best "
                   f"single-word predictor {s['best_single_word_accuracy']:.3f} ({best}) -> "
                   f"{safe(s['file'])}")
    typer.echo(json.dumps(summary))


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")
