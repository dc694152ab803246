"""Rules for keywords the paper lists under one relation: the occurrence signals that relation,
or none, and the tree tells when it is none.

``not only X but also Y`` adds, negating nothing; ``otherwise`` inside its clause is an adverb
(``unless your doctor says otherwise``, ``would otherwise be lost``: = differently, in other
circumstances) and gives a negative condition only heading a clause (``Hurry , otherwise we
will be late``); ``such as`` before a verb is the relative of ``such … as`` (``such as may be
needed``), no example; ``due to`` before a verb is "expected to" (``due to expire``) and after a
noun of what is owed "owed to" (``the respect due to the office``), no cause;
``WHEREAS ,`` opens a preamble's clause ("given that"), no contrast. Each rule returns ``None``
or :data:`~logicparse.senses.site.UNDECIDED` (the lexicon's relation), like ``rules.py``.
"""

from __future__ import annotations

from typing import Callable

from . import clauses
from .site import _PUNCT_TAGS, UNDECIDED, Site
from .wordlists import _BE, _OWED

# Before a clause-initial `otherwise`: the start of a clause or a coordinator.
_CLAUSE_OPENERS = frozenset({",", ";", ":", "--", "–", "—", "or", "and", "but", "("})


def _not(s: Site):
    # "not only X but also Y", "not just X but Y": it adds, negating nothing
    return None if clauses.not_only(s.words, s.start, s.end) else UNDECIDED


def _otherwise(s: Site):
    heads_clause = (s.start == 0 or s.prev in _CLAUSE_OPENERS) and bool(s.next) and (
        s.next == "," and s.prev != "or" or s.tag(s.end) not in _PUNCT_TAGS | {"VBN", "VBD", "JJ", "RB"})
    # an adverb inside its clause: the clause's own keyword, if any, carries the relation
    return UNDECIDED if heads_clause else None


def _such_as(s: Site):
    # "such as may be needed", "such as are ready": those which (no example follows)
    return None if s.tag(s.end).startswith(("MD", "VBD", "VBP", "VBZ")) else UNDECIDED


def _due_to(s: Site):
    if s.tag(s.end) == "VB":
        return None  # "due to expire": expected to
    i = s.start - 1
    while s.word(i) in _BE or s.tag(i) == "RB":
        i -= 1
    # "the respect due to the office", "the credit is rightly due to them": owed to
    return None if s.word(i) in _OWED else UNDECIDED


def _whereas(s: Site):
    return None if s.next == "," else UNDECIDED  # "WHEREAS , it is necessary": given that


RULES: dict[str, Callable[[Site], object]] = {
    "not": _not, "otherwise": _otherwise, "such as": _such_as, "due to": _due_to,
    "whereas": _whereas,
}
