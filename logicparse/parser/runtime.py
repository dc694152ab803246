"""What runs the parser's network at inference: PyTorch, or ONNX Runtime on a CPU.

Both take a padded benepar batch and the flat span indices of :func:`fast_span.span_index` and
return numpy arrays: each span's best label score and label id, and each word's tag id.
"""

from __future__ import annotations

import numpy as np
import torch

from .fast_span import best_spans


class TorchNetwork:
    """benepar's own modules (any device; the path on a GPU and the fallback)."""

    name = "torch"

    def __init__(self, chart_parser):
        self.chart_parser = chart_parser

    def __call__(self, batch: dict, left: np.ndarray, right: np.ndarray):
        device = self.chart_parser.output_device
        with torch.inference_mode():
            best, labels, tags = best_spans(self.chart_parser, batch,
                                            torch.from_numpy(left).to(device),
                                            torch.from_numpy(right).to(device))
        tags = tags.cpu().numpy() if self.chart_parser.f_tag is not None else None
        return best.float().cpu().numpy(), labels.cpu().numpy(), tags
