"""The logic-aware word embedding of Logical Transformers (paper, sections 4.1-4.2).

35 trainable logical embedding vectors ``v`` (id 0 = E, the empty association) of size N_logic and
one linear layer ``L: (N + N_logic) -> N`` turn a token's depth-sorted labels into

    u^0 = w_t,   u^i = f(L(u^{i-1} ⊕ v^i))  for i = 1..K,   w_t^logic = w_t + u^K

where w_t is the token's word embedding. ``LogicalEmbedding`` *is* the word embedding (a subclass of
``nn.Embedding`` sharing the original weight), so a model's embedding module adds its position and
segment embeddings after it, as section 4.2 states, and the checkpoint keys of the base model stay
as they were.
"""

from __future__ import annotations

import contextlib
from typing import Iterator, Optional

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import Errors, ModelingError
from ..taxonomy import LABELS

N_LABELS = len(LABELS)  # 35
ACTIVATIONS = {"gelu": nn.GELU, "relu": nn.ReLU, "tanh": nn.Tanh, "silu": nn.SiLU}
PROJECTIONS = ("linear", "mlp")


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
                 embed_scale: float = 1.0, init_std: float = 0.02, device=None, dtype=None):
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx, device=device,
                         dtype=dtype)
        if activation not in ACTIVATIONS:
            raise ModelingError(Errors.E506.format(what="activation", name=activation,
                                                   opts=", ".join(ACTIVATIONS)))
        if projection not in PROJECTIONS:
            raise ModelingError(Errors.E506.format(what="projection", name=projection,
                                                   opts=", ".join(PROJECTIONS)))
        if k < 1:
            raise ModelingError(Errors.E506.format(what="K (logic depth)", name=k,
                                                   opts="1, 2, 3, ..."))
        n, n_logic = embedding_dim, n_logic or embedding_dim
        self.n_logic, self.k = n_logic, k
        self.activation, self.projection_kind = activation, projection
        self.mlp_hidden = mlp_hidden or n
        # BART scales its word embedding by sqrt(d_model); the scaled vector is its w_t.
        self.embed_scale = embed_scale
        self.init_std = init_std
        self.logic_vectors = nn.Embedding(N_LABELS, n_logic, device=device, dtype=dtype)
        if projection == "linear":
            self.proj = nn.Linear(n + n_logic, n, device=device, dtype=dtype)
        else:
            self.proj = nn.Sequential(
                nn.Linear(n + n_logic, self.mlp_hidden, device=device, dtype=dtype),
                ACTIVATIONS[activation](),
                nn.Linear(self.mlp_hidden, n, device=device, dtype=dtype))
        self.act = ACTIVATIONS[activation]()
        self._labels: Optional[torch.Tensor] = None
        self.labels_used = False
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
        new = cls(embedding.num_embeddings, embedding.embedding_dim,
                  padding_idx=embedding.padding_idx, device=weight.device, dtype=weight.dtype,
                  **kwargs)
        new.weight = weight
        for name in ("max_norm", "norm_type", "scale_grad_by_freq", "sparse"):
            setattr(new, name, getattr(embedding, name))
        return new

    def reset_logic_parameters(self) -> None:
        """Random initialisation of the new parameters only (section 4.3), at the scale of the
        host model's initializer so that u^K starts as a small change to w_t."""
        if self.logic_vectors.weight.is_meta:
            return
        nn.init.normal_(self.logic_vectors.weight, std=self.init_std)
        for m in self.proj.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, std=self.init_std)
                nn.init.zeros_(m.bias)

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

    @contextlib.contextmanager
    def labels(self, logic_ids: Optional[torch.Tensor]) -> Iterator[None]:
        """Make ``logic_ids`` the labels of the calls inside the block (nested blocks restore)."""
        previous, self._labels, self.labels_used = self._labels, logic_ids, False
        try:
            yield
        finally:
            self._labels = previous

    def logic_projection(self, w: torch.Tensor, logic_ids: Optional[torch.Tensor]) -> torch.Tensor:
        """u^K for word embeddings ``w`` [..., N] and labels [..., K'] (None = all E)."""
        lead = w.shape[:-1]
        if logic_ids is None:
            logic_ids = torch.zeros(*lead, self.k, dtype=torch.long, device=w.device)
        else:
            if not isinstance(logic_ids, torch.Tensor):
                logic_ids = torch.as_tensor(logic_ids)
            self.check_logic_ids(logic_ids, lead)
            logic_ids = logic_ids.to(device=w.device, dtype=torch.long)
            # AutoModelForMultipleChoice flattens [batch, choices, seq] to [batch*choices, seq].
            if logic_ids.shape[:-1] != lead:
                logic_ids = logic_ids.reshape(*lead, self.k)
        if self.projection_kind == "linear":
            # L(u ⊕ v) = W_u u + (W_v v + b): the second term takes only 35 values, so it is computed
            # once per call for the 35 vectors and gathered, instead of concatenating per token.
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
        # A different leading shape with as many positions is AutoModelForMultipleChoice's
        # [batch, choices, seq] against its flattened ids: reshaped by the caller.
        if logic_ids.dim() == 0 or (shape[:-1] != tuple(lead)
                                    and logic_ids.shape[:-1].numel() != lead.numel()):
            raise ModelingError(Errors.E501.format(got=shape, ids=tuple(lead)))
        if shape[-1] != self.k:
            raise ModelingError(Errors.E508.format(got=shape, depth=shape[-1], k=self.k))
        if self.check_ids and logic_ids.numel():
            lo, hi = torch.stack(torch.aminmax(logic_ids)).tolist()
            if lo < 0 or hi >= N_LABELS:
                raise ModelingError(Errors.E507.format(value=hi if hi >= N_LABELS else lo))

    def forward(self, input_ids: torch.Tensor, logic_ids: Optional[torch.Tensor] = None) -> torch.Tensor:
        w = super().forward(input_ids)
        if self.embed_scale != 1.0:
            w = w * self.embed_scale
        if logic_ids is None:
            logic_ids = self._labels
        self.labels_used = True
        return w + self.logic_projection(w, logic_ids)

    def extra_repr(self) -> str:
        return (f"{super().extra_repr()}, n_logic={self.n_logic}, k={self.k}, "
                f"activation={self.activation}, projection={self.projection_kind}"
                + (f", embed_scale={self.embed_scale:g}" if self.embed_scale != 1.0 else ""))


def expected_new_parameters(n: int, n_logic: int) -> int:
    """Section 4.4's count for the linear L, written for any N: 35 vectors, L's weight and bias.

    The paper prints N_logic² + N·N_logic + 36·N_logic, which equals this only when N = N_logic."""
    return N_LABELS * n_logic + (n + n_logic) * n + n


__all__ = ["LogicalEmbedding", "expected_new_parameters", "fit_depth", "N_LABELS"]
