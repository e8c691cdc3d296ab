"""The nearest-neighbour adversarial accuracy of Yale et al. (2019): can real and synthetic
records be told apart by their nearest neighbours?
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib import declaration
from privlib.declaration import MeasureSpec, Reference, with_settings
from privlib.matching import (
    check_tables,
    query_samples,
    sample_size,
)
from privlib.membership.adversarial_repeats import _aa_draws, _aa_repeats, _aa_resampled, _aa_value
from privlib.membership.repetitions import _averaged_interval, _Repeated, _spread
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
    CLIENT,
    CONFIDENCE,
    Integer,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KEY", "AdversarialAccuracy", "adversarial_accuracy", "ADVERSARIAL_ACCURACY"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "adversarial_accuracy"


@dataclass(frozen=True, kw_only=True)
class AdversarialAccuracy(_Repeated, QuerySampled):
    """Nearest-neighbour adversarial accuracy AA_TS (:func:`adversarial_accuracy`).

    ``baseline`` is the accuracy of two indistinguishable tables, ``0.5 (1 - ties)``: the strict
    ">" counts a tied comparison against the real record, and the untied ones split evenly.
    """

    aa_target: float
    aa_synthetic: float
    ties: float
    n: int

    def reading(self) -> str:
        return self.with_judgement(
            f"The nearest-neighbour adversarial accuracy on {self.n} records per table is "
            f"{self.value:.3f}{self._interval_text()}{self._spread_text()} (target side "
            f"{self.aa_target:.3f}, synthetic side {self.aa_synthetic:.3f}); with {self.ties:.0%} "
            f"of the comparisons tied, indistinguishable tables would score {self.baseline:.3f}, "
            f"and copies score near 0.{self._sample_text()}"
        )


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "max_queries": [Integer(low=2), None],
    },
    renamed={"target": "train"},
)
def adversarial_accuracy(
    *,
    train,
    synthetic,
    random_state=None,
    n_repeats=1,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> AdversarialAccuracy:
    """Nearest-neighbour adversarial accuracy AA_TS (Yale et al. 2019).

    AA_TS = 1/2 [ mean_i 1(d_TS(i) > d_TT(i)) + mean_i 1(d_ST(i) > d_SS(i)) ], with Gower distances
    (ranges from both tables): d_TS(i) from target record i to its nearest synthetic record, d_TT(i)
    to its nearest other target record, and likewise d_ST, d_SS for synthetic records. The strict
    ">" of the formula is kept, so a tie counts as "the synthetic record is as close", i.e. against
    the real records: tables of many ties (few distinct values) read lower than 0.5 even when
    indistinguishable, so the baseline is ``0.5 (1 - ties)``, the accuracy of indistinguishable
    tables with that share of ties. The two tables must have the same size; the larger is
    subsampled (seeded).

    Parameters
    ----------
    train : pandas.DataFrame
        Real records (the training data, or a test set).
    synthetic : pandas.DataFrame
        Synthetic data with the same columns.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling and the bootstrap.
    n_repeats : int, default 1
        Subsamplings to average over (ignored when the tables already have the same size).
    confidence : float, default 0.95
        Level of the interval: a bootstrap over records of the per-record indicators (each half
        resampled separately), averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.
    max_queries : int, optional
        Most records per table whose indicators are read: a larger table contributes a seeded
        sample of this many (drawn before the subsamples), each still searched among every
        record, so every indicator read is exact and the value estimates the whole tables' with
        the interval of the sample (``sample_size``). ``None``: every record.

    Returns
    -------
    AdversarialAccuracy
        ``value`` AA_TS (near 0 = copies, near 1 = far from real) with its interval and verdict
        (lower is riskier), ``baseline`` the tie-aware chance level, ``aa_target`` and
        ``aa_synthetic`` the two halves, ``ties`` the share of comparisons (d_TS vs d_TT, d_ST
        vs d_SS) that are equal, ``repeat_low``/``repeat_high`` the spread over repetitions.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> adversarial_accuracy(train=real, synthetic=real, random_state=0).value  # a copy
    0.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, synthetic=synthetic)
    encoder = TableEncoder(metric="gower").fit(train, synthetic, names=["train", "synthetic"])
    # the target drawn as a training table is: with one seed adversarial accuracy and privacy_loss
    # read the same records, and an audit searches them once
    rows = query_samples(random_state, max_queries, train=len(train), synthetic=len(synthetic))
    queries = (rows["train"], rows["synthetic"])
    rng = np.random.default_rng(random_state)
    draws = _aa_draws(train, synthetic, rng, n_repeats)
    repeats = _aa_repeats(train, synthetic, encoder, draws, client, queries=queries)
    values = np.array([_aa_value(r) for r in repeats])
    low, high = _averaged_interval(
        [percentile_interval(_aa_resampled(r, rng), confidence=confidence) for r in repeats]
    )
    mean, spread_low, spread_high = _spread(values)
    ties = float(np.mean([r[2] for r in repeats]))
    return AdversarialAccuracy(
        measure=KEY,
        value=mean,
        baseline=0.5 * (1 - ties),
        higher_is_riskier=False,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        aa_target=float(np.mean([r[0].mean() for r in repeats])),
        aa_synthetic=float(np.mean([r[1].mean() for r in repeats])),
        ties=ties,
        n=min(len(train), len(synthetic)),
        n_repeats=len(values),
        repeat_low=spread_low,
        repeat_high=spread_high,
        repeats=values,
        sample_size=sample_size(*rows.values()),
    )


ADVERSARIAL_ACCURACY = MeasureSpec(
    KEY,
    "Nearest-neighbour adversarial accuracy",
    "membership",
    Threshold(
        0.05,
        from_baseline=True,
        higher_is_riskier=False,
        lowest=0.0,
        highest=1.0,
        source="kit default: more than 0.05 below the accuracy of indistinguishable tables "
        "(0.5 less half the share of tied comparisons, which the strict '>' of Yale et al. "
        "2019 counts against the real record), the same margin as the attack AUC's",
        scope="compares, record by record, the nearest record in the other table with the "
        "nearest record in the same table; many ties (repeated values) lower it even for "
        "indistinguishable tables, hence the tie-aware baseline",
        risk_words="synthetic records sit closer to real ones than real records sit to each "
        "other, as copies do",
        safe_words="real and synthetic records are no easier to tell apart by their nearest "
        "neighbours than two samples of one distribution, within the margin",
    ),
    Reference("privlib.membership:adversarial_accuracy"),
    with_settings(
        lambda c: {
            "train": c.train,
            "synthetic": c.synthetic,
            "max_queries": declaration.MAX_DISTANCE_QUERIES,
        },
        random_state="seed",
        n_repeats="repeats",
    ),
)
