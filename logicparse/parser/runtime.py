"""What runs the parser's network at inference: PyTorch (:class:`fast_span.TorchNetwork`), or
ONNX Runtime on a CPU (:mod:`onnx_network`), there in int8 (the default) or float32.

Both take a padded batch (numpy arrays from :mod:`subwords`, or benepar's tensors) and the flat
span indices of :func:`fast_span.span_index` and return numpy arrays: each span's best label score
and label id, and each word's tag id.
"""

from __future__ import annotations

ENV = "LOGICPARSE_PARSER_RUNTIME"
PRECISION_ENV = "LOGICPARSE_PARSER_PRECISION"


def check_precision(precision=None) -> str:
    """The parser's precision (``onnx_export.PRECISIONS``): the argument, else
    ``LOGICPARSE_PARSER_PRECISION``, else "int8"; E106 naming the choices otherwise."""
    from ..onnx_export import check_precision as check

    return check(precision, PRECISION_ENV, "parser")


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


def choose_network(chart_parser, encode, device, runtime=None, precision=None):
    """``runtime``: "torch", "onnx" (ONNX Runtime, CPU only) or "auto" (the default, also from
    ``LOGICPARSE_PARSER_RUNTIME``): ONNX Runtime on a CPU when it is installed and the model's
    network exports, PyTorch otherwise (a GPU, another kind of model, a failed export).
    ``precision``: what ONNX Runtime runs (:func:`check_precision`)."""
    import torch

    from ..onnx_export import choose_runtime, session_threads
    from .fast_span import TorchNetwork

    precision = check_precision(precision)

    def build():
        from . import onnx_network

        if not onnx_network.supported(chart_parser):
            raise RuntimeError("its encoder is not a word-piece encoder the export covers")
        return onnx_network.OnnxNetwork(chart_parser, encode,
                                        threads=session_threads(torch.get_num_threads()),
                                        precision=precision)

    return choose_runtime(runtime, ENV, device, "parser", build) or TorchNetwork(chart_parser)
