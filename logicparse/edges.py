"""Where the default mapping's arguments stop: no argument starts or ends with punctuation.

The constituents that the rules of arguments.py pick carry the sentence's final full stop, the
comma before an adjunct, the quotes around a clause; none of them is part of the argument a
reader means (GDTB's arguments leave them out, and its scorer ignores them). They are trimmed
from both ends of every range of α and β, once every relation of a document is mapped. Unary
relations keep their span (Algorithm 1's; a negating determiner's clause comes trimmed from
``arguments.map_unary``). The trimming is the rule ``punct_edges`` of ``arguments.RULES``.
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

from . import arguments
from .taxonomy import UNARY
from .tokens import Relation


def is_punct(token: str) -> bool:
    """Whether every character of ``token`` is punctuation (quotes included): the tokens that the
    GDTB scorer leaves out of every argument, and that an argument does not start or end with."""
    return all(unicodedata.category(c).startswith("P") or c in "`'" for c in token)


def _trim(tokens: Sequence[str], ranges: list[list[int]]) -> list[list[int]]:
    out = []
    for a, b in ranges:
        while a < b and is_punct(tokens[a]):
            a += 1
        while b > a and is_punct(tokens[b - 1]):
            b -= 1
        if a < b:
            out.append([a, b])
    return out


def tidy_arguments(tokens: Sequence[str], relations: list[Relation]) -> None:
    """Trim the α and β of the binary ``relations`` of one document (over ``tokens``) in place:
    each range without the punctuation at its ends, and a range of punctuation only dropped."""
    if "punct_edges" not in arguments.ACTIVE:
        return
    for rel in relations:
        if rel.category != UNARY:
            rel.alpha = _trim(tokens, rel.alpha)
            rel.beta = _trim(tokens, rel.beta)
