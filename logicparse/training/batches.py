"""Batches for the training loop: padding encoded examples, and a seeded order that buckets by
length. Every label source of one seed gets the same batches (their input ids are the same)."""

from __future__ import annotations

import numpy as np
import torch


def collate(items: list[dict], pad_token_id: int) -> dict:
    """Pad each field of encoded examples (int tensors, one example each) to the batch's longest
    along the sequence axis: ids with ``pad_token_id``, target ids with -100, the rest with 0."""
    out = {}
    for key in items[0]:
        pad = {"input_ids": pad_token_id, "labels": -100}.get(key, 0)
        if key == "labels" and items[0][key].dim() == 0:
            out[key] = torch.stack([it[key] for it in items]).long()
            continue
        seq_dim = items[0]["input_ids"].dim() - 1 if key != "labels" else 0
        longest = max(it[key].shape[seq_dim] for it in items)
        padded = []
        for it in items:
            t = it[key].long()
            width = [0, 0] * (t.dim() - seq_dim - 1) + [0, longest - t.shape[seq_dim]]
            padded.append(torch.nn.functional.pad(t, width, value=pad))
        out[key] = torch.stack(padded)
    return out


def batch_order(lengths: np.ndarray, size: int, shuffle: bool, seed: int, bucket: bool = True
                ) -> list[np.ndarray]:
    """Index batches over examples of ``lengths``. Shuffled: a permutation seeded by ``seed``;
    with ``bucket``, each run of 50 batches of it is sorted by length before it is cut and the
    batches are shuffled again, so a batch pads to little more than its own longest example.
    Not shuffled: file order, or sorted by length with ``bucket`` (evaluation; the caller puts
    predictions back in file order)."""
    order = np.arange(len(lengths))
    rng = np.random.default_rng(seed)
    if shuffle:
        rng.shuffle(order)
    if bucket and len(order):
        chunk = size * 50 if shuffle else len(order)
        order = np.concatenate([c[np.argsort(lengths[c], kind="stable")]
                                for c in np.split(order, range(chunk, len(order), chunk))])
    cut = [order[i:i + size] for i in range(0, len(order), size)]
    if shuffle and bucket:
        cut = [cut[i] for i in rng.permutation(len(cut))]
    return cut


def encode_choices(ex, tokenizer, aligner, labels, max_len: int) -> dict:
    """A multiple-choice example (context, question, options) as one row per option: the
    context, then the question and the option (their labels joined after annotation)."""
    from ..modeling import join_documents

    if aligner:
        pairs = [join_documents([labels[ex.question], labels[o]]) for o in ex.options]
        return dict(aligner([labels[ex.context]] * len(ex.options), pairs))
    return dict(tokenizer([ex.context] * len(ex.options), [f"{ex.question} {o}" for o in ex.options],
                          truncation=True, max_length=max_len, padding="longest",
                          return_tensors="pt"))


def encode_texts(texts: list, tokenizer, aligner, labels, max_len: int) -> dict:
    """One text or a pair of texts as one row (with its logic labels when ``aligner``)."""
    enc = aligner(*[[labels[t]] for t in texts]) if aligner else tokenizer(
        *[[t] for t in texts], truncation=True, max_length=max_len, return_tensors="pt")
    return {k: v[0] for k, v in dict(enc).items()}
