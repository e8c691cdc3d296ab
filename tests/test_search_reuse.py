"""Tests of privlib.search_reuse: a search asked twice inside the block is answered from the first,
and only then; an audit's metrics are the same with and without it."""

from __future__ import annotations

import gc
import json
import math
import weakref

import numpy as np
import pandas as pd
import pytest

import privlib as pl
import privlib.neighbors.engine as engine_module
import privlib.neighbors.search as search_module
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
    search = search_module._search

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

    monkeypatch.setattr(search_module, "_search", counting)
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
            train=train, holdout=holdout, synthetic=synthetic, random_state=1, n_repeats=5
        ),
        pl.identity.dcr_summary(**release),
        pl.membership.dcr_holdout_share(**release, random_state=1),
        pl.membership.threshold_attack(**release, random_state=1),
        pl.membership.nn_mia(**release, random_state=1),
        pl.membership.adversarial_accuracy(train=train, synthetic=synthetic, random_state=1, n_repeats=5),
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
@pytest.mark.parametrize("name", ["max_memory_mb", "reference_memory_mb"])
def test_a_bad_budget_is_refused(budget, name):
    with pytest.raises(PrivlibError, match=name), reuse_searches(**{name: budget}):
        pass


# --------------------------------------------------------------------------------------------
# Prepared references: encoded, sorted and tiled once per block
# --------------------------------------------------------------------------------------------
@pytest.fixture
def prepared(monkeypatch):
    """The arrays of every reference block the engine prepares, in order."""
    blocks = []
    prepare = engine_module._prepare_reference

    def recording(block, keys):
        arrays = prepare(block, keys)
        blocks.append(arrays)
        return arrays

    monkeypatch.setattr(engine_module, "_prepare_reference", recording)
    return blocks


def _holey(n, seed):
    """Numbers on a grid of few values (exact ties), a category, and missing values in every column."""
    rng = np.random.default_rng(seed)
    table = pd.DataFrame(
        {
            "x": rng.integers(0, 6, n).astype(float),
            "g": rng.choice(["a", "b", "c"], n).astype(object),
            "y": rng.integers(0, 4, n) * 2.5,
        }
    )
    for column, missing in (("x", np.nan), ("g", None), ("y", np.nan)):
        table.loc[rng.random(n) < 0.1, column] = missing
    return table


def _questions(metric):
    """A reference and searches of it by other queries, bounded, leave-one-out and on one thread
    (so that no search answers another from its result, and each finds the reference prepared)."""
    rng = np.random.default_rng(21)
    if metric == "l2":
        reference = rng.integers(0, 5, (300, 3)).astype(float)  # exact ties
        queries = [rng.integers(0, 5, (n, 3)).astype(float) for n in (90, 40, 70)]
        options = dict(metric="l2")
    else:
        reference = _holey(300, 22)
        queries = [_holey(n, seed) for n, seed in ((90, 23), (40, 24), (70, 25))]
        options = dict(metric=metric, encoder=TableEncoder(metric=metric).fit(reference, *queries))
    bound = (
        rng.choice([0.0, 0.2, 0.5, np.inf], 70)
        if metric == "gower"
        else rng.choice([0.0, 1.0, 2.0, np.inf], 70)
    )
    own_bound = np.resize(bound, 300)
    return reference, [
        (queries[0], dict(options, k=3)),
        (queries[1], dict(options, k=1, n_jobs=1)),
        (queries[2], dict(options, k=2, within=bound)),
        (reference, dict(options, k=2, exclude_self=True, within=own_bound)),
        (reference, dict(options, k=2, exclude_self=True)),
    ]


@pytest.mark.parametrize("metric", ["gower", "hamming", "l2"])
@pytest.mark.parametrize("max_memory_mb", [256, 0.01])  # the reference in one block, or in several
def test_searches_of_a_prepared_reference_are_those_of_a_fresh_one_bit_for_bit(
    prepared, metric, max_memory_mb
):
    reference, questions = _questions(metric)
    fresh = [
        kneighbors(query, reference, max_memory_mb=max_memory_mb, **options) for query, options in questions
    ]
    blocks = len(prepared) // len(questions)
    assert len(prepared) == blocks * len(questions) and (blocks > 1) == (max_memory_mb < 1)
    # backwards, the bounded leave-one-out search is read from the unbounded one's result
    for order, made in ((range(5), 5), (range(4, -1, -1), 4)):
        prepared.clear()
        with reuse_searches() as searches:
            kept = {
                i: kneighbors(questions[i][0], reference, max_memory_mb=max_memory_mb, **questions[i][1])
                for i in order
            }
        assert len(prepared) == blocks  # the first search prepares the reference, the others read it
        assert searches.made == made and searches.references_kept == 1
        assert searches.references_reused == made - 1
        for i, expected in enumerate(fresh):
            np.testing.assert_array_equal(kept[i].distances, expected.distances)
            np.testing.assert_array_equal(kept[i].indices, expected.indices)


