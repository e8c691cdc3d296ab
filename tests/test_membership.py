"""Tests of privlib.membership: formulas worked by hand, tiny constructed attacks, null cases.

Expected values come from the definitions (El Emam, Mosquera & Fang 2022; Yale et al. 2019) worked out by hand in the comments, or from what a statistic must do under a stated model.
"""

import math

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib import membership as mb
from privlib.errors import PrivlibError
from privlib.membership import adversarial_repeats
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS
from privlib.thresholds import judge


# --------------------------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------------------------
def letters(rows):
    """A table of categorical columns a, b, c from strings like "aab"."""
    return pd.DataFrame([list(r) for r in rows], columns=["a", "b", "c"]).astype("category")


# Eight people, each with a distinct value in all three variables.
POPULATION = letters(["aaa", "bbb", "ccc", "ddd", "eee", "fff", "ggg", "hhh"])
MEMBERS = [0, 1, 2, 3]
# Exact copies of members 0 and 1, and a record one variable away from non-member 4 ("eee").
# Hamming distance to the nearest synthetic record: rows 0, 1 -> 0; row 4 -> 1; the rest -> 3.
SYNTHETIC = letters(["aaa", "bbb", "eea"])


def numbers(*values):
    return pd.DataFrame({"x": np.array(values, dtype="float64")})


@pytest.fixture(scope="module")
def adult_samples():
    """Four disjoint seeded samples of distinct Adult records: train, holdout, test, other."""
    adult = pl.load_dataset("adult").drop_duplicates().reset_index(drop=True)
    order = np.random.default_rng(11).permutation(len(adult))[:2400]
    return [adult.iloc[order[i : i + 600]].reset_index(drop=True) for i in range(0, 2400, 600)]


# --------------------------------------------------------------------------------------------
# Formulas
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("t, expected", [(0.0, 0.0), (1 / 3, 0.5), (0.5, 2 / 3), (1.0, 1.0)])
def test_naive_f1_by_hand(t, expected):
    # calling everyone a member: precision t, recall 1, F1 = 2t / (1 + t)
    assert mb.naive_f1(t) == pytest.approx(expected)


def test_naive_f1_arrays_and_bad_input():
    np.testing.assert_allclose(mb.naive_f1([0.0, 0.5]), [0.0, 2 / 3])
    for bad in (-0.1, 1.5, "half", math.nan):
        with pytest.raises(PrivlibError, match="`t`"):
            mb.naive_f1(bad)


@pytest.mark.parametrize(
    "f1, expected",
    [(0.5, 0.0), (0.75, 0.5), (1.0, 1.0), (0.25, -0.5)],
)
def test_relative_risk_by_hand(f1, expected):
    # n / N = 1000 / 3000 = 1/3, so F_max = (2/3) / (4/3) = 0.5 and M = (F1 - 0.5) / 0.5
    assert mb.relative_risk(f1, 1000, 3000) == pytest.approx(expected)


def test_relative_risk_undefined_when_n_equals_N():
    with pytest.raises(PrivlibError, match="undefined"):
        mb.relative_risk(0.5, 500, 500)


def test_relative_risk_population_smaller_than_sample_names_both():
    with pytest.raises(PrivlibError, match=r"n = 600.*N = 500"):
        mb.relative_risk(0.5, 600, 500)


def test_relative_risk_bad_f1():
    with pytest.raises(PrivlibError, match="`f1`"):
        mb.relative_risk(1.2, 10, 100)


@pytest.mark.parametrize("m", [-1.5, 0.0, 0.1, 0.2])
def test_loss_is_minus_utility_up_to_threshold(m):
    assert mb.risk_utility_loss(m, 0.7) == pytest.approx(-0.7)


def test_loss_above_threshold_by_hand():
    # at M = 1 the factor is 0.31 + 1 / (1 + e^0) = 0.81
    assert mb.risk_utility_loss(1.0, 0.5) == pytest.approx(-0.405)
    # the factor falls as M grows
    losses = mb.risk_utility_loss(np.linspace(0.21, 1.0, 20), 1.0)
    assert np.all(np.diff(losses) > 0)


def test_loss_continuous_at_threshold():
    # the upper branch at M = 0.2 is 0.31 + 1 / (1 + e^-0.8) = 0.9999714..., so the jump is below
    # 3e-5 times the utility: continuous to the precision of the published constant 0.31
    below = mb.risk_utility_loss(0.2, 1.0)
    above = mb.risk_utility_loss(0.2 + 1e-12, 1.0)
    assert abs(above - below) < 3e-5
    assert 0.31 + 1 / (1 + math.exp(-0.8)) == pytest.approx(-above, abs=1e-9)


