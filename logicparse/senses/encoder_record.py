"""The record a sense encoder leaves in the cache when its blocks first run under ONNX Runtime,
and where a later process finds it (read by :mod:`light`)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Optional

from ..onnx_export import cache_dir, record_digest, write_record
from ..resources import file_sha256, minilm_path

FORMAT = 1  # bump when the record's fields change
_WEIGHTS = ("model.safetensors", "pytorch_model.bin")


def encoder_folder(spec) -> Optional[Path]:
    """The directory of an encoder spec: the default encoder's, or a directory; None for a Hugging
    Face name (found in its cache by transformers, which the light path does not import)."""
    if spec in (None, "default"):
        return minilm_path()
    path = Path(os.path.expanduser(str(spec)))
    return path if path.is_dir() else None


def encoder_digest(folder: Path) -> Optional[str]:
    """sha256 of the encoder directory's configuration and tokenizer, its weight files' size and
    modification time, and the versions that shape the export; None if a file is missing."""
    from .onnx_encoder import EXPORT_VERSION

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
    return record_digest(h, export=EXPORT_VERSION, format=FORMAT)


def record_path(digest: str) -> Path:
    return cache_dir() / "encoder-light" / f"{digest}.json"


def remember(encoder) -> None:
    """Write the record of an encoder just loaded with PyTorch whose blocks run under ONNX
    Runtime."""
    folder = encoder_folder(encoder.spec)
    digest = encoder_digest(folder) if folder is not None else None
    if digest is None:
        return
    blocks = encoder._onnx
    record = {"format": FORMAT, "spec": encoder.spec, "name": encoder.name,
              "fingerprint": encoder.fingerprint, "n_layers": encoder.n_layers,
              "hidden_size": encoder.hidden_size, "max_length": encoder.max_length,
              "batch_size": encoder.batch_size, "tokenizer": str(folder / "tokenizer.json"),
              "blocks": str(blocks.folder),
              "sha256": {name: file_sha256(blocks.folder / name) for name in blocks._names}}
    write_record(record_path(digest), record)
