"""Text -> sentences before parsing: spaCy's tokens and sentence boundaries, with character
offsets, cut to the parser's longest sentence."""

from __future__ import annotations

import re
from typing import Optional

_PARAGRAPH = re.compile(r"\n\s*\n")

# A sentence before parsing: its tokens and their character offsets (starts, ends).
Segment = tuple[list[str], list[int], list[int]]


#: What the annotator reads as a space: the C0 and C1 control characters but tab, newline and
#: carriage return.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


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
            # Control characters are spaces to the annotator (it replaces them before spaCy
            # tokenizes); a spaCy Doc made elsewhere may hold them inside a token (`\x93If`).
            text = "" if tok.is_space else CONTROL.sub("", tok.text)
            if not text:
                if tok.is_space and _PARAGRAPH.search(tok.text) and toks:
                    pieces.append((toks, starts))
                    toks, starts = [], []
                continue
            toks.append(text)
            starts.append(tok.idx)
        if toks:
            pieces.append((toks, starts))
        for toks, starts in pieces:
            for a in range(0, len(toks), limit):
                t, s = toks[a:a + limit], starts[a:a + limit]
                out.append((t, s, [o + len(w) for o, w in zip(s, t)]))
    return out


# spaCy splits a token's punctuation off one character at a time, rescanning what is left, so a
# run of n such characters without a space ("$$$…", a line of "=") takes time growing as n²:
# 10,000 "$" took 28 s, held the GIL and so the service. Runs over this length are tokenized in
# pieces of it (a token boundary every MAX_RUN characters), unless they are letters and digits
# only or a URL ending in a letter, digit or slash, which spaCy reads in one step.
MAX_RUN = 100
_LONG_RUN = re.compile(r"\S{%d,}" % (MAX_RUN + 1))


class BoundedTokenizer:
    """spaCy's ``tokenizer``, with long runs without spaces fed to it in pieces (see MAX_RUN)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.url_match = getattr(tokenizer, "url_match", None)

    def _whole_url(self, run: str) -> bool:
        """A URL that spaCy takes in one step: all of ``run``, with nothing at either end that it
        would first split off character by character (``http://x.com/`` + ")" * 5,000: 6.9 s)."""
        m = self.url_match(run) if self.url_match is not None else None
        return (m is not None and m.end() == len(run) and run[0].isalnum()
                and (run[-1].isalnum() or run[-1] == "/"))

    def __call__(self, text: str):
        if _LONG_RUN.search(text) is None:
            return self.tokenizer(text)
        from spacy.tokens import Doc

        pieces, pos = [], 0
        for m in _LONG_RUN.finditer(text):
            run = m.group()
            if run.isalnum() or self._whole_url(run):
                continue
            # A space right after the run is its last token's trailing space, as spaCy has it.
            end = m.end() + (text[m.end():m.end() + 1] == " ")
            pieces.append(text[pos:m.start()])
            pieces.extend(text[i:min(i + MAX_RUN, m.end())] for i in range(m.start(), m.end(), MAX_RUN))
            pieces[-1] = text[m.end() - len(pieces[-1]):end]
            pos = end
        pieces.append(text[pos:])
        # One Doc of the pieces' tokens, with no sentence starts where the pieces meet.
        tokens = [t for p in pieces if p for t in self.tokenizer(p)]
        return Doc(self.tokenizer.vocab, words=[t.text for t in tokens],
                   spaces=[bool(t.whitespace_) for t in tokens])


def load_spacy(name: Optional[str]):
    import spacy

    if name:
        nlp = spacy.load(name, exclude=["ner", "lemmatizer", "textcat"])
    else:
        nlp = spacy.blank("en")
        nlp.add_pipe("sentencizer")
    nlp.tokenizer = BoundedTokenizer(nlp.tokenizer)
    return nlp