def test_loss_bad_input():
    with pytest.raises(PrivlibError, match="`utility`"):
        mb.risk_utility_loss(0.1, 1.5)
    with pytest.raises(PrivlibError, match="`m`"):
        mb.risk_utility_loss(1.2, 0.5)


# --------------------------------------------------------------------------------------------
# Hamming-threshold attacks on a constructed population
# --------------------------------------------------------------------------------------------
def test_ground_truth_constructed_attack():
    # attack set = the whole population, so the draw does not matter.
    # h = 1: called {0, 1, 4}; members {0, 1, 2, 3}: TP = 2, precision 2/3, recall 1/2,
    # F1 = 2 (1/3) / (7/6) = 4/7; n/N = 1/2 so F_max = 2/3 and M = (4/7 - 2/3) / (1/3) = -2/7.
    r = judge(
        mb.ground_truth_risk(
            population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=1, random_state=0
        )
    )
    assert (r.precision, r.recall) == (pytest.approx(2 / 3), pytest.approx(0.5))
    assert r.f1 == pytest.approx(4 / 7)
    assert r.m == pytest.approx(-2 / 7)
    assert r.baseline == pytest.approx(2 / 3)
    # the F1 cut-off is where M = 0.2: F_max + 0.2 (1 - F_max) = 2/3 + 0.2/3; 4/7 lies below it
    assert r.threshold == pytest.approx(2 / 3 + 0.2 / 3)
    assert r.ci_low <= r.value <= r.ci_high and r.ci_method == "bootstrap"
    assert r.verdict in (NO_EVIDENCE, INCONCLUSIVE) and not r.blind and r.h_verdict == 1
    # h = 0: only the exact copies are called: precision 1, recall 1/2, F1 = 2/3, M = 0
    r0 = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=0
    )
    assert (r0.precision, r0.recall, r0.f1, r0.m) == pytest.approx((1.0, 0.5, 2 / 3, 0.0))


def test_a_blind_attack_is_read_at_an_h_that_is_not_blind():
    # every record has 3 variables, so at h = 3 everyone is called a member: precision = n/N = 1/2,
    # recall 1, F1 = F_max = 2/3 and M = 0, which would look safe although the attack saw nothing.
    # Nearest distances: rows 0, 1 -> 0; row 4 -> 1; the rest -> 3, so the called shares are
    # 2/8, 3/8, 3/8, 8/8 at h = 0..3: the largest h <= 3 that is not blind is 2, and the share
    # closest to t = 1/2 is 3/8, first reached at h = 1. Both call {0, 1, 4}: F1 = 4/7.
    r = judge(
        mb.ground_truth_risk(
            population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=3
        )
    )
    assert r.blind and r.called_share == 1.0
    assert (r.f1, r.m) == pytest.approx((2 / 3, 0.0))
    np.testing.assert_allclose(r.called_by_h, [2 / 8, 3 / 8, 3 / 8, 1.0])
    assert (r.h_not_blind, r.h_rule) == (2, 1)
    assert (r.f1_not_blind, r.f1_rule) == pytest.approx((4 / 7, 4 / 7))
    assert r.m_rule == pytest.approx(-2 / 7)
    assert r.h_verdict in (1, 2) and r.value == pytest.approx(4 / 7)
    assert r.verdict in (NO_EVIDENCE, INCONCLUSIVE)
    # at h = 1 the attack is not blind: it is judged there and reports h_not_blind = h
    informative = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=1
    )
    assert informative.called_share == pytest.approx(3 / 8)
    assert not informative.blind and informative.h_not_blind == 1 and informative.h_verdict == 1


def test_an_h_beyond_every_distance_is_read_at_the_largest_distance():
    # no record is more than 3 variables away, so h = 10 calls everyone, as h = 3 does
    r = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=10
    )
    assert r.h == 10 and r.blind and r.called_share == 1.0 and r.f1 == pytest.approx(2 / 3)
    assert (r.h_not_blind, r.h_rule) == (2, 1)


