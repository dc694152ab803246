"""The figures of a downstream table (logicparse.training.compare), on hand-computed answers:
mean ± sample std, the paired bootstrap interval of a difference (with its resampling fixed, so
that every quantile can be worked out by hand), Student's t interval over seeds, and the accuracy
of a group of test examples."""

import numpy as np
import pytest
from scipy import stats

from logicparse.training import compare as C


def test_mean_and_sample_std():
    assert C.mean_std([0.4]) == (0.4, 0.0)  # one run: no spread
    # (1, 2, 3, 4): squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, over n - 1 = 3.
    assert C.mean_std(iter([1.0, 2.0, 3.0, 4.0])) == pytest.approx((2.5, (5 / 3) ** 0.5))
    assert C.mean_std([0.5, 0.7]) == pytest.approx((0.6, 0.02 ** 0.5))


def test_correct_matrix_marks_each_runs_right_answers():
    got = C.correct_matrix([[0, 1, 1], [2, 1, 0]], [0, 1, 0])
    assert got.dtype == np.float64 and got.tolist() == [[1, 1, 0], [0, 1, 1]]


class FixedDraws:
    """np.random.default_rng stand-in: records its seed and the draw asked for, and returns the
    given rows of example indices (or zeros of the asked size)."""

    def __init__(self, rows=None):
        self.rows = None if rows is None else np.array(rows)
        self.calls = []

    def __call__(self, seed):
        self.calls.append(("seed", seed))
        return self

    def integers(self, low, high, size):
        self.calls.append((low, high, size))
        return self.rows if self.rows is not None else np.zeros(size, dtype=np.int64)


# Two runs of each source over four test examples: A − B per run is [1, 0, 0, 1] and
# [0, −1, 0, 1], so per example (mean over the runs) [0.5, −0.5, 0, 1]: the difference is 0.25.
A = np.array([[1, 1, 0, 1], [1, 0, 0, 1]], dtype=float)
B = np.array([[0, 1, 0, 0], [1, 1, 0, 0]], dtype=float)
# Five resamples of the four examples, and the mean of each: 0.5, −0.5, 1, 0.25, 0.5.
ROWS = [[0, 0, 0, 0], [1, 1, 1, 1], [3, 3, 3, 3], [0, 1, 2, 3], [2, 2, 3, 3]]


def test_paired_bootstrap_quantiles_by_hand(monkeypatch):
    draws = FixedDraws(ROWS)
    monkeypatch.setattr(C.np.random, "default_rng", draws)
    # Sorted draws −0.5, 0.25, 0.5, 0.5, 1 (positions 0-4, linear interpolation): the 2.5%
    # quantile sits at 0.1 → −0.5 + 0.1 × 0.75 = −0.425; the 97.5% one at 3.9 → 0.5 + 0.9 × 0.5.
    diff, lo, hi = C.paired_bootstrap(A, B, n_boot=5)
    assert (diff, lo, hi) == pytest.approx((0.25, -0.425, 0.95))
    assert draws.calls == [("seed", 0), (0, 4, (5, 4))]  # the same draw for every run
    # A 50% interval: quantiles at 0.25 (position 1) and 0.75 (position 3).
    assert C.paired_bootstrap(A, B, n_boot=5, seed=7, level=0.5) == pytest.approx((0.25, 0.25, 0.5))
    assert draws.calls[-2:] == [("seed", 7), (0, 4, (5, 4))]
    # B − A: the difference and the interval change sign and swap ends.
    assert C.paired_bootstrap(B, A, n_boot=5) == pytest.approx((-0.25, -0.95, 0.425))


def test_paired_bootstrap_defaults_are_the_tables():
    """A table's interval: 2,000 resamples, seed 0, 95%, on every call alike."""
    draws = FixedDraws()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(C.np.random, "default_rng", draws)
        C.paired_bootstrap(A, B)
    assert draws.calls == [("seed", 0), (0, 4, (2000, 4))]
    rng = np.random.default_rng(3)
    a, b = ((rng.random((3, 50)) < p).astype(float) for p in (0.7, 0.5))
    first = C.paired_bootstrap(a, b)
    assert first == C.paired_bootstrap(a, b, n_boot=2000, seed=0, level=0.95)
    assert first == C.paired_bootstrap(a, b)  # the same figures on every call
    assert first[1] < first[0] < first[2]
    assert C.paired_bootstrap(a, b, seed=1) != first


