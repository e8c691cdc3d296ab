"""Tests of the exact nearest-neighbour engine against brute force written here.

The reference implementation below follows the definitions word for word (per-variable Gower terms,
missing equals missing, missing vs a value = 1, ranges from the stated tables, Hamming on
equal-width bins) with numpy broadcasting over all pairs, one column at a time; it shares no
code with the engine or the encoder.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

import privlib.neighbors.sources as sources_module
from privlib.errors import PrivlibError
from privlib.neighbors import Neighbors, kneighbors, nearest_distances
from privlib.schema import TableEncoder


# --------------------------------------------------------------------------------------------
# Brute force, straight from the definitions
# --------------------------------------------------------------------------------------------
def _terms(query: pd.Series, reference: pd.Series, numeric_term) -> np.ndarray:
    """Per-variable distance for every pair, with the kit's missing-value rule (missing equals missing, missing against a value is 1)."""
    a_missing = query.isna().to_numpy()[:, None]
    b_missing = reference.isna().to_numpy()[None, :]
    if numeric_term is None:
        a = query.to_numpy(dtype=object)[:, None]
        b = reference.to_numpy(dtype=object)[None, :]
        term = (a != b).astype(float)
    else:
        term = numeric_term(query.to_numpy(dtype=float)[:, None], reference.to_numpy(dtype=float)[None, :])
    both, one = a_missing & b_missing, a_missing | b_missing
    return np.where(both, 0.0, np.where(one, 1.0, term))


def brute_gower(query: pd.DataFrame, reference: pd.DataFrame, ranges_from: list) -> np.ndarray:
    """Mean over variables: |a - b| / range for floats (range over ``ranges_from``), 0/1 else."""
    total = np.zeros((len(query), len(reference)))
    for c in query.columns:
        if pd.api.types.is_float_dtype(query[c].dtype):
            pooled = pd.concat([t[c] for t in ranges_from])
            r = pooled.max() - pooled.min()

            def numeric(u, v, r=r):
                if r == 0:  # a zero range contributes 0
                    return np.zeros(np.broadcast_shapes(u.shape, v.shape))
                return np.minimum(np.abs(u - v) / r, 1.0)
        else:
            numeric = None
        total += _terms(query[c], reference[c], numeric)
    return total / query.shape[1]


def brute_hamming(query, reference, bins_from: list, n_bins: int) -> np.ndarray:
    """Number of differing variables; floats first cut into ``n_bins`` equal-width bins."""
    total = np.zeros((len(query), len(reference)))
    for c in query.columns:
        if pd.api.types.is_float_dtype(query[c].dtype):
            pooled = pd.concat([t[c] for t in bins_from])
            low, width = pooled.min(), (pooled.max() - pooled.min()) / n_bins

            def numeric(u, v, low=low, width=width):
                bin_u = np.minimum(np.floor((u - low) / width), n_bins - 1)
                bin_v = np.minimum(np.floor((v - low) / width), n_bins - 1)
                return (bin_u != bin_v).astype(float)
        else:
            numeric = None
        total += _terms(query[c], reference[c], numeric)
    return total


def brute_knn(d: np.ndarray, k: int, exclude_self: bool = False):
    """Top-k of a full distance matrix, ties to the lower index (stable sort)."""
    d = d.copy()
    if exclude_self:
        np.fill_diagonal(d, np.inf)
    order = np.argsort(d, axis=1, kind="stable")[:, :k]
    return np.take_along_axis(d, order, axis=1), order


