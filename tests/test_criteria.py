"""Singling out, linkability and inference (privlib.identity, privlib.attribute, on privlib.criteria):
toy tables worked out by hand."""

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import integrate
from scipy.stats import norm

import privlib as pl
from privlib import PrivlibError, criteria
from privlib.attribute.inference import _guess_is_right
from privlib.identity.singling_out import (
    EQ,
    GT,
    ISNA,
    LE,
    NE,
    NOTNA,
    _Indexed,
    _Predicates,
    _singles_out,
    singling_out_probability,
)
from privlib.results import NOT_ASSESSABLE, RISK


def wilson(k, n, confidence=0.95):
    """The Wilson score interval written out from Wilson (1927), independently of the kit."""
    z = norm.ppf(0.5 + confidence / 2)
    p = k / n
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    return max(0.0, centre - half), min(1.0, centre + half)


def risk_interval(a, n_a, c, n_c):
    """(a - c) / (1 - c) and its first-order interval from the rates' Wilson half-widths."""
    rate_a, rate_c = a / n_a, c / n_c
    half_a = (wilson(a, n_a)[1] - wilson(a, n_a)[0]) / 2
    half_c = (wilson(c, n_c)[1] - wilson(c, n_c)[0]) / 2
    risk = (rate_a - rate_c) / (1 - rate_c)
    error = math.sqrt((half_a / (1 - rate_c)) ** 2 + (half_c * (rate_a - 1) / (1 - rate_c) ** 2) ** 2)
    return risk, risk - error, min(1.0, risk + error)


# --------------------------------------------------------------------------------------------
# Singling out
# --------------------------------------------------------------------------------------------
@pytest.fixture
def ages():
    # Univariate candidates of the synthetic data, by hand: age 20 is the unique minimum
    # ("age <= 20") and held once ("age == 20"); 40 is held once ("age == 40"); the maximum 50
    # is held twice and every sex three times, so nothing else singles out a synthetic record.
    synthetic = pd.DataFrame({"age": [20, 30, 30, 40, 50, 50], "sex": list("FFMMFM")})
    # Training: "<= 20" and "== 20" match one record each, "== 40" matches two: 2 of 3 succeed.
    train = pd.DataFrame({"age": [20, 40, 40, 55], "sex": list("FMFM")})
    # Control: only "== 40" matches exactly one record: 1 of 3.
    control = pd.DataFrame({"age": [25, 40, 60, 70], "sex": list("FMFM")})
    return synthetic, train, control


def test_univariate_singling_out_by_hand(ages):
    synthetic, train, control = ages
    result = pl.identity.singling_out(
        synthetic=synthetic, train=train, holdout=control, n_attacks=10, random_state=0
    )
    assert (result.n_requested, result.n_attacks) == (10, 3)
    assert sorted(result.predicate_rows.tolist()) == [0, 0, 3]
    assert result.predicate_columns.tolist() == [[0]] * 3
    assert (result.attack_successes, result.control_successes) == (2, 1)
    assert result.attack_rate == pytest.approx(2 / 3)
    assert result.control_rate == pytest.approx(1 / 3)
    # per predicate: the one built from row 3 ("age == 40") fails on train and succeeds on control
    from_row_3 = result.predicate_rows == 3
    assert not result.attack_success[from_row_3].any() and result.control_success[from_row_3].all()
    risk, low, high = risk_interval(2, 3, 1, 3)
    assert result.value == pytest.approx(0.5) == pytest.approx(risk)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))
    assert (result.attack_ci_low, result.attack_ci_high) == pytest.approx(wilson(2, 3))
    assert (result.control_ci_low, result.control_ci_high) == pytest.approx(wilson(1, 3))
    assert result.control_correction == 1.0  # same size: nothing to correct
    assert result.baseline == 0.0 and result.ci_method == "wilson"


