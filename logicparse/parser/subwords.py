"""Words to the encoder's subwords, as benepar's retokenizer does it, without PyTorch.

benepar feeds its encoder the sentence's words joined by the spaces a treebank implies, tokenized
by the encoder's fast tokenizer, and reads each word at the *last* subword that overlaps it
(``benepar.retokenization``); its ``Retokenizer`` and padding run through transformers and return
PyTorch tensors. :class:`Subwords` computes the same ids, masks and indices from the tokenizer's
own ``tokenizer.json`` (the ``tokenizers`` library that transformers' fast tokenizers wrap) into
numpy arrays, so a process that runs the network under ONNX Runtime never imports PyTorch or
transformers. Covered: encoders whose tokenizer adds one start and one stop token (BERT-like, as
the bundled model); others go through benepar (``Subwords.of`` returns None).

benepar's pure-Python helpers (where spaces fall between treebank words, how sentences are split
into sub-batches) are loaded from its installed files without running its ``__init__``, which
imports PyTorch, transformers and nltk: the same code, so the same batches and the same trees.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from typing import Optional

import numpy as np

IGNORE = -100  # benepar's index for "no subword" (padding of ``words_from_tokens``)


@lru_cache(maxsize=None)
def benepar_module(name: str):
    """``benepar.<name>`` for one of its modules that import nothing heavy (``ptb_unescape``,
    ``subbatching``), loaded from its file without the package's ``__init__``."""
    if f"benepar.{name}" in sys.modules:  # benepar already imported: the same module
        return sys.modules[f"benepar.{name}"]
    package = importlib.util.find_spec("benepar")
    if package is None or not package.submodule_search_locations:
        raise ImportError("benepar is not installed: pip install benepar")
    path = Path(list(package.submodule_search_locations)[0]) / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"logicparse._benepar_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def subbatches(costs, max_cost: int):
    """The index lists of benepar's ``subbatching.split``: similar costs together, each list's
    size times its largest cost at most ``max_cost`` (a costlier item alone)."""
    for ids, _ in benepar_module("subbatching").split(list(range(len(costs))), costs=costs,
                                                      max_cost=max_cost):
        yield ids


class Subwords:
    """A fast tokenizer's ``tokenizer.json`` used as benepar's retokenizer (BERT-like layout: one
    start token, the subwords, one stop token)."""

    def __init__(self, tokenizer_file: Path):
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        # transformers applies neither when called without truncation or padding arguments.
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        specials = self.tokenizer.post_processor
        probe = self.tokenizer.encode("a")
        real = [i for i, (s, e) in enumerate(probe.offsets) if e > s]
        if specials is None or real != [1] or len(probe.ids) != 3:
            raise ValueError("its tokenizer does not add exactly one start and one stop token")
        self.pad_id = self._pad_id()

    def _pad_id(self) -> int:
        for token in ("[PAD]", "<pad>"):
            i = self.tokenizer.token_to_id(token)
            if i is not None:
                return i
        raise ValueError("its tokenizer has no padding token")

    @classmethod
    def of(cls, folder: Path) -> Optional["Subwords"]:
        """The retokenizer of the model in ``folder``, or None where its tokenizer is not covered
        (no ``tokenizer.json``, another layout of special tokens)."""
        path = Path(folder) / "tokenizer.json"
        if not path.is_file():
            return None
        try:
            return cls(path)
        except Exception:  # noqa: BLE001 - benepar's own path covers the rest
            return None

    def count(self, word: str) -> int:
        """Subwords of one word (no special tokens)."""
        return len(self.tokenizer.encode(word, add_special_tokens=False).ids)

    def encode(self, words: list[str], space_after: list[bool]) -> dict:
        """``benepar.retokenization.retokenize`` with ``retain_start_stop``: input ids, attention
        mask, and for each word (between the start and stop tokens' slots) its last subword."""
        text = "".join(w + (" " if sp else "") for w, sp in zip(words, space_after))
        starts = np.cumsum([0] + [len(w) + (1 if sp else 0)
                                  for w, sp in zip(words, space_after)])[:-1]
        ends = starts + np.asarray([len(w) for w in words])
        enc = self.tokenizer.encode(text)
        spans = iter([(i, (s, e)) for i, (s, e) in enumerate(enc.offsets) if s != e])
        token, (_, token_end) = next(spans)
        last = [IGNORE] * len(words)
        for w, (word_start, word_end) in enumerate(zip(starts, ends)):
            while token_end <= word_start:
                token, (_, token_end) = next(spans)
            if token_end > word_end:
                last[w] = token
            while token_end <= word_end:
                last[w] = token
                try:
                    token, (_, token_end) = next(spans)
                except StopIteration:
                    break
        n = len(enc.ids)
        return {"input_ids": list(enc.ids), "attention_mask": list(enc.attention_mask),
                "words_from_tokens": [0] + last + [n - 1]}

    def pad(self, encoded: list[dict]) -> dict:
        """A batch as benepar pads it (right padding), in numpy int64 arrays, with
        ``valid_token_mask`` (the words' slots)."""
        width = max(len(e["input_ids"]) for e in encoded)
        words = max(len(e["words_from_tokens"]) for e in encoded)
        ids = np.full((len(encoded), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encoded), width), dtype=np.int64)
        last = np.full((len(encoded), words), IGNORE, dtype=np.int64)
        for row, e in enumerate(encoded):
            ids[row, :len(e["input_ids"])] = e["input_ids"]
            mask[row, :len(e["attention_mask"])] = e["attention_mask"]
            last[row, :len(e["words_from_tokens"])] = e["words_from_tokens"]
        return {"input_ids": ids, "attention_mask": mask, "words_from_tokens": last,
                "valid_token_mask": last != IGNORE}
