"""Which relation a connective clause signals, read off the tree: cause or time, connective or none.

Two questions the lexicon cannot answer and the encoder answers poorly (docs/keywords.md):

* **cause or time** for a subordinator heading a clause (``as``, ``since``, ``while``): a clause
  that states a state, not an event (a form of *be* with an adjective or noun phrase after it,
  *have* with an object, or a modal verb: ``As I was late``, ``since it has no roots``, ``as
  we will see``) gives a reason, not a time: an event can be the time of another, a state
  that holds is the ground for it. For ``while`` such a clause is no time but a contrast
  (``while it is true that …``).
* **contrast or none** for ``but``: ``all but``, ``nothing but``, ``is but a step``, ``I do but
  quote`` (= except, only), ``not only X but also Y`` (it adds: no contrast) and ``But –`` with
  nothing after it give none; anything else is a contrast, concessive or not (the keyword is
  listed as comparative: docs/labelling.md).

Each function returns a relation, ``None`` or :data:`~logicparse.senses.site.UNDECIDED`, like
the rules in ``rules.py``; the conventions are those of docs/labelling.md.
"""

from __future__ import annotations

from .site import _PUNCT_TAGS, CONNECTIVE, UNDECIDED, Site, base
from .wordlists import _HAVE

_BE = frozenset("be am is are was were been 's 're 'm".split())  # not "being": an event
# Before `but` meaning "except": "all but a few", "anything but that", "nothing but work".
_EXCEPT = frozenset("""all anything nothing everything everyone everybody none nobody anyone
anybody""".split())
_NOT = frozenset({"not", "n't", "never"})
_PERFECT = frozenset("have has had 've 'd".split())
_ONLY = frozenset({"only", "just", "merely", "simply", "solely"})
# What is no second argument after `but`: "But –", "but yeah ."
_FILLERS = frozenset({"yeah", "um", "uh", "–", "—", "-", "…", "..."})
# Before `but` meaning "only": "I do but quote", "we can but hope".
_ONLY_AUX = frozenset("do does did can could may might must will would shall should".split())


def stative(s: Site, clause: int, present: bool = False, predicates=("ADJP", "NP")) -> bool:
    """The clause states a state rather than an event: a modal verb, a form of *be* before one
    of ``predicates`` (not the progressive *was walking*), or *have* before its object;
    ``present``: *be* and *have* only in the present tense (*since I was young* is a time)."""
    verbs, rest = s.verb_group(clause)
    if not verbs:
        return False
    if any(tag == "MD" for _, tag in verbs):
        return True
    word, tag = verbs[-1]
    if present and (len(verbs) > 1 or tag not in ("VBZ", "VBP")):
        return False
    labels = {base(s.tree.labels[k]) for k in rest}
    if word in _BE:
        return bool(labels & set(predicates))
    return word in _HAVE and "NP" in labels and "NP" in predicates


def event(s: Site, clause: int) -> bool:
    """The clause's verb is a progressive or a past event (not *be* or *have*): as often a time
    as a reason (``the phone rang , as I was leaving``)."""
    verbs, _ = s.verb_group(clause)
    return any(tag == "VBG" for _, tag in verbs) or (
        len(verbs) == 1 and verbs[0][1] == "VBD" and verbs[0][0] not in _BE | _HAVE)


def clause_relation(keyword: str, s: Site, clause: int):
    """The relation of ``as``/``since``/``while`` heading ``clause`` when the clause's verb says
    it (a stative clause gives a reason, or for ``while`` a contrast); otherwise undecided (the classifier
    picks among the connective's relations)."""
    if keyword == "while":
        # No time: "while you may not succeed", "while it is not cold", "while you are unlikely
        # to offend" (a concession, comparative by the keyword); "while it is warm" is a time.
        verbs, rest = s.verb_group(clause)
        words = set(s.words[s.tree.starts[clause]:s.tree.ends[clause]])
        conceded = any(tag == "MD" for _, tag in verbs) or (
            stative(s, clause, predicates=("ADJP",)) and (bool(_NOT & words) or any(
                base(s.tree.labels[k]) == "ADJP" and any(
                    base(s.tree.labels[c]) in ("S", "SBAR") for c in s.children(k)) for k in rest)))
        return "comparative" if conceded else CONNECTIVE
    if stative(s, clause, present=keyword == "since"):
        return "causal"
    return CONNECTIVE


def perfect_around(s: Site, clause: int) -> bool:
    """The clause that holds ``clause`` (the nearest S above it with a verb phrase) is in a
    perfect tense: ``have``/``has``/``had`` before another verb of its chain (``has increased``,
    ``'ve been doing``; a participle the parser tags as a past tense counts too). A *since*
    clause of an event beside a perfect gives the time from which it holds."""
    node = s.tree.parents[clause]
    while node >= 0 and not (base(s.tree.labels[node]) == "S" and any(
            base(s.tree.labels[k]) == "VP" for k in s.children(node))):
        node = s.tree.parents[node]
    if node < 0:
        return False
    words = [w.lower() for w, _ in s.verb_group(node)[0]]
    return any(w in _PERFECT for w in words[:-1])


def _clause_before(s: Site, limit: int = 12) -> list[str]:
    """The words before the keyword back to the start of its sentence or a full stop, colon or
    semicolon, at most ``limit`` of them, nearest first."""
    out, i = [], s.start - 1
    while i >= 0 and s.words[i] not in (".", ";", ":") and len(out) < limit:
        out.append(s.words[i])
        i -= 1
    return out


def not_only(words, start: int, end: int) -> bool:
    """``not`` at [start, end) opens ``not only …``, or ``not just / merely / simply X`` with a
    ``but`` or ``also`` after it: it adds (``not only the elites but society as a whole``),
    negating nothing."""
    nxt = words[end].lower() if end < len(words) else ""
    rest = {w.lower() for w in words[end + 1:]}
    return nxt == "only" or (nxt in _ONLY and bool(rest & {"but", "also"}))


def but(s: Site):
    after = [w for w, t in zip(s.words[s.end:], s.tags[s.end:])
             if t not in _PUNCT_TAGS and w not in _FILLERS]
    if not after:
        return None  # "But –", "I said but –", "… every day um but yeah ."
    if s.prev in _EXCEPT and s.tag(s.end) not in ("PRP", "EX"):
        return None  # "all but a few", "nothing but a flat dust bowl": except
    if s.prev in _BE and s.tag(s.end) in ("DT", "CD") or s.next in ("rarely", "seldom"):
        return None  # "is but a step", "comes but rarely": only
    if (s.prev in _ONLY_AUX or s.tag(s.start - 1) == "MD") and s.tag(s.end) in ("VB", "VBP") \
            and s.tag(s.start - 2).startswith(("PRP", "NN")):
        return None  # "I do but quote", "we can but hope": only
    before = _clause_before(s, 30)  # "not only for reclamation and … flood control , but also"
    if any(w in _NOT and v in _ONLY for v, w in zip(before, before[1:])):
        return None  # "not only the elites, but (also) society as a whole": it adds
    return UNDECIDED  # a contrast, concessive or not: the lexicon's comparative


__all__ = ["stative", "event", "clause_relation", "but", "not_only"]
