"""The distance-threshold membership attack: the precision of calling the records nearest the
synthetic data members.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.declaration import SAMPLED_RELEASE, MeasureSpec, Reference
from privlib.matching import (
    attack_distances,
    check_tables,
    query_samples,
    sample_size,
)
from privlib.results import QuerySampled, per_record
from privlib.rules import Threshold
from privlib.uncertainty import (
    DEFAULT_CONFIDENCE,
    WILSON,
    check_confidence,
    wilson_interval,
)
from privlib.validation import (
    QUERY_SAMPLE,
    RELEASE,
    Numbers,
    validate_params,
)

__all__ = ["KEY", "ThresholdAttack", "threshold_attack", "THRESHOLD_ATTACK"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "threshold_attack_precision"


@dataclass(frozen=True, kw_only=True)
class ThresholdAttack(QuerySampled):
    """Precision of the distance-threshold attack over thresholds (:func:`threshold_attack`).

    ``value`` is the precision of the adversary who calls the closer half of the attack set
    members (threshold = median DCR), with its Wilson interval over the records called;
    ``max_precision`` the best over the thresholds tried that call at least 1 % of the attack set
    members (chosen after the fact, so it has no interval and is not judged).
    """

    max_precision: float
    best_threshold: float
    n_attack: int
    thresholds: np.ndarray = per_record(default=None)
    precision: np.ndarray = per_record(default=None)
    recall: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"Calling the closer half of {self.n_attack} records (half training, half holdout) "
            f"members is right {self.value:.1%}{self._interval_text()} of the time, and the best "
            f"threshold tried reaches {self.max_precision:.1%} (threshold "
            f"{self.best_threshold:.3g}), against {self.baseline:.0%} for guessing.{self._sample_text()}"
        )


def _prf(truth: np.ndarray, predicted: np.ndarray) -> tuple[float, float, float]:
    """Precision, recall and F1 of boolean predictions; 0 where a ratio would divide by zero.

    An adversary who calls nobody a member has precision 0 here (sklearn's ``zero_division=0``
    convention), and an attack set without members gives recall 0: both mean "nothing learned",
    and they keep the mean over repetitions defined.
    """
    hits = np.count_nonzero(truth & predicted)
    called, members = np.count_nonzero(predicted), np.count_nonzero(truth)
    precision = hits / called if called else 0.0
    recall = hits / members if members else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


@validate_params(RELEASE | QUERY_SAMPLE | {"thresholds": [Numbers(low=0, scalar=False), None]})
def threshold_attack(
    *,
    train,
    holdout,
    synthetic,
    thresholds=None,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> ThresholdAttack:
    """Distance-threshold membership attack: precision over a range of thresholds.

    The adversary holds K, equally many training and holdout records (the larger table is
    subsampled, seeded), and calls a record a member when its Gower DCR to the synthetic data is
    at most the threshold (so a threshold of 0 catches exact copies). Guessing gives precision 0.5.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    thresholds : array-like of float, optional
        Gower distances to try (between 0 and 1). Default: 0 and the 2 %, 4 %, ..., 100 %
        quantiles of the attack set's DCRs, so the curve spans every share of records called.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling and the samples of training and holdout records.
    confidence : float, default 0.95
        Level of the Wilson interval of ``value`` (members among the records called).
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    ThresholdAttack
        ``value`` the precision when the closer half is called (threshold = median DCR), with its
        interval and verdict, ``max_precision`` over thresholds calling at least 1 % of K, per
        threshold ``precision`` (NaN where nobody is called) and ``recall``.
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    dcr, is_member = attack_distances(
        train,
        holdout,
        synthetic,
        np.random.default_rng(random_state),
        client,
        (rows["train"], rows["holdout"]),
    )
    if thresholds is None:
        thresholds = np.unique(np.concatenate([[0.0], np.quantile(dcr, np.linspace(0.02, 1, 50))]))
    else:
        thresholds = np.sort(np.asarray(thresholds, dtype="float64").ravel())
    called = dcr[None, :] <= thresholds[:, None]
    n_called = called.sum(axis=1)
    hits = (called & is_member[None, :]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_called > 0, hits / n_called, np.nan)
    recall = hits / is_member.sum()
    enough = n_called >= max(1, math.ceil(0.01 * dcr.size))
    if enough.any():
        best = int(np.nanargmax(np.where(enough, precision, np.nan)))
    else:  # a handful of records: take the threshold that calls the most
        best = int(np.argmax(n_called))
    median_call = dcr <= np.median(dcr)
    low, high = wilson_interval(
        int(np.count_nonzero(median_call & is_member)),
        int(np.count_nonzero(median_call)),
        confidence=confidence,
    )
    return ThresholdAttack(
        measure=KEY,
        value=_prf(is_member, median_call)[0],
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=WILSON,
        confidence=confidence,
        max_precision=float(precision[best]),
        best_threshold=float(thresholds[best]),
        n_attack=dcr.size,
        thresholds=thresholds,
        precision=precision,
        recall=recall,
        sample_size=sample_size(*rows.values()),
    )


THRESHOLD_ATTACK = MeasureSpec(
    KEY,
    "Distance-threshold membership attack (precision)",
    "membership",
    Threshold(
        0.05,
        from_baseline=True,
        source="kit default: calling the closer half members is right more than 5 points "
        "above guessing (0.5), the same margin as the attack AUC's",
        scope="calls the closer half of equally many training and holdout records members, "
        "by distance to the nearest synthetic record",
        risk_words="the records closest to the synthetic data are training records more often than guessing",
        safe_words="the records closest to the synthetic data are training records no more "
        "often than guessing, within the margin",
    ),
    Reference("privlib.membership:threshold_attack"),
    SAMPLED_RELEASE,
    needs=("holdout",),
    plot=Reference("privlib.measure_figures:threshold_attack_figure"),
)
