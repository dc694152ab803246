"""Turn a Hugging Face model into a Logical Transformer, and save / load it with its base model.

``logicalize(model)`` replaces the word embedding inside the model's embedding module by a
:class:`LogicalEmbedding` (so position and segment embeddings are still added after it) and lets
``model(...)`` and ``model.generate(...)`` take ``logic_ids``. Encoders (BERT, MiniLM, RoBERTa,
ALBERT) take the labels in ``embeddings.word_embeddings``; encoder-decoders (BART) in the encoder's
``embed_tokens`` only, the decoder keeps the plain (tied) embedding.

The settings go into ``model.config.logicparse``, so ``save_pretrained`` writes an ordinary
checkpoint of the base architecture plus the new parameters, and :func:`from_pretrained` rebuilds
the logical model from it.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Optional

import torch
from torch import nn

from ..errors import Errors, ModelLoadError, ModelingError
from .embedding import LogicalEmbedding

CONFIG_KEY = "logicparse"


class NoLabelsWarning(UserWarning):
    """A logicalized model ran without ``logic_ids`` (said once per model)."""


def _embedding_slot(model: nn.Module) -> tuple[nn.Module, str]:
    """(module holding the word embedding, attribute name) for the supported families."""
    config = getattr(model, "config", None)
    base = getattr(model, "base_model", model)
    if getattr(config, "is_encoder_decoder", False) and hasattr(base, "get_encoder"):
        encoder = base.get_encoder()
        if isinstance(getattr(encoder, "embed_tokens", None), nn.Embedding):
            return encoder, "embed_tokens"
    embeddings = getattr(base, "embeddings", None)
    if isinstance(getattr(embeddings, "word_embeddings", None), nn.Embedding):
        return embeddings, "word_embeddings"
    raise ModelingError(Errors.E503.format(model=type(model).__name__))


def logical_embedding(model: nn.Module) -> Optional[LogicalEmbedding]:
    """The model's LogicalEmbedding, or None for a plain model."""
    return next((m for m in model.modules() if isinstance(m, LogicalEmbedding)), None)


def logicalize(model: nn.Module, n_logic: Optional[int] = None, k: int = 3,
               activation: str = "gelu", projection: str = "linear",
               mlp_hidden: Optional[int] = None, variant: str = "centered",
               vector_std: Optional[float] = None, seed: Optional[int] = None) -> nn.Module:
    """Put the logic-aware embedding into ``model`` (in place) and return it.

    ``n_logic``: size of the 35 logical vectors (default: the word embedding size N). ``k``: logic
    depth, the number of projection layers (labels past K are cut, the shallowest kept).
    ``projection="mlp"`` is footnote 4's perceptron variant. ``variant="centered"`` (default)
    leaves tokens without labels at their pretrained embedding and draws the 35 vectors at
    ``vector_std`` (default: the model's initializer scale, 0.02 for BERT-like models);
    ``variant="paper"`` is the paper's layer as printed (every token gets
    u^K, all new parameters at the model's initializer scale). ``seed`` seeds the new parameters'
    own generator (default: torch's last seed; torch's global stream is never drawn from). After this call
    ``model(input_ids=..., logic_ids=...)`` works with ``logic_ids`` of shape
    ``[*input_ids.shape, K]`` (ids 0-34, omitted = all E).
    """
    existing = logical_embedding(model)
    if existing is not None:
        raise ModelingError(Errors.E504.format(k=existing.k, n_logic=existing.n_logic))
    parent, name = _embedding_slot(model)
    word = getattr(parent, name)
    init_std = float(getattr(getattr(model, "config", None), "initializer_range", None)
                     or getattr(getattr(model, "config", None), "init_std", None) or 0.02)
    emb = LogicalEmbedding.from_embedding(word, n_logic=n_logic, k=k, activation=activation,
                                          projection=projection, mlp_hidden=mlp_hidden,
                                          init_std=init_std, variant=variant,
                                          vector_std=vector_std, init_seed=seed)
    setattr(parent, name, emb)
    if getattr(model, "config", None) is not None:
        setattr(model.config, CONFIG_KEY, {
            "n_logic": emb.n_logic, "k": emb.k, "activation": activation, "projection": projection,
            "mlp_hidden": None if mlp_hidden is None else emb.mlp_hidden, "variant": emb.variant,
            "vector_std": emb.vector_std})
    _accept_logic_ids(model, _module_path(model, emb))
    return model