def test_paired_bootstrap_one_run_and_mismatched_runs():
    one_a, one_b = np.array([1.0, 1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0, 0.0])
    assert C.paired_bootstrap(one_a, one_b, n_boot=50) == C.paired_bootstrap(
        one_a[None, :], one_b[None, :], n_boot=50)
    assert C.paired_bootstrap(one_a, one_b)[0] == 0.5
    with pytest.raises(ValueError, match=r"same shape, got \(2, 4\) and \(1, 4\)"):
        C.paired_bootstrap(A, B[:1])


def test_seed_interval_is_students_t():
    # Two seeds, differences 0 and 0.1: mean 0.05, sd 0.1/√2, t(0.975, 1) = 12.7062:
    # half-width 12.7062 × (0.1/√2) / √2 = 0.63531.
    lo, hi = C.seed_interval([0.0, 0.1])
    assert (lo, hi) == pytest.approx((0.05 - 0.635310, 0.05 + 0.635310), abs=1e-6)
    # Three seeds at 90%: t(0.95, 2) = 2.919986, sd 0.01: half-width 2.919986 × 0.01 / √3.
    assert C.seed_interval([0.01, 0.02, 0.03], level=0.9) == pytest.approx(
        (0.02 - 0.0168585, 0.02 + 0.0168585), abs=1e-7)
    assert C.seed_interval([0.01, 0.02, 0.03]) == pytest.approx(
        (0.02 - 0.02484138, 0.02 + 0.02484138))
    assert C.seed_interval([0.2, 0.2]) == (0.2, 0.2)  # no spread over seeds
    assert C.seed_interval([0.01]) is None and C.seed_interval([]) is None


def test_seeds_needed_for_a_half_width_on_known_answers():
    # sd 0.02: t(0.975, n - 1) × 0.02 / √n is 0.010283 at n = 17 and 0.009946 at n = 18.
    diffs = [0.02, -0.02] * 3 + [0.0]
    assert C.seeds_needed(diffs, 0.01) == 18
    # at 90%: t(0.95, n - 1) × 0.02 / √n is 0.010369 at n = 12 and 0.009886 at n = 13
    assert C.seeds_needed(diffs, 0.01, level=0.9) == 13
    # two seeds are enough to estimate the spread: sd 0.1/√2, half-width 0.635310 at n = 2
    assert C.seeds_needed([0.0, 0.1], 0.6354) == 2 and C.seeds_needed([0.0, 0.1], 0.6353) == 3
    assert C.seeds_needed([0.01], 0.01) is None and C.seeds_needed([], 0.01) is None
    assert C.seeds_needed([0.0, 0.0], 0.01) == 2  # no spread
    # "at most": a half-width equal to the one asked for is enough
    assert C.seeds_needed([0.0, 0.0], 0.0) == 2
    exact = stats.t.ppf(0.5 + 0.95 / 2, 1) * C.mean_std([0.0, 0.1])[1] / 2 ** 0.5
    assert C.seeds_needed([0.0, 0.1], exact) == 2
    # at most 1000 by default: with sd 0.1/√2 the half-width is 0.0043879 at n = 1000 and
    # 0.0043857 at n = 1001
    assert C.seeds_needed([0.0, 0.1], 0.004388) == 1000
    assert C.seeds_needed([0.0, 0.1], 0.004387) is None
    assert C.seeds_needed([0.0, 0.1], 0.004387, most=1001) == 1001


def test_group_accuracy_over_the_groups_examples():
    correct = np.array([[1, 0, 1, 1], [0, 0, 1, 1]], dtype=float)
    members = np.array([True, True, False, True])
    # Run 1: 2 of its 3 members right, run 2: 1 of 3: mean 0.5, sd of (2/3, 1/3) = √2 / 6.
    m, s, n = C.group_accuracy(correct, members)
    assert (m, s) == pytest.approx((0.5, 2 ** 0.5 / 6)) and n == 3 and type(n) is int
    assert C.group_accuracy(correct, np.array([False, False, True, False])) == (1.0, 0.0, 1)
    assert C.group_accuracy(correct[:1], members) == pytest.approx((2 / 3, 0.0, 3))
    assert C.group_accuracy(correct, np.zeros(4, dtype=bool)) is None
