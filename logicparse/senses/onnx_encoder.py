"""The sense encoder's blocks under ONNX Runtime on a CPU: the same hidden states, in half the time.

The sense classifiers read one hidden layer of a short window around each keyword; on a CPU most
of a decision's time is that encoder pass. Each block (the embeddings, then each transformer
layer) is exported on its own, so a pass runs only the blocks up to the layer asked for, and the
sessions hold the weights once (not once per depth). The files are cached and checked as
``logicparse.onnx_export`` says; right after an export the chain of blocks is run beside PyTorch
on texts of mixed lengths and kept only if every real token's vector agrees to 1e-3 (float32
noise is about 3e-5).

In int8 (the default; ``precision="fp32"`` or ``LOGICPARSE_ENCODER_PRECISION=fp32`` for the
trained weights) each transformer block's matrix products are quantized as the parser's are
(``parser/int8.py``: weights one scale per output channel, activations one scale per token, so a
keyword's vector does not depend on the texts encoded beside it), into copies cached beside the
float32 blocks; the embeddings block stays float32. The copies are kept only if every real token's
vector at every layer points where float32's does (cosine at least ``INT8_COSINE``) on the check
texts; otherwise float32 runs, with a warning.

Covered: BERT-like encoders whose layers take (hidden states, additive mask), as the default
all-MiniLM-L6-v2; others (ALBERT's shared layer, MPNet's relative position bias) run in PyTorch.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

import numpy as np

from ..onnx_export import cache_dir, cached_files, session

logger = logging.getLogger(__name__)

EXPORT_VERSION = 1  # bump when the exported graphs change
QUANTIZE_VERSION = 1  # bump when the int8 copies change
PRECISION_ENV = "LOGICPARSE_ENCODER_PRECISION"


def check_precision(precision=None) -> str:
    """The encoder's precision (``onnx_export.PRECISIONS``): the argument, else
    ``LOGICPARSE_ENCODER_PRECISION``, else "int8"; E106 naming the choices otherwise."""
    from ..onnx_export import check_precision as check

    return check(precision, PRECISION_ENV, "sense encoder")
# The int8 blocks' least cosine with float32's vectors, any real token of the check texts at any
# layer (all-MiniLM-L6-v2: 0.98; a broken quantization gives far less).
INT8_COSINE = 0.95
MODEL_TYPES = ("bert", "roberta")
_CHECK = ["The committee said that the plan failed as it was too costly.", "Yes!",
          "Since then, we have not failed, while others have."]


def supported(model) -> bool:
    import torch

    blocks = getattr(getattr(model, "encoder", None), "layer", None)
    return (getattr(model.config, "model_type", None) in MODEL_TYPES
            and isinstance(blocks, torch.nn.ModuleList) and hasattr(model, "embeddings"))


def block_files(n_blocks: int) -> list[str]:
    """The exported files: the embeddings, then each transformer layer."""
    return ["embeddings.onnx"] + [f"block{i}.onnx" for i in range(n_blocks)]


def additive_mask(attention_mask: np.ndarray) -> np.ndarray:
    """[batch, 1, 1, tokens]: 0 where a token is attended, float32's minimum where it is padding
    (what the PyTorch model adds to its attention scores)."""
    mask = attention_mask[:, None, None, :].astype(np.float32)
    return (1.0 - mask) * np.finfo(np.float32).min


class OnnxEncoder:
    """Hidden states of a tokenized batch, blocks run under ONNX Runtime (sessions opened as
    first needed)."""

    name = "onnxruntime"

    def __init__(self, folder: Path, n_blocks: int, threads: int = 1, precision: str = "fp32"):
        self.folder = Path(folder)
        self.threads = threads
        self.precision = precision
        self._names = block_files(n_blocks)
        self._sessions: dict[str, object] = {}

    @classmethod
    def of(cls, model, tokenizer, fingerprint: str, threads: int = 1,
           precision: str = "int8") -> "OnnxEncoder":
        """The runner of ``model``'s blocks from the cache (exported and checked first if
        needed), in ``precision`` (float32 where the int8 copies cannot be made or fail their
        check)."""
        folder = exported_blocks(model, tokenizer, fingerprint)
        if precision == "int8":
            try:
                folder = int8_blocks(model, tokenizer, fingerprint, folder)
            except Exception as e:  # noqa: BLE001 - the float32 blocks always work
                logger.warning("sense encoder: the int8 blocks are not used (%s: %s); running "
                               "float32", type(e).__name__, e)
                precision = "fp32"
        return cls(folder, len(model.encoder.layer), threads, precision)

    def _run(self, name: str, feed: dict) -> np.ndarray:
        if name not in self._sessions:
            self._sessions[name] = session(self.folder / name, self.threads)
        return self._sessions[name].run(None, feed)[0]

    def __call__(self, input_ids: np.ndarray, attention_mask: np.ndarray, top: int
                 ) -> list[np.ndarray]:
        """Hidden states 0 (embeddings) to ``top``, each [batch, tokens, hidden]."""
        states = [self._run("embeddings.onnx", {"input_ids": input_ids})]
        mask = additive_mask(attention_mask)
        for name in self._names[1:top + 1]:
            states.append(self._run(name, {"hidden": states[-1], "mask": mask}))
        return states


def model_key(model, fingerprint: str) -> str:
    import onnxruntime
    import torch

    h = hashlib.sha256(fingerprint.encode())
    # Where the weights were loaded from is not part of what they compute.
    config = {k: v for k, v in model.config.to_dict().items() if k != "_name_or_path"}
    h.update(json.dumps({"config": config, "torch": torch.__version__,
                         "onnxruntime": onnxruntime.__version__, "export": EXPORT_VERSION},
                        sort_keys=True, default=str).encode())
    return h.hexdigest()


def exported_blocks(model, tokenizer, fingerprint: str) -> Path:
    """The folder of this encoder's exported blocks in the cache, exported and checked first if
    one is missing or does not match its sha256."""
    def build(tmp: Path) -> None:
        export(model, tmp)
        check(model, tokenizer, tmp)

    return cached_files(cache_dir() / "onnx-encoder" / model_key(model, fingerprint)[:32],
                        block_files(len(model.encoder.layer)), build)


def int8_blocks(model, tokenizer, fingerprint: str, fp32: Path) -> Path:
    """The folder of the int8 copies of ``fp32``'s blocks (the embeddings copied as they are),
    quantized and checked first if one is missing or does not match its sha256."""
    import shutil

    from ..parser.int8 import quantize, tagged

    names = block_files(len(model.encoder.layer))

    def build(tmp: Path) -> None:
        shutil.copyfile(fp32 / names[0], tmp / names[0])
        for name in names[1:]:
            quantize(fp32 / name, tmp / name)
        worst = least_cosine(model, tokenizer, fp32, tmp)
        if not worst >= INT8_COSINE:
            raise RuntimeError(f"its vectors' least cosine with float32's is {worst:.3f} "
                               f"(at least {INT8_COSINE} needed)")

    key = model_key(model, fingerprint)[:32]
    return cached_files(cache_dir() / "onnx-encoder" / f"{key}-int8-{tagged(QUANTIZE_VERSION)}",
                        names, build)


def least_cosine(model, tokenizer, fp32: Path, int8: Path) -> float:
    """The least cosine between the two folders' vectors, over the real tokens of the check texts
    at every layer."""
    enc = tokenizer(_CHECK, padding=True, return_tensors="np")
    n = len(model.encoder.layer)
    want = OnnxEncoder(fp32, n)(enc["input_ids"], enc["attention_mask"], n)
    got = OnnxEncoder(int8, n)(enc["input_ids"], enc["attention_mask"], n)
    real = enc["attention_mask"].astype(bool)
    cosines = [np.sum(g[real] * w[real], -1)
               / (np.linalg.norm(g[real], axis=-1) * np.linalg.norm(w[real], axis=-1) + 1e-12)
               for g, w in zip(got[1:], want[1:])]
    return float(min(c.min() for c in cosines))


def export(model, folder: Path) -> None:
    """Each block traced on a small batch (batch and token counts left dynamic)."""
    import warnings

    import torch

    class _Block(torch.nn.Module):
        def __init__(self, layer):
            super().__init__()
            self.layer = layer

        def forward(self, hidden, mask):
            return self.layer(hidden, attention_mask=mask)[0]

    class _Embeddings(torch.nn.Module):
        def __init__(self, embeddings):
            super().__init__()
            self.embeddings = embeddings

        def forward(self, input_ids):
            # One text per row: token types are all 0, as the tokenizer gives them.
            return self.embeddings(input_ids=input_ids)

    ids = torch.tensor([[101, 1996, 2001, 102], [101, 2748, 102, 0]])
    ids = ids.clamp(max=model.config.vocab_size - 1)
    mask = torch.from_numpy(additive_mask(np.array([[1, 1, 1, 1], [1, 1, 1, 0]])))
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer notices about Python values, expected here
        hidden = model.embeddings(input_ids=ids)
        torch.onnx.export(_Embeddings(model.embeddings).eval(), (ids,),
                          str(folder / "embeddings.onnx"), dynamo=False, opset_version=17,
                          input_names=["input_ids"], output_names=["hidden"],
                          dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                        "hidden": {0: "batch", 1: "tokens"}})
        for i, layer in enumerate(model.encoder.layer):
            torch.onnx.export(_Block(layer).eval(), (hidden, mask), str(folder / f"block{i}.onnx"),
                              dynamo=False, opset_version=17, input_names=["hidden", "mask"],
                              output_names=["out"],
                              dynamic_axes={"hidden": {0: "batch", 1: "tokens"},
                                            "mask": {0: "batch", 3: "tokens"},
                                            "out": {0: "batch", 1: "tokens"}})


def check(model, tokenizer, folder: Path) -> None:
    """The chain of exported blocks must give PyTorch's hidden states (every layer, real tokens
    only) on texts of mixed lengths; otherwise it is not used."""
    import torch

    enc = tokenizer(_CHECK, padding=True, return_tensors="pt")
    with torch.inference_mode():
        want = model(**enc, output_hidden_states=True).hidden_states
    runner = OnnxEncoder(folder, len(model.encoder.layer))
    got = runner(enc["input_ids"].numpy(), enc["attention_mask"].numpy(), len(want) - 1)
    real = enc["attention_mask"].numpy().astype(bool)
    worst = max(float(np.abs(g[real] - w.numpy()[real]).max()) for g, w in zip(got, want))
    if not worst <= 1e-3:
        raise RuntimeError("the exported encoder's hidden states differ from PyTorch's "
                           f"(max difference {worst:.3g})")
