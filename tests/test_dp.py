"""Tests of the differentially private synthesizer MST and its accounting (privlib.dp).

Expected values come from formulas written out in the tests (the Canonne-Kamath-Steinke delta
minimised over a grid, the Bun-Steinke conversion, the exponential mechanism's probabilities)
or from the data themselves, never from the code's output.
"""

import math

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib import dp
from privlib.errors import PrivlibError


@pytest.fixture(scope="module")
def mixed():
    """Integer, float, date, categorical (declared dtype), text and missing values."""
    rng = np.random.default_rng(1)
    n = 400
    amount = rng.normal(100.0, 20.0, n)
    amount[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "amount": amount,
            "day": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 365, n), unit="D"),
            "sex": pd.Categorical(rng.choice(["F", "M"], n), categories=["F", "M", "X"]),
            "colour": rng.choice(np.array(["red", "green", "blue"], dtype=object), n),
        }
    )


# --------------------------------------------------------------------------------------------
# accounting
# --------------------------------------------------------------------------------------------
def _delta_on_grid(rho, epsilon):
    """CKS 2020 Prop. 1.3, minimised over a fine grid of alpha instead of by an optimiser."""
    alpha = np.concatenate([1 + np.geomspace(1e-6, 1, 20000), np.linspace(2, 5000, 200000)])
    log_delta = (alpha - 1) * (alpha * rho - epsilon) - np.log(alpha - 1) + alpha * np.log1p(-1 / alpha)
    return float(np.exp(log_delta.min()))


@pytest.mark.parametrize("rho, epsilon", [(0.01, 1.0), (0.1, 1.0), (0.5, 3.0), (1.0, 10.0)])
def test_cdp_delta_matches_the_formula_minimised_on_a_grid(rho, epsilon):
    assert dp.cdp_delta(rho, epsilon) == pytest.approx(_delta_on_grid(rho, epsilon), rel=1e-3)


@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-9), (1.0, 1e-9), (10.0, 1e-6), (1.0, 1e-3)])
def test_cdp_rho_spends_exactly_delta_and_beats_the_simple_conversion(epsilon, delta):
    rho = dp.cdp_rho(epsilon, delta)
    assert _delta_on_grid(rho, epsilon) == pytest.approx(delta, rel=1e-3)
    # Bun & Steinke 2016, Prop. 1.3: rho-zCDP gives (rho + 2 sqrt(rho log(1/delta)), delta)-DP,
    # so rho_simple = (sqrt(epsilon + L) - sqrt(L))**2 with L = log(1/delta) is always allowed;
    # the tighter CKS conversion allows at least as much
    log_inverse = math.log(1 / delta)
    simple = (math.sqrt(epsilon + log_inverse) - math.sqrt(log_inverse)) ** 2
    assert simple + 2 * math.sqrt(simple * log_inverse) == pytest.approx(epsilon)
    assert rho >= simple
    assert dp.cdp_delta(simple, epsilon) <= delta


def test_cdp_rho_grows_with_epsilon_and_delta():
    assert dp.cdp_rho(0.1, 1e-9) < dp.cdp_rho(1.0, 1e-9) < dp.cdp_rho(10.0, 1e-9)
    assert dp.cdp_rho(1.0, 1e-9) < dp.cdp_rho(1.0, 1e-5)


def test_gaussian_sigma_gives_rho_for_k_marginals():
    # k marginals, L2 sensitivity sqrt(k): rho = k / (2 sigma^2)
    sigma = dp.gaussian_sigma(0.02, 15)
    assert 15 / (2 * sigma**2) == pytest.approx(0.02)


def test_exponential_mechanism_draws_with_the_stated_probabilities():
    rng = np.random.default_rng(0)
    scores = np.array([0.0, 1.0, 3.0])
    epsilon = 2.0
    draws = (
        np.bincount([dp.exponential_mechanism(scores, epsilon, rng) for _ in range(20000)], minlength=3)
        / 20000
    )
    weights = np.exp(epsilon * scores / 2)  # sensitivity 1
    np.testing.assert_allclose(draws, weights / weights.sum(), atol=0.015)


def test_mst_spends_the_budget_of_its_epsilon_and_delta(mixed):
    model = dp.MST(epsilon=0.5, delta=1e-7, random_state=0).fit(mixed)
    assert model.rho_ == pytest.approx(dp.cdp_rho(0.5, 1e-7))
    assert len(model.tree_) == mixed.shape[1] - 1  # a spanning tree over the columns
    linked = {c for edge in model.tree_ for c in edge}
    assert linked == set(mixed.columns)


