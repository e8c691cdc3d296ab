"""The rare-copy test (privlib/rare_copies.py), against values computed independently: toy tables
counted by hand, brute-force Gower isolation and copies in numpy, and Fisher's exact test from
scipy.stats.fisher_exact."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import fisher_exact

from privlib.errors import PrivlibError
from privlib.rare_copies import rare_copy_test, rare_records


def test_ten_copied_unique_people_stand_out_where_common_copies_drown_them():
    # 90 records share one value in each real table; 10 are unique. The release copies 40 common
    # records (which holdout records equal as often) and the 10 unique training records.
    common = pd.DataFrame({"g": ["a"] * 90})
    train = pd.concat([common, pd.DataFrame({"g": [f"t{i}" for i in range(10)]})], ignore_index=True)
    holdout = pd.concat([common, pd.DataFrame({"g": [f"h{i}" for i in range(10)]})], ignore_index=True)
    synthetic = pd.concat([train.iloc[:40], train.iloc[90:]], ignore_index=True)
    result = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic)
    # by hand: the rare records are the 20 unique ones, 10 per table; 10 training records copied,
    # no holdout record; P(all 10 copied are training) = 1 / C(20, 10)
    assert (result.n_train, result.n_holdout, result.train_copied, result.holdout_copied) == (10, 10, 10, 0)
    assert result.p_value == pytest.approx(1 / math.comb(20, 10))
    assert result.value == 10 and result.records_at_risk == 10
    assert result.value > result.baseline
    # judged by the exact test; Newcombe's interval of the excess, in people, is shown beside it
    assert result.ci_method == "newcombe" and 0 < result.ci_low <= result.value <= result.ci_high <= 10


def test_rare_records_are_the_most_isolated_without_a_twin():
    neighbours = np.array(
        [[0.0, 0.4], [0.1, 0.1], [0.2, 0.4], [0.4, 0.6], [0.5, 0.5], [0.05, 0.15], [0.3, 0.3], [0.0, 1.0]]
    )
    rare, cut = rare_records(neighbours, 0.25)
    # means .2 .1 .3 .5 .5 .1 .3 .5; the 75% quantile taken at the next observed value: sorted
    # .1 .1 .2 .3 .3 .5 .5 .5, position 0.75 * 7 = 5.25 -> the 7th value, 0.5; ties at the cut
    # are rare too, but not the last record, which has a twin (nearest distance 0)
    assert cut == pytest.approx(0.5)
    assert rare.tolist() == [False, False, False, True, True, False, False, False]
    everyone_twinned, _ = rare_records(np.zeros((5, 3)), 0.5)
    assert not everyone_twinned.any()


def _gower(a: pd.DataFrame, b: pd.DataFrame, spreads: dict) -> np.ndarray:
    parts = []
    for column in a.columns:
        x, y = a[column].to_numpy(), b[column].to_numpy()
        if column in spreads:
            parts.append(np.abs(x[:, None] - y[None, :]) / spreads[column])
        else:
            parts.append((x[:, None] != y[None, :]).astype(float))
    return np.mean(parts, axis=0)


def test_the_test_equals_a_brute_force_count_and_fishers_test():
    rng = np.random.default_rng(11)

    def table(n):
        return pd.DataFrame(
            {
                "age": rng.integers(20, 70, n).astype(float),
                "g": rng.choice(["a", "b", "c"], n, p=[0.8, 0.15, 0.05]),
            }
        )

    train, holdout = table(300), table(300)
    # a release that copies 12 training records and 3 holdout records exactly, nudges 5 training
    # records by 0.4 years (within 1% of the range) and adds independent records
    nudged = train.iloc[100:105].assign(age=lambda t: t.age + 0.4)
    synthetic = pd.concat([train.iloc[:12], holdout.iloc[:3], nudged, table(200)], ignore_index=True)
    result = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic, rare_share=0.2)

    tables = (train, holdout, synthetic)
    spread = max(t.age.max() for t in tables) - min(t.age.min() for t in tables)
    real = pd.concat([train, holdout], ignore_index=True)
    distances = _gower(real, real, {"age": spread})
    np.fill_diagonal(distances, np.inf)
    nearest_five = np.sort(distances, axis=1)[:, :5]
    isolation = nearest_five.mean(axis=1)
    cut = np.sort(isolation)[math.ceil(0.8 * (isolation.size - 1))]
    rare = (isolation >= cut) & (nearest_five[:, 0] > 0)
    same_group = real.g.to_numpy()[:, None] == synthetic.g.to_numpy()[None, :]
    close = np.abs(real.age.to_numpy()[:, None] - synthetic.age.to_numpy()[None, :]) <= 0.01 * spread
    copied = (same_group & close).any(axis=1)
    a, b = int((copied & rare)[:300].sum()), int((copied & rare)[300:].sum())
    n1, n2 = int(rare[:300].sum()), int(rare[300:].sum())
    assert (result.train_copied, result.holdout_copied, result.n_train, result.n_holdout) == (a, b, n1, n2)
    expected_p = fisher_exact([[a, n1 - a], [b, n2 - b]], alternative="greater")[1]
    assert result.p_value == pytest.approx(expected_p, rel=1e-9)
    assert result.value == pytest.approx(a - b * n1 / n2)


def test_tables_where_everyone_has_a_twin_are_one_clear_error():
    table = pd.DataFrame({"g": ["a", "b"] * 10})
    with pytest.raises(PrivlibError, match="rare"):
        rare_copy_test(train=table, holdout=table, synthetic=table)


def test_a_sampled_ranking_is_stated(monkeypatch):
    """Beyond ATTACK_RECORDS records per table the rare records are ranked on a seeded sample, and
    the reading says so; up to it every record is ranked and the reading says nothing of a sample."""
    import privlib.membership.attack_scores as attacks_module

    rng = np.random.default_rng(3)
    train, holdout = (pd.DataFrame({"x": rng.normal(size=n)}) for n in (60, 50))
    synthetic = train.iloc[:10]
    whole = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic, random_state=0)
    assert whole.sample_size is None and "sample" not in whole.reading()
    monkeypatch.setattr(attacks_module, "ATTACK_RECORDS", 40)
    sampled = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic, random_state=0)
    assert sampled.sample_size == 40
    assert sampled.n_train + sampled.n_holdout <= 80  # rare records among the 40 + 40 sampled
    assert "sample of at most 40 records per table" in sampled.reading()
