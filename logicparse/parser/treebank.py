"""Reading and cleaning bracketed treebanks (Penn Treebank style) for training and evaluation.

Raw treebanks differ in ways a parser should not learn: the NLTK WSJ sample keeps ``-NONE-``
traces, function tags (``NP-SBJ``), coindexation (``NP-SBJ-1``, ``NP=2``) and an empty top bracket
``( (S ...) )``; GUM trees carry function tags under a ``ROOT``. :func:`clean_tree` maps all of them
to the form the WSJ §22/§23 evaluation files use: traces and the constituents they leave empty
removed, bare category labels, one ``TOP`` root. Tokens stay PTB-escaped (``-LRB-``, ``````)
because that is what the trees are scored against; :class:`TreebankExample` gives the parser the
unescaped words.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Tuple

import nltk

from ..errors import DataFormatError, Errors
from ..ptb import split_trees

ROOT_LABELS = ("", "ROOT", "TOP", "S1", "VROOT")
# Labels that start with a dash are whole labels, not a category plus a function tag.
_DASH_LABELS = ("-NONE-", "-LRB-", "-RRB-", "-LCB-", "-RCB-", "-LSB-", "-RSB-")


def strip_label(label: str) -> str:
    """``NP-SBJ-1`` -> ``NP``, ``NP=2`` -> ``NP``, ``PRT|ADVP`` -> ``PRT``; ``-LRB-`` stays."""
    if label in _DASH_LABELS or (label.startswith("-") and label.endswith("-")):
        return label
    label = label.split("|")[0].split("=")[0]
    core = label.split("-")[0]
    return core or label


def _strip(tree: nltk.Tree) -> Optional[nltk.Tree]:
    """Remove traces and the constituents left empty by their removal; strip labels."""
    if tree.label() == "-NONE-":
        return None
    children = []
    for child in tree:
        if isinstance(child, str):
            children.append(child)
        else:
            kept = _strip(child)
            if kept is not None:
                children.append(kept)
    if not children:
        return None
    return nltk.Tree(strip_label(tree.label()), children)


def clean_tree(tree: nltk.Tree) -> Optional[nltk.Tree]:
    """Return the tree in evaluation form (``(TOP (S ...))``), or None if nothing is left."""
    if tree.label() in ROOT_LABELS:
        body = list(tree)
    else:
        body = [tree]
    kept = [c for c in (_strip(c) if isinstance(c, nltk.Tree) else c for c in body) if c is not None]
    if not kept or any(isinstance(c, str) for c in kept):
        return None
    return nltk.Tree("TOP", kept)


def read_trees(path: str | Path, clean: bool = True) -> List[nltk.Tree]:
    """All trees of a treebank file (one tree per line or spread over lines), cleaned by default."""
    path = Path(path)
    if not path.is_file():
        raise DataFormatError(Errors.E111.format(path=path))
    text = path.read_text(encoding="utf-8", errors="replace")
    trees = []
    for i, s in enumerate(split_trees(text)):
        try:
            tree = nltk.Tree.fromstring(s)
        except ValueError as e:
            raise DataFormatError(Errors.E112.format(path=path, index=i, reason=e)) from e
        if clean:
            tree = clean_tree(tree)
            if tree is None:
                continue
        trees.append(tree)
    if not trees:
        raise DataFormatError(Errors.E113.format(path=path))
    return trees


@dataclasses.dataclass
class TreebankExample:
    """One gold tree as benepar's ``BaseInputExample``: raw words in, PTB leaves out."""

    tree: Optional[nltk.Tree]
    words: List[str]
    space_after: List[bool]
    _leaves: List[str]

    @classmethod
    def from_tree(cls, tree: nltk.Tree) -> "TreebankExample":
        from benepar.ptb_unescape import guess_space_after, ptb_unescape

        leaves = tree.leaves()
        return cls(tree=tree, words=ptb_unescape(leaves), space_after=guess_space_after(leaves),
                   _leaves=leaves)

    def leaves(self) -> List[str]:
        return self._leaves

    def pos(self) -> List[Tuple[str, str]]:
        return self.tree.pos()


def load_examples(path: str | Path, max_len: Optional[int] = None) -> List[TreebankExample]:
    trees = read_trees(path)
    if max_len:
        trees = [t for t in trees if len(t.leaves()) <= max_len]
    return [TreebankExample.from_tree(t) for t in trees]
