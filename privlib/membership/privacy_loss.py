"""The privacy loss of Yale et al. (2019): the adversarial accuracy on unseen records minus that
on training records.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib import declaration, search_reuse
from privlib.declaration import MeasureSpec, Reference, with_settings
from privlib.matching import (
    check_tables,
    query_samples,
    sample_size,
    sampled,
)
from privlib.membership.adversarial_repeats import _aa_draws, _aa_repeats, _aa_resampled, _aa_value
from privlib.membership.repetitions import _averaged_interval, _Repeated, _spread
from privlib.neighbors import nearest_distances
from privlib.results import QuerySampled
from privlib.rules import Threshold
from privlib.schema import TableEncoder
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    check_confidence,
    percentile_interval,
)
from privlib.validation import (
    QUERY_SAMPLE,
    RELEASE,
    Integer,
    validate_params,
)

__all__ = ["KEY", "PrivacyLoss", "privacy_loss", "PRIVACY_LOSS"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "privacy_loss"


@dataclass(frozen=True, kw_only=True)
class PrivacyLoss(_Repeated, QuerySampled):
    """Privacy loss AA(test) - AA(train) of Yale et al. (2019) (:func:`privacy_loss`)."""

    aa_train: float
    aa_test: float

    def reading(self) -> str:
        return self.with_judgement(
            f"The privacy loss is {self.value:.3f}{self._interval_text()}{self._spread_text()} "
            f"(adversarial accuracy {self.aa_test:.3f} on unseen records minus "
            f"{self.aa_train:.3f} on training records; {self.baseline:g} is ideal, about 0.5 a "
            f"copy).{self._sample_text()}"
        )


@validate_params(
    RELEASE | QUERY_SAMPLE | {"n_repeats": [Integer(low=1)]},
    renamed={"test": "holdout"},
)
def privacy_loss(
    *,
    train,
    holdout,
    synthetic,
    random_state=None,
    n_repeats=1,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> PrivacyLoss:
    """Privacy loss of Yale et al. (2019): AA_TS(test vs synthetic) - AA_TS(train vs synthetic).

    Both adversarial accuracies use one Gower encoder fitted on the three tables, and each
    subsamples the larger of its two tables to equal size (see
    :func:`~privlib.membership.adversarial_accuracy`).
    0 is ideal; a copy of the training data scores about 0.5 (AA on training is 0).

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling and the bootstrap.
    n_repeats : int, default 1
        Subsamplings to average over.
    confidence : float, default 0.95
        Level of the interval: a bootstrap over records of the four per-record indicator arrays
        (each resampled separately, which ignores that the two synthetic halves share records and
        so errs on the wide side), averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.
    max_queries : int, optional
        Most records per table whose indicators are read (see
        :func:`~privlib.membership.adversarial_accuracy`): the training, synthetic and test tables
        are sampled in that order, so that :func:`~privlib.membership.adversarial_accuracy` of the
        training data with the same seed reads the same training and synthetic records. ``None``:
        every record.

    Returns
    -------
    PrivacyLoss
        ``value`` the loss (baseline 0) with its interval and verdict, ``aa_train`` and
        ``aa_test``, ``repeat_low``/``repeat_high`` the spread over repetitions.

    Notes
    -----
    The loss compares, record by record, the nearest synthetic record with the nearest other real
    record, and a tie counts against the real record: it reacts to exact and near copies of
    training records. :func:`~privlib.membership.nn_mia` instead ranks every record by its distance
    to the synthetic data and also sees a general shift of the training records towards it, so the
    AUC can show a risk where the loss does not.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> holdout = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> privacy_loss(train=train, holdout=holdout, synthetic=train, random_state=0).aa_train  # a copy
    0.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    encoder = TableEncoder(metric="gower").fit(
        train, holdout, synthetic, names=["train", "holdout", "synthetic"]
    )
    rows = query_samples(
        random_state, max_queries, train=len(train), synthetic=len(synthetic), holdout=len(holdout)
    )
    samples = {"train": rows["train"], "test": rows["holdout"]}
    synthetic_rows = rows["synthetic"]
    rng = np.random.default_rng(random_state)
    tables = {"train": train, "test": holdout}
    draws = {real: _aa_draws(table, synthetic, rng, n_repeats) for real, table in tables.items()}
    # A half that subsamples searches neighbour lists, the deeper the smaller its real table,
    # whose first columns answer the other half's searches of the same tables (the synthetic
    # records' nearest other synthetic records) and later measures' (privlib.search_reuse): the
    # halves search deepest first.
    repeats = {}
    with search_reuse.shared_searches():
        synthetic_within = None
        if len(synthetic) >= max(len(train), len(holdout)):
            # the synthetic records' nearest other synthetic records count only where no farther
            # than the nearest real record of a half: one search within the wider distance, for
            # the synthetic records read (the others are never compared)
            options = dict(metric="gower", encoder=encoder, client=client)
            queries = sampled(synthetic, synthetic_rows)
            nearest_real = np.maximum(
                nearest_distances(queries, train, **options), nearest_distances(queries, holdout, **options)
            )
            synthetic_within = np.zeros(len(synthetic))
            synthetic_within[slice(None) if synthetic_rows is None else synthetic_rows] = nearest_real
        for real in sorted(tables, key=lambda real: (not draws[real], len(tables[real]))):
            repeats[real] = _aa_repeats(
                tables[real],
                synthetic,
                encoder,
                draws[real],
                client,
                synthetic_within,
                queries=(samples[real], synthetic_rows),
            )
    on_train, on_test = repeats["train"], repeats["test"]
    # a pair of equal-sized tables yields one repetition, which pairs with each of the other's
    pairs = [
        (on_test[i % len(on_test)], on_train[i % len(on_train)])
        for i in range(max(len(on_train), len(on_test)))
    ]
    losses = np.array([_aa_value(a) - _aa_value(b) for a, b in pairs])
    low, high = _averaged_interval(
        [
            percentile_interval(_aa_resampled(a, rng) - _aa_resampled(b, rng), confidence=confidence)
            for a, b in pairs
        ]
    )
    mean, spread_low, spread_high = _spread(losses)
    return PrivacyLoss(
        measure=KEY,
        value=mean,
        baseline=0.0,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        aa_train=float(np.mean([_aa_value(r) for r in on_train])),
        aa_test=float(np.mean([_aa_value(r) for r in on_test])),
        n_repeats=losses.size,
        repeat_low=spread_low,
        repeat_high=spread_high,
        repeats=losses,
        sample_size=sample_size(*rows.values()),
    )


