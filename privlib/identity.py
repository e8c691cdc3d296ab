"""Identity disclosure: can a synthetic record be tied to a real person?

Four measures, from the bluntest to the most specific (each function cites its source):

* :func:`identical_match_share` - synthetic records that are exact copies of training records,
  beside the copies of holdout records that chance alone produces;
* :func:`dcr` and :func:`dcr_summary` - the Gower distance from each synthetic record to the
  closest real record (Clearbox AI's DCR), on the exact neighbour engine of
  :mod:`privlib.neighbors`;
* :func:`replicated_uniques` - people unique on a set of key variables whose key combination is
  also unique in the synthetic data (synthpop's ``replicated.uniques``, Nowok et al. 2016),
  beside the holdout's unique people that the same release replicates;
* :func:`match_risk` - the expected match risk, true match rate and false match rate of a
  partially synthetic file (Reiter & Mitra 2009; Hornby & Hu 2021).

Every comparison of values treats a missing value as equal to a missing value and different
from every real value, as the distances of the kit do.

Every measure returns its value with a confidence interval (``ci_low``, ``ci_high``): the Wilson
interval for the shares (Newcombe's for the replicated uniques' excess over the holdout), a
seeded bootstrap over targets for the expected match risk
(:mod:`privlib.uncertainty`), and a verdict from the threshold registry (:mod:`privlib.thresholds`).
The shares of copies are judged against what chance gives: the same share for a holdout sample of
real people the generator never saw. The copy counts see exact copies only; a generator that moves
every record a little makes none, which :func:`dcr_summary`'s median distance and the membership
measures show.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import cast

import numpy as np
import pandas as pd
from scipy.stats import hypergeom

from privlib import neighbors
from privlib.errors import DataError, ParameterError
from privlib.matching import (
    comparable_values,
    count_matches,
    joint_codes,
    query_samples,
    sample_size,
    sampled,
)
from privlib.records import NEWCOMBE, _newcombe
from privlib.results import QuerySampled, Result, per_record
from privlib.schema import (
    NUMERIC,
    TableEncoder,
    check_columns,
    check_comparable,
    check_frame,
    infer_kinds,
    numeric_values,
)
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    WILSON,
    check_confidence,
    percentile_interval,
    resampled_means,
    wilson_interval,
)
from privlib.validation import (
    CLIENT,
    CONFIDENCE,
    TOLERANCES,
    Boolean,
    Instance,
    Integer,
    Names,
    Number,
    RandomState,
    Table,
    validate_params,
)

__all__ = [
    "identical_match_share",
    "dcr",
    "dcr_summary",
    "replicated_uniques",
    "match_risk",
    "singling_out",
    "linkability",
    "copy_test",
    "IdenticalMatchShare",
    "DCRSummary",
    "ReplicatedUniques",
    "MatchRisk",
]


# --------------------------------------------------------------------------------------------
# Shared helpers
# --------------------------------------------------------------------------------------------
def _row_codes(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> list[np.ndarray]:
    """:func:`joint_codes` of whole rows on ``columns`` (kinds taken from the first frame)."""
    kinds = infer_kinds(frames[0][list(columns)])
    return joint_codes([[comparable_values(frame[c], kinds[c]) for c in columns] for frame in frames])


def _share(count: int, total: int) -> float:
    return count / total if total else math.nan


def _pct(value: float) -> str:
    return "undefined" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def _share_interval(count: int | np.integer, total: int, confidence: float) -> dict:
    """The interval fields of a share ``count / total``: Wilson."""
    low, high = wilson_interval(int(count), int(total), confidence=confidence)
    return dict(ci_low=low, ci_high=high, ci_method=WILSON, confidence=confidence)


# --------------------------------------------------------------------------------------------
# Identical matches
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class IdenticalMatchShare(Result):
    """Share of synthetic records that are exact copies of a training record.

    Attributes
    ----------
    value : float
        Share of synthetic records equal, on every variable, to at least one training record.
    baseline : float or None
        Share of synthetic records equal to at least one holdout record (``None`` without a
        holdout): the copies that chance alone produces.
    n_synthetic, n_train_matches, n_holdout_matches : int
        Number of synthetic records, and how many of them equal a training (holdout) record.
    in_train, in_holdout : numpy.ndarray of bool
        Per synthetic record: equal to some training (holdout) record.
    """

    n_synthetic: int
    n_train_matches: int
    n_holdout_matches: int | None = None
    in_train: np.ndarray = per_record(default=None)
    in_holdout: np.ndarray | None = per_record(default=None)

    def reading(self) -> str:
        text = (
            f"{_pct(self.value)}{self._interval_text()} of the synthetic records "
            f"({self.n_train_matches} of {self.n_synthetic}) are exact copies of a training record"
        )
        if self.baseline is None:
            text += "; without a holdout there is no chance level to compare with."
        else:
            text += (
                f", against {_pct(self.baseline)} that equal a holdout record (the chance level): "
                f"{100 * (self.value - self.baseline):+.1f} percentage points."
            )
        return self.with_judgement(text)


def _check_release(synthetic, train, holdout) -> None:
    """Validate synthetic, training and (optional) holdout tables against the training columns."""
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    check_frame(train, "train", allow_missing_columns=True)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    if holdout is not None:
        check_frame(holdout, "holdout", allow_missing_columns=True)
        check_comparable(train, holdout, ("train", "holdout"), unseen="ignore")


@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table(), None],
        "confidence": [CONFIDENCE],
    }
)
def identical_match_share(
    *, synthetic, train, holdout=None, confidence=DEFAULT_CONFIDENCE
) -> IdenticalMatchShare:
    """Share of synthetic records that equal a training record exactly, beside a holdout baseline.

    A record "equals" another when every variable holds the same value; a missing value equals a
    missing value. Low-cardinality data makes exact copies by chance (four binary variables allow
    only 16 distinct people), so the share of synthetic records that equal a record of a holdout
    set, real people the generator never saw, is the baseline to compare with.

    Parameters
    ----------
    synthetic : pandas.DataFrame
        The released synthetic data.
    train : pandas.DataFrame
        The real records the generator was trained on, with the same columns.
    holdout : pandas.DataFrame, optional
        Real records from the same population that the generator never saw, with the same
        columns. The comparison is fair when it has as many records as ``train``: a larger table
        offers more records to coincide with.
    confidence : float, default 0.95
        Level of the Wilson interval of ``value``.

    Returns
    -------
    IdenticalMatchShare
        ``value`` (share of copies of training records) with its interval and verdict (judged
        against ``baseline`` plus a margin, or a fixed share without a holdout: see
        :mod:`privlib.thresholds`), ``baseline`` (share of copies of holdout records, or
        ``None``), and per synthetic record the flags ``in_train``, ``in_holdout``.

    Raises
    ------
    PrivlibError
        If a table is empty or not a DataFrame, or the tables have different columns or a
        variable that is numeric in one and categorical in another.

    Notes
    -----
    Rows are compared through one integer code per distinct row (a joint factorisation of the
    tables), so the cost grows linearly with the number of records.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"sex": ["F", "M"], "age": [30, 40]})
    >>> synthetic = pd.DataFrame({"sex": ["F", "F"], "age": [30, 41]})
    >>> identical_match_share(synthetic=synthetic, train=train).value
    0.5
    """
    confidence = check_confidence(confidence)
    _check_release(synthetic, train, holdout)
    frames = [synthetic, train] + ([holdout] if holdout is not None else [])
    codes = _row_codes(frames, list(train.columns))
    in_train = np.isin(codes[0], codes[1])
    in_holdout = np.isin(codes[0], codes[2]) if holdout is not None else None
    n = len(synthetic)
    return IdenticalMatchShare(
        measure="identical_match_share",
        value=float(in_train.mean()),
        **_share_interval(in_train.sum(), n, confidence),
        baseline=float(in_holdout.mean()) if in_holdout is not None else None,
        n_synthetic=n,
        n_train_matches=int(in_train.sum()),
        n_holdout_matches=int(in_holdout.sum()) if in_holdout is not None else None,
        in_train=in_train,
        in_holdout=in_holdout,
    )


# --------------------------------------------------------------------------------------------
# Distance to closest record
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "synthetic": [Table()],
        "reference": [Table()],
        "max_memory_mb": [Number(low=1)],
        "n_jobs": [Integer(low=-1), None],
        "progress": [Boolean()],
        "encoder": [Instance(TableEncoder), None],
        "client": [CLIENT, None],
    }
)
def dcr(*, synthetic, reference, encoder=None, max_memory_mb=256, n_jobs=None, progress=False, client=None):
    """Distance to closest record: the Gower distance from each synthetic record to the nearest
    record of ``reference``.

    DCR(s) = min over r in ``reference`` of Gower(s, r), where the Gower distance is the mean
    over the variables of the per-variable distances: 0 or 1 for a categorical variable,
    ``|a - b| / range`` for a numeric one (Gower 1971). A DCR of 0 means an exact copy.

    Parameters
    ----------
    synthetic : pandas.DataFrame
        The synthetic records.
    reference : pandas.DataFrame
        The real records searched (usually the training data), with the same columns.
    encoder : privlib.schema.TableEncoder, optional
        A fitted Gower encoder fixing the numeric ranges. By default the ranges are taken from
        ``synthetic`` and ``reference`` together. Pass one fitted on every table of a comparison
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
    >>> dcr(synthetic=fake, reference=real).tolist()
    [0.0, 0.375]
    """
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    check_frame(reference, "reference", allow_missing_columns=True)
    check_comparable(reference, synthetic, ("reference", "synthetic"), unseen="ignore")
    return neighbors.nearest_distances(
        synthetic[list(reference.columns)],
        reference,
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
    distances = dcr(synthetic=sampled(synthetic, rows["synthetic"]), reference=train, **search)
    holdout_distances = (
        dcr(synthetic=sampled(holdout, rows["holdout"]), reference=train, **search)
        if holdout is not None
        else None
    )
    return DCRSummary(
        measure="dcr_zero_share",
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


# --------------------------------------------------------------------------------------------
# Replicated uniques
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ReplicatedUniques(Result):
    """Records unique on the keys in the original data whose key combination is also unique in
    the synthetic data, against the holdout's unique records replicated by the same release.

    Attributes
    ----------
    value : float
        With a holdout: ``train_share - holdout_share``, the training uniques' excess over the
        holdout uniques that the same release replicates (baseline 0), with Newcombe's interval.
        Without: ``train_share`` with its Wilson interval (no baseline). NaN when a group the
        value needs has no unique record.
    train_share : float
        ``n_replicated / n_unique_original``: the share of the original data's unique records
        replicated.
    holdout_share : float or None
        ``n_replicated_holdout / n_unique_holdout``: the share of the holdout's unique records
        (unique among the holdout records) whose combination the release carries as a unique
        record, what chance and the population give people the generator never saw.
    p_value : float or None
        Fisher's exact test, one-sided: the chance of at least ``n_replicated`` replicated among
        the training uniques were training and holdout uniques replicated alike.
    keys : tuple of str
        The key variables.
    n_replicated, n_replicated_holdout : int
        Unique original (holdout) records whose combination is unique in the synthetic data.
    n_unique_original, n_unique_holdout, n_unique_synthetic : int
        Records unique on the keys in each table (``n_unique_holdout`` 0 without a holdout).
    n_original, n_synthetic : int
        Number of records in each table.
    replicated_original, replicated_synthetic : numpy.ndarray of bool
        Per original (synthetic) record: it is a replicated unique of the original data.
    """

    keys: tuple
    train_share: float
    holdout_share: float | None
    p_value: float | None
    n_replicated: int
    n_replicated_holdout: int
    n_unique_original: int
    n_unique_holdout: int
    n_unique_synthetic: int
    n_original: int
    n_synthetic: int
    replicated_original: np.ndarray = per_record(default=None)
    replicated_synthetic: np.ndarray = per_record(default=None)

    @property
    def records_at_risk(self) -> int:
        """Training uniques replicated beyond the holdout uniques' share (all of the replicated
        ones without a holdout, or when the holdout has no unique record to compare with)."""
        if self.holdout_share is None or math.isnan(self.holdout_share):
            return self.n_replicated
        return max(0, round(self.n_replicated - self.holdout_share * self.n_unique_original))

    def reading(self) -> str:
        keys = ", ".join(map(str, self.keys))
        if self.n_unique_original == 0:
            return self.with_judgement(
                f"No original record is unique on {keys}, so no unique person can be "
                "replicated in the synthetic data."
            )
        text = (
            f"Of the {self.n_unique_original} original records unique on {keys} "
            f"({_pct(self.n_unique_original / self.n_original)} of the data), "
            f"{self.n_replicated} ({_pct(self.train_share)}) have a key combination that is also "
            "unique in the synthetic data, where a record on that combination stands for exactly "
            "one real person"
        )
        if self.holdout_share is None:
            return self.with_judgement(f"{text}{self._interval_text()}.")
        if self.n_unique_holdout == 0:
            return self.with_judgement(
                f"{text}; no holdout record is unique on the keys, so there is no control."
            )
        return self.with_judgement(
            f"{text}; the same release replicates {self.n_replicated_holdout} of the "
            f"{self.n_unique_holdout} holdout records unique on the keys ({_pct(self.holdout_share)}), "
            f"people it never saw: an excess of {self.value:+.3f}{self._interval_text()} for the "
            f"training records (Fisher's exact test, one-sided: p = {self.p_value:.2g})."
        )


@validate_params(
    {
        "original": [Table()],
        "synthetic": [Table()],
        "keys": [Names(), None],
        "holdout": [Table(), None],
        "confidence": [CONFIDENCE],
    }
)
def replicated_uniques(
    *, original, synthetic, keys=None, holdout=None, confidence=DEFAULT_CONFIDENCE
) -> ReplicatedUniques:
    """Count the original data's unique records whose key combination is also unique in the
    synthetic data.

    A record is unique on the keys when no other record of its table shares its key values. When
    such a combination is unique in the synthetic data too, the one synthetic record that carries
    it points at one real person: an adversary who knows that person's keys finds "their" record
    (synthpop's ``replicated.uniques``; Nowok, Raab & Dibben 2016; Raab et al.).

    Parameters
    ----------
    original : pandas.DataFrame
        The real (confidential) records.
    synthetic : pandas.DataFrame
        The synthetic records.
    keys : sequence of str, optional
        The key variables, columns of both tables. ``None`` uses every column of ``original``.
    holdout : pandas.DataFrame, optional
        Real records of other people from the same population the generator never saw, with the
        keys, ideally as many as the original records: the control. Its records unique among
        themselves are replicated by the same release only by chance and through what it says
        about the population, so ``value`` is the training uniques' excess over them.
    confidence : float, default 0.95
        Level of the interval of ``value`` (Newcombe's with a holdout, Wilson's without).

    Returns
    -------
    ReplicatedUniques
        Unjudged: ``value`` (with a holdout the excess share, baseline 0; without, the share
        of the original uniques replicated, no baseline) with its interval, the counts, Fisher's
        p-value, and per record of each table the flag ``replicated_original`` /
        ``replicated_synthetic``.

    Notes
    -----
    The control is the holdout's own unique records, replicated by the same release: a release
    that carries few unique combinations (MST at a small epsilon) replicates few uniques of
    anyone, and one that carries many replicates many, so only the difference between the two
    groups of people is about the training data. (Until issue 31 the control was the share of
    the *training* uniques that are also unique among the holdout records, which measures the
    population's uniqueness rather than the release's and was taken as exact.)

    Raises
    ------
    PrivlibError
        If a table is empty or not a DataFrame, a key is missing from a table, or a key is
        numeric in one table and categorical in the other.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [30, 30, 40, 50]})
    >>> fake = pd.DataFrame({"sex": ["F", "M", "M", "M"], "age": [30, 40, 40, 50]})
    >>> replicated_uniques(original=real, synthetic=fake, keys=["sex", "age"]).n_replicated
    1
    """
    confidence = check_confidence(confidence)
    check_frame(original, "original", allow_missing_columns=True)
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    keys = list(original.columns) if keys is None else check_columns(original, keys, "keys", "original")
    check_columns(synthetic, keys, "keys", "synthetic")
    check_comparable(original, synthetic, ("original", "synthetic"), columns=keys, unseen="ignore")
    frames = [original, synthetic]
    if holdout is not None:
        check_frame(holdout, "holdout", allow_missing_columns=True)
        check_columns(holdout, keys, "keys", "holdout")
        check_comparable(original, holdout, ("original", "holdout"), columns=keys, unseen="ignore")
        frames.append(holdout)
    codes = _row_codes(frames, keys)
    n_combinations = int(max(c.max() for c in codes)) + 1
    r_counts, s_counts, *h_counts = (np.bincount(c, minlength=n_combinations) for c in codes)
    r_codes, s_codes = codes[:2]
    unique_in_release = s_counts == 1
    unique_original = r_counts == 1
    replicated = unique_original & unique_in_release
    n_unique_original = int(unique_original.sum())
    n_replicated = int(replicated.sum())
    train_share = _share(n_replicated, n_unique_original)
    common = dict(
        measure="replicated_uniques",
        keys=tuple(keys),
        train_share=train_share,
        n_replicated=n_replicated,
        n_unique_original=n_unique_original,
        n_unique_synthetic=int(unique_in_release.sum()),
        n_original=len(original),
        n_synthetic=len(synthetic),
        replicated_original=replicated[r_codes],
        replicated_synthetic=replicated[s_codes],
    )
    if holdout is None:
        return ReplicatedUniques(
            value=train_share,
            **_share_interval(n_replicated, n_unique_original, confidence),
            holdout_share=None,
            p_value=None,
            n_replicated_holdout=0,
            n_unique_holdout=0,
            **common,
        )
    unique_holdout = h_counts[0] == 1
    n_unique_holdout = int(unique_holdout.sum())
    n_replicated_holdout = int((unique_holdout & unique_in_release).sum())
    holdout_share = _share(n_replicated_holdout, n_unique_holdout)
    if n_unique_original and n_unique_holdout:
        low, high = _newcombe(
            n_replicated, n_unique_original, n_replicated_holdout, n_unique_holdout, confidence
        )
        # one-sided Fisher: given the replicated uniques of both groups, how many are training
        p_value = float(
            hypergeom.sf(
                n_replicated - 1,
                n_unique_original + n_unique_holdout,
                n_unique_original,
                n_replicated + n_replicated_holdout,
            )
        )
    else:
        low = high = p_value = math.nan
    return ReplicatedUniques(
        value=train_share - holdout_share,
        baseline=0.0,
        ci_low=low,
        ci_high=high,
        ci_method=NEWCOMBE,
        confidence=confidence,
        holdout_share=holdout_share,
        p_value=p_value,
        n_replicated_holdout=n_replicated_holdout,
        n_unique_holdout=n_unique_holdout,
        **common,
    )


# --------------------------------------------------------------------------------------------
# Match-based risk for partially synthetic data
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class MatchRisk(Result):
    """Identification risk of a partially synthetic file (Reiter & Mitra 2009).

    Attributes
    ----------
    value : float
        The expected match risk (same as ``expected_match_risk``).
    baseline : float
        The expected match risk if the original file itself were released (matched against
        itself): the risk synthesis starts from.
    expected_match_risk : float
        Sum over targets of ``T_i / c_i``: the number of targets an intruder is expected to
        identify correctly when picking at random among the best matches.
    true_match_rate : float
        Share of targets with a unique, correct match (sum of ``K_i`` over ``N``).
    false_match_rate : float
        Share of unique matches that are wrong (sum of ``F_i`` over ``s``); NaN when no target
        has a unique match (``s = 0``), since the rate is then undefined.
    unique_matches : int
        ``s``, the number of targets with exactly one matching synthetic record.
    n_records : int
        ``N``, the number of target records.
    known, synthesized : tuple of str
        The variables matched on.
    tolerance_on : tuple of str
        The variables matched within ``numeric_tolerance`` (the numeric synthesized ones, and the
        numeric known ones with ``exact_known=False``); every other variable is matched exactly.
    numeric_tolerance : float or dict
        The tolerance used for the variables of ``tolerance_on``; ``relative`` says whether it is
        a share of the target's value or an absolute difference.
    match_counts : numpy.ndarray of int
        ``c_i``: synthetic records matching target i (0 when none match).
    true_match : numpy.ndarray of bool
        ``T_i``: the synthetic version of target i is among its matches.
    true_unique : numpy.ndarray of bool
        ``K_i``: ``c_i T_i = 1``, a unique correct match.
    false_unique : numpy.ndarray of bool
        ``F_i``: ``c_i (1 - T_i) = 1``, a unique wrong match.
    """

    expected_match_risk: float
    true_match_rate: float
    false_match_rate: float
    unique_matches: int
    n_records: int
    known: tuple
    synthesized: tuple
    numeric_tolerance: float | dict
    relative: bool
    tolerance_on: tuple = ()
    match_counts: np.ndarray = per_record(default=None)
    true_match: np.ndarray = per_record(default=None)
    true_unique: np.ndarray = per_record(default=None)
    false_unique: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        n = self.n_records
        n_true = int(round(self.true_match_rate * n))
        if self.tolerance_on:
            scale = "a share of the target's value" if self.relative else "an absolute difference"
            scale += ", days for a date"
            matching = (
                f"matching {', '.join(map(str, self.tolerance_on))} within the tolerance "
                f"{self.numeric_tolerance} ({scale}) and every other variable exactly"
            )
        else:
            matching = "matching every variable exactly"
        text = (
            f"An intruder who knows {', '.join(map(str, self.known))} and the real "
            f"{', '.join(map(str, self.synthesized))} of every target, {matching}, would expect to identify "
            f"{self.expected_match_risk:.1f}{self._interval_text()} of {n} records "
            f"({_pct(self.expected_match_risk / n)}; releasing the original file would give "
            f"{self.baseline:.1f}); "
        )
        if self.unique_matches == 0:
            text += (
                "no target has a unique match, so the true match rate is 0 and the false match "
                "rate is undefined (reported as NaN)."
            )
        else:
            text += (
                f"{self.unique_matches} targets have a single matching synthetic record, {n_true} "
                f"of them correct (true match rate {_pct(self.true_match_rate)}) and "
                f"{self.unique_matches - n_true} wrong (false match rate "
                f"{_pct(self.false_match_rate)})."
            )
        return self.with_judgement(text)


def _check_tolerance(numeric_tolerance, tolerance_on: list, exact: list) -> dict:
    """Validate ``numeric_tolerance`` and return one tolerance per variable of ``tolerance_on``
    (``exact``: the numeric variables matched exactly, named in the message that refuses them)."""

    def check_value(value, where):
        # A Real compares as a float does; typeshed's numbers.Real declares only < and <=.
        if (
            isinstance(value, bool)
            or not isinstance(value, Real)
            or not (cast(float, value) >= 0 and math.isfinite(value))
        ):
            raise ParameterError(f"`numeric_tolerance`{where} must be a non-negative number, got {value!r}.")
        return float(value)

    if isinstance(numeric_tolerance, Mapping):
        unknown = [c for c in numeric_tolerance if c not in tolerance_on]
        if unknown:
            raise ParameterError(
                f"`numeric_tolerance` names {unknown}, which are not matched within a tolerance; "
                f"the variables that are: {tolerance_on}"
                + (
                    f" (the known numeric variables {exact} are matched exactly; "
                    "`exact_known=False` matches them within a tolerance too)."
                    if exact
                    else "."
                )
            )
        missing = [c for c in tolerance_on if c not in numeric_tolerance]
        if missing:
            raise ParameterError(
                f"`numeric_tolerance` gives no tolerance for the numeric variables {missing}; "
                "name every variable matched within a tolerance or pass one number for all."
            )
        return {c: check_value(numeric_tolerance[c], f"[{c!r}]") for c in tolerance_on}
    tolerance = check_value(numeric_tolerance, "")
    return {c: tolerance for c in tolerance_on}


def _match(original, synthetic, exact, kinds, tolerance, relative):
    """``c_i`` and ``T_i`` for every target (row of ``original``) against ``synthetic``: the
    variables of ``exact`` (of kinds ``kinds``) must be equal, those of ``tolerance`` within it."""
    within = list(tolerance)

    # Exact part: the exact variables' values and, for the variables matched within the
    # tolerance, whether the value is missing (missing matches missing only).
    def exact_columns(frame):
        return [comparable_values(frame[c], kinds[c]) for c in exact] + [
            frame[c].isna().reset_index(drop=True) for c in within
        ]

    target_groups, synthetic_groups = joint_codes([exact_columns(original), exact_columns(synthetic)])
    if not within:
        per_group = np.bincount(synthetic_groups, minlength=int(target_groups.max()) + 1)
        return per_group[target_groups], target_groups == synthetic_groups
    # A missing numeric value is set to 0; the exact part already pairs missing with missing,
    # and 0 always lies within a target's interval around 0.
    x = np.column_stack([np.nan_to_num(numeric_values(original[c]), nan=0.0) for c in within])
    y = np.column_stack([np.nan_to_num(numeric_values(synthetic[c]), nan=0.0) for c in within])
    width = np.empty_like(x)
    for j, column in enumerate(within):
        # Dates are matched within a number of days: a share of "days since 1970" means nothing.
        is_date = pd.api.types.is_datetime64_any_dtype(original[column].dtype)
        width[:, j] = tolerance[column] * (np.abs(x[:, j]) if relative and not is_date else 1.0)
    # Widen by a relative 1e-9 so that values exactly on the boundary (e.g. 10% of 0.3 above 0.3)
    # are not lost to rounding; a zero tolerance stays exact.
    width *= 1.0 + 1e-9
    lows, highs = x - width, x + width
    counts = count_matches(target_groups, synthetic_groups, lows, highs, y)
    own = (target_groups == synthetic_groups) & np.all((y >= lows) & (y <= highs), axis=1)
    return counts, own


@validate_params(
    {
        "original": [Table()],
        "synthetic": [Table()],
        "known": [Names()],
        "synthesized": [Names()],
        "relative": [Boolean()],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
        "numeric_tolerance": [Number(low=0), TOLERANCES],
        "exact_known": [Boolean()],
    }
)
def match_risk(
    *,
    original,
    synthetic,
    known,
    synthesized,
    numeric_tolerance=0.1,
    relative=True,
    exact_known=True,
    random_state=None,
    confidence=DEFAULT_CONFIDENCE,
) -> MatchRisk:
    """Expected match risk, true match rate and false match rate of partially synthetic data.

    Row i of ``synthetic`` is the synthetic version of row i of ``original``: the ``known``
    variables were released as they are and the ``synthesized`` ones were replaced. For each
    target i the intruder knows the ``known`` values and the *original* values of the
    ``synthesized`` variables, and looks for synthetic records that match all of them; every
    matching record is equally likely to be the target (Reiter & Mitra 2009; Hu's course).

    Synthetic record j matches target i when, with x the target's values and y record j's,

    * every categorical variable, and (with ``exact_known=True``) every known variable, is equal:
      y_v = x_v (a missing value equals a missing value only);
    * every other numeric variable v (the synthesized ones; with ``exact_known=False`` the known
      ones too) lies within the tolerance t_v: |y_v - x_v| <= t_v |x_v| (``relative=True``) or
      |y_v - x_v| <= t_v (``relative=False``); a missing value matches a missing value only.

    A known variable was released unchanged, so the target's own synthetic record holds the
    intruder's value exactly: a tolerance on it leaves T_i as it is and can only add other
    people's records (c_i can only grow), so it can only lower the expected match risk, as if the
    intruder used less than they know. Hornby & Hu's R package applies its radius to known
    continuous variables as well (its README gives the known Age a radius of 0.1);
    ``exact_known=False`` matches that way.

    With ``c_i`` the number of matching synthetic records (0 when none match), ``T_i = 1`` when
    synthetic record i is among them, ``K_i = [c_i T_i = 1]``, ``F_i = [c_i (1 - T_i) = 1]`` and
    ``s`` the number of targets with ``c_i = 1``:

    * expected match risk = sum over targets with c_i > 0 of T_i / c_i,
    * true match rate = sum K_i / N,
    * false match rate = sum F_i / s (NaN when s = 0).

    Parameters
    ----------
    original : pandas.DataFrame
        The confidential records (the targets).
    synthetic : pandas.DataFrame
        The partially synthetic file, with as many rows as ``original``, row i standing for
        original row i.
    known : sequence of str
        Variables the intruder knows and that were released unchanged.
    synthesized : sequence of str
        Variables that were synthesized; the intruder knows their original values.
    numeric_tolerance : float or mapping of str to float, default 0.1
        The tolerance t_v of the numeric variables matched within a tolerance (the synthesized
        ones; see ``exact_known``): one number for all of them, or one per variable, naming each
        of them and no other. Categorical variables always match exactly.
    relative : bool, default True
        ``True``: a synthetic value y matches the target's value x when
        ``|y - x| <= numeric_tolerance * |x|`` (a percentage radius, as in Hornby & Hu 2021);
        ``False``: when ``|y - x| <= numeric_tolerance``. Date variables are always matched
        within ``numeric_tolerance`` days (so the default 0.1 means the same day).
    exact_known : bool, default True
        ``True``: known variables are matched exactly, numeric ones included, and the tolerance
        applies to the synthesized numeric variables only. ``False``: the known numeric variables
        are matched within the tolerance too, as Hornby & Hu's R package allows (to reproduce
        its figures; it can only lower the risk).
    random_state : int, numpy.random.Generator or None
        Seed for the bootstrap of the interval.
    confidence : float, default 0.95
        Level of the interval of the expected match risk: a percentile bootstrap over targets of
        their contributions ``T_i / c_i`` (the matches themselves are not recomputed).

    Returns
    -------
    MatchRisk
        ``expected_match_risk`` (also ``value``, with its interval and a verdict against a
        share of the targets: see :mod:`privlib.thresholds`), ``true_match_rate``, ``false_match_rate``,
        ``unique_matches`` (s), ``baseline`` (the expected match risk of the original file
        matched against itself, by the same rule), ``tolerance_on`` (the variables matched within
        the tolerance), and per target ``match_counts`` (c_i), ``true_match`` (T_i),
        ``true_unique`` (K_i), ``false_unique`` (F_i).

    Raises
    ------
    PrivlibError
        If a table is empty or not a DataFrame, the tables have different numbers of rows, a
        variable is missing from a table or listed as both known and synthesized, a variable is
        numeric in one table and categorical in the other, or the tolerance is invalid (a
        mapping that names a variable matched exactly, or misses one matched within it).

    Notes
    -----
    Matching is vectorised: records are grouped on the exact-match variables (one integer code
    per distinct combination) and, for the variables matched within the tolerance, each
    target's candidates are found by binary search in the synthetic values sorted within groups:
    no loop over records, and 10,000 records take tens of milliseconds
    (``benchmarks/identity.py``).

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"sex": ["F", "F", "M"], "dis": ["y", "n", "n"]})
    >>> syn = pd.DataFrame({"sex": ["F", "F", "M"], "dis": ["n", "n", "n"]})
    >>> r = match_risk(original=real, synthetic=syn, known=["sex"], synthesized=["dis"], random_state=0)
    >>> r.match_counts.tolist(), r.expected_match_risk
    ([0, 2, 1], 1.5)
    """
    confidence = check_confidence(confidence)
    check_frame(original, "original", allow_missing_columns=True)
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    known = check_columns(original, known, "known", "original")
    synthesized = check_columns(original, synthesized, "synthesized", "original")
    both = [c for c in known if c in synthesized]
    if both:
        raise ParameterError(
            f"{both} listed in both `known` and `synthesized`; a variable is either released "
            "unchanged or synthesized."
        )
    columns = known + synthesized
    check_columns(synthetic, columns, "known/synthesized", "synthetic")
    if len(original) != len(synthetic):
        raise DataError(
            f"`original` has {len(original)} rows but `synthetic` has {len(synthetic)}; the match "
            "risk needs a partially synthetic file in which row i is the synthetic version of "
            "original row i."
        )
    check_comparable(original, synthetic, ("original", "synthetic"), columns=columns, unseen="ignore")
    kinds = infer_kinds(original[columns], name="original")
    numeric = [c for c in columns if kinds[c] == NUMERIC]
    exact_numeric = [c for c in numeric if exact_known and c in known]
    tolerance_on = [c for c in numeric if c not in exact_numeric]
    tolerance = _check_tolerance(numeric_tolerance, tolerance_on, exact_numeric)
    exact = [c for c in columns if c not in tolerance_on]

    counts, own = _match(original, synthetic, exact, kinds, tolerance, relative)
    true_match = own  # the own synthetic record matches, so c_i >= 1 whenever T_i = 1
    true_unique = (counts == 1) & true_match
    false_unique = (counts == 1) & ~true_match
    s = int((counts == 1).sum())
    contributions = true_match / np.maximum(counts, 1)
    expected = float(np.sum(contributions))
    self_counts, _ = _match(original, original, exact, kinds, tolerance, relative)
    n = len(original)
    resampled = n * resampled_means(contributions, rng=np.random.default_rng(random_state))
    low, high = percentile_interval(resampled, confidence=confidence)
    return MatchRisk(
        measure="expected_match_risk",
        value=expected,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        baseline=float(np.sum(1.0 / self_counts)),
        expected_match_risk=expected,
        true_match_rate=float(true_unique.sum() / n),
        false_match_rate=_share(int(false_unique.sum()), s),
        unique_matches=s,
        n_records=n,
        known=tuple(known),
        synthesized=tuple(synthesized),
        numeric_tolerance=numeric_tolerance
        if not isinstance(numeric_tolerance, Mapping)
        else dict(tolerance),
        relative=bool(relative),
        tolerance_on=tuple(tolerance_on),
        match_counts=counts.astype(np.int64),
        true_match=true_match,
        true_unique=true_unique,
        false_unique=false_unique,
    )


from privlib.criteria import linkability, singling_out  # noqa: E402  (re-exported; issue 14)
from privlib.records import copy_test  # noqa: E402  (re-exported; issue 22)
