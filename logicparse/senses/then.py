"""The rule for ``then``: a time, an inference, "in that case", or none.

The paper lists ``then`` as temporal only; the labelling guide reads it four ways. A time:
``by then``, ``and then there came a day``, ``that was then``. An inference, set off by commas:
``Why , then , should we …`` (causal). "In that case", which conversation is full of: ``How about
sheep then ?``, ``Then what can I do ?``, ``Ok , then I 'll go with Dan`` (conditional). None: a
filler closing a turn (``Okay then .``), ``the then president``, ``then again`` and ``but then ,``
(on the other hand), and the ``then`` of ``if … then`` (the ``if`` carries the condition). What
the words do not settle is left to the classifier (:data:`~logicparse.senses.site.UNDECIDED`).
"""

from __future__ import annotations

from .site import _PUNCT_TAGS, UNDECIDED, Site
from .wordlists import _BE

# Before a filler `then`, or before the `then` of "in that case" opening a turn: "okay then .",
# "well then , I 'll read", "ok , then I 'll go".
_FILLERS = frozenset("okay ok alright right well fine bye good oh".split())
# Before a `then` that is a time: "by then", "since then", "back then", "only then".
_TIME_BEFORE = frozenset("by since until till from back before after just even only".split())
# What "in that case" opens: a question or a suggestion ("then what …", "then let 's …").
_CASE_OPENERS = frozenset("what how why where let".split())


def _opens_turn(s: Site) -> bool:
    """``then`` first in its sentence, or after a filler that opens it (``Well then``, ``Ok ,
    then``)."""
    i = s.start - 1
    if s.word(i) == ",":
        i -= 1
    return s.start == 0 or s.word(i) in _FILLERS and (i == 0 or s.tag(i - 1) in _PUNCT_TAGS)


def then(s: Site):
    if s.key_tag == "JJ" or (s.prev in ("the", "a") and s.tag(s.end).startswith(("NN", "JJ"))):
        return None  # "the then president"
    if s.next == "again" or (s.prev == "but" and s.next == ","):
        return None  # "then again", "but then , …": on the other hand, no time
    if "if" in s.words[:s.start]:
        return None  # "if ... then": the `if` carries the condition
    if s.prev in _TIME_BEFORE:
        return "temporal"  # "by then", "since then", "only then did we see"
    last = not s.next or (s.tag(s.end) in _PUNCT_TAGS and s.end == len(s.words) - 1)
    if last and s.prev in _BE:
        return "temporal"  # "That was then ."
    if last and s.prev in _FILLERS and (s.start == 1 or s.tag(s.start - 2) in _PUNCT_TAGS):
        return None  # "Okay then .": a filler closing a turn
    if last and s.words[-1] == "?" and "VBD" not in s.tags:
        return "conditional"  # "How about sheep then ?", "What shall we do then ?": in that case
    j = s.end + (s.next == ",")
    if _opens_turn(s) and (s.word(j) in _CASE_OPENERS or s.tag(j) == "PRP" and s.tag(j + 1) == "MD"):
        return "conditional"  # "Then what can I do ?", "Well then , you might like …"
    if s.prev == "," and s.next == ",":
        return "causal"  # "Why , then , should we …", "Relying , then , on …": an inference
    if s.prev == "and" and s.next and s.tag(s.end) not in _PUNCT_TAGS:
        return "temporal"  # "and then there came a day": next in a sequence (not "now and then .")
    return UNDECIDED
