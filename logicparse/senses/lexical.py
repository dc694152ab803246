"""Rules for keywords the lexicon used to decide alone (no rule, no classifier): the occurrence
signals the keyword's one relation, or none, and the tree tells when it is none.

``before`` of place or presence (``testified before Congress``, ``the tasks before us``, ``I
stand before you tonight``) is no time; ``after`` as a verb's particle (``going after the
killers``, ``named after``), between a repeated noun (``issue after issue``) or meaning "net of"
(``income after taxes``) neither; ``thus far`` is "so far" and ``the committee thus created``
"created in this way", no result; ``a century hence`` is "from now", no result; ``thanks`` as a
noun of gratitude (``give thanks to God``, ``our thanks to you``) names no cause; ``might as
well`` adds nothing; ``twice as long as`` is an equative, no condition; ``is contrary to our
ideals`` is a predicate, no contrast between two arguments; ``however distant`` is "no matter
how". Each rule returns ``None`` or :data:`~logicparse.senses.site.UNDECIDED` (the lexicon's
relation), like ``rules.py``; the cases and their labels are in docs/labelling.md.
"""

from __future__ import annotations

from typing import Callable

from .site import _PUNCT_TAGS, _TIME_WORDS, _YEAR, UNDECIDED, Site
from .wordlists import (
    _AFTER_VERBS, _BE, _BEFORE_US_EARLIER, _DEGREE, _PRESENCE_NOUNS, _PRESENT_VERBS, _TIME_NOUNS)

_OBJECT_PRONOUNS = frozenset("us you me them him her it".split())
# Words skipped looking left for the verb a `before` or `after` belongs to.
_SKIP = frozenset("now down formally again here once up out today tonight also".split())
# A noun phrase goes on after these: "after all our struggles" is no "after all".
_NOMINAL = ("DT", "PRP$", "JJ", "NN", "CD")


def _verb_before(s: Site) -> str:
    i = s.start - 1
    while s.word(i) in _SKIP or s.tag(i) in ("RB", "RP"):
        i -= 1
    return s.word(i)


def _timed(s: Site, words) -> bool:
    return any(w in _TIME_WORDS or _YEAR.match(w) for w in words)


def _before(s: Site):
    obj = s.object_words(6)
    # a verb after the object makes it a clause the parser left flat ("before it happens"), but
    # not after an object pronoun ("the tasks before us are great")
    flat_clause = s.tag(s.end + len(obj)).startswith(("VB", "MD")) and obj[:1] != ["us"] and \
        not (obj and obj[0] in ("me", "them", "him", "her"))
    if s.clause() >= 0 or not obj or flat_clause:
        return UNDECIDED  # "before they get the gun", "before the Congress adjourns", "ever before"
    if obj[0] in _OBJECT_PRONOUNS:
        # "the tasks before us", "I stand before you tonight" (not "Americans before us", "those
        # who came before us", "long before us": earlier than us; nor "the year before us")
        earlier = s.prev_content() in _BEFORE_US_EARLIER or s.tag(s.start - 1) == "NNPS" or \
            s.prev in _TIME_NOUNS
        return UNDECIDED if earlier else None
    # The presence noun heads the object: "testified before Congress last week", "before all
    # the world" (not "before the 1990 session", "a few days before Christmas", nor a clause
    # read as a noun phrase, "before the Congress adjourns")
    heads = [k for k, w in enumerate(obj) if w in _PRESENCE_NOUNS]
    if heads and not _timed(s, obj[:heads[-1]]) and (heads[-1] == len(obj) - 1 or _timed(s, obj[-1:])):
        return None
    if not _timed(s, obj) and _verb_before(s) in _PRESENT_VERBS:
        return None  # "laid before the conference a draft", "pales before the loss"
    return UNDECIDED


def _after(s: Site):
    if s.next == "all" and not s.tag(s.end + 1).startswith(_NOMINAL):
        return None  # "after all ," (not "after all our struggles": a time)
    if s.next in ("-", "–") or s.next in ("taxes", "tax", "inflation") or (
            s.tag(s.end) == "VBG" and s.word(s.end + 1) == "for"):
        return None  # "after - school", "income after taxes", "after allowing for inflation": net of
    if s.prev == s.next and s.prev not in _TIME_NOUNS and s.tag(s.end).startswith("NN"):
        return None  # "issue after issue" (not "year after year": a time)
    if s.tag(s.start - 1).startswith("VB") and s.prev in _AFTER_VERBS:
        return None  # "going after the killers", "named after his father", "look after them"
    return UNDECIDED


def _thus(s: Site):
    if s.next == "far":
        return None  # "thus far": so far
    if s.tag(s.start - 1).startswith("NN") and s.tag(s.end) == "VBN" and \
            not s.tag(s.end + 1).startswith(("DT", "PRP", "CD")):
        return None  # "the committee thus created has done much": created in this way
    if s.start > 0 and s.tag(s.start - 1).startswith("VB") and (not s.next or s.tag(s.end) in _PUNCT_TAGS):
        return None  # "we must act thus .": in this way
    return UNDECIDED


def _hence(s: Site):
    if s.prev in _TIME_NOUNS or s.prev in ("generations", "from", "go", "depart", "went"):
        return None  # "a century hence": from now; "from hence", "go hence": from here
    return UNDECIDED


def _thanks_to(s: Site):
    before = s.tag(s.start - 1)
    if s.start > 0 and s.prev not in _BE and (before.startswith(("VB", "JJ", "DT", "PRP$", "CD"))
                                              or before == "IN"):
        return None  # "give thanks to God", "our thanks to you", "a word of thanks to": gratitude
    if s.start == 0 and not any(t.startswith(("VB", "MD")) for t in s.tags):
        return None  # "Thanks to all of you ." (no clause for a cause to explain)
    return UNDECIDED


def _as_well(s: Site):
    return None if s.prev in ("might", "may") else UNDECIDED  # "we might as well": no adding


def _as_long_as(s: Site):
    if s.prev in ("twice", "thrice", "half", "third", "thirds", "quarter", "times") or \
            s.tag(s.start - 1) == "CD":
        return None  # "a third as long as the Soviets": an equative
    return UNDECIDED


def _contrary_to(s: Site):
    return None if _verb_before(s) in _BE | {"run", "runs", "ran", "running"} else UNDECIDED


def _however(s: Site):
    if s.next in _DEGREE or s.tag(s.end) in ("JJ", "JJR"):
        return None  # "however distant", "however much we try": no matter how
    return UNDECIDED


RULES: dict[str, Callable[[Site], object]] = {
    "before": _before, "after": _after, "thus": _thus, "hence": _hence, "thanks to": _thanks_to,
    "as well": _as_well, "as long as": _as_long_as, "contrary to": _contrary_to, "however": _however,
}
