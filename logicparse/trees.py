"""Bracketed constituency trees, read into flat arrays for fast span arithmetic.

Algorithm 1 needs only each node's token span, parent and depth, so a tree is stored as parallel
lists in preorder instead of nested objects: reading and mapping a WSJ sentence takes tens of
microseconds, which keeps logic mapping a rounding error next to parsing.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import Errors, TreeFormatError
from .ptb import TOKEN as _TOKEN
from .ptb import escape, malformed as _malformed, unescape
# Wrapper labels that add a level above the sentence without being part of it.
_WRAPPERS = frozenset({"", "ROOT", "TOP", "VROOT"})


@dataclass
class ParseTree:
    """A constituency tree as preorder arrays; node 0 is the root."""

    labels: list[str]
    starts: list[int]  # first token of the node's span
    ends: list[int]  # one past its last token
    parents: list[int]  # -1 for the root
    depths: list[int]  # root = 0
    leaves: list[str]
    leaf_parents: list[int]  # the preterminal node above each token

    def __len__(self) -> int:
        return len(self.leaves)

    def to_string(self) -> str:
        """Bracketed form (PTB-escaped leaves), one line."""
        children: list[list[int]] = [[] for _ in self.labels]
        for node, parent in enumerate(self.parents):
            if parent >= 0:
                children[parent].append(node)
        out: list[str] = []

        def emit(node: int) -> None:
            out.append(f"({self.labels[node]}")
            kids = children[node]
            pos, k = self.starts[node], 0
            while pos < self.ends[node]:
                if k < len(kids) and self.starts[kids[k]] == pos:
                    out.append(" ")
                    emit(kids[k])
                    pos = self.ends[kids[k]]
                    k += 1
                else:
                    out.append(" " + escape(self.leaves[pos]))
                    pos += 1
            out.append(")")

        emit(0)
        return "".join(out)


def read_tree(s: str) -> ParseTree:
    """Read one bracketed tree (PTB-escaped leaves: ``-LRB-`` reads as ``(``). ROOT/TOP/empty
    wrapper brackets over a single child are removed, so that the sentence constituent is the
    root (Algorithm 1's pa(pa(n)) must not find a wrapper)."""
    if not isinstance(s, str):
        raise TreeFormatError(Errors.E013.format(type=type(s).__name__))
    if not s.strip():
        raise TreeFormatError(Errors.E011)
    return strip_wrappers(_read(s))


def _new() -> ParseTree:
    return ParseTree([], [], [], [], [], [], [])


def _read(s: str) -> ParseTree:
    t = _new()
    labels, starts, ends, parents, depths = t.labels, t.starts, t.ends, t.parents, t.depths
    leaves, leaf_parents = t.leaves, t.leaf_parents
    stack: list[int] = []
    expect_label = False
    done = False
    for tok in _TOKEN.findall(s):
        if done:
            raise _malformed(s, len(s), "text after the end of the tree (one tree per string)")
        if tok == "(":
            node = len(labels)
            labels.append("")
            starts.append(len(leaves))
            ends.append(-1)
            parents.append(stack[-1] if stack else -1)
            depths.append(len(stack))
            stack.append(node)
            expect_label = True
        elif tok == ")":
            if not stack:
                raise _malformed(s, 0, "unbalanced ')'")
            node = stack.pop()
            ends[node] = len(leaves)
            expect_label = False
            done = not stack
        elif expect_label:
            labels[stack[-1]] = tok
            expect_label = False
        else:
            if not stack:
                raise _malformed(s, 0, f"word {tok!r} outside any bracket")
            if labels[stack[-1]] == "-NONE-":
                continue  # a trace or empty element, not a word
            leaves.append(unescape(tok))
            leaf_parents.append(stack[-1])
    if stack or not labels:
        raise _malformed(s, len(s), "unbalanced '(' (missing closing brackets)")
    if ends[0] == starts[0]:
        raise _malformed(s, 0, f"constituent '{labels[0]}' has no words")
    return _drop_empty(t)


def _drop_empty(t: ParseTree) -> ParseTree:
    """Remove constituents without words (``(NP (-NONE- *))``, ``(NP )``): they cover no token,
    so they have no span to map. Their ancestors all keep words, so depths stay as they are."""
    keep = [i for i in range(len(t.labels)) if t.ends[i] > t.starts[i]]
    if len(keep) == len(t.labels):
        return t
    new = {old: i for i, old in enumerate(keep)}
    return ParseTree(
        labels=[t.labels[i] for i in keep], starts=[t.starts[i] for i in keep],
        ends=[t.ends[i] for i in keep], parents=[new.get(t.parents[i], -1) for i in keep],
        depths=[t.depths[i] for i in keep], leaves=t.leaves,
        leaf_parents=[new[p] for p in t.leaf_parents])


def strip_wrappers(t: ParseTree) -> ParseTree:
    """The tree below its ROOT/TOP/empty wrapper brackets, each over a single child spanning the
    sentence: Algorithm 1's pa(pa(n)) must not find a wrapper."""
    while (len(t.labels) > 1 and t.labels[0] in _WRAPPERS and t.parents[1] == 0
           and t.starts[1] == 0 and t.ends[1] == t.ends[0]
           and 0 not in t.leaf_parents and t.parents.count(0) == 1):
        t = ParseTree(
            labels=t.labels[1:], starts=t.starts[1:], ends=t.ends[1:],
            parents=[p - 1 for p in t.parents[1:]], depths=[d - 1 for d in t.depths[1:]],
            leaves=t.leaves, leaf_parents=[p - 1 for p in t.leaf_parents],
        )
    return t
