"""Faster CPU inference for benepar's ChartParser, with the same weights and the same trees.

1. The forward pass with the span scorer's first layer factored.

benepar scores span (i, j) with ``f_label(fp[j] - fp[i])`` where ``fp`` are fencepost vectors and
``f_label`` starts with a Linear layer. It builds the full ``(batch, n, n, d_model)`` tensor of
differences and runs that Linear on every span: on a CPU this dominates both training and
parsing. A Linear layer is linear, so ``W(fp[j] - fp[i]) + b = W fp[j] - W fp[i] + b``: projecting
the n fenceposts once and subtracting gives exactly the same numbers at a fraction of the cost.
Everything else (the encoders, LayerNorm/ReLU/output layer, CKY decoding, label handling) is
benepar's, and the weights are unchanged, so ``benepar.Parser`` gives the same trees.

2. At inference, only the spans that exist. The padded ``(batch, n, n)`` square holds every
sentence's spans twice over (i > j) and, in a batch of mixed lengths, the padding's squared: the
rest of the span scorer (LayerNorm, ReLU, output layer) was a third of a worker's time on the
inaugural addresses. :func:`best_spans` runs it on the real spans alone (flat fencepost indices
from :func:`span_index`) and returns each span's best label and score, which is all decoding
reads.

3. CKY decoding without autograd. benepar finds the best tree with torch-struct's ``TreeCRF``,
whose argmax is computed as the gradient of a max-semiring inside pass: a backward pass per batch
that costs as much as the network. Labels are scored independently given the spans, so the best
tree is plain CKY over each span's best label score (label 0, "no constituent", scores 0; the
root must take a real label); :func:`charts_from_scores` runs it in numpy and returns the same
charts as ``ChartDecoder.charts_from_pytorch_scores_batched``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

import numpy as np

from ..resources import one_torch_thread_in_forked_children

if TYPE_CHECKING:  # imported where it runs: the ONNX Runtime path never imports torch
    import torch


def _projected(self, batch: dict):
    """Fencepost vectors through the span scorer's first Linear (no bias), and the tag scores."""
    import torch
    import torch.nn.functional as F
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
        # clamp, not relu: the same indices, and ONNX Runtime has no integer ReLU.
        features = features[torch.arange(features.shape[0])[:, None],
                            words_from_tokens.clamp(min=0)]
        features = features.masked_fill(~valid_token_mask[:, :, None], 0)
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
    return F.linear(fencepost_annotations, self.f_label[0].weight), tag_scores


def forward(self, batch):
    """``benepar.parse_chart.ChartParser.forward`` with the span-scorer factoring (see above)."""
    import torch

    projected, tag_scores = _projected(self, batch)
    span_hidden = (projected.unsqueeze(1) - projected.unsqueeze(2))[:, :-1, 1:]
    first = self.f_label[0]
    if first.bias is not None:
        span_hidden = span_hidden + first.bias
    span_scores = self.f_label[1:](span_hidden)
    span_scores = torch.cat([span_scores.new_zeros(span_scores.shape[:-1] + (1,)), span_scores], -1)
    return span_scores, tag_scores


def best_spans(self, batch, left: torch.Tensor, right: torch.Tensor):
    """Each real span's best label score and label id (>= 1), and each word's tag id.

    ``left``/``right``: flat indices into the ``(batch * fenceposts)`` rows of the projected
    fenceposts (:func:`span_index`). The same arithmetic as :func:`forward` on those spans."""
    flat, tags = fenceposts(self, batch)
    best, label = span_labels(self, flat, left, right)
    return best, label, tags


def fenceposts(self, batch):
    """The network up to the spans: every fencepost through the span scorer's first Linear,
    flat (``batch * fenceposts`` rows), and each word's tag id (one 0 without a tagger)."""
    import torch

    projected, tag_scores = _projected(self, batch)
    tags = tag_scores.argmax(-1) if tag_scores is not None else torch.zeros(1, dtype=torch.long)
    return projected.reshape(-1, projected.shape[-1]), tags


def span_labels(self, flat, left, right):
    """The rest of the span scorer on the spans (``left``, ``right``) of :func:`fenceposts`'
    rows: each span's best label score and label id (>= 1). Each span is scored on its own, so
    the spans can be scored in chunks."""
    span_hidden = flat.index_select(0, right) - flat.index_select(0, left)
    first = self.f_label[0]
    if first.bias is not None:
        span_hidden = span_hidden + first.bias
    best, label = self.f_label[1:](span_hidden).max(-1)
    return best, label + 1