def test_another_encoder_metric_or_block_size_prepares_the_reference_again(prepared):
    reference, query = _holey(300, 26), _holey(50, 27)
    encoder = TableEncoder().fit(reference, query)
    questions = [
        dict(k=2, encoder=encoder),
        dict(k=2, encoder=TableEncoder().fit(reference, query.assign(x=query.x * 10))),  # wider ranges
        dict(k=2, metric="hamming", encoder=TableEncoder(metric="hamming").fit(reference, query)),
        # other blocks (and a longer list, which the first search's result does not answer)
        dict(k=3, encoder=encoder, max_memory_mb=0.01),
    ]
    fresh = [kneighbors(query, reference, **options) for options in questions]
    with reuse_searches() as searches:
        kept = [kneighbors(query, reference, **options) for options in questions]
        kneighbors(query.iloc[:20], reference, k=1, encoder=encoder, max_memory_mb=0.01)
    assert (searches.references_kept, searches.references_reused) == (4, 1)
    for found, expected in zip(kept, fresh):
        np.testing.assert_array_equal(found.distances, expected.distances)
        np.testing.assert_array_equal(found.indices, expected.indices)
    assert not np.array_equal(fresh[0].distances, fresh[1].distances)  # the encoders differ


def test_a_reference_with_other_values_is_prepared_again(prepared):
    reference = np.array([[0.0], [10.0]])
    with reuse_searches() as searches:
        assert kneighbors(np.array([[3.0]]), reference, metric="l1").distances.tolist() == [[3.0]]
        reference[0, 0] = 4.0  # an array changed in place
        assert kneighbors(np.array([[2.0]]), reference, metric="l1").distances.tolist() == [[2.0]]
        table = pd.DataFrame({"x": [0.0, 10.0], "g": ["a", "b"]})
        encoder = TableEncoder().fit(table)
        kneighbors(table.iloc[:1], table, encoder=encoder)
        changed = table.copy()
        changed.loc[1, "g"] = "a"
        assert kneighbors(table.iloc[1:], changed, encoder=encoder).indices.tolist() == [[1]]
    assert len(prepared) == 4 and searches.references_reused == 0


def _prepared_size(n, p):
    """Bytes of a reference of ``n`` records and ``p`` variables prepared in one block, by hand:
    its values and row numbers (8 bytes each), and per tile of 256 records two boxes of ``p``
    values and one row number."""
    return 8 * (n * (p + 1) + math.ceil(n / 256) * (2 * p + 1))


def test_the_least_recently_used_reference_makes_room(prepared):
    tables = [_table(4096, seed) for seed in range(3)]
    queries = [_table(5, seed) for seed in range(10, 16)]
    encoder = TableEncoder().fit(*tables, *queries)
    size = _prepared_size(4096, 2)  # 98,944 bytes: two fit in 0.2 MiB, three do not
    with reuse_searches(reference_memory_mb=0.2) as searches:
        for query, reference in zip(queries, [0, 1, 0, 2, 0, 1]):
            kneighbors(query, tables[reference], encoder=encoder)
        assert searches.reference_bytes == 2 * size
    # the second visit of table 0 and its third (table 1 made room for table 2) are read
    assert len(prepared) == 4 and (searches.references_kept, searches.references_reused) == (4, 2)


def test_a_reference_larger_than_the_budget_is_not_kept(prepared):
    reference = _table(4096, 5)
    encoder = TableEncoder().fit(reference)
    with reuse_searches(reference_memory_mb=0.05) as searches:  # below 98,944 bytes
        kneighbors(reference.iloc[:5], reference, encoder=encoder)
        kneighbors(reference.iloc[5:9], reference, encoder=encoder)
        assert searches.reference_bytes == 0
    assert len(prepared) == 2 and searches.references_kept == 0


def test_prepared_references_are_read_only_and_gone_with_the_block(prepared):
    reference, query = _holey(300, 28), _holey(30, 29)
    with reuse_searches() as searches:
        kneighbors(query, reference, encoder=TableEncoder().fit(reference, query), max_memory_mb=0.01)
        blocks = [72, 72, 72, 72, 12]  # (0.01 MiB / 2) // (3 copies * 8 bytes * 3 variables) records each
        assert [len(arrays[1]) for arrays in prepared] == blocks
        assert searches.reference_bytes == sum(_prepared_size(n, 3) for n in blocks)
        assert searches.reference_bytes == sum(array.nbytes for arrays in prepared for array in arrays)
        alive = [weakref.ref(array) for arrays in prepared for array in arrays]
        for kept in alive:
            with pytest.raises(ValueError, match="read-only"):
                kept()[...] = 0
    prepared.clear()
    gc.collect()
    assert searches.reference_bytes == 0 and all(ref() is None for ref in alive)


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