def test_a_unique_missing_value_singles_out_and_missing_differs_from_values():
    synthetic = pd.DataFrame({"city": ["A", "A", np.nan, "B", "B"]})
    train = pd.DataFrame({"city": ["A", np.nan, "B", "B"]})
    control = pd.DataFrame({"city": [np.nan, np.nan, "A", "A"]})
    result = pl.identity.singling_out(synthetic=synthetic, train=train, holdout=control, random_state=1)
    # the only candidate is "city is missing": one training record, two control records
    assert result.n_attacks == 1
    assert (result.attack_successes, result.control_successes) == (1, 0)

    table = np.array([[np.nan], [1.0], [2.0]])
    terms = [
        (NE, 1.0),
        (EQ, 1.0),
        (LE, 1.0),
        (ISNA, np.nan),
        (NOTNA, np.nan),
        (GT, 1.0),
    ]
    predicates = _Predicates(
        np.zeros((len(terms), 1), dtype=np.int64),
        np.array([[op] for op, _ in terms]),
        np.array([[v] for _, v in terms]),
        np.zeros(len(terms), dtype=np.int64),
    )
    # != 1 holds for the missing cell and 2 (two records); == 1, <= 1, missing and > 1 hold once
    assert _singles_out(predicates, table).tolist() == [False, True, True, True, False, True]


def test_multivariate_predicates_are_unique_and_single_out_their_record():
    # three distinct records on two categorical columns: at most three distinct predicates
    synthetic = pd.DataFrame({"a": list("xxyy"), "b": list("uvuu")})
    train = pd.DataFrame({"a": list("xy"), "b": list("vu")})
    result = pl.identity.singling_out(
        synthetic=synthetic,
        train=train,
        holdout=train,
        mode="multivariate",
        n_cols=2,
        n_attacks=10,
        random_state=0,
    )
    # (x, u) and (x, v) single out rows 0 and 1; (y, u) is held by rows 2 and 3
    assert result.n_attacks == 2
    assert sorted(result.predicate_rows.tolist()) == [0, 1]
    # (x, v) is in train once, (x, u) is not: one success, and the control (= train) the same
    assert result.attack_successes == result.control_successes == 1


def test_no_predicate_is_not_assessable_and_says_why():
    # every value is held by two synthetic records: nothing singles one out on one column
    synthetic = pd.DataFrame({"sex": list("FFMM"), "town": list("abab")})
    result = pl.identity.singling_out(synthetic=synthetic, train=synthetic, holdout=synthetic, random_state=0)
    assert result.n_attacks == 0 and math.isnan(result.value)
    assert result.verdict == NOT_ASSESSABLE
    assert "no univariate predicate singles out one synthetic record" in result.reading()


def test_predicate_evaluation_matches_a_brute_force_loop():
    rng = np.random.default_rng(3)
    table = rng.integers(0, 4, size=(60, 3)).astype(float)
    table[rng.random(table.shape) < 0.1] = np.nan
    q = 300
    columns = np.sort(np.argsort(rng.random((q, 3)), axis=1)[:, :2], axis=1)
    ops = rng.integers(0, 8, size=(q, 2))
    values = rng.integers(0, 4, size=(q, 2)).astype(float)
    predicates = _Predicates(columns, ops, values, np.zeros(q, dtype=np.int64))

    def holds(cell, op, value):
        missing = cell != cell
        return [
            cell == value,
            missing or cell != value,
            not missing and cell < value,
            not missing and cell > value,
            not missing and cell <= value,
            not missing and cell >= value,
            missing,
            not missing,
        ][op]

    expected = [
        sum(all(holds(row[columns[i, t]], ops[i, t], values[i, t]) for t in range(2)) for row in table) == 1
        for i in range(q)
    ]
    assert _singles_out(predicates, table).tolist() == expected
    subset = np.array([5, 7, 11, 40])
    expected_subset = [
        sum(all(holds(table[r, columns[i, t]], ops[i, t], values[i, t]) for t in range(2)) for r in subset)
        == 1
        for i in range(q)
    ]
    assert _singles_out(predicates, table, subset).tolist() == expected_subset


def test_singling_out_probability_is_the_integral_of_cohen_and_nissim():
    n = 25
    numeric, _ = integrate.quad(lambda w: n * w * (1 - w) ** (n - 1), 0.01, 0.2)
    assert singling_out_probability(n, 0.01, 0.2) == pytest.approx(numeric)


