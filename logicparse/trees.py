"""Bracketed constituency trees, read into flat arrays for fast span arithmetic.

Algorithm 1 needs only each node's token span, parent and depth, so a tree is stored as parallel
lists in preorder instead of nested objects: reading and mapping a WSJ sentence takes tens of
microseconds, which keeps logic mapping a rounding error next to parsing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

from .errors import Errors, TreeFormatError

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
# Wrapper labels that add a level above the sentence without being part of it.
_WRAPPERS = frozenset({"", "ROOT", "TOP", "VROOT"})
# PTB escapes of brackets in leaves, undone so that tokens read as written.
_UNESCAPE = {"-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]"}
_ESCAPE = {v: k for k, v in _UNESCAPE.items()}
_OPEN = re.compile(r"\(([^\s()]*)")


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
                    out.append(" " + _ESCAPE.get(self.leaves[pos], self.leaves[pos]))
                    pos += 1
            out.append(")")

        emit(0)
        return "".join(out)


def _malformed(s: str, pos: int, reason: str) -> TreeFormatError:
    return TreeFormatError(Errors.E010.format(pos=pos, reason=reason, snippet=s[:120]))


def read_tree(s: str, tokens: Optional[Sequence[str]] = None) -> ParseTree:
    """Read one bracketed tree. ROOT/TOP/empty wrapper brackets over a single child are removed,
    so that the sentence constituent is the root (Algorithm 1's pa(pa(n)) must not find a
    wrapper). When ``tokens`` are given, the leaves are those tokens (a leaf such as ``(`` that the
    parser wrote unescaped is read by position)."""
    if not isinstance(s, str):
        raise TreeFormatError(Errors.E013.format(type=type(s).__name__))
    if not s.strip():
        raise TreeFormatError(Errors.E011)
    try:
        tree = _read_fast(s)
    except TreeFormatError:
        if tokens is None:
            raise
        tree = _read_with_tokens(s, tokens)
    else:
        if tokens is not None and len(tree.leaves) != len(tokens):
            tree = _read_with_tokens(s, tokens)
    if tokens is not None:
        tree.leaves = list(tokens)
    return _strip_wrappers(tree)


def _new() -> ParseTree:
    return ParseTree([], [], [], [], [], [], [])


def _read_fast(s: str) -> ParseTree:
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
            leaves.append(_UNESCAPE.get(tok, tok))
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


def _read_with_tokens(s: str, tokens: Sequence[str]) -> ParseTree:
    """Slow path: a leaf may contain brackets, so leaves are matched against the known tokens."""
    t = _new()
    stack: list[int] = []
    has_child = []  # per open node: whether a child node was opened (then no leaves follow)
    pos, n, k = 0, len(s), 0
    while pos < n:
        c = s[pos]
        if c.isspace():
            pos += 1
            continue
        node = stack[-1] if stack else -1
        leaf_ok = node >= 0 and not has_child[node] and k < len(tokens)
        if leaf_ok:
            tok = tokens[k]
            for cand in (tok, _ESCAPE.get(tok, tok)):
                after = pos + len(cand)
                if s.startswith(cand, pos) and (after >= n or s[after].isspace() or s[after] == ")"):
                    t.leaves.append(tok)
                    t.leaf_parents.append(node)
                    k += 1
                    pos = after
                    break
            else:
                leaf_ok = False
            if leaf_ok:
                continue
        if c == "(":
            if node >= 0:
                has_child[node] = True
            idx = len(t.labels)
            m = _OPEN.match(s, pos)
            t.labels.append(m.group(1))
            t.starts.append(len(t.leaves))
            t.ends.append(-1)
            t.parents.append(node)
            t.depths.append(len(stack))
            stack.append(idx)
            has_child.append(False)
            pos = m.end()
        elif c == ")":
            if not stack:
                raise _malformed(s, pos, "unbalanced ')'")
            done = stack.pop()
            t.ends[done] = len(t.leaves)
            pos += 1
        else:
            raise _malformed(s, pos, f"word does not match token {k} ({tokens[k] if k < len(tokens) else 'none left'!r})")
    if stack or not t.labels:
        raise _malformed(s, n, "unbalanced '(' (missing closing brackets)")
    if k != len(tokens):
        raise TreeFormatError(Errors.E012.format(index=0, n_leaves=k, n_tokens=len(tokens)))
    return _drop_empty(t)


def _strip_wrappers(t: ParseTree) -> ParseTree:
    # Drop the root while it is a wrapper with exactly one child spanning the whole sentence.
    while (len(t.labels) > 1 and t.labels[0] in _WRAPPERS and t.parents[1] == 0
           and t.starts[1] == 0 and t.ends[1] == t.ends[0]
           and 0 not in t.leaf_parents and t.parents.count(0) == 1):
        t = ParseTree(
            labels=t.labels[1:], starts=t.starts[1:], ends=t.ends[1:],
            parents=[p - 1 for p in t.parents[1:]], depths=[d - 1 for d in t.depths[1:]],
            leaves=t.leaves, leaf_parents=[p - 1 for p in t.leaf_parents],
        )
    return t


def iter_trees(text: str) -> Iterator[str]:
    """Split a text holding several bracketed trees (one per line or spread over lines, as in
    .mrg files) into one string per tree."""
    depth, start = 0, None
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok == "(":
            if depth == 0:
                start = m.start()
            depth += 1
        elif tok == ")":
            depth -= 1
            if depth == 0:
                yield text[start:m.end()]
            elif depth < 0:
                raise _malformed(text, m.start(), "unbalanced ')'")
    if depth > 0:
        raise _malformed(text, len(text), "unbalanced '(' at the end of the text")
