"""Labelled bracketing F1 with the conventions of EVALB's COLLINS.prm.

There is no maintained pure-Python EVALB on the package index we trust to follow COLLINS.prm
(nltk ships none; benepar shells out to the C program, which is not installed), so this module
implements the parameter file's rules directly. It reproduces the reference program's output on
EVALB's own sample trees with COLLINS.prm, per sentence and in the summary (the test suite checks
this against ``sample.collins.rsl``):

- ``DELETE_LABEL TOP``: the root bracket is not scored;
- ``DELETE_LABEL -NONE- , : `` '' .``: punctuation words (by their *gold* part-of-speech, so a
  mis-tagged comma cannot shift the test tree's spans) are removed before spans are computed, and
  a bracket that then covers no word is not scored;
- ``DELETE_LABEL_FOR_LENGTH -NONE-``: traces do not count in a sentence's length;
- labels are compared without function tags or indices (``NP-SBJ-1`` = ``NP``) and
  ``EQ_LABEL ADVP PRT``;
- preterminals (part-of-speech tags) are not brackets; brackets are matched as a multiset of
  (label, start, end), so a unary chain ``(NP (NP ...))`` counts twice;
- a sentence whose length or words differ between gold and test is an *error* sentence and one
  with an empty test line a *skipped* sentence: neither is scored, both are counted, and more than
  ``MAX_ERROR`` (10) error sentences stop the evaluation;
- totals are summed over the valid sentences (micro-averaged), as EVALB's summary does; the
  ``len<=40`` figures use the sentences of at most ``CUTOFF_LEN`` words.

Two deliberate differences: words under a deleted (punctuation) gold tag are not compared, because
a parser given raw text cannot tell whether its ``"`` was ````` or ``''`` in the treebank; and words
are compared in their PTB-escaped form on both sides, because some treebanks (GUM) write ``[``,
``{`` raw where the parser writes ``-LSB-``, ``-LCB-``.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Iterable, List, Sequence

import nltk

from ..errors import DataFormatError, Errors
from ..ptb import escape
from .treebank import strip_label

DELETE_LABELS = frozenset({"TOP", "ROOT", "-NONE-", ",", ":", "``", "''", "."})
PUNCT_TAGS = frozenset({"-NONE-", ",", ":", "``", "''", "."})
LENGTH_DELETE_TAGS = frozenset({"-NONE-"})
EQ_LABELS = {"PRT": "ADVP"}
MAX_ERROR = 10
CUTOFF_LEN = 40

OK, ERROR, SKIP = 0, 1, 2  # EVALB's sentence status column


def _is_preterminal(t) -> bool:
    return isinstance(t, nltk.Tree) and len(t) == 1 and isinstance(t[0], str)


def _as_tree(t) -> nltk.Tree:
    if isinstance(t, nltk.Tree):
        return t
    try:
        return nltk.Tree.fromstring(t)
    except ValueError:
        # EVALB reads a line of several top-level brackets, "(P a) (Q b)", as one bracket-less
        # sentence; under a TOP (deleted) it is exactly that.
        return nltk.Tree.fromstring(f"(TOP {t})")


def brackets(tree: nltk.Tree, keep: Sequence[bool]) -> collections.Counter:
    """Multiset of scored (label, start, end) brackets; ``keep[i]`` says whether word i counts."""
    # Position of each word among the kept words: a bracket spans kept words [start, end).
    index = [0]
    for k in keep:
        index.append(index[-1] + int(k))
    out: collections.Counter = collections.Counter()

    def walk(t, i: int) -> int:
        if isinstance(t, str) or _is_preterminal(t):
            return i + 1
        j = i
        for child in t:
            j = walk(child, j)
        label = strip_label(t.label())
        label = EQ_LABELS.get(label, label)
        start, end = index[i], index[j]
        if label not in DELETE_LABELS and end > start:
            out[(label, start, end)] += 1
        return j

    walk(tree, 0)
    return out


def _crossing(test: collections.Counter, gold: collections.Counter) -> int:
    """Test brackets that cross some gold bracket (overlap without nesting), labels ignored."""
    spans = {(a, b) for _, a, b in gold}
    return sum(n for (_, a, b), n in test.items()
               if any(a < c < b < d or c < a < d < b for c, d in spans))


@dataclasses.dataclass
class SentenceScore:
    """One row of EVALB's per-sentence table."""

    length: int
    status: int = OK
    matched: int = 0
    gold: int = 0
    test: int = 0
    crossing: int = 0
    words: int = 0
    correct_tags: int = 0
    reason: str = ""  # why an error sentence was not scored

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def precision(self) -> float:
        return self.matched / self.test if self.test else 0.0


