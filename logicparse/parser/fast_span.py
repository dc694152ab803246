"""Faster CPU inference for benepar's ChartParser, with the same weights and the same trees.

1. The forward pass with the span scorer's first layer factored.

benepar scores span (i, j) with ``f_label(fp[j] - fp[i])`` where ``fp`` are fencepost vectors and
``f_label`` starts with a Linear layer. It builds the full ``(batch, n, n, d_model)`` tensor of
differences and runs that Linear on every span: on a CPU this dominates both training and
parsing. A Linear layer is linear, so ``W(fp[j] - fp[i]) + b = W fp[j] - W fp[i] + b``: projecting
the n fenceposts once and subtracting gives exactly the same numbers at a fraction of the cost.
Everything else (the encoders, LayerNorm/ReLU/output layer, CKY decoding, label handling) is
benepar's, and the weights are unchanged, so ``benepar.Parser`` gives the same trees.

2. CKY decoding without autograd. benepar finds the best tree with torch-struct's ``TreeCRF``,
whose argmax is computed as the gradient of a max-semiring inside pass: a backward pass per batch
that costs as much as the network. Labels are scored independently given the spans, so the best
tree is plain CKY over each span's best label score (label 0, "no constituent", scores 0; the
root must take a real label); :func:`charts_from_scores` runs it in numpy and returns the same
charts as ``ChartDecoder.charts_from_pytorch_scores_batched``.
"""

from __future__ import annotations

import types

import numpy as np
import torch
import torch.nn.functional as F


def forward(self, batch):
    """``benepar.parse_chart.ChartParser.forward`` with the span-scorer factoring (see above)."""
    from benepar import char_lstm

    valid_token_mask = batch["valid_token_mask"].to(self.output_device)
    if self.encoder is not None and valid_token_mask.shape[1] > self.add_timing.timing_table.shape[0]:
        raise ValueError("Sentence of length {} exceeds the maximum supported length of {}".format(
            valid_token_mask.shape[1] - 2, self.add_timing.timing_table.shape[0] - 2))

    if self.char_encoder is not None:
        assert isinstance(self.char_encoder, char_lstm.CharacterLSTM)
        char_ids = batch["char_ids"].to(self.device)
        extra_content_annotations = self.char_encoder(char_ids, valid_token_mask)
    elif self.pretrained_model is not None:
        input_ids = batch["input_ids"].to(self.device)
        words_from_tokens = batch["words_from_tokens"].to(self.output_device)
        pretrained_attention_mask = batch["attention_mask"].to(self.device)
        extra_kwargs = {}
        if "token_type_ids" in batch:
            extra_kwargs["token_type_ids"] = batch["token_type_ids"].to(self.device)
        if "decoder_input_ids" in batch:
            extra_kwargs["decoder_input_ids"] = batch["decoder_input_ids"].to(self.device)
            extra_kwargs["decoder_attention_mask"] = batch["decoder_attention_mask"].to(self.device)
        pretrained_out = self.pretrained_model(
            input_ids, attention_mask=pretrained_attention_mask, **extra_kwargs)
        features = pretrained_out.last_hidden_state.to(self.output_device)
        features = features[torch.arange(features.shape[0])[:, None], F.relu(words_from_tokens)]
        features.masked_fill_(~valid_token_mask[:, :, None], 0)
        if self.encoder is not None:
            extra_content_annotations = self.project_pretrained(features)

    if self.encoder is not None:
        encoder_in = self.add_timing(self.morpho_emb_dropout(extra_content_annotations))
        annotations = self.encoder(encoder_in, valid_token_mask)
        annotations = torch.cat([annotations[..., 0::2], annotations[..., 1::2]], -1)
    else:
        annotations = self.project_pretrained(features)

    tag_scores = self.f_tag(annotations) if self.f_tag is not None else None

    fencepost_annotations = torch.cat(
        [annotations[:, :-1, : self.d_model // 2], annotations[:, 1:, self.d_model // 2 :]], -1)
    first = self.f_label[0]
    projected = F.linear(fencepost_annotations, first.weight)
    span_hidden = (projected.unsqueeze(1) - projected.unsqueeze(2))[:, :-1, 1:]
    if first.bias is not None:
        span_hidden = span_hidden + first.bias
    span_scores = self.f_label[1:](span_hidden)
    span_scores = torch.cat([span_scores.new_zeros(span_scores.shape[:-1] + (1,)), span_scores], -1)
    return span_scores, tag_scores


def _cky(best: np.ndarray, n: int) -> list[tuple[int, int]]:
    """Spans (i, j inclusive) of the highest-scoring binary tree over n words."""
    # inside[i, j]: best score of a tree over words i..j (inclusive); split[i, j]: its split.
    inside = np.zeros((n, n + 1))
    split = np.zeros((n, n + 1), dtype=np.int64)
    idx = np.arange(n)
    inside[idx, idx] = best[idx, idx]
    for length in range(2, n + 1):
        starts = np.arange(0, n - length + 1)
        ends = starts + length - 1
        # candidate split k: left i..k, right k+1..j, for k in i..j-1
        ks = starts[:, None] + np.arange(length - 1)[None, :]
        cand = inside[starts[:, None], ks] + inside[ks + 1, ends[:, None]]
        arg = cand.argmax(1)
        inside[starts, ends] = cand[np.arange(len(starts)), arg] + best[starts, ends]
        split[starts, ends] = ks[np.arange(len(starts)), arg]
    spans, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        spans.append((i, j))
        if i < j:
            k = split[i, j]
            stack.append((k + 1, j))
            stack.append((i, k))
    return spans


def decode_chart(scores: np.ndarray, force_root: bool = True, span_bias: float = 0.0) -> np.ndarray:
    """Chart of label ids (0 = no constituent) for one sentence's ``(n, n, labels)`` scores.

    ``span_bias`` is added to every real label's score: 0 reproduces benepar; a positive value
    trades precision for recall (chosen on development data, see ``logicparse parser calibrate``).
    """
    n = scores.shape[0]
    scores = scores - scores[..., :1]
    real = scores[..., 1:].max(-1) + span_bias
    labels = scores[..., 1:].argmax(-1) + 1
    # A tie with "no constituent" keeps the span empty, as benepar does.
    best = np.maximum(real, 0.0)
    if force_root:
        best[0, n - 1] = real[0, n - 1]
    chart = np.zeros((n, n), dtype=np.int64)
    for i, j in _cky(best, n):
        if real[i, j] > 0 or (force_root and (i, j) == (0, n - 1)):
            chart[i, j] = labels[i, j]
    return chart


def charts_from_scores(decoder, scores: torch.Tensor, lengths: torch.Tensor) -> list:
    """``ChartDecoder.charts_from_pytorch_scores_batched`` by numpy CKY (see module docstring)."""
    scores = scores.detach().float().cpu().numpy()
    bias = float(getattr(decoder, "span_bias", 0.0))
    return [decode_chart(scores[b, :n, :n], decoder.force_root_constituent, bias)
            for b, n in enumerate(lengths.tolist())]


def install(parser) -> None:
    """Use the factored forward and the numpy CKY on this ChartParser instance."""
    parser.forward = types.MethodType(forward, parser)
    decoder = parser.decoder
    decoder.charts_from_pytorch_scores_batched = types.MethodType(charts_from_scores, decoder)
