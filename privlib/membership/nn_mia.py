"""The nearest-neighbour membership attack: its AUC over every record, and its reading at low
false-positive rates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve

from privlib.declaration import SAMPLED_RELEASE, MeasureSpec, Reference
from privlib.matching import (
    attack_distances,
    check_tables,
    query_samples,
    sample_size,
)
from privlib.results import QuerySampled, per_record
from privlib.rules import Threshold, low_fpr_rule
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    auc_interval,
    check_confidence,
)
from privlib.validation import (
    QUERY_SAMPLE,
    RELEASE,
    validate_params,
)

__all__ = [
    "KEY",
    "TPR_AT_01PCT_KEY",
    "TPR_AT_1PCT_KEY",
    "NNMia",
    "nn_mia",
    "NN_MIA",
    "NN_MIA_TPR_AT_01PCT",
    "NN_MIA_TPR_AT_1PCT",
]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "nn_mia_auc"

#: The keys of the same attack read at false-positive rates of 0.1% and 1%
#: (:func:`privlib.records.nn_mia_low_fpr`).
TPR_AT_01PCT_KEY = "nn_mia_tpr_at_0.1pct"
TPR_AT_1PCT_KEY = "nn_mia_tpr_at_1pct"


@dataclass(frozen=True, kw_only=True)
class NNMia(QuerySampled):
    """Nearest-neighbour membership inference attack (:func:`nn_mia`): ``auc`` and the ROC points."""

    auc: float
    n_train: int
    n_holdout: int
    fpr: np.ndarray = per_record(default=None)
    tpr: np.ndarray = per_record(default=None)
    dcr: np.ndarray = per_record(default=None)
    is_member: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"Ranking {self.n_train} training and {self.n_holdout} holdout records by their "
            f"distance to the nearest synthetic record separates them with AUC = "
            f"{self.auc:.3f}{self._interval_text()} ({self.baseline} is guessing, 1.0 full "
            f"exposure).{self._sample_text()}"
        )


@validate_params(RELEASE | QUERY_SAMPLE)
def nn_mia(
    *,
    train,
    holdout,
    synthetic,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> NNMia:
    """Nearest-neighbour membership inference attack (Yale et al. 2019).

    Every training and holdout record is scored by minus its Gower distance to the nearest
    synthetic record (closer = more likely a member); the ROC curve and its area (AUC) say how
    well that score separates members from non-members. Numeric ranges come from the three tables
    together. Tables of unequal size are fine: AUC does not depend on the class balance.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    random_state : int, numpy.random.Generator or None
        Seed for the bootstrap of the interval and the samples of training and holdout records.
    confidence : float, default 0.95
        Level of the interval: a percentile bootstrap over records, training and holdout records
        resampled separately (:func:`privlib.uncertainty.auc_interval`).
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    NNMia
        ``.auc`` (baseline 0.5, 1.0 = every training record exposed) with its interval and
        verdict, ROC points ``.fpr`` and ``.tpr``, per record ``.dcr`` and ``.is_member``
        (training records first).

    Notes
    -----
    The AUC ranks *every* record, so a small shift of all training records towards the synthetic
    data counts as much as a few exact copies; :func:`~privlib.membership.privacy_loss` compares each record's
    nearest synthetic with its nearest real neighbour instead and reacts mostly to (near) copies.
    The two can therefore disagree on the same data, and the threshold registry's ``scope``
    says so in the report.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> holdout = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> nn_mia(train=train, holdout=holdout, synthetic=train, random_state=0).auc
    1.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    dcr, is_member = attack_distances(
        train, holdout, synthetic, client=client, rows=(rows["train"], rows["holdout"])
    )
    fpr, tpr, _ = roc_curve(is_member, -dcr)
    auc = float(roc_auc_score(is_member, -dcr))
    low, high = auc_interval(
        -dcr[is_member], -dcr[~is_member], rng=np.random.default_rng(random_state), confidence=confidence
    )
    return NNMia(
        measure=KEY,
        value=auc,
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        auc=auc,
        n_train=int(np.count_nonzero(is_member)),
        n_holdout=int(np.count_nonzero(~is_member)),
        fpr=fpr,
        tpr=tpr,
        dcr=dcr,
        is_member=is_member,
        sample_size=sample_size(*rows.values()),
    )


NN_MIA = MeasureSpec(
    KEY,
    "Nearest-neighbour membership attack (AUC)",
    "membership",
    Threshold(
        0.05,
        from_baseline=True,
        source="kit default: an attack AUC more than 0.05 above chance (0.5); Yale et al. "
        "(2019) read 0.5 as no information and publish no cut-off",
        scope="ranks every training and holdout record by its distance to the nearest "
        "synthetic record, so a small shift of all distances counts as much as a few copies",
        risk_words="distance to the synthetic data tells training from holdout records better than chance",
        safe_words="distance to the synthetic data tells training from holdout records no "
        "better than chance, within the margin",
    ),
    Reference("privlib.membership:nn_mia"),
    SAMPLED_RELEASE,
    needs=("holdout",),
    plot=Reference("privlib.measure_figures:nn_mia_figure"),
)

NN_MIA_TPR_AT_01PCT = MeasureSpec(
    # after nn_mia_auc: it reads that attack's distances again, without a second search
    TPR_AT_01PCT_KEY,
    "Distance attack at a false-positive rate of 0.1% (TPR)",
    "membership",
    low_fpr_rule("distance", "0.1%"),
    Reference("privlib.membership:nn_mia_low_fpr"),
    SAMPLED_RELEASE,
    needs=("holdout",),
    plot=Reference("privlib.measure_figures:low_fpr_figure"),
    table=Reference("privlib.records:operating_points"),
    at_risk=lambda r: (
        r.excess_members,
        "training records are called members by the distance "
        "attack at a false-positive rate of at most 0.1%, beyond the holdout rate",
    ),
)

NN_MIA_TPR_AT_1PCT = MeasureSpec(
    TPR_AT_1PCT_KEY,
    "Distance attack at a false-positive rate of 1% (TPR)",
    "membership",
    low_fpr_rule("distance", "1%"),
)
