"""Constituency parsing behind one small interface.

``load_parser(spec)`` returns a :class:`Parser`: ``"default"`` (the bundled model), a benepar model
name such as ``"benepar_en3"``, or a path to a model directory. The rest of logicparse only calls
``parse`` and reads ``max_length``.
"""

from __future__ import annotations

from typing import Protocol, Sequence

from ..trees import ParseTree


class Parser(Protocol):
    name: str  # identifier written to shard manifests, e.g. "logicparse-minilm-v4" or "benepar_en3"
    max_length: int  # most tokens one sentence may have; longer ones are split by the Annotator

    def parse(self, sentences: Sequence[Sequence[str]]) -> list[ParseTree]:
        """One tree per sentence, leaves = the given tokens in order (a ROOT/TOP wrapper is
        removed by the Annotator if present). Raises ParseError for a sentence it cannot parse."""
        ...


def load_parser(spec: str = "default", device: str = "cpu", runtime=None, precision=None,
                light: bool = True) -> Parser:
    from .loading import load_parser as _load

    return _load(spec, device=device, runtime=runtime, precision=precision, light=light)


def check_parser(spec) -> None:
    """Raise the error ``load_parser(spec)`` would raise for a spec that names no model (E021,
    E100), without loading it."""
    from .loading import resolve_parser

    resolve_parser(spec)
