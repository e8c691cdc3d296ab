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

Two vectorised forms keep the bootstrap cheap on large tables: :func:`resampled_means` draws the
means of all resamples of a group at once (a 0/1 indicator's resampled count is binomial, so its
resamples cost nothing per record), and a statistic of group means (an accuracy, a privacy loss,
an F1 from its counts) is then one array operation, closed by :func:`percentile_interval`;
:func:`auc_interval` resamples the ranks of the scores, sorted once.

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
from typing import cast

import numpy as np
from scipy.stats import norm

from privlib.errors import ParameterError

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_N_BOOTSTRAP",
    "WILSON",
    "BOOTSTRAP",
    "check_confidence",
    "wilson_interval",
    "bootstrap_interval",
    "resampled_means",
    "percentile_interval",
    "auc_interval",
    "AUCRanks",
]

#: The level of every interval unless a measure's ``confidence=`` says otherwise.
DEFAULT_CONFIDENCE = 0.95

#: Bootstrap resamples: enough for the 2.5 % and 97.5 % percentiles to settle to about 0.01.
DEFAULT_N_BOOTSTRAP = 200

#: Largest (distinct values x resamples) drawn at once as multinomial counts by :func:`resampled_means`.
_MULTINOMIAL_CELLS = 4_000_000

#: ``Result.ci_method`` of the two methods.
WILSON = "wilson"
BOOTSTRAP = "bootstrap"


def check_confidence(confidence) -> float:
    """``confidence`` as a float strictly between 0 and 1, or a :class:`ParameterError`."""
    # A Real compares as a float does; typeshed's numbers.Real declares only < and <=.
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, Real)
        or not 0 < cast(float, confidence) < 1
    ):
        raise ParameterError(
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
            raise ParameterError(f"`{name}` must be a whole number >= 0, got {value!r}.")
    if successes > trials:
        raise ParameterError(f"`successes` ({successes}) cannot exceed `trials` ({trials}).")
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
    n_bootstrap = _check_n_bootstrap(n_bootstrap)
    groups = [np.asarray(g) for g in groups]
    if any(len(g) == 0 for g in groups):
        return math.nan, math.nan
    values = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        resampled = [g[rng.integers(0, len(g), size=len(g))] for g in groups]
        values[b] = statistic(*resampled)
    return percentile_interval(values, confidence=confidence)


def _check_n_bootstrap(n_bootstrap) -> int:
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, Integral) or n_bootstrap < 1:
        raise ParameterError(f"`n_bootstrap` must be a whole number >= 1, got {n_bootstrap!r}.")
    return int(n_bootstrap)