def logic_param_groups(model: nn.Module, lr: float, logic_lr: Optional[float] = None,
                       weight_decay: float = 0.0) -> list[dict]:
    """Optimizer parameter groups for a (logicalized) model: the logical layer's new parameters at
    ``logic_lr`` (default ``lr``), every other parameter at ``lr``; no weight decay on biases and
    norms. For a user's own loop, ``torch.optim.AdamW(logic_param_groups(model, 2e-5,
    logic_lr=1e-3, weight_decay=0.01))``; for a ``transformers.Trainer``, pass that optimizer as
    ``optimizers=(optimizer, None)`` and the Trainer builds its scheduler over it."""
    for name, value in (("lr", lr), ("logic_lr", logic_lr)):
        if value is not None and not (isinstance(value, (int, float)) and value >= 0):
            raise ModelingError(Errors.E506.format(what=name, name=value, opts="a number, 0 or more"))
    emb = logical_embedding(model)
    new = {id(p) for p in emb.logic_vectors.parameters()} | {id(p) for p in emb.proj.parameters()
                                                             } if emb is not None else set()
    groups: dict[tuple[bool, bool], list] = {}
    for p in model.parameters():
        if p.requires_grad:
            groups.setdefault((id(p) in new, p.dim() >= 2), []).append(p)
    new_lr = lr if logic_lr is None else logic_lr
    return [{"params": params, "lr": new_lr if is_new else lr,
             "weight_decay": weight_decay if decays else 0.0}
            for (is_new, decays), params in sorted(groups.items())]


def logic_modules(model: nn.Module) -> list[str]:
    """The full names of the logical layer's new modules in ``model`` (its 35 label vectors and its
    projection), for PEFT: ``LoraConfig(..., modules_to_save=logic_modules(model))`` trains and
    saves them beside the adapters, where PEFT would otherwise freeze them at their random start
    and leave them out of the saved adapter. Full names, since PEFT matches a name's end and a
    bare ``proj`` would also take BART's ``q_proj``, ``k_proj``, … whole."""
    emb = logical_embedding(model)
    if emb is None:
        raise ModelingError(Errors.E518.format(model=type(model).__name__))
    name = _module_path(model, emb)
    return [f"{name}.logic_vectors", f"{name}.proj"]


def _module_path(model: nn.Module, module: nn.Module) -> str:
    """The name of ``module`` in ``model`` (``bert.embeddings.word_embeddings``)."""
    return next(n for n, m in model.named_modules() if m is module)


def _accept_logic_ids(model: nn.Module, path: str) -> None:
    """Let the instance's forward (and generate) take ``logic_ids``: the labels are handed to the
    embedding (the module at ``path``) for the duration of the call, since the model's own forward
    cannot pass them down."""
    model.forward = _LogicalForward(model, path, "forward")
    if hasattr(model, "generate") and getattr(model.config, "is_encoder_decoder", False):
        model.generate = _LogicalForward(model, path, "generate")
    model._replicate_for_data_parallel = _Replicate(model, path)
    model.set_input_embeddings = _KeepLayer(model, path)


class _KeepLayer:
    """The model's ``set_input_embeddings``, which ``resize_token_embeddings`` calls: BART's puts
    its shared embedding back into the encoder, which took the logical layer (and its trained
    parameters) out of the model. The layer is put back over the new embedding's weight."""

    def __init__(self, model: nn.Module, path: str):
        self.model, self.path = model, path

    def __call__(self, value: nn.Module) -> None:
        parent_path, _, name = self.path.rpartition(".")
        parent = self.model.get_submodule(parent_path)
        emb = getattr(parent, name)
        if isinstance(value, nn.Embedding) and value.embedding_dim != emb.embedding_dim:
            raise ModelingError(Errors.E539.format(got=value.embedding_dim, want=emb.embedding_dim))
        type(self.model).set_input_embeddings(self.model, value)
        now = getattr(parent, name)
        if now is not emb and isinstance(now, nn.Embedding):
            emb.weight, emb.padding_idx = now.weight, now.padding_idx
            emb.num_embeddings = now.num_embeddings
            setattr(parent, name, emb)


class _Replicate:
    """``nn.DataParallel`` makes each replica from a copy of the model's ``__dict__``, the forward
    above with it, which would run the original model (on the first device, with the replica's
    inputs); each replica gets a forward of its own."""

    def __init__(self, model: nn.Module, path: str):
        self.model, self.path = model, path

    def __call__(self) -> nn.Module:
        replica = type(self.model)._replicate_for_data_parallel(self.model)
        _accept_logic_ids(replica, self.path)
        return replica


