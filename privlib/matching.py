"""Which real records the synthetic data matches: the record-level steps several measures share.

* Exact matches: :func:`comparable_values` and :func:`joint_codes` give two rows of any tables
  the same code exactly when they hold the same values (missing equal to missing), and
  :func:`count_matches` counts, per real record, the synthetic records of its code whose numbers lie
  within its intervals. :mod:`privlib.identity` counts copies and matches with them,
  :func:`privlib.records.copy_test` the records that have a copy.
* Distances: :func:`attack_distances` gives each training and holdout record's Gower distance to
  the nearest synthetic record, on an encoder fitted on the three tables
  (:func:`gower_setup`), for the distance attacks of :mod:`privlib.membership` and their reading at
  a low false-positive rate (:func:`privlib.records.nn_mia_low_fpr`).

They live below both so that the measure modules import them, never each other.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numba import njit

from privlib.neighbors import nearest_distances
from privlib.schema import NUMERIC, TableEncoder, check_comparable, check_frame, numeric_values

__all__ = [
    "attack_distances",
    "check_tables",
    "comparable_values",
    "count_matches",
    "gower_setup",
    "joint_codes",
    "query_samples",
    "sample_size",
    "sampled",
    "subsample",
    "subsample_rows",
]


#: Largest combined key :func:`joint_codes` forms before re-coding it (within int64).
_LARGEST_KEY = 2**62


def comparable_values(series: pd.Series, kind: str) -> pd.Series:
    """Values that compare equal across tables: numbers as float64 (so 3 == 3.0, dates in days),
    labels as Python objects (so a categorical and an object column holding the same labels
    agree). A categorical keeps its codes: :func:`joint_codes` compares its categories, not one
    object per row."""
    if kind == NUMERIC:
        return pd.Series(numeric_values(series))
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.reset_index(drop=True)
    return pd.Series(series.to_numpy(dtype=object))


def _value_codes(values: pd.Series) -> tuple[np.ndarray, pd.Series]:
    """One code per row of ``values`` (-1 where missing) and the value of each code: a
    categorical's own codes and its categories as Python objects, otherwise the factorised
    values."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.cat.codes.to_numpy(dtype=np.int64), pd.Series(
            values.cat.categories.to_numpy(dtype=object)
        )
    codes, uniques = pd.factorize(values)
    return codes.astype(np.int64), pd.Series(uniques)


def joint_codes(tables: Sequence[Sequence[pd.Series]]) -> list[np.ndarray]:
    """One integer code per row such that two rows, of any of the tables, share a code exactly
    when they hold the same values in every column (missing equal to missing).

    ``tables`` lists, per table, the same number of columns as comparable series
    (:func:`comparable_values`). The codes number the distinct rows in the order they first
    appear, the tables one after the other.
    """
    sizes = [len(columns[0]) for columns in tables]
    key = np.zeros(sum(sizes), dtype=np.int64)
    key_values = 1  # the key lies in 0 .. key_values - 1
    for j in range(len(tables[0])):
        # Each table's values are coded on their own, then only the distinct values of all tables
        # are matched with one another: the same classes as coding every row of all tables
        # together (missing is code -1 in both), for a fraction of the hashing.
        local = [_value_codes(columns[j]) for columns in tables]
        shared, uniques = pd.factorize(pd.concat([values for _, values in local], ignore_index=True))
        shared = np.append(shared, -1)  # the last entry is missing's: own code -1 reads it
        offsets = np.cumsum([0] + [len(values) for _, values in local])
        codes = np.concatenate(
            [shared[np.where(own >= 0, offset + own, -1)] for (own, _), offset in zip(local, offsets)]
        )
        if key_values * (len(uniques) + 1) > _LARGEST_KEY:
            # re-factorized, the combined key stays below the number of rows, so it never
            # overflows however many columns are combined
            key = pd.factorize(key)[0].astype(np.int64)
            key_values = int(key.max(initial=0)) + 1
        key = key * (len(uniques) + 1) + codes + 1
        key_values *= len(uniques) + 1
    # factorize numbers the distinct combinations in order of first appearance, whatever the
    # codes of each column and wherever the key was re-factorized
    return np.split(pd.factorize(key)[0].astype(np.int64), np.cumsum(sizes)[:-1])