def test_mst_releases_a_noisy_number_of_records():
    # Under add/remove neighbours the row count is private: sample() draws the noisy total of the
    # one-way measurement, the mean over the d columns of their noisy counts' sums. Column j's sum
    # carries size_j independent N(0, sigma^2) noises, so the mean carries
    # N(0, sigma^2 sum_j size_j / d^2), sigma that of d marginals at rho / 3.
    rng = np.random.default_rng(0)
    table = pd.DataFrame({"a": rng.choice(list("xyz"), 500), "b": rng.choice(list("pq"), 500)})
    models = [dp.MST(epsilon=1.0, random_state=seed).fit(table) for seed in range(200)]
    sizes = np.array([m.n_records_ for m in models])
    expected_sd = dp.gaussian_sigma(dp.cdp_rho(1.0, 1e-9) / 3, 2) * math.sqrt(3 + 2) / 2  # 15.8
    # 200 draws: the mean's standard error is 15.8 / sqrt(200) = 1.1, the SD's about 15.8 / sqrt(400)
    # = 0.8; the bounds below are 4 standard errors wide
    assert abs(sizes.mean() - 500) < 4 * expected_sd / math.sqrt(200)
    assert abs(sizes.std() - expected_sd) < 4 * expected_sd / math.sqrt(400)
    assert len(set(sizes)) > 20  # about 50 distinct sizes among 200 at this spread, not one
    assert len(models[0].sample(random_state=0)) == models[0].n_records_
    assert len(models[0].sample(37, random_state=0)) == 37  # a size of the caller's choosing


# --------------------------------------------------------------------------------------------
# the synthesizer
# --------------------------------------------------------------------------------------------
def test_columns_and_dtypes_round_trip(mixed):
    synthetic = pl.synth.MST(epsilon=5.0, random_state=0).fit(mixed).sample(300, random_state=1)
    assert list(synthetic.columns) == list(mixed.columns)
    assert synthetic.dtypes.equals(mixed.dtypes)
    assert len(synthetic) == 300
    assert synthetic["colour"].isin(["red", "green", "blue"]).all()
    assert set(synthetic["sex"].cat.categories) == {"F", "M", "X"}


def test_numbers_stay_within_the_public_bounds(mixed):
    bounds = {"age": (0.0, 120.0), "amount": (0.0, 200.0)}
    model = dp.MST(epsilon=5.0, bounds=bounds, random_state=0).fit(mixed)
    synthetic = model.sample(2000, random_state=0)
    assert synthetic["age"].between(0, 120).all()
    assert synthetic["amount"].dropna().between(0, 200).all()


def test_seeding(mixed):
    first = dp.MST(epsilon=1.0, random_state=3).fit(mixed).sample(100, random_state=4)
    again = dp.MST(epsilon=1.0, random_state=3).fit(mixed).sample(100, random_state=4)
    other_noise = dp.MST(epsilon=1.0, random_state=5).fit(mixed)
    pd.testing.assert_frame_equal(first, again)
    model = dp.MST(epsilon=1.0, random_state=3).fit(mixed)
    assert not model.sample(100, random_state=4).equals(model.sample(100, random_state=6))
    assert not other_noise.sample(100, random_state=4).equals(first)


def test_high_epsilon_keeps_a_strong_pairwise_link():
    rng = np.random.default_rng(0)
    a = rng.choice(["x", "y", "z"], 3000, p=[0.5, 0.3, 0.2])
    b = pd.Series(a).map({"x": "p", "y": "q", "z": "r"}).to_numpy()  # b is a function of a
    noise = rng.choice(["u", "v"], 3000)
    df = pd.DataFrame({"a": a, "noise": noise, "b": b})
    model = dp.MST(epsilon=50.0, random_state=0).fit(df)
    assert ("a", "b") in model.tree_ or ("b", "a") in model.tree_
    synthetic = model.sample(3000, random_state=0)
    agree = (synthetic["b"] == synthetic["a"].map({"x": "p", "y": "q", "z": "r"})).mean()
    assert agree > 0.95
    share_x = (synthetic["a"] == "x").mean()
    assert share_x == pytest.approx(0.5, abs=0.03)


def test_make_and_lazy_attribute():
    assert isinstance(pl.synth.make("MST", epsilon=2.0), dp.MST)
    assert pl.synth.MST is dp.MST


def test_bounds_of_takes_numeric_ranges():
    table = pd.DataFrame({"age": [17, 90, 40], "sex": ["F", "M", "F"]})
    assert dp.bounds_of(table) == {"age": (17.0, 90.0)}


