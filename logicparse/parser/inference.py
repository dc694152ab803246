"""Tokens to trees with a loaded network: the parser at inference, without PyTorch.

:class:`SpanParser` holds what parsing needs once the network is chosen: the words the encoder
sees (:mod:`subwords`), the network (ONNX Runtime or PyTorch, :mod:`runtime`), CKY over each
span's best label (:func:`fast_span.charts_from_best`) and the tree. :class:`loading.ChartParserModel`
builds one from a benepar model with PyTorch; :func:`light.load_light` from the files such a load
leaves in the cache, with neither PyTorch, transformers, nltk nor benepar's package imported,
which is how a batch worker stays small.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from ..errors import Errors, ParseError
from ..ptb import escape
from ..retry import one_by_one
from ..trees import ParseTree
from .subwords import benepar_module, subbatches

# What spaCy's benepar component does to raw text before the encoder sees it: typographic quotes
# and dashes become the ASCII forms the treebanks use.
_NORMALIZE = {"`": "'", "«": '"', "»": '"', "‘": "'", "’": "'", "“": '"', "”": '"', "„": '"',
              "‹": "'", "›": "'", "—": "--", "–": "--"}


_STRONG_CUTS = (";", ":", "--")  # where a long sentence is cut first (:meth:`SpanParser._pieces`)


def compressed(chart: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """benepar's ``ChartDecoder.compressed_output_from_chart``: the chart's constituents (every
    word and the root included) in preorder, as (starts, ends, label ids)."""
    filled = chart.copy()
    np.fill_diagonal(filled, 1)
    filled[0, -1] = 1
    starts, inclusive_ends = np.where(filled)
    order = np.lexsort((-inclusive_ends, starts))
    starts, inclusive_ends = starts[order], inclusive_ends[order]
    return starts, inclusive_ends + 1, chart[starts, inclusive_ends]


class SpanParser:
    """A chart parser at inference. ``network(batch, left, right)`` -> (best score, label id of
    each span, tag id of each word or None), as :mod:`runtime` describes."""

    batch_size = 64
    # Word pieces per network call (benepar's sub-batches). On a CPU small calls are faster and
    # peak lower (against 2,000: annotation 1.12x faster, a worker 60 MB less; docs/batch.md);
    # a GPU keeps benepar's 2,000 (loading.py), where large calls fill the device.
    subbatch_max_tokens = 500

    def _setup(self, *, path: Path, name: str, metrics: dict, network, subwords, labels: list,
               tags: list, force_root: bool, span_bias: float, max_subwords: int,
               max_words: int, piece_words: Optional[int] = None) -> None:
        self.path = Path(path)
        self.name = name
        self.metrics = metrics
        self.network = network
        self.precision = network.precision  # what runs: "int8" or "fp32"
        self.subwords = subwords
        self._label_from_index = labels
        self._tag_from_index = tags
        self.force_root, self.span_bias = force_root, span_bias
        # Words the encoder sees must fit its position table (subwords, with the start and stop
        # tokens) and the partitioned encoder's timing table.
        self._max_subwords = max_subwords
        # Advertised to the Annotator, which splits longer sentences; longer input still gets a
        # tree here (parsed in pieces).
        self.max_length = min(max_words, 300)
        # The longest sentence the network was trained on (None: no bound known). Past it the
        # bundled network's trees fall apart (EVALB F1 0.52 on the 139 treebank sentences of over
        # 60 words, 0.75 parsed in pieces; docs/parser.md), so longer ones are parsed in pieces.
        self.piece_words = piece_words
        self._cache: dict[str, tuple[str, int]] = {}

    # -- what the encoder sees -------------------------------------------------------------------
    def _count(self, word: str) -> int:
        return self.subwords.count(word)

    def _encode(self, toks: list[str]) -> dict:
        words = [self._model_word(t)[0] for t in toks]
        space_after = benepar_module("ptb_unescape").guess_space_after([escape(t) for t in toks])
        return self.subwords.encode(words, space_after)

    def _pad(self, encoded: list[dict]) -> dict:
        return self.subwords.pad(encoded)

    def _costs(self, encoded: list[dict]) -> list[int]:
        return [len(e["input_ids"]) for e in encoded]

    def _model_word(self, word: str) -> tuple[str, int]:
        """(the word the encoder sees, its number of subwords), cached: words repeat a lot."""
        hit = self._cache.get(word)
        if hit is None:
            w = _NORMALIZE.get(word, word)
            # Whitespace inside a token would split it for the encoder; characters the tokenizer
            # drops entirely (controls, lone combining marks) would leave a word with no subword.
            w = re.sub(r"\s+", "_", w)
            n = self._count(w)
            if n == 0:
                w = "." if unicodedata.category(word[0]).startswith("P") else "?"
                n = self._count(w)
            if len(self._cache) > 200_000:
                self._cache.clear()
            hit = self._cache[word] = (w, n)
        return hit

    def _n_subwords(self, toks: list[str]) -> int:
        if len(toks) > self._max_subwords:
            return len(toks)
        return sum(self._model_word(t)[1] for t in toks)

    # -- parsing ---------------------------------------------------------------------------------
    def parse(self, sentences: Sequence[Sequence[str]]) -> list[ParseTree]:
        """One tree per sentence, rooted in ``TOP``; its leaves are the given tokens
        (``to_string()`` writes them PTB-escaped)."""
        checked = [self._check(i, s) for i, s in enumerate(sentences)]
        out: list[Optional[ParseTree]] = [None] * len(checked)
        # Length-sorted batches pad little; results go back in input order.
        order = sorted(range(len(checked)), key=lambda i: len(checked[i]))
        pending = []
        for i in order:
            n = len(checked[i])
            if (n > self.max_length or (self.piece_words and n > self.piece_words)
                    or self._n_subwords(checked[i]) > self._max_subwords):
                out[i] = self._parse_long(i, checked[i])
            else:
                pending.append(i)
        for b in range(0, len(pending), self.batch_size):
            ids = pending[b : b + self.batch_size]
            # The sentences at fault raise E102, once the others of their batch are parsed.
            trees = one_by_one(ids, lambda batch: self._parse_batch([checked[i] for i in batch]),
                               lambda i, e: self._unparsable(i, checked[i], e))
            for i, t in zip(ids, trees):
                out[i] = t
        return out  # type: ignore[return-value]

    @staticmethod
    def _check(index: int, sentence) -> list[str]:
        if isinstance(sentence, str):
            raise ParseError(Errors.E104.format(index=index, token=sentence[:40]) +
                             " (got a str, expected a list of tokens)")
        toks = list(sentence)
        if not toks:
            raise ParseError(Errors.E103.format(index=index))
        for t in toks:
            if not isinstance(t, str) or not t.strip():
                raise ParseError(Errors.E104.format(index=index, token=t))
        return toks

    def _parse_batch(self, batch: list[list[str]]) -> list[ParseTree]:
        from .fast_span import charts_from_best, span_index

        encoded = [self._encode(t) for t in batch]
        out: list[Optional[ParseTree]] = [None] * len(batch)
        # benepar's sub-batches: similar lengths together, at most subbatch_max_tokens word pieces.
        for ids in subbatches(self._costs(encoded), self.subbatch_max_tokens):
            padded = self._pad([encoded[i] for i in ids])
            lengths = [len(batch[i]) for i in ids]
            left, right = span_index(lengths, padded["valid_token_mask"].shape[1] - 1)
            best, labels, tags = self.network(padded, left, right)
            charts = charts_from_best(best, labels, lengths, self.force_root, self.span_bias)
            for row, (i, n, chart) in enumerate(zip(ids, lengths, charts)):
                out[i] = self._to_tree(*compressed(chart),
                                       tags[row, 1 : n + 1] if tags is not None else None, batch[i])
        return out  # type: ignore[return-value]

    @staticmethod
    def _unparsable(index: int, toks: list[str], e: Exception):
        raise ParseError(Errors.E102.format(index=index, snippet=" ".join(toks)[:80],
                                            reason=f"{type(e).__name__}: {e}")) from e

    def _parse_long(self, index: int, toks: list[str]) -> ParseTree:
        """A sentence too long for the encoder or past the longest the network was trained on:
        parse pieces that fit (:meth:`_pieces`), joined under one S."""
        pieces = [toks[a:b] for a, b in self._pieces(toks, 0, len(toks))]
        tree = ParseTree(["TOP", "S"], [0, 0], [len(toks)] * 2, [-1, 0], [0, 1], list(toks),
                         [1] * len(toks))
        try:
            subs = self._parse_batch(pieces)
        except Exception as e:  # noqa: BLE001
            self._unparsable(index, toks, e)
        offset = 0
        for piece, sub in zip(pieces, subs):
            base = len(tree.labels) - 1  # the piece's TOP becomes the S node
            for node in range(1, len(sub.labels)):
                tree.labels.append(sub.labels[node])
                tree.starts.append(sub.starts[node] + offset)
                tree.ends.append(sub.ends[node] + offset)
                tree.parents.append(1 if sub.parents[node] == 0 else sub.parents[node] + base)
                tree.depths.append(sub.depths[node] + 1)
            for k, parent in enumerate(sub.leaf_parents):
                tree.leaf_parents[offset + k] = 1 if parent == 0 else parent + base
            offset += len(piece)
        return tree

    def _pieces(self, toks: list[str], lo: int, hi: int) -> list[tuple[int, int]]:
        """[lo, hi) cut in two until every piece fits, each cut nearest the middle at a semicolon,
        colon or dash (any of them before a comma), else at a comma, else anywhere, and 5 words
        or more from each end where it can be (the treebanks' sentences of over 60 words, cut so,
        score EVALB F1 0.75; cut in the middle, 0.71)."""
        limit = min(self.max_length, self._max_subwords // 2, self.piece_words or self.max_length)
        if hi - lo <= 1 or (hi - lo <= limit and sum(
                self._model_word(t)[1] for t in toks[lo:hi]) <= self._max_subwords - 2):
            return [(lo, hi)]
        middle = (lo + hi) / 2
        cut = None
        for marks in (_STRONG_CUTS, (",",)):
            at = [i + 1 for i in range(lo + 4, hi - 5) if toks[i] in marks]
            if at:
                cut = min(at, key=lambda i: abs(i - middle))
                break
        cut = cut or (lo + hi) // 2
        return self._pieces(toks, lo, cut) + self._pieces(toks, cut, hi)

    def _to_tree(self, starts, ends, labels, tag_ids, toks: list[str]) -> ParseTree:
        """The compressed output as a ParseTree under ``TOP``, leaves = the caller's tokens.
        A compressed node carries a unary chain (``S::VP``, outermost first) or no label."""
        tags = ([self._tag_from_index[int(i)] for i in tag_ids]
                if tag_ids is not None else ["UNK"] * len(toks))
        tree = ParseTree(["TOP"], [0], [len(toks)], [-1], [0], list(toks), [0] * len(toks))

        def add(label: str, i: int, j: int, parent: int) -> int:
            tree.labels.append(label)
            tree.starts.append(i)
            tree.ends.append(j)
            tree.parents.append(parent)
            tree.depths.append(tree.depths[parent] + 1)
            return len(tree.labels) - 1

        idx = -1

        def visit(parent: int) -> None:
            nonlocal idx
            idx += 1
            i, j = int(starts[idx]), int(ends[idx])
            label = self._label_from_index[int(labels[idx])]
            for sub in label.split("::") if label else ():
                parent = add(sub, i, j, parent)
            if i + 1 >= j:
                tree.leaf_parents[i] = add(tags[i], i, i + 1, parent)
            else:
                while idx + 1 < len(starts) and i <= starts[idx + 1] and ends[idx + 1] <= j:
                    visit(parent)

        visit(0)
        return tree

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, path='{self.path}')"
