"""Tests of the targeted attacks (privlib.targeted).

Designs where the truth is known: a generator that copies its training data and a target whose
value nobody else has (the attack must always tell), a generator that never looks at its
training data (the attack can only guess), and a one-variable density attack computed by hand.
"""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from privlib import targeted
from privlib.errors import PrivlibError
from privlib.thresholds import judge


class IgnoresItsData:
    """A generator that learns nothing from its input: it draws from a fixed distribution."""

    def fit(self, df):
        self.columns_ = list(df.columns)
        return self

    def sample(self, n, random_state=None):
        rng = np.random.default_rng(random_state)
        return pd.DataFrame({"x": rng.integers(0, 7, n).astype(float), "group": rng.choice(["a", "b"], n)})


class NoSample:
    def fit(self, df):
        return self


@pytest.fixture(scope="module")
def population():
    """300 ordinary records (x in 0..6) and one that nobody resembles (x = 50, group c)."""
    rng = np.random.default_rng(0)
    ordinary = pd.DataFrame(
        {"x": rng.integers(0, 7, 300).astype(float), "group": rng.choice(["a", "b"], 300)}
    )
    return pd.concat([ordinary, pd.DataFrame({"x": [50.0], "group": ["c"]})], ignore_index=True)


@pytest.fixture(scope="module")
def train(population):
    """30 ordinary records (rows 0..29) and the outlier (row 30)."""
    return population.iloc[list(range(0, 300, 10)) + [300]].reset_index(drop=True)


SMALL = dict(n_shadows=8, n_test=8, n_jobs=1)


def test_outlier_targets_are_the_most_isolated_records():
    # Gower on one numeric column: |x_i - x_j| / range; range 90 - 30 = 60
    df = pd.DataFrame({"x": [30.0, 31.0, 33.0, 90.0, 60.0]})
    index, distance = targeted.outlier_targets(df, 2)
    # nearest others: 30->31 (1), 31->30 (1), 33->31 (2), 90->60 (30), 60->33 (27)
    assert index.tolist() == [3, 4]
    np.testing.assert_allclose(distance, [30 / 60, 27 / 60])


@pytest.mark.parametrize("features", ["histogram", "correlation", "naive"])
def test_copy_exposes_a_unique_target_completely(population, train, features):
    result = targeted.shadow_model_attack(
        synthesizer="Copy",
        train=train,
        population=population,
        n_targets=1,
        features=features,
        random_state=0,
        **SMALL,
    )
    assert result.target_index.tolist() == [30]  # the x = 50 record, row 30 of train
    # with the target, the copy holds a value (and a category) that no table without it holds
    assert result.value == 1.0
    assert result.measure == "shadow_model_auc" and result.baseline == 0.5
    assert judge(result).verdict == "risk"


def test_a_generator_that_ignores_its_data_leaves_the_attack_at_chance(population, train):
    result = targeted.shadow_model_attack(
        synthesizer=IgnoresItsData,
        train=train,
        population=population,
        targets=[30],
        features="histogram",
        random_state=1,
        n_shadows=15,
        n_test=15,
        n_jobs=1,
    )
    assert result.ci_low <= 0.5 <= result.ci_high
    assert all(low <= 0.5 <= high for low, high in zip(result.target_ci_low, result.target_ci_high))


def test_per_target_table_holds_positions_and_distances_not_records(population, train):
    result = targeted.shadow_model_attack(
        synthesizer="Copy",
        train=train,
        population=population,
        targets=[30, 0],
        features="histogram",
        random_state=0,
        **SMALL,
    )
    table = result.per_target()
    assert table["training row"].tolist() == [30, 0]
    # row 0 has x = 3 (group b or a): some other training record is within Gower distance < 1
    assert table["distance to nearest record"].iloc[0] > table["distance to nearest record"].iloc[1]
    assert "50" not in result.reading() or "row 30" in result.reading()
    assert "group" not in result.reading()


