"""Exact k-nearest neighbours between two tables, in memory-bounded blocks.

Every distance-based measure of the kit asks the same question: for each record of one table,
which records of another table are closest, and how close are they. This module answers it
exactly for four metrics:

``"gower"``
    mean over variables of the per-variable distance (Gower 1971): ``|a - b| / range`` for a
    numeric variable (range from the tables the encoder is fitted on), 0 or 1 for a categorical
    one. Values 0..1.
``"hamming"``
    number of variables that differ, numeric variables first cut into equal-width bins (20 by
    default, as El Emam et al. do).
``"l1"``, ``"l2"``
    Manhattan and Euclidean distance between numeric arrays, taken as they are.

Missing values (Gower and Hamming): missing equals missing, missing against a value counts 1.

Both table-based metrics go through :class:`privlib.schema.TableEncoder`, which reduces them to
one formula ``sum_k w_k * min(|a_k - b_k|, cap) / scale``; L1 is the same formula with no cap.
The search never holds the ``n_query x n_reference`` distance matrix: it walks the tables in
blocks sized from ``max_memory_mb``.

Beyond one machine, ``kneighbors(..., client=client)`` runs the same search on a Dask cluster
(``dask.distributed``, the optional ``dask`` extra): the reference is encoded, sorted and tiled
once here and scattered to every worker, blocks of encoded queries are mapped to the workers,
and the results are gathered in query order. Each worker runs the same kernel, and ties go to
the lower reference row whatever the order of the visits, so the result is the local one, bit
for bit.
"""

from __future__ import annotations

import mmap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral, Real
from typing import cast

import numba
import numpy as np
import pandas as pd
from numba import njit, prange

from privlib import search_reuse
from privlib.errors import DataError, ParameterError
from privlib.schema import NUMERIC, TableEncoder, check_frame, check_same_columns

METRICS = ("gower", "hamming", "l1", "l2")

_BYTES = 8  # every working array is float64 or int64