def mixed_table(rng, n, *, grid=True, nan_share=0.15):
    """Mixed table with NaN; with ``grid`` the numbers sit on multiples of 1/8 of a range of 8,
    so every Gower term and sum is exact in floating point and ties are exact ties."""
    if grid:
        x = rng.integers(0, 9, n).astype(float)
        x[:2] = [0.0, 8.0]  # fix the range to 8 in every table
        y = rng.integers(0, 5, n) * 4.0
        y[:2] = [0.0, 16.0]
    else:
        x, y = rng.normal(size=n), rng.exponential(size=n)
    df = pd.DataFrame(
        {
            "x": x,
            "colour": rng.choice(["red", "green", "blue"], n),
            "y": y,
            "flag": rng.choice(["yes", "no"], n),
        }
    )
    for c in df.columns:
        hole = rng.random(n) < nan_share
        hole[:2] = False
        df.loc[hole, c] = np.nan if df[c].dtype == float else None
    return df


# --------------------------------------------------------------------------------------------
# Exact agreement
# --------------------------------------------------------------------------------------------
def test_gower_by_hand():
    ref = pd.DataFrame({"age": [20.0, 30.0, 60.0, np.nan], "sex": ["F", "M", "F", None]})
    query = pd.DataFrame({"age": [20.0, np.nan], "sex": ["M", None]})
    nn = kneighbors(query, ref, k=4)
    # age range 40 (20..60): (20,M) vs (30,M) = (10/40 + 0)/2, vs (20,F) = (0 + 1)/2,
    # vs (60,F) = (1 + 1)/2, vs (NaN,None) = (1 + 1)/2; the last tie goes to the lower index
    assert nn.indices.tolist()[0] == [1, 0, 2, 3]
    np.testing.assert_allclose(nn.distances[0], [0.125, 0.5, 1.0, 1.0], atol=1e-12)
    # (NaN,None): missing equals missing, so the all-missing record is at 0, the others at 1
    assert nn.indices.tolist()[1] == [3, 0, 1, 2]
    np.testing.assert_allclose(nn.distances[1], [0.0, 1.0, 1.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("seed, n_query, n_reference", [(0, 40, 60), (1, 40, 60), (2, 50, 900)])
@pytest.mark.parametrize("k", [1, 4])
def test_gower_matches_brute_force_with_ties(seed, n_query, n_reference, k):
    # 900 reference records span several of the engine's tiles (sorted, bounded, pruned)
    rng = np.random.default_rng(seed)
    query, reference = mixed_table(rng, n_query), mixed_table(rng, n_reference)
    want_d, want_i = brute_knn(brute_gower(query, reference, [query, reference]), k)
    nn = kneighbors(query, reference, k=k)
    assert isinstance(nn, Neighbors)
    assert nn.distances.shape == nn.indices.shape == (n_query, k)
    assert nn.indices.dtype == np.int64 and nn.distances.dtype == np.float64
    np.testing.assert_allclose(nn.distances, want_d, rtol=0, atol=1e-12)
    # on the grid ties are exact, so the lower-index rule fixes every index
    np.testing.assert_array_equal(nn.indices, want_i)


@pytest.mark.parametrize("exclude_self", [False, True])
def test_many_exact_duplicates_keep_the_lower_index_rule(exclude_self):
    # 2 x 3 x 2 = 12 distinct records among 2,000: each query has hundreds of neighbours at
    # distance 0 spread over many tiles; the engine skips the tiles whose records all come after
    # its current k-th neighbour, and must still return the k lowest row numbers
    rng = np.random.default_rng(8)

    def table(n, a=("u", "v")):
        return pd.DataFrame(
            {"a": rng.choice(a, n), "b": rng.choice(["p", "q", "r"], n), "c": rng.choice([0.0, 1.0], n)}
        )

    reference = table(2000)
    # queries with a = "w", absent from the reference, tie with several groups of records at
    # distance 1/3, whose tiles hold interleaved row numbers
    query = reference if exclude_self else table(300, a=("u", "v", "w"))
    want_d, want_i = brute_knn(brute_gower(query, reference, [query, reference]), 5, exclude_self)
    nn = kneighbors(query, reference, k=5, exclude_self=exclude_self)
    np.testing.assert_array_equal(nn.indices, want_i)
    np.testing.assert_allclose(nn.distances, want_d, atol=1e-12)


def test_gower_matches_brute_force_on_continuous_values():
    rng = np.random.default_rng(5)
    query, reference = mixed_table(rng, 30, grid=False), mixed_table(rng, 50, grid=False)
    full = brute_gower(query, reference, [query, reference])
    want_d, _ = brute_knn(full, 3)
    nn = kneighbors(query, reference, k=3)
    np.testing.assert_allclose(nn.distances, want_d, rtol=0, atol=1e-9)
    # each returned index really is at the returned distance
    np.testing.assert_allclose(np.take_along_axis(full, nn.indices, axis=1), nn.distances, atol=1e-9)


def test_leave_one_out_finds_duplicates_but_not_itself():
    rng = np.random.default_rng(3)
    table = mixed_table(rng, 600)
    table = pd.concat([table, table.iloc[[5, 9]]], ignore_index=True)  # rows 600, 601 copy 5, 9
    want_d, want_i = brute_knn(brute_gower(table, table, [table]), 3, exclude_self=True)
    nn = kneighbors(table, table, k=3, exclude_self=True)
    np.testing.assert_allclose(nn.distances, want_d, atol=1e-12)
    np.testing.assert_array_equal(nn.indices, want_i)
    assert (nn.indices != np.arange(len(table))[:, None]).all()
    # each copy is at distance 0 from its original (other chance duplicates may come first)
    assert nn.distances[5, 0] == nn.distances[600, 0] == nn.distances[601, 0] == 0.0
    # a copy of the table (not the same object) is accepted as "the same table"
    again = kneighbors(table, table.copy(), k=3, exclude_self=True)
    np.testing.assert_array_equal(again.indices, nn.indices)


def test_single_row_tables():
    one = pd.DataFrame({"x": [1.0], "c": ["a"]})
    nn = kneighbors(one, one)
    assert nn.distances.tolist() == [[0.0]] and nn.indices.tolist() == [[0]]
    # a single query record with a missing value against a larger reference
    rng = np.random.default_rng(8)
    reference = mixed_table(rng, 25)
    query = pd.DataFrame({"x": [np.nan], "colour": ["red"], "y": [4.0], "flag": [None]})
    want_d, want_i = brute_knn(brute_gower(query, reference, [query, reference]), 2)
    nn = kneighbors(query, reference, k=2)
    np.testing.assert_allclose(nn.distances, want_d, atol=1e-12)
    np.testing.assert_array_equal(nn.indices, want_i)


def test_zero_range_column_contributes_nothing():
    reference = pd.DataFrame({"x": [0.0, 4.0, 8.0], "z": [5.0, 5.0, np.nan]})
    query = pd.DataFrame({"x": [1.0], "z": [5.0]})
    nn = kneighbors(query, reference, k=3)
    # z: 0 between equal values (zero range), 1 against the missing one; x: |1 - x| / 8
    assert nn.indices.tolist() == [[0, 1, 2]]
    np.testing.assert_allclose(nn.distances, [[1 / 16, 3 / 16, (7 / 8 + 1) / 2]], atol=1e-12)
    want_d, _ = brute_knn(brute_gower(query, reference, [query, reference]), 3)
    np.testing.assert_allclose(nn.distances, want_d, atol=1e-12)


def test_integer_column_of_a_small_query_keeps_the_reference_kind():
    # 30 distinct ages make 'age' numeric; a one-row query must not turn it categorical
    reference = pd.DataFrame({"age": np.arange(20, 50), "sex": ["F", "M"] * 15})
    query = pd.DataFrame({"age": [21], "sex": ["M"]})
    nn = kneighbors(query, reference, k=2)
    # range 29: age 21 M is row 1 exactly, then rows 0 (20,F) and 2 (22,F) at (1/29 + 1)/2;
    # rows 3 (23,M) at (2/29)/2 is closer than both
    assert nn.indices.tolist() == [[1, 3]]
    np.testing.assert_allclose(nn.distances, [[0.0, 1 / 29]], atol=1e-12)


def test_ranges_from_a_stated_table():
    rng = np.random.default_rng(11)
    population = mixed_table(rng, 80, grid=False)
    query, reference = population.iloc[:20], population.iloc[40:60]
    encoder = TableEncoder(metric="gower").fit(population)
    want_d, _ = brute_knn(brute_gower(query, reference, [population]), 2)
    nn = kneighbors(query, reference, k=2, encoder=encoder)
    np.testing.assert_allclose(nn.distances, want_d, atol=1e-9)


@pytest.mark.parametrize("n_bins", [20, 3])
def test_hamming_matches_brute_force(n_bins):
    rng = np.random.default_rng(4)
    query, reference = mixed_table(rng, 30, grid=False), mixed_table(rng, 600, grid=False)
    want_d, want_i = brute_knn(brute_hamming(query, reference, [query, reference], n_bins), 3)
    encoder = TableEncoder(metric="hamming", n_bins=n_bins).fit(query, reference)
    nn = kneighbors(query, reference, k=3, metric="hamming", encoder=encoder)
    np.testing.assert_array_equal(nn.distances, want_d)  # counts are exact
    np.testing.assert_array_equal(nn.indices, want_i)
    if n_bins == 20:  # the default encoder bins into 20 on both tables
        default = kneighbors(query, reference, k=3, metric="hamming")
        np.testing.assert_array_equal(default.indices, nn.indices)


@pytest.mark.parametrize("metric, scipy_metric", [("l1", "cityblock"), ("l2", "euclidean")])
def test_l1_l2_match_scipy(metric, scipy_metric):
    rng = np.random.default_rng(6)
    a, b = rng.normal(size=(35, 5)), rng.normal(size=(70, 5))
    want_d, want_i = brute_knn(cdist(a, b, scipy_metric), 3)
    nn = kneighbors(a, b, k=3, metric=metric)
    np.testing.assert_allclose(nn.distances, want_d, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(nn.indices, want_i)
    # numeric DataFrames work too, with the reference's columns matched by name
    qa = pd.DataFrame(a, columns=list("abcde"))
    rb = pd.DataFrame(b, columns=list("abcde"))[list("edcba")]
    np.testing.assert_allclose(kneighbors(qa, rb, k=3, metric=metric).distances, want_d, atol=1e-9)


def test_l1_exact_ties_across_tiles():
    # a 3 x 3 x 3 grid drawn 800 times: every query has dozens of exact copies in many tiles
    rng = np.random.default_rng(10)
    a, b = rng.integers(0, 3, size=(60, 3)).astype(float), rng.integers(0, 3, size=(800, 3))
    want_d, want_i = brute_knn(cdist(a, b, "cityblock"), 5)
    nn = kneighbors(a, b, k=5, metric="l1")
    np.testing.assert_array_equal(nn.distances, want_d)
    np.testing.assert_array_equal(nn.indices, want_i)


def test_l2_leave_one_out_with_exact_ties():
    grid = np.array([[0, 0], [0, 1], [1, 0], [1, 1], [0, 0]], dtype=float)
    nn = kneighbors(grid, grid, k=3, metric="l2", exclude_self=True)
    # record 0 has a copy (4) at 0, then 1 and 2 at distance 1
    assert nn.indices.tolist()[0] == [4, 1, 2]
    assert nn.distances.tolist()[0] == [0.0, 1.0, 1.0]
    assert nn.indices.tolist()[3] == [1, 2, 0]
    np.testing.assert_allclose(nn.distances[3], [1.0, 1.0, math.sqrt(2)])


def test_nearest_distances_is_the_first_neighbour():
    rng = np.random.default_rng(9)
    query, reference = mixed_table(rng, 20), mixed_table(rng, 30)
    want_d, _ = brute_knn(brute_gower(query, reference, [query, reference]), 1)
    d = nearest_distances(query, reference)
    assert d.shape == (20,)
    np.testing.assert_allclose(d, want_d[:, 0], atol=1e-12)


# --------------------------------------------------------------------------------------------
# Blocks, threads, progress
# --------------------------------------------------------------------------------------------
def test_tiny_memory_bound_gives_identical_results(monkeypatch):
    rng = np.random.default_rng(12)
    query, reference = mixed_table(rng, 100), mixed_table(rng, 250)
    whole = kneighbors(query, reference, k=5)
    calls, query_calls = [], []
    original = sources_module._TableSource.reference_block
    original_query = sources_module._TableSource.query_block

    def counting(self, start, stop):
        calls.append((start, stop))
        return original(self, start, stop)

    def counting_queries(self, start, stop):
        query_calls.append((start, stop))
        return original_query(self, start, stop)

    monkeypatch.setattr(sources_module._TableSource, "reference_block", counting)
    monkeypatch.setattr(sources_module._TableSource, "query_block", counting_queries)
    blocked = kneighbors(query, reference, k=5, max_memory_mb=0.01)
    blocks = sorted(set(calls))
    # several reference blocks that tile the table, each within the budget (4 float64 columns)
    # and prepared once; the several query blocks are encoded again for each of them
    assert len(blocks) > 1 and blocks[0][0] == 0 and blocks[-1][1] >= 250
    assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    assert max(stop - start for start, stop in blocks) * 4 * 8 <= 0.01 * 2**20
    assert len(calls) == len(blocks)
    query_blocks = set(query_calls)
    assert len(query_blocks) > 1 and len(query_calls) == len(query_blocks) * len(blocks)
    np.testing.assert_array_equal(blocked.distances, whole.distances)
    np.testing.assert_array_equal(blocked.indices, whole.indices)
    # leave-one-out across block borders
    loo = kneighbors(reference, reference, k=2, exclude_self=True)
    loo_blocked = kneighbors(reference, reference, k=2, exclude_self=True, max_memory_mb=0.01)
    np.testing.assert_array_equal(loo_blocked.indices, loo.indices)
    np.testing.assert_array_equal(loo_blocked.distances, loo.distances)


def test_threads_and_progress_do_not_change_results(capsys):
    rng = np.random.default_rng(13)
    a, b = rng.integers(0, 3, size=(200, 3)).astype(float), rng.integers(0, 3, size=(300, 3))
    one = kneighbors(a, b, k=4, metric="l1", n_jobs=1)
    every = kneighbors(a, b, k=4, metric="l1", n_jobs=-1, progress=True)
    np.testing.assert_array_equal(one.indices, every.indices)
    np.testing.assert_array_equal(one.distances, every.distances)
    assert "nearest neighbours" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------
def _frames():
    return (
        pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "a"]}),
        pd.DataFrame({"x": [1.5, 2.5], "c": ["b", "a"]}),
    )


