"""Where the default mapping's arguments stop: no argument starts or ends with punctuation.

The constituents that the rules of arguments.py pick carry the sentence's final full stop, the
comma before an adjunct, the quotes around a clause; none of them is part of the argument a
reader means (GDTB's arguments leave them out, and its scorer ignores them). They are trimmed
from both ends of every range of α and β, once every relation of a document is mapped. Unary
relations keep their span (Algorithm 1's; a negating determiner's clause comes trimmed from
``arguments.map_unary``). The trimming is the rule ``punct_edges`` of ``arguments.RULES``.
"""

from __future__ import annotations

from typing import Sequence

from . import arguments
from .constituents import trim_punct
from .taxonomy import UNARY
from .tokens import Relation


def tidy_arguments(tokens: Sequence[str], relations: list[Relation]) -> None:
    """Trim the α and β of the binary ``relations`` of one document (over ``tokens``) in place:
    each range without the punctuation at its ends, and a range of punctuation only dropped."""
    if "punct_edges" not in arguments.ACTIVE:
        return
    for rel in relations:
        if rel.category != UNARY:
            rel.alpha = trim_punct(tokens, rel.alpha)
            rel.beta = trim_punct(tokens, rel.beta)
