"""`logicparse mapping eval`: α/β mapping against GDTB gold arguments."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

mapping_app = typer.Typer(help="Evaluate Algorithm 1's α/β mapping.", no_args_is_help=True)


@mapping_app.command("eval")
def eval_(
    gdtb: Path = typer.Option(..., "--gdtb", help="GDTB directory (raw/, gold/, const/, SPLITS.json)."),
    trees: str = typer.Option("gold", "--trees", help="'gold': map over DIR/const/ trees (mapping "
                              "measured apart from the parser); 'parser': parse the same tokens."),
    parser: str = typer.Option("default", "--parser", help="Parser for --trees parser: 'default', "
                               "a benepar model name, or a path."),
    split: Optional[str] = typer.Option("dev", "--split", help="Split of SPLITS.json to score; "
                                        "'all' for every document."),
) -> None:
    """Compare mapped α with Arg1 and β with Arg2 for every Explicit GDTB relation whose connective
    is a taxonomy keyword. Prints progress on stderr and one JSON object as the last stdout line."""
    from ..gdtb import read_gdtb
    from ..scorer import evaluate_mapping

    if trees not in ("gold", "parser"):
        raise typer.BadParameter("--trees must be 'gold' or 'parser'")
    docs = read_gdtb(gdtb, None if split == "all" else split)
    p = None
    if trees == "parser":
        from ..parser import load_parser

        p = load_parser(parser)
    done = [0]

    def progress(name: str) -> None:
        done[0] += 1
        print(f"[{done[0]}/{len(docs)}] {name}", file=sys.stderr, flush=True)

    result = evaluate_mapping(docs, parser=p, progress=progress)
    result.update({"trees": trees, "split": split})
    print(json.dumps(result))


def register(app: typer.Typer) -> None:
    app.add_typer(mapping_app, name="mapping")