@pytest.mark.parametrize(
    "change, match",
    [
        (dict(reference=pd.DataFrame({"x": [1.0], "d": ["a"]})), r"\['c'\] only in `query`"),
        (dict(reference=pd.DataFrame({"x": ["a", "b"], "c": ["b", "a"]})), "column 'x'"),
        (dict(reference=pd.DataFrame({"x": [1.0, "b"], "c": ["b", "a"]})), "column 'x'.*mixes"),
        (dict(k=3), r"`k` = 3 is larger than the 2 record"),
        (dict(k=0), "`k` must be a positive integer"),
        (dict(k=1.0), "`k` must be a positive integer"),
        (dict(metric="cosine"), "`metric` must be one of"),
        (dict(exclude_self=True), "`exclude_self=True` needs"),
        (dict(max_memory_mb=0), "`max_memory_mb`"),
        (dict(n_jobs=0), "`n_jobs`"),
        (dict(query=pd.DataFrame({"x": [], "c": []})), "`query` has 0 row"),
        (dict(query=[[1.0, 2.0]]), "`query` must be a pandas DataFrame"),
        (dict(encoder=TableEncoder(metric="hamming")), "built for metric 'hamming'"),
        (dict(encoder=TableEncoder()), "not fitted"),
        (dict(query=pd.DataFrame({"x": [np.inf], "c": ["a"]})), "column 'x' of `query`.*infinite"),
    ],
)
def test_bad_table_input_names_the_problem(change, match):
    query, reference = _frames()
    kwargs = dict(query=query, reference=reference)
    kwargs.update(change)
    with pytest.raises(PrivlibError, match=match):
        kneighbors(**kwargs)


