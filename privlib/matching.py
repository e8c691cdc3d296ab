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

from privlib.neighbors import nearest_distances
from privlib.schema import NUMERIC, TableEncoder, check_comparable, check_frame, numeric_values

__all__ = [
    "MATCH_CHUNK_PAIRS",
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

#: Candidate (target, synthetic record) pairs examined at once by :func:`count_matches` when more
#: than one numeric variable is matched with a tolerance; bounds its working memory.
MATCH_CHUNK_PAIRS = 2_000_000


def comparable_values(series: pd.Series, kind: str) -> pd.Series:
    """Values that compare equal across tables: numbers as float64 (so 3 == 3.0, dates in days),
    labels as Python objects (so a categorical and an object column holding the same labels
    agree)."""
    if kind == NUMERIC:
        return pd.Series(numeric_values(series))
    return pd.Series(series.to_numpy(dtype=object))


def joint_codes(tables: Sequence[Sequence[pd.Series]]) -> list[np.ndarray]:
    """One integer code per row such that two rows, of any of the tables, share a code exactly
    when they hold the same values in every column (missing equal to missing).

    ``tables`` lists, per table, the same number of columns as comparable series.
    """
    sizes = [len(columns[0]) for columns in tables]
    key = np.zeros(sum(sizes), dtype=np.int64)
    for j in range(len(tables[0])):
        stacked = pd.concat([columns[j] for columns in tables], ignore_index=True)
        codes, uniques = pd.factorize(stacked)  # a missing value gets code -1: one more value
        # Re-factorizing after each column keeps the combined key below the number of rows,
        # so it never overflows however many columns are combined.
        key = pd.factorize(key * (len(uniques) + 1) + codes + 1)[0].astype(np.int64)
    return np.split(key, np.cumsum(sizes)[:-1])


def count_matches(target_groups, synthetic_groups, lows, highs, synthetic_values):
    """For each target, count the synthetic records in the same exact-match group whose numeric
    values all lie within the target's intervals.

    ``lows``/``highs`` (n_target, q) and ``synthetic_values`` (n_synthetic, q) hold the q >= 1
    numeric columns. Synthetic records are sorted by (group, first numeric value), so each
    target's candidates on the first column form one contiguous run, found with two binary
    searches; further numeric columns are checked on those candidates in memory-bounded chunks.
    """
    n_target = len(target_groups)
    # Dense ranks of every value involved turn (group, value) into one sortable integer key
    # without floating-point arithmetic on the values.
    first = np.concatenate([synthetic_values[:, 0], lows[:, 0], highs[:, 0]])
    _, ranks = np.unique(first, return_inverse=True)
    n_ranks = int(ranks.max()) + 1
    n_syn = len(synthetic_groups)
    syn_key = synthetic_groups * n_ranks + ranks[:n_syn]
    order = np.argsort(syn_key, kind="stable")
    sorted_key = syn_key[order]
    start = np.searchsorted(sorted_key, target_groups * n_ranks + ranks[n_syn : n_syn + n_target], "left")
    stop = np.searchsorted(sorted_key, target_groups * n_ranks + ranks[n_syn + n_target :], "right")
    lengths = stop - start
    if synthetic_values.shape[1] == 1:
        return lengths
    counts = np.zeros(n_target, dtype=np.int64)
    ends = np.cumsum(lengths)
    # Cut the targets into chunks of about MATCH_CHUNK_PAIRS candidate pairs each.
    cuts = np.searchsorted(ends, np.arange(MATCH_CHUNK_PAIRS, ends[-1], MATCH_CHUNK_PAIRS), "left")
    bounds = np.unique(np.concatenate([[0], cuts + 1, [n_target]]))
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        chunk_lengths = lengths[lo:hi]
        targets = np.repeat(np.arange(lo, hi), chunk_lengths)
        offsets = np.arange(len(targets)) - np.repeat(np.cumsum(chunk_lengths) - chunk_lengths, chunk_lengths)
        candidates = order[start[targets] + offsets]
        values = synthetic_values[candidates, 1:]
        inside = np.all((values >= lows[targets, 1:]) & (values <= highs[targets, 1:]), axis=1)
        counts[lo:hi] = np.bincount(targets[inside] - lo, minlength=hi - lo)
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


def sample_size(rows: dict[str, np.ndarray | None], max_queries: int | None) -> int | None:
    """``max_queries`` when :func:`query_samples` sampled some table, else ``None``."""
    return None if all(at is None for at in rows.values()) else max_queries


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
