"""Certain attributions through rare keys: counts worked by hand, Fisher's p from scipy, Newcombe's
interval from its formula, the numeric tolerance at its boundary, a release from other people."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact, norm

import privlib as pl
from privlib.catalogue import CATALOGUE, MEASURES
from privlib.errors import ParameterError, PrivlibError
from privlib.rare_attributions import rare_attribution_test
from privlib.thresholds import judge

# Keys (k, g); sensitive s. Pooled real classes: (e, 1) holds t5 and h5, every other key one record.
TRAIN = pd.DataFrame(
    {
        "k": ["a", "b", "c", "d", "e", "f"],
        "g": ["1"] * 6,
        "s": ["x", "y", "x", "x", "x", "y"],
    }
)
HOLDOUT = pd.DataFrame({"k": ["g", "h", "i", "j", "e"], "g": ["1"] * 5, "s": ["x", "y", "x", "y", "y"]})
SYNTHETIC = pd.DataFrame(
    {
        "k": ["a", "b", "b", "c", "c", "e", "f", "g", "i", "z"],
        "g": ["1"] * 10,
        "s": ["x", "y", "y", "x", "y", "x", "x", "x", "y", "x"],
    }
)
# By hand, unique keys (class size 1): training a, b, c, d, f; holdout g, h, i, j.
#   a: one synthetic record, x = x: certain.     b: two, both y = y: certain.
#   c: x and y: not certain.   d: no synthetic record.   f: x, the person's is y: wrong.
#   g: x = x: certain.   h, j: none.   i: y, the person's is x: wrong.
# So 2 of 5 training and 1 of 4 holdout. With classes of up to 2, e joins: t5 (x, the synthetic
# record says x: certain) and h5 (y: wrong), so 3 of 6 and 1 of 5.
HAND = {1: (2, 5, 1, 4), 2: (3, 6, 1, 5)}


def newcombe(a, n1, b, n2, confidence=0.95):
    """Newcombe (1998), method 10, from the Wilson score intervals, written out."""
    z = norm.ppf(1 - (1 - confidence) / 2)

    def wilson(x, n):
        p = x / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return p, centre - half, centre + half

    p1, l1, u1 = wilson(a, n1)
    p2, l2, u2 = wilson(b, n2)
    d = p1 - p2
    return d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2), d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)


@pytest.mark.parametrize("max_class_size", [1, 2])
def test_the_counts_p_and_interval_are_those_worked_by_hand(max_class_size):
    a, n1, b, n2 = HAND[max_class_size]
    result = rare_attribution_test(
        train=TRAIN,
        holdout=HOLDOUT,
        synthetic=SYNTHETIC,
        keys=["k", "g"],
        target="s",
        max_class_size=max_class_size,
    )
    assert (result.train_attributed, result.n_train, result.holdout_attributed, result.n_holdout) == (
        a,
        n1,
        b,
        n2,
    )
    assert result.measure == "rare_attribution_test" and result.keys == ("k", "g") and result.target == "s"
    assert result.value == pytest.approx(a - b * n1 / n2)
    assert result.p_value == pytest.approx(fisher_exact([[a, n1 - a], [b, n2 - b]], alternative="greater")[1])
    low, high = newcombe(a, n1, b, n2)
    assert (result.ci_low, result.ci_high) == pytest.approx((n1 * low, n1 * high))
    assert result.records_at_risk == max(0, round(a - b * n1 / n2))
    # the exact test at 0.05: no count of 5 (or 6) training records is significant with 3 (or 4)
    # attributions in all, so the largest excess put down to chance is the count's highest
    assert judge(result).verdict == "no evidence of risk"
    assert not result.numeric_target and "range" not in result.reading()


def test_a_release_that_gives_rare_training_people_their_value_is_a_risk():
    # 30 people unique on the keys in each table; the release carries the keys and value of 12
    # training uniques: 12 of 30 against 0 of 30, Fisher's p = C(30, 12) / C(60, 12)
    common = pd.DataFrame({"k": ["a", "b"] * 50, "s": ["x", "y"] * 50})
    rare_train = pd.DataFrame({"k": [f"t{i}" for i in range(30)], "s": ["x", "y", "z"] * 10})
    rare_holdout = pd.DataFrame({"k": [f"h{i}" for i in range(30)], "s": ["x", "y", "z"] * 10})
    train, holdout = pd.concat([common, rare_train]), pd.concat([common, rare_holdout])
    synthetic = pd.concat([common, rare_train.iloc[:12]])
    result = judge(
        rare_attribution_test(train=train, holdout=holdout, synthetic=synthetic, keys="k", target="s")
    )
    assert (result.train_attributed, result.n_train, result.holdout_attributed, result.n_holdout) == (
        12,
        30,
        0,
        30,
    )
    assert result.p_value == pytest.approx(math.comb(30, 12) / math.comb(60, 12))
    assert result.verdict == "risk" and result.records_at_risk == 12


def test_numeric_values_count_within_the_tolerance_boundary_included():
    # range 0 to 100 over the three tables: 1% is a width of 1.0
    train = pd.DataFrame({"k": list("abcdgh"), "v": [50.0, 50.0, 50.0, 50.0, 50.0, math.nan]})
    holdout = pd.DataFrame({"k": ["e", "f", "i"], "v": [0.0, 100.0, math.nan]})
    synthetic = pd.DataFrame(
        {
            "k": ["a", "b", "c", "c", "d", "d", "g", "h", "i"],
            "v": [51.0, 51.01, 49.0, 50.5, 49.0, 48.99, 50.0, math.nan, 3.0],
        }
    )
    # a: 51.0 on the boundary (given); b: 51.01 beyond it; c: both within; d: 48.99 beyond;
    # g: exact; h: missing given by missing; i (holdout): missing, the release says 3.
    at_one_percent = rare_attribution_test(
        train=train, holdout=holdout, synthetic=synthetic, keys="k", target="v"
    )
    exact = rare_attribution_test(
        train=train, holdout=holdout, synthetic=synthetic, keys="k", target="v", numeric_tolerance=0
    )
    assert (at_one_percent.train_attributed, at_one_percent.n_train) == (4, 6)  # a, c, g, h
    assert (exact.train_attributed, exact.n_train) == (2, 6)  # g, h
    assert at_one_percent.holdout_attributed == exact.holdout_attributed == 0
    assert "within 1% of its range" in at_one_percent.reading()


def test_keys_match_exactly_and_a_missing_key_is_a_value():
    train = pd.DataFrame({"age": [30.0, 31.0, math.nan, 40.0], "s": ["x", "x", "x", "y"]})
    holdout = pd.DataFrame({"age": [50.0, 60.0], "s": ["x", "y"]})
    synthetic = pd.DataFrame({"age": [30.0, 31.4, math.nan, 60.0], "s": ["x", "x", "x", "y"]})
    result = rare_attribution_test(train=train, holdout=holdout, synthetic=synthetic, keys="age", target="s")
    # 30 and missing are given; 31 is not (31.4 is another key, whatever the tolerance); 60 is
    assert (result.train_attributed, result.holdout_attributed) == (2, 1)


def test_a_release_from_other_people_reads_no_evidence_on_adult():
    # the generator never saw the training records: fitted on 2,000 other people of the population
    adult = pl.load_dataset("adult")
    info = pl.dataset_info("adult")
    order = np.random.default_rng(3).permutation(len(adult))
    train, holdout, others = (adult.iloc[order[i : i + 2000]].reset_index(drop=True) for i in (0, 2000, 4000))
    generator = pl.synth.make("GaussianCopula").fit(others)
    risks = 0
    for seed in range(20):
        synthetic = generator.sample(2000, random_state=seed)
        result = judge(
            rare_attribution_test(
                train=train, holdout=holdout, synthetic=synthetic, keys=info.keys, target="income"
            )
        )
        assert result.n_train > 100 and result.n_holdout > 100
        risks += result.verdict == "risk"
    assert risks <= 1, f"{risks} of 20 releases fitted on other people read as a risk"


def test_one_target_not_among_the_keys_and_some_rare_record_in_each_table():
    args = dict(train=TRAIN, holdout=HOLDOUT, synthetic=SYNTHETIC)
    with pytest.raises(ParameterError, match="`target` must name one column"):
        rare_attribution_test(**args, keys="k", target=["s", "g"])
    with pytest.raises(ParameterError, match="also among the `keys`"):
        rare_attribution_test(**args, keys=["k", "s"], target="s")
    with pytest.raises(PrivlibError, match="no training or no holdout record is rare"):
        rare_attribution_test(**args, keys="g", target="s")


def test_the_audit_runs_it_per_sensitive_variable_in_the_attribute_family():
    spec = MEASURES["rare_attribution_test"]
    assert spec in CATALOGUE and spec.family == "attribute" and spec.per_target
    assert spec.rule is not None and spec.rule.exact_test and spec.needs == ("holdout", "keys", "sensitive")
    assert pl.rare_attributions.rare_attribution_test is rare_attribution_test
