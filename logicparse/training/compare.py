"""Comparing label sources over several seeds: the figures of a downstream table.

Every run of a table keeps its test predictions, so the comparison is paired twice over: seed by
seed (the same training seed for both sources) and pair by pair (the same test examples). The 95%
interval of a difference resamples the test examples (a bootstrap over the test set), holding the
runs fixed: it says how much the difference depends on which test pairs were drawn, not how much
it would move with other seeds. The seed interval (Student's t over the per-seed differences) says
that, and with three seeds it is wide.
"""

from __future__ import annotations

import statistics
from typing import Optional, Sequence

import numpy as np

# The columns of one finished run in a results file (JSON Lines, one object per run).
RESULT_KEYS = ("task", "logic", "seed", "train_size", "epochs", "lr", "dev_accuracy",
               "test_accuracy", "steps", "seconds", "step_ratio")


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    values = list(values)
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def correct_matrix(predictions: Sequence[Sequence[int]], gold: Sequence[int]) -> np.ndarray:
    """[runs, examples] 1.0 where a run's prediction is the gold label."""
    return (np.asarray(predictions) == np.asarray(gold)[None, :]).astype(np.float64)


def paired_bootstrap(a: np.ndarray, b: np.ndarray, n_boot: int = 2000, seed: int = 0,
                     level: float = 0.95) -> tuple[float, float, float]:
    """Difference of accuracy A − B (mean over the paired runs) and its bootstrap interval.

    ``a`` and ``b`` are [runs, examples] correctness matrices, row i of both from the same seed.
    Each resample draws the examples with replacement (the same draw for every run of both
    sources) and takes the mean over runs of the accuracy difference."""
    a, b = np.atleast_2d(a), np.atleast_2d(b)
    if a.shape != b.shape:
        raise ValueError(f"paired runs need the same shape, got {a.shape} and {b.shape}")
    per_example = (a - b).mean(axis=0)  # the mean over runs, per test example
    n = per_example.size
    rng = np.random.default_rng(seed)
    draws = per_example[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    tail = (1 - level) / 2
    return float(per_example.mean()), float(np.quantile(draws, tail)), float(np.quantile(draws, 1 - tail))


def seed_interval(differences: Sequence[float], level: float = 0.95) -> Optional[tuple[float, float]]:
    """Student's t interval of the mean of per-seed paired differences (None for fewer than 2)."""
    from scipy import stats

    if len(differences) < 2:
        return None
    m, sd = mean_std(differences)
    half = stats.t.ppf(0.5 + level / 2, len(differences) - 1) * sd / len(differences) ** 0.5
    return m - half, m + half


def seeds_needed(differences: Sequence[float], half_width: float, level: float = 0.95,
                 most: int = 1000) -> Optional[int]:
    """How many seeds a t interval of the mean difference would need for a half-width of at most
    ``half_width``, if the per-seed differences kept their sample standard deviation (None for
    fewer than 2 differences, or more than ``most``)."""
    from scipy import stats

    if len(differences) < 2:
        return None
    sd = mean_std(differences)[1]
    for n in range(2, most + 1):
        if stats.t.ppf(0.5 + level / 2, n - 1) * sd / n ** 0.5 <= half_width:
            return n
    return None


def group_accuracy(correct: np.ndarray, members: np.ndarray) -> Optional[tuple[float, float, int]]:
    """Accuracy over the examples in ``members`` (a boolean mask), mean ± std over runs, and the
    group's size; None for an empty group."""
    if not members.any():
        return None
    per_run = correct[:, members].mean(axis=1)
    m, s = mean_std(per_run.tolist())
    return m, s, int(members.sum())
