"""A model trained on a table (``logicparse train --task table``) applied to new rows:
``logicparse predict`` writes each row's label and class probabilities, ``logicparse evaluate``
scores a labelled table. The model folder (``OUT/best``) holds the label names (``id2label``); a
logical model's texts are annotated first, as in training (the same label cache)."""

from __future__ import annotations

import json
import os
from typing import Optional

import numpy as np
import torch

from ..errors import DataFormatError, Errors
from . import batches as B
from . import labels as L
from .usertable import choose_columns, read_rows


def _load(model_dir: str, device: str):
    import transformers

    from ..modeling import from_pretrained
    from .splits import resolve_model_path

    path = resolve_model_path(model_dir)
    config = transformers.AutoConfig.from_pretrained(path)
    auto = transformers.AutoModelForSequenceClassification
    logical = getattr(config, "logicparse", None) is not None
    model = from_pretrained(path, auto) if logical else auto.from_pretrained(path)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path, use_fast=True)
    names = [config.id2label[i] for i in range(config.num_labels)]
    return model.to(device).eval(), tokenizer, names, logical


def predict_table(model_dir: str, data: str, out: Optional[str] = None, need_labels: bool = False,
                  text_column: Optional[str] = None, pair_column: Optional[str] = None,
                  label_column: Optional[str] = None, batch_size: int = 32,
                  max_length: int = 512, device: str = "cpu", parser: str = "default",
                  senses: Optional[str] = "default", shards: Optional[str] = None,
                  annotator=None) -> dict:
    """Predictions for every row of ``data`` (written to ``out`` as JSON lines when given) and,
    when the rows have labels (required with ``need_labels``), the accuracy. Returns the
    figures."""
    from ..modeling import LogicAligner, logical_embedding

    model, tokenizer, names, logical = _load(model_dir, device)
    columns, rows = read_rows(data)
    cols = choose_columns(data, columns, text_column, pair_column, label_column, need_labels)
    has_labels = cols.label is not None
    texts = [[str(r.get(cols.text) or "")] + ([str(r.get(cols.pair) or "")] if cols.pair else [])
             for r in rows]
    for n, (r, t) in enumerate(zip(rows, texts), 1):
        if not all(x.strip() for x in t):
            raise DataFormatError(Errors.E541.format(path=data, row=n, column=cols.text,
                                                     reason="a text is empty",
                                                     fix="Fill it in, or remove the row"))
    gold = []
    if has_labels:
        index = {name: i for i, name in enumerate(names)}
        for n, r in enumerate(rows, 1):
            label = str(r.get(cols.label) if r.get(cols.label) is not None else "").strip()
            if label not in index:
                raise DataFormatError(Errors.E541.format(
                    path=data, row=n, column=cols.label, reason=f"the label {label!r} is not "
                    f"one the model knows ({', '.join(map(repr, names))})",
                    fix="Correct it, or evaluate a model trained with it"))
            gold.append(index[label])
    max_len = min(max_length, getattr(model.config, "max_position_embeddings", 10**6) or 10**6)
    labels, aligner = None, None
    if logical:
        labels = L.labels_for(L.texts_of(_Texts(t) for t in texts), shards, data,
                              annotator=annotator, parser=parser, senses=senses, device=device)
        aligner = LogicAligner(tokenizer, k=logical_embedding(model).k, max_length=max_len)
    encoded = []
    for t in texts:
        enc = aligner(*[[labels[x]] for x in t]) if aligner else tokenizer(
            *[[x] for x in t], truncation=True, max_length=max_len, return_tensors="pt")
        encoded.append({k: v[0] for k, v in dict(enc).items()})
    probs = np.zeros((len(rows), len(names)), dtype=np.float32)
    lengths = np.array([e["input_ids"].shape[-1] for e in encoded])
    with torch.no_grad():
        for idx in B.batch_order(lengths, batch_size, shuffle=False, seed=0):
            batch = B.collate([encoded[j] for j in idx], tokenizer.pad_token_id or 0)
            logits = model(**{k: v.to(device) for k, v in batch.items()}).logits
            probs[idx] = torch.softmax(logits.float(), -1).cpu().numpy()
    pred = probs.argmax(1)
    result = {"model": model_dir, "data": data, "n": len(rows), "classes": names}
    if out:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        tmp = out + ".part"
        with open(tmp, "w", encoding="utf-8") as f:
            for n, (p, row_probs) in enumerate(zip(pred, probs), 1):
                f.write(json.dumps({"row": n, "label": names[p], "probabilities": {
                    name: round(float(x), 6) for name, x in zip(names, row_probs)}}) + "\n")
        os.replace(tmp, out)  # never a half-written predictions file
        result["predictions"] = out
    if has_labels:
        result["accuracy"] = float(np.mean(pred == np.array(gold))) if rows else None
        result["correct"] = int(np.sum(pred == np.array(gold)))
    return result


class _Texts:
    """What ``labels.texts_of`` reads of an example: its texts."""

    def __init__(self, texts):
        self._texts = texts

    def texts(self):
        return self._texts