@dataclass(frozen=True, eq=False)  # eq=False: comparing arrays with == has no single truth value
class Neighbors:
    """The k nearest reference records of each query record.

    Attributes
    ----------
    distances : numpy.ndarray of shape (n_query, k), float64
        Distances to the neighbours, ascending along each row.
    indices : numpy.ndarray of shape (n_query, k), int64
        Positional row numbers (0-based, as in ``reference.iloc``) of the neighbours; among equal
        distances the lower row number comes first.
    """

    distances: np.ndarray
    indices: np.ndarray


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------
def kneighbors(
    query,
    reference,
    *,
    k=1,
    metric="gower",
    encoder=None,
    exclude_self=False,
    within=None,
    max_memory_mb=256,
    n_jobs=None,
    progress=False,
    client=None,
) -> Neighbors:
    """Find the ``k`` nearest records of ``reference`` for every record of ``query``, exactly.

    Parameters
    ----------
    query : pandas.DataFrame or array-like of shape (n_query, p)
        The records whose neighbours are wanted. A DataFrame for ``"gower"`` and ``"hamming"``;
        a numeric DataFrame or 2-D numeric array for ``"l1"`` and ``"l2"``.
    reference : pandas.DataFrame or array-like of shape (n_reference, p)
        The records searched, with the same columns as ``query`` (in any order).
    k : int, default 1
        Number of neighbours per query record; at most ``n_reference`` (``n_reference - 1`` with
        ``exclude_self``).
    metric : {"gower", "hamming", "l1", "l2"}, default "gower"
        The distance; see the module documentation.
    encoder : privlib.schema.TableEncoder, optional
        A fitted encoder whose metric matches ``metric``; it fixes the Gower ranges or the
        Hamming bins (e.g. fitted on the population, or on training, holdout and synthetic data
        together). By default one is fitted on ``query`` and ``reference`` together. Not used
        for ``"l1"`` and ``"l2"``.
    exclude_self : bool, default False
        ``query`` and ``reference`` are the same table and each record is left out of its own
        neighbour list (leave-one-out, e.g. the distance from a record to its nearest *other*
        record in adversarial accuracy). Other records identical to it still count.
    within : array-like of shape (n_query,), optional
        List only the reference records at distance at most ``within[i]`` from query record
        ``i`` (``inf`` for no bound): a row with fewer such records holds distance ``inf`` and
        index ``-1`` after them. Every farther tile is skipped from the start, so a search that
        only needs to know what lies closer than a known distance costs less. The neighbours
        listed are those of the unbounded search that lie within the bound, distances included.
    max_memory_mb : float, default 256
        Bound on the working memory of the search: the encoded blocks of the two tables (a
        reference larger than half of it is taken in several blocks, each prepared once, and
        the queries are encoded again for each of them) and the threads' buffers. The inputs and the outputs
        (``16 * n_query * k`` bytes) come on top, and so do the prepared references a
        :func:`privlib.search_reuse.reuse_searches` block keeps (within its own budget); no
        ``n_query x n_reference`` array is made.
    n_jobs : int, optional
        Threads to use; ``None`` or ``-1`` uses every core available to numba.
    progress : bool, default False
        Show a tqdm progress bar over the blocks.
    client : dask.distributed.Client, optional
        Run the search on a Dask cluster (needs the ``dask`` extra: ``pip install
        privlib[dask]``). The encoded reference and its tiles are prepared here and scattered
        once to every worker; blocks of encoded queries are mapped to the workers and the
        results gathered in order. Each worker runs the same kernel with ``n_jobs`` threads
        (default: its own number of threads), so the result is identical, bit for bit, to the
        local search.

    Returns
    -------
    Neighbors
        ``distances`` and ``indices``, both of shape ``(n_query, k)``.

    Raises
    ------
    PrivlibError
        If a table is empty or not a table, the columns differ, a numeric column holds
        non-numeric or infinite values, ``k`` is not an integer in range, ``metric`` is unknown,
        the encoder does not match the metric, ``exclude_self`` is set for different tables, or
        ``within`` is not one non-negative number per query record.

    Notes
    -----
    Distances are summed in float64 in column order; the result equals a brute-force
    computation up to rounding (about 1e-15). Ties are broken by the lower reference row
    number, whatever the block sizes, number of threads or Dask workers.

    The search is brute force with exact pruning: the reference is sorted and cut into tiles
    of consecutive records, each with a bounding box, and a tile whose lower bound is above a
    query's current k-th distance is skipped, the idea of the bounds of k-d trees (Friedman,
    Bentley and Finkel 1977, ACM Trans. Math. Software 3(3)). So is a tile whose bound equals
    the k-th distance when all its records have higher row numbers than the k-th neighbour
    (they would lose the tie), which keeps the search fast on tables where many records share
    every value. On tables with shared categories, such as Adult, most tiles are skipped; on
    structureless continuous data little is, and the search costs about what a plain scan does.

    Inside :func:`privlib.search_reuse.reuse_searches` (as in an audit), a search already made on
    the same tables and encoder for ``k`` or more neighbours, within the same or wider bounds,
    returns the earlier result (its first ``k`` columns, cut at ``within``), with read-only arrays;
    and a reference an earlier search prepared (encoded, sorted and tiled), with the same encoder
    and ``max_memory_mb``, is searched without preparing it again, with the same result.

    Examples
    --------
    >>> import pandas as pd
    >>> ref = pd.DataFrame({"age": [20.0, 30.0, 60.0], "sex": ["F", "M", "F"]})
    >>> nn = kneighbors(ref.iloc[[0]], ref, k=2)
    >>> nn.indices.tolist(), nn.distances.round(3).tolist()
    ([[0, 2]], [[0.0, 0.5]])
    """
    if metric not in METRICS:
        raise ParameterError(f"`metric` must be one of {list(METRICS)}, got {metric!r}.")
    budget = _check_memory(max_memory_mb)
    threads = _check_jobs(n_jobs)
    if metric in ("gower", "hamming"):
        tables: _TableSource | _ArraySource = _TableSource(query, reference, metric, encoder, exclude_self)
    else:
        if encoder is not None:
            raise ParameterError(
                f"`encoder` applies to 'gower' and 'hamming' only; drop it for metric {metric!r}."
            )
        tables = _ArraySource(query, reference, exclude_self)
    k = _check_k(k, tables.n_reference, exclude_self)
    bound = _check_within(within, tables.n_query)
    searches = search_reuse.active()
    if searches is not None:
        key = searches.key(
            query, reference, getattr(tables, "encoder", None), metric=metric, exclude_self=exclude_self
        )
        found = searches.get(key, k, bound)
        if found is not None:
            return found
    if client is not None:
        result = _search_on_cluster(tables, k, metric, budget, n_jobs, progress, client, bound)
    else:
        result = _search(tables, k, metric, budget, threads, progress, bound)
    if searches is not None:
        searches.keep(key, result, bound)
    return result


