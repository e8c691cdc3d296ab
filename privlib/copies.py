"""What a copy of a real record is, and the exact test of the counts of copies.

Shared by the copy tests (:func:`privlib.identity.copy_test`, :func:`privlib.rare_copies.rare_copy_test`),
the certain attributions (:mod:`privlib.rare_attributions`), the low false-positive tests of
:mod:`privlib.records` (the upper tail and its critical count) and the detection limits. The
definitions and the test are described in :mod:`privlib.records`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from privlib.matching import comparable_values, count_matches, joint_codes
from privlib.schema import CATEGORICAL, NUMERIC, infer_kinds, numeric_values
from privlib.uncertainty import wilson_interval

#: Share of a numeric variable's range within which two values count as the same in
#: :func:`privlib.identity.copy_test`.
DEFAULT_NUMERIC_TOLERANCE = 0.01

#: ``ci_method`` of a difference of two proportions by Newcombe's hybrid score interval.
NEWCOMBE = "newcombe"


def _upper_tail(pmf: np.ndarray) -> np.ndarray:
    """``P(X >= x)`` for x = 0..len(pmf)-1 from the probabilities of a distribution on 0..n."""
    tail = np.clip(np.cumsum(pmf[::-1])[::-1], 0.0, 1.0)
    tail[0] = 1.0  # exactly, whatever the rounding of the sum
    return tail


def _critical(tail: np.ndarray, level: float) -> int:
    """The smallest count significant at ``level`` (``P(X >= c) <= level``); one past the end
    when none is."""
    significant = np.flatnonzero(tail <= level)
    return int(significant[0]) if significant.size else tail.size


def _newcombe(a: int, n1: int, b: int, n2: int, confidence: float) -> tuple[float, float]:
    """Newcombe's hybrid score interval of ``a / n1 - b / n2`` (1998, method 10)."""
    p1, p2 = a / n1, b / n2
    low1, high1 = wilson_interval(a, n1, confidence=confidence)
    low2, high2 = wilson_interval(b, n2, confidence=confidence)
    difference = p1 - p2
    return (difference - math.hypot(p1 - low1, high2 - p2), difference + math.hypot(high1 - p1, p2 - low2))


def _copy_parts(frame: pd.DataFrame, widths: Mapping) -> list[pd.Series]:
    """The values a copy repeats exactly: every non-numeric value, and whether each number (a
    column of ``widths``) is missing."""
    exact = [comparable_values(frame[c], CATEGORICAL) for c in frame.columns if c not in widths]
    return exact + [frame[c].isna().reset_index(drop=True) for c in widths]


def _copy_numbers(frame: pd.DataFrame, widths: Mapping) -> np.ndarray:
    """The numbers a copy repeats within its width, a missing one as 0 (the exact part pairs
    missing with missing)."""
    columns = [np.nan_to_num(numeric_values(frame[c]), nan=0.0) for c in widths]
    return np.column_stack(columns) if columns else np.empty((len(frame), 0))


def _has_copy(reals: Sequence[pd.DataFrame], synthetic: pd.DataFrame, tolerance: dict) -> list[np.ndarray]:
    """Per record of each real table: some synthetic record equals it, numbers within
    ``tolerance`` (a width per numeric column; missing equal to missing). The synthetic records
    are coded and sorted once for all the real tables."""
    *per_table, synthetic_groups = joint_codes([_copy_parts(t, tolerance) for t in (*reals, synthetic)])
    real_groups, ends = np.concatenate(per_table), np.cumsum([len(t) for t in reals])[:-1]
    if not tolerance:
        return np.split(np.isin(real_groups, synthetic_groups), ends)
    x = np.vstack([_copy_numbers(t, tolerance) for t in reals])
    y = _copy_numbers(synthetic, tolerance)
    # widened by a relative 1e-9 so that a value exactly on the boundary is not lost to rounding
    width = np.array(list(tolerance.values())) * (1 + 1e-9)
    found = count_matches(real_groups, synthetic_groups, x - width, x + width, y) > 0
    return np.split(found, ends)


def _copy_widths(
    train: pd.DataFrame, holdout: pd.DataFrame, synthetic: pd.DataFrame, tolerance: float
) -> dict:
    """Per numeric column, the absolute width within which two values count as the same:
    ``tolerance`` times its range over the three tables (dates in days)."""
    kinds = infer_kinds(train)
    widths = {}
    for column in train.columns:
        if kinds[column] == NUMERIC:
            values = np.concatenate([numeric_values(t[column]) for t in (train, holdout, synthetic)])
            spread = float(np.nanmax(values) - np.nanmin(values)) if np.isfinite(values).any() else 0.0
            widths[column] = tolerance * spread
    return widths


def _fisher_excess(a: int, n1: int, b: int, n2: int, confidence: float) -> dict:
    """The fields of a :class:`CopyTest` for ``a`` of ``n1`` training and ``b`` of ``n2`` holdout
    records copied: the excess, Fisher's one-sided test and Newcombe's interval."""
    copied = a + b
    # Fisher's exact test, one-sided: given the records copied in all, how many are training.
    tail = _upper_tail(hypergeom.pmf(np.arange(copied + 1), n1 + n2, n1, copied))
    critical = _critical(tail, 1 - confidence)
    ratio = n1 / n2

    def excess(train_count):
        return train_count - (copied - train_count) * ratio

    low, high = _newcombe(a, n1, b, n2, confidence)
    return dict(
        value=excess(a),
        baseline=excess(min(critical, copied + 1) - 1),
        confidence=confidence,
        n_train=n1,
        n_holdout=n2,
        train_copied=a,
        holdout_copied=b,
        ci_low=n1 * low,
        ci_high=n1 * high,
        ci_method=NEWCOMBE,
        records_at_risk=max(0, round(excess(a))),
        critical_count=critical,
        p_value=float(tail[a]),
    )
