"""Word-level logic labels (Document records) -> per-subword ``logic_ids`` for a model.

The annotator labels words (spaCy / treebank tokens); a model sees subwords of its own tokenizer.
The two are matched by character offsets, which every fast tokenizer reports:

* every subword of a word takes the word's labels;
* where the two tokenisations disagree (a subword covering parts of two words, such as BERT's
  ``don`` over spaCy's ``do`` + ``n't``), the subword takes the labels of the word it overlaps most
  (the earlier one on a tie); a subword over no word (whitespace) takes E;
* special and padding tokens take E;
* each token's labels are cut to the K shallowest (they come first in ``Document.logic``) or
  padded with E to K.

The aligner tokenizes the documents' own text (``Document.text``, or the tokens joined by single
spaces for a Document built from trees), so offsets can never refer to another string.
Every Document is checked before it is aligned: label range, lengths. Shards of Documents are
read with ``logicparse.batch.iter_documents``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Optional, Sequence, Union

import numpy as np
import torch

from ..errors import DataFormatError, Errors, OptionError
from ..taxonomy import LABELS
from ..tokens import Document, Relation

DocLike = Union[Document, dict]
N_LABELS = len(LABELS)


# Who refuses what is not a Document (E517), and how it is called instead.
_ALIGNER = {"call": "The aligner",
            "how": "Pass one per text: aligner(docs) or aligner(docs, pair_docs=...)"}
_JOIN = {"call": "join_documents()",
         "how": "Call it as join_documents(doc1, doc2, ...) or join_documents([doc1, doc2, ...])"}


def as_document(doc: DocLike, refused_by: dict = _ALIGNER) -> Document:
    if not isinstance(doc, (Document, dict)):
        raise DataFormatError(Errors.E517.format(got=f"a {type(doc).__name__}", **refused_by))
    if isinstance(doc, Document):
        return doc
    if any(hasattr(v, "tolist") for v in doc.values()):
        # a dataset in torch or numpy format (with_format("torch")) gives its lists as tensors
        doc = _plain(doc)
    return Document.from_dict(doc)


def _plain(value):
    """A record as lists and dicts, its tensors and arrays as lists."""
    if isinstance(value, Mapping):
        return {key: _plain(v) for key, v in value.items()}
    if isinstance(value, (list, tuple)):
        if not value or isinstance(value[0], (int, float, str)):  # a column's lists: one type
            return value
        return [_plain(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        plain = value.tolist()  # an array of objects (numpy's relations) holds arrays still
        return _plain(plain) if isinstance(plain, (list, Mapping)) else plain
    return value


def document_text(doc: Document) -> str:
    """The string the token offsets index."""
    return doc.text if doc.text else " ".join(doc.tokens)


def _check_types(doc: Document, where: str) -> None:
    def bad(field: str, what: str, want: str):
        return DataFormatError(Errors.E535.format(where=where, id=doc.id, field=field, what=what,
                                                  want=want))

    if not isinstance(doc.text, (str, type(None))):
        raise bad("text", f"a {type(doc.text).__name__}", "a str")
    for field in ("tokens", "token_starts", "token_ends", "logic"):
        value = getattr(doc, field)
        if not isinstance(value, (list, tuple)):
            raise bad(field, f"{value!r:.40}, a {type(value).__name__}", "a list, one per token")
    for field in ("token_starts", "token_ends"):
        for value in getattr(doc, field):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise bad(field, f"the value {value!r:.40}", "a list of integers")
    for t, row in enumerate(doc.logic):
        if not isinstance(row, (list, tuple, np.ndarray)):
            raise bad("logic", f"row {t} = {row!r:.40}", "a list of label-id lists, one per token")
        for value in row:
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool):
                raise bad("logic", f"the label id {value!r:.40} in row {t}", "integer ids 0-34")


def _check_offsets(doc: Document, where: str) -> None:
    n = len(document_text(doc))
    # Python ints, not int64: an offset past 2**63 is refused (E534), not an OverflowError.
    starts = np.asarray(doc.token_starts, dtype=object)
    ends = np.asarray(doc.token_ends, dtype=object)
    bad = np.nonzero((starts < 0) | (ends < starts) | (ends > n))[0]
    if bad.size:
        t = int(bad[0])
        what = ("negative, before" if starts[t] < 0 else "reversed, in" if ends[t] < starts[t]
                else "past the end of")
        raise DataFormatError(Errors.E534.format(
            where=where, id=doc.id, index=t, token=doc.tokens[t], start=int(starts[t]),
            end=int(ends[t]), what=what, n=n))


def check_document(doc: Document, where: str = "document") -> Document:
    """Raise a clear error for a record the aligner would silently misread: fields of the wrong
    type, lengths that differ, label ids out of range, offsets outside the text."""
    _check_types(doc, where)
    n = len(doc.tokens)
    if not (len(doc.logic) == len(doc.token_starts) == len(doc.token_ends) == n):
        raise DataFormatError(Errors.E515.format(
            where=where, id=doc.id, n_logic=len(doc.logic), n_tokens=n,
            n_starts=len(doc.token_starts), n_ends=len(doc.token_ends)))
    for row in doc.logic:
        for value in row:
            if not 0 <= int(value) < N_LABELS:
                raise DataFormatError(Errors.E511.format(where=f"{where} {doc.id!r}", value=value))
    _check_offsets(doc, where)
    return doc


def label_matrix(doc: Document, k: int) -> np.ndarray:
    """[n_tokens, k] label ids: the k shallowest labels of each token, E-padded."""
    out = np.zeros((len(doc.logic), k), dtype=np.int64)
    for i, row in enumerate(doc.logic):
        row = row[:k]
        out[i, :len(row)] = row
    return out


def join_documents(*docs: Union[DocLike, Sequence[DocLike]], sep: str = " ", id: str = ""
                   ) -> Document:
    """One Document for texts that a model reads as one segment (a question and an answer
    option): texts joined by ``sep``, offsets, sentences and relation spans shifted.

    ``join_documents(q, o)`` and ``join_documents([q, o])`` are the same; each may be a Document
    or its dict. ``sep`` and ``id`` are keyword-only."""
    if len(docs) == 1 and not isinstance(docs[0], (Document, dict, str, bytes)):
        try:
            docs = tuple(docs[0])
        except TypeError:
            pass
    if not docs:
        raise DataFormatError(Errors.E517.format(got="no document", **_JOIN))
    docs = [as_document(d, _JOIN) for d in docs]
    out = Document(id=id, text="")
    texts, pos, tok = [], 0, 0
    for i, d in enumerate(docs):
        if i:
            pos += len(sep)
        text = document_text(d)
        texts.append(text)
        out.tokens += d.tokens
        out.token_starts += [s + pos for s in d.token_starts]
        out.token_ends += [e + pos for e in d.token_ends]
        out.sentence_starts += [s + tok for s in d.sentence_starts]
        out.logic += [list(r) for r in d.logic]
        shift = lambda span: [[a + tok, b + tok] for a, b in span]  # noqa: E731
        sent = len(out.sentence_starts) - len(d.sentence_starts)
        out.relations += [Relation(**{**r.to_dict(), "key": shift(r.key), "alpha": shift(r.alpha),
                                      "beta": shift(r.beta), "sentence": r.sentence + sent})
                          for r in d.relations]
        pos += len(text)
        tok += len(d.tokens)
    out.text = sep.join(texts)
    return out


def _char_to_token(doc: Document, n_chars: int) -> np.ndarray:
    index = np.full(n_chars + 1, -1, dtype=np.int64)
    for t, (s, e) in enumerate(zip(doc.token_starts, doc.token_ends)):
        index[max(s, 0):min(e, n_chars)] = t
    return index


def subword_words(doc: Document, offsets: np.ndarray, n_chars: Optional[int] = None) -> np.ndarray:
    """For subwords with character ``offsets`` [S, 2] into the document's text, the index of the
    word each takes its labels from (-1: none, E)."""
    n_chars = len(document_text(doc)) if n_chars is None else n_chars
    index = _char_to_token(doc, n_chars)
    starts = np.clip(offsets[:, 0], 0, n_chars)
    ends = np.clip(offsets[:, 1], 0, n_chars)
    first, last = index[starts], index[np.maximum(ends - 1, 0)]
    words = np.where((ends > starts) & (first == last), first, -1)
    # Subwords whose first and last characters fall in different words, or in gaps (which may
    # hold a word between them, as " b " does): most overlap.
    for i in np.nonzero((ends > starts) & ((first != last) | (first < 0)))[0]:
        covered = index[starts[i]:ends[i]]
        covered = covered[covered >= 0]
        if covered.size:
            lo = covered.min()
            words[i] = lo + int(np.bincount(covered - lo).argmax())
    return words


class LogicAligner:
    """Tokenize documents (single texts or pairs) and attach ``logic_ids`` [batch, seq, K].

    >>> aligner = LogicAligner(tokenizer, k=3, max_length=512)
    >>> batch = aligner(contexts, pair_docs=answers)   # input_ids, attention_mask, logic_ids, ...
    >>> model(**batch)                                  # a logicalized model

    ``truncation`` follows the tokenizer's argument (``"only_first"`` keeps the whole second
    segment, as multiple-choice inputs want); labels are aligned after truncation, so they always
    match the ids the model sees.
    """

    def __init__(self, tokenizer, k: int = 3, max_length: Optional[int] = None,
                 truncation: Union[bool, str] = True, padding: Union[bool, str] = "longest"):
        if not getattr(tokenizer, "is_fast", False):
            raise DataFormatError(Errors.E510.format(name=type(tokenizer).__name__))
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:  # the model would refuse it later
            raise OptionError(Errors.E506.format(what="k (label layers)", name=k, opts="1 or more"))
        self.tokenizer, self.k = tokenizer, k
        self.max_length = max_length or min(getattr(tokenizer, "model_max_length", 512), 4096)
        self.truncation, self.padding = truncation, padding

    def __call__(self, docs: Sequence[DocLike], pair_docs: Optional[Sequence[DocLike]] = None,
                 return_tensors: Optional[str] = "pt", **tokenizer_kwargs):
        docs = [check_document(as_document(d)) for d in docs]
        pairs = None if pair_docs is None else [check_document(as_document(d)) for d in pair_docs]
        texts = [document_text(d) for d in docs]
        pair_texts = None if pairs is None else [document_text(d) for d in pairs]
        enc = self.tokenizer(texts, pair_texts, truncation=self.truncation, padding=self.padding,
                             max_length=self.max_length, return_offsets_mapping=True,
                             **tokenizer_kwargs)
        logic = self.align(enc, docs, pairs)
        enc.pop("offset_mapping")
        if return_tensors == "pt":
            out = {k: torch.tensor(v) for k, v in enc.items()}
            out["logic_ids"] = torch.from_numpy(logic)
            return out
        enc["logic_ids"] = logic
        return enc

    def align(self, encoding, docs: Sequence[Document], pair_docs: Optional[Sequence[Document]] = None
              ) -> np.ndarray:
        """logic_ids [batch, seq, K] for an encoding made with ``return_offsets_mapping=True``."""
        offsets_all = encoding["offset_mapping"]
        seq_len = max((len(o) for o in offsets_all), default=0)
        out = np.zeros((len(offsets_all), seq_len, self.k), dtype=np.int64)
        # With return_overflowing_tokens a long text gives several rows (windows); the tokenizer
        # says whose each row is.
        sample = encoding.get("overflow_to_sample_mapping")
        sample = range(len(offsets_all)) if sample is None else sample
        for b, offsets in enumerate(offsets_all):
            seq_ids = np.array([-1 if s is None else s for s in encoding.sequence_ids(b)])
            offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
            i = int(sample[b])
            for s, doc in ((0, docs[i]), (1, pair_docs[i] if pair_docs is not None else None)):
                where = np.nonzero(seq_ids == s)[0]
                if doc is None or where.size == 0:
                    continue
                words = subword_words(doc, offsets[where])
                labels = label_matrix(doc, self.k)
                hit = words >= 0
                out[b, where[hit]] = labels[words[hit]]
        return out
