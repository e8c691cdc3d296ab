"""The repetitions of the nearest-neighbour adversarial accuracy (Yale et al. 2019), shared by
:func:`~privlib.membership.adversarial_accuracy` and :func:`~privlib.membership.privacy_loss`:
each record's nearest record in its own and in the other table, read from neighbour lists where
they hold it and searched otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privlib.errors import DataError
from privlib.matching import (
    sampled,
    subsample_rows,
)
from privlib.neighbors import Neighbors, kneighbors, nearest_distances
from privlib.uncertainty import (
    resampled_means,
)


def _self_distances(table, options, rows=None, within=None) -> np.ndarray:
    """Distance from each record of ``table`` (those at positions ``rows`` when given) to its
    nearest *other* record of it, ``inf`` where none lies ``within`` the per-record bound."""
    if rows is None:
        return kneighbors(table, table, k=1, exclude_self=True, within=within, **options).distances[:, 0]
    return _nearest_other(table, rows, options, within)


def _at(values: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    return values if rows is None else values[rows]


def _aa_indicators(d_ts, d_tt, d_st, d_ss) -> tuple[np.ndarray, np.ndarray, float]:
    """The per-record indicators of the two halves of AA_TS for tables of equal size,
    1(d_TS(i) > d_TT(i)) and 1(d_ST(i) > d_SS(i)), and the share of tied comparisons."""
    ties = (np.mean(d_ts == d_tt) + np.mean(d_st == d_ss)) / 2
    return d_ts > d_tt, d_st > d_ss, float(ties)


#: Largest neighbour list searched to answer the repetitions' subsample searches from the whole
#: table (:func:`_aa_repeats`); a smaller subsample share would need longer lists than this.
_MAX_LIST_DEPTH = 16


#: Share of records whose list may hold no drawn record, and so need a search of their own.
_LIST_MISS_SHARE = 0.01


def _list_depth(share: float, n_records: int) -> int | None:
    """Neighbours to list so that a subsample of ``share`` of the ``n_records`` misses all of a
    record's listed neighbours for about ``_LIST_MISS_SHARE`` of the records: ``(1 - share)^depth``
    at most that, and no more than the other records there are; ``None`` when that takes more
    than ``_MAX_LIST_DEPTH``."""
    depth = math.ceil(math.log(_LIST_MISS_SHARE) / math.log1p(-share))
    return min(depth, n_records - 1) if depth <= _MAX_LIST_DEPTH else None


def _nearest_drawn(lists, drawn: np.ndarray, search_missing) -> np.ndarray:
    """Per query, the distance to its nearest record among the ``drawn`` ones (a mask over the
    listed table), read from its neighbour list: the first listed drawn record is the nearest, as
    every unlisted record is at least as far as the last listed one. A list searched within a
    bound and cut short by it (index -1) holds every record within the bound: with no drawn record
    listed, the nearest drawn one lies beyond it, and the distance reads ``inf``. Queries whose
    full list holds no drawn record get ``search_missing(positions)``."""
    listed = lists.indices >= 0
    hit = listed & drawn[lists.indices]
    rows = np.arange(len(hit))
    first = hit.argmax(axis=1)
    distances = lists.distances[rows, first]
    found = hit[rows, first]
    cut_short = ~listed[:, -1]
    distances[~found & cut_short] = np.inf
    missing = np.flatnonzero(~found & ~cut_short)
    if missing.size:
        distances[missing] = search_missing(missing)
    return distances


def _nearest_other(table: pd.DataFrame, rows: np.ndarray, options: dict, within=None) -> np.ndarray:
    """Distance from the records at positions ``rows`` of ``table`` to their nearest other record
    of it: the nearer of their two nearest records that is not the record itself (``inf`` where
    the other lies beyond ``within``; the record itself, at distance 0, never does)."""
    pair = kneighbors(table.iloc[rows], table, k=2, within=within, **options)
    other = (pair.indices[:, 0] == rows).astype(int)
    return pair.distances[np.arange(rows.size), other]


def _own_lists(table: pd.DataFrame, rows: np.ndarray | None, depth: int, within, options: dict) -> Neighbors:
    """The ``depth`` nearest other records of ``table`` for its records at positions ``rows``
    (all when ``None``), searched within the per-record bound ``within`` (one per record of the
    table). A sample's lists are searched one deeper and the record itself dropped where listed,
    else the last (twins at distance 0 on lower rows can push it out): ``depth`` others remain,
    in the engine's order."""
    if rows is None:
        return kneighbors(table, table, k=depth, exclude_self=True, within=within, **options)
    found = kneighbors(table.iloc[rows], table, k=depth + 1, within=within[rows], **options)
    keep = found.indices != rows[:, None]
    keep[keep.all(axis=1), -1] = False
    return Neighbors(
        distances=found.distances[keep].reshape(rows.size, depth),
        indices=found.indices[keep].reshape(rows.size, depth),
    )