class _LogicalForward:
    """The model's ``forward`` (or ``generate``) taking ``logic_ids``. An object holding the model,
    the logical embedding's path in it and the method's name, not a closure over them, so that
    ``copy.deepcopy`` of the model (an EMA, a teacher, SWA's AveragedModel) gets one that runs the
    copy, and the model pickles."""

    def __init__(self, model: nn.Module, path: str, name: str):
        # The method is looked up on the class at each call, not held: transformers' decorated
        # methods cannot be pickled by name. The embedding too: a replica's is set after its forward.
        self.model, self.path, self.__name__ = model, path, name

    @property
    def emb(self) -> LogicalEmbedding:
        return self.model.get_submodule(self.path)

    @property
    def method(self):
        return getattr(type(self.model), self.__name__)

    @property
    def __doc__(self):  # type: ignore[override]
        return self.method.__doc__

    @property
    def __signature__(self) -> inspect.Signature:
        return _with_logic_ids(self.method.__get__(self.model))

    def __call__(self, *args, logic_ids: Optional[torch.Tensor] = None, **kwargs):
        model, emb = self.model, self.emb
        if self.__name__ == "generate":
            if logic_ids is None:
                _runs_without_labels(model, emb)
            # The encoder runs once, before beams are expanded, with the labels of the inputs.
            with emb.labels(logic_ids):
                return self.method(model, *args, **kwargs)
        if logic_ids is None:
            # Inside generate the labels are the embedding's already, and decoding steps that
            # reuse the encoder's outputs run no embedding with labels at all.
            if emb._labels is None and kwargs.get("encoder_outputs") is None:
                _runs_without_labels(model, emb)
            return self.method(model, *args, **kwargs)
        with emb.labels(logic_ids):
            out = self.method(model, *args, **kwargs)
            if not emb.labels_used and kwargs.get("encoder_outputs") is None:
                raise ModelingError(Errors.E502)
        return out


def _runs_without_labels(model: nn.Module, emb: LogicalEmbedding) -> None:
    """Says once per model that a call without ``logic_ids`` feeds every token E: a forgotten
    argument (a collator that drops the column, Trainer's remove_unused_columns) would otherwise
    train or score the model without its labels and say nothing."""
    if getattr(model, "_logicparse_warned_no_labels", False):
        return
    model._logicparse_warned_no_labels = True
    same = "exactly the plain model" if emb.variant == "centered" else "the E label on every token"
    warnings.warn(Errors.W501.format(same=same), NoLabelsWarning, stacklevel=3)


def _with_logic_ids(fn) -> inspect.Signature:
    sig = inspect.signature(fn)
    params = list(sig.parameters.values())
    new = inspect.Parameter("logic_ids", inspect.Parameter.KEYWORD_ONLY, default=None,
                            annotation=Optional[torch.Tensor])
    at = next((i for i, p in enumerate(params) if p.kind == inspect.Parameter.VAR_KEYWORD), len(params))
    return sig.replace(parameters=params[:at] + [new] + params[at:])