def nearest_distances(
    query,
    reference,
    *,
    metric="gower",
    encoder=None,
    exclude_self=False,
    within=None,
    max_memory_mb=256,
    n_jobs=None,
    progress=False,
    client=None,
) -> np.ndarray:
    """Distance from each ``query`` record to its nearest ``reference`` record.

    The same search as :func:`kneighbors` with ``k=1``; see there for the parameters.

    Returns
    -------
    numpy.ndarray of shape (n_query,), float64
        ``inf`` where no record lies ``within`` the query's bound.
    """
    return kneighbors(
        query,
        reference,
        k=1,
        metric=metric,
        encoder=encoder,
        exclude_self=exclude_self,
        within=within,
        max_memory_mb=max_memory_mb,
        n_jobs=n_jobs,
        progress=progress,
        client=client,
    ).distances[:, 0]


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------
def _check_k(k, n_reference: int, exclude_self: bool) -> int:
    if isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
        raise ParameterError(f"`k` must be a positive integer, got {k!r}.")
    available = n_reference - 1 if exclude_self else n_reference
    # An Integral compares as an int does; typeshed's numbers.Integral declares only < and <=.
    if cast(int, k) > available:
        what = f"{n_reference} - 1 = {available} other" if exclude_self else f"{available}"
        raise DataError(
            f"`k` = {k} is larger than the {what} record(s) of `reference`; "
            f"ask for at most {available} neighbour(s)."
        )
    return int(k)


def _check_within(within, n_query: int) -> np.ndarray | None:
    if within is None:
        return None
    try:
        bound = np.asarray(within, dtype="float64")
    except (TypeError, ValueError):
        bound = None
    if bound is None or bound.shape != (n_query,) or np.isnan(bound).any() or (bound < 0).any():
        raise ParameterError(
            f"`within` must hold one non-negative distance (or inf) per query record, {n_query} in "
            "all; pass an array of that length or leave it None."
        )
    return bound


def _check_memory(max_memory_mb) -> int:
    # A Real computes as a float does; typeshed's numbers.Real declares only < and <= and vague arithmetic.
    if (
        isinstance(max_memory_mb, bool)
        or not isinstance(max_memory_mb, Real)
        or not (cast(float, max_memory_mb) > 0 and np.isfinite(cast(float, max_memory_mb)))
    ):
        raise ParameterError(f"`max_memory_mb` must be a positive number, got {max_memory_mb!r}.")
    return int(cast(float, max_memory_mb) * 2**20)


def _check_jobs(n_jobs) -> int:
    available = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba.config sets it at run time, unseen by its type hints
    if n_jobs is None or (not isinstance(n_jobs, bool) and n_jobs == -1):
        return available
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs < 1:
        raise ParameterError(f"`n_jobs` must be a positive integer, -1 or None, got {n_jobs!r}.")
    return min(int(n_jobs), available)


# --------------------------------------------------------------------------------------------
# Sources: turn the two inputs into encoded float64 blocks on demand
# --------------------------------------------------------------------------------------------
class _TableSource:
    """DataFrames encoded by a TableEncoder, a block of rows at a time."""

    def __init__(self, query, reference, metric, encoder, exclude_self):
        # a column missing in every record of one table still has distances (missing vs value)
        check_frame(query, "query", allow_missing_columns=True)
        check_frame(reference, "reference", allow_missing_columns=True)
        columns = check_same_columns(query, reference, ("query", "reference"))
        if encoder is None:
            encoder = TableEncoder(metric=metric, columns=columns).fit(
                query, reference, names=["query", "reference"]
            )
        elif not isinstance(encoder, TableEncoder):
            raise ParameterError(
                f"`encoder` must be a fitted privlib.schema.TableEncoder, got {type(encoder).__name__}."
            )
        elif encoder.metric != metric:
            raise ParameterError(
                f"`encoder` was built for metric {encoder.metric!r} but `metric` is {metric!r}; "
                f"fit a TableEncoder(metric={metric!r})."
            )
        elif not encoder.kinds_:
            raise ParameterError("`encoder` is not fitted yet; call encoder.fit(...) first.")
        elif sorted(map(str, encoder.columns_)) != sorted(map(str, columns)):
            raise ParameterError(
                f"`encoder` encodes columns {list(encoder.columns_)} but the tables have "
                f"{columns}; fit the encoder on tables with the same columns."
            )
        self.encoder = encoder
        self.query, self.reference = query, reference
        self.n_query, self.n_reference = len(query), len(reference)
        self.n_features = len(encoder.columns_)
        self.weights = encoder.feature_weights
        if not (np.isfinite(self.weights).all() and (self.weights >= 0).all()):
            raise ParameterError(
                f"`encoder` has weights {self.weights.tolist()}; Gower weights must be finite "
                "and non-negative."
            )
        self.cap, self.scale = encoder.cap, encoder.scale
        # Category codes (and Hamming bins) are whole numbers, so min(|a - b|, 1) is exactly
        # "a differs from b": the kernel tests that instead, which costs fewer instructions.
        self.codes = np.array([metric == "hamming" or encoder.kinds_[c] != NUMERIC for c in encoder.columns_])
        self.exclude_self = bool(exclude_self)
        if exclude_self:
            _check_same(query is reference or query.equals(reference))

    def query_block(self, start, stop):
        return self.encoder.transform(self.query.iloc[start:stop], "query")

    def reference_block(self, start, stop):
        return self.encoder.transform(self.reference.iloc[start:stop], "reference")


