"""Tests of privlib.attribute: every expected value is worked out by hand in the comments."""

import numpy as np
import pandas as pd
import pytest

from privlib import PrivlibError
from privlib.attribute import cap, discretize, knn_risk
from privlib.thresholds import judge


# --------------------------------------------------------------------------------------------
# CAP
# --------------------------------------------------------------------------------------------
@pytest.fixture
def tiny():
    # Keys (sex, age); target ill. The key (M, young) of record 3 never appears in S.
    original = pd.DataFrame(
        {
            "sex": ["F", "F", "M", "M"],
            "age": ["young", "young", "old", "young"],
            "ill": ["y", "n", "y", "n"],
        }
    )
    synthetic = pd.DataFrame(
        {
            "sex": ["F", "F", "F", "M", "M"],
            "age": ["young", "young", "young", "old", "old"],
            "ill": ["y", "y", "n", "n", "y"],
        }
    )
    return original, synthetic


def test_cap_by_hand_version_1_and_2_differ_when_a_key_is_missing(tiny):
    original, synthetic = tiny
    # (F, young) in S: 3 records, 2 ill=y, 1 ill=n -> records 0 and 1 get 2/3 and 1/3.
    # (M, old) in S: 2 records, 1 ill=y -> record 2 gets 1/2. (M, young) absent -> 0.
    v1 = cap(train=original, synthetic=synthetic, keys=["sex", "age"], target="ill", variant=1)
    np.testing.assert_allclose(v1.per_record, [2 / 3, 1 / 3, 1 / 2, 0.0])
    np.testing.assert_array_equal(v1.key_in_synthetic, [True, True, True, False])
    assert v1.value == pytest.approx(1.5 / 4)  # 0.375
    v2 = cap(train=original, synthetic=synthetic, keys=["sex", "age"], target="ill", variant=2)
    assert v2.value == pytest.approx(1.5 / 3)  # 0.5: record 3 is left out
    assert (v1.n_matched, v2.n_matched, v1.n_records) == (3, 3, 4)
    # CAP from R: (F, young) holds y and n -> 1/2 each; records 2 and 3 are alone in R -> 1.
    np.testing.assert_allclose(v1.per_record_original, [0.5, 0.5, 1.0, 1.0])
    # Scored like the measure: version 1 counts record 3 (key absent from S) as 0 in both
    # baselines too, version 2 leaves it out of all three numbers.
    assert v1.original_cap == pytest.approx((0.5 + 0.5 + 1.0 + 0.0) / 4)
    assert v2.original_cap == pytest.approx(2 / 3)  # same records as v2's value
    # Marginal: ill is y for 2 of 4 records and n for 2 of 4 -> 1/2 for everyone.
    np.testing.assert_allclose(v1.per_record_marginal, 0.5)
    assert v1.marginal_cap == pytest.approx(1.5 / 4) and v2.marginal_cap == pytest.approx(0.5)
    # without holdout records there is no control: the value is the training CAP, no verdict
    assert v1.value == v1.train_cap and v1.baseline is None and v1.holdout_cap is None
    assert judge(v1).verdict == "not assessable" and "holdout" in judge(v1).verdict_rule


def test_cap_baselines_scored_like_the_measure_give_one_share_of_the_way_for_both_versions():
    # Keys k, target t. R: (a,x) (a,y) (b,x) (c,y); S: (a,x) (a,x) (a,y) (b,x) (b,y); key c absent.
    original = pd.DataFrame({"k": ["a", "a", "b", "c"], "t": ["x", "y", "x", "y"]})
    synthetic = pd.DataFrame({"k": ["a", "a", "a", "b", "b"], "t": ["x", "x", "y", "x", "y"]})
    v1, v2 = (cap(train=original, synthetic=synthetic, keys="k", target="t", variant=v) for v in (1, 2))
    # CAP from S: a,x -> 2/3; a,y -> 1/3; b,x -> 1/2; c -> absent.
    # CAP from R: a group (x, y) -> 1/2 each; b -> 1; c -> 1 (absent from S: 0 under version 1).
    # Shares in R: x 2/4, y 2/4 -> 1/2 each.
    assert (v1.train_cap, v1.original_cap, v1.marginal_cap) == pytest.approx(
        ((2 / 3 + 1 / 3 + 1 / 2) / 4, (1 / 2 + 1 / 2 + 1) / 4, 1.5 / 4)
    )
    assert (v2.train_cap, v2.original_cap, v2.marginal_cap) == pytest.approx(
        ((2 / 3 + 1 / 3 + 1 / 2) / 3, (1 / 2 + 1 / 2 + 1) / 3, 1.5 / 3)
    )
    # the share of the way from guessing to the original: (1.5 - 1.5) / (2 - 1.5) = 0 under both
    shares = [(r.train_cap - r.marginal_cap) / (r.original_cap - r.marginal_cap) for r in (v1, v2)]
    assert shares == pytest.approx([0.0, 0.0])
    assert "goes 0% of the way" in v1.reading() and "goes 0% of the way" in v2.reading()


