"""Confidence intervals for the kit's measures.

Two methods cover every measure:

* :func:`wilson_interval` for a share or a rate (successes out of trials): the Wilson score
  interval (Wilson 1927), which stays inside [0, 1] and keeps its coverage near the nominal level
  for small samples and shares near 0 or 1, where the normal ("Wald") interval fails
  (Brown, Cai & DasGupta 2001). anonymeter reports its risks with it too.
* :func:`bootstrap_interval` for any other statistic of per-record values (an AUC, a mean CAP, an
  accuracy, an F1, a privacy loss): the percentile bootstrap over records (Efron & Tibshirani
  1993), resampling each group of records (e.g. members and non-members) separately with one
  seeded generator.

Both return ``(low, high)``; the level is ``confidence`` (0.95 by default).

References
----------
Wilson EB. Probable inference, the law of succession, and statistical inference. JASA 22, 1927.
Brown LD, Cai TT, DasGupta A. Interval estimation for a binomial proportion. Stat Sci 16, 2001.
Efron B, Tibshirani RJ. An Introduction to the Bootstrap. Chapman & Hall, 1993.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from scipy.stats import norm

from privlib.errors import PrivlibError

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_N_BOOTSTRAP", "WILSON", "BOOTSTRAP", "check_confidence",
           "wilson_interval", "bootstrap_interval"]

#: The level of every interval unless a measure's ``confidence=`` says otherwise.
DEFAULT_CONFIDENCE = 0.95

#: Bootstrap resamples: enough for the 2.5 % and 97.5 % percentiles to settle to about 0.01.
DEFAULT_N_BOOTSTRAP = 200

#: ``Result.ci_method`` of the two methods.
WILSON = "wilson"
BOOTSTRAP = "bootstrap"


def check_confidence(confidence) -> float:
    """``confidence`` as a float strictly between 0 and 1, or a :class:`PrivlibError`."""
    if isinstance(confidence, bool) or not isinstance(confidence, Real) or not 0 < confidence < 1:
        raise PrivlibError(
            f"`confidence` must be a number strictly between 0 and 1 (e.g. 0.95), got {confidence!r}."
        )
    return float(confidence)


def wilson_interval(successes, trials, *, confidence=DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a proportion ``successes / trials``.

    Parameters
    ----------
    successes : int
        Number of successes, ``0 <= successes <= trials``.
    trials : int
        Number of trials; with 0 trials the interval is ``(nan, nan)``.
    confidence : float, default 0.95
        Level of the interval.

    Returns
    -------
    (float, float)
        Lower and upper end, within [0, 1].

    Examples
    --------
    >>> low, high = wilson_interval(0, 10)
    >>> round(low, 3), round(high, 3)
    (0.0, 0.278)
    >>> [round(x, 4) for x in wilson_interval(50, 100)]
    [0.4038, 0.5962]
    """
    confidence = check_confidence(confidence)
    for name, value in (("successes", successes), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, (Integral, np.integer)) or value < 0:
            raise PrivlibError(f"`{name}` must be a whole number >= 0, got {value!r}.")
    if successes > trials:
        raise PrivlibError(f"`successes` ({successes}) cannot exceed `trials` ({trials}).")
    if trials == 0:
        return math.nan, math.nan
    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # Exact ends at 0 and 1 (the formula gives them up to rounding).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def bootstrap_interval(
    statistic,
    groups,
    *,
    rng: np.random.Generator,
    n_bootstrap: int = DEFAULT_N_BOOTSTRAP,
    confidence=DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``statistic`` over records.

    Parameters
    ----------
    statistic : callable
        Called as ``statistic(*resampled)`` with one array per group, each resampled with
        replacement to its own size; returns a float (NaN resamples are dropped).
    groups : sequence of numpy arrays
        Per-record values, one array per group of records resampled separately (e.g. the scores
        of members and of non-members, so that each resample keeps the design's group sizes).
    rng : numpy.random.Generator
        The measure's seeded generator.
    n_bootstrap : int, default 200
        Number of resamples.
    confidence : float, default 0.95

    Returns
    -------
    (float, float)
        The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` percentiles of the resampled
        statistic; ``(nan, nan)`` when no resample gives a number.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> low, high = bootstrap_interval(np.mean, [np.r_[np.zeros(50), np.ones(50)]], rng=rng)
    >>> 0.35 < low < 0.5 < high < 0.65
    True
    """
    confidence = check_confidence(confidence)
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, Integral) or n_bootstrap < 1:
        raise PrivlibError(f"`n_bootstrap` must be a whole number >= 1, got {n_bootstrap!r}.")
    groups = [np.asarray(g) for g in groups]
    if any(len(g) == 0 for g in groups):
        return math.nan, math.nan
    values = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        resampled = [g[rng.integers(0, len(g), size=len(g))] for g in groups]
        values[b] = statistic(*resampled)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)