def span_index(lengths, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat fencepost indices (left, right) of every span (i, j), i <= j < n, of every sentence,
    in row-major chart order; ``width`` = fenceposts per padded sentence (words + 1)."""
    lefts, rights = [], []
    for b, n in enumerate(lengths):
        i, j = np.triu_indices(n)
        lefts.append(b * width + i)
        rights.append(b * width + j + 1)
    return np.concatenate(lefts), np.concatenate(rights)


def charts_from_best(best: np.ndarray, labels: np.ndarray, lengths, force_root: bool,
                     span_bias: float = 0.0) -> list[np.ndarray]:
    """Charts from :func:`best_spans`' flat output (sentences in order, spans as in
    :func:`span_index`), by the same decoding as :func:`decode_chart`."""
    out, at = [], 0
    for n in lengths:
        m = n * (n + 1) // 2
        i, j = np.triu_indices(n)
        real = np.zeros((n, n), dtype=best.dtype)
        lab = np.zeros((n, n), dtype=np.int64)
        real[i, j] = best[at : at + m]
        lab[i, j] = labels[at : at + m]
        out.append(_decode(real + np.float32(span_bias), lab, n, force_root))
        at += m
    return out


def _cky(best: np.ndarray, n: int) -> list[tuple[int, int]]:
    """Spans (i, j inclusive) of the highest-scoring binary tree over n words."""
    # by_start[i, l]: best score of a tree over the l words from i; by_end[j, l]: over the l
    # words ending at j (the same numbers, laid out so that each length's candidates are slices).
    by_start = np.zeros((n + 1, n + 1))
    by_end = np.zeros((n + 1, n + 1))
    split = np.zeros((n, n + 1), dtype=np.int64)
    diag = np.diagonal(best).astype(np.float64)
    by_start[:n, 1] = diag
    by_end[:n, 1] = diag
    for length in range(2, n + 1):
        m = n - length + 1
        # candidate splits k = i .. j-1: left i..k (length 1..L-1), right k+1..j (L-1..1)
        cand = by_start[:m, 1:length] + by_end[length - 1 : n, length - 1 : 0 : -1]
        arg = cand.argmax(1)
        value = cand[np.arange(m), arg] + np.diagonal(best, length - 1)
        by_start[:m, length] = value
        by_end[length - 1 : n, length] = value
        split[:m, length] = np.arange(m) + arg
    spans, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        spans.append((i, j))
        if i < j:
            k = split[i, j - i + 1]
            stack.append((k + 1, j))
            stack.append((i, k))
    return spans


def _decode(real: np.ndarray, labels: np.ndarray, n: int, force_root: bool) -> np.ndarray:
    # A tie with "no constituent" keeps the span empty, as benepar does.
    best = np.maximum(real, 0.0)
    if force_root:
        best[0, n - 1] = real[0, n - 1]
    chart = np.zeros((n, n), dtype=np.int64)
    for i, j in _cky(best, n):
        if real[i, j] > 0 or (force_root and (i, j) == (0, n - 1)):
            chart[i, j] = labels[i, j]
    return chart


def decode_chart(scores: np.ndarray, force_root: bool = True, span_bias: float = 0.0) -> np.ndarray:
    """Chart of label ids (0 = no constituent) for one sentence's ``(n, n, labels)`` scores.

    ``span_bias`` is added to every real label's score: 0 reproduces benepar; a positive value
    trades precision for recall (chosen on development data, see ``logicparse parser calibrate``).
    """
    n = scores.shape[0]
    scores = scores - scores[..., :1]
    return _decode(scores[..., 1:].max(-1) + span_bias, scores[..., 1:].argmax(-1) + 1, n,
                   force_root)


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


class TorchNetwork:
    """benepar's own modules (any device; the path on a GPU and the fallback)."""

    name = "torch"
    precision = "fp32"

    def __init__(self, chart_parser):
        self.chart_parser = chart_parser
        one_torch_thread_in_forked_children()

    def __call__(self, batch: dict, left: np.ndarray, right: np.ndarray):
        import torch

        device = self.chart_parser.output_device
        one_torch_thread_in_forked_children()
        batch = {k: torch.as_tensor(v) for k, v in batch.items()}  # numpy from subwords.py
        with torch.inference_mode():
            best, labels, tags = best_spans(self.chart_parser, batch,
                                            torch.from_numpy(left).to(device),
                                            torch.from_numpy(right).to(device))
        tags = tags.cpu().numpy() if self.chart_parser.f_tag is not None else None
        return best.float().cpu().numpy(), labels.cpu().numpy(), tags
