"""Keyword decisions: the relation each keyword occurrence signals, or none (paper section 3.1).

The Annotator hands every keyword occurrence, with its sentence's tree, to a :class:`SenseModel`
and maps the relation it returns; ``None`` means the occurrence is not a logical connective here
and is dropped. The default model (:class:`~logicparse.senses.decide.KeywordDecisions`) asks tree
rules first (``rules.py``), then a per-keyword classifier over encoder vectors, and otherwise keeps
the keyword's lexicon sense; ``SenseDecision.source`` says which decided.
"""

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


def load_senses(spec="default", device: str = "cpu", encoder=None, rules: bool = True
                ) -> Optional[SenseModel]:
    """``None`` -> no decisions: every keyword keeps its lexicon sense (the paper's literal
    behaviour); ``"rules"`` -> the tree rules only (no encoder is loaded); ``"default"`` -> the
    rules, then the bundled SVMs with the offline encoder (all-MiniLM-L6-v2); ``"mpnet"`` -> the
    rules, then the bundled SVMs over all-mpnet-base-v2 (the optional extra
    ``logicparse[mpnet]``: more accurate, 438 MB, slower); a directory with
    ``meta.json`` -> the rules, then those SVMs with the encoder they were trained for; an encoder
    name or directory (``"albert-base-v2"`` in the local cache) -> the bundled SVMs with that
    encoder, refused unless they were trained for it. ``encoder`` overrides the encoder a model
    directory names (and is checked the same way); ``rules=False`` leaves out the tree rules.
    ``"none"`` is None, as on the command line."""
    from ..resources import senses_spec

    return load_checked(senses_spec(spec), device, encoder, rules)


def load_checked(spec, device: str = "cpu", encoder=None, rules: bool = True
                 ) -> Optional[SenseModel]:
    """:func:`load_senses` for a spec checked where it entered (``resources.senses_spec``: the
    Annotator, the command line, the service settings), which is not checked again here."""
    if spec is None:
        return None
    from .decide import KeywordDecisions

    if str(spec) == "rules":
        return KeywordDecisions(None, rules=True)
    from .classifier import load_senses as _load

    return KeywordDecisions(_load(spec, device=device, encoder=encoder), rules=rules)