class _ArraySource:
    """Numeric arrays (or numeric DataFrames) for L1 and L2, used as they are."""

    def __init__(self, query, reference, exclude_self):
        same = query is reference
        if isinstance(query, pd.DataFrame) and isinstance(reference, pd.DataFrame):
            columns = check_same_columns(query, reference, ("query", "reference"))
            reference = reference[columns]
        self.query = _numeric_array(query, "query")
        self.reference = self.query if same else _numeric_array(reference, "reference")
        if self.query.shape[1] != self.reference.shape[1]:
            raise DataError(
                f"`query` has {self.query.shape[1]} columns but `reference` has "
                f"{self.reference.shape[1]}; pass arrays with the same columns."
            )
        self.n_query, self.n_reference = len(self.query), len(self.reference)
        self.n_features = self.query.shape[1]
        self.weights = np.ones(self.n_features)
        self.cap, self.scale = np.inf, 1.0
        self.codes = np.zeros(self.n_features, dtype=bool)
        self.exclude_self = bool(exclude_self)
        if exclude_self:
            _check_same(same or np.array_equal(self.query, self.reference))

    def query_block(self, start, stop):
        return self.query[start:stop]

    def reference_block(self, start, stop):
        return self.reference[start:stop]


def _check_same(same: bool) -> None:
    if not same:
        raise ParameterError(
            "`exclude_self=True` needs `query` and `reference` to be the same table; pass the "
            "same table twice, or set exclude_self=False."
        )