def test_k_too_large_with_leave_one_out():
    query, _ = _frames()
    with pytest.raises(PrivlibError, match=r"`k` = 3 is larger than the 3 - 1 = 2 other"):
        kneighbors(query, query, k=3, exclude_self=True)


@pytest.mark.parametrize(
    "query, reference, kwargs, match",
    [
        ([[1.0, np.nan]], [[1.0, 2.0]], {}, "`query` holds missing or infinite values"),
        ([[1.0, 2.0]], [[1.0, 2.0, 3.0]], {}, "`query` has 2 columns but `reference` has 3"),
        ([1.0, 2.0], [[1.0]], {}, "`query` must be 2-D"),
        ([["a", "b"]], [[1.0, 2.0]], {}, "`query` must hold numbers"),
        (
            pd.DataFrame({"a": [1.0], "b": ["x"]}),
            pd.DataFrame({"a": [1.0], "b": ["y"]}),
            {},
            "column 'b' of `query` is not numeric",
        ),
        ([[1.0]], [[1.0]], {"encoder": TableEncoder()}, "`encoder` applies to 'gower'"),
    ],
)
def test_bad_array_input_names_the_problem(query, reference, kwargs, match):
    with pytest.raises(PrivlibError, match=match):
        kneighbors(query, reference, metric="l1", **kwargs)