def test_a_blind_attack_on_copies_finds_the_risk_at_the_rule_h():
    # the synthetic data copies the 4 members: distance 0 for members, 3 for the others. At h = 3
    # everyone is called (blind); at h = 0 exactly the members are: F1 = 1, whose bootstrap
    # interval is [1, 1], above the cut-off 2/3 + 0.2/3.
    r = judge(
        mb.ground_truth_risk(
            population=POPULATION, train_rows=MEMBERS, synthetic=POPULATION.iloc[:4], attack_size=8, h=3
        )
    )
    assert r.blind and r.h_rule == 0 and r.f1_rule == 1.0
    assert (r.value, r.ci_low, r.ci_high) == (1.0, 1.0, 1.0)
    assert r.verdict == RISK


def test_an_attack_blind_at_every_h_is_not_assessable():
    # the synthetic data holds everyone, so even h = 0 calls the whole attack set
    r = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=POPULATION, attack_size=8, h=2
    )
    assert r.blind and r.h_not_blind is None
    assert r.verdict == NOT_ASSESSABLE and "every h" in r.verdict_rule


def test_ground_truth_members_as_mask_equals_positions():
    mask = np.isin(np.arange(8), MEMBERS)
    a = mb.ground_truth_risk(population=POPULATION, train_rows=mask, synthetic=SYNTHETIC, attack_size=8, h=1)
    b = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=1
    )
    assert a.f1 == b.f1 == pytest.approx(4 / 7)


def test_precision_is_zero_when_nobody_is_called():
    # "abc" lies 2 variables from "aaa", "bbb", "ccc" and 3 from the rest: nobody within h = 0
    r = mb.ground_truth_risk(
        population=POPULATION, train_rows=MEMBERS, synthetic=letters(["abc"]), attack_size=8, h=0
    )
    assert (r.precision, r.recall, r.f1) == (0.0, 0.0, 0.0)


def test_ground_truth_bad_members():
    with pytest.raises(PrivlibError, match="length 3"):
        mb.ground_truth_risk(
            population=POPULATION, train_rows=np.array([True, False, True]), synthetic=SYNTHETIC
        )
    with pytest.raises(PrivlibError, match="positions outside"):
        mb.ground_truth_risk(population=POPULATION, train_rows=[0, 8], synthetic=SYNTHETIC)
    with pytest.raises(PrivlibError, match="every row"):
        mb.ground_truth_risk(population=POPULATION, train_rows=list(range(8)), synthetic=SYNTHETIC)
    with pytest.raises(PrivlibError, match="attack_size"):
        mb.ground_truth_risk(population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=9)


def test_partition_constructed_attack():
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    # t = 1/2 and 8 records: every training and holdout record, so the same numbers as above
    r = judge(
        mb.partition_risk(
            train=train,
            holdout=holdout,
            synthetic=SYNTHETIC,
            t=0.5,
            attack_size=8,
            h=1,
            population_size=8 * 2,
        )
    )
    assert (r.precision, r.recall, r.f1) == pytest.approx((2 / 3, 0.5, 4 / 7))
    # with N = 16, n/N = 1/4: F_max = 0.4, M = (4/7 - 0.4) / 0.6 = 2/7
    assert r.m == pytest.approx(2 / 7)
    assert r.threshold == pytest.approx(0.4 + 0.2 * 0.6)
    assert r.baseline == pytest.approx(0.4) and r.m_from == "n/N"
    # 4/7 lies above the cut-off 0.52, but 8 records cannot rule out that it does not
    assert r.verdict in (RISK, INCONCLUSIVE)


def test_partition_t_defaults_to_n_over_N():
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    r = mb.partition_risk(
        train=train, holdout=holdout, synthetic=SYNTHETIC, population_size=16, random_state=1
    )
    # t = 4 / 16; the largest attack set: at most 4 / 0.75 = 5.33 records, so 5 (1 training, 4 holdout)
    assert r.t == 0.25
    assert r.attack_size == 5


def test_partition_errors():
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    with pytest.raises(PrivlibError, match="`t`.*`population_size`"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC)
    with pytest.raises(PrivlibError, match="`population_size`"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC, population_size=4)
    with pytest.raises(PrivlibError, match="attack_size"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC, t=0.5, attack_size=10)
    with pytest.raises(PrivlibError, match="`t`"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC, t=1.5)
    with pytest.raises(PrivlibError, match="`h`"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC, t=0.5, h=-1)
    with pytest.raises(PrivlibError, match="different columns"):
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC.rename(columns={"c": "z"}), t=0.5)


