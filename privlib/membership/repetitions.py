"""Results averaged over seeded repetitions, and the spread and interval of such a mean, shared by
the membership measures that repeat a random step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.results import Result, per_record


@dataclass(frozen=True, kw_only=True)
class _Repeated(Result):
    """A result averaged over seeded repetitions.

    ``repeat_low``/``repeat_high`` are the 2.5 %/97.5 % quantiles of the value over the
    repetitions: the spread of one run, kept apart from the confidence interval
    ``ci_low``/``ci_high``.
    """

    n_repeats: int = 1
    repeat_low: float | None = None
    repeat_high: float | None = None
    repeats: np.ndarray = per_record(default=None)

    def _spread_text(self) -> str:
        if self.n_repeats < 2:
            return ""
        return (
            f" (mean of {self.n_repeats} repetitions, 95% of them between {self.repeat_low:.3f} "
            f"and {self.repeat_high:.3f})"
        )


def _spread(values) -> tuple[float, float, float]:
    """Mean and the 2.5 %/97.5 % quantiles of repetition values (NaN values ignored)."""
    values = np.asarray(values, dtype="float64")
    if np.isnan(values).all():
        return math.nan, math.nan, math.nan
    low, high = np.nanquantile(values, [0.025, 0.975])
    return float(np.nanmean(values)), float(low), float(high)


def _averaged_interval(intervals) -> tuple[float, float]:
    """One interval for a mean over repetitions: the mean of each end of the repetitions'
    intervals.

    Each repetition's interval is centred on its own value, so the averaged ends centre on the
    mean; it keeps the width of one repetition, which is conservative, since the repetitions share
    most of their records and their mean varies less than one repetition, but not by a factor
    that can be known without their overlap.
    """
    ends = np.asarray(intervals, dtype="float64").reshape(-1, 2)
    if np.isnan(ends).all():
        return math.nan, math.nan
    return float(np.nanmean(ends[:, 0])), float(np.nanmean(ends[:, 1]))
