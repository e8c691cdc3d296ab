"""The AUC of two groups of scores, its bootstrap interval, and its exact one-sided
Wilcoxon-Mann-Whitney test with ties at mid-ranks: the per-target tests of the targeted attacks.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from privlib.uncertainty import bootstrap_interval
from privlib.validation import Numbers, validate_params

__all__ = ["rank_sum_p_value"]


def _auc(out: np.ndarray, inside: np.ndarray) -> float:
    """Share of (non-member, member) pairs ranked right, ties counting half: the ROC AUC.

    The Mann-Whitney form, ``(R - n1 (n1 + 1) / 2) / (n0 n1)`` with ``R`` the rank sum of the
    members (Hanley & McNeil 1982); it equals ``sklearn.metrics.roc_auc_score`` and, without its
    input checks, is fast enough to run inside a bootstrap.
    """
    ranks = rankdata(np.concatenate([out, inside]))
    n_out, n_in = len(out), len(inside)
    return float((ranks[n_out:].sum() - n_in * (n_in + 1) / 2) / (n_out * n_in))


def _rank_sum_tail(out: np.ndarray, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The exact null distribution of the members' doubled rank sum, given the pooled scores.

    Mid-ranks are halves, so twice a rank is a whole number. ``ways[k, s]`` counts the ``k``-subsets
    of the pooled scores seen so far whose doubled ranks sum to ``s`` (a knapsack count over the
    scores). Returns every doubled sum ``s`` that some choice of ``len(inside)`` scores reaches, the
    probability ``P(sum >= s)`` of each under random labelling, and the observed sum.
    """
    n_in = len(inside)
    doubled = np.rint(2 * rankdata(np.concatenate([out, inside]))).astype(int)
    ways = np.zeros((n_in + 1, int(doubled.sum()) + 1))
    ways[0, 0] = 1.0
    for weight in doubled:  # every weight >= 2, so the slices below are never empty
        ways[1:, weight:] = ways[1:, weight:] + ways[:-1, :-weight]
    counts = ways[n_in]
    reached = np.flatnonzero(counts)
    tail = np.cumsum(counts[reached][::-1])[::-1] / counts.sum()
    return reached, tail, int(doubled[len(out) :].sum())


@validate_params(
    {"out": [Numbers(scalar=False, finite=False)], "inside": [Numbers(scalar=False, finite=False)]},
    skip_nested=True,
)
def rank_sum_p_value(out, inside) -> float:
    """One-sided p-value of the exact Wilcoxon-Mann-Whitney test that ``inside`` scores higher.

    The probability, over every way of choosing which ``len(inside)`` of the pooled scores are
    labelled "inside" (all equally likely when the labels mean nothing), of a rank sum at least
    the observed one; ties take their mid-ranks and the count is exact for them too (Hollander,
    Wolfe & Chicken 2014, Section 4.1). The AUC of the scores is the same statistic,
    ``(R - n (n + 1) / 2) / (n_out n)``, so this is the exact p-value of that AUC.

    Examples
    --------
    >>> rank_sum_p_value([0.1, 0.2], [0.3, 0.4])  # 1 of the C(4, 2) = 6 labellings ranks as high
    0.16666666666666666
    """
    reached, tail, observed = _rank_sum_tail(np.asarray(out, float), np.asarray(inside, float))
    return float(tail[np.searchsorted(reached, observed)])


def _chance_auc(out: np.ndarray, inside: np.ndarray, level: float) -> float:
    """The largest AUC whose exact p-value exceeds ``level`` for these pooled scores: an AUC above
    it is significant at ``level``; 1.0 when no AUC can be."""
    reached, tail, _ = _rank_sum_tail(out, inside)
    significant = np.flatnonzero(tail <= level)
    if significant.size == 0:
        return 1.0
    n_out, n_in = len(out), len(inside)
    below = reached[significant[0] - 1]  # the p-value of the smallest sum, P(sum >= min), is 1
    return float((below / 2 - n_in * (n_in + 1) / 2) / (n_out * n_in))


def _auc_with_interval(groups, rng, confidence) -> tuple[float, float, float]:
    """Mean AUC over (out, in) score pairs of groups, with a bootstrap interval."""

    def mean_auc(*resampled):
        return float(np.mean([_auc(out, inside) for out, inside in zip(resampled[::2], resampled[1::2])]))

    value = mean_auc(*groups)
    low, high = bootstrap_interval(mean_auc, groups, rng=rng, confidence=confidence)
    return value, low, high
