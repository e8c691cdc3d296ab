"""The record-level matching steps (privlib/matching.py) against Python loops over every pair of
rows: exact codes of whole rows, and counts of synthetic records within a target's intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privlib.matching import comparable_values, count_matches, joint_codes
from privlib.schema import CATEGORICAL, NUMERIC


def _labels(rng, n, as_what):
    values = rng.choice(np.array(["x", "y", "z", None], dtype=object), n)
    if as_what == "categorical":  # a category order of its own, and an unused category
        return pd.Series(pd.Categorical(values, categories=list(rng.permutation(["z", "x", "w", "y"]))))
    if as_what == "string":
        return pd.Series(values, dtype="str")
    return pd.Series(values, dtype=object)


def _tables(rng):
    """Three tables of a label column (categorical, string or object per table), a number with
    missing values and ties, and a date."""
    tables = []
    for n, as_what in ((40, "categorical"), (30, "object"), (50, "string")):
        tables.append(
            pd.DataFrame(
                {
                    "label": _labels(rng, n, as_what),
                    "number": rng.choice([-0.0, 0.0, 1.5, 2.0, np.nan], n),
                    "day": pd.Timestamp("2021-05-01") + pd.to_timedelta(rng.choice([0, 1, 2], n), unit="D"),
                }
            )
        )
    return tables


def _same(a, b):
    return (pd.isna(a) and pd.isna(b)) or (not pd.isna(a) and not pd.isna(b) and a == b)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_joint_codes_are_equal_exactly_when_the_rows_are(seed):
    tables = _tables(np.random.default_rng(seed))
    kinds = {"label": CATEGORICAL, "number": NUMERIC, "day": NUMERIC}
    codes = np.concatenate(
        joint_codes([[comparable_values(t[c], kind) for c, kind in kinds.items()] for t in tables])
    )
    rows = [row for t in tables for row in t.itertuples(index=False)]
    # by brute force: each row's code is the number of distinct rows seen before its first twin
    firsts = []
    expected = []
    for row in rows:
        twin = next((i for i, first in enumerate(firsts) if all(map(_same, row, first))), None)
        if twin is None:
            firsts.append(row)
            twin = len(firsts) - 1
        expected.append(twin)
    assert codes.tolist() == expected
    assert 1 < len(firsts) < len(rows)  # rows with twins and rows without


@pytest.mark.parametrize("seed", [3, 4, 5])
@pytest.mark.parametrize("q", [1, 2, 3])
def test_count_matches_equals_counting_every_pair(seed, q):
    rng = np.random.default_rng(seed)
    # a few groups (one without synthetic records, one without targets) and few distinct values:
    # long runs of ties, bounds that fall on values
    n_target, n_synthetic = 200, 5000
    target_groups, synthetic_groups = rng.integers(0, 4, n_target), rng.choice([0, 1, 2, 4], n_synthetic)
    targets = rng.integers(0, 12, (n_target, q)) / 4
    synthetic = rng.integers(0, 12, (n_synthetic, q)) / 4
    widths = rng.choice([0.0, 0.25, 0.5, 1.0], q)
    lows, highs = targets - widths, targets + widths
    counts = count_matches(target_groups, synthetic_groups, lows, highs, synthetic)
    expected = [
        np.count_nonzero(
            (synthetic_groups == target_groups[t])
            & ((lows[t] <= synthetic) & (synthetic <= highs[t])).all(axis=1)
        )
        for t in range(n_target)
    ]
    assert counts.tolist() == expected
    assert 0 in expected and max(expected) > 1  # targets without a match and with several
