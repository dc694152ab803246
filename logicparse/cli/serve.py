"""`logicparse serve` (not yet implemented)."""

import typer


def register(app: typer.Typer) -> None:
    pass
