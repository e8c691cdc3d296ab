"""Tests of privlib.search_reuse: a search asked twice inside the block is answered from the first,
and only then; an audit's metrics are the same with and without it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import privlib as pl
import privlib.neighbors as neighbors_module
from privlib.audit.report import comparable_metrics
from privlib.errors import PrivlibError
from privlib.neighbors import kneighbors
from privlib.schema import TableEncoder
from privlib.search_reuse import reuse_searches, table_digest


def _table(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["a", "b", "c"], n)})


@pytest.fixture
def counted(monkeypatch):
    """The searches the engine actually runs: per search, the digests of its query and reference
    tables, whether it leaves each record out, its number of neighbours and whether it is bounded."""
    runs = []
    search = neighbors_module._search

    def counting(tables, k, *args, **kwargs):
        bound = args[-1] if len(args) == 5 else kwargs.get("bound")
        runs.append(
            (
                table_digest(tables.query),
                table_digest(tables.reference),
                tables.exclude_self,
                k,
                bound is not None,
            )
        )
        return search(tables, k, *args, **kwargs)

    monkeypatch.setattr(neighbors_module, "_search", counting)
    return runs


def test_a_repeated_search_is_answered_from_the_first_with_read_only_arrays(counted):
    query, reference = _table(50, 0), _table(80, 1)
    with reuse_searches() as searches:
        first = kneighbors(query, reference, k=2)
        again = kneighbors(query.copy(), reference.copy(), k=2)  # other objects, same values
    assert again is first and len(counted) == 1
    assert (searches.made, searches.reused) == (1, 1)
    with pytest.raises(ValueError, match="read-only"):
        first.distances[0, 0] = 1.0
    fresh = kneighbors(query, reference, k=2)  # outside the block: searched again
    assert len(counted) == 2
    np.testing.assert_array_equal(fresh.indices, first.indices)
    np.testing.assert_array_equal(fresh.distances, first.distances)


@pytest.mark.parametrize(
    "change",
    [
        "value",  # one value of the reference differs
        "k",
        "exclude_self",
        "encoder",  # ranges fitted on a wider table
        "metric",
    ],
)
def test_another_question_is_searched_again(counted, change):
    table, other = _table(60, 2), _table(60, 3)
    base = dict(k=1, metric="gower", encoder=TableEncoder().fit(table))
    asked = dict(base)
    reference = table
    if change == "value":
        reference = table.copy()
        reference.loc[7, "x"] += 1e-9
    elif change == "k":
        asked["k"] = 2
    elif change == "exclude_self":
        asked["exclude_self"] = True
    elif change == "encoder":
        asked["encoder"] = TableEncoder().fit(table, other.assign(x=other.x * 10))
    else:
        asked["metric"], asked["encoder"] = "hamming", TableEncoder(metric="hamming").fit(table)
    with reuse_searches() as searches:
        kneighbors(table, table, **base)
        kneighbors(table, reference, **asked)
    assert len(counted) == 2 and searches.reused == 0


def test_the_oldest_results_go_first_when_the_budget_is_full(counted):
    tables = [_table(4096, seed) for seed in range(3)]  # 64 KiB of results per search
    with reuse_searches(max_memory_mb=0.15) as searches:
        for table in tables:
            kneighbors(table, tables[0])
        kneighbors(tables[2], tables[0])  # still kept
        kneighbors(tables[0], tables[0])  # dropped for the third
    assert len(counted) == 4 and searches.reused == 1


def test_fewer_neighbours_are_read_from_a_longer_list(counted):
    # few values, so that many neighbours tie and the lower-row rule decides the lists
    rng = np.random.default_rng(11)
    table = pd.DataFrame({"x": rng.integers(0, 3, 400).astype(float), "g": rng.choice(["a", "b"], 400)})
    encoder = TableEncoder().fit(table)
    with reuse_searches() as searches:
        deep = kneighbors(table, table, k=6, exclude_self=True, encoder=encoder)
        shallow = kneighbors(table, table, k=2, exclude_self=True, encoder=encoder)
        deeper = kneighbors(table, table, k=7, exclude_self=True, encoder=encoder)  # longer: searched
        again = kneighbors(table, table, k=6, exclude_self=True, encoder=encoder)  # from the k = 7 list
    assert len(counted) == 2 and (searches.made, searches.reused) == (2, 2)
    for kept, k in ((shallow, 2), (again, 6)):
        fresh = kneighbors(table, table, k=k, exclude_self=True, encoder=encoder)
        np.testing.assert_array_equal(kept.indices, fresh.indices)
        np.testing.assert_array_equal(kept.distances, fresh.distances)
    np.testing.assert_array_equal(deep.indices[:, :6], deeper.indices[:, :6])


def test_a_bounded_search_is_read_from_a_list_within_wider_bounds_only(counted):
    rng = np.random.default_rng(12)
    table = pd.DataFrame({"x": rng.integers(0, 100, 500).astype(float), "g": rng.choice(["a", "b"], 500)})
    encoder = TableEncoder().fit(table)
    wide = rng.choice([0.0, 0.01, 0.03, np.inf], 500)
    narrow = np.minimum(wide, rng.choice([0.0, 0.01, 0.02], 500))
    search = dict(exclude_self=True, encoder=encoder)
    with reuse_searches() as searches:
        kneighbors(table, table, k=4, within=wide, **search)
        from_wide = kneighbors(table, table, k=3, within=narrow, **search)
        assert len(counted) == 1
        kneighbors(table, table, k=1, **search)  # no bound: not answered by a bounded list
        assert len(counted) == 2
    assert searches.reused == 1
    fresh = kneighbors(table, table, k=3, within=narrow, **search)
    np.testing.assert_array_equal(from_wide.indices, fresh.indices)
    np.testing.assert_array_equal(from_wide.distances, fresh.distances)
    assert (from_wide.indices == -1).any() and (from_wide.indices >= 0).any()


def _release(n, seed):
    """Training, holdout and synthetic tables with the benchmark's shapes (training and synthetic
    data of one size, a holdout half of it), on a grid of few values so that distances tie."""
    rng = np.random.default_rng(seed)

    def table(size):
        return pd.DataFrame(
            {
                "x": rng.integers(0, 6, size).astype(float),
                "y": rng.integers(0, 4, size).astype(float),
                "g": rng.choice(["a", "b", "c"], size),
            }
        )

    tables = [table(n), table(n // 2), table(n)]
    for t in tables:  # the same ranges in every table, so that every measure's encoder agrees
        t.loc[0, ["x", "y"]], t.loc[1, ["x", "y"]] = [0.0, 0.0], [5.0, 3.0]
    return tables


def _distance_measures(train, holdout, synthetic):
    """The distance measures of the audit, in the order it runs them (the privacy loss first)."""
    release = dict(train=train, holdout=holdout, synthetic=synthetic)
    return [
        pl.membership.privacy_loss(
            train=train, test=holdout, synthetic=synthetic, random_state=1, n_repeats=5
        ),
        pl.identity.dcr_summary(**release),
        pl.membership.dcr_holdout_share(**release, random_state=1),
        pl.membership.threshold_attack(**release, random_state=1),
        pl.membership.nn_mia(**release, random_state=1),
        pl.membership.adversarial_accuracy(target=train, synthetic=synthetic, random_state=1, n_repeats=5),
    ]


def test_the_distance_measures_search_each_whole_table_question_once(counted, monkeypatch):
    train, holdout, synthetic = _release(600, 13)
    with reuse_searches():
        shared = _distance_measures(train, holdout, synthetic)
    digests = {table_digest(t): name for t, name in ((train, "T"), (holdout, "H"), (synthetic, "S"))}
    whole = [
        (digests[query], digests[reference], loo)
        for query, reference, loo, _, _ in counted
        if query in digests and reference in digests
    ]
    # synthetic -> training and -> holdout, training and holdout -> synthetic, holdout -> training,
    # training and holdout leave-one-out, and the synthetic records' nearest other synthetic
    # records (one list, within the bound of their nearest real record)
    assert sorted(whole) == sorted(
        [
            ("S", "T", False),
            ("S", "H", False),
            ("T", "S", False),
            ("H", "S", False),
            ("H", "T", False),
            ("T", "T", True),
            ("H", "H", True),
            ("S", "S", True),
        ]
    )
    monkeypatch.setattr(pl.search_reuse, "active", lambda: None)
    alone = _distance_measures(train, holdout, synthetic)
    for kept, fresh in zip(shared, alone):
        assert kept.to_dict() == fresh.to_dict()


def test_the_digest_sees_names_types_values_and_order():
    table = _table(20, 4)
    flags = pd.DataFrame({"g": pd.Series([True, False], dtype=object)})
    digests = {
        table_digest(table),
        table_digest(table.rename(columns={"x": "y"})),
        table_digest(table.astype({"g": "category"})),
        table_digest(table.iloc[::-1]),
        table_digest(table.assign(x=table.x + 1)),
        table_digest(flags),
        table_digest(flags.astype(str).astype(object)),  # "True" is not True
        table_digest(pd.DataFrame({1: [0.0]})),
        table_digest(pd.DataFrame({"1": [0.0]})),
    }
    assert len(digests) == 9
    assert table_digest(table.copy()) == table_digest(table)


def test_labels_that_print_alike_are_searched_apart():
    flags = pd.DataFrame({"g": pd.Series([True, False], dtype=object)})
    words = pd.DataFrame({"g": pd.Series(["True", "False"], dtype=object)})
    encoder = TableEncoder().fit(flags, words)
    with reuse_searches():
        assert kneighbors(flags, flags, encoder=encoder).distances.ravel().tolist() == [0.0, 0.0]
        assert kneighbors(words, flags, encoder=encoder).distances.ravel().tolist() == [1.0, 1.0]


def test_an_array_changed_in_place_is_searched_again(counted):
    query, reference = np.array([[0.0], [1.0]]), np.array([[0.0], [10.0]])
    with reuse_searches():
        assert kneighbors(query, reference, metric="l1").distances.ravel().tolist() == [0.0, 1.0]
        query[1, 0] = 7.0
        assert kneighbors(query, reference, metric="l1").distances.ravel().tolist() == [0.0, 3.0]
    assert len(counted) == 2


@pytest.mark.parametrize("budget", [0, -1, True, "1"])
def test_a_bad_budget_is_refused(budget):
    with pytest.raises(PrivlibError, match="max_memory_mb"), reuse_searches(max_memory_mb=budget):
        pass


@pytest.mark.slow
def test_an_audit_reports_the_same_metrics_with_and_without_reuse(monkeypatch):
    adult = pl.datasets.load_dataset("adult")
    train, holdout = adult.iloc[:1200], adult.iloc[1200:1800]
    synthetic = pl.synth.SequentialTrees(min_samples_leaf=5).fit(train).sample(1200, random_state=1)
    settings = dict(
        train=train,
        synthetic=synthetic,
        holdout=holdout,
        keys=["age", "sex", "race"],
        sensitive=["income"],
        population_size=20000,
        seed=3,
    )
    reused = pl.audit.run(**settings)
    monkeypatch.setattr(pl.search_reuse, "active", lambda: None)
    alone = pl.audit.run(**settings)
    metrics = [comparable_metrics(json.loads(report.to_json())) for report in (reused, alone)]
    assert metrics[0] == metrics[1]
    assert any(m["key"] == "privacy_loss" and m["value"] is not None for m in metrics[0]["measures"])


def _gower_nearest(query: pd.DataFrame, reference: pd.DataFrame, ranges: dict) -> np.ndarray:
    """Brute-force Gower distance from each query record to its nearest reference record."""
    parts = []
    for column in query.columns:
        q, r = query[column].to_numpy()[:, None], reference[column].to_numpy()[None, :]
        parts.append(np.abs(q - r) / ranges[column] if column in ranges else (q != r).astype(float))
    return (sum(parts) / len(parts)).min(axis=1)


@pytest.mark.parametrize("sizes", [(60, 25), (25, 60)])
def test_dcr_holdout_share_reads_the_drawn_records_from_the_whole_table_search(sizes):
    n_train, n_holdout = sizes
    rng = np.random.default_rng(8)

    def table(n):  # few values, so that many records tie and many have a copy
        return pd.DataFrame({"x": rng.integers(0, 4, n).astype(float), "g": rng.choice(["a", "b"], n)})

    train, holdout, synthetic = table(n_train), table(n_holdout), table(40)
    joint = pd.concat([train, holdout, synthetic])
    ranges = {"x": joint["x"].max() - joint["x"].min()}
    with reuse_searches() as searches:
        # dcr_zero_share searches the synthetic records against the whole training table
        pl.identity.dcr_summary(synthetic=synthetic, train=train, holdout=holdout)
        before = searches.reused
        result = pl.membership.dcr_holdout_share(
            synthetic=synthetic, train=train, holdout=holdout, random_state=5
        )
        assert searches.reused == before + 1  # that search, not made again
    # the larger table replaced by 25 of its records, drawn as documented, and searched by hand
    draw = np.sort(np.random.default_rng(5).choice(60, 25, replace=False))
    train, holdout = (train.iloc[draw], holdout) if n_train > n_holdout else (train, holdout.iloc[draw])
    assert np.allclose(result.dcr_train, _gower_nearest(synthetic, train, ranges), rtol=0, atol=1e-12)
    assert np.allclose(result.dcr_holdout, _gower_nearest(synthetic, holdout, ranges), rtol=0, atol=1e-12)
    assert result.n_reference == 25
