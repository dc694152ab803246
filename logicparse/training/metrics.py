"""The training loop's evaluation figures: loss, multiple-choice accuracy and ROUGE of summaries."""

from __future__ import annotations

import re


def mean_loss(logits, labels):
    """Mean cross-entropy in float32 over ``labels`` (-100: ignored, as Hugging Face models do):
    under bf16 autocast a model's own loss is rounded to bf16's precision (about 0.4%), which
    erases differences between dev losses; classes on the last axis of ``logits``."""
    import torch.nn.functional as F

    return F.cross_entropy(logits.float().flatten(0, -2), labels.flatten(), ignore_index=-100)


def count_correct(logits, labels) -> int:
    """Questions whose highest-scoring option (the first among equals) is the answer;
    ``logits`` [questions, options], ``labels`` [questions]."""
    return int((logits.argmax(-1) == labels).sum().item())


def rouge(predictions: list[str], references: list[list[str]]) -> dict:
    """ROUGE-1/2/L/Lsum F1 (x100) with rouge-score; several references: the best one counts.
    Lsum wants one sentence per line: sentences are split after sentence-final punctuation."""
    from rouge_score import rouge_scorer

    kinds = ["rouge1", "rouge2", "rougeL", "rougeLsum"]
    scorer = rouge_scorer.RougeScorer(kinds, use_stemmer=True)
    totals = dict.fromkeys(kinds, 0.0)
    for pred, refs in zip(predictions, references):
        scores = scorer.score_multi([_lines(r) for r in refs], _lines(pred))
        for k in kinds:
            totals[k] += scores[k].fmeasure
    n = max(len(predictions), 1)
    return {k: round(100 * v / n, 4) for k, v in totals.items()}


def _lines(text: str) -> str:
    return "\n".join(s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s)