def _numeric_array(data, name: str) -> np.ndarray:
    if isinstance(data, pd.DataFrame):
        check_frame(data, name)
        for column in data.columns:
            if not pd.api.types.is_numeric_dtype(data[column].dtype):
                raise DataError(
                    f"column {column!r} of `{name}` is not numeric ({data[column].dtype}); "
                    "L1 and L2 need numbers: encode it first, or use metric='gower'."
                )
        data = data.to_numpy(dtype="float64", na_value=np.nan)
    try:
        array = np.asarray(data, dtype="float64")
    except (TypeError, ValueError) as error:
        raise DataError(
            f"`{name}` must hold numbers only for L1 and L2 ({error}); encode it first, or use "
            "metric='gower'."
        ) from None
    if array.ndim != 2:
        raise ParameterError(
            f"`{name}` must be 2-D (records x features), got {array.ndim} dimension(s); "
            "use array.reshape(-1, 1) for a single feature."
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise DataError(f"`{name}` is empty (shape {array.shape}); pass at least one record.")
    if not np.isfinite(array).all():
        raise DataError(
            f"`{name}` holds missing or infinite values; L1 and L2 need complete data: impute "
            "them, or use metric='gower', which handles missing values."
        )
    return np.ascontiguousarray(array)


# --------------------------------------------------------------------------------------------
# The search
# --------------------------------------------------------------------------------------------
# How it works. The reference block is sorted on its columns (coarse codes first), so that each
# tile of consecutive sorted records shares values, and each tile gets a bounding box (lowest
# and highest code per feature). The box gives, for a query record, a lower bound on its
# distance to every record of the tile, computed with the same floating-point operations in the
# same order as the distance itself, so that the bound never exceeds a computed distance. A
# tile whose bound is above the query's current k-th distance cannot hold a neighbour and is
# skipped; tiles are visited in increasing order of their bound, so the search stops at the
# first tile that no query of the group of queries needs. Tiles that are visited are scanned in
# full, one vectorised pass per feature. The result is exact, and because ties are settled by
# the reference index (not by the visiting order), it does not depend on sorting, blocks or
# threads.

#: Query records per kernel call: small enough for a progress bar to move, large enough that
#: the threads have plenty of groups of queries to share.
_QUERY_BLOCK = 8192
#: Query records (a group) that share one visit of a reference tile while it sits in cache.
_QUERY_TILE = 32
#: Reference records per tile: small tiles have tight bounds, large ones cheap bookkeeping.
_REFERENCE_TILE = 256
#: Groups of queries handed to a thread at a time: their costs differ, so they are shared out
#: dynamically rather than split in equal halves.
_CHUNK = 2


def _plan(budget: int, n_query: int, n_reference: int, p: int) -> tuple[int, int]:
    """Rows per query block and per reference block so that the working memory fits ``budget``.

    Half of the budget goes to the reference block and half to the query block; each is
    counted three times, because encoding, sorting and transposing a block briefly hold copies
    of it. The per-thread buffers (bounds of one group of queries: one byte per reference
    record) are small beside the blocks.
    """
    row_bytes = 3 * _BYTES * p
    ref_rows = max(1, min(n_reference, budget // 2 // row_bytes))
    query_rows = max(1, min(n_query, _QUERY_BLOCK, budget // 2 // row_bytes))
    return query_rows, ref_rows


def _sort_order(block: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """Row order of ``block`` sorted on the columns ``keys`` (first key first)."""
    return np.lexsort(block.T[keys[::-1]]).astype(np.int64)


def _sort_keys(block: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Columns to sort on: codes with the fewest distinct values first, then numbers.

    Coarse codes first make long runs of records that agree on several variables, so that the
    tiles' bounding boxes are tight.
    """
    coded = np.flatnonzero(codes)
    distinct = [len(np.unique(block[:, c])) for c in coded]
    keys = np.concatenate([coded[np.argsort(distinct, kind="stable")], np.flatnonzero(~codes)])
    keys.setflags(write=False)  # kept with the prepared reference it sorts
    return keys


@dataclass(frozen=True)
class _Settings:
    """What the kernel needs besides the data: the metric's per-feature terms and the sort keys."""

    weights: np.ndarray
    codes: np.ndarray
    cap: float
    squared: bool
    keys: np.ndarray


def _prepare_reference(block: np.ndarray, keys: np.ndarray):
    """A reference block sorted on ``keys``, feature-major, with its tiles' bounding boxes, as
    read-only arrays (a search may keep them for the next, see :func:`_reference_blocks`)."""
    order = _sort_order(block, keys)
    rows, p = block.shape
    starts = np.arange(0, rows, _REFERENCE_TILE)
    tiles = len(starts)
    # The block's arrays share one anonymous memory mapping of their own. A kept reference lives
    # through the searches and measures that follow; on the heap it would hold on to the memory
    # freed around it (measured on a 1M-record audit keeping 245 MiB: the peak grew by 440 MiB
    # with the arrays on the heap, by 300 MiB in mappings); a mapping goes back when dropped.
    space = np.frombuffer(mmap.mmap(-1, _prepared_bytes(rows, p, rows)), dtype=np.float64)
    values, row_numbers, low, high, first = np.split(space, np.cumsum([p * rows, rows, tiles * p, tiles * p]))
    # feature-major, so that the kernel's inner loop runs over contiguous reference records
    sorted_t = values.reshape(p, rows)
    sorted_t[...] = block[order].T
    ordered = row_numbers.view(np.int64)
    ordered[...] = order
    low, high, first = low.reshape(tiles, p), high.reshape(tiles, p), first.view(np.int64)
    low[...] = np.minimum.reduceat(sorted_t, starts, axis=1).T
    high[...] = np.maximum.reduceat(sorted_t, starts, axis=1).T
    first[...] = np.minimum.reduceat(order, starts)  # each tile's lowest row number
    prepared = (sorted_t, ordered, low, high, first)
    for array in prepared:
        array.setflags(write=False)
    return prepared


def _prepared_bytes(n_reference: int, p: int, ref_rows: int) -> int:
    """Bytes of a reference of ``p`` variables prepared in blocks of ``ref_rows`` records by
    :func:`_prepare_reference`: per record its values and row number, per tile its two boxes and
    lowest row number."""
    size = 0
    for start in range(0, n_reference, ref_rows):
        rows = min(ref_rows, n_reference - start)
        tiles = -(-rows // _REFERENCE_TILE)
        size += _BYTES * (rows * (p + 1) + tiles * (2 * p + 1))
    return size


def _reference_blocks(tables, metric, ref_rows) -> Iterator[tuple[_Settings, int, tuple]]:
    """The reference prepared a block of ``ref_rows`` records at a time, with the kernel's
    settings: ``(settings, first row of the block, prepared block)``.

    Inside :func:`privlib.search_reuse.reuse_searches`, a reference an earlier search of the
    block prepared the same way (same values, encoder, metric and rows per block) is read from
    there, and one prepared here is kept there if it fits the block's budget (its blocks are then
    held until the search ends). Otherwise each block is dropped once searched.
    """
    searches = search_reuse.active()
    size = _prepared_bytes(tables.n_reference, tables.n_features, ref_rows)
    key = None
    if searches is not None and size <= searches.reference_budget_bytes:
        key = searches.reference_key(
            tables.reference, getattr(tables, "encoder", None), metric=metric, rows=ref_rows
        )
        found = searches.prepared_reference(key)
        if found is not None:
            keys, blocks = found
            settings = _settings(tables, metric, keys)
            for offset, prepared in blocks:
                yield settings, offset, prepared
            return
        searches.room_for_reference(size)
    keys = None
    kept = []
    for offset in range(0, tables.n_reference, ref_rows):
        block = tables.reference_block(offset, offset + ref_rows)
        if keys is None:  # the sort keys come from the first block
            keys = _sort_keys(block, tables.codes)
            settings = _settings(tables, metric, keys)
        prepared = _prepare_reference(block, keys)
        del block
        if key is not None:
            kept.append((offset, prepared))
        yield settings, offset, prepared
    if searches is not None and key is not None:
        searches.keep_reference(key, (keys, tuple(kept)), size)


def _merge_block(xq, self_offset, prepared_blocks, settings, distances, indices):
    """Merge the neighbours of one encoded query block in each prepared reference block, in place.

    ``prepared_blocks`` yields ``(ref_offset, prepared)`` pairs; ``self_offset`` is the query
    block's first row in the reference (leave-one-out) or -1.
    """
    xq = np.ascontiguousarray(xq)
    query_order = _sort_order(xq, settings.keys)
    for ref_offset, (yt, ref_order, low, high, first) in prepared_blocks:
        with numba.parallel_chunksize(_CHUNK):
            _knn_kernel(
                xq,
                query_order,
                yt,
                ref_order,
                low,
                high,
                first,
                ref_offset,
                self_offset,
                settings.weights,
                settings.codes,
                settings.cap,
                settings.squared,
                distances,
                indices,
            )


def _settings(tables, metric, keys) -> _Settings:
    return _Settings(
        weights=tables.weights,
        codes=tables.codes,
        cap=float(tables.cap),
        squared=metric == "l2",
        keys=keys,
    )


#: The row number of a neighbour not found yet within a query's bound: above every real row, so
#: a record at exactly the bound still enters the list and no tile at the bound is skipped.
_NOT_FOUND = np.iinfo(np.int64).max


def _start(n_query, k, metric, tables, bound):
    """The running top-k before any reference record is seen: empty, or filled up to the bound.

    The kernel holds sums before the final ``sqrt`` / ``scale``; the bound is taken to that scale
    and widened by a relative 1e-9, more than the rounding of that conversion, so that no record
    within the bound is missed; :func:`_finish` drops those beyond it.
    """
    distances = np.full((n_query, k), np.inf)
    indices = np.full((n_query, k), -1, dtype=np.int64)
    if bound is not None:
        raw = bound * tables.scale
        if metric == "l2":
            raw = raw * raw
        distances[:] = (raw * (1 + 1e-9))[:, None]
        indices[:] = _NOT_FOUND
    return distances, indices


def _finish(distances, indices, metric, tables, bound=None) -> Neighbors:
    if metric == "l2":
        np.sqrt(distances, out=distances)
    if tables.scale != 1.0:
        distances /= tables.scale
    if bound is not None:
        beyond = (indices == _NOT_FOUND) | (distances > bound[:, None])
        distances[beyond] = np.inf
        indices[beyond] = -1
    return Neighbors(distances=distances, indices=indices)


def _search(tables, k, metric, budget, threads, progress, bound=None) -> Neighbors:
    n_query, n_reference = tables.n_query, tables.n_reference
    query_rows, ref_rows = _plan(budget, n_query, n_reference, tables.n_features)
    ref_starts = range(0, n_reference, ref_rows)
    query_starts = range(0, n_query, query_rows)
    distances, indices = _start(n_query, k, metric, tables, bound)
    bar = _progress_bar(progress, len(query_starts) * len(ref_starts))
    previous_threads = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        # Each reference block is encoded, sorted and tiled once (or read from an earlier search),
        # and every query block merges its neighbours in it; a reference in several blocks has the
        # queries encoded once per block, far cheaper than preparing every reference block again
        # for each query block.
        for settings, r0, prepared in _reference_blocks(tables, metric, ref_rows):
            for q0 in query_starts:
                q1 = min(q0 + query_rows, n_query)
                _merge_block(
                    tables.query_block(q0, q1),
                    q0 if tables.exclude_self else -1,
                    [(r0, prepared)],
                    settings,
                    distances[q0:q1],
                    indices[q0:q1],
                )
                if bar is not None:
                    bar.update()
    finally:
        numba.set_num_threads(previous_threads)
        if bar is not None:
            bar.close()
    return _finish(distances, indices, metric, tables, bound)


# --------------------------------------------------------------------------------------------
# The search on a Dask cluster
# --------------------------------------------------------------------------------------------
#: One kernel call at a time per worker process: numba's default threading layer does not allow
#: two Python threads in parallel regions at once, and each call already uses the worker's threads.
_WORKER_LOCK = threading.Lock()


def _worker_block(xq, self_offset, prepared_blocks, settings, start, n_jobs):
    """Run on a Dask worker: the neighbours of one encoded query block, as (distances, indices),
    merged into ``start``, the block's running top-k before any reference record is seen."""
    from distributed import get_worker

    threads = get_worker().state.nthreads if n_jobs is None else n_jobs
    distances, indices = (array.copy() for array in start)
    with _WORKER_LOCK:
        previous = numba.get_num_threads()
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]  # as above
        try:
            _merge_block(xq, self_offset, prepared_blocks, settings, distances, indices)
        finally:
            numba.set_num_threads(previous)
    return distances, indices


def _search_on_cluster(tables, k, metric, budget, n_jobs, progress, client, bound=None) -> Neighbors:
    """The search of :func:`_search`, with query blocks mapped to the workers of ``client``.

    Every prepared reference block is scattered once to every worker (``broadcast=True``), so
    the cluster holds the whole encoded reference; the client holds one block at a time. Each
    scatter gets a key of its own (``hash=False``): with keys hashed from the content, the same
    reference scattered by two searches in a row (a measure searching one table twice) shares a
    key, and the first search's release of it can reach the scheduler after the second search has
    scattered it, which cancels the second search's tasks ("lost dependencies"; dask/distributed
    issue 4612), more often the busier the machine.
    """
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ParameterError(
            "`client` needs Dask: pip install 'privlib[dask]' (dask[distributed]), or leave "
            "client=None for the local search."
        ) from None
    if not isinstance(client, Client):
        raise ParameterError(f"`client` must be a dask.distributed.Client, got {type(client).__name__}.")
    _check_jobs(n_jobs)
    # threads per task: the worker's own count unless n_jobs says otherwise (each worker caps it)
    workers = None if n_jobs is None or n_jobs == -1 else int(n_jobs)
    n_query, n_reference = tables.n_query, tables.n_reference
    query_rows, ref_rows = _plan(budget, n_query, n_reference, tables.n_features)
    reference, settings = [], None
    for block_settings, r0, prepared in _reference_blocks(tables, metric, ref_rows):
        settings = block_settings  # the same for every block
        reference.append((r0, client.scatter(prepared, broadcast=True, hash=False)))
    settings_future = client.scatter(settings, broadcast=True, hash=False)
    start = _start(n_query, k, metric, tables, bound)
    futures = [
        client.submit(
            _worker_block,
            tables.query_block(q0, min(q0 + query_rows, n_query)),
            q0 if tables.exclude_self else -1,
            reference,
            settings_future,
            tuple(array[q0 : q0 + query_rows] for array in start),
            workers,
            pure=False,
        )
        for q0 in range(0, n_query, query_rows)
    ]
    bar = _progress_bar(progress, len(futures))
    if bar is not None:
        for _ in as_completed(futures):
            bar.update()
        bar.close()
    parts = client.gather(futures)
    distances = np.concatenate([d for d, _ in parts])
    indices = np.concatenate([i for _, i in parts])
    return _finish(distances, indices, metric, tables, bound)


def _progress_bar(progress, total):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="block", desc="nearest neighbours")


@njit(cache=True, nogil=True)
def _lower_bounds(xg, low, high, weights, codes, cap, squared, out):
    """Bound on the distance from each query of a group to any record of each tile, in ``out``.

    ``xg`` holds the group feature-major ``(p, r)``, ``low`` and ``high`` the tiles' boxes
    ``(t, p)``; ``out`` is ``(t, r)``. Each term is no larger than the kernel's term for any
    record inside the box, and the terms are added in the same order, so a bound never exceeds
    a distance the kernel computes (floating-point rounding is monotone).
    """
    p, r = xg.shape
    for t in range(low.shape[0]):
        bound = out[t]
        bound[:] = 0.0
        for f in range(p):
            lo, hi, w, x = low[t, f], high[t, f], weights[f], xg[f]
            # the distance from a to the interval [lo, hi], without branches so it vectorises
            if squared:
                for q in range(r):
                    gap = max(max(lo - x[q], x[q] - hi), 0.0)
                    bound[q] += gap * gap
            elif codes[f]:
                for q in range(r):
                    bound[q] += w if (x[q] < lo or x[q] > hi) else 0.0
            else:
                for q in range(r):
                    gap = max(max(lo - x[q], x[q] - hi), 0.0)
                    bound[q] += w * (gap if gap < cap else cap)


@njit(cache=True, nogil=True)
def _insert(best_d, best_i, d, index):
    """Put ``(d, index)`` into a row of the running top-k, ordered by distance then index."""
    k = best_d.shape[0]
    if d > best_d[k - 1] or (d == best_d[k - 1] and index > best_i[k - 1] >= 0):
        return
    pos = k - 1
    while pos > 0 and (best_d[pos - 1] > d or (best_d[pos - 1] == d and best_i[pos - 1] > index)):
        best_d[pos] = best_d[pos - 1]
        best_i[pos] = best_i[pos - 1]
        pos -= 1
    best_d[pos] = d
    best_i[pos] = index


@njit(parallel=True, cache=True, nogil=True)
def _knn_kernel(
    xq,
    query_order,
    yt,
    ref_order,
    low,
    high,
    first,
    ref_offset,
    self_offset,
    weights,
    codes,
    cap,
    squared,
    best_d,
    best_i,
):
    """Merge the neighbours of ``xq`` in one reference block into the running top-k, in place.

    ``xq`` is the query block ``(n, p)``, visited in ``query_order``. ``yt`` is the reference
    block sorted by ``ref_order`` and stored feature-major ``(p, m)``: its column ``j`` is
    reference record ``ref_offset + ref_order[j]``; ``low`` and ``high`` bound each tile of
    ``_REFERENCE_TILE`` columns, and ``first`` holds each tile's lowest ``ref_order``. Query row ``i`` is reference record ``self_offset + i`` when
    ``self_offset >= 0`` (leave-one-out) and skips it. Features with ``codes[f]`` hold
    whole-number codes and add ``weights[f]`` when they differ. ``best_d`` holds sums before
    the final ``sqrt`` / ``scale``, which preserve the order.
    """
    n = xq.shape[0]
    m = yt.shape[1]
    p = yt.shape[0]
    k = best_d.shape[1]
    n_tiles = low.shape[0]
    n_groups = (n + _QUERY_TILE - 1) // _QUERY_TILE
    for group in prange(n_groups):
        rows = query_order[group * _QUERY_TILE : min(n, (group + 1) * _QUERY_TILE)]
        bounds = np.empty((n_tiles, rows.shape[0]))
        _lower_bounds(np.ascontiguousarray(xq[rows].T), low, high, weights, codes, cap, squared, bounds)
        tile_bound = np.empty(n_tiles)
        for t in range(n_tiles):
            tile_bound[t] = bounds[t].min()
        acc = np.empty(_REFERENCE_TILE)
        for t in np.argsort(tile_bound):
            needed = -np.inf
            for r in range(rows.shape[0]):
                needed = max(needed, best_d[rows[r], k - 1])
            if tile_bound[t] > needed:
                break  # later tiles have larger bounds: no query of the group needs them
            r0 = t * _REFERENCE_TILE
            width = min(_REFERENCE_TILE, m - r0)
            for r in range(rows.shape[0]):
                i = rows[r]
                # Skip a tile that cannot improve the top-k: its bound is above the k-th distance,
                # or equal to it while all its records come after the k-th neighbour (a tie goes
                # to the lower row). With many exact ties (records sharing every key) the second
                # test skips most of the tiles at distance 0.
                worst_d = best_d[i, k - 1]
                if bounds[t, r] > worst_d or (
                    bounds[t, r] == worst_d and ref_offset + first[t] > best_i[i, k - 1]
                ):
                    continue
                acc[:width] = 0.0
                # one pass per feature over contiguous reference values: the loop vectorises
                for f in range(p):
                    a, w, y = xq[i, f], weights[f], yt[f, r0 : r0 + width]
                    if squared:
                        for j in range(width):
                            diff = a - y[j]
                            acc[j] += diff * diff
                    elif codes[f]:
                        for j in range(width):
                            acc[j] += w if a != y[j] else 0.0
                    else:
                        for j in range(width):
                            diff = abs(a - y[j])
                            acc[j] += w * (diff if diff < cap else cap)
                worst = best_d[i, k - 1]
                # a vectorised count first: most tiles hold no candidate and skip the scalar scan
                hits = 0
                for j in range(width):
                    hits += acc[j] <= worst
                if hits == 0:
                    continue
                own = self_offset + i - ref_offset if self_offset >= 0 else -1
                for j in range(width):
                    if acc[j] <= worst and ref_order[r0 + j] != own:
                        _insert(best_d[i], best_i[i], acc[j], ref_offset + ref_order[r0 + j])
                        worst = best_d[i, k - 1]
