"""Penn Treebank conventions shared by every tree reader and writer: bracket escapes in leaves
(``-LRB-`` for ``(``) and splitting a text into its bracketed trees."""

from __future__ import annotations

import re
from typing import Iterator

from .errors import Errors, TreeFormatError

# Brackets inside a leaf would read as tree structure, so PTB writes them as these.
ESCAPES = {"(": "-LRB-", ")": "-RRB-", "{": "-LCB-", "}": "-RCB-", "[": "-LSB-", "]": "-RSB-"}
UNESCAPES = {v: k for k, v in ESCAPES.items()}
# PTB quotes as raw text has them: what a tokenizer gives for the sentence a treebank leaf is from.
_RAW = {**UNESCAPES, "``": '"', "''": '"'}

TOKEN = re.compile(r"\(|\)|[^\s()]+")


# A bracket inside a token (``friend(s)``) is escaped in place (``friend-LRB-s-RRB-``), as GUM's
# trees write it; whole-bracket tokens are the common case and take the dictionary alone.
_INNER = re.compile("|".join(re.escape(e) for e in UNESCAPES))


def escape(token: str) -> str:
    hit = ESCAPES.get(token)
    if hit is not None:
        return hit
    if "(" in token or ")" in token or "[" in token or "]" in token or "{" in token or "}" in token:
        return "".join(ESCAPES.get(c, c) for c in token)
    return token


def unescape(leaf: str) -> str:
    hit = UNESCAPES.get(leaf)
    if hit is not None:
        return hit
    return _INNER.sub(lambda m: UNESCAPES[m.group()], leaf) if "-" in leaf else leaf


def raw_tokens(leaves: list[str]) -> list[str]:
    """PTB leaves back to the tokens a tokenizer gives for raw text (``-LRB-`` -> ``(``,
    ````` `` ````` -> ``"``)."""
    return [_RAW.get(w, w) for w in leaves]


def malformed(text: str, pos: int, reason: str) -> TreeFormatError:
    return TreeFormatError(Errors.E010.format(pos=pos, reason=reason, snippet=text[:120]))


def split_trees(text: str) -> Iterator[str]:
    """One string per top-level bracketed tree of ``text``, whether a tree spans one line or many
    (as in .mrg files). Leaves are PTB-escaped, so bracket depth delimits trees."""
    depth, start = 0, None
    for m in TOKEN.finditer(text):
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
                raise malformed(text, m.start(), "unbalanced ')'")
    if depth > 0:
        raise malformed(text, len(text), "unbalanced '(' at the end of the text")
