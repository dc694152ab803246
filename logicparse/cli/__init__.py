"""The ``logicparse`` command. Each command group lives in its own module with a ``register(app)``."""

from __future__ import annotations

import logging
import os

import click
import typer
from typer.core import TyperGroup

from ..errors import Errors, LogicparseError
from ..resources import offline_environment
from ..terminal import SafeFormatter, safe, warnings_as_lines

offline_environment()
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

# Typer (0.29) parses with its own copy of click, whose usage errors are not click's.
_USAGE_ERRORS = tuple({click.UsageError, *(c for c in typer.BadParameter.__mro__
                                           if c.__name__ == "UsageError")})


class _Commands(TyperGroup):
    """Every command ends a logicparse error the same way: its coded message and exit status 2,
    with the traceback only under ``--verbose`` (errors of logicparse are the user's to fix; a
    traceback would bury the fix)."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except LogicparseError as e:
            if (ctx.obj or {}).get("verbose"):
                raise
            click.echo(f"error: {safe(e, lines=True)}", err=True)
            ctx.exit(2)
        except _USAGE_ERRORS as e:
            if type(e).__name__ == "NoArgsIsHelpError":
                raise  # a bare command shows its help
            # A mistake on the command line reads like any other: coded, with the option, what
            # it got and its choices, in click's words less pydantic's "Value error," prefix.
            problem = e.format_message().replace("Value error, ", "").rstrip(".")
            command = e.ctx.command_path if e.ctx is not None else ctx.command_path
            click.echo(f"error: {safe(Errors.E009.format(problem=problem, command=command))}",
                       err=True)
            ctx.exit(2)


# Plain click help (rich_markup_mode=None): texts wrap whole at any width, never cut with "…",
# and flags show no value type (rich help printed them as <bool>, inviting `--resume true`).
app = typer.Typer(
    rich_markup_mode=None,
    cls=_Commands,
    name="logicparse",
    help="Find the logical structure of English text (Logical Transformers, Wang et al. 2023): "
    "keywords of 12 relation types, their alpha/beta spans, and per-token logic labels.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"logicparse {version('logicparse')}")
        raise typer.Exit()


@app.callback()
def _options(ctx: typer.Context,
             verbose: bool = typer.Option(False, "--verbose", "-v",
                                          help="Show the full traceback of an error."),
             version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                          help="Print the installed version and exit.")) -> None:
    ctx.obj = {"verbose": verbose}


# One module per command group; each adds its commands or sub-app to `app`.
_GROUPS = ("annotate", "serve", "parser", "senses", "keywords", "mapping", "shards", "train", "compare",
           "tasks")


def _register() -> None:
    import importlib

    for name in _GROUPS:
        importlib.import_module(f"{__name__}.{name}").register(app)


def main() -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=os.environ.get("LOGICPARSE_LOG", "WARNING").upper(),
                        handlers=[handler])
    warnings_as_lines()
    _register()
    app()
