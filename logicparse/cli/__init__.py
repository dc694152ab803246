"""The ``logicparse`` command. Each command group lives in its own module with a ``register(app)``."""

from __future__ import annotations

import logging
import os

import typer

# Nothing may reach a model hub at run time: local paths only.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

app = typer.Typer(
    name="logicparse",
    help="Find the logical structure of English text (Logical Transformers, Wang et al. 2023): "
    "keywords of 12 relation types, their alpha/beta spans, and per-token logic labels.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

# One module per command group; each adds its commands or sub-app to `app`.
_GROUPS = ("annotate", "serve", "parser", "senses", "keywords", "mapping", "shards", "train")


def _register() -> None:
    import importlib

    for name in _GROUPS:
        importlib.import_module(f"{__name__}.{name}").register(app)


def main() -> None:
    logging.basicConfig(level=os.environ.get("LOGICPARSE_LOG", "WARNING").upper(),
                        format="%(levelname)s %(name)s: %(message)s")
    _register()
    app()
