"""The sense encoder from the cache, without PyTorch: what a first run leaves for the next process.

When an :class:`~logicparse.senses.features.Encoder` first runs its blocks under ONNX Runtime it
writes a small record into the cache (:mod:`encoder_record`): the exported block files and their sha256, the encoder's
weight fingerprint (which the sense models are checked against), its sizes and its tokenizer file.
The record's name is a digest of the encoder directory's files, the precision asked for
(int8 by default, ``LOGICPARSE_ENCODER_PRECISION``) and the versions that shape the export. A later process finds it and encodes with ``tokenizers`` and ONNX Runtime alone
(:func:`load_light_encoder`): the same block files and the same subwords, so the same vectors,
without importing PyTorch or transformers. No record, a stale one, or a block file whose sha256
does not match gives None: the caller loads the encoder with PyTorch, which writes it again.
Covered: the default encoder and encoder directories (a Hugging Face name goes through PyTorch).
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
from pathlib import Path
from typing import Optional

from ..onnx_export import cpu_threads
from ..resources import file_sha256
from .encoder_record import FORMAT, FileTokenizer, encoder_digest, encoder_folder, record_path
from .features import DEFAULT_ENCODER, ENV, Encoder
from .onnx_encoder import check_precision

logger = logging.getLogger(__name__)


class LightEncoder(Encoder):
    """An :class:`Encoder` from a record: ``tokenizers`` for the subwords, ONNX Runtime for the
    blocks (see the module docstring). Same ``encode`` and ``window``."""

    def __init__(self, record: dict, folder: Path, threads: int):
        from .onnx_encoder import OnnxEncoder

        self.spec, self.name, self.fingerprint = record["spec"], record["name"], record["fingerprint"]
        self.n_layers, self.hidden_size = int(record["n_layers"]), int(record["hidden_size"])
        self.max_length, self.batch_size = int(record["max_length"]), int(record["batch_size"])
        self.device, self.runtime, self._truncated = "cpu", "onnx", {}
        self.tokenizer = FileTokenizer(folder / "tokenizer.json", self.max_length)
        self._onnx = OnnxEncoder(Path(record["blocks"]), int(record["n_layers"]) - 1, threads,
                                 record["precision"])

    def _offsets(self, text: str) -> list:
        return self.tokenizer.offsets(text)

    def _n_special(self) -> int:
        return self.tokenizer.n_special()

    def _tokenize(self, texts: list[str]) -> tuple[dict, list, list]:
        return self.tokenizer.batch(texts)

    def _hidden_states(self, enc: dict, layers) -> dict:
        states = self._onnx(enc["input_ids"], enc["attention_mask"], max(layers))
        return {l: states[l] for l in layers}


def load_light_encoder(spec=DEFAULT_ENCODER, device: str = "cpu") -> Optional[LightEncoder]:
    """The encoder of ``spec`` from its record, or None where there is none to use."""
    runtime = os.environ.get(ENV) or "auto"
    if str(device) != "cpu" or runtime not in ("auto", "onnx"):
        return None
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    folder = encoder_folder(spec)
    precision = check_precision()
    digest = encoder_digest(folder, precision) if folder is not None else None
    if digest is None:
        return None
    try:
        record = json.loads(record_path(digest).read_text())
        blocks = Path(record["blocks"])
        if record.get("format") != FORMAT or record.get("spec") != spec or any(
                file_sha256(blocks / name) != digest_ for name, digest_ in record["sha256"].items()):
            return None
        return LightEncoder(record, folder, cpu_threads())
    except (OSError, ValueError, KeyError, TypeError) as e:
        logger.info("sense encoder: the light record of %s is not used (%s)", folder, e)
        return None
    except Exception as e:  # noqa: BLE001 - a tokenizer or ONNX Runtime failure: PyTorch's path
        logger.warning("sense encoder: the cached blocks are not used (%s: %s)", type(e).__name__, e)
        return None