def test_partition_is_reproducible():
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    a = mb.partition_risk(
        train=train,
        holdout=holdout,
        synthetic=SYNTHETIC,
        t=0.5,
        attack_size=4,
        h=1,
        random_state=5,
        n_repeats=10,
    )
    b = mb.partition_risk(
        train=train,
        holdout=holdout,
        synthetic=SYNTHETIC,
        t=0.5,
        attack_size=4,
        h=1,
        random_state=5,
        n_repeats=10,
    )
    np.testing.assert_array_equal(a.repeats, b.repeats)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert a.n_repeats == 10 and len(a.repeats) == 10
    # the spread fields are the 2.5% and 97.5% quantiles of the repetitions, the F1 their mean
    assert (a.repeat_low, a.repeat_high) == pytest.approx(tuple(np.quantile(a.repeats, [0.025, 0.975])))
    assert a.f1 == pytest.approx(np.mean(a.repeats))
    # and the seed matters: another seed draws other attack sets
    c = mb.partition_risk(
        train=train,
        holdout=holdout,
        synthetic=SYNTHETIC,
        t=0.5,
        attack_size=4,
        h=1,
        random_state=6,
        n_repeats=10,
    )
    assert not np.array_equal(a.repeats, c.repeats)


def test_partition_at_n_over_N_matches_ground_truth():
    """El Emam et al.'s finding in a small seeded simulation.

    Population: 3,000 Adult records (N) on seven variables; members: 300 of them (n, so
    n/N = 0.1); the synthetic data is an additive-noise version of the members (a leaky generator,
    so the attack has real signal); h = 1. Over 20 attack sets of 500 records, the partition
    estimate at t = n/N must lie within 0.04 of the ground-truth F1 (one attack set's F1 spreads
    over about +-0.04 here, so the means of 20 sets differ by far less), and t = 0.5 must
    overstate it.
    """
    columns = ["age", "workclass", "education", "marital-status", "occupation", "sex", "hours-per-week"]
    adult = pl.load_dataset("adult")[columns]
    population = adult.iloc[np.random.default_rng(3).permutation(len(adult))[:3000]].reset_index(drop=True)
    members = np.arange(300)
    train, holdout = population.iloc[:300], population.iloc[300:1300]
    synthetic = pl.synth.AdditiveNoise(noise_scale=0.05, flip_prob=0.1).fit(train).sample(random_state=4)
    common = dict(attack_size=500, h=1, n_repeats=20)
    truth = mb.ground_truth_risk(
        population=population, train_rows=members, synthetic=synthetic, random_state=5, **common
    )
    assert truth.f1 > truth.baseline + 0.1  # the attack beats calling everyone a member
    estimate = mb.partition_risk(
        train=train, holdout=holdout, synthetic=synthetic, random_state=6, population_size=3000, **common
    )
    assert estimate.t == pytest.approx(0.1)
    assert abs(estimate.f1 - truth.f1) < 0.04
    assert abs(estimate.m - truth.m) < 0.05
    naive = mb.partition_risk(
        train=train,
        holdout=holdout,
        synthetic=synthetic,
        t=0.5,
        random_state=6,
        population_size=3000,
        **common,
    )
    assert naive.f1 > truth.f1 + 0.3


# --------------------------------------------------------------------------------------------
# Distance attacks: hand cases on one numeric column (Gower range 0..16, exact in binary)
# --------------------------------------------------------------------------------------------
def test_dcr_holdout_share_ties_count_half():
    # s = 1: train 1 < holdout 3; s = 6: 2 vs 2 (tie); s = 12: 4 vs 4 (tie) -> (1 + 0.5 + 0.5) / 3
    r = mb.dcr_holdout_share(synthetic=numbers(1, 6, 12), train=numbers(0, 8), holdout=numbers(4, 16))
    assert r.value == pytest.approx(2 / 3)
    assert r.ties == pytest.approx(2 / 3)
    np.testing.assert_allclose(r.dcr_train, np.array([1, 2, 4]) / 16)


def test_dcr_holdout_share_equalises_sizes():
    r = mb.dcr_holdout_share(
        synthetic=numbers(1, 6, 12), train=numbers(0, 8, 9), holdout=numbers(4, 16), random_state=0
    )
    assert r.n_reference == 2


