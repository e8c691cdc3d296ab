"""Tests of the targeted attacks (privlib.targeted).

Designs where the truth is known: a generator that copies its training data and a target whose
value nobody else has (the attack must always tell), a generator that never looks at its
training data (the attack can only guess), and a one-variable density attack computed by hand.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu, norm

from privlib import targeted
from privlib.catalogue import MEASURES
from privlib.errors import PrivlibError
from privlib.membership import rank_sums, shadow_model
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
    index, distance = targeted.outlier_targets(train=df, n_targets=2)
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
    # 8 + 8 scores, all of the target's tables above all of the others': 1 labelling in C(16, 8)
    assert result.measure == "shadow_model_auc" and result.p_value == pytest.approx(1 / 12870)
    assert judge(result).verdict == "risk"
    # the reading names the generator refitted and that it stands in for the release's own
    assert "Refitting the kit's Copy generator (a stand-in: not the generator that made the release" in (
        result.reading()
    )


def test_a_generator_that_ignores_its_data_leaves_the_attack_at_chance(population, train):
    result = targeted.shadow_model_attack(
        synthesizer=IgnoresItsData,
        train=train,
        population=population,
        target_rows=[30],
        features="histogram",
        random_state=1,
        n_shadows=15,
        n_test=15,
        n_jobs=1,
    )
    assert result.ci_low <= 0.5 <= result.ci_high
    assert f"Refitting the generator given, {IgnoresItsData.__module__}.IgnoresItsData on" in result.reading()
    assert all(low <= 0.5 <= high for low, high in zip(result.target_ci_low, result.target_ci_high))


def test_per_target_table_holds_positions_and_distances_not_records(population, train):
    result = targeted.shadow_model_attack(
        synthesizer="Copy",
        train=train,
        population=population,
        target_rows=[30, 0],
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
        ({"target_rows": [31]}, "target_rows"),
        ({"target_rows": [0, 0]}, "target_rows"),
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
        train=members, holdout=others, synthetic=synthetic, population=reference, bandwidth=h, random_state=0
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
        train=draw(300), holdout=draw(300), synthetic=draw(600), population=draw(600), random_state=0
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
        train=train, holdout=holdout, synthetic=train, population=reference, bandwidth=0.02, random_state=1
    )
    assert copied.value > 0.7 and judge(copied).verdict == "risk"
    for estimator in ("kde", "gmm"):
        first, again = (
            targeted.density_attack(
                train=train,
                holdout=holdout,
                synthetic=train,
                population=reference,
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
        targeted.density_attack(train=table, holdout=table, synthetic=table, population=table, **params)


def test_rank_auc_equals_the_pair_count():
    rng = np.random.default_rng(0)
    out, inside = rng.integers(0, 5, 40).astype(float), rng.integers(1, 6, 30).astype(float)
    pairs = (inside[:, None] > out[None, :]).mean() + 0.5 * (inside[:, None] == out[None, :]).mean()
    assert rank_sums._auc(out, inside) == pytest.approx(pairs)


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
        train=train, holdout=holdout, synthetic=synthetic, population=reference, random_state=0
    )
    tables = [train, holdout, synthetic, reference]
    low = pd.concat(tables).min()
    span = pd.concat(tables).max() - low
    encode = lambda t: ((t - low) / span).to_numpy().T  # noqa: E731
    queries = np.hstack([encode(train), encode(holdout)])
    ratio = gaussian_kde(encode(synthetic))(queries) / (gaussian_kde(encode(reference))(queries) + 1e-10)
    theirs = rank_sums._auc(ratio[300:], ratio[:300])
    # Scott's bandwidth is wide next to the noise, so both see only part of the over-fitting
    assert theirs > 0.55 and ours.value > 0.55
    assert ours.value == pytest.approx(theirs, abs=0.03)


# --------------------------------------------------------------------------------------------
# Per-target exact tests and the verdict over targets
# --------------------------------------------------------------------------------------------
def _brute_force_p(out, inside) -> float:
    """Share of all labellings of the pooled scores whose AUC is at least the observed one."""
    pooled = np.concatenate([out, inside])
    observed = rank_sums._auc(out, inside)
    at_least = total = 0
    for chosen in itertools.combinations(range(pooled.size), len(inside)):
        mask = np.zeros(pooled.size, dtype=bool)
        mask[list(chosen)] = True
        at_least += rank_sums._auc(pooled[~mask], pooled[mask]) >= observed - 1e-12
        total += 1
    return at_least / total


def test_rank_sum_p_value_agrees_with_scipys_exact_mann_whitney_without_ties():
    rng = np.random.default_rng(3)
    for shift in (0.0, 0.8, 2.0):
        out, inside = rng.normal(size=20), rng.normal(size=20) + shift
        expected = mannwhitneyu(inside, out, alternative="greater", method="exact").pvalue
        assert targeted.rank_sum_p_value(out, inside) == pytest.approx(expected, rel=1e-9)


def test_rank_sum_p_value_counts_every_labelling_with_ties():
    # a forest's votes tie often: mid-ranks, and the count over all C(11, 5) = 462 labellings
    out = np.array([0.0, 0.2, 0.2, 0.4, 0.4, 0.6])
    inside = np.array([0.2, 0.4, 0.6, 0.6, 1.0])
    assert targeted.rank_sum_p_value(out, inside) == pytest.approx(_brute_force_p(out, inside), rel=1e-12)
    # every score equal: every labelling has AUC 0.5, the p-value is 1
    assert targeted.rank_sum_p_value(np.ones(4), np.ones(3)) == pytest.approx(1.0)


def test_chance_auc_is_the_largest_auc_not_significant_at_the_level():
    out, inside = np.array([0.0, 0.1, 0.1, 0.3, 0.5]), np.array([0.1, 0.2, 0.4, 0.6, 0.9])
    pooled = np.concatenate([out, inside])
    level = 0.05
    # the AUC of each of the C(10, 5) = 252 labellings, and its p-value: the share at least as high
    aucs = np.array(
        [
            rank_sums._auc(pooled[~np.isin(np.arange(10), chosen)], pooled[list(chosen)])
            for chosen in itertools.combinations(range(10), 5)
        ]
    )
    p = (aucs[None, :] >= aucs[:, None] - 1e-12).mean(axis=1)
    assert rank_sums._chance_auc(out, inside, level) == pytest.approx(aucs[p > level].max())
    assert aucs[p <= level].min() > aucs[p > level].max()
    # 2 + 2 scores: the best labelling has p = 1 / 6, so nothing is significant at 5%
    assert rank_sums._chance_auc(np.array([0.0, 1.0]), np.array([2.0, 3.0]), level) == 1.0


def _findings(groups, confidence=0.95):
    """The result over targets 10, 11, ... from their (out, in) score groups, as the attack
    assembles it (intervals by the attack's own bootstrap)."""
    rng = np.random.default_rng(0)
    pairs = list(zip(groups[::2], groups[1::2]))
    return shadow_model._over_targets(
        rows=np.arange(10, 10 + len(pairs)),
        distance=np.full(len(pairs), 0.5),
        groups=groups,
        per_target=[rank_sums._auc_with_interval(list(pair), rng, confidence) for pair in pairs],
        mean=rank_sums._auc_with_interval(groups, rng, confidence),
        confidence=confidence,
        synthesizer="by hand",
    )


def _scores_with_p(low, high):
    """20 + 20 distinct scores whose exact p-value lies in (low, high], found by shifting."""
    out = np.arange(20.0)
    for shift in np.arange(0, 20, 0.25):
        inside = np.arange(20.0) + shift + 0.1
        if low < mannwhitneyu(inside, out, alternative="greater", method="exact").pvalue <= high:
            return out, inside
    raise AssertionError("no shift gives such a p-value")


def test_holm_over_targets_by_hand():
    rng = np.random.default_rng(5)
    strong = _scores_with_p(0.0, 0.001)
    middle = _scores_with_p(0.01, 0.02)
    groups = [*strong, *middle, rng.normal(size=20), rng.normal(size=20)]
    result = _findings(groups)
    p = [
        mannwhitneyu(i, o, alternative="greater", method="exact").pvalue
        for o, i in zip(groups[::2], groups[1::2])
    ]
    np.testing.assert_allclose(result.target_p_value, p, rtol=1e-9)
    # Holm by hand: sort, multiply the i-th smallest by (k - i + 1), carry the maximum, cap at 1
    order = np.argsort(p)
    expected = np.empty(3)
    running = 0.0
    for step, index in enumerate(order):
        running = max(running, min(1.0, (3 - step) * p[index]))
        expected[index] = running
    np.testing.assert_allclose(result.target_adjusted_p, expected, rtol=1e-9)
    assert result.rows_at_risk == tuple(10 + i for i in range(3) if expected[i] <= 0.05)
    assert result.deciding_row == 10
    assert (result.p_value, result.raw_p_value) == pytest.approx((expected[0], p[0]), rel=1e-9)


def test_one_strong_target_is_the_finding_and_a_risk():
    # target 12 is told apart every time; four targets at chance dilute the mean AUC
    rng = np.random.default_rng(1)
    groups = []
    for target in range(5):
        out = rng.uniform(size=20)
        groups += [out, out + 2.0 if target == 2 else rng.uniform(size=20)]
    result = judge(_findings(groups))
    assert result.verdict == "risk"
    assert (result.deciding_row, result.value, result.rows_at_risk) == (12, 1.0, (12,))
    assert result.p_value == pytest.approx(5 / math.comb(40, 20))
    # the former rule, the mean's whole interval above 0.6, would not have called it
    assert result.mean_ci_low <= 0.6
    assert "training row(s) 12" in result.reading()
    spec = MEASURES["shadow_model_auc"]
    count, what = spec.at_risk(result)
    assert count == 1 and "training rows 12 " in what


def test_no_target_significant_is_no_evidence():
    rng = np.random.default_rng(2)
    groups = [_scores_with_p(0.2, 0.5)[i] for i in (0, 1)] + [rng.uniform(size=20) for _ in range(4)]
    result = judge(_findings(groups))
    assert result.n_significant_alone == 0 and result.rows_at_risk == ()
    assert result.verdict == "no evidence of risk"
    assert MEASURES["shadow_model_auc"].at_risk(result)[0] == 0


def _significant_only_before_holm():
    """Five targets: one with an own p-value in (0.01, 0.05], four at chance."""
    rng = np.random.default_rng(4)
    return _findings([*_scores_with_p(0.01, 0.05)] + [rng.uniform(size=20) for _ in range(8)])


def test_a_target_significant_only_before_holm_is_no_target_at_risk():
    result = _significant_only_before_holm()
    assert result.raw_p_value <= 0.05 < result.p_value == pytest.approx(5 * result.raw_p_value)
    assert (result.n_significant_alone, result.rows_at_risk, result.deciding_row) == (1, (), 10)
    assert "none is significant after the adjustment" in result.reading()


def test_a_target_significant_only_before_holm_is_inconclusive():
    assert judge(_significant_only_before_holm()).verdict == "inconclusive"


def test_too_few_pairs_for_any_target_to_be_significant_is_not_assessable():
    # 2 + 2 scores per target: the best p-value is 1/6, so no AUC can pass Holm's first step
    groups = [np.array([0.0, 0.1]), np.array([0.8, 0.9])] * 2
    result = judge(_findings(groups))
    assert result.baseline == 1.0 and result.verdict == "not assessable"


def test_n_test_has_an_upper_bound(population, train):
    with pytest.raises(PrivlibError, match="`n_test`"):
        targeted.shadow_model_attack(
            synthesizer="Copy", train=train, population=population, n_test=shadow_model.MAX_TEST_PAIRS + 1
        )


@pytest.mark.slow
def test_the_attack_tests_each_target_on_its_own_scores(population, train):
    result = judge(
        targeted.shadow_model_attack(
            synthesizer="Copy",
            train=train,
            population=population,
            target_rows=[0, 30],
            features="histogram",
            random_state=0,
            **SMALL,
        )
    )
    n = SMALL["n_test"]
    for k in range(2):
        out, inside = result.scores_out[k * n : (k + 1) * n], result.scores_in[k * n : (k + 1) * n]
        assert result.target_p_value[k] == pytest.approx(_brute_force_p(out, inside), rel=1e-9)
    # the unique outlier (row 30) is told apart every time; row 0 has twins in the population
    assert result.deciding_row == 30 and 30 in result.rows_at_risk and result.verdict == "risk"
    assert result.value == 1.0 and result.value > result.mean_auc