def _aa_draws(target, synthetic, rng, n_repeats) -> list[np.ndarray]:
    """The rows of the larger table each repetition draws to the smaller's size (none when the
    tables have the same size: nothing is random then, and every repetition would give one value)."""
    size = min(len(target), len(synthetic))
    if size < 2:
        raise DataError(
            "adversarial accuracy needs at least 2 records in each table (a nearest *other* record)."
        )
    if len(target) == len(synthetic):
        return []
    larger = max(len(target), len(synthetic))
    return [subsample_rows(larger, size, rng) for _ in range(n_repeats)]


def _aa_repeats(
    target, synthetic, encoder, draws, client=None, synthetic_within=None, queries=(None, None)
) -> list:
    """Per repetition: the two AA indicator arrays and the tie share, the larger table subsampled
    to the ``draws`` of :func:`_aa_draws`.

    The smaller table is the same in every repetition, so what depends on it alone is searched
    once: its records' nearest other records, and the nearest of its records to each drawn record
    of the larger table (which keeps that distance in every subsample it is drawn into). What a
    repetition's subsample changes (the smaller table's records' nearest in the subsample, and the
    subsample's records' nearest other records in it) is read from neighbour lists of the whole
    larger table, searched once, deep enough that few records find none of their listed
    neighbours in a subsample; those few are searched in the subsample. A subsample too small a
    share of its table for short lists is searched in every repetition instead. Either way the
    indicators and ties are those of the plain algorithm, which searches each subsample.

    A record's nearest other record of its own (sub)sample only counts where it is no farther
    than its nearest record of the other table, so the larger table's lists, and the synthetic
    records' nearest other records when the tables have one size, are searched within that
    distance (``within``, which skips the farther tiles); a record with none that close reads
    ``inf``, which compares with the other distance as its true value does. ``synthetic_within``
    (one bound per synthetic record) widens that bound for the synthetic records (at least their
    distance to ``target``), so that one search answers several halves.

    ``queries`` holds the positions of the target and synthetic records whose indicators are
    read (:func:`privlib.matching.query_samples`; ``None``: every record): only they are
    searched, each among every record of the tables (or of the repetition's subsample), so each
    of its indicators is the plain algorithm's, and a repetition reads the sampled records of the
    larger table that its subsample draws. ``synthetic_within`` then needs values at the sampled
    synthetic records only.
    """
    size = min(len(target), len(synthetic))
    options = dict(metric="gower", encoder=encoder, client=client)
    target_rows, synthetic_rows = queries
    if not draws:  # tables of one size: one repetition
        to_target = nearest_distances(sampled(synthetic, synthetic_rows), target, **options)
        bound = to_target if synthetic_within is None else _at(synthetic_within, synthetic_rows)
        return [
            _aa_indicators(
                nearest_distances(sampled(target, target_rows), synthetic, **options),
                _self_distances(target, options, target_rows),
                to_target,
                _self_distances(synthetic, options, synthetic_rows, within=bound),
            )
        ]
    target_is_fixed = len(target) == size
    fixed, drawn = (target, synthetic) if target_is_fixed else (synthetic, target)
    fixed_rows, drawn_sample = (
        (target_rows, synthetic_rows) if target_is_fixed else (synthetic_rows, target_rows)
    )
    fixed_queries = sampled(fixed, fixed_rows)
    fixed_self = _self_distances(fixed, options, fixed_rows)
    # the drawn table's records read: its sample, or those some repetition draws
    read = np.unique(np.concatenate(draws)) if drawn_sample is None else drawn_sample
    if drawn_sample is None and 2 * read.size > len(drawn):
        # most of the table: search all of it, a search other measures of an audit make too
        drawn_to_fixed = nearest_distances(drawn, fixed, **options)
    else:
        drawn_to_fixed = np.full(len(drawn), np.nan)
        drawn_to_fixed[read] = nearest_distances(drawn.iloc[read], fixed, **options)
    # the lists cost about what two or three repetitions' searches do
    depth = _list_depth(size / len(drawn), len(drawn)) if len(draws) >= 3 else None
    if depth is not None:
        fixed_lists = kneighbors(fixed_queries, drawn, k=depth, **options)
        if target_is_fixed and synthetic_within is not None:
            within = synthetic_within
        else:  # records no repetition draws need nothing: bound 0
            within = np.nan_to_num(drawn_to_fixed, nan=0.0)
        drawn_lists = _own_lists(drawn, drawn_sample, depth, within, options)
    repeats = []
    for rows in draws:
        subsample = drawn.iloc[rows]
        if drawn_sample is None:  # every record of the subsample, listed under its row of the table
            picked, listed = np.arange(rows.size), rows
        else:  # the sampled records the subsample holds: their positions in it and in the sample
            in_sample = np.isin(drawn_sample, rows)
            picked, listed = np.searchsorted(rows, drawn_sample[in_sample]), np.flatnonzero(in_sample)
        if depth is None:
            fixed_to_drawn = nearest_distances(fixed_queries, subsample, **options)
            drawn_self = _self_distances(subsample, options, None if drawn_sample is None else picked)
        else:
            in_draw = np.zeros(len(drawn), dtype=bool)
            in_draw[rows] = True
            fixed_to_drawn = _nearest_drawn(
                fixed_lists,
                in_draw,
                lambda missing, sub=subsample: nearest_distances(fixed_queries.iloc[missing], sub, **options),
            )
            drawn_self = _nearest_drawn(
                _rows_of(drawn_lists, listed),
                in_draw,
                lambda missing, sub=subsample, at=picked: _nearest_other(sub, at[missing], options),
            )
        drawn_side = drawn_to_fixed[rows[picked]]
        if target_is_fixed:
            repeats.append(_aa_indicators(fixed_to_drawn, fixed_self, drawn_side, drawn_self))
        else:
            repeats.append(_aa_indicators(drawn_side, drawn_self, fixed_to_drawn, fixed_self))
    return repeats


def _rows_of(lists: Neighbors, rows: np.ndarray) -> Neighbors:
    """The neighbour lists of the queries at positions ``rows`` only."""
    return Neighbors(distances=lists.distances[rows], indices=lists.indices[rows])


def _aa_value(repeat) -> float:
    target_side, synthetic_side, _ = repeat
    return 0.5 * (target_side.mean() + synthetic_side.mean())


def _aa_resampled(repeat, rng) -> np.ndarray:
    """Bootstrap values of one repetition's AA_TS: each half's indicators resampled (exactly,
    through their binomial counts), so no neighbour is searched again."""
    target_side, synthetic_side, _ = repeat
    return 0.5 * (resampled_means(target_side, rng=rng) + resampled_means(synthetic_side, rng=rng))