def test_threshold_attack_by_hand():
    # copy of train [0, 2]; holdout DCRs 6/16 and 14/16.
    r = mb.threshold_attack(
        train=numbers(0, 2), holdout=numbers(8, 16), synthetic=numbers(0, 2), thresholds=[0, 0.5, 1]
    )
    np.testing.assert_allclose(r.precision, [1.0, 2 / 3, 0.5])
    np.testing.assert_allclose(r.recall, [1.0, 1.0, 1.0])
    assert r.value == 1.0  # the closer half are the two training records


def test_threshold_attack_nobody_called_is_nan():
    r = mb.threshold_attack(
        train=numbers(0, 2), holdout=numbers(8, 16), synthetic=numbers(5, 6), thresholds=[0.0]
    )
    assert np.isnan(r.precision[0])


def test_nn_mia_auc_with_ties_by_hand():
    # DCRs: members 0, 0; non-members 0 (a copy) and 14/16. Of the 4 member/non-member pairs,
    # 2 are ties (count 1/2) and 2 are won: AUC = (1 + 2) / 4
    r = mb.nn_mia(train=numbers(0, 2), holdout=numbers(0, 16), synthetic=numbers(0, 2))
    assert r.auc == pytest.approx(0.75)


def test_adversarial_accuracy_by_hand_strict_ties():
    # T = [0, 4], S = [8, 16]. d_TS = (8, 4), d_TT = (4, 4): 8 > 4 yes, 4 > 4 no -> 1/2.
    # d_ST = (4, 12), d_SS = (8, 8): no, yes -> 1/2. AA = 1/2.
    r = mb.adversarial_accuracy(train=numbers(0, 4), synthetic=numbers(8, 16))
    assert (r.aa_target, r.aa_synthetic, r.value) == pytest.approx((0.5, 0.5, 0.5))
    # one tie (4 vs 4) among the target side's two comparisons, none on the synthetic side
    assert r.ties == pytest.approx(0.25)
    assert r.n_repeats == 1


def test_adversarial_accuracy_needs_two_rows():
    with pytest.raises(PrivlibError, match="at least 2"):
        mb.adversarial_accuracy(train=numbers(0, 4), synthetic=numbers(8))


# --------------------------------------------------------------------------------------------
# Distance attacks on real data: a copy, and an independent sample (the null)
# --------------------------------------------------------------------------------------------
def test_copy_synthesizer_is_fully_exposed(adult_samples):
    train, holdout, _, _ = adult_samples
    copy = pl.synth.Copy().fit(train).sample(random_state=0)
    results = [
        judge(r)
        for r in (
            mb.nn_mia(train=train, holdout=holdout, synthetic=copy, random_state=0),
            mb.adversarial_accuracy(train=train, synthetic=copy, random_state=0),
            mb.dcr_holdout_share(synthetic=copy, train=train, holdout=holdout),
            mb.privacy_loss(train=train, holdout=holdout, synthetic=copy, random_state=0),
            mb.threshold_attack(train=train, holdout=holdout, synthetic=copy, random_state=0),
        )
    ]
    assert [r.value for r in results[:3]] == [1.0, 0.0, 1.0]
    # AA on unseen records is about 0.5, so the loss is about 0.5 (Yale et al.)
    assert results[3].value == pytest.approx(0.5, abs=0.1)
    assert [r.verdict for r in results] == [RISK] * len(results)
    assert mb.discriminator_test(train=train, holdout=holdout, synthetic=copy, random_state=0).value > 0.1


def test_independent_sample_gives_null_values(adult_samples):
    # synthetic data = real records from the same population, never seen in training.
    # Standard errors at 600 records per table: AUC about 0.017, the shares about 0.02, the loss
    # about 0.03; tolerances are about 3 standard errors.
    train, holdout, test, other = adult_samples
    results = [
        judge(r)
        for r in (
            mb.nn_mia(train=train, holdout=holdout, synthetic=other, random_state=0),
            mb.dcr_holdout_share(synthetic=other, train=train, holdout=holdout),
            mb.privacy_loss(train=train, holdout=test, synthetic=other, random_state=0),
            mb.adversarial_accuracy(train=train, synthetic=other, random_state=0),
            mb.threshold_attack(train=train, holdout=holdout, synthetic=other, random_state=0),
        )
    ]
    assert [r.value for r in results] == pytest.approx([0.5, 0.5, 0.0, 0.5, 0.5], abs=0.09)
    for r in results:
        assert r.verdict in VERDICTS and r.verdict != RISK, r.measure
        assert r.ci_low <= r.value <= r.ci_high, r.measure
    disc = mb.discriminator_test(train=train, holdout=holdout, synthetic=other, random_state=0)
    assert disc.value == pytest.approx(0.0, abs=0.05)
    assert disc.auc == pytest.approx(0.5, abs=0.08)


