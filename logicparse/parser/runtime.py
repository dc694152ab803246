"""What runs the parser's network at inference: PyTorch (:class:`fast_span.TorchNetwork`), or
ONNX Runtime on a CPU (:mod:`onnx_network`).

Both take a padded benepar batch and the flat span indices of :func:`fast_span.span_index` and
return numpy arrays: each span's best label score and label id, and each word's tag id.
"""

from __future__ import annotations

import torch

from ..onnx_export import choose_runtime
from .fast_span import TorchNetwork

ENV = "LOGICPARSE_PARSER_RUNTIME"


def release_freed_memory() -> None:
    """Hand the heap's free pages back to the system (glibc only; elsewhere nothing happens).
    Loading a model frees ~90 MB of temporaries, and the released PyTorch weights, inside glibc's
    heap, where they would stay counted in every worker's resident memory."""
    import ctypes
    import ctypes.util

    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, musl, Windows)
        pass


def choose_network(chart_parser, encode, device, runtime=None):
    """``runtime``: "torch", "onnx" (ONNX Runtime, CPU only) or "auto" (the default, also from
    ``LOGICPARSE_PARSER_RUNTIME``): ONNX Runtime on a CPU when it is installed and the model's
    network exports, PyTorch otherwise (a GPU, another kind of model, a failed export)."""
    def build():
        from . import onnx_network

        if not onnx_network.supported(chart_parser):
            raise RuntimeError("its encoder is not a word-piece encoder the export covers")
        return onnx_network.OnnxNetwork(chart_parser, encode, threads=torch.get_num_threads())

    return choose_runtime(runtime, ENV, device, "parser", build) or TorchNetwork(chart_parser)