@pytest.fixture
def people():
    rng = np.random.default_rng(7)
    n = 200
    table = pd.DataFrame(
        {
            "id": rng.permutation(10 * n)[: 2 * n].astype(float),  # unique: every value singles out
            "age": rng.integers(18, 90, size=2 * n),
            "sex": rng.choice(["F", "M"], size=2 * n),
            "ill": rng.choice(["no", "yes"], size=2 * n, p=[0.8, 0.2]),
        }
    )
    return table.iloc[:n].reset_index(drop=True), table.iloc[n:].reset_index(drop=True)


def test_copying_unique_values_is_a_risk(people):
    train, control = people
    result = pl.thresholds.judge(
        pl.identity.singling_out(synthetic=train, train=train, holdout=control, n_attacks=150, random_state=0)
    )
    assert result.attack_rate == 1.0  # every predicate of a copy singles out its own record
    assert result.verdict == RISK and result.ci_low > 0.05
    json.dumps(result.to_dict())  # serialisable


def test_same_seed_same_predicates_and_risk(people):
    train, control = people
    synthetic = pl.synth.IndependentMarginals().fit(train).sample(random_state=0)
    for mode in ("univariate", "multivariate"):
        runs = [
            pl.identity.singling_out(
                synthetic=synthetic,
                train=train,
                holdout=control,
                mode=mode,
                n_attacks=30,
                n_cols=2,
                max_attempts=3000,
                random_state=seed,
            )
            for seed in (11, 11, 12)
        ]
        first, again, other = runs
        assert first.predicate_rows.tolist() == again.predicate_rows.tolist()
        assert first.predicate_columns.tolist() == again.predicate_columns.tolist()
        assert first.baseline_success.tolist() == again.baseline_success.tolist()
        assert first.value == again.value and first.ci_low == again.ci_low
        assert first.predicate_rows.tolist() != other.predicate_rows.tolist()


def test_control_of_another_size_is_corrected(people):
    train, control = people
    same = pl.identity.singling_out(
        synthetic=train, train=train, holdout=control, n_attacks=100, random_state=0
    )
    smaller = pl.identity.singling_out(
        synthetic=train, train=train, holdout=control.iloc[:120], n_attacks=100, random_state=0
    )
    assert same.control_correction == 1.0
    assert smaller.control_correction != 1.0 and math.isfinite(smaller.control_correction)


# --------------------------------------------------------------------------------------------
# Linkability
# --------------------------------------------------------------------------------------------
def test_linkability_by_hand():
    train = pd.DataFrame({"age": [23, 35, 47, 59], "sex": list("FMFM"), "zip": list("abcd")})
    # each control record's (age, sex) is nearest to synthetic row i, its zip is row i + 1's
    control = pd.DataFrame({"age": [24, 36, 48, 58], "sex": list("FMFM"), "zip": list("bcda")})
    result = pl.identity.linkability(
        synthetic=train, train=train, holdout=control, aux_columns=(["age", "sex"], ["zip"]), random_state=0
    )
    assert (result.n_attacks, result.attack_successes, result.control_successes) == (4, 4, 0)
    assert result.value == 1.0
    assert sorted(result.targets.tolist()) == [0, 1, 2, 3]
    # with two neighbours, (24, F) finds rows 0 and 2 and zip "b" row 1 plus a random other row
    two = pl.identity.linkability(
        synthetic=train,
        train=train,
        holdout=control,
        aux_columns=(["age", "sex"], ["zip"]),
        n_neighbors=2,
        random_state=0,
    )
    assert two.attack_successes == 4 and two.n_neighbors == 2


def test_linkability_ties_are_broken_at_random_per_half():
    # every synthetic record is the same on both halves: each half picks one of 5 at random,
    # so about a fifth of the targets link; always taking the first would link every one
    synthetic = pd.DataFrame({"a": ["x"] * 5, "b": ["y"] * 5})
    train = pd.DataFrame({"a": ["x"] * 200, "b": ["y"] * 200})
    result = pl.identity.linkability(
        synthetic=synthetic,
        train=train,
        holdout=train,
        aux_columns=(["a"], ["b"]),
        n_attacks=200,
        random_state=0,
    )
    assert 0.1 < result.attack_rate < 0.3