def count_matches(target_groups, synthetic_groups, lows, highs, synthetic_values):
    """For each target, count the synthetic records in the same exact-match group whose numeric
    values all lie within the target's intervals (bounds included).

    The groups are non-negative integer codes (:func:`joint_codes`). ``lows``/``highs``
    (n_target, q) and ``synthetic_values`` (n_synthetic, q) hold the q >= 1 numeric columns,
    without NaN (the callers set a missing number to 0 and match missing with missing in the
    groups). The synthetic records of the targets' groups are sorted by group, then first and
    second numeric value: a target's candidates on the first column form one run of its group,
    found by binary search, and within each first value of that run the second column is
    searched again, so only records within both intervals are read one by one (a compiled loop
    checks the further columns). The memory is that of the inputs, whatever the number of
    candidates.
    """
    n_groups = int(max(target_groups.max(initial=-1), synthetic_groups.max(initial=-1))) + 1
    wanted = np.zeros(n_groups, dtype=bool)
    wanted[target_groups] = True
    kept = np.flatnonzero(wanted[synthetic_groups])  # only a target's group holds its matches
    groups, values = synthetic_groups[kept], synthetic_values[kept]
    # lexsort's last key sorts first: group, then the first numeric column, then the second
    order = np.lexsort((*values[:, 1::-1].T, groups))
    # each group's rows among the sorted records, from the number of records per group
    sizes = np.bincount(groups, minlength=n_groups)
    group_stop = np.cumsum(sizes)[target_groups]
    return _count_in_boxes(
        group_stop - sizes[target_groups],
        group_stop,
        np.ascontiguousarray(values[order], dtype=np.float64),
        np.ascontiguousarray(lows, dtype=np.float64),
        np.ascontiguousarray(highs, dtype=np.float64),
    )


@njit(cache=True, nogil=True)
def _first_beyond(values, column, first, last, bound, equal_too):
    """The first row of ``first:last`` (sorted on ``column`` there) whose value is at least
    ``bound`` (above it with ``equal_too``), ``last`` when none is. Gallops from ``first``, so
    the cost grows with the log of the distance to the answer, not of the range."""
    step = 1
    while first + step < last and (
        values[first + step, column] < bound or (equal_too and values[first + step, column] == bound)
    ):
        step *= 2
    # the answer lies beyond first + step // 2 (checked, or first itself) and at most step on
    low, high = first + step // 2, min(first + step, last)
    while low < high:
        middle = (low + high) // 2
        value = values[middle, column]
        if value < bound or (equal_too and value == bound):
            low = middle + 1
        else:
            high = middle
    return low


@njit(cache=True, nogil=True)
def _count_in_boxes(group_start, group_stop, values, lows, highs):
    """Per target ``i``: the rows of ``values`` among ``group_start[i]:group_stop[i]`` (sorted
    there on the first column, then the second) with every column within ``lows[i]`` and
    ``highs[i]``."""
    n_target, q = lows.shape
    counts = np.zeros(n_target, dtype=np.int64)
    for i in range(n_target):
        row = _first_beyond(values, 0, group_start[i], group_stop[i], lows[i, 0], False)
        end = _first_beyond(values, 0, row, group_stop[i], highs[i, 0], True)
        if q == 1:
            counts[i] = end - row
            continue
        count = 0
        while row < end:
            # the rows holding this first value, sorted on the second: search its interval
            same = _first_beyond(values, 0, row, end, values[row, 0], True)
            row = _first_beyond(values, 1, row, same, lows[i, 1], False)
            while row < same and values[row, 1] <= highs[i, 1]:
                inside = True
                for j in range(2, q):
                    if not (values[row, j] >= lows[i, j] and values[row, j] <= highs[i, j]):
                        inside = False
                        break
                count += inside
                row += 1
            row = same
        counts[i] = count
    return counts


def check_tables(**tables) -> dict:
    """Check every table and that each has the first one's columns and column types.

    Categories absent from the first table are allowed: a distance simply counts them as
    different, and a holdout may well hold a rare category the training data lacks.
    """
    (first_name, first), *rest = tables.items()
    check_frame(first, first_name)
    for name, table in rest:
        check_frame(table, name)
        check_comparable(first, table, (first_name, name), unseen="ignore")
    return tables


