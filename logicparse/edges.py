"""Where the default mapping's arguments stop: their first and last tokens.

The constituents that the rules of arguments.py pick carry tokens that are no part of the
argument a reader means: the final full stop of the sentence, the comma before an adjunct, and
the keyword of another relation that opens or closes the constituent (``But I try … because …``:
α of ``because`` is ``I try …``, not ``But I try …``). Those are trimmed here, once every
relation of a document is mapped, since the keywords of the other relations are known only then.
Unary relations keep Algorithm 1's span. Each trimming has a rule name in ``arguments.RULES``.
"""

from __future__ import annotations

import unicodedata
from typing import Sequence

from . import arguments
from .taxonomy import INTRINSIC, UNARY
from .tokens import Relation


def is_punct(token: str) -> bool:
    """Whether every character of ``token`` is punctuation (quotes included): the tokens that the
    GDTB scorer leaves out of every argument, and that an argument does not start or end with."""
    return all(unicodedata.category(c).startswith("P") or c in "`'" for c in token)


def _trim(ranges: list[list[int]], drop) -> list[list[int]]:
    out = []
    for a, b in ranges:
        while a < b and drop(a):
            a += 1
        while b > a and drop(b - 1):
            b -= 1
        if a < b:
            out.append([a, b])
    return out


def tidy_arguments(tokens: Sequence[str], relations: list[Relation]) -> None:
    """Trim the α and β of the binary ``relations`` of one document (over ``tokens``) in place."""
    active = arguments.ACTIVE
    punct = "punct_edges" in active
    key_edges = "keyword_edges" in active
    if not (punct or key_edges):
        return
    coordinators: set[int] = set()  # the tokens of every coordinator's keyword
    if key_edges:
        for rel in relations:
            if rel.category == INTRINSIC:
                coordinators.update(t for a, b in rel.key for t in range(a, b))

    def edge(t: int) -> bool:
        return punct and is_punct(tokens[t])

    def alpha_end(t: int) -> bool:
        return edge(t) or t in coordinators

    for rel in relations:
        if rel.category == UNARY:
            continue
        own = {t for a, b in rel.key for t in range(a, b)}
        alpha = _trim(rel.alpha, edge)
        if key_edges and alpha:
            # A conjunct left unfinished before the keyword (``X and [because Y] Z``): its
            # coordinator links the rest of the sentence, not this α.
            a, b = alpha[-1]
            while b > a and alpha_end(b - 1) and b - 1 not in own:
                b -= 1
            alpha[-1:] = [[a, b]] if b > a else []
        rel.alpha = alpha
        rel.beta = _trim(rel.beta, edge)