def test_discriminator_rejects_non_classifier(adult_samples):
    train, holdout, _, other = adult_samples
    with pytest.raises(PrivlibError, match="`estimator`"):
        mb.discriminator_test(train=train, holdout=holdout, synthetic=other, estimator=object())


def test_readings_follow_the_numbers():
    r = judge(
        mb.ground_truth_risk(
            population=POPULATION, train_rows=MEMBERS, synthetic=SYNTHETIC, attack_size=8, h=1
        )
    )
    assert "M = -0.286" in r.reading()
    row = r.to_frame()
    assert row.loc["ground_truth_f1", "f1"] == pytest.approx(4 / 7)
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    # without N, M is taken against the attack set's own share t = 1/2: F_max = 2/3, as above
    no_n = judge(
        mb.partition_risk(train=train, holdout=holdout, synthetic=SYNTHETIC, t=0.5, attack_size=8, h=1)
    )
    assert no_n.m_from == "t" and no_n.m == pytest.approx(-2 / 7)
    assert no_n.threshold == pytest.approx(2 / 3 + 0.2 / 3)


# --------------------------------------------------------------------------------------------
# Plots of this module
# --------------------------------------------------------------------------------------------
def test_plot_f1_vs_t_draws_the_results():
    import matplotlib

    matplotlib.use("Agg")
    train, holdout = POPULATION.iloc[:4], POPULATION.iloc[4:]
    sweep = [
        mb.partition_risk(
            train=train, holdout=holdout, synthetic=SYNTHETIC, t=t, attack_size=4, h=1, population_size=16
        )
        for t in (0.5, 0.25)
    ]
    ax = pl.plots.plot_f1_vs_t(sweep)
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), [0.25, 0.5])  # sorted by t
    np.testing.assert_allclose(line.get_ydata(), [sweep[1].f1, sweep[0].f1])
    with pytest.raises(PrivlibError, match="`results`"):
        pl.plots.plot_f1_vs_t([])


def test_plot_risk_utility_loss_curve_and_points():
    import matplotlib

    matplotlib.use("Agg")
    ax = pl.plots.plot_risk_utility_loss({"g": (0.5, 0.6)})
    curve = ax.get_lines()[0]
    # the curve is drawn for U = 1: -1 up to M = 0.2, -(0.31 + 1/2) = -0.81 at M = 1
    assert curve.get_ydata()[0] == pytest.approx(-1.0)
    assert curve.get_ydata()[-1] == pytest.approx(-0.81)
    # the point sits at its own loss: -(0.31 + 1 / (1 + e^-0.5)) * 0.6
    x, y = ax.collections[0].get_offsets()[0]
    assert (x, y) == pytest.approx((0.5, -(0.31 + 1 / (1 + math.exp(-0.5))) * 0.6))


# --------------------------------------------------------------------------------------------
# Adversarial accuracy and privacy loss against the plain algorithm (brute-force distances)
# --------------------------------------------------------------------------------------------
def small_mixed(rng, n):
    """``n`` records of an integer 0..4 and a category of three: every Gower distance is a
    multiple of 1/8, exact in floating point, so ties are ties in both computations."""
    x = rng.integers(0, 5, size=n).astype("float64")
    x[:2] = [0, 4]  # the range is 4 in every table
    return pd.DataFrame({"x": x, "c": pd.Categorical(rng.choice(list("abc"), size=n))})


def brute_gower(a, b):
    """All Gower distances between the records of ``a`` and ``b`` (range of x is 4)."""
    dx = np.abs(a["x"].to_numpy()[:, None] - b["x"].to_numpy()[None, :]) / 4
    dc = a["c"].to_numpy()[:, None] != b["c"].to_numpy()[None, :]
    return (dx + dc) / 2


