"""The fidelity summary shown beside the privacy verdicts: values checked against
hand-worked figures and the kit's own single measures, intervals around them, seeds honoured."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privlib.errors import PrivlibError
from privlib.render.audit_pages import fidelity_html
from privlib.utility import fidelity_summary, tstr


def _linked(n, seed, flip=False):
    """``y`` equals ``x`` (or its opposite), plus a noise column: a task a tree learns exactly."""
    rng = np.random.default_rng(seed)
    x = rng.choice(["a", "b"], n)
    y = np.where(x == "a", "no", "yes") if not flip else np.where(x == "a", "yes", "no")
    return pd.DataFrame({"x": x, "noise": rng.normal(size=n), "y": y})


def test_a_copy_keeps_all_of_the_real_datas_score_and_every_marginal():
    train, holdout = _linked(300, 0), _linked(200, 1)
    summary = fidelity_summary(
        train=train, synthetic=train.copy(), holdout=holdout, target="y", random_state=0, n_bootstrap=50
    )
    ratio, tvd, propensity = (summary.get(k) for k in ("tstr_ratio", "mean_tvd", "pmse_ratio"))
    # the same data fit the same deterministic model: TSTR = TRTR in every resample
    assert (ratio.value, ratio.ci_low, ratio.ci_high) == (1.0, 1.0, 1.0)
    assert tvd.value == 0.0 and tvd.ci_low == 0.0
    assert propensity.value == pytest.approx(0.0, abs=1e-9)  # nothing tells a copy from the original
    # a pMSE ratio near 0 is not "ideal": the release is hardly told apart from its training
    # sample, a sign of copying
    assert "hardly told apart from its training sample, a sign of copying" in propensity.reading
    assert summary.skipped == ()


def test_a_reversed_target_scores_nothing_of_the_real_datas_auc():
    # Trained where y is the opposite of x, the model ranks every holdout record the wrong way:
    # AUC 0 against 1 for the model trained on the real data, in every resample, so the share of
    # the real data's gain over chance (0.5) is (0 - 0.5) / (1 - 0.5) = -1.
    summary = fidelity_summary(
        train=_linked(300, 0),
        synthetic=_linked(300, 2, flip=True),
        holdout=_linked(200, 1),
        target="y",
        random_state=0,
        n_bootstrap=50,
    )
    ratio = summary.get("tstr_ratio")
    assert (ratio.value, ratio.ci_low, ratio.ci_high) == (-1.0, -1.0, -1.0)
    assert (ratio.details["tstr"], ratio.details["trtr"], ratio.details["chance"]) == (0.0, 1.0, 0.5)


def test_pmse_ratio_and_tvd_of_one_binary_variable_by_hand():
    # original: a x6, b x4; synthetic: a x2, b x8 (c = 1/2, N = 20). The logistic model with one
    # binary variable is saturated: propensity 2/8 for level a, 8/12 for level b, so
    # pMSE = (8 (1/4 - 1/2)^2 + 12 (2/3 - 1/2)^2) / 20 = 1/24; the null expectation is
    # (k - 1) c (1 - c) / N = 1/80 (k = 2), a ratio of 10/3.
    # TVD = (|0.6 - 0.2| + |0.4 - 0.8|) / 2 = 0.4.
    original = pd.DataFrame({"g": ["a"] * 6 + ["b"] * 4})
    synthetic = pd.DataFrame({"g": ["a"] * 2 + ["b"] * 8})
    summary = fidelity_summary(train=original, synthetic=synthetic, random_state=0, n_bootstrap=100)
    propensity, tvd = summary.get("pmse_ratio"), summary.get("mean_tvd")
    assert propensity.value == pytest.approx(10 / 3, rel=1e-4)
    assert propensity.details["pmse"] == pytest.approx(1 / 24, rel=1e-4)
    assert propensity.ci_low < propensity.value < propensity.ci_high
    # resampling the saturated model's squared residuals moves the ratio by about 0.25 around
    # 10/3 (interval 2.9 to 3.8 at this seed): far above 1, easy to tell apart
    assert propensity.ci_low > 1 and "Above 1: the release is easier to tell apart" in propensity.reading
    assert tvd.value == pytest.approx(0.4)
    assert 0 <= tvd.ci_low < 0.4 < tvd.ci_high <= 1


def test_tstr_ratio_is_the_one_tstr_reports():
    rng = np.random.default_rng(5)
    train, holdout, synthetic = (
        pd.DataFrame(
            {"x": rng.normal(size=n), "g": rng.choice(list("abc"), n), "y": rng.choice(["p", "q"], n)}
        )
        for n in (200, 150, 180)
    )
    for real in (train, holdout):  # the real data's link, which the synthetic data lacks
        real["y"] = np.where(real["x"] > 0, "p", real["y"])
    summary = fidelity_summary(
        train=train, synthetic=synthetic, holdout=holdout, target="y", random_state=0, n_bootstrap=50
    )
    expected = tstr(train=train, synthetic=synthetic, holdout=holdout, target="y")
    ratio = summary.get("tstr_ratio")
    assert ratio.value == pytest.approx(expected.ratio)
    assert ratio.details["tstr"] == pytest.approx(expected.value)
    assert ratio.ci_low <= ratio.value <= ratio.ci_high


def test_without_holdout_or_target_tstr_is_skipped_and_the_rest_unchanged():
    train, holdout, synthetic = _linked(200, 0), _linked(150, 1), _linked(180, 3)
    full = fidelity_summary(
        train=train, synthetic=synthetic, holdout=holdout, target="y", random_state=7, n_bootstrap=40
    )
    for missing in (dict(holdout=holdout), dict(target="y"), {}):
        partial = fidelity_summary(
            train=train, synthetic=synthetic, random_state=7, n_bootstrap=40, **missing
        )
        assert [m.key for m in partial.measures] == ["pmse_ratio", "mean_tvd"]
        assert [key for key, _ in partial.skipped] == ["tstr_ratio"]
        # one random stream per figure: skipping TSTR leaves the other intervals as they were
        assert partial.measures == full.measures[1:]


def test_same_seed_same_summary_and_json_friendly():
    train, holdout, synthetic = _linked(200, 0), _linked(150, 1), _linked(180, 3)
    args = dict(train=train, synthetic=synthetic, holdout=holdout, target="y", n_bootstrap=30)
    first, second = fidelity_summary(random_state=3, **args), fidelity_summary(random_state=3, **args)
    assert first == second
    out = first.to_dict()
    assert [m["key"] for m in out["measures"]] == ["tstr_ratio", "pmse_ratio", "mean_tvd"]
    assert out["ci_method"] == "bootstrap" and out["confidence"] == 0.95


def test_a_target_the_data_do_not_allow_is_skipped_with_the_reason():
    train, holdout = _linked(100, 0), _linked(100, 1)
    synthetic = train.assign(y="yes")  # one class: no classifier can be fitted
    summary = fidelity_summary(
        train=train, synthetic=synthetic, holdout=holdout, target="y", random_state=0, n_bootstrap=20
    )
    ((key, reason),) = summary.skipped
    assert key == "tstr_ratio" and "single value in `synthetic`" in reason


def test_bad_input_is_one_clear_error():
    with pytest.raises(PrivlibError, match="`n_bootstrap`"):
        fidelity_summary(train=_linked(50, 0), synthetic=_linked(50, 1), n_bootstrap=0)


def test_max_records_samples_each_larger_table_and_says_so():
    train, holdout, synthetic = _linked(400, 0), _linked(150, 1), _linked(300, 3)
    args = dict(train=train, synthetic=synthetic, holdout=holdout, target="y", random_state=5, n_bootstrap=40)
    full = fidelity_summary(**args)
    assert fidelity_summary(max_records=400, **args) == full  # no table above the cap: the same figures
    assert full.records == (("train", 400, 400), ("synthetic", 300, 300), ("holdout", 150, 150))
    sampled = fidelity_summary(max_records=200, **args)
    assert sampled == fidelity_summary(max_records=200, **args)  # seeded
    assert sampled.records == (("train", 200, 400), ("synthetic", 200, 300), ("holdout", 150, 150))
    assert sampled.to_dict()["records"][0] == {"table": "train", "used": 200, "of": 400}
    # a sample of half the records estimates the same marginal distance, less precisely
    full_tvd, sampled_tvd = full.get("mean_tvd"), sampled.get("mean_tvd")
    assert sampled_tvd.value != full_tvd.value
    assert sampled_tvd.ci_low <= full_tvd.value <= sampled_tvd.ci_high
    html = fidelity_html({"fidelity": sampled.to_dict()})
    assert "200 of the 400 training records, 200 of the 300 synthetic records." in html
    assert "every record" in html and "holdout records" not in html


def test_a_release_of_the_training_samples_own_proportions_reads_about_half():
    # Why PMSE_COPY_RATIO sits at half of 0.5: a synthetic binary column drawn from the training
    # sample's own share p_t differs from it by Var = p(1 - p) / n, where a fresh sample of the
    # population differs by 2 p (1 - p) / n; with one binary variable the logistic model is
    # saturated and pMSE is proportional to that squared difference, so the ratio averages 1/2.
    from privlib.utility import PMSE_COPY_RATIO, pmse

    rng = np.random.default_rng(7)
    ratios = []
    for _ in range(200):
        train = pd.DataFrame({"x": rng.choice(["a", "b"], size=400, p=[0.3, 0.7])})
        share = float((train["x"] == "a").mean())
        synthetic = pd.DataFrame({"x": rng.choice(["a", "b"], size=400, p=[share, 1 - share])})
        ratios.append(pmse(train=train, synthetic=synthetic).ratio)
    # the mean of 200 draws has a standard error of about 0.05 (a chi-square of 1 degree halved)
    assert np.mean(ratios) == pytest.approx(0.5, abs=0.15)
    assert PMSE_COPY_RATIO == pytest.approx(np.mean(ratios) / 2, abs=0.1)


def test_contingency_table_counts_each_pair_of_values_as_crosstab_does():
    from privlib.plots import contingency_table

    rng = np.random.default_rng(5)
    left, right = rng.integers(-1, 4, 500), rng.integers(0, 7, 500)
    left[left == 2] = 3  # a value never seen is no row
    expected = pd.crosstab(left, right).to_numpy()
    assert np.array_equal(contingency_table(left, right), expected)
    assert contingency_table(np.zeros(4, int), np.arange(4)).shape == (1, 4)
