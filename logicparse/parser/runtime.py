"""What runs the parser's network at inference: PyTorch, or ONNX Runtime on a CPU.

Both take a padded benepar batch and the flat span indices of :func:`fast_span.span_index` and
return numpy arrays: each span's best label score and label id, and each word's tag id.
"""

from __future__ import annotations

import logging
import os

import numpy as np
import torch

from ..resources import one_torch_thread_in_forked_children
from .fast_span import best_spans

logger = logging.getLogger(__name__)


class TorchNetwork:
    """benepar's own modules (any device; the path on a GPU and the fallback)."""

    name = "torch"

    def __init__(self, chart_parser):
        self.chart_parser = chart_parser
        one_torch_thread_in_forked_children()

    def __call__(self, batch: dict, left: np.ndarray, right: np.ndarray):
        device = self.chart_parser.output_device
        one_torch_thread_in_forked_children()
        with torch.inference_mode():
            best, labels, tags = best_spans(self.chart_parser, batch,
                                            torch.from_numpy(left).to(device),
                                            torch.from_numpy(right).to(device))
        tags = tags.cpu().numpy() if self.chart_parser.f_tag is not None else None
        return best.float().cpu().numpy(), labels.cpu().numpy(), tags


RUNTIMES = ("auto", "onnx", "torch")


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
    from ..errors import Errors, ModelLoadError

    runtime = runtime or os.environ.get("LOGICPARSE_PARSER_RUNTIME") or "auto"
    if runtime not in RUNTIMES:
        raise ModelLoadError(Errors.E106.format(runtime=runtime, options=", ".join(RUNTIMES)))
    if runtime == "torch" or torch.device(device).type != "cpu":
        return TorchNetwork(chart_parser)
    from . import onnx_network

    try:
        if not onnx_network.supported(chart_parser):
            raise RuntimeError("its encoder is not a word-piece encoder the export covers")
        return onnx_network.OnnxNetwork(chart_parser, encode, threads=torch.get_num_threads())
    except Exception as e:  # noqa: BLE001 - any failure leaves the PyTorch path, which always works
        if runtime == "onnx":
            raise ModelLoadError(Errors.E107.format(reason=f"{type(e).__name__}: {e}")) from e
        logger.warning("parser: ONNX Runtime not used (%s: %s); running the network in PyTorch",
                       type(e).__name__, e)
        return TorchNetwork(chart_parser)
