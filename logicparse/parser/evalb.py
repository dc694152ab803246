"""Labelled bracketing F1 with the conventions of EVALB's COLLINS.prm.

There is no maintained pure-Python EVALB on the package index we trust to follow COLLINS.prm
(nltk ships none; benepar shells out to the C program, which is not installed), so this module
implements the parameter file's rules directly and is tested against hand-computed cases:

- ``DELETE_LABEL TOP``: the root bracket is not scored;
- ``DELETE_LABEL -NONE- , : `` '' .``: punctuation words (by their *gold* part-of-speech, so a
  mis-tagged comma cannot shift the test tree's spans) are removed before spans are computed, and
  a bracket that then covers no word is not scored;
- labels are compared without function tags or indices (``NP-SBJ-1`` = ``NP``) and
  ``EQ_LABEL ADVP PRT``;
- preterminals (part-of-speech tags) are not brackets; brackets are matched as a multiset of
  (label, start, end), so a unary chain ``(NP (NP ...))`` counts twice;
- totals are summed over sentences (micro-averaged), as EVALB's summary does.
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Iterable, List, Sequence

import nltk

from ..errors import DataFormatError, Errors
from .treebank import strip_label

DELETE_LABELS = frozenset({"TOP", "ROOT", "-NONE-", ",", ":", "``", "''", "."})
PUNCT_TAGS = frozenset({"-NONE-", ",", ":", "``", "''", "."})
EQ_LABELS = {"PRT": "ADVP"}


def _is_preterminal(t) -> bool:
    return isinstance(t, nltk.Tree) and len(t) == 1 and isinstance(t[0], str)


def _as_tree(t) -> nltk.Tree:
    return t if isinstance(t, nltk.Tree) else nltk.Tree.fromstring(t)


def brackets(tree: nltk.Tree, keep: Sequence[bool]) -> collections.Counter:
    """Multiset of scored (label, start, end) brackets; ``keep[i]`` says whether word i counts."""
    # Position of each word among the kept words: a bracket spans kept words [start, end).
    index = [0]
    for k in keep:
        index.append(index[-1] + int(k))
    out: collections.Counter = collections.Counter()

    def walk(t, i: int) -> int:
        if isinstance(t, str):
            return i + 1
        if _is_preterminal(t):
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


@dataclasses.dataclass
class Score:
    matched: int = 0
    gold: int = 0
    test: int = 0
    sentences: int = 0
    exact: int = 0

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

    def to_dict(self) -> dict:
        return {"f1": round(self.f1, 6), "precision": round(self.precision, 6),
                "recall": round(self.recall, 6), "sentences": self.sentences,
                "exact_match": round(self.exact / self.sentences, 6) if self.sentences else 0.0}


def score_sentence(gold, test) -> tuple[int, int, int]:
    """(matched, gold, test) bracket counts for one sentence."""
    gold, test = _as_tree(gold), _as_tree(test)
    gold_pos = gold.pos()
    test_leaves = test.leaves()
    if len(gold_pos) != len(test_leaves):
        raise DataFormatError(Errors.E114.format(
            index="?", reason=f"{len(gold_pos)} gold words, {len(test_leaves)} predicted"))
    keep = [tag not in PUNCT_TAGS for _, tag in gold_pos]
    g, t = brackets(gold, keep), brackets(test, keep)
    return sum((g & t).values()), sum(g.values()), sum(t.values())


def evalb(gold_trees: Iterable, test_trees: Iterable) -> Score:
    """Score parallel sequences of trees (nltk.Tree or bracketed strings)."""
    score = Score()
    gold_trees, test_trees = list(gold_trees), list(test_trees)
    if len(gold_trees) != len(test_trees):
        raise DataFormatError(Errors.E114.format(
            index="-", reason=f"{len(gold_trees)} gold trees but {len(test_trees)} predicted"))
    for i, (g, t) in enumerate(zip(gold_trees, test_trees)):
        try:
            m, ng, nt = score_sentence(g, t)
        except DataFormatError as e:
            raise DataFormatError(str(e).replace("sentence ?", f"sentence {i}")) from None
        score.matched += m
        score.gold += ng
        score.test += nt
        score.sentences += 1
        score.exact += int(m == ng == nt)
    return score


def f1_of(gold_trees: List, test_trees: List) -> float:
    return evalb(gold_trees, test_trees).f1
