"""Text -> sentences before parsing: spaCy's tokens and sentence boundaries, with character
offsets, cut to the parser's longest sentence."""

from __future__ import annotations

import re
from typing import Optional

_PARAGRAPH = re.compile(r"\n\s*\n")

# A sentence before parsing: its tokens and their character offsets (starts, ends).
Segment = tuple[list[str], list[int], list[int]]


def segment_doc(doc, limit: int) -> list[Segment]:
    """A spaCy Doc's sentences as (tokens, starts, ends). Whitespace tokens are dropped; a blank
    line always ends a sentence; a sentence longer than ``limit`` tokens (the parser's
    ``max_length``) is split into pieces of at most that many tokens (documented recovery: each
    piece is parsed as a sentence)."""
    out = []
    for sent in doc.sents:
        toks: list[str] = []
        starts: list[int] = []
        pieces = []
        for tok in sent:
            if tok.is_space:
                if _PARAGRAPH.search(tok.text) and toks:
                    pieces.append((toks, starts))
                    toks, starts = [], []
                continue
            toks.append(tok.text)
            starts.append(tok.idx)
        if toks:
            pieces.append((toks, starts))
        for toks, starts in pieces:
            for a in range(0, len(toks), limit):
                t, s = toks[a:a + limit], starts[a:a + limit]
                out.append((t, s, [o + len(w) for o, w in zip(s, t)]))
    return out


def load_spacy(name: Optional[str]):
    import spacy

    if name:
        return spacy.load(name, exclude=["ner", "lemmatizer", "textcat"])
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp
