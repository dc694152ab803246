"""Constituents of a parse tree that the default mapping's rules read: labels without function
tags, a node's children, clauses above a node, the conjuncts around a keyword, and token ranges
with holes cut out. Shared by arguments.py (the rules) and adjuncts.py (where an adjunct's α stops).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from typing import Optional, Sequence

from .trees import ParseTree

Ranges = list[list[int]]

# Labels of clause nodes: where an argument stops climbing.
CLAUSES = frozenset({"S", "SINV", "SQ", "SBARQ"})
# Parents that the keyword heads: subordinate clauses and prepositional adjuncts.
HEADED = frozenset({"SBAR", "PP", "WHPP"})
# Coordinators (``and``; ``as well as`` is a CONJP).
COORDINATORS = frozenset({"CC", "CONJP"})
# Children that separate conjuncts rather than being one.
SEPARATORS = COORDINATORS | {",", ":", ".", "``", "''", "-LRB-", "-RRB-", "HYPH", "NFP"}
# Phrases, neither clauses nor predicates: what "apples and pears" coordinates.
PHRASES = frozenset({"NP", "NX", "NML", "ADJP", "ADVP", "QP", "PP", "WHNP", "WHADJP", "WHADVP",
                     "WHPP", "NAC", "UCP"})


@lru_cache(maxsize=4096)
def base_label(label: str) -> str:
    """``SBAR-ADV`` -> ``SBAR``, ``NP=2`` -> ``NP``; ``-NONE-``/``-LRB-`` stay as they are."""
    if not label or label[0] == "-":
        return label
    for sep in "-=":
        i = label.find(sep)
        if i > 0:
            label = label[:i]
    return label


def is_word(token: str) -> bool:
    return any(ch.isalnum() for ch in token)


@lru_cache(maxsize=65536)  # asked of every token by every mapping; tokens repeat
def is_punct(token: str) -> bool:
    """Whether every character of ``token`` is punctuation (quotes included): the tokens that the
    GDTB scorer leaves out of every argument, and that an argument does not start or end with."""
    return all(unicodedata.category(c).startswith("P") or c in "`'" for c in token)


def trim_punct(tokens: Sequence[str], ranges: Ranges) -> Ranges:
    """``ranges`` without the punctuation tokens at the ends of each; a range of punctuation
    only is dropped."""
    out = []
    for a, b in ranges:
        while a < b and is_punct(tokens[a]):
            a += 1
        while b > a and is_punct(tokens[b - 1]):
            b -= 1
        if a < b:
            out.append([a, b])
    return out


def children(tree: ParseTree, node: int) -> list[int]:
    end, parents, starts = tree.ends[node], tree.parents, tree.starts
    out = []
    x = node + 1
    while x < len(parents) and starts[x] < end:
        if parents[x] == node:
            out.append(x)
        x += 1
    return out


def spans_minus(outer: tuple[int, int], holes: list[tuple[int, int]], offset: int) -> Ranges:
    """Token span ``outer`` minus the ``holes`` (spans inside it), shifted by ``offset``: set
    difference can leave pieces on both sides of a hole."""
    out, pos = [], outer[0]
    for a, b in sorted(holes):
        if a > pos:
            out.append([pos + offset, a + offset])
        pos = max(pos, b)
    if outer[1] > pos:
        out.append([pos + offset, outer[1] + offset])
    return out


def shift(ranges: Ranges, offset: int) -> Ranges:
    return [[a + offset, b + offset] for a, b in ranges]


def clause_above(tree: ParseTree, node: int) -> int:
    """The nearest clause node strictly above ``node``, else the root."""
    labels, parents = tree.labels, tree.parents
    node = parents[node]
    while node > 0 and base_label(labels[node]) not in CLAUSES:
        node = parents[node]
    return max(node, 0)


def clause_at(tree: ParseTree, node: int) -> int:
    """``node`` itself when it is a clause, else the nearest clause above it (or the root)."""
    return node if base_label(tree.labels[node]) in CLAUSES else clause_above(tree, node)


def conjuncts(tree: ParseTree, parent: int, start: int, end: int
               ) -> tuple[Optional[int], Optional[tuple[int, int]]]:
    """Around the keyword tokens [start, end) among ``parent``'s children: the nearest conjunct
    before them (a node, or None), and the span of the conjuncts after them up to the next
    separating coordinator (None if there is none after)."""
    before, after_start, after_end = None, None, None
    for c in children(tree, parent):
        label = base_label(tree.labels[c])
        if tree.ends[c] <= start:
            if label not in SEPARATORS:
                before = c
        elif tree.starts[c] >= end:
            if label in COORDINATORS and after_start is not None:
                break
            if label not in SEPARATORS:
                after_start = tree.starts[c] if after_start is None else after_start
                after_end = tree.ends[c]
    return before, (after_start, after_end) if after_start is not None else None
