"""The logic-aware word embedding of Logical Transformers (paper, sections 4.1-4.2).

35 trainable logical embedding vectors ``v`` (id 0 = E, the empty association) of size N_logic and
one linear layer ``L: (N + N_logic) -> N`` turn a token's depth-sorted labels into

    u^0 = w_t,   u^i = f(L(u^{i-1} ⊕ v^i))  for i = 1..K,   w_t^logic = w_t + u^K

where w_t is the token's word embedding (``variant="paper"``, the paper's layer as printed). The default
``variant="centered"`` adds instead

    w_t^logic = w_t + u^K(labels) - u^K(E, ..., E)

so a token without labels keeps its pretrained embedding exactly, and starts L's W_u near the
identity, so that a label moves the output by about a tenth of the word vector at any depth. The
paper's layer at the host's initializer scale adds an offset of 6-7% of the word vector to every
token, the same for all labels, and a label-dependent part of 0.3-2% (each layer shrinks what came
before about 5x), too little for ordinary fine-tuning to find (docs/layer.md, the positive
control).

``LogicalEmbedding`` *is* the word embedding (a subclass of
``nn.Embedding`` sharing the original weight), so a model's embedding module adds its position and
segment embeddings after it, as section 4.2 states, and the checkpoint keys of the base model stay
as they were.
"""

from __future__ import annotations

import contextlib
import numbers
import threading
from typing import Iterator, Optional

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import Errors, ModelingError
from ..taxonomy import LABELS

N_LABELS = len(LABELS)  # 35
ACTIVATIONS = {"gelu": nn.GELU, "relu": nn.ReLU, "tanh": nn.Tanh, "silu": nn.SiLU}
PROJECTIONS = ("linear", "mlp")
VARIANTS = ("centered", "paper")
IDENTITY_GAIN = {"gelu": 2.0, "relu": 2.0, "tanh": 1.0, "silu": 2.0}  # 1 / slope at 0 (ReLU: mean)


def fit_depth(logic_ids: torch.Tensor, k: int) -> torch.Tensor:
    """Cut or pad the last dimension to ``k`` layers: labels past K go (the shallowest are kept,
    they come first), missing layers are E (0). A model refuses labels of another depth than its
    K (E508); this is the explicit way to make them fit."""
    have = logic_ids.shape[-1]
    if have > k:
        return logic_ids[..., :k]
    if have < k:
        return F.pad(logic_ids, (0, k - have), value=0)
    return logic_ids


