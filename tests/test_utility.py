"""Tests of privlib.utility against values worked out by hand or by an independent formula."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeClassifier

from privlib import plots
from privlib.errors import PrivlibError
from privlib.utility import (
    COMPARISON_COLUMNS,
    compare_synthesizers,
    marginal_fidelity,
    pmse,
    tstr,
)


# --------------------------------------------------------------------------------------------
# TSTR
# --------------------------------------------------------------------------------------------
def _binary(mapping, n=40, seed=0):
    """x decides y through ``mapping``; z is noise."""
    rng = np.random.default_rng(seed)
    x = np.array(["a", "b"] * (n // 2))
    return pd.DataFrame({"x": x, "z": rng.normal(size=n), "y": [mapping[v] for v in x]})


def test_tstr_trivially_learnable_binary_target():
    real = _binary({"a": "yes", "b": "no"})
    same = tstr(train=real, synthetic=_binary({"a": "yes", "b": "no"}, seed=1), holdout=real, target="y")
    assert (same.metric, same.task) == ("roc_auc", "binary")
    assert same.value == pytest.approx(1.0) and same.baseline == pytest.approx(1.0)
    assert same.ratio == pytest.approx(1.0)
    # A synthesizer that swapped the relationship teaches a model that ranks every record wrongly.
    swapped = tstr(train=real, synthetic=_binary({"a": "no", "b": "yes"}), holdout=real, target="y")
    assert swapped.value == pytest.approx(0.0) and swapped.chance == 0.5
    # against chance: (0 - 0.5) / (1 - 0.5) = -1, worse than a model that learned nothing
    assert swapped.ratio == pytest.approx(-1.0)
    assert swapped.higher_is_riskier is False
    assert "roc_auc 0" in swapped.reading()


def test_tstr_multiclass_uses_accuracy():
    real = pd.DataFrame({"x": list("abc") * 20, "y": list("pqr") * 20})  # 20 a leaf: the default model splits
    shifted = pd.DataFrame({"x": list("abc") * 20, "y": list("qrp") * 20})
    result = tstr(train=real, synthetic=shifted, holdout=real, target="y")
    assert (result.metric, result.task) == ("accuracy", "multiclass")
    assert result.value == pytest.approx(0.0)
    assert result.baseline == pytest.approx(1.0)


def test_tstr_regression_r2_with_custom_estimator():
    x = np.arange(10.0)
    real = pd.DataFrame({"x": x, "y": 3 * x + 1})
    offset = pd.DataFrame({"x": x, "y": 3 * x + 2})  # the model learns y + 1
    result = tstr(train=real, synthetic=offset, holdout=real, target="y", estimator=LinearRegression())
    assert result.task == "regression" and result.metric == "r2"
    y = 3 * x + 1
    expected = 1 - len(x) * 1.0 / np.sum((y - y.mean()) ** 2)
    assert result.value == pytest.approx(expected)
    assert result.baseline == pytest.approx(1.0)
    assert result.model == "LinearRegression"


def test_tstr_metric_override():
    real = _binary({"a": "yes", "b": "no"})
    assert tstr(
        train=real, synthetic=real, holdout=real, target="y", metric="accuracy"
    ).value == pytest.approx(1.0)


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda t: {"target": "nope"}, "`target` names"),
        (lambda t: {"metric": "best"}, "`metric`"),
        (lambda t: {"synthetic": t.assign(y="yes")}, "single value"),
        (lambda t: {"holdout": t.assign(y=[None] + list(t["y"][1:]))}, "missing in 1 row"),
        (lambda t: {"train": t.to_numpy()}, "`train` must be a pandas DataFrame"),
        (lambda t: {"synthetic": t.drop(columns="z")}, "different columns"),
        (lambda t: {"estimator": "forest"}, "`estimator`"),
        (lambda t: {"holdout": t.assign(y="yes")}, "single value in `holdout`"),
    ],
)
def test_tstr_bad_input(change, message):
    real = _binary({"a": "yes", "b": "no"})
    arguments = dict(train=real, synthetic=real, holdout=real, target="y")
    arguments.update(change(real))
    with pytest.raises(PrivlibError, match=message):
        tstr(**arguments)


def test_tstr_needs_a_predictor():
    real = pd.DataFrame({"y": ["a", "b"] * 5})
    with pytest.raises(PrivlibError, match="no column besides the target"):
        tstr(train=real, synthetic=real, holdout=real, target="y")


# --------------------------------------------------------------------------------------------
# pMSE
# --------------------------------------------------------------------------------------------
def test_pmse_of_identical_sets_is_zero():
    rng = np.random.default_rng(1)
    real = pd.DataFrame({"x": rng.normal(size=50), "g": rng.choice(list("abc"), 50)})
    result = pmse(train=real, synthetic=real.copy())
    # Equal sizes and identical records: the propensity is c = 0.5 for everyone.
    assert result.value == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(result.propensity, 0.5, atol=1e-6)
    assert result.ratio == pytest.approx(0.0, abs=1e-8)
    assert result.null == "analytic"


def test_pmse_saturated_one_variable_by_hand():
    # With one binary variable the logistic model is saturated: the propensity of a record is the
    # synthetic share of its group. Group a: 2 original, 1 synthetic -> 1/3; group b: 1 and 5 -> 5/6.
    original = pd.DataFrame({"g": ["a", "a", "b"]})
    synthetic = pd.DataFrame({"g": ["a", "b", "b", "b", "b", "b"]})
    result = pmse(train=original, synthetic=synthetic)
    c, n = 6 / 9, 9
    by_hand = (3 * (1 / 3 - c) ** 2 + 6 * (5 / 6 - c) ** 2) / n  # = 1/18
    assert by_hand == pytest.approx(1 / 18)
    assert result.value == pytest.approx(by_hand, rel=1e-4)
    assert result.n_parameters == 2
    assert result.synthetic_share == pytest.approx(c)
    assert result.baseline == pytest.approx((2 - 1) * c * (1 - c) / n)
    assert result.null_sd == pytest.approx(np.sqrt(2) * c * (1 - c) / n)
    assert result.ratio == pytest.approx(result.value / result.baseline)


def test_pmse_collinear_columns_count_once():
    rng = np.random.default_rng(2)
    x = rng.normal(size=60)
    table = pd.DataFrame({"x": x, "twice_x": 2 * x, "g": rng.choice(list("abc"), 60)})
    # intercept + x + 2 dummies; twice_x adds no parameter
    assert pmse(train=table.iloc[:30], synthetic=table.iloc[30:]).n_parameters == 4


def test_pmse_null_expectation_matches_simulation():
    # Two samples of one distribution, unequal sizes (c = 1/3): the mean ratio must be about 1.
    # (With the (k - 1)(1 - c)^2 c / N of Snoke et al. it would be 1 / (1 - c) = 1.5.)
    rng = np.random.default_rng(3)
    ratios = []
    for _ in range(60):
        values = rng.choice(list("abcd"), 300, p=[0.4, 0.3, 0.2, 0.1])
        table = pd.DataFrame({"g": values})
        ratios.append(pmse(train=table.iloc[:200], synthetic=table.iloc[200:]).ratio)
    # k = 4: the ratio has standard deviation sqrt(2 / 3) ~ 0.82, so its mean over 60 has ~0.11.
    assert np.mean(ratios) == pytest.approx(1.0, abs=0.3)


def _one_hot_logistic():
    encode = ColumnTransformer([("g", OneHotEncoder(drop="first"), ["g"])])
    return make_pipeline(encode, LogisticRegression(C=np.inf))


def test_pmse_permutation_null_is_seeded_and_near_the_analytic_one():
    rng = np.random.default_rng(4)
    original = pd.DataFrame({"g": rng.choice(list("abc"), 100)})
    synthetic = pd.DataFrame({"g": rng.choice(list("abc"), 100)})
    first = pmse(
        train=original,
        synthetic=synthetic,
        estimator=_one_hot_logistic(),
        random_state=7,
        n_permutations=60,
    )
    again = pmse(
        train=original,
        synthetic=synthetic,
        estimator=_one_hot_logistic(),
        random_state=7,
        n_permutations=60,
    )
    assert first.null == "permutation" and first.n_parameters is None
    assert first.baseline == again.baseline
    analytic = pmse(train=original, synthetic=synthetic)
    assert first.value == pytest.approx(analytic.value, rel=1e-3)  # same model, same fit
    # k = 3, c = 1/2, N = 200: (k - 1) c (1 - c) / N = 0.0025; the permutation mean of a
    # chi-squared(2) quantity over 60 draws is within about 13% of it (one standard error)
    assert first.baseline == pytest.approx(2 * 0.25 / 200, rel=0.4)


def test_pmse_bad_input():
    table = pd.DataFrame({"g": list("ab") * 5})
    with pytest.raises(PrivlibError, match="predict_proba"):
        pmse(train=table, synthetic=table, estimator=LinearRegression())
    with pytest.raises(PrivlibError, match="`n_permutations`"):
        pmse(train=table, synthetic=table, estimator=DecisionTreeClassifier(), n_permutations=0)
    with pytest.raises(PrivlibError, match="different columns"):
        pmse(train=table, synthetic=table.assign(h=1.0))
    with pytest.raises(PrivlibError, match="numeric in `train` but categorical"):
        pmse(train=pd.DataFrame({"g": np.arange(20.0)}), synthetic=pd.DataFrame({"g": list("ab") * 10}))
    with pytest.raises(PrivlibError, match="`synthetic` has 0 row"):
        pmse(train=table, synthetic=table.iloc[:0])


# --------------------------------------------------------------------------------------------
# Marginal fidelity
# --------------------------------------------------------------------------------------------
def test_tvd_of_known_categorical_distributions():
    original = pd.DataFrame(
        {"g": ["x", "x", "y", "y"], "h": ["u", "u", "v", "v"], "m": ["p", None, "p", None]}
    )
    synthetic = pd.DataFrame({"g": ["x", "x", "x", "y"], "h": ["w", "w", "w", "w"], "m": ["p"] * 4})
    result = marginal_fidelity(train=original, synthetic=synthetic)
    table = result.per_variable
    assert table.loc["g", "tvd"] == pytest.approx(0.25)  # (|.5-.75| + |.5-.25|) / 2
    assert table.loc["h", "tvd"] == pytest.approx(1.0)  # no value in common
    assert table.loc["m", "tvd"] == pytest.approx(0.5)  # missing is a value of its own
    assert table["ks"].isna().all()
    assert result.value == pytest.approx((0.25 + 1.0 + 0.5) / 3)
    assert (result.worst_variable, result.max_tvd) == ("h", pytest.approx(1.0))
    assert np.isnan(result.mean_ks)


def test_tvd_and_ks_of_numeric_variable_by_hand():
    original = pd.DataFrame({"v": [0.0, 1.0, 2.0, 3.0, 9.0]})
    synthetic = pd.DataFrame({"v": [0.0, 9.0, 9.0, 9.0, 9.0]})
    result = marginal_fidelity(train=original, synthetic=synthetic, n_bins=2)
    # bins [0, 4.5) and [4.5, 9]: shares (0.8, 0.2) against (0.2, 0.8)
    assert result.per_variable.loc["v", "tvd"] == pytest.approx(0.6)
    # empirical CDFs at 3: 0.8 against 0.2
    assert result.per_variable.loc["v", "ks"] == pytest.approx(0.6)
    assert result.per_variable.loc["v", "kind"] == "numeric"


def test_ks_matches_scipy_on_random_samples_and_dates():
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=200), rng.normal(0.3, 1.2, size=150)
    days = pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-05", "2020-01-09"] * 3)
    original = pd.DataFrame({"v": a[:12], "d": days})
    synthetic = pd.DataFrame({"v": b[:12], "d": days[::-1] + pd.Timedelta(days=1)})
    result = marginal_fidelity(train=original, synthetic=synthetic)
    assert result.per_variable.loc["v", "ks"] == pytest.approx(stats.ks_2samp(a[:12], b[:12]).statistic)
    day_numbers = (days - pd.Timestamp("1970-01-01")).days.to_numpy()
    expected = stats.ks_2samp(day_numbers, day_numbers + 1).statistic
    assert result.per_variable.loc["d", "ks"] == pytest.approx(expected)
    large = marginal_fidelity(train=pd.DataFrame({"v": a}), synthetic=pd.DataFrame({"v": b}))
    assert large.per_variable.loc["v", "ks"] == pytest.approx(stats.ks_2samp(a, b).statistic)


def test_marginal_fidelity_bad_input():
    table = pd.DataFrame({"g": list("ab") * 3})
    with pytest.raises(PrivlibError, match="`n_bins`"):
        marginal_fidelity(train=table, synthetic=table, n_bins=0)
    with pytest.raises(PrivlibError, match="different columns"):
        marginal_fidelity(train=table, synthetic=table.rename(columns={"g": "h"}))
    with pytest.raises(PrivlibError, match="`train` must be a pandas DataFrame"):
        marginal_fidelity(train=[1, 2], synthetic=table)


# --------------------------------------------------------------------------------------------
# Side by side
# --------------------------------------------------------------------------------------------
def _people(n, offset, seed):
    rng = np.random.default_rng(seed)
    # balanced, so the default TSTR model (at least 20 records a leaf) can split on sex
    sex = rng.permutation(np.repeat(["F", "M"], n // 2))
    return pd.DataFrame(
        {
            "age": offset
            + np.arange(n, dtype=float),  # distinct ages: no holdout record copies a training one
            "sex": sex,
            "ill": np.where(sex == "F", "yes", "no"),
        }
    )


def test_compare_synthesizers_on_a_copy_and_a_scramble():
    train, holdout = _people(40, 0.0, 1), _people(40, 0.5, 2)
    scrambled = train.assign(ill=train["ill"].map({"yes": "no", "no": "yes"}))
    table = compare_synthesizers(
        train=train,
        holdout=holdout,
        synthetic={"copy": train.copy(), "scrambled": scrambled},
        keys=["sex"],
        target="ill",
        population_size=400,
        random_state=0,
        h=0,
    )
    assert list(table.columns) == list(COMPARISON_COLUMNS)
    assert list(table.index) == ["copy", "scrambled"]
    copy = table.loc["copy"]
    # Every synthetic record is a training record and no holdout record equals one.
    assert copy["dcr_holdout_share"] == pytest.approx(1.0)
    assert copy["nn_mia_auc"] == pytest.approx(1.0)
    assert copy["pmse_ratio"] == pytest.approx(0.0, abs=1e-6)
    assert copy["mean_tvd"] == pytest.approx(0.0)
    assert copy["tstr_ratio"] == pytest.approx(1.0)
    assert copy["cap"] == pytest.approx(1.0)  # sex decides ill
    assert 0 < copy["membership_m"] <= 1
    scramble = table.loc["scrambled"]
    assert scramble["cap"] == pytest.approx(0.0)
    assert scramble["tstr"] == pytest.approx(0.0)
    assert table.attrs["tstr_metric"] == "roc_auc"
    again = compare_synthesizers(
        train=train,
        holdout=holdout,
        synthetic={"copy": train.copy(), "scrambled": scrambled},
        keys=["sex"],
        target="ill",
        population_size=400,
        random_state=0,
        h=0,
    )
    pd.testing.assert_frame_equal(table, again)


def test_compare_synthesizers_without_population_has_no_m():
    train, holdout = _people(30, 0.0, 3), _people(30, 0.5, 4)
    table = compare_synthesizers(
        train=train, holdout=holdout, synthetic={"copy": train}, keys="sex", target="ill", random_state=1
    )
    assert np.isnan(table.loc["copy", "membership_m"])
    assert table.loc["copy", "membership_f1"] > 0


def test_compare_synthesizers_bad_input():
    train = _people(20, 0.0, 5)
    with pytest.raises(PrivlibError, match="`synthetic` must be a dict of labels to DataFrames, got a list"):
        compare_synthesizers(train=train, holdout=train, synthetic=[train], keys="sex", target="ill")
    with pytest.raises(PrivlibError, match="one column"):
        compare_synthesizers(
            train=train, holdout=train, synthetic={"s": train}, keys="sex", target=["ill", "sex"]
        )
    with pytest.raises(PrivlibError, match="synthetic\\['s'\\]"):
        compare_synthesizers(
            train=train, holdout=train, synthetic={"s": train.drop(columns="age")}, keys="sex", target="ill"
        )


# --------------------------------------------------------------------------------------------
# Plots
# --------------------------------------------------------------------------------------------
def test_plots_draw_one_mark_per_synthesizer_and_variable():
    table = pd.DataFrame({"nn_mia_auc": [1.0, 0.5], "tstr_ratio": [1.0, 0.8]}, index=["Copy", "Trees"])
    ax = plots.plot_risk_utility(table)
    assert len(ax.collections) == 2
    assert [line.get_xdata()[0] for line in ax.lines[:1]] == [0.5]  # the chance level of the AUC
    with pytest.raises(PrivlibError, match="`risk`"):
        plots.plot_risk_utility(table, risk="auc")
    fidelity = marginal_fidelity(
        train=pd.DataFrame({"v": [0.0, 1.0, 2.0], "g": list("aab")}),
        synthetic=pd.DataFrame({"v": [0.0, 2.0, 2.0], "g": list("abb")}),
    )
    ax = plots.plot_marginal_fidelity(fidelity)
    assert len(ax.patches) == 2
    with pytest.raises(PrivlibError, match="per_variable"):
        plots.plot_marginal_fidelity(table)
