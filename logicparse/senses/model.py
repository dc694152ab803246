"""The interface of a keyword-decision model: the query the Annotator asks about each keyword
occurrence, the decision it gets back, and the protocol a model follows (re-exported by
``logicparse.senses``; here so the models can import it without importing the package that loads
them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Protocol, Sequence

if TYPE_CHECKING:
    from ..trees import ParseTree


@dataclass(frozen=True)
class SenseQuery:
    keyword: str  # lower-cased keyword text, e.g. "since"
    candidates: tuple[str, ...]  # the lexicon's relations for it, first = lexicon sense
    text: str  # the sentence: its tokens joined by single spaces
    char_start: int  # the keyword's character span in `text`
    char_end: int
    # The sentence's tree and the keyword's tokens in it, for the tree rules (None: no rules).
    tree: Optional["ParseTree"] = field(default=None, compare=False, repr=False)
    token_start: int = -1
    token_end: int = -1
    # The tree shows a connective here (a subordinator heading a clause): a classifier picks
    # among its relations and does not answer none.
    connective: bool = False


SOURCES = ("lexicon", "rule", "classifier")


@dataclass(frozen=True)
class SenseDecision:
    relation: Optional[str]  # one of RELATIONS, or None: not a connective here
    confidence: float
    source: str  # one of SOURCES


class SenseModel(Protocol):
    name: str  # identifier for manifests

    def disambiguate(self, queries: Sequence[SenseQuery]) -> list[SenseDecision]:
        ...
