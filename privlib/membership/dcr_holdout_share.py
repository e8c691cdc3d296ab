"""The DCR holdout share: how often a synthetic record sits closer to a training than to a holdout record."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib.declaration import SAMPLED_RELEASE, MeasureSpec, Reference
from privlib.matching import (
    check_tables,
    gower_setup,
    query_samples,
    sample_size,
    sampled,
    subsample_rows,
)
from privlib.membership.adversarial_repeats import _nearest_drawn
from privlib.neighbors import kneighbors, nearest_distances
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
    validate_params,
)

__all__ = ["KEY", "DcrHoldoutShare", "dcr_holdout_share", "DCR_HOLDOUT_SHARE"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "dcr_holdout_share"


@dataclass(frozen=True, kw_only=True)
class DcrHoldoutShare(QuerySampled):
    """Share of synthetic records closer to training than to holdout (:func:`dcr_holdout_share`)."""

    ties: float
    n_synthetic: int
    n_reference: int
    dcr_train: np.ndarray = per_record(default=None)
    dcr_holdout: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"{self.value:.1%}{self._interval_text()} of the {self.n_synthetic} synthetic records "
            f"are closer to a training record than to a holdout record (ties counted half, "
            f"{self.ties:.1%} of records tied), against {self.baseline:.0%} for a generator that "
            f"never saw its training records.{self._sample_text()}"
        )


@validate_params(RELEASE | QUERY_SAMPLE)
def dcr_holdout_share(
    *,
    synthetic,
    train,
    holdout,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> DcrHoldoutShare:
    """Share of synthetic records closer to a training record than to a holdout record.

    Distance to closest record (DCR) in Gower distance, with numeric ranges taken from training,
    holdout and synthetic data together. Training and holdout must count equally, so the larger
    of the two is subsampled (seeded) to the size of the smaller. A synthetic record exactly as
    close to both counts one half, so that a table of ties reads 0.5 like a fair coin.

    Parameters
    ----------
    synthetic, train, holdout : pandas.DataFrame
        The synthetic data, the generator's training data and real records it never saw.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling (unused when ``train`` and ``holdout`` have the same size) and
        the sample of synthetic records.
    confidence : float, default 0.95
        Level of the interval: the Wilson interval of the share closer to training among the
        untied synthetic records, mapped back with the tied share (taken as fixed) counted half.
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    DcrHoldoutShare
        ``value`` the share (baseline 0.5; well above it means memorisation) with its interval
        and verdict, ``ties`` the share of tied records, per record ``dcr_train`` and
        ``dcr_holdout``.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> holdout = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> dcr_holdout_share(synthetic=train, train=train, holdout=holdout).value
    1.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    encoder = gower_setup(train, holdout, synthetic)
    rows = query_samples(random_state, max_queries, synthetic=len(synthetic))
    queries = sampled(synthetic, rows["synthetic"])
    rng = np.random.default_rng(random_state)
    size = min(len(train), len(holdout))
    # the larger of training and holdout subsampled to the smaller's size (training drawn first);
    # each table's distances read from the search of the whole table, which dcr_zero_share and
    # privacy_loss make in an audit
    to_train, to_holdout = (
        _nearest_in_draw(queries, table, size, rng, encoder=encoder, client=client)
        for table in (train, holdout)
    )
    tied = to_train == to_holdout
    ties = float(np.mean(tied))
    closer = int(np.count_nonzero(to_train < to_holdout))
    share = closer / tied.size + 0.5 * ties
    low, high = wilson_interval(closer, int(np.count_nonzero(~tied)), confidence=confidence)
    if np.isnan(low):  # every record tied: the share is exactly one half
        low = high = share
    else:
        low, high = (1 - ties) * low + 0.5 * ties, (1 - ties) * high + 0.5 * ties
    return DcrHoldoutShare(
        measure=KEY,
        value=share,
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=WILSON,
        confidence=confidence,
        ties=ties,
        n_synthetic=len(queries),
        n_reference=size,
        dcr_train=to_train,
        dcr_holdout=to_holdout,
        sample_size=sample_size(*rows.values()),
    )


def _nearest_in_draw(query, reference, size, rng, **options) -> np.ndarray:
    """Distance from each ``query`` record to its nearest among ``size`` records of ``reference``
    drawn as :func:`privlib.matching.subsample` draws them (all of them when it has that many).

    The whole reference is searched and the nearest drawn record read from that list
    (:func:`_nearest_drawn`); only the queries whose nearest record was not drawn are searched
    among the drawn ones. The distances are those of searching the drawn records alone.
    """
    search = dict(metric="gower", **options)
    whole = kneighbors(query, reference, k=1, **search)
    if len(reference) == size:
        return whole.distances[:, 0].copy()
    rows = subsample_rows(len(reference), size, rng)
    drawn = np.zeros(len(reference), dtype=bool)
    drawn[rows] = True
    drawn_records = reference.iloc[rows]
    return _nearest_drawn(
        whole, drawn, lambda missing: nearest_distances(query.iloc[missing], drawn_records, **search)
    )


DCR_HOLDOUT_SHARE = MeasureSpec(
    KEY,
    "Synthetic records closer to training than to holdout",
    "membership",
    Threshold(
        0.05,
        from_baseline=True,
        source="kit default: more than 5 points above the 50% of a generator that memorised "
        "nothing (Clearbox AI's tutorial reads 'about 50% or below' as good, without a cut-off)",
        scope="asks of each synthetic record only which real table holds its nearest record, not how near",
        risk_words="synthetic records sit closer to training than to holdout records more often "
        "than chance allows, a sign of memorisation",
        safe_words="synthetic records sit no closer to training than to holdout records beyond chance",
    ),
    Reference("privlib.membership:dcr_holdout_share"),
    SAMPLED_RELEASE,
    needs=("holdout",),
)
