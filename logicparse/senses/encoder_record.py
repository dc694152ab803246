"""The record a sense encoder leaves in the cache when its blocks first run under ONNX Runtime,
where a later process finds it (read by :mod:`light`), and the tokenizer it names
(:class:`FileTokenizer`), which must tokenize as the encoder's own for the record to be written."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

import numpy as np

from ..onnx_export import cache_dir, forget_record, record_digest, stamp, write_record
from ..resources import file_sha256, minilm_path

FORMAT = 2  # bump when the record's fields change
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def encoder_folder(spec) -> Optional[Path]:
    """The directory of an encoder spec: the default encoder's, or a directory; None for a Hugging
    Face name (found in its cache by transformers, which the light path does not import)."""
    if spec in (None, "default"):
        return minilm_path()
    path = Path(os.path.expanduser(str(spec)))
    return path if path.is_dir() else None


def encoder_digest(folder: Path, precision: str) -> Optional[str]:
    """sha256 of the encoder directory's configuration and tokenizer, its weight files' size and
    modification time, the precision of its blocks and the versions that shape the export; None
    if a file is missing."""
    from ..parser.int8 import tagged
    from .onnx_encoder import EXPORT_VERSION, QUANTIZE_VERSION

    h = hashlib.sha256()
    for name in ("config.json", "tokenizer.json"):
        if not (folder / name).is_file():
            return None
        h.update(name.encode() + file_sha256(folder / name).encode())
    weights = [folder / name for name in _WEIGHTS if (folder / name).is_file()]
    if not weights:
        return None
    for f in weights:
        st = f.stat()
        h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}".encode())
    return record_digest(h, folder, export=EXPORT_VERSION, format=FORMAT, precision=precision,
                         quantize=tagged(QUANTIZE_VERSION))


def record_path(digest: str) -> Path:
    return cache_dir() / "encoder-light" / f"{digest}.json"


class FileTokenizer:
    """An encoder's ``tokenizer.json`` through the ``tokenizers`` library, called as
    :class:`~logicparse.senses.features.Encoder` calls transformers' fast tokenizer: offsets of
    one text without special tokens, and batches padded to the longest and cut to
    ``max_length``."""

    def __init__(self, path: Path, max_length: int):
        from tokenizers import Tokenizer

        self._plain = Tokenizer.from_file(str(path))
        self._plain.no_truncation()
        self._plain.no_padding()
        self._batched = Tokenizer.from_file(str(path))
        self._batched.enable_truncation(max_length)
        pad = "[PAD]" if self._batched.token_to_id("[PAD]") is not None else "<pad>"
        self._batched.enable_padding(pad_id=self._batched.token_to_id(pad), pad_token=pad)

    def offsets(self, text: str) -> list:
        return self._plain.encode(text, add_special_tokens=False).offsets

    def n_special(self) -> int:
        return self._plain.post_processor.num_special_tokens_to_add(False)

    def batch(self, texts: list[str]) -> tuple[dict, list, list]:
        encs = self._batched.encode_batch(texts)
        enc = {"input_ids": np.array([e.ids for e in encs], dtype=np.int64),
               "attention_mask": np.array([e.attention_mask for e in encs], dtype=np.int64)}
        return enc, [e.offsets for e in encs], [e.special_tokens_mask for e in encs]


# Texts whose subwords a tokenizer's settings change (case, accents, Chinese characters,
# combining marks, length beyond the limit).
_PROBE = ["As the storm grew, we stayed inside.", "Café naïve ÉCOLE 中文字 Ångström x\u0301 \U0001F600",
          "since " * 600, "Yes!"]


def same_tokens(encoder, tokenizer: FileTokenizer) -> bool:
    """Whether ``tokenizer`` gives ``encoder``'s own ids, masks, offsets and special tokens."""
    enc, offsets, special = encoder._tokenize(_PROBE)
    got = tokenizer.batch(_PROBE)
    return (all(np.array_equal(enc[k], got[0][k]) for k in got[0])
            and [[tuple(o) for o in row] for row in offsets] == [[tuple(o) for o in row]
                                                              for row in got[1]]
            and [list(r) for r in special] == [list(r) for r in got[2]]
            and tokenizer.n_special() == encoder._n_special()
            and all(list(map(tuple, encoder._offsets(t))) == list(map(tuple, tokenizer.offsets(t)))
                    for t in _PROBE))


def remember(encoder) -> None:
    """Write the record of an encoder just loaded with PyTorch (with the default length and batch
    size) whose blocks run under ONNX Runtime, if its tokenizer file tokenizes as the encoder does
    (transformers may set up a tokenizer from its config beyond what ``tokenizer.json`` says);
    where it does not, remove the record."""
    folder = encoder_folder(encoder.spec)
    blocks = encoder._onnx
    # Named by the precision asked for: a load asking for int8 finds the record of an int8 run.
    digest = encoder_digest(folder, encoder.precision_asked) if folder is not None else None
    if digest is None or not getattr(encoder, "default_settings", False):
        return
    if not same_tokens(encoder, FileTokenizer(folder / "tokenizer.json", encoder.max_length)):
        return forget_record(record_path(digest))
    record = {"format": FORMAT, "spec": encoder.spec, "name": encoder.name,
              "fingerprint": encoder.fingerprint, "n_layers": encoder.n_layers,
              "hidden_size": encoder.hidden_size, "max_length": encoder.max_length,
              "batch_size": encoder.batch_size, "blocks": str(blocks.folder),
              "precision": blocks.precision,
              "sha256": {name: stamp(blocks.folder / name) for name in blocks._names}}
    write_record(record_path(digest), record)
