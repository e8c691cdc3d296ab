"""The public search functions, :func:`kneighbors` and :func:`nearest_distances`, and the checks of
their arguments."""

from __future__ import annotations

from numbers import Integral, Real
from typing import cast

import numpy as np

from privlib import search_reuse
from privlib.errors import DataError, ParameterError
from privlib.neighbors.engine import METRICS, Neighbors, _check_jobs, _search, _search_on_cluster
from privlib.neighbors.sources import _ArraySource, _TableSource


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
