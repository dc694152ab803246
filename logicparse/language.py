"""A cheap check that a text is English: the keywords, the parser and the sense models are
English only, so German or French text gets no relations, and a warning says why.

The share of very common English function words among a text's alphabetic tokens is about a
third in English prose and a few percent in German or French. Terse English (headlines) can be
low too, so a text warns only when, with at least ``MIN_WORDS`` words, English function words are
under ``MIN_SHARE`` and German, French or Spanish ones reach it. It draws one
:class:`NotEnglishWarning` per process (Python's warning filters decide, as for any warning).
"""

from __future__ import annotations

import warnings
from typing import Iterable, Sequence

from .errors import Errors

MIN_WORDS = 8
MIN_SHARE = 0.12
_ENGLISH = frozenset("""
the a an and or but if of to in on at by for with from as is are was were be been being it its
this that these those he she they we you i his her their our your not no do does did have has
had will would can could should may might there what which who when while because since so than
then into about over after before also just only all any some more most very
""".split())
# German, French and Spanish function words that are not English words.
_OTHER = frozenset("""
der das und ist nicht ein eine zu mit von den dem des auf für sich es wir ich sie er auch wenn
weil aber oder nach bei aus wie noch nur schon sind war hat
le la les et est des du un une que qui pas pour dans ce il elle nous vous sur au aux avec mais
ou sont été être très
el los las y es del en una por con se su para pero muy fue son está
""".split())


class NotEnglishWarning(UserWarning):
    """A text does not look like English; logicparse annotates English only."""


def shares(tokens: Iterable[str]) -> tuple[float, float, int]:
    """(share of English function words, share of German/French/Spanish ones, number of
    alphabetic words) among ``tokens``."""
    words = [t.lower() for t in tokens if t.isalpha()]
    if not words:
        return 1.0, 0.0, 0
    return (sum(w in _ENGLISH for w in words) / len(words),
            sum(w in _OTHER for w in words) / len(words), len(words))


def warn_if_not_english(items: Sequence[tuple]) -> None:
    """One warning when a document of ``items`` ((id, text, Sentences)) does not
    look like English."""
    for _, _, sentences in items:
        english, other, n = shares(t for sent in sentences for t in sent.tokens)
        if n >= MIN_WORDS and english < MIN_SHARE <= other:
            warnings.warn(Errors.W024, NotEnglishWarning, stacklevel=3)
            return
