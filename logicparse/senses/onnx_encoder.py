"""The sense encoder's blocks under ONNX Runtime on a CPU: the same hidden states, in half the time.

The sense classifiers read one hidden layer of a short window around each keyword; on a CPU most
of a decision's time is that encoder pass. Each block (the embeddings, then each transformer
layer) is exported on its own, so a pass runs only the blocks up to the layer asked for, and the
sessions hold the weights once (not once per depth). The files are cached and checked as
``logicparse.onnx_export`` says; right after an export the chain of blocks is run beside PyTorch
on texts of mixed lengths and kept only if every real token's vector agrees to 1e-3 (float32
noise is about 3e-5).

Covered: BERT-like encoders whose layers take (hidden states, additive mask), as the default
all-MiniLM-L6-v2; others (ALBERT's shared layer, MPNet's relative position bias) run in PyTorch.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..onnx_export import cache_dir, cached_files, session

EXPORT_VERSION = 1  # bump when the exported graphs change
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

    def __init__(self, folder: Path, n_blocks: int, threads: int = 1):
        self.folder = Path(folder)
        self.threads = threads
        self._names = block_files(n_blocks)
        self._sessions: dict[str, object] = {}

    @classmethod
    def of(cls, model, tokenizer, fingerprint: str, threads: int = 1) -> "OnnxEncoder":
        """The runner of ``model``'s blocks from the cache (exported and checked first if
        needed)."""
        return cls(exported_blocks(model, tokenizer, fingerprint), len(model.encoder.layer),
                   threads)

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
