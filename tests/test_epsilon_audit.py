"""Empirical lower bounds on epsilon (privlib/epsilon_audit.py), against values computed
independently: the binomial tails summed with math.comb and inverted by a bisection written here,
the closed form of the all-right case, and Clopper-Pearson limits of 0 and n successes in closed
form."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

import privlib as pl
from privlib.dp import MAX_EPSILON
from privlib.epsilon_audit import (
    RANDOM_SPLIT,
    SELECTION_SHARE,
    EpsilonLowerBound,
    binomial_epsilon_bound,
    epsilon_lower_bound,
    refit_epsilon_bound,
)
from privlib.errors import PrivlibError


# --------------------------------------------------------------------------------------------
# Independent computations
# --------------------------------------------------------------------------------------------
def _pmf(n: int, p: float) -> list[float]:
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def _tail(correct: int, k_in: int, k_out: int, q: float, epsilon: float) -> float:
    """P[Binomial(k_in, p_in) + Binomial(k_out, p_out) >= correct], summed term by term."""
    odds = math.exp(epsilon)
    p_in = q * odds / (q * odds + 1 - q)
    p_out = (1 - q) * odds / ((1 - q) * odds + q)
    first, second = _pmf(k_in, p_in), _pmf(k_out, p_out)
    return sum(a * b for i, a in enumerate(first) for j, b in enumerate(second) if i + j >= correct)


def _solve(correct: int, k_in: int, k_out: int = 0, q: float = 0.5, alpha: float = 0.05) -> float:
    """The epsilon at which the tail crosses alpha, by bisection on [0, 60]."""
    if _tail(correct, k_in, k_out, q, 0.0) > alpha:
        return 0.0
    low, high = 0.0, 60.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if _tail(correct, k_in, k_out, q, middle) <= alpha else (low, middle)
    return low


# --------------------------------------------------------------------------------------------
# The binomial bound
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("correct", "k_in", "k_out", "q"),
    [
        (10, 10, 0, 0.5),
        (40, 50, 0, 0.5),
        (30, 20, 20, 0.5),
        (70, 100, 0, 0.5),
        (18, 20, 0, 0.3),
        (25, 10, 20, 0.7),
    ],
)
def test_binomial_bound_matches_a_bisection_over_math_comb(correct, k_in, k_out, q):
    expected = _solve(correct, k_in, k_out, q)
    got = binomial_epsilon_bound(correct, k_in, k_out, member_share=q)
    assert got == pytest.approx(expected, abs=1e-6)


def test_all_guesses_right_has_a_closed_form():
    # with r guesses all right the tail is p**r: the bound is logit(alpha**(1 / r))
    for guesses, confidence in ((10, 0.95), (25, 0.99), (3, 0.5)):
        p = (1 - confidence) ** (1 / guesses)
        expected = math.log(p / (1 - p))
        got = binomial_epsilon_bound(guesses, guesses, confidence=confidence)
        assert got == pytest.approx(expected, abs=1e-6)


def test_binomial_bound_grows_with_right_guesses_and_falls_with_confidence():
    bounds = [binomial_epsilon_bound(c, 100) for c in range(0, 101, 5)]
    assert all(b <= a for b, a in zip(bounds, bounds[1:]))
    assert bounds[-1] > bounds[-2] > 0
    levels = [binomial_epsilon_bound(80, 100, confidence=c) for c in (0.5, 0.9, 0.95, 0.999)]
    assert all(b < a for a, b in zip(levels, levels[1:]))


def test_no_guess_or_chance_accuracy_gives_zero():
    assert binomial_epsilon_bound(0, 0) == 0.0
    assert binomial_epsilon_bound(0, 0, 0, randomised=500) == 0.0
    assert binomial_epsilon_bound(50, 100) == 0.0  # half right: what a coin gets


def test_delta_term_matches_the_theorem_by_hand():
    # f(v) + 2 m delta max_i (f(v - i) - f(v)) / i, with f the binomial tail at p(eps)
    correct, guesses, randomised, delta, alpha = 20, 20, 400, 1e-5, 0.05

    def tail(epsilon):
        def f(v):
            return 1.0 if v <= 0 else _tail(v, guesses, 0, 0.5, epsilon)

        worst = max((f(correct - i) - f(correct)) / i for i in range(1, randomised + 1))
        return f(correct) + 2 * randomised * delta * worst

    low, high = 0.0, 60.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if tail(middle) <= alpha else (low, middle)
    got = binomial_epsilon_bound(correct, guesses, delta=delta, randomised=randomised)
    assert got == pytest.approx(low, abs=1e-6)
    assert got < binomial_epsilon_bound(correct, guesses)  # delta weakens the bound


@pytest.mark.parametrize(
    "correct, guesses, randomised, delta",
    [(30, 40, 1000, 1e-4), (20, 20, 400, 1e-5), (55, 80, 3000, 1e-6), (12, 12, 12, 1e-3)],
)
def test_delta_term_matches_the_one_run_theorem_computed_with_scipy(correct, guesses, randomised, delta):
    # Steinke, Nasr and Jagielski (2023), the p-value of their delta > 0 theorem as their audit
    # computes it: beta + 2 m delta alpha, with beta = P[W >= v] and alpha the largest of
    # P[v > W >= v - i] / i over i = 1..v, W ~ Binomial(r, e^eps / (1 + e^eps)); here beta from
    # scipy's survival function, each alpha term a sum of scipy's pmf, the root by brentq
    def p_value(epsilon):
        q = special.expit(epsilon)
        beta = stats.binom.sf(correct - 1, guesses, q)
        alpha = max(
            stats.binom.pmf(np.arange(correct - i, correct), guesses, q).sum() / i
            for i in range(1, correct + 1)
        )
        return beta + 2 * randomised * delta * alpha

    expected = (
        optimize.brentq(lambda e: p_value(e) - 0.05, 0.0, 60.0, xtol=1e-12) if p_value(0) < 0.05 else 0.0
    )
    got = binomial_epsilon_bound(correct, guesses, delta=delta, randomised=randomised)
    assert expected > 0 and got == pytest.approx(expected, abs=1e-6)


def test_binomial_bound_refuses_impossible_counts_and_an_unfair_split_with_delta():
    with pytest.raises(PrivlibError, match="cannot exceed"):
        binomial_epsilon_bound(11, 10)
    with pytest.raises(PrivlibError, match="cannot be fewer"):
        binomial_epsilon_bound(5, 10, randomised=4)
    with pytest.raises(PrivlibError, match="fair split"):
        binomial_epsilon_bound(5, 10, member_share=0.8, delta=1e-6)


# --------------------------------------------------------------------------------------------
# The refit bound
# --------------------------------------------------------------------------------------------
def test_refit_bound_from_closed_form_clopper_pearson_limits():
    # x = n: lower limit (alpha/2)**(1/n); x = 0: upper limit 1 - (alpha/2)**(1/n)
    n, alpha = 40, 0.05
    tpr_low = (alpha / 2) ** (1 / n)
    fpr_high = 1 - (alpha / 2) ** (1 / n)
    assert refit_epsilon_bound(n, n, 0, n) == pytest.approx(math.log(tpr_low / fpr_high), rel=1e-9)
    delta = 0.1
    assert refit_epsilon_bound(n, n, 0, n, delta=delta) == pytest.approx(
        math.log((tpr_low - delta) / fpr_high), rel=1e-9
    )


def test_refit_bound_is_zero_without_evidence_and_refuses_impossible_counts():
    assert refit_epsilon_bound(20, 40, 20, 40) == 0.0
    assert refit_epsilon_bound(1, 1, 0, 1) == 0.0  # one trial each: TPR_low 0.025 < FPR_high 0.975
    with pytest.raises(PrivlibError):
        refit_epsilon_bound(5, 4, 0, 4)


# --------------------------------------------------------------------------------------------
# The result and its reading (the rule: contradicted exactly when the bound exceeds the claim)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bound", "claim", "contradicted"),
    [(0.0, 1.0, False), (1.0, 1.0, False), (1.26, 1.0, True), (0.0, 0.0, False)],
)
def test_reading_says_contradicted_only_above_the_claim(bound, claim, contradicted):
    result = EpsilonLowerBound(
        value=bound, baseline=claim, attack="dcr", records_counted=3000, guesses=12, correct=12
    )
    assert result.contradicts_claim is contradicted
    text = result.reading()
    assert ("contradicts the claim" in text) is contradicted
    assert ("consistent with the claim" in text) is not contradicted
    assert RANDOM_SPLIT in text
    assert "weak bound" in text and "does not prove the claim" in text
    assert "12 of 12 guesses right on 3000 records (dcr)" in text


def test_reading_without_guesses():
    text = EpsilonLowerBound(value=0.0, baseline=1.0, records_counted=30).reading()
    assert "no guess made on 30 records" in text and "consistent with the claim" in text


# --------------------------------------------------------------------------------------------
# One release
# --------------------------------------------------------------------------------------------
@functools.cache
def _adult() -> pd.DataFrame:
    return pl.load_dataset("adult")


def _adult_samples(seed: int, size: int):
    population = _adult()
    order = np.random.default_rng(seed).permutation(len(population))
    return [
        population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True) for i in range(3)
    ]


@pytest.mark.slow  # 2,000 records through the five attacks: about 4 s alone, more under load
def test_a_copy_release_of_1000_records_contradicts_epsilon_one():
    train, holdout, _ = _adult_samples(0, 1000)
    result = epsilon_lower_bound(
        train=train, holdout=holdout, synthetic=train, claimed_epsilon=1.0, random_state=0
    )
    # every training record has a twin at distance 0: hundreds of guesses, all right
    assert result.contradicts_claim and result.value > 3
    assert result.correct == result.guesses >= 100
    assert result.records_counted == 2000 - round(SELECTION_SHARE * 2000)


def test_same_seed_same_bound():
    train, holdout, others = _adult_samples(3, 150)
    release = pl.synth.make("GaussianCopula").fit(others).sample(150, random_state=0)
    release.iloc[:15] = train.iloc[:15].to_numpy()  # some copies, so that a bound above 0 is read
    first, second = (
        epsilon_lower_bound(
            train=train, holdout=holdout, synthetic=release, claimed_epsilon=1.0, random_state=7
        )
        for _ in range(2)
    )
    assert first == second and first.guesses > 0


@pytest.mark.slow  # two seeded draws through the five attacks
def test_a_release_from_other_people_is_consistent_with_epsilon_zero():
    # The generator never saw a training record: the true epsilon is 0, and at 99.9 % confidence
    # a bound above 0 has probability at most 1e-3 per seed (seeded: the outcome is fixed).
    for seed in (1, 2):
        train, holdout, others = _adult_samples(seed, 300)
        release = pl.synth.make("GaussianCopula").fit(others).sample(300, random_state=seed)
        result = epsilon_lower_bound(
            train=train,
            holdout=holdout,
            synthetic=release,
            claimed_epsilon=0.0,
            confidence=0.999,
            random_state=seed,
        )
        assert result.value == 0.0 and not result.contradicts_claim


def test_epsilon_lower_bound_checks_its_inputs_before_any_work():
    table = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(PrivlibError, match="claimed_epsilon"):
        epsilon_lower_bound(train=table, holdout=table, synthetic=table, claimed_epsilon=-1.0)
    with pytest.raises(PrivlibError, match="fair split"):
        epsilon_lower_bound(
            train=table, holdout=table.head(2), synthetic=table, claimed_epsilon=1.0, claimed_delta=1e-6
        )


def test_a_right_guess_against_overwhelming_odds_saturates_at_the_largest_epsilon():
    # q = 1e-60: a "member" guess is right with probability below e**-38 even at epsilon 100
    assert binomial_epsilon_bound(1, 1, member_share=1e-60) == MAX_EPSILON


def test_a_delta_claim_counts_a_number_of_guesses_fixed_in_advance():
    train, holdout, others = _adult_samples(4, 150)
    release = pl.synth.make("GaussianCopula").fit(others).sample(150, random_state=0)
    release.iloc[:30] = train.iloc[:30].to_numpy()
    result = epsilon_lower_bound(
        train=train,
        holdout=holdout,
        synthetic=release,
        claimed_epsilon=1.0,
        claimed_delta=1e-6,
        random_state=0,
    )
    # the k highest counted records in number, k the chosen share of them (at least one)
    counted = 300 - round(SELECTION_SHARE * 300)
    assert result.guesses == max(1, round(result.member_guess_share * counted)) + round(
        result.nonmember_guess_share * counted
    )
    assert result.claimed_delta == 1e-6 and "delta = 1e-06" in result.reading()