def score_sentence_full(gold, test) -> SentenceScore:
    """EVALB's row for one sentence; ``test`` None or blank means the sentence is skipped."""
    gold = _as_tree(gold)
    gold_pos = [(w, t) for w, t in gold.pos() if t not in LENGTH_DELETE_TAGS]
    row = SentenceScore(length=len(gold_pos))
    if test is None or (isinstance(test, str) and not test.strip()):
        row.status = SKIP
        return row
    test = _as_tree(test)
    test_pos = test.pos()
    test_words = [(i, w, t) for i, (w, t) in enumerate(test_pos) if t not in LENGTH_DELETE_TAGS]
    if len(test_words) != len(gold_pos):
        row.status, row.reason = ERROR, f"Length unmatch ({len(gold_pos)}|{len(test_words)})"
        return row
    for (gw, gt), (_, tw, _) in zip(gold_pos, test_words):
        if gw != tw and escape(gw) != escape(tw) and gt not in PUNCT_TAGS:
            row.status, row.reason = ERROR, f"Words unmatch ({gw}|{tw})"
            return row
    # Which words count for brackets is decided by the gold tags, in both trees.
    keep_gold = [t not in PUNCT_TAGS for _, t in gold.pos()]
    keep_test = [False] * len(test_pos)
    for (i, _, _), (_, gt) in zip(test_words, gold_pos):
        keep_test[i] = gt not in PUNCT_TAGS
    g, t = brackets(gold, keep_gold), brackets(test, keep_test)
    row.matched, row.gold, row.test = sum((g & t).values()), sum(g.values()), sum(t.values())
    row.crossing = _crossing(t, g)
    tagged = [(gt, tt) for (_, gt), (_, _, tt) in zip(gold_pos, test_words) if gt not in PUNCT_TAGS]
    row.words = len(tagged)
    row.correct_tags = sum(gt == tt for gt, tt in tagged)
    return row


def score_sentence(gold, test) -> tuple[int, int, int]:
    """(matched, gold, test) bracket counts for one sentence."""
    row = score_sentence_full(gold, test)
    if row.status == ERROR:
        raise DataFormatError(Errors.E114.format(index="?", reason=row.reason))
    return row.matched, row.gold, row.test


@dataclasses.dataclass
class Score:
    """EVALB's summary over its rows (errors and skips counted, never scored)."""

    rows: List[SentenceScore] = dataclasses.field(default_factory=list)

    def _valid(self) -> List[SentenceScore]:
        return [r for r in self.rows if r.status == OK]

    def _sum(self, field: str) -> int:
        return sum(getattr(r, field) for r in self._valid())

    @property
    def matched(self) -> int:
        return self._sum("matched")

    @property
    def gold(self) -> int:
        return self._sum("gold")

    @property
    def test(self) -> int:
        return self._sum("test")

    @property
    def sentences(self) -> int:
        """Valid (scored) sentences."""
        return len(self._valid())

    @property
    def errors(self) -> int:
        return sum(r.status == ERROR for r in self.rows)

    @property
    def skipped(self) -> int:
        return sum(r.status == SKIP for r in self.rows)

    @property
    def exact(self) -> int:
        return sum(r.matched == r.gold == r.test for r in self._valid())

    @property
    def precision(self) -> float:
        return self.matched / self.test if self.test else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def tagging_accuracy(self) -> float:
        words = self._sum("words")
        return self._sum("correct_tags") / words if words else 0.0

    @property
    def average_crossing(self) -> float:
        return self._sum("crossing") / self.sentences if self.sentences else 0.0

    def crossing_at_most(self, n: int) -> float:
        """Share of valid sentences with at most ``n`` crossing brackets."""
        valid = self._valid()
        return sum(r.crossing <= n for r in valid) / len(valid) if valid else 0.0

    def cutoff(self, max_length: int = CUTOFF_LEN) -> "Score":
        """The same summary over sentences of at most ``max_length`` words."""
        return Score([r for r in self.rows if r.length <= max_length])

    def to_dict(self) -> dict:
        n = self.sentences
        return {"f1": round(self.f1, 6), "precision": round(self.precision, 6),
                "recall": round(self.recall, 6), "sentences": n,
                "exact_match": round(self.exact / n, 6) if n else 0.0,
                "error_sentences": self.errors, "skipped_sentences": self.skipped}


def evalb(gold_trees: Iterable, test_trees: Iterable, max_errors: int = MAX_ERROR) -> Score:
    """Score parallel sequences of trees (nltk.Tree or bracketed strings; a test tree that is
    None or blank skips its sentence)."""
    gold_trees, test_trees = list(gold_trees), list(test_trees)
    if len(gold_trees) != len(test_trees):
        raise DataFormatError(Errors.E114.format(
            index="-", reason=f"{len(gold_trees)} gold trees but {len(test_trees)} predicted"))
    score = Score()
    for i, (g, t) in enumerate(zip(gold_trees, test_trees)):
        row = score_sentence_full(g, t)
        score.rows.append(row)
        if row.status == ERROR and score.errors > max_errors:
            raise DataFormatError(Errors.E114.format(
                index=i, reason=f"{row.reason}, and more than {max_errors} sentences differ"))
    return score

