"""The attack ensemble and the near-copy test (privlib.membership.attack_ensemble and
privlib.membership.near_copy_test), against values computed independently: Gower distances by
brute force in numpy, the scores by their formulas, the exact test's p-values from the negative
hypergeometric formula with math.comb, and Holm by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from privlib import attacks
from privlib.errors import PrivlibError
from privlib.membership import attack_scores, low_fpr_tests
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, RISK
from privlib.thresholds import judge


def _tables(seed: int, sizes=(30, 25, 20)):
    rng = np.random.default_rng(seed)

    def table(n):
        return pd.DataFrame(
            {
                "age": rng.integers(18, 90, n).astype(float),
                "income": rng.normal(50, 20, n).round(1),
                "sex": rng.choice(["F", "M"], n),
                "job": rng.choice(["a", "b", "c", "d"], n),
            }
        )

    return [table(n) for n in sizes]


def _gower_matrix(a: pd.DataFrame, b: pd.DataFrame, tables) -> np.ndarray:
    """Brute-force Gower distances: numbers over their range in all tables, categories 0/1."""
    parts = []
    for column in a.columns:
        if a[column].dtype.kind == "f":
            values = np.concatenate([t[column].to_numpy() for t in tables])
            spread = values.max() - values.min()
            parts.append(np.abs(a[column].to_numpy()[:, None] - b[column].to_numpy()[None, :]) / spread)
        else:
            parts.append((a[column].to_numpy()[:, None] != b[column].to_numpy()[None, :]).astype(float))
    return np.mean(parts, axis=0)


def _brute_force(train, holdout, synthetic, k):
    tables = (train, holdout, synthetic)
    real = pd.concat([train, holdout], ignore_index=True)
    to_real = _gower_matrix(real, real, tables)
    np.fill_diagonal(to_real, np.inf)  # the record itself is left out
    to_synthetic = _gower_matrix(real, synthetic, tables)
    return np.sort(to_synthetic, axis=1)[:, :k], np.sort(to_real, axis=1)[:, :k]


@pytest.mark.parametrize("k", [1, 3])
def test_neighbourhoods_equal_a_brute_force_search(k):
    train, holdout, synthetic = _tables(0)
    hoods = attacks.real_neighbourhoods(train=train, holdout=holdout, synthetic=synthetic, k=k)
    to_synthetic, to_real = _brute_force(train, holdout, synthetic, k)
    np.testing.assert_allclose(hoods.to_synthetic, to_synthetic, atol=1e-12)
    np.testing.assert_allclose(hoods.to_real, to_real, atol=1e-12)
    assert hoods.is_member.tolist() == [True] * 30 + [False] * 25
    assert hoods.scale == pytest.approx(0.001 / 4)


def test_a_sample_of_records_gets_the_neighbours_it_has_among_every_record():
    train, holdout, synthetic = _tables(5)
    train = pd.concat([train, train.iloc[:4], train.iloc[:1]], ignore_index=True)  # twins, one triple
    rows = (np.array([0, 1, 2, 7, 30, 34]), np.array([3, 4, 24]))
    hoods = attack_scores._neighbourhoods(train, holdout, synthetic, 3, None, rows=rows)
    to_synthetic, to_real = _brute_force(train, holdout, synthetic, 3)
    chosen = np.r_[rows[0], len(train) + rows[1]]
    np.testing.assert_allclose(hoods.to_synthetic, to_synthetic[chosen], atol=1e-12)
    np.testing.assert_allclose(hoods.to_real, to_real[chosen], atol=1e-12)
    assert hoods.n_train == 6


def test_the_neighbour_scores_follow_their_formulas():
    train, holdout, synthetic = _tables(1)
    scores = attacks.ensemble_scores(train=train, holdout=holdout, synthetic=synthetic, random_state=0)
    k = attacks.N_NEIGHBOURS
    to_synthetic, to_real = _brute_force(train, holdout, synthetic, k)
    c = 0.001 / 4
    expected = {
        "dcr": -to_synthetic[:, 0],
        "dcr_diff": to_real[:, 0] - to_synthetic[:, 0],
        "density_ratio": np.log(to_real[:, k - 1] + c) - np.log(to_synthetic[:, k - 1] + c),
    }
    # local neighbourhood: among the k nearest of the real (first) and synthetic records merged,
    # the synthetic ones, weighted 1 / rank
    local = []
    for real_row, synthetic_row in zip(to_real, to_synthetic):
        merged = sorted([(d, 0) for d in real_row] + [(d, 1) for d in synthetic_row])[:k]
        local.append(sum(is_synthetic / (rank + 1) for rank, (_, is_synthetic) in enumerate(merged)))
    expected["local_neighbourhood"] = np.array(local)
    for name, values in expected.items():
        members, others = scores[name]
        np.testing.assert_allclose(np.r_[members, others], values, atol=1e-9, err_msg=name)
    members, others = scores["classifier"]
    assert members.size == 30 and others.size == 25
    assert ((np.r_[members, others] >= 0) & (np.r_[members, others] <= 1)).all()


def test_a_sample_of_records_is_scored_on_the_whole_tables_nearest_records(monkeypatch):
    # beyond ATTACK_RECORDS per table a seeded sample is scored: the distance scores of the sampled
    # records are those of a search over every record, picked at the sampled rows
    monkeypatch.setattr(attack_scores, "ATTACK_RECORDS", 20)
    train, holdout, synthetic = _tables(6)
    scores = attacks.ensemble_scores(train=train, holdout=holdout, synthetic=synthetic, random_state=3)
    rng = np.random.default_rng(3)  # the sample: 20 of 30 training, then 20 of 25 holdout rows
    rows = np.r_[np.sort(rng.choice(30, 20, replace=False)), 30 + np.sort(rng.choice(25, 20, replace=False))]
    to_synthetic, to_real = _brute_force(train, holdout, synthetic, 1)
    for name, values in (("dcr", -to_synthetic[:, 0]), ("dcr_diff", to_real[:, 0] - to_synthetic[:, 0])):
        members, others = scores[name]
        np.testing.assert_allclose(np.r_[members, others], values[rows], atol=1e-12, err_msg=name)


def test_the_near_copy_score_is_the_log_ratio_of_real_to_synthetic_distance():
    train, holdout, synthetic = _tables(2, sizes=(1200, 1100, 50))
    result = attacks.near_copy_test(train=train, holdout=holdout, synthetic=synthetic)
    point = result.points[("near_copy", 0.001)]
    to_synthetic, to_real = _brute_force(train, holdout, synthetic, 1)
    c = 0.001 / 4
    score = np.log(to_real[:, 0] + c) - np.log(to_synthetic[:, 0] + c)
    np.testing.assert_allclose(np.r_[point.member_scores, point.nonmember_scores], score, atol=1e-9)


def _tail(x: int, m: int, n: int, allowed: int) -> float:
    """P(X >= x) for the members called above the (allowed+1)-th highest of n non-member scores
    when all m + n scores are exchangeable (negative hypergeometric, by math.comb)."""
    total = math.comb(m + n, n)
    return (
        sum(
            math.comb(j + allowed, allowed) * math.comb(m - j + n - allowed - 1, n - allowed - 1)
            for j in range(x, m + 1)
        )
        / total
    )


@pytest.mark.slow
def test_the_ensemble_is_judged_on_the_strongest_reading_after_holm():
    m = n = 2000
    others = np.arange(n) / n
    strong = np.r_[np.full(20, 5.0), np.arange(1980) / n]  # 20 members above every non-member
    weak = others.copy()  # members scored like non-members
    result = low_fpr_tests._max_over_tests(
        {"strong": (strong, others), "weak": (weak, others)}, (0.001, 0.01), 0.95, measure="demo"
    )
    # by hand: at 0.1% two holdout records may be called (threshold 1997/2000); at 1% twenty
    # (threshold 1979/2000). Strong calls its 20 at both; weak calls 1998/2000 and 1999/2000 at
    # 0.1% and the 20 members from 1980/2000 up at 1%.
    called = {("strong", 0.001): 20, ("strong", 0.01): 20, ("weak", 0.001): 2, ("weak", 0.01): 20}
    p = {key: _tail(x, m, n, 2 if key[1] == 0.001 else 20) for key, x in called.items()}
    for key, point in result.points.items():
        assert point.members_called == called[key]
        assert point.p_value == pytest.approx(p[key], rel=1e-6)
    ordered = sorted(p.values())
    holm = np.maximum.accumulate([min(1.0, (4 - i) * q) for i, q in enumerate(ordered)])
    assert result.deciding_attack == "strong" and result.deciding_fpr == 0.001
    assert result.p_value == pytest.approx(holm[0], rel=1e-6)
    assert result.n_tests == 4 and result.value == 20 / m
    # the baseline: one below the fewest members significant at 5% / 4, the level of Holm's first step
    critical = next(x for x in range(m + 1) if _tail(x, m, n, 2) <= 0.05 / 4)
    assert result.baseline == (critical - 1) / m
    assert result.found and result.found[0].startswith("strong at 0.1%")
    table = result.per_attack()
    assert table["members called at 0.1%"].tolist() == [20, 2]


def _ensemble_of(planted: int, m: int = 2000):
    """The ensemble over a "strong" attack that scores ``planted`` members above every non-member
    and a "weak" one blind to membership, judged by the registry."""
    others = np.arange(m) / m
    strong = np.r_[np.full(planted, 5.0), np.arange(m - planted) / m]
    scores = {"strong": (strong, others), "weak": (others.copy(), others)}
    return judge(low_fpr_tests._max_over_tests(scores, (0.001, 0.01), 0.95, measure="attack_ensemble"))


def test_a_strongest_reading_significant_alone_but_not_after_holm_is_inconclusive():
    """Issue 42: one reading of "significant alone, not after correction", inconclusive, in the
    ensemble as in a family (it read "no evidence of risk")."""
    m = n = 2000
    # every tail at once, from the same formula as _tail: P(X >= x) summed down from x = m
    total = math.comb(m + n, n)
    pmf = [math.comb(j + 2, 2) * math.comb(m - j + n - 3, n - 3) / total for j in range(m + 1)]
    tails = np.cumsum(pmf[::-1])[::-1]
    assert tails[9] == pytest.approx(_tail(9, m, n, 2), rel=1e-9)
    # the fewest members above every non-member whose own p at 0.1% (two holdout records called)
    # is at most 0.05; by hand it stays above 0.05 / 4, so Holm over the four readings keeps it out
    planted = int(np.argmax(tails <= 0.05))
    own = float(tails[planted])
    assert 0.05 / 4 < own <= 0.05
    result = _ensemble_of(planted)
    assert (result.deciding_attack, result.deciding_fpr) == ("strong", 0.001)
    assert result.raw_p_value == pytest.approx(own, rel=1e-6)
    assert result.p_value == pytest.approx(4 * own, rel=1e-6)  # Holm's first step: 4 x the smallest
    assert result.verdict == INCONCLUSIVE
    assert (
        f"is significant on its own (p = {own:.2g}) but not after Holm's adjustment over its 4 "
        f"readings (adjusted p = {4 * own:.2g} against 0.05)"
    ) in result.judgement
    # enough members above every non-member that the own p is at most 0.05 / 4: a risk
    assert _ensemble_of(int(np.argmax(tails <= 0.05 / 4))).verdict == RISK
    # none planted: no reading significant even alone
    assert _ensemble_of(0).verdict == NO_EVIDENCE


def test_too_few_holdout_records_make_the_ensemble_not_assessable():
    members, others = np.arange(50.0), np.arange(50.0)
    result = low_fpr_tests._max_over_tests({"a": (members, others)}, (0.001, 0.01), 0.95, measure="demo")
    assert result.verdict == "not assessable" and math.isnan(result.value)


@pytest.mark.slow
def test_verbatim_copies_are_found_by_the_ensemble_and_the_same_seed_gives_the_same_result():
    train, holdout, _ = _tables(3, sizes=(1000, 1000, 1))
    result = attacks.attack_ensemble(train=train, holdout=holdout, synthetic=train, random_state=5)
    again = attacks.attack_ensemble(train=train, holdout=holdout, synthetic=train, random_state=5)
    assert result.value > result.baseline
    assert result.aucs["dcr_diff"] > 0.9
    assert result.to_dict() == again.to_dict()


def test_tables_that_do_not_match_are_one_clear_error():
    train, holdout, synthetic = _tables(4)
    with pytest.raises(PrivlibError):
        attacks.attack_ensemble(train=train, holdout=holdout.drop(columns="job"), synthetic=synthetic)