def subsample_rows(n_rows: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` of the positions ``0 .. n_rows - 1`` drawn without replacement, in increasing order."""
    return np.sort(rng.choice(n_rows, size, replace=False))


#: The tables whose records a distance measure may sample (:func:`query_samples`), each with a
#: stream of its own.
QUERY_ROLES = ("train", "synthetic", "holdout")


def query_samples(random_state, max_queries: int | None, **sizes: int) -> dict[str, np.ndarray | None]:
    """Positions of the records of each table (by role, with its number of records) whose
    nearest-neighbour distances a measure reads: every record (``None``) up to ``max_queries``,
    beyond it a seeded sample of that many, in increasing order.

    Each role of :data:`QUERY_ROLES` draws from a stream of its own, derived from an integer
    ``random_state`` and the role, so that every measure given the same seed reads the same records
    of a table, whatever other tables it reads; an audit then searches those records once
    (:mod:`privlib.search_reuse`). A sampled record is still searched among every record, so each
    distance read is exact; the sample only bounds how many are read. With a generator (or
    ``None``) each role's stream is spawned from it.

    Examples
    --------
    >>> rows = query_samples(0, 3, train=10, holdout=2)
    >>> rows["train"].size, rows["holdout"]
    (3, None)
    >>> bool((query_samples(0, 3, train=10)["train"] == rows["train"]).all())
    True
    """
    rows: dict[str, np.ndarray | None] = {}
    for role, n_records in sizes.items():
        if max_queries is None or n_records <= max_queries:
            rows[role] = None
            continue
        if isinstance(random_state, (int, np.integer)):
            rng = np.random.default_rng([int(random_state), QUERY_ROLES.index(role)])
        else:
            rng = np.random.default_rng(random_state).spawn(1)[0]
        rows[role] = subsample_rows(n_records, max_queries, rng)
    return rows


def sample_size(*rows: np.ndarray | None) -> int | None:
    """The most records read of a sampled table (positions ``rows`` per table, ``None`` for every
    record, as :func:`query_samples` gives them), or ``None`` when no table was sampled."""
    return max((at.size for at in rows if at is not None), default=None)


def sampled(table: pd.DataFrame, rows: np.ndarray | None) -> pd.DataFrame:
    """The records of ``table`` at positions ``rows`` (the table itself for ``None``)."""
    return table if rows is None else table.iloc[rows]


def subsample(table: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``size`` rows of ``table`` drawn without replacement (the table itself when it has that many)."""
    if len(table) == size:
        return table
    return table.iloc[subsample_rows(len(table), size, rng)]


def gower_setup(train, holdout, synthetic) -> TableEncoder:
    """A Gower encoder fitted on the three tables, the one every distance attack shares (so that
    an audit searches each pair of tables once)."""
    return TableEncoder(metric="gower").fit(
        train, holdout, synthetic, names=["train", "holdout", "synthetic"]
    )


def attack_distances(train, holdout, synthetic, rng=None, client=None, rows=(None, None)):
    """DCR to the synthetic data of each training and holdout record, and who is a member.

    ``rows`` holds the positions of the training and holdout records read (:func:`query_samples`;
    ``None``: every record), each searched among every synthetic record. With ``rng`` the larger
    of the two sets read is subsampled to the smaller's size. The records read are searched whole
    and the drawn records' distances kept, so that the attacks with and without subsampling make
    the same two searches, which an audit makes once (:func:`privlib.search_reuse.reuse_searches`).
    """
    encoder = gower_setup(train, holdout, synthetic)
    distances = [
        nearest_distances(sampled(table, at), synthetic, metric="gower", encoder=encoder, client=client)
        for table, at in zip((train, holdout), rows)
    ]
    if rng is not None:
        size = min(d.size for d in distances)
        distances = [d if d.size == size else d[subsample_rows(d.size, size, rng)] for d in distances]
    dcr = np.concatenate(distances)
    is_member = np.repeat([True, False], [distances[0].size, distances[1].size])
    return dcr, is_member