@pytest.mark.parametrize(
    "params, name",
    [
        ({"epsilon": 0}, "epsilon"),
        ({"epsilon": -1.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"epsilon": "1"}, "epsilon"),
        ({"delta": 0.0}, "delta"),
        ({"delta": 1.0}, "delta"),
        ({"n_bins": 1}, "n_bins"),
        ({"bounds": {"age": (5, 1)}}, "bounds"),
        ({"bounds": {"nope": (0, 1)}}, "bounds"),
        ({"bounds": {"sex": (0, 1)}}, "bounds"),
        ({"bounds": [1, 2]}, "bounds"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_parameters_name_themselves(mixed, params, name):
    with pytest.raises(PrivlibError, match=f"`{name}"):
        dp.MST(**params).fit(mixed)


def test_sample_before_fit_is_refused():
    with pytest.raises(PrivlibError, match="not fitted"):
        dp.MST().sample(5)


def test_max_attack_auc_is_the_area_under_the_dp_roc_bound():
    # delta = 0: the bound is e^eps f up to f* = 1/(1 + e^eps), then 1 - e^-eps (1 - f);
    # integrating the two pieces by hand gives e^eps / (1 + e^eps)
    for epsilon in (0.1, 1.0, 10.0):
        assert dp.max_attack_auc(epsilon) == pytest.approx(math.exp(epsilon) / (1 + math.exp(epsilon)))
    # a positive delta can only raise the bound, and delta = 1 allows anything
    assert dp.max_attack_auc(1.0, 1e-3) > dp.max_attack_auc(1.0)
    assert dp.max_attack_auc(0.5, 1.0) == pytest.approx(1.0, abs=1e-6)
    with pytest.raises(PrivlibError, match="`epsilon`"):
        dp.max_attack_auc(-1.0)


def test_the_domain_does_not_depend_on_the_records_given_public_bounds_and_dtypes():
    # two neighbouring tables: the second has one record with values nobody else holds
    rng = np.random.default_rng(2)
    first = pd.DataFrame(
        {
            "count": rng.integers(0, 3, 200),  # few distinct integers: still binned, not labelled
            "kind": pd.Categorical(rng.choice(["a", "b"], 200), categories=["a", "b", "rare"]),
        }
    )
    second = first.copy()
    second.loc[0, ["count", "kind"]] = [40, "rare"]
    bounds = {"count": (0.0, 50.0)}
    domains = [
        [(d.size, d.low, d.high) for d in dp.MST(bounds=bounds, random_state=0).fit(t).discrete_]
        for t in (first, second)
    ]
    assert domains[0] == domains[1]


def test_max_attack_auc_of_a_replaced_record_is_the_bound_at_the_group_budget():
    # replacing a record = removing one and adding another: (2 eps, (1 + e^eps) delta) by chaining
    # the definition twice, so with delta = 0 the bound is e^(2 eps) / (1 + e^(2 eps))
    for epsilon in (0.1, 1.0):
        assert dp.max_attack_auc(epsilon, records=2) == pytest.approx(
            math.exp(2 * epsilon) / (1 + math.exp(2 * epsilon))
        )
    assert dp.max_attack_auc(1.0, 1e-3, records=2) == pytest.approx(
        dp.max_attack_auc(2.0, (1 + math.e) * 1e-3)
    )
    assert dp.max_attack_auc(0.1, records=2) > dp.max_attack_auc(0.1)
    with pytest.raises(PrivlibError, match="`records`"):
        dp.max_attack_auc(1.0, records=0)


@pytest.mark.slow
def test_mst_inside_the_shadow_attack_gives_the_same_answer_with_one_or_two_workers():
    # seeds are drawn per shadow pair before the pairs are shared out, never per completion order
    from privlib import targeted

    rng = np.random.default_rng(4)
    population = pd.DataFrame(
        {
            "x": rng.integers(0, 7, 120).astype(float),
            "group": pd.Categorical(rng.choice(["a", "b", "c"], 120)),
        }
    )
    train = population.iloc[:30].reset_index(drop=True)
    run = dict(
        synthesizer=dp.MST(epsilon=1.0, bounds={"x": (0.0, 6.0)}),
        train=train,
        population=population,
        n_targets=1,
        n_shadows=3,
        n_test=3,
        random_state=9,
    )
    one, two = (targeted.shadow_model_attack(n_jobs=n_jobs, **run) for n_jobs in (1, 2))
    assert (one.value, one.ci_low, one.ci_high) == (two.value, two.ci_low, two.ci_high)
    np.testing.assert_array_equal(one.target_auc, two.target_auc)
    np.testing.assert_array_equal(one.target_ci_low, two.target_ci_low)
