"""`logicparse shards stats DIR` and `logicparse shards show DIR --id ID`: look into shards."""

from __future__ import annotations

import json
from pathlib import Path

import typer

shards_app = typer.Typer(help="Inspect a shard directory written by `logicparse annotate`.",
                         no_args_is_help=True, rich_markup_mode=None)


@shards_app.command("stats")
def stats(
    directory: Path = typer.Argument(..., metavar="DIR", help="Shard directory."),
    as_json: bool = typer.Option(False, "--json", help="Print only the JSON object."),
    top: int = typer.Option(20, "--top", min=0, help="Keywords listed in the table (most "
                            "frequent first); the table says how many it leaves out, and the JSON "
                            "line has them all."),
) -> None:
    """Documents, sentences, tokens, relations per type and per keyword, share of tokens with a label, failures. The last line of stdout is the same figures as one JSON object."""  # noqa: E501
    from ..batch.stats import shard_stats
    from ..terminal import safe

    s = shard_stats(directory)
    if not as_json:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text

        console = Console(highlight=False)
        # One short line each (an 80-column terminal must not wrap them): the directory, its
        # state, then the models among the figures.
        state = "complete" if s["complete"] else "[yellow]unfinished run[/]"
        console.print(Text(safe(directory), style="bold"), soft_wrap=True)  # a path is not cut
        console.print(f"{s['shards']} shards, {state}")
        overview = Table(show_header=False, box=None)
        overview.add_row("parser", Text(safe(s["parser"])))
        overview.add_row("senses", Text(safe(s["senses"])))
        for k in ("documents", "sentences", "tokens", "relations", "failed"):
            overview.add_row(k, f"{s[k]:,}")
        overview.add_row("tokens with a label", f"{100 * s['labelled_token_share']:.1f}%")
        console.print(overview)
        rel = Table("relation", "count", box=None)
        for name, n in s["per_relation"].items():
            rel.add_row(Text(safe(name)), f"{n:,}")
        kw = Table("keyword", "count", box=None)
        keywords = list(s["per_keyword"].items())
        for name, n in keywords[:top]:
            kw.add_row(Text(safe(name)), f"{n:,}")
        console.print(rel)
        console.print(kw)
        if len(keywords) > top:
            console.print(f"... and {len(keywords) - top:,} more keywords "
                          f"({sum(n for _, n in keywords[top:]):,} occurrences): --top "
                          f"{len(keywords)} lists them all")
    typer.echo(json.dumps(s))


@shards_app.command("show")
def show(
    directory: Path = typer.Argument(..., metavar="DIR", help="Shard directory."),
    doc_id: str = typer.Option(..., "--id", help="Document id (see manifest.json or the input)."),
    as_json: bool = typer.Option(False, "--json", help="Print the Document record as JSON."),
    labels: bool = typer.Option(False, "--labels", help="Also list every labelled token with its "
                                "label layers."),
) -> None:
    """One document: its text, then each relation with keyword, alpha and beta spans."""
    from ..batch.shards import find_document
    from ..terminal import safe_json

    doc = find_document(directory, doc_id)
    if as_json:
        typer.echo(safe_json(doc.to_dict(), ensure_ascii=False))
        return
    from rich.console import Console

    from ..batch.show import render_document

    render_document(doc, Console(highlight=False), labels=labels)


def register(app: typer.Typer) -> None:
    app.add_typer(shards_app, name="shards")
