"""The distance to the closest record (Clearbox AI's DCR): the Gower distance from each synthetic
record to the nearest real record on the exact engine of :mod:`privlib.neighbors` (:func:`dcr`), and
its summary judged by the share of synthetic records at distance 0 (:func:`dcr_summary`), with its
declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib import neighbors
from privlib.declaration import SAMPLED_RELEASE, MeasureSpec, Reference
from privlib.identity.shares import _check_release, _pct, _share_interval
from privlib.matching import query_samples, sample_size, sampled
from privlib.results import QuerySampled, per_record
from privlib.rules import CHANCE_COPIES, Threshold
from privlib.schema import TableEncoder, check_comparable, check_frame
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import (
    CLIENT,
    CONFIDENCE,
    Boolean,
    Instance,
    Integer,
    Number,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["DCRSummary", "dcr", "dcr_summary"]

KEY = "dcr_zero_share"


# --------------------------------------------------------------------------------------------
# Distance to closest record
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "max_memory_mb": [Number(low=1)],
        "n_jobs": [Integer(low=-1), None],
        "progress": [Boolean()],
        "encoder": [Instance(TableEncoder), None],
        "client": [CLIENT, None],
    },
    renamed={"reference": "train"},
)
def dcr(*, synthetic, train, encoder=None, max_memory_mb=256, n_jobs=None, progress=False, client=None):
    """Distance to closest record: the Gower distance from each synthetic record to the nearest
    record of ``train``.

    DCR(s) = min over r in ``train`` of Gower(s, r), where the Gower distance is the mean
    over the variables of the per-variable distances: 0 or 1 for a categorical variable,
    ``|a - b| / range`` for a numeric one (Gower 1971). A DCR of 0 means an exact copy.

    Parameters
    ----------
    synthetic : pandas.DataFrame
        The synthetic records.
    train : pandas.DataFrame
        The real records searched (usually the training data), with the same columns.
    encoder : privlib.schema.TableEncoder, optional
        A fitted Gower encoder fixing the numeric ranges. By default the ranges are taken from
        ``synthetic`` and ``train`` together. Pass one fitted on every table of a comparison
        (e.g. training, holdout and synthetic data) to put several DCRs on one scale.
    max_memory_mb : float, default 256
        Bound on the working memory of the neighbour search (:mod:`privlib.neighbors`).
    n_jobs : int, optional
        Threads for the neighbour search (``None``: all cores).
    progress : bool, default False
        Show a progress bar.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    numpy.ndarray of shape (len(synthetic),), float64
        One distance in [0, 1] per synthetic record, in row order.

    Raises
    ------
    PrivlibError
        If a table is empty or not a DataFrame, the columns differ, or a variable is numeric in
        one table and categorical in the other.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"age": [20.0, 60.0], "sex": ["F", "M"]})
    >>> fake = pd.DataFrame({"age": [20.0, 30.0], "sex": ["F", "M"]})
    >>> dcr(synthetic=fake, train=real).tolist()
    [0.0, 0.375]
    """
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    check_frame(train, "train", allow_missing_columns=True)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    return neighbors.nearest_distances(
        synthetic[list(train.columns)],
        train,
        metric="gower",
        encoder=encoder,
        max_memory_mb=max_memory_mb,
        n_jobs=n_jobs,
        progress=progress,
        client=client,
    )


@dataclass(frozen=True, kw_only=True)
class DCRSummary(QuerySampled):
    """Distances to closest training record, summarised for a report.

    Attributes
    ----------
    value : float
        Share of synthetic records at distance 0 from the training data (exact copies).
    baseline : float or None
        Share of holdout records at distance 0 from the training data: how often a real person
        the generator never saw coincides with a training record by chance.
    median, percentile_5 : float
        Median and 5th percentile of the synthetic records' DCR.
    holdout_median : float or None
        Median DCR of the holdout records.
    distances, holdout_distances : numpy.ndarray
        DCR per synthetic (holdout) record.
    """

    median: float
    percentile_5: float
    holdout_median: float | None = None
    distances: np.ndarray = per_record(default=None)
    holdout_distances: np.ndarray | None = per_record(default=None)

    def reading(self) -> str:
        text = (
            f"{_pct(self.value)}{self._interval_text()} of the synthetic records are exact copies "
            f"(distance 0) of a training record, median distance {self.median:.3f}"
        )
        if self.baseline is None:
            return self.with_judgement(
                text
                + "; give a holdout set to see how close new real people come by chance."
                + self._sample_text()
            )
        assert self.holdout_median is not None  # measured on the holdout, as the baseline is
        text += (
            f"; for holdout records, real people the generator never saw, {_pct(self.baseline)} "
            f"and {self.holdout_median:.3f}"
        )
        # Near copies too: an additive-noise generator makes no exact copy yet sits next to
        # every training record, which the ratio of the medians shows.
        if self.median > 0:
            text += (
                f": a typical new real person sits {self.holdout_median / self.median:.3g} "
                "times as far from the training data as a typical synthetic record."
            )
        else:
            text += ": a typical synthetic record sits on a training record."
        return self.with_judgement(text + self._sample_text())


@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table(), None],
        "max_memory_mb": [Number(low=1)],
        "n_jobs": [Integer(low=-1), None],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "random_state": [RandomState()],
        "max_queries": [Integer(low=2), None],
    }
)
def dcr_summary(
    *,
    synthetic,
    train,
    holdout=None,
    max_memory_mb=256,
    n_jobs=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    random_state=None,
    max_queries=None,
) -> DCRSummary:
    """Summarise the distances to closest training record, with a holdout baseline.

    The baseline asks how close *real* people the generator never saw come to the training
    data: the DCR of each holdout record to the training data. Both sets of distances search the
    same reference table (``train``), so the comparison is fair whatever the sizes of the
    synthetic and holdout sets. Gower ranges are taken from the training, synthetic and holdout
    data together, so both distances use one scale.

    Parameters
    ----------
    synthetic, train : pandas.DataFrame
        The synthetic records and the real records the generator was trained on.
    holdout : pandas.DataFrame, optional
        Real records from the same population, not used for training.
    max_memory_mb, n_jobs, client
        Passed to the neighbour search (see :func:`dcr`).
    confidence : float, default 0.95
        Level of the Wilson interval of ``value``.
    random_state : int, numpy.random.Generator or None
        Seed of the samples of synthetic and holdout records (only drawn beyond ``max_queries``).
    max_queries : int, optional
        Most synthetic and most holdout records whose distances are read: beyond it a seeded
        sample of that many (:func:`privlib.matching.query_samples`), each searched among every
        training record. ``None``: every record.

    Returns
    -------
    DCRSummary
        ``value``: share of synthetic records at distance 0, with its interval and verdict (as
        :func:`identical_match_share`); ``baseline``: the same share for the holdout records;
        median and 5th percentile; per-record distances.

    Raises
    ------
    PrivlibError
        As :func:`dcr`.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"age": [20.0, 40.0, 60.0]})
    >>> dcr_summary(synthetic=train, train=train).value
    1.0
    """
    confidence = check_confidence(confidence)
    _check_release(synthetic, train, holdout)
    frames, names = [train, synthetic], ["train", "synthetic"]
    if holdout is not None:
        frames.append(holdout)
        names.append("holdout")
    columns = list(train.columns)
    encoder = TableEncoder(metric="gower", columns=columns).fit(*frames, names=names)
    search = dict(encoder=encoder, max_memory_mb=max_memory_mb, n_jobs=n_jobs, client=client)
    sizes = {"synthetic": len(synthetic)} | ({} if holdout is None else {"holdout": len(holdout)})
    rows = query_samples(random_state, max_queries, **sizes)
    distances = dcr(synthetic=sampled(synthetic, rows["synthetic"]), train=train, **search)
    holdout_distances = (
        dcr(synthetic=sampled(holdout, rows["holdout"]), train=train, **search)
        if holdout is not None
        else None
    )
    return DCRSummary(
        measure=KEY,
        value=float(np.mean(distances == 0)),
        **_share_interval(np.count_nonzero(distances == 0), distances.size, confidence),
        baseline=float(np.mean(holdout_distances == 0)) if holdout is not None else None,
        median=float(np.median(distances)),
        percentile_5=float(np.percentile(distances, 5)),
        holdout_median=float(np.median(holdout_distances)) if holdout_distances is not None else None,
        distances=distances,
        holdout_distances=holdout_distances,
        sample_size=sample_size(*rows.values()),
    )


DCR_ZERO_SHARE = MeasureSpec(
    KEY,
    "Identical copies: synthetic records equal to a training record in every value",
    "identity",
    Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=CHANCE_COPIES,
        scope="counts synthetic records at Gower distance 0 from a training record (exact "
        "copies); its median distance, reported beside it, shows near copies",
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data copies training records exactly no more often than it "
        "matches unseen people, within the margin; near copies are read from the median "
        "distance and the distance measures",
    ),
    Reference("privlib.identity.dcr:dcr_summary"),
    SAMPLED_RELEASE,
    plot=Reference("privlib.measure_figures:dcr_figure"),
)
