"""Tests of privlib.membership.discriminator_test: a copy, an independent sample, the intervals.

The tests fit on one thread (``n_jobs=1``): the results do not depend on it, and the shared test
machine runs OpenMP threads badly.
"""

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm
from sklearn.ensemble import RandomForestClassifier

import privlib as pl
import privlib.membership as mb
from privlib import PrivlibError
from privlib.membership import discriminator
from privlib.results import RISK
from privlib.thresholds import REGISTRY, judge

ONE_THREAD = dict(n_jobs=1)


@pytest.fixture(scope="module")
def adult_samples():
    """Three disjoint seeded samples of distinct Adult records: train, holdout, other."""
    adult = pl.load_dataset("adult").drop_duplicates().reset_index(drop=True)
    order = np.random.default_rng(11).permutation(len(adult))[:1800]
    return [adult.iloc[order[i : i + 600]].reset_index(drop=True) for i in range(0, 1800, 600)]


def test_copy_of_the_training_data_is_a_risk(adult_samples):
    train, holdout, _ = adult_samples
    copy = pl.synth.Copy().fit(train).sample(random_state=0)
    res = judge(
        mb.discriminator_test(train=train, holdout=holdout, synthetic=copy, random_state=0, **ONE_THREAD)
    )
    # unseen copies of training records look as real as the training records the model saw
    assert res.value > 0.1 and res.real_synthetic > res.real_holdout
    assert res.ci_low > REGISTRY["discriminator_excess_realness"].cutoff and res.verdict == RISK
    assert res.model == "HistGradientBoostingClassifier"


def test_independent_sample_gives_null_values(adult_samples):
    # Standard errors at 600 records per table: the difference about 0.015, the AUC about 0.02.
    train, holdout, other = adult_samples
    res = judge(
        mb.discriminator_test(train=train, holdout=holdout, synthetic=other, random_state=0, **ONE_THREAD)
    )
    assert res.value == pytest.approx(0.0, abs=0.05)
    assert res.auc == pytest.approx(0.5, abs=0.08)
    assert res.ci_low < res.value < res.ci_high and res.ci_method == "bootstrap"
    assert res.auc_low < res.auc < res.auc_high
    assert res.verdict != RISK


def test_hanley_mcneil_interval_by_its_formula():
    # Hanley & McNeil (1982), eq. 2, for A = 0.8 and 50 records in each class
    a, n1, n2 = 0.8, 50, 50
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    se = math.sqrt((a * (1 - a) + (n1 - 1) * (q1 - a * a) + (n2 - 1) * (q2 - a * a)) / (n1 * n2))
    assert se == pytest.approx(0.0445, abs=5e-4)  # the paper's Table 2 gives 0.044 for these
    low, high = discriminator._hanley_mcneil_interval(a, n1, n2, 0.9)
    assert (low, high) == pytest.approx((a - norm.ppf(0.95) * se, a + norm.ppf(0.95) * se))
    assert discriminator._hanley_mcneil_interval(1.0, 10, 10, 0.95) == (1.0, 1.0)


def test_repetitions_are_seeded_and_the_interval_covers_the_value(adult_samples):
    train, holdout, other = adult_samples
    train, holdout, other = train.iloc[:200], holdout.iloc[:200], other.iloc[:201]
    runs = [
        mb.discriminator_test(
            train=train, holdout=holdout, synthetic=other, random_state=4, n_repeats=3, **ONE_THREAD
        )
        for _ in range(2)
    ]
    assert runs[0].value == runs[1].value and runs[0].ci_low == runs[1].ci_low
    res = runs[0]
    assert res.n_repeats == 3 and len(res.repeats) == 3
    assert res.value == pytest.approx(np.mean(res.repeats))
    assert res.ci_low <= res.value <= res.ci_high
    other_seed = mb.discriminator_test(
        train=train, holdout=holdout, synthetic=other, random_state=5, n_repeats=3, **ONE_THREAD
    )
    assert other_seed.value != res.value


