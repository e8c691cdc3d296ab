"""The blocked search: reference blocks sorted and tiled, query blocks merged into the running k best,
locally or on a Dask cluster."""

from __future__ import annotations

import mmap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Integral

import numba
import numpy as np

from privlib import search_reuse
from privlib.errors import ParameterError
from privlib.neighbors.kernels import _REFERENCE_TILE, _knn_kernel

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


def _check_jobs(n_jobs) -> int:
    available = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # numba.config sets it at run time, unseen by its type hints
    if n_jobs is None or (not isinstance(n_jobs, bool) and n_jobs == -1):
        return available
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs < 1:
        raise ParameterError(f"`n_jobs` must be a positive integer, -1 or None, got {n_jobs!r}.")
    return min(int(n_jobs), available)