def test_seeding(population, train):
    run = dict(
        synthesizer="SequentialTrees",
        train=train,
        population=population,
        n_targets=1,
        features="histogram",
        n_shadows=4,
        n_test=4,
        n_jobs=1,
    )
    first = targeted.shadow_model_attack(random_state=5, **run)
    again = targeted.shadow_model_attack(random_state=5, **run)
    np.testing.assert_array_equal(first.target_auc, again.target_auc)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)


@pytest.mark.slow
def test_parallel_fits_give_the_same_answer(population, train):
    run = dict(
        synthesizer="Copy",
        train=train,
        population=population,
        n_targets=1,
        features="histogram",
        n_shadows=2,
        n_test=2,
        random_state=2,
    )
    assert (
        targeted.shadow_model_attack(n_jobs=1, **run).target_auc.tolist()
        == targeted.shadow_model_attack(n_jobs=2, **run).target_auc.tolist()
    )


def test_resolve_synthesizer():
    assert type(targeted.resolve_synthesizer("privlib.synth:Copy")).__name__ == "Copy"
    assert targeted.resolve_synthesizer("ParzenWindows", bandwidth=0.3).bandwidth == 0.3
    template = targeted.resolve_synthesizer("MST", epsilon=2.0)
    assert targeted.resolve_synthesizer(template) is not template
    with pytest.raises(PrivlibError, match="`synthesizer`"):
        targeted.resolve_synthesizer("no_such_module:Thing")
    with pytest.raises(PrivlibError, match="sample"):
        targeted.resolve_synthesizer(NoSample)
    with pytest.raises(PrivlibError, match="unknown synthesizer"):
        targeted.resolve_synthesizer("Nope")


@pytest.mark.parametrize(
    "params, name",
    [
        ({"features": "raw"}, "features"),
        ({"n_shadows": 1}, "n_shadows"),
        ({"n_test": 0}, "n_test"),
        ({"targets": [31]}, "targets"),
        ({"targets": [0, 0]}, "targets"),
        ({"n_targets": 0}, "n_targets"),
        ({"shadow_size": 1000}, "shadow_size"),
        ({"confidence": 1.5}, "confidence"),
        ({"n_jobs": 0}, "n_jobs"),
    ],
)
def test_bad_attack_inputs_name_the_parameter(population, train, params, name):
    with pytest.raises(PrivlibError, match=f"`{name}"):
        targeted.shadow_model_attack(
            synthesizer="Copy", train=train, population=population, **{"n_jobs": 1, **params}
        )


def test_mismatched_tables_are_refused(population, train):
    with pytest.raises(PrivlibError, match="population"):
        targeted.shadow_model_attack(
            synthesizer="Copy", train=train, population=population.drop(columns="group")
        )


# --------------------------------------------------------------------------------------------
# DOMIAS
# --------------------------------------------------------------------------------------------
def test_density_attack_by_hand_on_one_variable():
    members = pd.DataFrame({"x": [0.0, 2.0, 8.0]})
    others = pd.DataFrame({"x": [4.0, 5.0, 10.0]})
    synthetic = pd.DataFrame({"x": [0.0, 1.0, 2.0, 8.0]})
    reference = pd.DataFrame({"x": [0.0, 2.5, 5.0, 7.5, 10.0]})
    h = 0.1
    result = targeted.density_attack(
        train=members, holdout=others, synthetic=synthetic, reference=reference, bandwidth=h, random_state=0
    )

    # encoded value: x / 10 (the range over the four tables is 0..10); Gaussian kernel, width h
    def density(at, sample):
        return np.mean(norm.pdf((at / 10 - sample / 10) / h) / h)

    queries = [0.0, 2.0, 8.0, 4.0, 5.0, 10.0]
    expected = [
        np.log(density(q, synthetic["x"].to_numpy())) - np.log(density(q, reference["x"].to_numpy()))
        for q in queries
    ]
    np.testing.assert_allclose(result.score, expected, rtol=1e-9)
    # AUC = share of (member, non-member) pairs in which the member scores higher
    member, other = np.array(expected[:3]), np.array(expected[3:])
    wins = (member[:, None] > other[None, :]).mean() + 0.5 * (member[:, None] == other[None, :]).mean()
    assert result.value == pytest.approx(wins)
    assert result.is_member.tolist() == [True] * 3 + [False] * 3


