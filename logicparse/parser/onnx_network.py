"""The parser's network under ONNX Runtime on a CPU, exported from the loaded model at first use.

The export is the same computation as :func:`fast_span.best_spans` (encoder, benepar's
partitioned transformer, span and tag scorers) traced by ``torch.onnx.export`` and cached as
``logicparse.onnx_export`` says (under a key made of the weights, the configuration and the
exporting versions; sha256 checked at every load). Right after an export the two runtimes are
run on the same sentences and the ONNX file is kept only if they agree.

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

logger = logging.getLogger(__name__)
EXPORT_VERSION = 1  # bump when the exported graph changes
QUANTIZE_VERSION = 3  # bump when the quantization settings change
# The int8 file must label this share of the check sentences' candidate constituents (spans
# float32 scores above zero) as float32 does; a broken quantization disagrees on most of them.
INT8_AGREEMENT = 0.97
_INPUTS = ("input_ids", "attention_mask", "words_from_tokens", "valid_token_mask", "left", "right")
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
        """The network of an exported (and checked) file, without the model it came from."""
        network = cls.__new__(cls)
        network._open(Path(path), tags, threads)
        return network

    def _open(self, path: Path, tags: bool, threads: int) -> None:
        self.path = path
        self.precision = "int8" if path.name == "network.int8.onnx" else "fp32"
        self.session = session(path, threads)
        self._tags = tags

    def __call__(self, batch: dict, left: np.ndarray, right: np.ndarray):
        feed = {name: np.asarray(batch[name]) for name in _INPUTS[:4]}  # numpy or CPU tensors
        feed["left"], feed["right"] = left, right
        best, labels, tags = self.session.run(None, feed)
        return best, labels, tags if self._tags else None


def exported_network(chart_parser, encode, precision: str = "fp32") -> Path:
    """The ONNX file of this model's network in the cache, exported (and checked) if missing or
    if its sha256 does not match the one written beside it; in int8, its quantized copy (the
    float32 file when quantizing fails or its check does not pass, with a warning)."""
    key = model_key(chart_parser)[:32]

    def build(tmp: Path) -> None:
        export(chart_parser, encode, tmp / "network.onnx")
        check(chart_parser, encode, tmp / "network.onnx")

    fp32 = cached_files(cache_dir() / "onnx" / key, ["network.onnx"], build) / "network.onnx"
    if precision == "fp32":
        return fp32

    def build_int8(tmp: Path) -> None:
        quantize(fp32, tmp / "network.int8.onnx")
        agreement = label_agreement(chart_parser, encode, fp32, tmp / "network.int8.onnx")
        if agreement < INT8_AGREEMENT:
            raise RuntimeError(f"its labels agree with float32 on {agreement:.1%} of the check "
                               f"sentences' constituents (at least {INT8_AGREEMENT:.0%} needed)")

    try:
        folder = cached_files(cache_dir() / "onnx" / f"{key}-int8-{QUANTIZE_VERSION}",
                              ["network.int8.onnx"], build_int8)
    except Exception as e:  # noqa: BLE001 - the float32 file always works
        logger.warning("parser: the int8 network is not used (%s: %s); running float32",
                       type(e).__name__, e)
        return fp32
    return folder / "network.int8.onnx"


def quantize(src: Path, dst: Path) -> None:
    """``src``'s matrix-product weights in int8, one scale per output channel (ONNX Runtime's
    dynamic quantization), and its activations one scale per row (:func:`int8.per_row`)."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from .int8 import per_row

    logging.disable(logging.WARNING)  # its advice to pre-process the graph, on the root logger
    try:
        quantize_dynamic(str(src), str(dst), weight_type=QuantType.QInt8, per_channel=True,
                         op_types_to_quantize=["MatMul"])
    finally:
        logging.disable(logging.NOTSET)
    onnx.save(per_row(onnx.load(str(dst))), str(dst))


def _batch(chart_parser, encode, sentences):
    from .fast_span import span_index

    padded = chart_parser.pad_encoded([encode(s) for s in sentences])
    left, right = span_index([len(s) for s in sentences], padded["valid_token_mask"].shape[1] - 1)
    return padded, left, right


def export(chart_parser, encode, path: Path) -> None:
    """Trace :func:`fast_span.best_spans` on a small batch into ``path`` (batch, word-piece,
    word and span counts left dynamic)."""
    import torch

    from .fast_span import best_spans

    class Network(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.parser = chart_parser

        def forward(self, input_ids, attention_mask, words_from_tokens, valid_token_mask, left,
                    right):
            batch = {"input_ids": input_ids, "attention_mask": attention_mask,
                     "words_from_tokens": words_from_tokens, "valid_token_mask": valid_token_mask}
            return best_spans(self.parser, batch, left, right)

    padded, left, right = _batch(chart_parser, encode, _CHECK)
    args = tuple(padded[name] for name in _INPUTS[:4]) + (torch.from_numpy(left),
                                                           torch.from_numpy(right))
    axes = {"input_ids": {0: "batch", 1: "pieces"}, "attention_mask": {0: "batch", 1: "pieces"},
            "words_from_tokens": {0: "batch", 1: "words"},
            "valid_token_mask": {0: "batch", 1: "words"}, "left": {0: "spans"},
            "right": {0: "spans"}, "best": {0: "spans"}, "label": {0: "spans"},
            "tags": {0: "batch", 1: "words"}}
    import warnings

    with torch.no_grad(), _traceable_attention(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notices about Python values, expected here
        torch.onnx.export(Network().eval(), args, str(path), dynamo=False, opset_version=17,
                          input_names=list(_INPUTS), output_names=["best", "label", "tags"],
                          dynamic_axes=axes)


def check(chart_parser, encode, path: Path) -> None:
    """The exported file must give the PyTorch network's labels on sentences of mixed lengths
    (padding included) and scores within float32 noise; otherwise it is not used."""
    import onnxruntime as ort

    from .fast_span import TorchNetwork

    sentences = _CHECK + [_CHECK[2][:5], _CHECK[0] + _CHECK[2]]
    padded, left, right = _batch(chart_parser, encode, sentences)
    want = TorchNetwork(chart_parser)(padded, left, right)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feed = {name: padded[name].numpy() for name in _INPUTS[:4]}
    feed["left"], feed["right"] = left, right
    got = session.run(None, feed)
    if not (np.allclose(got[0], want[0], atol=1e-3) and (got[1] == want[1]).all()):
        raise RuntimeError("the exported network's span scores differ from PyTorch's "
                           f"(max difference {float(np.abs(got[0] - want[0]).max()):.3g})")


def label_agreement(chart_parser, encode, fp32: Path, int8: Path) -> float:
    """The share of the check sentences' candidate constituents (spans whose best label float32
    scores above zero) that the two files label alike."""
    sentences = _CHECK + [_CHECK[0] + _CHECK[2]]
    padded, left, right = _batch(chart_parser, encode, sentences)
    feed = {name: padded[name].numpy() for name in _INPUTS[:4]}
    feed["left"], feed["right"] = left, right
    (score, want, _), (_, got, _) = (session(path).run(None, feed) for path in (fp32, int8))
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