def test_any_classifier_can_replace_the_default(adult_samples):
    train, holdout, _ = adult_samples
    copy = pl.synth.Copy().fit(train).sample(random_state=0)
    res = mb.discriminator_test(
        train=train,
        holdout=holdout,
        synthetic=copy,
        random_state=0,
        estimator=RandomForestClassifier(n_estimators=25),
        **ONE_THREAD,
    )
    assert res.model == "RandomForestClassifier" and res.value > 0.1


def test_a_variable_with_more_categories_than_the_model_splits_is_kept_as_a_number():
    rng = np.random.default_rng(0)

    def table(n):
        return pd.DataFrame({"x": rng.normal(size=n), "code": [f"c{i}" for i in rng.integers(0, 400, n)]})

    tables = (table(500), table(300), table(500))
    kinds = pl.schema.infer_kinds(tables[0])
    features, categorical = discriminator._coded_features(tables, kinds)
    assert categorical.tolist() == [False, False]
    # the codes are frequency ranks shared by the three tables: the same label, the same code
    joint = pd.concat([t["code"] for t in tables], ignore_index=True)
    codes = np.concatenate([f[:, 1] for f in features])
    assert pd.Series(codes).groupby(joint.to_numpy()).nunique().max() == 1
    counts = joint.value_counts()
    assert codes[joint.to_numpy() == counts.index[0]][0] == 0  # the most frequent label is 0
    res = mb.discriminator_test(
        train=tables[0], holdout=tables[1], synthetic=tables[2], random_state=0, **ONE_THREAD
    )
    assert np.isfinite(res.value)


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(estimator=object()), "`estimator`"),
        (dict(n_jobs=0), "`n_jobs`"),
        (dict(confidence=1.5), "`confidence`"),
        (dict(n_repeats=0), "`n_repeats`"),
    ],
)
def test_discriminator_rejects_bad_arguments(adult_samples, change, message):
    train, holdout, other = adult_samples
    with pytest.raises(PrivlibError, match=message):
        mb.discriminator_test(train=train, holdout=holdout, synthetic=other, **change)


def test_discriminator_needs_two_synthetic_rows(adult_samples):
    train, holdout, other = adult_samples
    with pytest.raises(PrivlibError, match="at least 2 rows"):
        mb.discriminator_test(train=train, holdout=holdout, synthetic=other.iloc[:1])


def test_a_bounded_sample_is_the_test_on_the_drawn_records_with_its_wider_interval(adult_samples):
    train, holdout, other = adult_samples
    bounded = mb.discriminator_test(
        train=train, holdout=holdout, synthetic=other, random_state=3, max_records=300, **ONE_THREAD
    )
    # the same test on the records the seed draws first, 300 of each table in increasing order
    rng = np.random.default_rng(3)
    drawn = [t.iloc[np.sort(rng.choice(len(t), 300, replace=False))] for t in (train, holdout, other)]
    by_hand = mb.discriminator_test(
        train=drawn[0], holdout=drawn[1], synthetic=drawn[2], random_state=rng, **ONE_THREAD
    )
    assert (bounded.value, bounded.ci_low, bounded.ci_high) == (
        by_hand.value,
        by_hand.ci_low,
        by_hand.ci_high,
    )
    assert bounded.auc_low == by_hand.auc_low and bounded.sample_size == 300 and by_hand.sample_size is None
    assert "seeded sample of at most 300 records" in bounded.reading()
    # Hanley-McNeil at 300 holdout and 150 scored synthetic records is wider than at 600 and 300
    whole = mb.discriminator_test(train=train, holdout=holdout, synthetic=other, random_state=3, **ONE_THREAD)
    assert bounded.auc_high - bounded.auc_low > whole.auc_high - whole.auc_low
    # a bound no table exceeds changes nothing
    loose = mb.discriminator_test(
        train=train, holdout=holdout, synthetic=other, random_state=3, max_records=600, **ONE_THREAD
    )
    assert (loose.value, loose.ci_low, loose.sample_size) == (whole.value, whole.ci_low, None)