def test_density_attack_is_at_chance_when_synthetic_data_is_fresh_population():
    rng = np.random.default_rng(3)

    def draw(n):
        return pd.DataFrame({"x": rng.normal(0, 1, n), "g": rng.choice(["a", "b", "c"], n)})

    result = targeted.density_attack(
        train=draw(300), holdout=draw(300), synthetic=draw(600), reference=draw(600), random_state=0
    )
    assert result.ci_low <= 0.5 <= result.ci_high


def test_density_attack_catches_a_copy_and_is_seeded():
    rng = np.random.default_rng(4)

    def draw(n):
        return pd.DataFrame(
            {"x": rng.normal(0, 1, n), "y": rng.normal(0, 1, n), "g": rng.choice(["a", "b", "c"], n)}
        )

    train, holdout, reference = draw(200), draw(200), draw(400)
    # a narrow kernel puts a spike of synthetic density on every copied record
    copied = targeted.density_attack(
        train=train, holdout=holdout, synthetic=train, reference=reference, bandwidth=0.02, random_state=1
    )
    assert copied.value > 0.7 and judge(copied).verdict == "risk"
    for estimator in ("kde", "gmm"):
        first, again = (
            targeted.density_attack(
                train=train,
                holdout=holdout,
                synthetic=train,
                reference=reference,
                estimator=estimator,
                random_state=1,
            )
            for _ in range(2)
        )
        assert (first.value, first.ci_low, first.ci_high) == (again.value, again.ci_low, again.ci_high)


@pytest.mark.parametrize(
    "params, name",
    [
        ({"estimator": "flow"}, "estimator"),
        ({"bandwidth": 0}, "bandwidth"),
        ({"n_components": 0}, "n_components"),
        ({"confidence": 0}, "confidence"),
    ],
)
def test_bad_density_inputs_name_the_parameter(params, name):
    table = pd.DataFrame({"x": [0.0, 1.0, 2.0]})
    with pytest.raises(PrivlibError, match=f"`{name}"):
        targeted.density_attack(train=table, holdout=table, synthetic=table, reference=table, **params)


def test_rank_auc_equals_the_pair_count():
    rng = np.random.default_rng(0)
    out, inside = rng.integers(0, 5, 40).astype(float), rng.integers(1, 6, 30).astype(float)
    pairs = (inside[:, None] > out[None, :]).mean() + 0.5 * (inside[:, None] == out[None, :]).mean()
    assert targeted._auc(out, inside) == pytest.approx(pairs)


def test_density_attack_agrees_with_the_domias_packages_kde_recipe():
    # The domias package (van Breugel et al.; its "kde" option) scores p_G(x) / (p_R(x) + 1e-10)
    # with scipy's gaussian_kde (full covariance, Scott's factor). Re-done here on the same
    # encoded values, on a generator that over-fits (its training records plus small noise).
    from scipy.stats import gaussian_kde

    rng = np.random.default_rng(7)

    def draw(n):
        return pd.DataFrame({"x": rng.normal(0, 1, n), "y": rng.gamma(2.0, 1.0, n)})

    train, holdout, reference = draw(300), draw(300), draw(1000)
    synthetic = train + rng.normal(0, 0.01, train.shape)
    ours = targeted.density_attack(
        train=train, holdout=holdout, synthetic=synthetic, reference=reference, random_state=0
    )
    tables = [train, holdout, synthetic, reference]
    low = pd.concat(tables).min()
    span = pd.concat(tables).max() - low
    encode = lambda t: ((t - low) / span).to_numpy().T  # noqa: E731
    queries = np.hstack([encode(train), encode(holdout)])
    ratio = gaussian_kde(encode(synthetic))(queries) / (gaussian_kde(encode(reference))(queries) + 1e-10)
    theirs = targeted._auc(ratio[300:], ratio[:300])
    # Scott's bandwidth is wide next to the noise, so both see only part of the over-fitting
    assert theirs > 0.55 and ours.value > 0.55
    assert ours.value == pytest.approx(theirs, abs=0.03)