def plain_aa_repeats(target, synthetic, rng, n_repeats, samples=(None, None)):
    """AA_TS per repetition as the definition reads: subsample the larger table (sorted positions
    drawn without replacement), then the four nearest distances from scratch; with ``samples``
    (positions in the target and synthetic tables, ``None``: all), each half's mean is taken over
    the sampled records the repetition's tables hold."""
    size = min(len(target), len(synthetic))
    n_repeats = 1 if len(target) == len(synthetic) else n_repeats
    values = []
    for _ in range(n_repeats):
        positions = [
            np.arange(size) if len(table) == size else np.sort(rng.choice(len(table), size, replace=False))
            for table in (target, synthetic)
        ]
        t, s = (table.iloc[rows] for table, rows in zip((target, synthetic), positions))
        tt, ss = brute_gower(t, t), brute_gower(s, s)
        np.fill_diagonal(tt, np.inf)
        np.fill_diagonal(ss, np.inf)
        ts = brute_gower(t, s)
        read = [
            np.ones(size, bool) if sample is None else np.isin(rows, sample)
            for rows, sample in zip(positions, samples)
        ]
        target_side = (ts.min(axis=1) > tt.min(axis=1))[read[0]]
        synthetic_side = (ts.min(axis=0) > ss.min(axis=1))[read[1]]
        values.append(0.5 * (target_side.mean() + synthetic_side.mean()))
    return np.array(values)


@pytest.mark.parametrize("sizes", [(30, 20, 45), (50, 20, 35), (40, 40, 40)])
def test_privacy_loss_equals_the_plain_algorithm(sizes):
    # the distances that do not depend on a subsample are searched once and reused: the
    # repetitions must still be those of the plain algorithm, draw for draw
    data = np.random.default_rng(sum(sizes))
    train, test, synthetic = (small_mixed(data, n) for n in sizes)
    result = mb.privacy_loss(train=train, holdout=test, synthetic=synthetic, n_repeats=4, random_state=7)
    rng = np.random.default_rng(7)
    on_train = plain_aa_repeats(train, synthetic, rng, 4)
    on_test = plain_aa_repeats(test, synthetic, rng, 4)
    pairs = max(len(on_train), len(on_test))
    losses = [on_test[i % len(on_test)] - on_train[i % len(on_train)] for i in range(pairs)]
    np.testing.assert_allclose(result.repeats, losses, rtol=0, atol=1e-12)
    assert (result.aa_train, result.aa_test) == pytest.approx((on_train.mean(), on_test.mean()), abs=1e-12)