PRIVACY_LOSS = MeasureSpec(
    KEY,
    "Privacy loss (Yale et al.)",
    "membership",
    Threshold(
        0.1,
        from_baseline=True,
        source="kit default: a fifth of the 0.5 that copying the training data gives (Yale et "
        "al. 2019 read 0 as ideal and publish no cut-off)",
        scope="compares, record by record, the nearest synthetic with the nearest other real "
        "record, once for training and once for unseen records; ties count against the real "
        "record, so it reacts to exact and near copies rather than to a general shift",
        risk_words="synthetic records stand in for their training records, as near copies do, "
        "clearly more than for unseen records",
        safe_words="synthetic records stand in for training records no more than for unseen "
        "records, within the margin",
    ),
    Reference("privlib.membership:privacy_loss"),
    with_settings(
        lambda c: {
            "train": c.train,
            "holdout": c.holdout,
            "synthetic": c.synthetic,
            "max_queries": declaration.MAX_DISTANCE_QUERIES,  # read when called: one bound for all
        },
        random_state="seed",
        n_repeats="repeats",
    ),
    needs=("holdout",),
    # its repetitions' neighbour lists answer the distance attacks' and adversarial
    # accuracy's nearest-record searches (of the same MAX_DISTANCE_QUERIES records per table)
    searches_first=True,
)