def from_pretrained(path: str, auto_class=None, **kwargs) -> nn.Module:
    """Load a model saved with ``save_pretrained`` after :func:`logicalize`.

    ``auto_class`` (e.g. ``AutoModelForMultipleChoice``) defaults to the saved architecture. The
    base model loads as usual; then the logical embedding is put back and its parameters read from
    the same checkpoint files.
    """
    import transformers

    where = {key: kwargs[key] for key in _LOCATION if key in kwargs}
    try:
        config = transformers.AutoConfig.from_pretrained(path, **where)
    except (OSError, ValueError) as e:
        raise ModelLoadError(Errors.E524.format(path=path, reason=e)) from e
    settings = getattr(config, CONFIG_KEY, None)
    if not settings:
        raise ModelLoadError(Errors.E505.format(path=path))
    if not isinstance(settings, dict) or not set(settings) <= _SETTINGS:
        reason = (f"{type(settings).__name__}, not a mapping" if not isinstance(settings, dict) else
                  "unknown keys " + ", ".join(map(repr, sorted(set(settings) - _SETTINGS))))
        raise ModelLoadError(Errors.E519.format(path=path, reason=reason))
    if auto_class is None:
        arch = (getattr(config, "architectures", None) or [None])[0]
        auto_class = getattr(transformers, arch) if arch and hasattr(transformers, arch) \
            else transformers.AutoModel
    # The logic parameters are unknown to the base class: silence its "unused weights" warning,
    # they are loaded right after.
    verbosity = transformers.logging.get_verbosity()
    transformers.logging.set_verbosity_error()
    try:
        # The config is read again there, so that head settings (num_labels=...) apply to it.
        model = auto_class.from_pretrained(path, **kwargs)
    finally:
        transformers.logging.set_verbosity(verbosity)
    # Checkpoints written before the centered layer existed hold the paper's layer.
    settings = {"variant": "paper", **settings}
    try:
        logicalize(model, **settings)
    except ModelingError as e:  # a value logicalize refuses; another class's error is its own
        if e.code != "E506":
            raise
        raise ModelLoadError(Errors.E519.format(path=path, reason=e)) from e
    emb = logical_embedding(model)
    prefix = _module_path(model, emb) + "."
    wanted = {key[len(prefix):] for key in model.state_dict() if key.startswith(prefix)
              and key != prefix + "weight"}
    # Saved under the saved architecture's path to the embedding (``bert.embeddings...`` for a
    # task head, ``embeddings...`` for the base model), whichever class loads it now.
    state = _read_tensors(_weight_files(path, where), wanted)
    if state is None:
        raise ModelLoadError(Errors.E527.format(path=path, names=sorted(wanted)))
    try:
        model.load_state_dict({prefix + key: value for key, value in state.items()}, strict=False)
    except RuntimeError as e:  # tensors of other sizes than the entry says (n_logic, mlp_hidden)
        raise ModelLoadError(Errors.E519.format(path=path, reason=" ".join(str(e).split()))) from e
    return model


#: What :func:`logicalize` writes into the config (its arguments but the model and the seed), and
#: from_pretrained's arguments that say where a checkpoint is (a folder, or a Hub id in the local
#: cache, a revision, a subfolder).
_SETTINGS = set(inspect.signature(logicalize).parameters) - {"model", "seed"}
_LOCATION = ("subfolder", "revision", "cache_dir", "token", "local_files_only")


def _weight_files(path: str, where: dict) -> list[str]:
    """The checkpoint's weight files, as transformers finds them (in the folder ``path``, or in the
    Hub's cache for a repo id, which loading the base model has just filled): the safetensors,
    sharded or not, else the ``.bin`` files. Nothing else is fetched."""
    import json

    from transformers.utils import cached_file

    def find(name: str) -> Optional[str]:
        try:
            return cached_file(path, name, _raise_exceptions_for_missing_entries=False, **where)
        except OSError as e:
            raise ModelLoadError(Errors.E524.format(path=path, reason=e)) from e

    for single in ("model.safetensors", "pytorch_model.bin"):
        index = find(single + ".index.json")
        if index:
            try:
                with open(index, encoding="utf-8") as f:
                    shards = sorted(set(json.load(f)["weight_map"].values()))
            except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
                raise ModelLoadError(Errors.E524.format(path=path, reason=f"{index}: {e!r}")) from e
            return [found for name in shards if (found := find(name))]
        found = find(single)
        if found:
            return [found]
    return []


def _read_tensors(files: list[str], names: set[str]) -> Optional[dict[str, torch.Tensor]]:
    """The tensors ``names`` (relative to the logical embedding) of the one module path in the
    checkpoint's ``files`` that holds them all, or None. Each file is opened once."""
    if files and all(f.endswith(".safetensors") for f in files):
        from safetensors import safe_open

        handles = [safe_open(f, framework="pt") for f in files]
        where = {key: h for h in handles for key in h.keys()}

        def get(key: str) -> torch.Tensor:  # only the wanted tensors are read
            return where[key].get_tensor(key)
    else:
        where = {}
        for f in files:
            where.update(torch.load(f, map_location="cpu", weights_only=True))
        get = where.__getitem__
    first = min(names, default="")
    prefixes = [k[:len(k) - len(first)] for k in where if k.endswith(first)]
    prefixes = {p for p in prefixes if (p == "" or p.endswith(".")) and all(p + n in where for n in names)}
    if len(prefixes) != 1:
        return None if names else {}
    prefix = prefixes.pop()
    return {n: get(prefix + n) for n in names}
