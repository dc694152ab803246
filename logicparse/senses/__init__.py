"""Sense disambiguation of ambiguous keywords (paper section 3.1).

The Annotator hands every occurrence of an ambiguous keyword to a :class:`SenseModel` and maps the
relation it returns; ``None`` means the occurrence is not a logical connective and is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Protocol, Sequence


@dataclass(frozen=True)
class SenseQuery:
    keyword: str  # lower-cased keyword text, e.g. "since"
    candidates: tuple[str, ...]  # the lexicon's relations for it, first = lexicon sense
    text: str  # the sentence: its tokens joined by single spaces
    char_start: int  # the keyword's character span in `text`
    char_end: int


@dataclass(frozen=True)
class SenseDecision:
    relation: Optional[str]  # one of RELATIONS, or None: not a connective here
    confidence: float
    source: str  # "classifier" | "lexicon"


class SenseModel(Protocol):
    name: str  # identifier for manifests

    def disambiguate(self, queries: Sequence[SenseQuery]) -> list[SenseDecision]:
        ...


def load_senses(spec="default", device: str = "cpu", encoder=None) -> Optional[SenseModel]:
    """``None`` -> no disambiguation (lexicon sense); ``"default"`` -> the bundled SVMs with the
    offline encoder (all-MiniLM-L6-v2); a directory with ``meta.json`` -> those SVMs with the
    encoder they were trained for; an encoder name or directory (``"albert-base-v2"`` in the local
    cache) -> the bundled SVMs with that encoder, refused unless they were trained for it.
    ``encoder`` overrides the encoder a model directory names (and is checked the same way)."""
    if spec is None:
        return None
    from .classifier import load_senses as _load

    return _load(spec, device=device, encoder=encoder)