# --------------------------------------------------------------------------------------------
# Searches within a bound
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("exclude_self", [False, True])
@pytest.mark.parametrize("metric", ["gower", "l2"])
def test_a_bounded_search_lists_the_brute_force_neighbours_within_the_bound(exclude_self, metric):
    # on a grid, distances are exact and many records sit exactly at a bound: they are listed
    rng = np.random.default_rng(21)
    if metric == "gower":
        reference = mixed_table(rng, 700, nan_share=0.0)
        query = reference if exclude_self else mixed_table(rng, 60, nan_share=0.0)
        full = brute_gower(query, reference, [query, reference])
    else:  # whole numbers: equal sums of squares are equal distances
        reference = pd.DataFrame(rng.integers(0, 40, (700, 2)).astype(float), columns=["x", "y"])
        query = (
            reference
            if exclude_self
            else pd.DataFrame(rng.integers(0, 40, (60, 2)).astype(float), columns=["x", "y"])
        )
        full = cdist(query.to_numpy(), reference.to_numpy())
    want_d, want_i = brute_knn(full, 4, exclude_self)
    within = rng.choice([0.0, *np.quantile(want_d, [0.25, 0.5]), np.inf], len(query))
    listed = want_d <= within[:, None]
    nn = kneighbors(query, reference, k=4, metric=metric, exclude_self=exclude_self, within=within)
    np.testing.assert_array_equal(nn.indices, np.where(listed, want_i, -1))
    np.testing.assert_allclose(nn.distances, np.where(listed, want_d, np.inf), rtol=0, atol=1e-12)
    assert 0 < listed.mean() < 1  # some rows cut short, some not


@pytest.mark.parametrize("within", [[0.1], [0.1, -1.0], [0.1, np.nan], "near"])
def test_a_bad_bound_names_the_problem(within):
    table = pd.DataFrame({"x": [0.0, 1.0]})
    with pytest.raises(PrivlibError, match="`within` must hold one non-negative distance"):
        kneighbors(table, table, within=within)