def percentile_interval(values, *, confidence=DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """The ``(1 - confidence) / 2`` and ``(1 + confidence) / 2`` quantiles of bootstrap values.

    Non-finite values (resamples where the statistic is undefined) are dropped; with none left
    the interval is ``(nan, nan)``.

    Examples
    --------
    >>> [round(end, 6) for end in percentile_interval(np.arange(101.0), confidence=0.9)]
    [5.0, 95.0]
    """
    confidence = check_confidence(confidence)
    values = np.asarray(values, dtype="float64")
    values = values[np.isfinite(values)]
    if values.size == 0:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low, high = np.quantile(values, [tail, 1 - tail])
    return float(low), float(high)


def resampled_means(
    values, *, rng: np.random.Generator, n_bootstrap: int = DEFAULT_N_BOOTSTRAP
) -> np.ndarray:
    """Means of ``n_bootstrap`` resamples of ``values`` drawn with replacement, as one array.

    A 0/1 (boolean) array is resampled exactly through its count, ``Binomial(n, mean) / n``, which
    costs nothing per record; other values are resampled record by record.

    Parameters
    ----------
    values : array-like of float or bool
        Per-record values of one group (NaN not allowed); an empty group gives NaN means.
    rng : numpy.random.Generator
    n_bootstrap : int, default 200

    Returns
    -------
    numpy.ndarray of shape (n_bootstrap,)

    Examples
    --------
    >>> means = resampled_means(np.array([True, False] * 50), rng=np.random.default_rng(0))
    >>> means.shape, bool(0.3 < means.mean() < 0.7)
    ((200,), True)
    """
    n_bootstrap = _check_n_bootstrap(n_bootstrap)
    values = np.asarray(values)
    n = values.size
    if n == 0:
        return np.full(n_bootstrap, math.nan)
    if values.dtype == bool or np.isin(values, (0, 1)).all():
        return rng.binomial(n, float(np.mean(values)), size=n_bootstrap) / n
    values = values.astype("float64")
    distinct, counts = np.unique(values, return_counts=True)
    if distinct.size * n_bootstrap <= _MULTINOMIAL_CELLS:
        # few distinct values (a CAP takes one value per key group): the resampled counts of the
        # values are multinomial, drawn for all resamples at once
        return rng.multinomial(n, counts / n, size=n_bootstrap) @ distinct / n
    return np.array([values[rng.integers(0, n, size=n)].mean() for _ in range(n_bootstrap)])


def auc_interval(
    member_scores,
    nonmember_scores,
    *,
    rng: np.random.Generator,
    n_bootstrap: int = DEFAULT_N_BOOTSTRAP,
    confidence=DEFAULT_CONFIDENCE,
) -> tuple[float, float]:
    """Percentile bootstrap interval of the AUC, members and non-members resampled separately.

    The AUC is the probability that a member scores above a non-member, ties counted half (the
    Mann-Whitney form, equal to the area under the ROC curve). The scores are ranked once; each
    resample then needs two counts per distinct score and a cumulative sum, so no resample sorts.

    Parameters
    ----------
    member_scores, nonmember_scores : array-like of float
        Scores of the members (positives) and of the non-members (higher = more likely member).
    rng : numpy.random.Generator
    n_bootstrap : int, default 200
    confidence : float, default 0.95

    Returns
    -------
    (float, float)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> low, high = auc_interval(rng.normal(1, 1, 300), rng.normal(0, 1, 300), rng=rng)
    >>> bool(low < 0.76 < high)  # the true AUC is Phi(1 / sqrt(2)) = 0.760
    True
    """
    ranked = AUCRanks(member_scores, nonmember_scores)
    if ranked.n_pos == 0 or ranked.n_neg == 0:
        return math.nan, math.nan
    n_bootstrap = _check_n_bootstrap(n_bootstrap)
    values = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        values[b] = ranked.auc(*ranked.resample(rng))
    return percentile_interval(values, confidence=confidence)


class AUCRanks:
    """The scores of members and non-members ranked once, so that the AUC of any resample of
    them costs two counts per distinct score and a cumulative sum, without sorting.

    The AUC is the probability that a member scores above a non-member, ties counted half (the
    Mann-Whitney form, equal to the area under the ROC curve).

    Examples
    --------
    >>> ranks = AUCRanks([3.0, 2.0], [1.0, 2.0])
    >>> ranks.auc(np.arange(2), np.arange(2))  # 3 beats both, 2 beats 1 and ties 2
    0.875
    """

    def __init__(self, member_scores, nonmember_scores):
        positives = np.asarray(member_scores, dtype="float64").ravel()
        negatives = np.asarray(nonmember_scores, dtype="float64").ravel()
        self.n_pos, self.n_neg = positives.size, negatives.size
        _, codes = np.unique(np.concatenate([positives, negatives]), return_inverse=True)
        codes = codes.astype(np.intp)
        self.pos_codes, self.neg_codes = codes[: self.n_pos], codes[self.n_pos :]
        self.n_values = int(codes.max()) + 1 if codes.size else 0

    def resample(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Rows ``(members, non-members)`` of a bootstrap resample, each group drawn separately to
        its size (the non-members first)."""
        nonmember_rows = rng.integers(0, self.n_neg, size=self.n_neg)
        return rng.integers(0, self.n_pos, size=self.n_pos), nonmember_rows

    def auc(self, member_rows: np.ndarray, nonmember_rows: np.ndarray) -> float:
        """The AUC of the members ``member_rows`` against the non-members ``nonmember_rows``."""
        neg_counts = np.bincount(self.neg_codes[nonmember_rows], minlength=self.n_values)
        # twice the non-members strictly below each distinct score plus those equal to it, in
        # integers (a float cumulative sum from integers is several times slower)
        twice_beaten = 2 * np.cumsum(neg_counts) - neg_counts
        pairs = 2 * len(member_rows) * len(nonmember_rows)
        return float(twice_beaten[self.pos_codes[member_rows]].sum() / pairs)
