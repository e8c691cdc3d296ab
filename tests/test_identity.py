"""Identity disclosure: every expectation below is worked out by hand on a tiny table."""

import json
import math

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

import privlib.identity as identity
from privlib import ParameterError, PrivlibError
from privlib.plots import plot_dcr_histogram
from privlib.thresholds import judge


# --------------------------------------------------------------------------------------------
# identical_match_share
# --------------------------------------------------------------------------------------------
@pytest.fixture
def copies():
    train = pd.DataFrame({"sex": ["F", "M", "F"], "age": [30, 40, np.nan]})
    # age as float in the synthetic data: 30.0 must still equal the training 30
    synthetic = pd.DataFrame({"sex": ["F", "M", "F", "M"], "age": [30.0, 41.0, np.nan, 30.0]})
    holdout = pd.DataFrame({"sex": ["M", "F", "M"], "age": [41.0, 50.0, 40.0]})
    return synthetic, train, holdout


def test_identical_match_share_by_hand(copies):
    synthetic, train, holdout = copies
    result = judge(identity.identical_match_share(synthetic=synthetic, train=train, holdout=holdout))
    # (F, 30) and (F, missing) are in train; (M, 41) is in the holdout only; (M, 30) nowhere.
    assert result.in_train.tolist() == [True, False, True, False]
    assert result.in_holdout.tolist() == [False, True, False, False]
    assert result.value == 0.5
    assert result.baseline == 0.25
    assert (result.n_train_matches, result.n_holdout_matches, result.n_synthetic) == (2, 1, 4)
    # Wilson 95% interval of 2/4 by the formula: centre (0.5 + z^2/8) / (1 + z^2/4)
    z = 1.959963984540054
    centre, half = (0.5 + z * z / 8) / (1 + z * z / 4), z * math.sqrt(0.25 / 4 + z * z / 64) / (1 + z * z / 4)
    assert (result.ci_low, result.ci_high) == pytest.approx((centre - half, centre + half))
    # cut-off: the holdout share plus the registry's margin of 0.01; the interval straddles it
    assert result.threshold == pytest.approx(0.26) and result.verdict == "inconclusive"
    assert "+25.0 percentage points" in result.reading()


def test_identical_match_share_without_holdout(copies):
    synthetic, train, _ = copies
    result = judge(identity.identical_match_share(synthetic=synthetic, train=train))
    assert result.baseline is None and result.in_holdout is None
    assert result.value == 0.5
    # without a holdout the fallback cut-off (a fixed share) applies
    assert result.threshold == pytest.approx(0.05)


def test_identical_match_share_all_unique_and_no_copies():
    train = pd.DataFrame({"x": ["a", "b", "c"]})
    synthetic = pd.DataFrame({"x": ["d", "e"]})
    result = identity.identical_match_share(synthetic=synthetic, train=train, holdout=train)
    assert result.value == 0.0 and result.baseline == 0.0


def test_identical_match_share_errors(copies):
    synthetic, train, holdout = copies
    with pytest.raises(PrivlibError, match="different columns"):
        identity.identical_match_share(synthetic=synthetic.drop(columns="age"), train=train)
    with pytest.raises(PrivlibError, match="`holdout`"):
        identity.identical_match_share(synthetic=synthetic, train=train, holdout=holdout.iloc[:0])
    with pytest.raises(PrivlibError, match="`synthetic` must be a pandas DataFrame"):
        identity.identical_match_share(synthetic=synthetic.to_numpy(), train=train)


# --------------------------------------------------------------------------------------------
# dcr and dcr_summary
# --------------------------------------------------------------------------------------------
def test_dcr_gower_by_hand():
    reference = pd.DataFrame({"age": [20.0, 60.0], "sex": ["F", "M"]})
    synthetic = pd.DataFrame({"sex": ["F", "M", "F"], "age": [20.0, 30.0, 60.0]})
    # Range of age over both tables: 60 - 20 = 40.
    # (30, M): to (20, F) (10/40 + 1) / 2 = 0.625, to (60, M) (30/40 + 0) / 2 = 0.375
    # (60, F): to (20, F) (40/40 + 0) / 2 = 0.5,   to (60, M) (0 + 1) / 2 = 0.5
    np.testing.assert_allclose(identity.dcr(synthetic=synthetic, train=reference), [0.0, 0.375, 0.5])


