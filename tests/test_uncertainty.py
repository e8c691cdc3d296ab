"""Tests of privlib.uncertainty: the Wilson interval against the formula and a published table,
the coverage of both methods in seeded simulations, and the exactness of the vectorised resamples.
"""

import math

import numpy as np
import pytest
from scipy.stats import norm

from privlib.errors import PrivlibError
from privlib.uncertainty import (
    auc_interval,
    bootstrap_interval,
    percentile_interval,
    resampled_means,
    wilson_interval,
)


# --------------------------------------------------------------------------------------------
# Wilson
# --------------------------------------------------------------------------------------------
def wilson_by_formula(x, n, z):
    """The score interval written out as in Wilson (1927) / Brown, Cai & DasGupta (2001), eq. 4."""
    p = x / n
    centre = (x + z * z / 2) / (n + z * z)
    half = z * math.sqrt(n) / (n + z * z) * math.sqrt(p * (1 - p) + z * z / (4 * n))
    return centre - half, centre + half


@pytest.mark.parametrize("x, n", [(1, 10), (5, 20), (37, 100), (299, 300)])
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_wilson_matches_the_formula(x, n, confidence):
    z = norm.ppf(0.5 + confidence / 2)
    assert wilson_interval(x, n, confidence=confidence) == pytest.approx(wilson_by_formula(x, n, z))


def test_wilson_published_values():
    # Newcombe (1998), Stat Med 17, Table I, method 3 (score interval without continuity
    # correction): 81/263 -> 0.2553 to 0.3662; 15/148 -> 0.0624 to 0.1605; 0/20 -> 0 to 0.1611
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=5e-5)
    assert wilson_interval(15, 148) == pytest.approx((0.0624, 0.1605), abs=5e-5)
    assert wilson_interval(0, 20) == pytest.approx((0.0, 0.1611), abs=5e-5)


def test_wilson_edges_and_bad_input():
    assert wilson_interval(10, 10)[1] == 1.0 and wilson_interval(0, 10)[0] == 0.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(PrivlibError, match="`successes`"):
        wilson_interval(11, 10)
    with pytest.raises(PrivlibError, match="`trials`"):
        wilson_interval(1, 2.5)
    with pytest.raises(PrivlibError, match="`confidence`"):
        wilson_interval(1, 2, confidence=95)


def test_wilson_covers_the_true_rate():
    # 100 seeded binomial draws of n = 200 at p = 0.1: the 95% interval must hold p in >= 90
    rng = np.random.default_rng(2024)
    p, n = 0.1, 200
    covered = 0
    for x in rng.binomial(n, p, size=100):
        low, high = wilson_interval(int(x), n)
        covered += low <= p <= high
    assert covered >= 90


# --------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------
def auc_by_pairs(positives, negatives):
    """AUC by brute force over every pair, ties counted half."""
    diff = positives[:, None] - negatives[None, :]
    return float(np.mean((diff > 0) + 0.5 * (diff == 0)))


def test_bootstrap_auc_covers_a_known_auc():
    # scores N(delta, 1) for members and N(0, 1) for non-members: AUC = Phi(delta / sqrt(2))
    delta = 0.8
    true_auc = norm.cdf(delta / math.sqrt(2))
    rng = np.random.default_rng(7)
    covered = 0
    for _ in range(100):
        members, others = rng.normal(delta, 1, 80), rng.normal(0, 1, 80)
        low, high = auc_interval(members, others, rng=rng, n_bootstrap=200)
        covered += low <= true_auc <= high
    assert covered >= 88


def test_auc_interval_resamples_the_exact_statistic():
    # with one resample whose draws are known, the fast statistic must equal the AUC of the
    # resampled scores computed pair by pair (ties included: scores are rounded)
    scores = np.random.default_rng(3)
    members, others = np.round(scores.normal(0.5, 1, 40), 1), np.round(scores.normal(0, 1, 30), 1)
    low, high = auc_interval(members, others, rng=np.random.default_rng(9), n_bootstrap=1)
    draw = np.random.default_rng(9)
    neg = others[draw.integers(0, 30, size=30)]
    pos = members[draw.integers(0, 40, size=40)]
    assert low == high == pytest.approx(auc_by_pairs(pos, neg))


def test_auc_interval_is_seeded_and_handles_empty_groups():
    a, b = np.arange(10.0), np.arange(5.0, 15.0)
    first = auc_interval(a, b, rng=np.random.default_rng(1))
    assert first == auc_interval(a, b, rng=np.random.default_rng(1))
    assert all(math.isnan(v) for v in auc_interval([], b, rng=np.random.default_rng(1)))


def test_resampled_means_of_indicators_are_binomial():
    # 0/1 values: the resampled mean is Binomial(n, p) / n, so over many resamples its mean is p
    # and its variance p (1 - p) / n
    values = np.r_[np.ones(30, dtype=bool), np.zeros(70, dtype=bool)]
    means = resampled_means(values, rng=np.random.default_rng(0), n_bootstrap=20000)
    assert means.mean() == pytest.approx(0.3, abs=0.002)
    assert means.var() == pytest.approx(0.3 * 0.7 / 100, rel=0.05)
    assert np.allclose(means * 100, np.round(means * 100))  # whole counts


def test_resampled_means_of_few_values_match_record_resampling():
    # few distinct values go through multinomial counts: same mean and variance as resampling
    # records (variance of the mean = population variance / n)
    values = np.repeat([0.25, 0.5, 1.0], [50, 30, 20])
    means = resampled_means(values, rng=np.random.default_rng(1), n_bootstrap=20000)
    assert means.mean() == pytest.approx(values.mean(), abs=0.002)
    assert means.var() == pytest.approx(values.var() / values.size, rel=0.05)


def test_bootstrap_interval_and_percentiles():
    assert [round(v, 9) for v in percentile_interval(np.arange(1001.0))] == [25.0, 975.0]
    assert all(math.isnan(v) for v in percentile_interval([np.nan, np.inf]))
    rng = np.random.default_rng(0)
    low, high = bootstrap_interval(np.mean, [np.r_[np.zeros(50), np.ones(50)]], rng=rng)
    # the normal approximation: 0.5 +- 1.96 * sqrt(0.25 / 100) = 0.5 +- 0.098
    assert low == pytest.approx(0.402, abs=0.03) and high == pytest.approx(0.598, abs=0.03)
    with pytest.raises(PrivlibError, match="`n_bootstrap`"):
        bootstrap_interval(np.mean, [np.ones(3)], rng=rng, n_bootstrap=0)
    with pytest.raises(PrivlibError, match="`n_bootstrap`"):
        resampled_means(np.ones(3), rng=rng, n_bootstrap=1.5)
