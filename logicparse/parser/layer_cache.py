"""The training objective, computed through the whole encoder or resumed from cached layers.

``cache_layers = k`` keeps the encoder's embeddings and bottom k layers as installed and runs
them once over the training set (their outputs never change), so each training step runs only
the top layers and benepar's head.
"""

from __future__ import annotations

import time

import torch
import torch.nn.functional as F


class BottomLayerCache:
    """Outputs of the encoder's frozen embeddings and bottom ``k`` layers, one tensor per
    training sentence (float16), with benepar's encoded inputs and gold charts."""

    def __init__(self, parser, examples: list, k: int, batch_size: int = 64, log=print):
        self.k = k
        self.encoded = [parser.encode(ex) for ex in examples]
        self.hidden: list = [None] * len(examples)
        bert = parser.pretrained_model
        was_training = bert.training
        bert.eval()
        order = sorted(range(len(examples)), key=lambda i: len(self.encoded[i]["input_ids"]))
        t0 = time.time()
        with torch.no_grad():
            for b in range(0, len(order), batch_size):
                ids = order[b : b + batch_size]
                batch = parser.pad_encoded([self.encoded[i] for i in ids])
                mask = batch["attention_mask"]
                h = bert.embeddings(input_ids=batch["input_ids"],
                                    token_type_ids=batch.get("token_type_ids"))
                ext = bert.get_extended_attention_mask(mask, mask.shape)
                for layer in bert.encoder.layer[:k]:
                    h = layer(h, attention_mask=ext)[0]
                for row, i in enumerate(ids):
                    self.hidden[i] = h[row, : int(mask[row].sum())].to(torch.float16).clone()
                if (b // batch_size) % 50 == 0:
                    log(f"caching encoder layers 0-{k - 1}: {b + len(ids)}/{len(order)} "
                        f"sentences, {time.time() - t0:.0f}s")
        bert.train(was_training)
        mb = sum(x.numel() * 2 for x in self.hidden) / 2**20
        log(f"cached {len(order)} sentences ({mb:.0f} MB) in {time.time() - t0:.0f}s")

    def batch(self, parser, ids: list[int]) -> tuple[dict, torch.Tensor]:
        batch = parser.pad_encoded([self.encoded[i] for i in ids])
        batch["batch_size"] = len(ids)
        batch["batch_num_tokens"] = sum(len(self.encoded[i]["words_from_tokens"]) - 2
                                        for i in ids)
        width = batch["input_ids"].shape[1]
        hidden = torch.zeros(len(ids), width, self.hidden[ids[0]].shape[-1])
        for row, i in enumerate(ids):
            hidden[row, : self.hidden[i].shape[0]] = self.hidden[i].float()
        return batch, hidden

    def loss(self, parser, ids: list[int], kind: str) -> torch.Tensor:
        """benepar's forward, with the encoder resumed from the cache at layer k."""
        batch, hidden = self.batch(parser, ids)
        bert = parser.pretrained_model
        top = bert.encoder.layer[self.k :]

        def resume_from_cache(input_ids, attention_mask=None, **_):
            ext = bert.get_extended_attention_mask(attention_mask, attention_mask.shape)
            h = hidden
            for layer in top:
                h = layer(h, attention_mask=ext)[0]
            return _Output(h)

        bert.forward = resume_from_cache  # instance attribute: nn.Module.__call__ uses it
        try:
            return span_loss(parser, batch, kind)
        finally:
            del bert.forward


class _Output:
    def __init__(self, last_hidden_state):
        self.last_hidden_state = last_hidden_state


def span_loss(parser, batch: dict, kind: str) -> torch.Tensor:
    """benepar's ``compute_loss`` with the span term swappable (see module docstring)."""
    if kind == "margin":
        return parser.compute_loss(batch)
    span_scores, tag_scores = parser.forward(batch)
    labels = batch["span_labels"].to(span_scores.device)
    loss = F.cross_entropy(span_scores.reshape(-1, span_scores.shape[-1]), labels.reshape(-1),
                           ignore_index=-100, reduction="sum") / batch["batch_size"]
    if tag_scores is not None:
        tag_labels = batch["tag_labels"].to(tag_scores.device)
        loss = loss + parser.tag_loss_scale * F.cross_entropy(
            tag_scores.reshape(-1, tag_scores.shape[-1]), tag_labels.reshape(-1),
            reduction="sum", ignore_index=-100) / batch["batch_num_tokens"]
    return loss


