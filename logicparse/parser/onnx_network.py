"""The parser's network under ONNX Runtime on a CPU, exported from the loaded model at first use.

The export is the same computation as :func:`fast_span.best_spans` traced by
``torch.onnx.export`` into two files: ``network.onnx`` (encoder, benepar's partitioned transformer,
the tag scorer and the fenceposts' projection: :func:`fast_span.fenceposts`) and ``spans.onnx``
(the rest of the span scorer: :func:`fast_span.span_labels`). Spans are scored
``SPAN_CHUNK`` at a time: a batch of sentences has tens of thousands of spans, and scored at once
their intermediate arrays held about 200 MB of a worker's peak memory. Each span is scored on its
own, so the chunks change no number. Both files are cached as ``logicparse.onnx_export`` says
(under a key made of the weights, the configuration and the exporting versions; sha256 checked
at every load). Right after an export the two runtimes are run on the same sentences and the
files are kept only if they agree.

In int8 (the default; ``precision="fp32"`` for the trained weights) the weights of the exported
file's matrix products are quantized by ONNX Runtime's dynamic quantization, one scale per output
channel, and its activations one scale per token (:mod:`int8`), into a file cached beside it
under its own key. (One activation scale per batch, ONNX Runtime's own, made a sentence's tree
depend on the sentences parsed beside it; per tensor lost 1 point of WSJ F1.) The int8 file is kept
only if it labels the check sentences' candidate constituents as the float32 file does;
otherwise, with a warning, the float32 file runs.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
from pathlib import Path

import numpy as np

from ..onnx_export import cache_dir, cached_files, session
from .int8 import quantize, tagged

logger = logging.getLogger(__name__)
EXPORT_VERSION = 2  # bump when the exported graphs change
SPAN_CHUNK = 8192  # spans per call of spans.onnx
QUANTIZE_VERSION = 3  # bump when the quantization settings change
# The int8 file must label this share of the check sentences' candidate constituents (spans
# float32 scores above zero) as float32 does; a broken quantization disagrees on most of them.
INT8_AGREEMENT = 0.97
_INPUTS = ("input_ids", "attention_mask", "words_from_tokens", "valid_token_mask")
_CHECK = [["The", "committee", "said", "that", "the", "plan", "failed", "."], ["Yes", "!"],
          ["We", "shall", "not", "fail", "or", "falter", ";", "we", "shall", "not", "weaken", "."]]


def supported(chart_parser) -> bool:
    """Models whose network the export covers: a word-piece encoder without a decoder (BERT-like,
    as the bundled model), no character LSTM."""
    return (chart_parser.pretrained_model is not None and chart_parser.char_encoder is None
            and not getattr(chart_parser.pretrained_model.config, "is_encoder_decoder", False))


def model_key(chart_parser) -> str:
    """sha256 of the weights, the configuration and the versions that shape the exported graph."""
    import onnxruntime
    import torch

    h = hashlib.sha256()
    for name, tensor in sorted(chart_parser.state_dict().items()):
        h.update(name.encode())
        # The array's own buffer: tobytes() would copy every weight once more at each start.
        h.update(tensor.detach().cpu().contiguous().numpy().reshape(-1).view(np.uint8))
    h.update(json.dumps({"config": chart_parser.config, "torch": torch.__version__,
                         "onnxruntime": onnxruntime.__version__, "export": EXPORT_VERSION},
                        sort_keys=True, default=str).encode())
    return h.hexdigest()


class OnnxNetwork:
    """:func:`fast_span.best_spans` under ONNX Runtime (same inputs and outputs as
    :class:`fast_span.TorchNetwork`)."""

    name = "onnxruntime"

    def __init__(self, chart_parser, encode, threads: int = 1, precision: str = "fp32"):
        self._open(exported_network(chart_parser, encode, precision), chart_parser.f_tag is not None,
                   threads)

    @classmethod
    def from_file(cls, path: Path, tags: bool, threads: int = 1) -> "OnnxNetwork":
        """The network of exported (and checked) files, without the model they came from:
        ``path`` is ``network.onnx`` (or its int8 copy), its spans file beside it."""
        network = cls.__new__(cls)
        network._open(Path(path), tags, threads)
        return network

    def _open(self, path: Path, tags: bool, threads: int) -> None:
        self.path, self.spans_path = path, spans_file(path)
        self.precision = "int8" if path.name == "network.int8.onnx" else "fp32"
        self.session = session(path, threads)
        self.spans = session(self.spans_path, threads)
        self._tags = tags

    def __call__(self, batch: dict, left: np.ndarray, right: np.ndarray):
        best, labels, tags = run_files(self.session, self.spans, batch, left, right)
        return best, labels, tags if self._tags else None


def spans_file(network: Path) -> Path:
    """The spans file beside a network file (``spans.onnx``, ``spans.int8.onnx``)."""
    return network.with_name(network.name.replace("network", "spans", 1))


def run_files(network, spans, batch: dict, left: np.ndarray, right: np.ndarray):
    """(best score, label id) of each span and the tag ids, from the two sessions; the spans
    ``SPAN_CHUNK`` at a time."""
    flat, tags = network.run(None, {name: np.asarray(batch[name]) for name in _INPUTS})
    out = [spans.run(None, {"fenceposts": flat, "left": left[a:a + SPAN_CHUNK],
                            "right": right[a:a + SPAN_CHUNK]})
           for a in range(0, len(left), SPAN_CHUNK)]
    return (np.concatenate([b for b, _ in out]), np.concatenate([l for _, l in out]), tags)


NAMES = ["network.onnx", "spans.onnx"]
INT8_NAMES = ["network.int8.onnx", "spans.int8.onnx"]


def exported_network(chart_parser, encode, precision: str = "fp32") -> Path:
    """The network file of this model in the cache (its spans file beside it), exported (and
    checked) if missing or if a sha256 does not match the one written beside it; in int8, the
    quantized copies (the float32 files when quantizing fails or its check does not pass, with a
    warning)."""
    key = model_key(chart_parser)[:32]

    def build(tmp: Path) -> None:
        export(chart_parser, encode, tmp)
        check(chart_parser, encode, tmp / NAMES[0])

    fp32 = cached_files(cache_dir() / "onnx" / key, NAMES, build) / NAMES[0]
    if precision == "fp32":
        return fp32

    def build_int8(tmp: Path) -> None:
        for src, dst in zip(NAMES, INT8_NAMES):
            quantize(fp32.with_name(src), tmp / dst)
        agreement = label_agreement(chart_parser, encode, fp32, tmp / INT8_NAMES[0])
        if agreement < INT8_AGREEMENT:
            raise RuntimeError(f"its labels agree with float32 on {agreement:.1%} of the check "
                               f"sentences' constituents (at least {INT8_AGREEMENT:.0%} needed)")

    try:
        folder = cached_files(cache_dir() / "onnx" / f"{key}-int8-{tagged(QUANTIZE_VERSION)}",
                              INT8_NAMES, build_int8)
    except Exception as e:  # noqa: BLE001 - the float32 files always work
        logger.warning("parser: the int8 network is not used (%s: %s); running float32",
                       type(e).__name__, e)
        return fp32
    return folder / INT8_NAMES[0]


def _batch(chart_parser, encode, sentences):
    from .fast_span import span_index

    padded = chart_parser.pad_encoded([encode(s) for s in sentences])
    left, right = span_index([len(s) for s in sentences], padded["valid_token_mask"].shape[1] - 1)
    return padded, left, right


def export(chart_parser, encode, folder: Path) -> None:
    """Trace :func:`fast_span.fenceposts` and :func:`fast_span.span_labels` on a small batch into
    ``folder`` (:data:`NAMES`; batch, word-piece, word, fencepost and span counts left dynamic)."""
    import warnings

    import torch

    from .fast_span import fenceposts, span_labels

    class Network(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.parser = chart_parser

        def forward(self, input_ids, attention_mask, words_from_tokens, valid_token_mask):
            return fenceposts(self.parser, {
                "input_ids": input_ids, "attention_mask": attention_mask,
                "words_from_tokens": words_from_tokens, "valid_token_mask": valid_token_mask})

    class Spans(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.parser = chart_parser

        def forward(self, flat, left, right):
            return span_labels(self.parser, flat, left, right)

    padded, left, right = _batch(chart_parser, encode, _CHECK)
    args = tuple(torch.as_tensor(padded[name]) for name in _INPUTS)
    axes = {"input_ids": {0: "batch", 1: "pieces"}, "attention_mask": {0: "batch", 1: "pieces"},
            "words_from_tokens": {0: "batch", 1: "words"},
            "valid_token_mask": {0: "batch", 1: "words"}, "fenceposts": {0: "rows"},
            "tags": {0: "batch", 1: "words"}}
    span_axes = {"fenceposts": {0: "rows"}, "left": {0: "spans"}, "right": {0: "spans"},
                 "best": {0: "spans"}, "label": {0: "spans"}}
    with torch.no_grad(), _traceable_attention(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notices about Python values, expected here
        torch.onnx.export(Network().eval(), args, str(folder / NAMES[0]), dynamo=False,
                          opset_version=17, input_names=list(_INPUTS),
                          output_names=["fenceposts", "tags"], dynamic_axes=axes)
        flat, _ = Network()(*args)
        torch.onnx.export(Spans().eval(), (flat, torch.from_numpy(left), torch.from_numpy(right)),
                          str(folder / NAMES[1]), dynamo=False, opset_version=17,
                          input_names=["fenceposts", "left", "right"],
                          output_names=["best", "label"], dynamic_axes=span_axes)


def _sessions(path: Path):
    import onnxruntime as ort

    return tuple(ort.InferenceSession(str(p), providers=["CPUExecutionProvider"])
                 for p in (path, spans_file(path)))


def check(chart_parser, encode, path: Path) -> None:
    """The exported files must give the PyTorch network's labels on sentences of mixed lengths
    (padding included) and scores within float32 noise; otherwise they are not used."""
    from .fast_span import TorchNetwork

    sentences = _CHECK + [_CHECK[2][:5], _CHECK[0] + _CHECK[2]]
    padded, left, right = _batch(chart_parser, encode, sentences)
    want = TorchNetwork(chart_parser)(padded, left, right)
    got = run_files(*_sessions(path), padded, left, right)
    if not (np.allclose(got[0], want[0], atol=1e-3) and (got[1] == want[1]).all()):
        raise RuntimeError("the exported network's span scores differ from PyTorch's "
                           f"(max difference {float(np.abs(got[0] - want[0]).max()):.3g})")


def label_agreement(chart_parser, encode, fp32: Path, int8: Path) -> float:
    """The share of the check sentences' candidate constituents (spans whose best label float32
    scores above zero) that the two sets of files label alike."""
    sentences = _CHECK + [_CHECK[0] + _CHECK[2]]
    padded, left, right = _batch(chart_parser, encode, sentences)
    (score, want, _), (_, got, _) = (run_files(*_sessions(path), padded, left, right)
                                     for path in (fp32, int8))
    same = want == got
    # An untrained model may score no span above zero: then every span counts.
    return float(same[score > 0].mean() if (score > 0).any() else same.mean())


@contextlib.contextmanager
def _traceable_attention():
    """benepar's partitioned attention masks its scores in place through ``.data``, which the
    tracer does not record (the exported graph would ignore padding); the same function with an
    out-of-place mask while exporting."""
    import torch
    import torch.nn.functional as F
    from benepar import partitioned_transformer as pt

    def forward(self, x, mask=None):
        x_c, x_p = x if isinstance(x, tuple) else torch.chunk(x, 2, dim=-1)
        qkv_c = torch.einsum("btf,hfca->bhtca", x_c, self.w_qkv_c)
        qkv_p = torch.einsum("btf,hfca->bhtca", x_p, self.w_qkv_p)
        q_c, k_c, v_c = [c.squeeze(dim=3) for c in torch.chunk(qkv_c, 3, dim=3)]
        q_p, k_p, v_p = [c.squeeze(dim=3) for c in torch.chunk(qkv_p, 3, dim=3)]
        q = torch.cat([q_c, q_p], dim=-1) * self.scaling_factor
        k = torch.cat([k_c, k_p], dim=-1)
        v = torch.cat([v_c, v_p], dim=-1)
        dots = torch.einsum("bhqa,bhka->bhqk", q, k)
        if mask is not None:
            dots = dots.masked_fill(~mask[:, None, None, :], -float("inf"))
        probs = self.dropout(F.softmax(dots, dim=-1))
        o = torch.einsum("bhqk,bhka->bhqa", probs, v)
        o_c, o_p = torch.chunk(o, 2, dim=-1)
        return (torch.einsum("bhta,haf->btf", o_c, self.w_o_c),
                torch.einsum("bhta,haf->btf", o_p, self.w_o_p))

    original = pt.PartitionedMultiHeadAttention.forward
    pt.PartitionedMultiHeadAttention.forward = forward
    try:
        yield
    finally:
        pt.PartitionedMultiHeadAttention.forward = original
