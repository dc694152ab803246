"""The parser from the cache, without PyTorch: what a first load leaves for the next process.

A load of a model under ONNX Runtime (the bundled model, or a model directory whose tokenizer
:mod:`subwords` covers) writes a small record into the cache: the network files it runs and their
sha256, the model's label and tag names and its settings. The record's name is a digest of the
model directory's files, the precision asked for, and the versions that shape the network file.
A later process with the same model finds it and parses with numpy, ``tokenizers`` and ONNX
Runtime alone (:func:`load_light`): the same network file and the same subwords, so the same trees,
without importing PyTorch, transformers, nltk or benepar's package (the imports alone hold about
430 MB of a process's memory). A missing, unreadable or stale record, or a network file whose
sha256 does not match it, gives None: the caller loads the model with PyTorch, which writes the
record again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
from pathlib import Path
from typing import Optional

from ..onnx_export import (cache_dir, cpu_threads, forget_record, record_digest, stamp,
                           write_record)
from ..resources import PARSER_DIR, file_sha256, minilm_path
from .inference import SpanParser
from .runtime import ENV, check_precision, release_freed_memory
from .subwords import Subwords

logger = logging.getLogger(__name__)
FORMAT = 2  # bump when the record's fields change


def model_folder(spec) -> Optional[Path]:
    """The model directory of a parser spec when it names one (the bundled model or a path);
    None for a benepar model name, which the light path does not cover."""
    if spec in (None, "", "default"):
        return PARSER_DIR
    path = Path(os.path.expanduser(str(spec)))
    return path if path.is_dir() else None


def model_digest(folder: Path, precision: str) -> Optional[str]:
    """sha256 of what decides the network files and the subwords: the model's configuration,
    weights and tokenizer files, the encoder package a model may take weights from, the precision
    and the versions. None if a model file is missing."""
    h = hashlib.sha256()
    for name in ("config.json", "benepar_model.bin", "tokenizer.json"):
        f = folder / name
        if not f.is_file():
            return None
        h.update(name.encode() + file_sha256(f).encode())
    try:
        omitted = json.loads((folder / "config.json").read_text()).get("logicparse", {}).get("omitted")
        if omitted:  # weights taken from the installed encoder package: its file's identity
            st = (minilm_path() / "model.safetensors").stat()
            h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
    except (OSError, ValueError, AttributeError):
        return None
    from .int8 import tagged
    from .onnx_network import EXPORT_VERSION, QUANTIZE_VERSION

    return record_digest(h, folder, precision=precision, format=FORMAT, export=EXPORT_VERSION,
                         quantize=tagged(QUANTIZE_VERSION))


def record_path(digest: str) -> Path:
    return cache_dir() / "parser-light" / f"{digest}.json"


def remember(parser, folder: Path, precision: str) -> None:
    """Write the record of a parser just loaded with PyTorch and running ONNX files (with the
    default batch settings), or remove the record if its subwords no longer hold (``subwords``
    None: loading.py checks them against benepar's)."""
    digest = model_digest(folder, precision)
    if digest is None:
        return
    if parser.subwords is None:
        return forget_record(record_path(digest))
    if (parser.batch_size, parser.subbatch_max_tokens) != (SpanParser.batch_size,
                                                           SpanParser.subbatch_max_tokens):
        return
    network = parser.network
    record = {"format": FORMAT, "name": parser.name, "metrics": parser.metrics,
              "network": str(network.path), "network_sha256": stamp(network.path),
              "spans_sha256": stamp(network.spans_path),
              "tags_out": network._tags,
              "labels": parser._label_from_index, "tags": parser._tag_from_index,
              "force_root": bool(parser.force_root), "span_bias": float(parser.span_bias),
              "max_subwords": parser._max_subwords, "max_length": parser.max_length,
              "piece_words": parser.piece_words}
    write_record(record_path(digest), record)


class LightParser(SpanParser):
    """A :class:`SpanParser` built from a record (see the module docstring)."""

    def __init__(self, record: dict, folder: Path, threads: int):
        from .onnx_network import OnnxNetwork

        self._setup(path=folder, name=record["name"], metrics=record["metrics"],
                    network=OnnxNetwork.from_file(Path(record["network"]), record["tags_out"],
                                                  threads),
                    subwords=Subwords(folder / "tokenizer.json"), labels=record["labels"],
                    tags=record["tags"], force_root=record["force_root"],
                    span_bias=record["span_bias"], max_subwords=int(record["max_subwords"]),
                    max_words=int(record["max_length"]), piece_words=record["piece_words"])


def load_light(spec="default", device: str = "cpu", runtime: Optional[str] = None,
               precision: Optional[str] = None) -> Optional[LightParser]:
    """The parser of ``spec`` from its record, or None where there is none to use (another
    device or runtime, a benepar model name, no record, a file that changed)."""
    runtime = runtime or os.environ.get(ENV) or "auto"
    if str(device) != "cpu" or runtime not in ("auto", "onnx"):
        return None
    if importlib.util.find_spec("onnxruntime") is None:
        return None
    folder = model_folder(spec)
    digest = model_digest(folder, check_precision(precision)) if folder is not None else None
    if digest is None:
        return None
    try:
        record = json.loads(record_path(digest).read_text())
        from .onnx_network import spans_file

        network = Path(record["network"])
        if record.get("format") != FORMAT or file_sha256(network) != record["network_sha256"] \
                or file_sha256(spans_file(network)) != record["spans_sha256"]:
            return None
        threads = cpu_threads()
        parser = LightParser(record, folder, threads)
    except (OSError, ValueError, KeyError, TypeError) as e:
        logger.info("parser: the light record of %s is not used (%s)", folder, e)
        return None
    except Exception as e:  # noqa: BLE001 - an ONNX Runtime failure: PyTorch's path still works
        logger.warning("parser: the cached network is not used (%s: %s)", type(e).__name__, e)
        return None
    release_freed_memory()
    return parser