def test_cap_against_holdout_records_judges_the_training_excess(tiny):
    original, synthetic = tiny
    holdout = pd.DataFrame({"sex": ["F", "M", "M"], "age": ["young", "old", "young"], "ill": ["n", "n", "y"]})
    # Holdout CAP from S: (F, young, n) 1/3; (M, old, n) 1/2; (M, young) absent -> 0.
    v1 = cap(
        train=original,
        synthetic=synthetic,
        holdout=holdout,
        keys=["sex", "age"],
        target="ill",
        random_state=3,
    )
    assert v1.holdout_cap == pytest.approx((1 / 3 + 1 / 2 + 0) / 3)
    assert v1.train_cap == pytest.approx(1.5 / 4)
    assert v1.value == pytest.approx(1.5 / 4 - 5 / 18) and v1.baseline == 0.0
    assert v1.ci_low <= v1.value <= v1.ci_high and v1.n_holdout == 3
    v2 = cap(
        train=original, synthetic=synthetic, holdout=holdout, keys=["sex", "age"], target="ill", variant=2
    )
    assert v2.holdout_cap == pytest.approx((1 / 3 + 1 / 2) / 2)  # the absent key left out
    assert v2.value == pytest.approx(1 / 2 - 5 / 12)
    judged = judge(v1)
    assert judged.threshold == pytest.approx(0.05) and judged.higher_is_riskier
    assert "what anyone in the population learns" in judged.reading()


def test_cap_of_original_against_itself(tiny):
    original, _ = tiny
    for variant in (1, 2):
        res = cap(train=original, synthetic=original, keys=["sex", "age"], target="ill", variant=variant)
        # Every key is present, so both versions give the hand-computed 3/4 from above.
        assert res.value == pytest.approx(0.75)
        assert res.original_cap == pytest.approx(0.75)
        assert res.n_matched == 4


def test_cap_interval_is_a_seeded_bootstrap_of_the_records(tiny):
    original, synthetic = tiny
    a, b = (
        cap(train=original, synthetic=synthetic, keys=["sex", "age"], target="ill", random_state=4)
        for _ in range(2)
    )
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    # per-record CAPs 2/3, 1/3, 1/2, 0 (version 1): a resample's mean lies in [0, 2/3]
    assert 0.0 <= a.ci_low <= a.value <= a.ci_high <= 2 / 3
    with pytest.raises(PrivlibError, match="`confidence`"):
        cap(train=original, synthetic=synthetic, keys="sex", target="ill", confidence=2)


def test_cap_joint_target():
    original = pd.DataFrame(
        {"sex": ["F", "F", "F", "M"], "ill": ["y", "y", "n", "n"], "dis": ["a", "b", "a", "a"]}
    )
    synthetic = pd.DataFrame(
        {
            "sex": ["F", "F", "F", "F", "M", "M"],
            "ill": ["y", "y", "y", "n", "n", "y"],
            "dis": ["a", "a", "b", "b", "a", "a"],
        }
    )
    joint = cap(train=original, synthetic=synthetic, keys="sex", target=["ill", "dis"])
    # S's F group: (y,a) x2, (y,b), (n,b); M group: (n,a), (y,a).
    np.testing.assert_allclose(joint.per_record, [2 / 4, 1 / 4, 0.0, 1 / 2])
    assert joint.value == pytest.approx(0.3125)
    # In R: pairs (y,a), (y,b) once each, (n,a) twice.
    np.testing.assert_allclose(joint.per_record_marginal, [1 / 4, 1 / 4, 2 / 4, 2 / 4])
    assert joint.original_cap == pytest.approx((3 * (1 / 3) + 1) / 4)
    single = cap(train=original, synthetic=synthetic, keys="sex", target="ill")
    np.testing.assert_allclose(single.per_record, [3 / 4, 3 / 4, 1 / 4, 1 / 2])
    assert joint.target == ("ill", "dis") and single.target == ("ill",)


def test_cap_missing_values_are_a_value_of_their_own():
    original = pd.DataFrame({"k": [np.nan, "a", "a"], "t": ["x", "y", np.nan]})
    synthetic = pd.DataFrame({"k": [np.nan, np.nan, "a", "a"], "t": ["x", "y", "y", np.nan]})
    res = cap(train=original, synthetic=synthetic, keys="k", target="t")
    # Missing key group in S: t = x, y -> 1/2; key a: t = y, missing -> 1/2 each.
    np.testing.assert_allclose(res.per_record, [0.5, 0.5, 0.5])


