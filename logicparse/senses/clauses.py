"""Which relation a connective clause signals, read off the tree: contrast or concession, cause or time.

Two questions the lexicon cannot answer and the encoder answers poorly (docs/senses.md):

* **cause or time** for a subordinator heading a clause (``as``, ``since``, ``while``): a clause
  that states a state, not an event (a form of *be* with an adjective or noun phrase after it,
  *have* with an object, or a modal verb: ``As I was late``, ``since it has no roots``, ``as
  we will see``) gives a reason, not a time: an event can be the time of another, a state
  that holds is the ground for it. For ``while`` such a clause is a concession (``while it is
  true that …``).
* **contrast, concession or none** for ``but`` outside clause coordination: ``not X but Y`` (a
  correction: comparative), ``not only X but also Y`` (conjunction), ``small but nice`` (two
  properties of one thing, the second holding despite the first: adversative), ``all but``,
  ``nothing but``, ``is but a step`` (= except, only: none), ``But –`` with nothing after it
  (none). Nothing on the surface of two clauses joined by ``but`` tells contrast from
  concession (docs/senses.md); there the rule takes the majority of GDTB's train documents,
  concession, and leaves coordinated verb phrases (``came but left``) to the ``but``
  classifier (or, without one, the lexicon).

Each function returns a relation, ``None`` or :data:`~logicparse.senses.site.UNDECIDED`, like
the rules in ``rules.py``; the conventions are those of docs/labelling.md.
"""

from __future__ import annotations

from .site import _PUNCT_TAGS, CONNECTIVE, UNDECIDED, Site, base

_BE = frozenset("be am is are was were been 's 're 'm".split())  # not "being": an event
_HAVE = frozenset("have has had 've 'd".split())
# Before `but` meaning "except": "all but a few", "anything but that", "nothing but work".
_EXCEPT = frozenset("""all anything nothing everything everyone everybody none nobody anyone
anybody""".split())
_NOT = frozenset({"not", "n't", "never"})
_ONLY = frozenset({"only", "just", "merely", "simply", "solely"})
# What is no second argument after `but`: "But –", "but yeah ."
_FILLERS = frozenset({"yeah", "um", "uh", "–", "—", "-", "…", "..."})
# Words that may open a sentence before `but`: "And but", "Uh, but", "“ But".
_OPENERS = frozenset({"and", "uh", "um", "oh", "well", "so", ",", "“", '"', "'", "``", "–", "—", "-"})
# Phrases coordinated by `but` below the clause: "not from taxes but from oil".
_PHRASES = frozenset({"NP", "PP", "ADJP", "ADVP", "UCP", "SBAR", "WHPP", "QP"})


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
    it (a stative clause gives a reason or a concession); otherwise undecided (the classifier
    picks among the connective's relations)."""
    if keyword == "while":
        # A concession: "while you may not succeed", "while it is not cold", "while you are
        # unlikely to offend"; but "while it is warm" is a time, "while his mother has …" a contrast.
        verbs, rest = s.verb_group(clause)
        words = set(s.words[s.tree.starts[clause]:s.tree.ends[clause]])
        conceded = any(tag == "MD" for _, tag in verbs) or (
            stative(s, clause, predicates=("ADJP",)) and (bool(_NOT & words) or any(
                base(s.tree.labels[k]) == "ADJP" and any(
                    base(s.tree.labels[c]) in ("S", "SBAR") for c in s.children(k)) for k in rest)))
        return "adversative" if conceded else CONNECTIVE
    if stative(s, clause, present=keyword == "since"):
        return "causal"
    return CONNECTIVE


def _clause_before(s: Site, limit: int = 12) -> list[str]:
    """The words before the keyword back to the start of its sentence or a full stop, colon or
    semicolon, at most ``limit`` of them, nearest first."""
    out, i = [], s.start - 1
    while i >= 0 and s.words[i] not in (".", ";", ":") and len(out) < limit:
        out.append(s.words[i])
        i -= 1
    return out


def two_properties(s: Site) -> bool:
    """The keyword joins two adjectives (``small but nice``, ``simple yet very tasty``): the
    second property holds despite the first, a concession (docs/labelling.md)."""
    return s.tag(s.start - 1) == "JJ" and (s.tag(s.end) == "JJ" or (
        s.tag(s.end) == "RB" and s.tag(s.end + 1) == "JJ"))


def but(s: Site):
    after = [w for w, t in zip(s.words[s.end:], s.tags[s.end:])
             if t not in _PUNCT_TAGS and w not in _FILLERS]
    if not after:
        return None  # "But –", "I said but –", "… every day um but yeah ."
    if s.prev in _EXCEPT and s.tag(s.end) not in ("PRP", "EX"):
        return None  # "all but a few", "nothing but a flat dust bowl": except
    if s.prev in _BE and s.tag(s.end) in ("DT", "CD") or s.next in ("rarely", "seldom"):
        return None  # "is but a step", "comes but rarely": only
    before = _clause_before(s)
    if any(w in _NOT and v in _ONLY for v, w in zip(before, before[1:])):
        return "conjunction"  # "not only the elites, but society as a whole"
    parent = s.tree.parents[s.tree.leaf_parents[s.start]]
    coordinates = base(s.tree.labels[parent]) if parent >= 0 else ""
    if coordinates in _PHRASES and _NOT & set(before):
        return "comparative"  # "not charity but a right": a correction, = rather than
    if two_properties(s):
        return "adversative"  # "small but nice", "sweet but balanced": nice despite small
    if coordinates in ("S", "SINV", "SQ", "FRAG") or all(w in _OPENERS for w in before):
        # Two clauses, or a sentence opened by `but`: GDTB's train documents make about two in
        # three of them concessions, the rest contrasts (the lexicon's relation).
        return "adversative"
    return UNDECIDED


__all__ = ["stative", "event", "clause_relation", "two_properties", "but"]