@pytest.mark.parametrize("sizes", [(50, 30), (30, 50)])
def test_adversarial_accuracy_equals_the_plain_algorithm(sizes):
    data = np.random.default_rng(sum(sizes))
    target, synthetic = (small_mixed(data, n) for n in sizes)
    result = mb.adversarial_accuracy(train=target, synthetic=synthetic, n_repeats=3, random_state=3)
    expected = plain_aa_repeats(target, synthetic, np.random.default_rng(3), 3)
    np.testing.assert_allclose(result.repeats, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("miss_share", [0.3, 0.6])
def test_short_neighbour_lists_fall_back_to_searching_the_subsample(monkeypatch, miss_share):
    # lists of one or two neighbours leave many records with no drawn neighbour listed: those are
    # searched in the subsample, and the repetitions are still the plain algorithm's
    monkeypatch.setattr(adversarial_repeats, "_LIST_MISS_SHARE", miss_share)
    searched = []
    nearest_other = adversarial_repeats._nearest_other
    monkeypatch.setattr(
        adversarial_repeats, "_nearest_other", lambda *a: searched.append(1) or nearest_other(*a)
    )
    data = np.random.default_rng(4)
    train, test, synthetic = (small_mixed(data, n) for n in (30, 20, 45))
    result = mb.privacy_loss(train=train, holdout=test, synthetic=synthetic, n_repeats=5, random_state=2)
    rng = np.random.default_rng(2)
    on_train, on_test = plain_aa_repeats(train, synthetic, rng, 5), plain_aa_repeats(test, synthetic, rng, 5)
    np.testing.assert_allclose(result.repeats, on_test - on_train, rtol=0, atol=1e-12)
    assert searched  # some records had no drawn neighbour in their lists


# --------------------------------------------------------------------------------------------
# A bounded sample of the records whose distances are read (max_queries)
# --------------------------------------------------------------------------------------------
def sample_rows(seed, role, n, size):
    """The positions a bounded measure reads of the table of ``role`` with ``n`` records: all
    (None) up to ``size``, else ``size`` of them drawn without replacement, in increasing order,
    from the role's own stream (seed and the role's place among training, synthetic, holdout)."""
    if n <= size:
        return None
    stream = np.random.default_rng([seed, ("train", "synthetic", "holdout").index(role)])
    return np.sort(stream.choice(n, size, replace=False))


@pytest.mark.parametrize("n_repeats", [2, 5])  # without and with the neighbour lists
@pytest.mark.parametrize("sizes", [(60, 30, 60), (40, 30, 60), (60, 50, 30)])
def test_privacy_loss_of_a_sample_equals_the_plain_algorithm_on_it(sizes, n_repeats):
    # tables beyond max_queries records are read on a seeded sample (each table from a stream of
    # its own, apart from the subsamples' draws), every sampled record searched among all
    data = np.random.default_rng(sum(sizes) + n_repeats)
    train, test, synthetic = (small_mixed(data, n) for n in sizes)
    result = mb.privacy_loss(
        train=train, holdout=test, synthetic=synthetic, n_repeats=n_repeats, random_state=5, max_queries=24
    )
    rng = np.random.default_rng(5)
    train_rows, synthetic_rows, test_rows = (
        sample_rows(5, role, n, 24)
        for role, n in zip(("train", "synthetic", "holdout"), (sizes[0], sizes[2], sizes[1]))
    )
    on_train = plain_aa_repeats(train, synthetic, rng, n_repeats, (train_rows, synthetic_rows))
    on_test = plain_aa_repeats(test, synthetic, rng, n_repeats, (test_rows, synthetic_rows))
    pairs = max(len(on_train), len(on_test))
    losses = [on_test[i % len(on_test)] - on_train[i % len(on_train)] for i in range(pairs)]
    np.testing.assert_allclose(result.repeats, losses, rtol=0, atol=1e-12)
    assert (result.aa_train, result.aa_test) == pytest.approx((on_train.mean(), on_test.mean()), abs=1e-12)
    assert result.sample_size == 24
    assert "sample of at most 24 records per table" in result.reading()


@pytest.mark.parametrize("sizes", [(60, 60), (60, 30), (30, 60)])
def test_adversarial_accuracy_of_a_sample_equals_the_plain_algorithm_on_it(sizes):
    data = np.random.default_rng(sum(sizes))
    target, synthetic = (small_mixed(data, n) for n in sizes)
    result = mb.adversarial_accuracy(
        train=target, synthetic=synthetic, n_repeats=4, random_state=8, max_queries=20
    )
    rng = np.random.default_rng(8)
    samples = tuple(sample_rows(8, role, n, 20) for role, n in zip(("train", "synthetic"), sizes))
    expected = plain_aa_repeats(target, synthetic, rng, 4, samples)
    np.testing.assert_allclose(result.repeats, expected, rtol=0, atol=1e-12)
    assert result.sample_size == 20


def test_a_bound_no_table_exceeds_changes_nothing():
    data = np.random.default_rng(11)
    train, test, synthetic = (small_mixed(data, n) for n in (40, 20, 45))
    whole = mb.privacy_loss(train=train, holdout=test, synthetic=synthetic, n_repeats=3, random_state=1)
    bounded = mb.privacy_loss(
        train=train, holdout=test, synthetic=synthetic, n_repeats=3, random_state=1, max_queries=45
    )
    assert bounded == whole and bounded.sample_size is None
    assert "sample" not in bounded.reading()
    whole_aa = mb.adversarial_accuracy(train=train, synthetic=synthetic, n_repeats=3, random_state=1)
    bounded_aa = mb.adversarial_accuracy(
        train=train, synthetic=synthetic, n_repeats=3, random_state=1, max_queries=45
    )
    assert bounded_aa == whole_aa and bounded_aa.sample_size is None


def test_the_risk_utility_loss_legend_hides_no_point():
    import matplotlib

    matplotlib.use("Agg")
    # lesson 06's tuning: low M with losses near -0.8 sit where a legend inside the chart went
    settings = [(-0.04, 0.83), (-0.01, 0.80), (0.02, 0.85), (0.1, 0.9), (0.3, 0.95)]
    points = {f"min_samples_leaf = {i}": point for i, point in enumerate(settings)}
    ax = pl.plots.plot_risk_utility_loss(points)
    ax.figure.canvas.draw()
    legend_box = ax.get_legend().get_window_extent()
    for collection in ax.collections:
        for x, y in collection.get_offsets():
            assert not legend_box.contains(*ax.transData.transform((x, y))), (x, y)
