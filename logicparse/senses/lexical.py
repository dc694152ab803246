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
    _AFTER_VERBS, _BE, _BEFORE_US_EARLIER, _CONCLUDE, _DEGREE, _HAVE, _PRESENCE_NOUNS,
    _PRESENT_VERBS, _TIME_NOUNS)

_OBJECT_CASE = frozenset("us me them him her".split())
_FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
_OBJECT_STOPS = _FINITE | {"IN", "TO", "WDT", "WP", "WRB", "CC", "-LRB-"}
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


def _object(s: Site) -> list[int]:
    """The tokens of the noun phrase after the keyword, up to a preposition, a clause, a finite
    verb or a comma (participles and adjectives inside it kept: "a freely elected Congress")."""
    out = []
    for i in range(s.end, min(s.end + 7, len(s.words))):
        if s.tags[i] in _PUNCT_TAGS or s.tags[i] in _OBJECT_STOPS:
            break
        out.append(i)
    return out


def _before(s: Site):
    obj = _object(s)
    words = [s.words[i] for i in obj]
    if words[:1] and words[0] in _OBJECT_CASE:
        # "the problems before us may be different": an object pronoun heads no clause, whatever
        # the parser made of it; after a person "earlier than us" ("Americans before us", "those
        # who came before us", "long before us")
        earlier = s.prev_content() in _BEFORE_US_EARLIER or s.tag(s.start - 1) == "NNPS"
        return UNDECIDED if earlier or s.prev in _TIME_NOUNS else None  # (not "the year before us")
    # a clause, or one the parser left flat: "before they get the gun", "before it happens",
    # "before the Congress adjourns"; no object: "than ever before"
    subject = words[:1] in (["you"], ["it"])
    if subject and (_verb_before(s) in _PRESENT_VERBS or s.word(s.end + 1) == "to"):
        # "the policy I lay before you has to do with", "calls me before you to take the oath":
        # what the parser reads as a clause is the verb's own object and what follows it
        return None
    if s.clause() >= 0 or not obj or s.tag(s.end + (1 if subject else len(obj))) in _FINITE:
        return UNDECIDED
    if subject:  # "I stand before you tonight", "the agenda I have set before you tonight is …"
        return None if s.prev_content() not in _BEFORE_US_EARLIER else UNDECIDED
    nouns = [k for k, i in enumerate(obj) if s.tags[i].startswith("NN") and not _timed(s, [words[k]])]
    # The presence noun heads the object: "testified before Congress last week", "before all
    # the world", "before a freely elected Congress" (not "before the 1990 session", "a few days
    # before Christmas", nor a clause read as a noun phrase, "before the Congress adjourns")
    if nouns and words[nouns[-1]] in _PRESENCE_NOUNS and not _timed(s, words[:nouns[-1]]):
        return None
    if not _timed(s, words) and _verb_before(s) in _PRESENT_VERBS:
        return None  # "laid before the conference a draft", "pales before the loss"
    return UNDECIDED


def _after(s: Site):
    if s.next == "all" and not s.tag(s.end + 1).startswith(_NOMINAL):
        return None  # "after all ," (not "after all our struggles": a time)
    net = s.next in ("taxes", "tax", "inflation") and s.clause() < 0  # (not "after taxes were cut")
    if s.next in ("-", "–") or net or (
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
    verb = s.end + 1 if s.tag(s.end) == "RB" else s.end  # past an adverb: "thus generally delineated"
    if s.tag(s.start - 1).startswith("NN") and s.tag(verb) == "VBN":
        return None  # "the committee thus created has done much": created in this way
    if s.prev in _BE | _HAVE and s.tag(verb) == "VBN" and s.word(verb) not in _CONCLUDE:
        return None  # "they were thus separated", "has thus been met" (not "have thus shown that")
    if s.tag(s.start - 1) == "VBG":
        return None  # "Entering thus solemnly into covenant": in this way
    if s.start > 0 and s.tag(s.start - 1).startswith("VB") and (not s.next or s.tag(s.end) in _PUNCT_TAGS):
        return None  # "we must act thus .": in this way
    return UNDECIDED


def _hence(s: Site):
    if s.prev in _TIME_NOUNS or s.prev in ("generations", "from", "go", "depart", "went"):
        return None  # "a century hence": from now; "from hence", "go hence": from here
    return UNDECIDED


def _thanks_to(s: Site):
    before = s.tag(s.start - 1)
    # (not "is thanks to you", "was all thanks to you", "that thanks to you , crime fell": a cause)
    if s.start > 0 and s.prev not in _BE | {"all"} and (
            before.startswith(("VB", "JJ", "DT", "PRP$", "CD")) or s.prev in ("of", "with", "for", "in")):
        return None  # "give thanks to God", "our thanks to you", "a word of thanks to": gratitude
    if s.start == 0 and not any(t.startswith(("VB", "MD")) for t in s.tags):
        return None  # "Thanks to all of you ." (no clause for a cause to explain)
    return UNDECIDED


def _as_well(s: Site):
    if s.prev in ("might", "may") or s.tag(s.end) == "VBN" or (
            s.tag(s.end) == "JJ" and s.word(s.end + 1) == "as"):
        return None  # "we might as well", "as well enforced as any law", "as well able as": no adding
    return UNDECIDED


def _as_long_as(s: Site):
    if s.prev in ("twice", "thrice", "half", "third", "thirds", "quarter", "times") or \
            s.tag(s.start - 1) == "CD":
        return None  # "a third as long as the Soviets": an equative
    return UNDECIDED


def _contrary_to(s: Site):
    return None if _verb_before(s) in _BE | {"run", "runs", "ran", "running"} else UNDECIDED


def _however(s: Site):
    opens = s.start == 0 or s.tag(s.start - 1) in _PUNCT_TAGS or s.prev in ("and", "but", "or", "for")
    if opens and (s.next in _DEGREE or s.tag(s.end) in ("JJ", "JJR")):
        return None  # "however distant", "However much we try": no matter how
    return UNDECIDED  # (not the adverb inside a clause: "it is however clear that …")


RULES: dict[str, Callable[[Site], object]] = {
    "before": _before, "after": _after, "thus": _thus, "hence": _hence, "thanks to": _thanks_to,
    "as well": _as_well, "as long as": _as_long_as, "contrary to": _contrary_to, "however": _however,
}