def test_cap_matches_labels_across_category_lists():
    original = pd.DataFrame({"k": [1, 2], "t": [1, 1]}).astype("category")
    synthetic = pd.DataFrame({"k": [2, 3, 1], "t": [1, 1, 2]}).astype("category")
    res = cap(train=original, synthetic=synthetic, keys="k", target="t")
    np.testing.assert_allclose(res.per_record, [0.0, 1.0])  # key 1 -> t=2 in S, key 2 -> t=1


def test_cap_agrees_with_a_plain_loop_over_records():
    rng = np.random.default_rng(5)
    original = pd.DataFrame(rng.integers(0, 3, size=(60, 4)), columns=list("abcd")).astype(str)
    synthetic = pd.DataFrame(rng.integers(0, 3, size=(45, 4)), columns=list("abcd")).astype(str)
    keys, target = ["a", "b", "c"], ["d"]
    expected = []
    for _, row in original.iterrows():
        same_key = [s for _, s in synthetic.iterrows() if all(s[c] == row[c] for c in keys)]
        hits = [s for s in same_key if s["d"] == row["d"]]
        expected.append(len(hits) / len(same_key) if same_key else 0.0)
    res = cap(train=original, synthetic=synthetic, keys=keys, target=target)
    np.testing.assert_allclose(res.per_record, expected)
    present = [
        v > 0 or any(all(s[c] == r[c] for c in keys) for _, s in synthetic.iterrows())
        for v, (_, r) in zip(expected, original.iterrows())
    ]
    assert cap(
        train=original, synthetic=synthetic, keys=keys, target=target, variant=2
    ).value == pytest.approx(np.mean(np.array(expected)[present]))


def test_cap_result_reads_and_tabulates(tiny):
    original, synthetic = tiny
    res = judge(cap(train=original, synthetic=synthetic, keys=["sex", "age"], target="ill"))
    row = res.to_frame()
    assert row.loc["cap", "value"] == pytest.approx(0.375)
    assert "per_record" not in row.columns
    # scored like the measure (record 3's key is absent: 0 in all three), guessing gives 1.5 / 4
    # = 0.375 and the original (0.5 + 0.5 + 1 + 0) / 4 = 0.5: the synthetic data's 0.375 goes
    # (0.375 - 0.375) / 0.125 = 0% of the way; with no holdout there is no verdict
    assert "goes 0% of the way" in res.reading() and "no control" in res.reading()
    assert res.threshold is None and res.verdict == "not assessable"
    assert res.ci_method == "bootstrap" and res.ci_low <= res.value <= res.ci_high
    assert res.to_dict()["keys"] == ["sex", "age"]


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(keys="height"), "keys"),
        (dict(target="height"), "target"),
        (dict(keys=["sex", "ill"], target="ill"), "also among the `keys`"),
        (dict(variant=3), "variant"),
        (dict(keys=[]), "keys"),
    ],
)
def test_cap_rejects_bad_arguments(tiny, change, message):
    original, synthetic = tiny
    args = dict(keys=["sex", "age"], target="ill") | change
    with pytest.raises(PrivlibError, match=message):
        cap(train=original, synthetic=synthetic, **args)


def test_cap_rejects_bad_tables(tiny):
    original, synthetic = tiny
    with pytest.raises(PrivlibError, match="`synthetic` has 0 row"):
        cap(train=original, synthetic=synthetic.iloc[:0], keys="sex", target="ill")
    with pytest.raises(PrivlibError, match="train"):
        cap(train=original.to_numpy(), synthetic=synthetic, keys="sex", target="ill")
    with pytest.raises(PrivlibError, match="not a column of `synthetic`"):
        cap(train=original, synthetic=synthetic.drop(columns="age"), keys=["sex", "age"], target="ill")
    recoded = synthetic.assign(sex=synthetic["sex"].map({"F": "female", "M": "male"}))
    with pytest.raises(PrivlibError, match="shares no value"):
        cap(train=original, synthetic=recoded, keys="sex", target="ill")
    numeric = synthetic.assign(age=np.linspace(20.0, 60.0, len(synthetic)))
    with pytest.raises(PrivlibError, match="'age' is categorical in `train` but numeric"):
        cap(train=original, synthetic=numeric, keys=["sex", "age"], target="ill")