# --------------------------------------------------------------------------------------------
# Inference
# --------------------------------------------------------------------------------------------
def test_inference_of_a_category_by_hand():
    train = pd.DataFrame({"age": [23, 35, 47, 59], "ill": ["no", "yes", "no", "yes"]})
    control = pd.DataFrame({"age": [24, 36, 48, 60], "ill": ["yes", "no", "yes", "no"]})
    result = pl.attribute.inference(
        synthetic=train, train=train, holdout=control, target="ill", random_state=0
    )
    assert (result.attack_rate, result.control_rate, result.value) == (1.0, 0.0, 1.0)
    assert result.tolerance is None and result.aux_columns == ("age",)
    # two targets per value of the secret in each group, fewer than 5: one stratum. Its rates
    # carry Agresti and Coull's variance (1998): 4 of 4 and 0 of 4 with z^2/2 pseudo-successes and
    # as many pseudo-failures; the risk's half-width is then the attack rate's (control rate 0)
    z = norm.ppf(0.975)
    shrunk = (4 + z * z / 2) / (4 + z * z)
    half = z * math.sqrt(shrunk * (1 - shrunk) / (4 + z * z))
    assert result.n_strata == 1
    assert (result.ci_low, result.ci_high) == pytest.approx((1 - half, 1.0))


def test_inference_attacks_every_control_record_even_when_the_control_is_larger():
    train = pd.DataFrame({"age": [23, 35, 47, 59], "ill": ["no", "yes", "no", "yes"]})
    control = pd.DataFrame({"age": [24, 36, 48, 60] * 3, "ill": ["yes", "no", "yes", "no"] * 3})
    result = pl.attribute.inference(
        synthetic=train, train=train, holdout=control, target="ill", random_state=0
    )
    assert (len(result.targets), len(result.control_targets), result.n_attacks) == (4, 12, 4)
    assert sorted(result.control_targets.tolist()) == list(range(12))
    assert (result.attack_rate, result.control_rate, result.value) == (1.0, 0.0, 1.0)
    # one stratum (fewer than 5 training targets per value): the control's 12 targets narrow its
    # rate's Agresti-Coull interval, but with a control rate of 0 the risk's half-width is the
    # attack rate's alone: 4 of 4
    z = norm.ppf(0.975)
    shrunk = (4 + z * z / 2) / (4 + z * z)
    assert result.ci_low == pytest.approx(1 - z * math.sqrt(shrunk * (1 - shrunk) / (4 + z * z)))


def agresti_coull_variance(successes, n, z):
    """The variance of a share of whole successes, Agresti & Coull (1998): p~(1 - p~) / n~."""
    n_tilde = n + z * z
    p_tilde = (successes + z * z / 2) / n_tilde
    return p_tilde * (1 - p_tilde) / n_tilde


def test_inference_compares_the_groups_at_one_mix_of_the_secret():
    # the nearest synthetic record of every target is (a, p): a target is guessed right exactly
    # when its secret is p. Training targets hold p three times as often as control targets, so
    # the raw rates are 0.75 and 0.25 (raw risk 2/3), yet the release tells no training record
    # anything it does not tell a control record with the same secret: within each value of the
    # secret both groups succeed alike (p: all, q: none), and at the pooled mix (half p, half q)
    # both rates are 0.5, risk 0
    synthetic = pd.DataFrame({"x": ["a", "b"], "s": ["p", "q"]})
    train = pd.DataFrame({"x": ["a"] * 80, "s": ["p"] * 60 + ["q"] * 20})
    control = pd.DataFrame({"x": ["a"] * 80, "s": ["p"] * 20 + ["q"] * 60})
    result = pl.attribute.inference(
        synthetic=synthetic, train=train, holdout=control, target="s", random_state=0
    )
    assert (result.attack_rate, result.control_rate) == (0.75, 0.25)
    assert (result.standardised_attack_rate, result.standardised_control_rate) == (0.5, 0.5)
    assert result.value == 0.0 and result.n_strata == 2
    # each rate: 0.5^2 (the weight) times the strata's Agresti-Coull variances
    z = norm.ppf(0.975)
    e_a = z * math.sqrt(0.25 * (agresti_coull_variance(60, 60, z) + agresti_coull_variance(0, 20, z)))
    e_c = z * math.sqrt(0.25 * (agresti_coull_variance(20, 20, z) + agresti_coull_variance(0, 60, z)))
    error = math.hypot(e_a / 0.5, e_c * (0.5 - 1) / 0.5**2)
    assert (result.ci_low, result.ci_high) == pytest.approx((-error, error))
    assert "one mix of s's values" in result.reading()


