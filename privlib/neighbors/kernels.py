"""The compiled kernels: lower bounds of a tile's distances, insertion into the running k best, and
the tiled distance loop."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Query records (a group) that share one visit of a reference tile while it sits in cache.
_QUERY_TILE = 32
#: Reference records per tile: small tiles have tight bounds, large ones cheap bookkeeping.
_REFERENCE_TILE = 256


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