def test_dcr_missing_values():
    reference = pd.DataFrame({"x": ["a", None]})
    synthetic = pd.DataFrame({"x": [None, "b"]})
    # missing equals missing; "b" differs from "a" and from missing
    np.testing.assert_array_equal(identity.dcr(synthetic=synthetic, train=reference), [0.0, 1.0])
    # a one-record reference whose value is missing is still a valid table to search
    np.testing.assert_array_equal(identity.dcr(synthetic=synthetic, train=reference.iloc[[1]]), [0.0, 1.0])


def test_dcr_summary_uses_one_scale_for_both_distances():
    train = pd.DataFrame({"x": [0.0, 10.0]})
    synthetic = pd.DataFrame({"x": [5.0, 0.0]})
    holdout = pd.DataFrame({"x": [20.0]})
    result = identity.dcr_summary(synthetic=synthetic, train=train, holdout=holdout)
    # The range is taken from all three tables: 20. Synthetic 5 is 5 away -> 0.25; holdout 20 is
    # 10 away from 10 -> 0.5 (with train + synthetic alone it would have been 10/10 = 1).
    np.testing.assert_allclose(result.distances, [0.25, 0.0])
    np.testing.assert_allclose(result.holdout_distances, [0.5])
    assert result.value == 0.5 and result.baseline == 0.0
    assert result.median == pytest.approx(0.125)
    assert result.ci_method == "wilson" and result.ci_low <= 0.5 <= result.ci_high
    assert "4 times" in result.reading()  # holdout median 0.5 over synthetic median 0.125


def test_dcr_summary_categorical_copies():
    train = pd.DataFrame({"x": ["a", "b", "c"]})
    synthetic = pd.DataFrame({"x": ["a", "a", "d", "b"]})
    holdout = pd.DataFrame({"x": ["a", "e"]})
    result = identity.dcr_summary(synthetic=synthetic, train=train, holdout=holdout)
    assert result.value == 0.75 and result.baseline == 0.5
    assert result.median == 0.0 and result.holdout_median == 0.5


def test_dcr_summary_reading_sees_near_copies():
    # no exact copy, but every synthetic record sits 1/100 of the range from a training record,
    # while the holdout records are 1/4 of the range away: a near-copy generator
    train = pd.DataFrame({"x": [0.0, 100.0]})
    synthetic = pd.DataFrame({"x": [1.0, 99.0]})
    holdout = pd.DataFrame({"x": [25.0, 75.0]})
    result = identity.dcr_summary(synthetic=synthetic, train=train, holdout=holdout)
    assert result.value == 0.0 and result.baseline == 0.0
    assert result.median == pytest.approx(0.01) and result.holdout_median == pytest.approx(0.25)
    assert "25 times" in result.reading()  # 0.25 / 0.01
    far = identity.dcr_summary(synthetic=holdout, train=train, holdout=synthetic)
    assert "0.04 times" in far.reading()  # 0.01 / 0.25


def test_dcr_errors():
    a = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.raises(PrivlibError, match="numeric in `train` but categorical"):
        identity.dcr(synthetic=pd.DataFrame({"x": ["u", "v"]}), train=a)
    with pytest.raises(PrivlibError, match="different columns"):
        identity.dcr(synthetic=pd.DataFrame({"y": [1.0]}), train=a)


# --------------------------------------------------------------------------------------------
# replicated_uniques
# --------------------------------------------------------------------------------------------
def test_replicated_uniques_by_hand():
    real = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 30, 40, 50], "z": [1, 2, 3, 4]})
    fake = pd.DataFrame({"sex": ["F", "M", "M", "M"], "age": [30, 40, 40, 50], "z": [9, 9, 9, 9]})
    result = judge(identity.replicated_uniques(train=real, synthetic=fake, keys=["sex", "age"]))
    # Unique in the real data: (M, 40), (M, 50). Unique in the fake data: (F, 30), (M, 50).
    # Both: (M, 50) only.
    assert (result.n_unique_original, result.n_unique_synthetic, result.n_replicated) == (2, 2, 1)
    assert result.value == 0.5
    assert result.replicated_original.tolist() == [False, False, False, True]
    assert result.replicated_synthetic.tolist() == [False, False, False, True]
    # Wilson 95% interval of 1/2 by the formula, centre (0.5 + z^2/4) / (1 + z^2/2)
    z = 1.959963984540054
    centre, half = (0.5 + z * z / 4) / (1 + z * z / 2), z * math.sqrt(0.25 / 2 + z * z / 16) / (1 + z * z / 2)
    assert (result.ci_low, result.ci_high) == pytest.approx((centre - half, centre + half))
    assert result.baseline is None and result.threshold == pytest.approx(0.05)  # the fallback