def test_inference_of_a_number_within_the_tolerance():
    synthetic = pd.DataFrame({"x": ["a", "b"], "y": [100.0, 200.0]})
    # |100 - 104| = 4 <= 5% of 104; |200 - 189| = 11 > 5% of 189 (9.45)
    train = pd.DataFrame({"x": ["a", "b"], "y": [104.0, 189.0]})
    control = pd.DataFrame({"x": ["a", "b"], "y": [50.0, 300.0]})
    result = pl.attribute.inference(
        synthetic=synthetic, train=train, holdout=control, target="y", random_state=0
    )
    assert (result.attack_successes, result.control_successes, result.value) == (1, 0, 0.5)
    assert result.tolerance == 0.05
    looser = pl.attribute.inference(
        synthetic=synthetic, train=train, holdout=control, target="y", tolerance=0.06, random_state=0
    )
    assert looser.attack_successes == 2


def test_a_missing_secret_is_guessed_only_by_a_missing_value():
    guesses = pd.Series([np.nan, "a", np.nan, "b"], dtype=object)
    secrets = pd.Series([np.nan, np.nan, "a", "b"], dtype=object)
    assert _guess_is_right(guesses, secrets, False, 0.05).tolist() == [True, False, False, True]
    numbers = pd.Series([np.nan, 1.0, np.nan, 0.0])
    assert _guess_is_right(numbers, pd.Series([np.nan, np.nan, 1.0, 0.0]), True, 0.05).tolist() == [
        True,
        False,
        False,
        True,
    ]


def test_inference_ties_are_broken_at_random_and_averaged_over_the_draws():
    synthetic = pd.DataFrame({"x": ["a", "a"], "s": ["p", "q"]})
    train = pd.DataFrame({"x": ["a"], "s": ["p"]})
    rates = [
        pl.attribute.inference(
            synthetic=synthetic, train=train, holdout=train, target="s", random_state=seed
        ).attack_rate
        for seed in range(8)
    ]
    # each of the 16 draws takes one of the two tied records: the target's chance is k / 16 with
    # k ~ Binomial(16, 1/2); all 16 draws agreeing has probability 2 / 65536 per seed
    assert all(0 < r < 1 and (r * criteria.TIE_DRAWS).is_integer() for r in rates)
    assert criteria.TIE_DRAWS == 16


def test_tie_averaged_rates_carry_the_normal_interval_of_their_mean():
    # chances 1/2, 1/2, 1, 0: mean 1/2, standard deviation sqrt(1/8) (over the four), so the 95%
    # half-width is 1.96 * sqrt(1/8) / 2
    rate, low, high = criteria._mean_rate(np.array([0.5, 0.5, 1.0, 0.0]), 0.95)
    half = 1.959963984540054 * math.sqrt(1 / 8) / 2
    assert (rate, low, high) == pytest.approx((0.5, 0.5 - half, 0.5 + half))
    # whole successes keep Wilson's interval
    assert criteria._mean_rate(np.array([1.0, 1.0, 0.0, 1.0]), 0.95) == criteria._rate(3, 4, 0.95)


