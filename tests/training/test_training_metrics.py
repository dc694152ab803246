"""The training loop's evaluation figures against known answers: ROUGE, the loss and multiple-choice
accuracy (the loop itself is checked with fixed-logit models in test_training.py)."""

import math

import pytest
import torch

from logicparse.training.metrics import count_correct, mean_loss, rouge


def test_rouge_known_answers():
    kinds = ("rouge1", "rouge2", "rougeL", "rougeLsum")
    same = rouge(["The cat sat on the mat. It purred."], [["The cat sat on the mat. It purred."]])
    assert [same[k] for k in kinds] == [100.0] * 4
    disjoint = rouge(["Dogs bark loudly."], [["The cat sat on the mat."]])
    assert [disjoint[k] for k in kinds] == [0.0] * 4
    # Several references: the best one counts, whatever its place.
    best = rouge(["The cat sat on the mat."], [["Dogs bark loudly.", "The cat sat on the mat."]])
    assert [best[k] for k in kinds] == [100.0] * 4
    # Averaged over predictions: one perfect, one disjoint.
    assert rouge(["a cat", "a dog"], [["a cat"], ["the bird"]])["rouge1"] == 50.0
    # Partial overlap, by hand: 2 of 3 unigrams on each side, P = R = F = 2/3.
    assert rouge(["the cat sat"], [["the cat ran"]])["rouge1"] == round(200 / 3, 4)
    # Words are stemmed (Porter), as in the ROUGE the summarisation papers report.
    assert rouge(["the cats jumped"], [["the cat jumps"]])["rouge1"] == 100.0


def test_rouge_lsum_reads_one_sentence_per_line():
    # Same sentences in the other order: ROUGE-L (one sequence) is hurt, Lsum (per sentence) not.
    swapped = rouge(["It purred. The cat sat on the mat."], [["The cat sat on the mat. It purred."]])
    assert swapped["rougeLsum"] == 100.0 and swapped["rougeL"] < 100.0


def test_count_correct_with_fixed_logits():
    logits = torch.tensor([[0.1, 2.0, 0.3], [5.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 1.0, 3.0]])
    # argmax: 1, 0, 0 (ties: the first option), 2
    assert count_correct(logits, torch.tensor([1, 0, 0, 2])) == 4
    assert count_correct(logits, torch.tensor([1, 2, 1, 2])) == 2
    assert count_correct(logits, torch.tensor([0, 1, 2, 0])) == 0


def test_the_loss_is_float32_whatever_the_logits():
    """Equal logits over 3 options: the loss is log 3. Under bf16 autocast the logits are bf16,
    and a loss taken in bf16 would be 1.1015625 (its nearest value), erasing dev differences."""
    for dtype in (torch.float32, torch.bfloat16):
        loss = mean_loss(torch.zeros(4, 3, dtype=dtype), torch.tensor([0, 1, 2, 0]))
        assert loss.dtype == torch.float32 and loss.item() == pytest.approx(math.log(3), abs=1e-6)
    # Tokens labelled -100 (padding of summaries) are left out of the mean, as Hugging Face does.
    logits = torch.tensor([[[0.0, 0.0], [9.0, -9.0]]]).bfloat16()
    assert mean_loss(logits, torch.tensor([[0, -100]])).item() == pytest.approx(math.log(2), abs=1e-6)