def _wilson(k, n, z=1.959963984540054):
    """Wilson's score interval written out from Wilson (1927)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_replicated_uniques_against_the_holdout_uniques_by_hand():
    real = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 30, 40, 50]})
    fake = pd.DataFrame({"sex": ["F", "M", "M", "M"], "age": [30, 40, 40, 50]})
    # training uniques (M, 40), (M, 50); unique in the release: (F, 30), (M, 50) -> 1 of 2.
    # holdout uniques (M, 40), (F, 20): (M, 40) is twice in the release, (F, 20) absent -> 0 of 2
    holdout = pd.DataFrame({"sex": ["M", "M", "M", "F"], "age": [40, 50, 50, 20]})
    result = judge(
        identity.replicated_uniques(train=real, synthetic=fake, keys=["sex", "age"], holdout=holdout)
    )
    assert (result.n_replicated, result.n_unique_original) == (1, 2)
    assert (result.n_replicated_holdout, result.n_unique_holdout) == (0, 2)
    assert (result.train_share, result.holdout_share, result.value, result.baseline) == (0.5, 0.0, 0.5, 0.0)
    assert result.threshold == pytest.approx(0.05)
    # Newcombe (1998, method 10) from the two Wilson intervals
    (l1, u1), (l2, u2) = _wilson(1, 2), _wilson(0, 2)
    low, high = 0.5 - math.hypot(0.5 - l1, u2 - 0.0), 0.5 + math.hypot(u1 - 0.5, 0.0 - l2)
    assert (result.ci_low, result.ci_high) == pytest.approx((low, high))
    assert result.verdict == "inconclusive"  # two uniques a group cannot settle it
    # Fisher, one-sided: 1 replicated among 4 uniques, 2 of them training: P(X >= 1) = 2 / 4
    assert result.p_value == pytest.approx(0.5)
    assert result.records_at_risk == 1  # 1 replicated against 0 of 2 holdout uniques' share
    with pytest.raises(PrivlibError, match="keys"):
        identity.replicated_uniques(train=real, synthetic=fake, keys=["sex", "age"], holdout=holdout[["sex"]])


def test_replicated_uniques_of_a_release_of_other_people_is_no_evidence_and_of_a_copy_a_risk():
    # 400 training and 400 holdout people with 400 distinct keys each (every one unique), drawn
    # from 1,000 key values; a release of 400 other people from the same values carries each key
    # at most once: both groups are replicated at the same expected share, 400 / 1,000
    rng = np.random.default_rng(0)
    values = rng.permutation(1000)
    train, holdout, other = (pd.DataFrame({"k": values[rng.permutation(1000)[:400]]}) for _ in range(3))
    sound = judge(identity.replicated_uniques(train=train, synthetic=other, keys=["k"], holdout=holdout))
    a, b = len(np.intersect1d(train.k, other.k)), len(np.intersect1d(holdout.k, other.k))
    assert sound.value == pytest.approx((a - b) / 400)
    u1, l2 = _wilson(a, 400)[1], _wilson(b, 400)[0]
    high = (a - b) / 400 + math.hypot(u1 - a / 400, b / 400 - l2)
    # each share's standard error is sqrt(0.4 * 0.6 / 400) = 0.0245, so the difference's interval
    # reaches about 0.068 above its value: "no evidence" only when the value is below about -0.02
    assert sound.ci_high == pytest.approx(high)
    assert sound.verdict == ("no evidence of risk" if high <= 0.05 else "inconclusive")
    copy = judge(identity.replicated_uniques(train=train, synthetic=train, keys=["k"], holdout=holdout))
    assert copy.train_share == 1.0 and copy.verdict == "risk"
    # 400 replicated against the holdout uniques' share b / 400 of 400: 400 - b beyond it
    b_copy = len(np.intersect1d(holdout.k, train.k))
    assert copy.records_at_risk == 400 - b_copy
    assert copy.holdout_share == pytest.approx(len(np.intersect1d(train.k, holdout.k)) / 400)


def test_replicated_uniques_all_unique_copy():
    real = pd.DataFrame({"x": ["a", "b", "c"], "y": [1, 1, 2]})
    result = identity.replicated_uniques(
        train=real, synthetic=real.copy(), keys=None
    )  # keys=None: every column
    assert result.n_replicated == 3 and result.value == 1.0


def test_replicated_uniques_no_uniques_is_undefined():
    real = pd.DataFrame({"x": ["a", "a", "b", "b"]})
    result = judge(
        identity.replicated_uniques(train=real, synthetic=pd.DataFrame({"x": ["a", "b"]}), keys=["x"])
    )
    assert result.n_unique_original == 0 and math.isnan(result.value)
    assert result.verdict == "not assessable"


def test_replicated_uniques_missing_key_values_form_a_combination():
    real = pd.DataFrame({"x": ["a", None, "b", "b"]})
    fake = pd.DataFrame({"x": [None, "a", "a", "c"]})
    # unique in real: "a", missing; unique in fake: missing, "c" -> replicated: missing
    result = identity.replicated_uniques(train=real, synthetic=fake, keys=["x"])
    assert result.n_replicated == 1
    assert result.replicated_original.tolist() == [False, True, False, False]


def test_replicated_uniques_errors():
    real = pd.DataFrame({"x": ["a"], "y": [1]})
    with pytest.raises(PrivlibError, match="`keys` names \\['w'\\]"):
        identity.replicated_uniques(train=real, synthetic=real, keys=["w"])
    with pytest.raises(PrivlibError, match="`keys`.*`synthetic`"):
        identity.replicated_uniques(train=real, synthetic=real[["x"]], keys=["x", "y"])


# --------------------------------------------------------------------------------------------
# match_risk
# --------------------------------------------------------------------------------------------
@pytest.fixture
def partially_synthetic():
    original = pd.DataFrame({"sex": ["F", "F", "M", "M", "M", "U"], "dis": ["y", "n", "n", "n", "y", "n"]})
    synthetic = pd.DataFrame({"sex": ["F", "F", "M", "M", "M", "U"], "dis": ["n", "n", "n", "y", "n", "n"]})
    return original, synthetic


def test_match_risk_by_hand(partially_synthetic):
    original, synthetic = partially_synthetic
    result = judge(
        identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["dis"])
    )
    # target 0 (F, y): no synthetic (F, y)                          c=0, T=0
    # target 1 (F, n): synthetic rows 0, 1; row 1 is its own         c=2, T=1 -> 1/2
    # target 2 (M, n): synthetic rows 2, 4; row 2 is its own         c=2, T=1 -> 1/2
    # target 3 (M, n): synthetic rows 2, 4; its own row 3 is (M, y)  c=2, T=0
    # target 4 (M, y): synthetic row 3 only, not its own             c=1, T=0 -> F=1
    # target 5 (U, n): synthetic row 5, its own                      c=1, T=1 -> K=1
    assert result.match_counts.tolist() == [0, 2, 2, 2, 1, 1]
    assert result.true_match.tolist() == [False, True, True, False, False, True]
    assert result.true_unique.tolist() == [False, False, False, False, False, True]
    assert result.false_unique.tolist() == [False, False, False, False, True, False]
    assert result.expected_match_risk == pytest.approx(2.0)
    assert result.value == result.expected_match_risk
    assert result.true_match_rate == pytest.approx(1 / 6)
    assert result.unique_matches == 2
    assert result.false_match_rate == pytest.approx(0.5)
    # Original against itself: combinations (F,y) 1, (F,n) 1, (M,n) 2, (M,y) 1, (U,n) 1 -> 5
    assert result.baseline == pytest.approx(5.0)
    # the interval is a bootstrap over the six targets' contributions (0, 1/2, 1/2, 0, 0, 1):
    # at most 6 * 1 and at least 0, around 2; the cut-off is 0.09 of the 6 targets
    assert result.ci_method == "bootstrap" and 0 <= result.ci_low <= 2.0 <= result.ci_high <= 6
    assert result.threshold == pytest.approx(0.54) and result.verdict in ("risk", "inconclusive")


def test_match_risk_without_unique_matches_reports_nan(partially_synthetic):
    original, _ = partially_synthetic
    original = original.iloc[:4]
    synthetic = pd.DataFrame({"sex": ["F", "F", "M", "M"], "dis": ["y", "y", "n", "n"]})
    result = identity.match_risk(train=original, synthetic=synthetic, known="sex", synthesized="dis")
    # targets: (F,y) rows 0, 1, own row 0 -> c=2 T=1; (F,n) c=0; (M,n) rows 2, 3, own -> c=2
    # T=1, twice -> risk 3 * 1/2 = 1.5, s = 0
    assert result.match_counts.tolist() == [2, 0, 2, 2]
    assert result.expected_match_risk == pytest.approx(1.5)
    assert result.unique_matches == 0 and result.true_match_rate == 0.0
    assert math.isnan(result.false_match_rate)
    assert result.to_dict()["false_match_rate"] is None  # NaN becomes null in JSON


def test_match_risk_all_unique_copy():
    original = pd.DataFrame({"k": ["a", "b", "c"], "s": ["x", "x", "y"]})
    result = identity.match_risk(train=original, synthetic=original.copy(), known=["k"], synthesized=["s"])
    assert result.match_counts.tolist() == [1, 1, 1]
    assert result.expected_match_risk == 3.0 and result.true_match_rate == 1.0
    assert result.false_match_rate == 0.0 and result.baseline == 3.0


def test_match_risk_relative_and_absolute_tolerance():
    original = pd.DataFrame({"sex": ["F"] * 4, "income": [100.0, 200.0, 1000.0, 0.3]})
    synthetic = pd.DataFrame({"sex": ["F"] * 4, "income": [108.0, 205.0, 1200.0, 0.33]})
    relative = identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["income"])
    # 10% radius: [90, 110] holds 108; [180, 220] holds 205; [900, 1100] holds nothing;
    # [0.27, 0.33] holds 0.33 (on the boundary)
    assert relative.match_counts.tolist() == [1, 1, 0, 1]
    assert relative.true_match.tolist() == [True, True, False, True]
    absolute = identity.match_risk(
        train=original,
        synthetic=synthetic,
        known=["sex"],
        synthesized=["income"],
        numeric_tolerance=100,
        relative=False,
    )
    # +-100: [0, 200] holds 108 and 0.33; [100, 300] holds 108, 205; [900, 1100] none;
    # [-99.7, 100.3] holds 0.33
    assert absolute.match_counts.tolist() == [2, 2, 0, 1]
    assert absolute.expected_match_risk == pytest.approx(0.5 + 0.5 + 1)
    exact = identity.match_risk(
        train=original, synthetic=synthetic, known=["sex"], synthesized=["income"], numeric_tolerance=0
    )
    assert exact.match_counts.tolist() == [0, 0, 0, 0]


def test_match_risk_several_numeric_variables():
    original = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [10.0, 20.0, 30.0], "g": ["a", "a", "a"]})
    synthetic = pd.DataFrame({"x": [1.0, 2.0, 2.0], "y": [10.0, 21.0, 20.0], "g": ["a", "a", "a"]})
    result = identity.match_risk(
        train=original,
        synthetic=synthetic,
        known=["g"],
        synthesized=["x", "y"],
        numeric_tolerance={"x": 0, "y": 1},
        relative=False,
    )
    # (1, 10): row 0 -> c=1 own; (2, 20): rows 1 (y 21) and 2 -> c=2, own row 1; (3, 30): none
    assert result.match_counts.tolist() == [1, 2, 0]
    assert result.true_match.tolist() == [True, True, False]
    assert result.expected_match_risk == pytest.approx(1.5)
    assert result.tolerance_on == ("x", "y")


@pytest.fixture
def known_age():
    """A known numeric key (age, released unchanged) and a synthesized number (income)."""
    original = pd.DataFrame({"age": [40, 42, 60], "income": [100.0, 100.0, 300.0]})
    synthetic = pd.DataFrame({"age": [40, 42, 60], "income": [104.0, 95.0, 340.0]})
    return original, synthetic


def test_match_risk_known_keys_exact_synthesized_within_tolerance(known_age):
    original, synthetic = known_age
    result = identity.match_risk(train=original, synthetic=synthetic, known=["age"], synthesized=["income"])
    # Match: age equal, income within 10% of the target's. Age 42 lies within 10% of 40 (36 to
    # 44), but age is known exactly, so it must not match; income 104 and 95 lie within
    # [90, 110] of 100, so they must.
    # target 0 (40, 100): row 0 (40, 104)                    c=1, T=1 -> K
    # target 1 (42, 100): row 1 (42, 95)                     c=1, T=1 -> K
    # target 2 (60, 300): row 2 (60, 340), 340 > 330         c=0
    assert result.match_counts.tolist() == [1, 1, 0]
    assert result.true_match.tolist() == [True, True, False]
    assert result.expected_match_risk == pytest.approx(1 + 1)
    assert result.true_match_rate == pytest.approx(2 / 3)
    assert result.unique_matches == 2 and result.false_match_rate == 0.0
    # original against itself, same rule: each target matches only itself -> 1 + 1 + 1
    assert result.baseline == pytest.approx(3.0)
    assert result.tolerance_on == ("income",)
    assert (
        "matching income within the tolerance 0.1 (a share of the target's value, days for a date)"
        in result.reading()
    )
    # with no tolerance, 104 and 95 no longer equal 100 and 340 not 300: nothing matches
    exact = identity.match_risk(
        train=original, synthetic=synthetic, known=["age"], synthesized=["income"], numeric_tolerance=0
    )
    assert exact.match_counts.tolist() == [0, 0, 0] and exact.expected_match_risk == 0.0


def test_match_risk_tolerance_on_known_keys_too(known_age):
    original, synthetic = known_age
    result = identity.match_risk(
        train=original, synthetic=synthetic, known=["age"], synthesized=["income"], exact_known=False
    )
    # Age within 10% as well. target 0 (40, 100): ages 36 to 44 -> rows 0, 1; incomes 104, 95
    # both in [90, 110] -> c=2, T=1 -> 1/2. target 1 (42, 100): ages 37.8 to 46.2 -> rows 0, 1
    # -> c=2, T=1 -> 1/2. target 2 (60, 300): ages 54 to 66 -> row 2, income 340 > 330 -> c=0.
    assert result.match_counts.tolist() == [2, 2, 0]
    assert result.expected_match_risk == pytest.approx(1 / 2 + 1 / 2)
    assert result.true_match_rate == 0.0 and result.unique_matches == 0
    assert math.isnan(result.false_match_rate)
    # original against itself: targets 0 and 1 match rows 0 and 1 (ages 40, 42; incomes 100),
    # target 2 itself -> 1/2 + 1/2 + 1
    assert result.baseline == pytest.approx(2.0)
    assert result.tolerance_on == ("age", "income")
    # one tolerance per variable: age within 1 year (absolute) keeps 40 and 42 apart
    per_variable = identity.match_risk(
        train=original,
        synthetic=synthetic,
        known=["age"],
        synthesized=["income"],
        numeric_tolerance={"age": 1, "income": 10},
        relative=False,
        exact_known=False,
    )
    # target 0: ages 39 to 41 -> row 0, |104 - 100| <= 10 -> c=1; target 1: row 1, |95 - 100|
    # <= 10 -> c=1; target 2: row 2, |340 - 300| > 10 -> c=0
    assert per_variable.match_counts.tolist() == [1, 1, 0]


def test_match_risk_exact_known_without_numeric_keys_changes_nothing(partially_synthetic):
    original, synthetic = partially_synthetic
    default = identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["dis"])
    tolerant = identity.match_risk(
        train=original, synthetic=synthetic, known=["sex"], synthesized=["dis"], exact_known=False
    )
    assert default.match_counts.tolist() == tolerant.match_counts.tolist() == [0, 2, 2, 2, 1, 1]
    assert default.tolerance_on == tolerant.tolerance_on == ()
    assert "matching every variable exactly" in default.reading()


def test_match_risk_missing_and_dates():
    day = pd.Timestamp("2020-03-01")
    original = pd.DataFrame({"v": [1.0, np.nan, 5.0], "d": [day, day, day]})
    synthetic = pd.DataFrame({"v": [np.nan, np.nan, 5.0], "d": [day, day, day + pd.Timedelta(days=1)]})
    result = identity.match_risk(train=original, synthetic=synthetic, known=["v"], synthesized=["d"])
    # v: missing matches missing only; d: default tolerance 0.1 day -> the same day only
    # (1, day): none; (missing, day): rows 0, 1 -> c=2 own; (5, day): row 2 is a day later -> 0
    assert result.match_counts.tolist() == [0, 2, 0]
    one_day = identity.match_risk(
        train=original, synthetic=synthetic, known=["v"], synthesized=["d"], numeric_tolerance=1
    )
    # dates are matched within 1 day even with relative=True; the known v=5 equals 5
    assert one_day.match_counts.tolist() == [0, 2, 1]


def test_match_risk_uses_category_values_not_codes():
    original = pd.DataFrame({"k": pd.Categorical(["a", "b"]), "s": pd.Categorical(["x", "y"])})
    # the same labels in another category order: codes differ, values agree
    synthetic = pd.DataFrame(
        {
            "k": pd.Categorical(["a", "b"], categories=["b", "a"]),
            "s": pd.Categorical(["x", "y"], categories=["y", "x"]),
        }
    )
    assert identity.match_risk(
        train=original, synthetic=synthetic, known=["k"], synthesized=["s"]
    ).match_counts.tolist() == [1, 1]


def test_match_risk_errors(partially_synthetic):
    original, synthetic = partially_synthetic
    with pytest.raises(PrivlibError, match="row i is the synthetic version"):
        identity.match_risk(train=original, synthetic=synthetic.iloc[:-1], known=["sex"], synthesized=["dis"])
    with pytest.raises(PrivlibError, match="both `known` and `synthesized`"):
        identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["sex", "dis"])
    with pytest.raises(PrivlibError, match="`synthesized` names \\['age'\\]"):
        identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["age"])
    with pytest.raises(
        PrivlibError, match="`known` must be a column name or a list of column names, got \\[\\]"
    ):
        identity.match_risk(train=original, synthetic=synthetic, known=[], synthesized=["dis"])
    numbers = pd.DataFrame({"k": ["a", "b"], "v": [1.0, 2.0]})
    with pytest.raises(ParameterError, match="`numeric_tolerance` must be a number >= 0 or a mapping"):
        identity.match_risk(
            train=numbers, synthetic=numbers, known=["k"], synthesized=["v"], numeric_tolerance=-1
        )
    with pytest.raises(ParameterError, match=r"`numeric_tolerance`\['v'\] must be a non-negative number"):
        identity.match_risk(
            train=numbers, synthetic=numbers, known=["k"], synthesized=["v"], numeric_tolerance={"v": -1}
        )
    with pytest.raises(PrivlibError, match="gives no tolerance for the numeric variables \\['v'\\]"):
        identity.match_risk(
            train=numbers, synthetic=numbers, known=["k"], synthesized=["v"], numeric_tolerance={}
        )
    with pytest.raises(
        PrivlibError, match="names \\['k'\\], which are not matched within a tolerance; .*\\['v'\\]\\.$"
    ):
        identity.match_risk(
            train=numbers,
            synthetic=numbers,
            known=["k"],
            synthesized=["v"],
            numeric_tolerance={"k": 1, "v": 1},
        )
    with pytest.raises(
        PrivlibError, match="known numeric variables \\['v'\\] are matched exactly; `exact_known=False`"
    ):
        identity.match_risk(
            train=numbers, synthetic=numbers, known=["v"], synthesized=["k"], numeric_tolerance={"v": 1}
        )
    with pytest.raises(ParameterError, match="`exact_known` must be True or False"):
        identity.match_risk(train=numbers, synthetic=numbers, known=["k"], synthesized=["v"], exact_known=1)
    with pytest.raises(PrivlibError, match="`relative` must be True or False"):
        identity.match_risk(train=numbers, synthetic=numbers, known=["k"], synthesized=["v"], relative="yes")


def test_results_serialise_without_per_record_arrays(partially_synthetic):
    original, synthetic = partially_synthetic
    result = identity.match_risk(train=original, synthetic=synthetic, known=["sex"], synthesized=["dis"])
    row = result.to_frame()
    assert row.index.tolist() == ["expected_match_risk"]
    assert "match_counts" not in row.columns
    data = json.loads(json.dumps(result.to_dict()))
    assert data["unique_matches"] == 2 and data["known"] == ["sex"]


# --------------------------------------------------------------------------------------------
# plot
# --------------------------------------------------------------------------------------------
def test_plot_dcr_histogram_shares_and_labels():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    out = plot_dcr_histogram({"synthetic": [0, 0, 0, 1.0], "holdout": [0.5, 1.0]}, ax=ax, bins=2)
    assert out is ax
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["synthetic (75% at 0)", "holdout (0% at 0)"]
    # step outline of the synthetic shares: 0.75 on [0, 0.5), 0.25 on [0.5, 1]
    heights = ax.patches[0].get_xy()[:, 1]
    assert heights.max() == pytest.approx(0.75)
    plt.close(fig)
    with pytest.raises(PrivlibError, match="`dcr_values`"):
        plot_dcr_histogram([])