def test_the_strata_of_a_secret_are_its_values_or_the_deciles_of_a_number():
    numbers = pd.Series([*range(1, 101), np.nan], dtype=float)
    strata = criteria._secret_strata(numbers, numeric=True)
    # 1..10 in the first decile, ..., 91..100 in the tenth; a missing number its own stratum
    assert strata[:100].tolist() == [i // 10 for i in range(100)] and strata[100] == -1
    # a constant number is one stratum, apart from the missing ones
    assert criteria._secret_strata(pd.Series([5.0, 5.0, np.nan]), numeric=True).tolist() == [0, 0, -1]
    labels = criteria._secret_strata(pd.Series(["b", "a", np.nan, "b"], dtype=object), numeric=False)
    assert labels[0] == labels[3] and len(set(labels.tolist())) == 3


def test_values_held_by_too_few_targets_share_one_stratum():
    # value "r" is held by 3 training and 3 control targets (fewer than 5 each), "s" by 10 and 10,
    # "t" by 10 training targets only: "r" and "t" pooled into one stratum of 13 training and 3
    # control targets
    strata = np.array([0] * 3 + [1] * 10 + [2] * 10 + [0] * 3 + [1] * 10)
    attack = np.array([1.0] * 3 + [0.5] * 10 + [0.0] * 10)
    control = np.array([1.0] * 3 + [0.5] * 10)
    (rate_a, *_), (rate_c, *_), n_strata = criteria._standardised_rates(attack, control, strata, 0.95)
    # weights: "s" 20 of the 36 targets, the pooled stratum 16 of 36; its means 3/13 and 3/3
    assert n_strata == 2
    assert rate_a == pytest.approx(20 / 36 * 0.5 + 16 / 36 * 3 / 13)
    assert rate_c == pytest.approx(20 / 36 * 0.5 + 16 / 36 * 1.0)


def test_an_attack_that_does_not_beat_the_baseline_is_not_assessable():
    # the nearest synthetic record always carries the wrong secret: the attack never succeeds
    synthetic = pd.DataFrame({"x": [1.0, 2.0], "secret": ["first-label", "second-label"]})
    train = pd.DataFrame({"x": [1.0, 2.0], "secret": ["second-label", "first-label"]})
    result = pl.attribute.inference(
        synthetic=synthetic, train=train, holdout=train, target="secret", random_state=0
    )
    assert result.attack_rate == 0.0
    assert result.verdict == NOT_ASSESSABLE
    assert "baseline" in result.verdict_rule
    reading = result.reading()
    assert "does not beat random guessing" in reading
    assert "first-label" not in reading and "second-label" not in reading


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------
@pytest.fixture
def trio():
    train = pd.DataFrame({"age": [23, 35, 47, 59], "ill": ["no", "yes", "no", "yes"]})
    return train, train.copy(), train.copy()


@pytest.mark.parametrize(
    "call",
    [
        lambda s, t, c, **kw: pl.identity.singling_out(synthetic=s, train=t, holdout=c, **kw),
        lambda s, t, c, **kw: pl.identity.linkability(
            synthetic=s, train=t, holdout=c, aux_columns=(["age"], ["ill"]), **kw
        ),
        lambda s, t, c, **kw: pl.attribute.inference(synthetic=s, train=t, holdout=c, target="ill", **kw),
    ],
)
def test_bad_tables_and_counts(trio, call):
    synthetic, train, control = trio
    with pytest.raises(PrivlibError, match="holdout"):
        call(synthetic, train, control.rename(columns={"age": "years"}))
    with pytest.raises(PrivlibError, match="holdout"):
        call(synthetic, train, control.iloc[:0])
    with pytest.raises(PrivlibError, match="synthetic"):
        call(synthetic.drop(columns="age"), train, control)
    for bad in (True, 0, 2.5):
        with pytest.raises(PrivlibError, match="n_attacks"):
            call(synthetic, train, control, n_attacks=bad)
    with pytest.raises(PrivlibError, match="confidence"):
        call(synthetic, train, control, confidence=1.5)


def test_bad_arguments(trio):
    synthetic, train, control = trio
    tables = dict(synthetic=synthetic, train=train, holdout=control)
    with pytest.raises(PrivlibError, match="mode"):
        pl.identity.singling_out(**tables, mode="bivariate")
    with pytest.raises(PrivlibError, match="n_cols"):
        pl.identity.singling_out(**tables, mode="multivariate", n_cols=3)
    with pytest.raises(PrivlibError, match="max_attempts"):
        pl.identity.singling_out(**tables, mode="multivariate", n_cols=2, max_attempts=0)
    with pytest.raises(PrivlibError, match="aux_columns"):
        pl.identity.linkability(**tables, aux_columns=["age", "ill"])
    with pytest.raises(PrivlibError, match=r"aux_columns\[1\]"):
        pl.identity.linkability(**tables, aux_columns=(["age"], ["weight"]))
    with pytest.raises(PrivlibError, match="n_neighbors"):
        pl.identity.linkability(**tables, aux_columns=(["age"], ["ill"]), n_neighbors=5)
    with pytest.raises(PrivlibError, match="`target`"):
        pl.attribute.inference(**tables, target="weight")
    with pytest.raises(PrivlibError, match="`target`"):
        pl.attribute.inference(**tables, target=["ill"])
    with pytest.raises(PrivlibError, match="`keys`"):
        pl.attribute.inference(**tables, target="ill", keys=["age", "ill"])
    with pytest.raises(PrivlibError, match="tolerance"):
        pl.attribute.inference(**tables, target="age", tolerance=-0.1)


def test_registry_has_the_three_measures():
    from privlib.thresholds import REGISTRY, cutoff

    for measure in (
        "singling_out_univariate",
        "singling_out_multivariate",
        "linkability_risk",
        "inference_risk",
    ):
        assert REGISTRY[measure].from_baseline and "kit default" in REGISTRY[measure].source
        assert cutoff(measure, 0.0) == pytest.approx(0.05)


@pytest.mark.parametrize("n_terms", [1, 3])
def test_indexed_predicate_evaluation_matches_a_brute_force_count(n_terms):
    # the evaluator reads a predicate's candidates from a column's sorted order, or the rows
    # asked for when they are fewer: on whole tables and on subsets of every size it must count
    # exactly as a plain loop over the records does
    rng = np.random.default_rng(n_terms)
    table = rng.integers(0, 12, size=(400, 4)).astype(float)
    table[:, 3] = rng.normal(size=400).round(1)  # a numeric column with many distinct values
    table[rng.random(table.shape) < 0.05] = np.nan
    q = 400
    columns = np.sort(np.argsort(rng.random((q, 4)), axis=1)[:, :n_terms], axis=1)
    ops = rng.integers(0, 8, size=(q, n_terms))
    # values seen in the table (some held once), unseen ones, and a few NaN
    values = np.where(
        rng.random((q, n_terms)) < 0.7,
        table[rng.integers(0, 400, size=(q, n_terms)), columns],
        rng.integers(-1, 13, size=(q, n_terms)).astype(float),
    )
    predicates = _Predicates(columns, ops, values, np.zeros(q, dtype=np.int64))

    def matches(rows):
        cells = table[rows][:, columns]  # (rows, q, terms)
        with np.errstate(invalid="ignore"):
            holds = np.stack(
                [
                    cells == values,
                    ~(cells == values),
                    cells < values,
                    cells > values,
                    cells <= values,
                    cells >= values,
                    np.isnan(cells),
                    ~np.isnan(cells),
                ]
            )
        picked = np.take_along_axis(holds, ops[None, None, :, :], axis=0)[0]
        return picked.all(axis=2).sum(axis=0)  # per predicate, records matching every term

    indexed = _Indexed.of(table)
    assert (_singles_out(predicates, indexed) == (matches(np.arange(400)) == 1)).all()
    for size in (3, 40, 399):
        subset = rng.choice(400, size=size, replace=False)
        expected = matches(subset) == 1
        assert (_singles_out(predicates, indexed, subset) == expected).all()
        assert (_singles_out(predicates, table, subset) == expected).all()