class LogicalEmbedding(nn.Embedding):
    """A word embedding that adds the multi-layer hierarchical logical projection of its labels.

    Labels come either as the ``logic_ids`` argument of :meth:`forward` or, inside a model whose
    forward cannot pass them down, from :meth:`labels` (what :func:`logicalize` uses). Without labels
    every layer is E, which the paper also projects (E is a trained vector, not a no-op).

    ``projection="linear"`` is the paper's layer; ``"mlp"`` is footnote 4's variant, a two-layer
    perceptron ``(N + N_logic) -> hidden -> N`` in place of ``L``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, n_logic: Optional[int] = None,
                 k: int = 3, activation: str = "gelu", projection: str = "linear",
                 mlp_hidden: Optional[int] = None, padding_idx: Optional[int] = None,
                 embed_scale: float = 1.0, init_std: float = 0.02, variant: str = "centered",
                 vector_std: Optional[float] = None, init_seed: Optional[int] = None,
                 device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx, device=device,
                         dtype=dtype)
        if activation not in ACTIVATIONS:
            raise ModelingError(Errors.E506.format(what="activation", name=activation,
                                                   opts=", ".join(ACTIVATIONS)))
        if projection not in PROJECTIONS:
            raise ModelingError(Errors.E506.format(what="projection", name=projection,
                                                   opts=", ".join(PROJECTIONS)))
        if variant not in VARIANTS:
            raise ModelingError(Errors.E506.format(what="layer variant", name=variant,
                                                   opts=", ".join(VARIANTS)))
        if vector_std is not None and not (isinstance(vector_std, (int, float)) and vector_std > 0):
            raise ModelingError(Errors.E506.format(what="vector_std", name=vector_std,
                                                   opts="a number above 0"))
        if not _positive_int(k):
            raise ModelingError(Errors.E506.format(what="K (logic depth)", name=k,
                                                   opts="1, 2, 3, ..."))
        for what, value in (("n_logic", n_logic), ("mlp_hidden", mlp_hidden)):
            if value is not None and not _positive_int(value):
                raise ModelingError(Errors.E506.format(
                    what=what, name=value, opts="None (the word embedding's size) or 1, 2, 3, ..."))
        n, n_logic = embedding_dim, int(n_logic) if n_logic is not None else embedding_dim
        self.n_logic, self.k = n_logic, int(k)  # a numpy integer would not go into config.json
        self.activation, self.projection_kind = activation, projection
        self.mlp_hidden = int(mlp_hidden) if mlp_hidden is not None else n
        # BART scales its word embedding by sqrt(d_model); the scaled vector is its w_t.
        self.embed_scale = embed_scale
        self.init_std = init_std
        self.variant = variant
        self.vector_std = float(vector_std) if vector_std is not None else init_std
        self.init_seed = init_seed
        self.logic_vectors = nn.Embedding(N_LABELS, n_logic, device=device, dtype=dtype)
        if projection == "linear":
            self.proj = nn.Linear(n + n_logic, n, device=device, dtype=dtype)
        else:
            self.proj = nn.Sequential(
                nn.Linear(n + n_logic, self.mlp_hidden, device=device, dtype=dtype),
                ACTIVATIONS[activation](),
                nn.Linear(self.mlp_hidden, n, device=device, dtype=dtype))
        self.act = ACTIVATIONS[activation]()
        # Labels handed down by labels(), and whether the layer has run since, per thread: two
        # threads may run one model (inference under no_grad) without reading each other's.
        self._by_thread: dict[int, tuple[Optional[torch.Tensor], bool]] = {}
        # Each call checks its label ids lie in 0-34 (one min/max reduction; on an accelerator
        # one host sync). Off for callers that checked them already.
        self.check_ids = True
        self.reset_logic_parameters()

    @classmethod
    def from_embedding(cls, embedding: nn.Embedding, **kwargs) -> "LogicalEmbedding":
        """Wrap an existing word embedding; the new module shares (not copies) its weight, so
        weights tied to it (BART's shared embedding, an LM head) stay tied."""
        weight = embedding.weight
        kwargs.setdefault("embed_scale", float(getattr(embedding, "embed_scale", 1.0) or 1.0))
        # The throw-away initialisation of the modules' own weights must not advance torch's
        # global stream either: the plain model of the same seed draws the same dropout masks.
        with torch.random.fork_rng(devices=[]):
            new = cls(embedding.num_embeddings, embedding.embedding_dim,
                      padding_idx=embedding.padding_idx, device=weight.device, dtype=weight.dtype,
                      **kwargs)
        new.weight = weight
        for name in ("max_norm", "norm_type", "scale_grad_by_freq", "sparse"):
            setattr(new, name, getattr(embedding, name))
        return new

    def reset_logic_parameters(self) -> None:
        """Random initialisation of the new parameters only (section 4.3): L at the scale of the
        host model's initializer, the 35 vectors at ``vector_std``.

        The draws come from a generator of their own (seeded by ``init_seed``, else by the seed
        torch was last given), never from torch's global stream: a logical model and the plain
        model of the same seed then share the classifier head, the data order and every dropout
        mask, and differ only by the layer."""
        if self.logic_vectors.weight.is_meta:
            return
        seed = self.init_seed if self.init_seed is not None else torch.initial_seed()
        gen = torch.Generator().manual_seed(int(seed) % 2**63)

        def draw(param: torch.Tensor, std: float) -> None:
            with torch.no_grad():
                param.copy_(torch.randn(param.shape, generator=gen) * std)

        draw(self.logic_vectors.weight, self.vector_std)
        for m in self.proj.modules():
            if isinstance(m, nn.Linear):
                draw(m.weight, self.init_std)
                nn.init.zeros_(m.bias)
        if self.variant == "centered" and self.projection_kind == "linear":
            # W_u starts near the identity, scaled by the inverse of the activation's slope at 0:
            # a label then moves the output about as much at every depth, where a random W_u
            # shrinks what the shallower labels add about 5x per layer.
            n = self.proj.weight.shape[0]
            with torch.no_grad():
                self.proj.weight[:, :n] += IDENTITY_GAIN[self.activation] * torch.eye(n)

    def reset_parameters(self) -> None:
        # nn.Embedding.__init__ calls this before the logic parameters exist.
        super().reset_parameters()
        if hasattr(self, "proj"):
            self.reset_logic_parameters()

    @property
    def n_new_parameters(self) -> int:
        """Parameters added to the base model: 35·N_logic + (N + N_logic)·N + N for the linear L."""
        return sum(p.numel() for p in self.logic_vectors.parameters()) + sum(
            p.numel() for p in self.proj.parameters())

    def __setstate__(self, state: dict) -> None:
        # A model pickled before labels were kept per thread held them as two attributes.
        state = {k: v for k, v in state.items() if k not in ("_labels", "labels_used")}
        state.setdefault("_by_thread", {})
        super().__setstate__(state)

    @property
    def _labels(self) -> Optional[torch.Tensor]:
        return self._by_thread.get(threading.get_ident(), (None, False))[0]

    @property
    def labels_used(self) -> bool:
        return self._by_thread.get(threading.get_ident(), (None, False))[1]

    @labels_used.setter
    def labels_used(self, value: bool) -> None:
        thread = threading.get_ident()
        if thread in self._by_thread:  # outside a labels() block nobody reads it
            self._by_thread[thread] = (self._by_thread[thread][0], value)

    @contextlib.contextmanager
    def labels(self, logic_ids: Optional[torch.Tensor]) -> Iterator[None]:
        """Make ``logic_ids`` the labels of the calls inside the block, in this thread (nested
        blocks restore)."""
        thread = threading.get_ident()
        previous = self._by_thread.get(thread)
        self._by_thread[thread] = (logic_ids, False)
        try:
            yield
        finally:
            if previous is None:
                self._by_thread.pop(thread, None)
            else:  # the outer labels again; whether the layer ran is the inner block's word
                self._by_thread[thread] = (previous[0], self.labels_used)

    def _ids(self, w: torch.Tensor, logic_ids: Optional[torch.Tensor]) -> torch.Tensor:
        lead = w.shape[:-1]
        if logic_ids is None:
            return torch.zeros(*lead, self.k, dtype=torch.long, device=w.device)
        if not isinstance(logic_ids, torch.Tensor):
            logic_ids = torch.as_tensor(logic_ids)
        self.check_logic_ids(logic_ids, lead)
        logic_ids = logic_ids.to(device=w.device, dtype=torch.long)
        # AutoModelForMultipleChoice flattens [batch, choices, seq] to [batch*choices, seq].
        if logic_ids.shape[:-1] != lead:
            logic_ids = logic_ids.reshape(*lead, self.k)
        return logic_ids

    def logic_delta(self, w: torch.Tensor, logic_ids: Optional[torch.Tensor]) -> torch.Tensor:
        """What the layer adds to word embeddings ``w`` [..., N] for labels [..., K'] (None = all
        E): u^K for the paper's layer, u^K(labels) - u^K(E...) for the centered one."""
        logic_ids = self._ids(w, logic_ids)
        if self.variant == "paper":
            return self._project(w, logic_ids)
        # Only tokens with a label differ from their word vector; the others are skipped (on an
        # accelerator the selection costs one host sync).
        labelled = logic_ids.ne(0).any(-1)
        delta = torch.zeros_like(w)
        if not bool(labelled.any()):
            return delta + self._zero_with_parameters(w) if torch.is_grad_enabled() else delta
        wl, ids = w[labelled], logic_ids[labelled]
        # The delta is a difference of two projections close to each other; under bf16 autocast
        # each would be rounded to about 0.4% of its size first, so they are computed in w's dtype.
        with _without_autocast(w.device):
            both = self._project(torch.cat([wl, wl]), torch.cat([ids, torch.zeros_like(ids)]))
        m = wl.shape[0]
        return delta.index_put((labelled,), (both[:m] - both[m:]).to(w.dtype))

    def _zero_with_parameters(self, w: torch.Tensor) -> torch.Tensor:
        # A batch without a labelled token leaves every new parameter out of the graph:
        # DistributedDataParallel (find_unused_parameters=False, its default and Trainer's with
        # gradient checkpointing) would stop at the next step waiting for their gradients.
        params = [p for m in (self.logic_vectors, self.proj) for p in m.parameters()
                  if p.requires_grad]
        if not params:
            return torch.zeros((), dtype=w.dtype, device=w.device)
        # nan_to_num: an inf in some label's vector must not make every output NaN.
        return (sum(p.sum() for p in params) * 0).nan_to_num(0.0, 0.0, 0.0).to(w.dtype)

    def logic_projection(self, w: torch.Tensor, logic_ids: Optional[torch.Tensor]) -> torch.Tensor:
        """u^K for word embeddings ``w`` [..., N] and labels [..., K'] (None = all E)."""
        return self._project(w, self._ids(w, logic_ids))

    def _project(self, w: torch.Tensor, logic_ids: torch.Tensor) -> torch.Tensor:
        if self.projection_kind == "linear" and not any(
                hasattr(m, "base_layer") for m in (self.proj, self.logic_vectors)):
            # L(u ⊕ v) = W_u u + (W_v v + b): the second term takes only 35 values, so it is computed
            # once per call for the 35 vectors and gathered, instead of concatenating per token.
            # A module a PEFT tuner wraps (a LoRA on L: it has a ``base_layer``) is called as a
            # module, below: its weight alone would leave the adapter out. PEFT's copies for
            # modules_to_save give their active copy's weight, and take this path.
            n = w.shape[-1]
            w_u, w_v = self.proj.weight[:, :n], self.proj.weight[:, n:]
            table = F.linear(self.logic_vectors.weight, w_v, self.proj.bias)  # [35, N]
            u = w
            for i in range(self.k):
                u = self.act(F.linear(u, w_u) + F.embedding(logic_ids[..., i], table))
            return u
        u = w
        for i in range(self.k):
            v = self.logic_vectors(logic_ids[..., i]).to(u.dtype)
            u = self.act(self.proj(torch.cat([u, v], dim=-1)))
        return u

    def check_logic_ids(self, logic_ids: torch.Tensor, lead: torch.Size) -> None:
        """Refuse labels this layer would misread: not integers (E509), another shape than
        ``[*lead, k]`` (E501, E508), an id outside 0-34 (E507). Shapes cost nothing; the range
        is one reduction, done where the tensor is (before it moves to the model's device)."""
        if logic_ids.is_floating_point() or logic_ids.is_complex() or logic_ids.dtype == torch.bool:
            raise ModelingError(Errors.E509.format(dtype=str(logic_ids.dtype).replace("torch.", "")))
        shape = tuple(logic_ids.shape)
        if logic_ids.dim() == 0 or not (shape[:-1] == tuple(lead) or _flattened(shape[:-1], lead)):
            raise ModelingError(Errors.E501.format(got=shape, ids=tuple(lead)))
        if shape[-1] != self.k:
            raise ModelingError(Errors.E508.format(got=shape, depth=shape[-1], k=self.k))
        if self.check_ids and logic_ids.numel():
            lo, hi = torch.stack(torch.aminmax(logic_ids)).tolist()
            if lo < 0 or hi >= N_LABELS:
                raise ModelingError(Errors.E507.format(value=hi if hi >= N_LABELS else lo))

    def word_vectors(self, input_ids: torch.Tensor) -> torch.Tensor:
        """w_t: the plain word embedding (scaled as the host model scales it)."""
        w = super().forward(input_ids)
        return w * self.embed_scale if self.embed_scale != 1.0 else w

    def forward(self, input_ids: torch.Tensor, logic_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        w = self.word_vectors(input_ids)
        if logic_ids is None:
            logic_ids = self._labels
        self.labels_used = True
        return w + self.logic_delta(w, logic_ids)

    @torch.no_grad()
    def label_share(self, input_ids: torch.Tensor, logic_ids: torch.Tensor) -> dict[str, float]:
        """How much the labels move the output, relative to the word vectors, over the tokens of
        a batch: ``labelled`` = mean ||out(labels) - out(E...)|| / ||w|| over tokens with a label
        (the label-dependent share), ``all_e`` = mean ||out(E...) - w|| / ||w|| over all tokens
        (how far the layer moves a token that has no label), and the count of labelled tokens."""
        w = self.word_vectors(input_ids)
        ids = self._ids(w, logic_ids)
        labelled = ids.ne(0).any(-1)
        norm = w.norm(dim=-1).clamp_min(1e-12)
        with_labels, all_e = self.logic_delta(w, ids), self.logic_delta(w, None)
        share = ((with_labels - all_e).norm(dim=-1) / norm)[labelled]
        return {"labelled": float(share.mean()) if share.numel() else 0.0,
                "all_e": float((all_e.norm(dim=-1) / norm).mean()),
                "labelled_tokens": int(labelled.sum())}

    def extra_repr(self) -> str:
        return (f"{super().extra_repr()}, n_logic={self.n_logic}, k={self.k}, "
                f"activation={self.activation}, projection={self.projection_kind}, "
                f"variant={self.variant}, vector_std={self.vector_std:g}"
                + (f", embed_scale={self.embed_scale:g}" if self.embed_scale != 1.0 else ""))


def _positive_int(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1


def _flattened(positions: tuple, lead: torch.Size) -> bool:
    """AutoModelForMultipleChoice's [batch, choices, seq] labels against its flattened
    [batch * choices, seq] ids: the one other shape whose positions line up (the caller reshapes).
    Any other shape of as many positions (a transposed [seq, batch]) would put labels on the
    wrong tokens."""
    return (len(positions) == len(lead) + 1 and len(lead) >= 2 and positions[2:] == tuple(lead[1:])
            and positions[0] * positions[1] == lead[0])


def _without_autocast(device: torch.device):
    # Devices without autocast ('meta', older torch's 'mps') have nothing to turn off.
    available = getattr(torch.amp, "is_autocast_available", lambda kind: kind in ("cpu", "cuda"))
    if not available(device.type):
        return contextlib.nullcontext()
    return torch.autocast(device.type, enabled=False)


def expected_new_parameters(n: int, n_logic: int) -> int:
    """Section 4.4's count for the linear L, written for any N: 35 vectors, L's weight and bias.

    The paper prints N_logic² + N·N_logic + 36·N_logic, which equals this only when N = N_logic."""
    return N_LABELS * n_logic + (n + n_logic) * n + n


__all__ = ["LogicalEmbedding", "expected_new_parameters", "fit_depth", "N_LABELS", "VARIANTS"]
