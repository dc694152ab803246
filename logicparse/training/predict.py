"""A model trained on a table (``logicparse train --task table``) applied to new rows:
``logicparse predict`` writes each row's answer and its probabilities, ``logicparse evaluate``
scores a labelled table. The model folder (``OUT/best``) holds the label names (``id2label``) of
a classifier; a multiple-choice model answers with a choice. A logical model's texts are
annotated first, as in training (the same label cache)."""

from __future__ import annotations

import json
import os
from typing import Optional

import numpy as np
import torch

from . import batches as B
from . import labels as L
from .usertable import choice_examples, choose_columns, examples, read_rows


def _load(model_dir: str, device: str):
    import transformers

    from ..modeling import from_pretrained
    from .splits import resolve_model_path

    path = resolve_model_path(model_dir)
    config = transformers.AutoConfig.from_pretrained(path)
    choice = any(a.endswith("ForMultipleChoice") for a in (config.architectures or []))
    auto = (transformers.AutoModelForMultipleChoice if choice
            else transformers.AutoModelForSequenceClassification)
    logical = getattr(config, "logicparse", None) is not None
    model = from_pretrained(path, auto) if logical else auto.from_pretrained(path)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, use_fast=True)
    names = None if choice else [config.id2label[i] for i in range(config.num_labels)]
    return model.to(device).eval(), tokenizer, names, logical


def predict_table(model_dir: str, data: str, out: Optional[str] = None, need_labels: bool = False,
                  text_column: Optional[str] = None, pair_column: Optional[str] = None,
                  label_column: Optional[str] = None, choices_column: Optional[str] = None,
                  batch_size: int = 32, max_length: int = 512, device: str = "cpu",
                  parser: str = "default", senses: Optional[str] = "default",
                  shards: Optional[str] = None, annotator=None) -> dict:
    """Predictions for every row of ``data`` (written to ``out`` as JSON lines when given) and,
    when the rows have labels (required with ``need_labels``), the accuracy. Returns the
    figures."""
    from ..modeling import LogicAligner, logical_embedding

    model, tokenizer, names, logical = _load(model_dir, device)
    columns, rows = read_rows(data)
    cols = choose_columns(data, columns, text_column, pair_column, label_column, need_labels,
                          choices_column)
    if names is None:
        exs = choice_examples(data, rows, cols)
    else:
        exs = examples(data, rows, cols, tuple(names), f"the model {model_dir} was trained on")[0]
    max_len = min(max_length, getattr(model.config, "max_position_embeddings", 10**6) or 10**6)
    labels, aligner = None, None
    if logical:
        labels = L.labels_for(L.texts_of(exs), shards, data, annotator=annotator, parser=parser,
                              senses=senses, device=device)
        aligner = LogicAligner(tokenizer, k=logical_embedding(model).k, max_length=max_len)
    encoded = [B.encode_choices(ex, tokenizer, aligner, labels, max_len) if names is None
               else B.encode_texts(ex.texts(), tokenizer, aligner, labels, max_len) for ex in exs]
    probs = [None] * len(exs)
    lengths = np.array([e["input_ids"].shape[-1] for e in encoded])
    with torch.no_grad():
        for idx in B.batch_order(lengths, batch_size, shuffle=False, seed=0):
            batch = B.collate([encoded[j] for j in idx], tokenizer.pad_token_id or 0)
            logits = model(**{k: v.to(device) for k, v in batch.items()}).logits
            for j, p in zip(idx, torch.softmax(logits.float(), -1).cpu().numpy()):
                probs[j] = p
    pred = [int(np.argmax(p)) for p in probs]
    result = {"model": model_dir, "data": data, "n": len(rows)}
    if names is not None:
        result["classes"] = names
    if out:
        _write(out, exs, pred, probs, names)
        result["predictions"] = out
    if cols.label is not None:
        right = sum(p == ex.label for p, ex in zip(pred, exs))
        result.update(accuracy=right / len(exs) if exs else None, correct=int(right))
    return result


def _write(out: str, exs: list, pred: list, probs: list, names) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".part"
    with open(tmp, "w", encoding="utf-8") as f:
        for n, (ex, p, row_probs) in enumerate(zip(exs, pred, probs), 1):
            if names is None:
                row = {"row": n, "choice": p, "answer": ex.options[p],
                       "probabilities": [round(float(x), 6) for x in row_probs]}
            else:
                row = {"row": n, "label": names[p], "probabilities": {
                    name: round(float(x), 6) for name, x in zip(names, row_probs)}}
            f.write(json.dumps(row) + "\n")
    os.replace(tmp, out)  # never a half-written predictions file