# --------------------------------------------------------------------------------------------
# discretize
# --------------------------------------------------------------------------------------------
def test_discretize_cuts_at_original_quantiles():
    original = pd.DataFrame({"x": np.arange(1.0, 11.0), "c": list("ababababab")})
    synthetic = pd.DataFrame({"x": [-5.0, 5.0, 6.0, 100.0, np.nan], "c": list("aabba")})
    r, s = discretize(train=original, synthetic=synthetic, n_bins=2)
    # Median of 1..10 is 5.5: values below go to "< 5.5", the rest (and 100) to ">= 5.5".
    assert list(r["x"].cat.categories) == ["< 5.5", ">= 5.5"]
    assert r["x"].tolist() == ["< 5.5"] * 5 + [">= 5.5"] * 5
    assert s["x"].iloc[:4].tolist() == ["< 5.5", "< 5.5", ">= 5.5", ">= 5.5"]
    assert pd.isna(s["x"].iloc[4])
    assert r["c"].tolist() == original["c"].tolist()  # categorical columns are left alone
    unchanged, _ = discretize(train=original, synthetic=synthetic, columns=[])
    pd.testing.assert_frame_equal(unchanged, original)
    with pytest.raises(PrivlibError, match="not numeric"):
        discretize(train=original, synthetic=synthetic, columns="c")
    with pytest.raises(PrivlibError, match="n_bins"):
        discretize(train=original, synthetic=synthetic, n_bins=1)


def test_discretize_merges_repeated_edges():
    original = pd.DataFrame({"x": [0.0] * 8 + [3.0, 7.0]})
    r, _ = discretize(train=original, synthetic=original, n_bins=4)
    # Quantiles 0.25, 0.5 are 0 (the minimum, dropped); 0.75 is 0 too: one bin would be empty.
    # Every edge equals the minimum, so the whole column is one bin.
    assert list(r["x"].cat.categories) == ["all values"]


def test_cap_with_many_key_columns_agrees_with_pandas_groupby():
    # 12 columns of 60 values each: 60**12 (about 2e21) key combinations, more than an int64 holds,
    # so a joint code built by multiplying the columns' codes would wrap around and merge groups.
    rng = np.random.default_rng(7)
    cols = [f"c{i}" for i in range(12)]
    base = rng.integers(0, 60, size=(400, 12))
    repeated = base[rng.integers(0, 400, size=200)]
    repeated[:, -1] = rng.integers(0, 60, size=200)  # same keys, another target: groups of several
    original = pd.DataFrame(np.vstack([base, repeated]), columns=cols).astype(str)
    assert all(original[c].nunique() > 50 for c in cols)
    res = cap(train=original, synthetic=original, keys=cols[:-1], target=cols[-1])
    # Each record's CAP against its own table: the share of its key group with its target value.
    keys = original[cols[:-1]].agg("|".join, axis=1)
    both = keys + "#" + original[cols[-1]]
    expected = both.map(both.value_counts()) / keys.map(keys.value_counts())
    assert expected.lt(1).any()  # the check is not trivial: some groups mix target values
    np.testing.assert_allclose(res.per_record, expected.to_numpy())


# --------------------------------------------------------------------------------------------
# plots
# --------------------------------------------------------------------------------------------
def test_cap_scatter_groups_records_by_what_they_reveal(tiny):
    import matplotlib

    matplotlib.use("Agg")
    from privlib.plots import plot_cap_scatter, plot_relative_errors

    original, synthetic = tiny
    ax = plot_cap_scatter(cap(train=original, synthetic=synthetic, keys=["sex", "age"], target="ill"))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    # CAPs 2/3, 1/3, 1/2, 0 against the marginal 1/2: one above, two at or below, one absent.
    assert labels == [
        "key absent from synthetic (1 record)",
        "at or below the marginal share (2 records)",
        "above the marginal share (1 record)",
        "same CAP",
    ]
    with pytest.raises(PrivlibError, match="numeric target"):
        plot_relative_errors(knn_risk(train=original, synthetic=synthetic, keys="sex", target="ill", k=1))
    matplotlib.pyplot.close("all")


def test_bins_whose_rounded_edges_collide_get_distinct_labels():
    # Edges 150.1, 150.2, 150.3 would all read "150" at the default precision.
    table = pd.DataFrame({"x": np.repeat([150.05, 150.15, 150.25, 150.35], 10)})
    binned, _ = discretize(train=table, synthetic=table, n_bins=4)
    assert binned["x"].cat.categories.tolist() == [
        "< 150.1",
        "150.1 to < 150.2",
        "150.2 to < 150.3",
        ">= 150.3",
    ]
    assert binned["x"].value_counts().tolist() == [10, 10, 10, 10]
