"""Rules for keywords the paper lists under one relation: the occurrence signals that relation,
or none, and the tree tells when it is none.

``not only X but also Y`` adds, negating nothing; ``otherwise`` inside its clause is an adverb
(``unless your doctor says otherwise``, ``would otherwise be lost``: = differently, in other
circumstances) and gives a negative condition only heading a clause (``Hurry , otherwise we
will be late``); ``such as`` before a verb is the relative of ``such … as`` (``such as may be
needed``), no example; ``due to`` before a verb is "expected to" (``due to expire``) and after a
noun of what is owed "owed to" (``the respect due to the office``), no cause;
``WHEREAS ,`` (or upper case) opens a preamble's clause ("given that"), no contrast; a tag
question's ``n't`` (``have n't we ?``) and ``nothing but`` negate nothing; ``oh , no !`` is
dismay; ``sounds as if`` is "it seems that", no likeness. The phrases: ``just as high
as`` is an equative, ``just like`` before a verb a filler, ``as well as we thought`` an equative,
``thereby in me vested`` "by it", ``so that 's it`` a pronoun, ``no matter`` "regardless", and
``at the same time`` is "together" (temporal) unless it opens a sentence ("also"). Each rule
returns ``None``, :data:`~logicparse.senses.site.UNDECIDED` (the lexicon's relation) or, for
``at the same time``, a relation, like ``rules.py``.
"""

from __future__ import annotations

from typing import Callable

from . import clauses
from .site import _PUNCT_TAGS, UNDECIDED, Site
from .wordlists import _BE, _OWED, _SEEM
# Before a clause-initial `otherwise`: the start of a clause or a coordinator.
_CLAUSE_OPENERS = frozenset({",", ";", ":", "--", "–", "—", "or", "and", "but", "("})


def _not(s: Site):
    # "not only X but also Y", "not just X but Y": it adds, negating nothing
    return None if clauses.not_only(s.words, s.start, s.end) else UNDECIDED


def _nt(s: Site):
    # A tag question, "we 've had five , have n't we ?": it asks for agreement, negating nothing
    # (not a question of its own, "Did n't you see him ?", nor "Is n't it ?" alone).
    tag_question = s.start >= 2 and s.tag(s.start - 1).startswith(("VB", "MD")) and \
        (s.tag(s.end) == "PRP" or s.next == "there") and s.tag(s.end + 1) in _PUNCT_TAGS | {""} \
        and any(s.tag(i).startswith(("VB", "MD")) for i in range(s.start - 1))
    return None if tag_question else UNDECIDED


def _nothing(s: Site):
    return None if s.next == "but" else UNDECIDED  # "nothing but complain": only


def _otherwise(s: Site):
    heads_clause = (s.start == 0 or s.prev in _CLAUSE_OPENERS) and bool(s.next) and (
        s.next == "," and s.prev != "or" or s.tag(s.end) not in _PUNCT_TAGS | {"VBN", "VBD", "JJ", "RB"})
    # unpunctuated, as in chat: a subject and its verb follow ("enable 2fa otherwise u cant
    # access"), not a verb of the clause it sits in ("would otherwise be lost")
    heads_clause = heads_clause or not s.tag(s.start - 1).startswith(("MD", "VB")) and (
        s.tag(s.end) == "PRP" or s.next in ("u", "ur")) and s.tag(s.end + 1).startswith(("MD", "VB"))
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
    # "WHEREAS , it is necessary", "WHEREAS the Parties wish …": a preamble's "given that"
    return None if s.next == "," or s.tree.leaves[s.start].isupper() else UNDECIDED


def _that_pronoun(s: Site):
    # "So that 's it", "Now that alarms me": `that` is the subject, not a subordinator.
    if s.tag(s.end).startswith(("VB", "MD")) or s.next == "'s":  # also when 's is tagged POS
        return None
    return UNDECIDED


def _no(s: Site):
    if s.next == "matter":
        return None  # "no matter": regardless
    # "Oh , no !": dismay, no answer and nothing negated ("No , I did n't" is an answer)
    oh = s.prev == "oh" or (s.prev == "," and s.word(s.start - 2) == "oh")
    return None if oh and (not s.next or s.tag(s.end) in _PUNCT_TAGS) else UNDECIDED


def _as_if(s: Site):
    # "it sounds as if something is damaged", "looks as though we must pay": it seems that, no
    # likeness (as "it felt like there was a drop"); "treats us as if we were children" is one
    # ("I feel as if I 'm returning home": a likeness felt, analogy)
    return None if s.prev_content() in _SEEM else UNDECIDED


def _just_as(s: Site):
    if s.tag(s.end) in ("JJ", "RB"):
        return None  # "just as high as", "just as bad": an equative
    if s.tag(s.end) in ("DT", "NN", "NNS", "PRP$", "CD") and not _finite_verb_follows(s):
        return None  # "not just as employees": a role (not "just as the sun rises , so …")
    return UNDECIDED


def _finite_verb_follows(s: Site, limit: int = 8) -> bool:
    """A finite verb or a modal follows the keyword within ``limit`` words, before punctuation."""
    for i in range(s.end, min(s.end + limit, len(s.words))):
        if s.tag(i) in _PUNCT_TAGS:
            return False
        if s.tag(i) in ("VBD", "VBZ", "VBP", "MD"):
            return True
    return False


def _just_like(s: Site):
    if s.tag(s.end - 1) in ("UH", "RB", "INTJ") or s.tag(s.end).startswith(("VB", "RB", "JJ", "UH")) \
            or s.next in ("you", "i", ","):
        return None  # "just like post a vlog", "just like so awesome": filler
    if s.next == "to" or s.tag(s.start - 1) == "PRP":
        return None  # "I just like to sleep": the verb
    return UNDECIDED


def _same_time(s: Site):
    if (s.start == 0 or s.prev in ("but", "yet", "and")) and s.next == ",":
        return UNDECIDED  # "At the same time , …" opening a sentence: "also" (the lexicon)
    return "temporal"  # "do two tasks at the same time", "and at the same time offers": together


def _as_well_as(s: Site):
    if s.tag(s.end) in ("PRP", "EX") and any(s.tag(i).startswith(("VB", "MD"))
                                             for i in range(s.end + 1, s.end + 3)):
        return None  # "play as well as we thought we would": an equative, not "and also"
    return UNDECIDED


def _thereby(s: Site):
    return None if s.tag(s.end) in ("IN", "TO") else UNDECIDED  # "thereby in me vested": by it


RULES: dict[str, Callable[[Site], object]] = {
    "not": _not, "n't": _nt, "nt": _nt, "nothing": _nothing, "otherwise": _otherwise,
    "such as": _such_as, "due to": _due_to, "whereas": _whereas, "so that": _that_pronoun,
    "now that": _that_pronoun, "no": _no, "just as": _just_as, "just like": _just_like,
    "as if": _as_if, "as though": _as_if, "at the same time": _same_time,
    "as well as": _as_well_as, "thereby": _thereby,
}
