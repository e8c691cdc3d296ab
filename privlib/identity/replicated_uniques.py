"""People unique on the key variables whose key combination is also unique in the synthetic data
(synthpop's ``replicated.uniques``, Nowok et al. 2016), beside the holdout's unique people that
the same release replicates (:func:`replicated_uniques`), and its declaration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import hypergeom

from privlib.copies import NEWCOMBE, _newcombe
from privlib.declaration import MeasureSpec, Reference
from privlib.identity.shares import _pct, _row_codes, _share, _share_interval
from privlib.results import Result, per_record
from privlib.rules import Threshold
from privlib.schema import check_columns, check_comparable, check_frame
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import CONFIDENCE, Names, Table, validate_params

__all__ = ["ReplicatedUniques", "replicated_uniques"]

KEY = "replicated_uniques"


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
        "train": [Table()],
        "synthetic": [Table()],
        "keys": [Names(), None],
        "holdout": [Table(), None],
        "confidence": [CONFIDENCE],
    },
    renamed={"original": "train"},
)
def replicated_uniques(
    *, train, synthetic, keys=None, holdout=None, confidence=DEFAULT_CONFIDENCE
) -> ReplicatedUniques:
    """Count the original data's unique records whose key combination is also unique in the
    synthetic data.

    A record is unique on the keys when no other record of its table shares its key values. When
    such a combination is unique in the synthetic data too, the one synthetic record that carries
    it points at one real person: an adversary who knows that person's keys finds "their" record
    (synthpop's ``replicated.uniques``; Nowok, Raab & Dibben 2016; Raab et al.).

    Parameters
    ----------
    train : pandas.DataFrame
        The real (confidential) records.
    synthetic : pandas.DataFrame
        The synthetic records.
    keys : sequence of str, optional
        The key variables, columns of both tables. ``None`` uses every column of ``train``.
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
    >>> replicated_uniques(train=real, synthetic=fake, keys=["sex", "age"]).n_replicated
    1
    """
    confidence = check_confidence(confidence)
    check_frame(train, "train", allow_missing_columns=True)
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    keys = list(train.columns) if keys is None else check_columns(train, keys, "keys", "train")
    check_columns(synthetic, keys, "keys", "synthetic")
    check_comparable(train, synthetic, ("train", "synthetic"), columns=keys, unseen="ignore")
    frames = [train, synthetic]
    if holdout is not None:
        check_frame(holdout, "holdout", allow_missing_columns=True)
        check_columns(holdout, keys, "keys", "holdout")
        check_comparable(train, holdout, ("train", "holdout"), columns=keys, unseen="ignore")
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
        measure=KEY,
        keys=tuple(keys),
        train_share=train_share,
        n_replicated=n_replicated,
        n_unique_original=n_unique_original,
        n_unique_synthetic=int(unique_in_release.sum()),
        n_original=len(train),
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


REPLICATED_UNIQUES = MeasureSpec(
    KEY,
    "Unique people replicated as unique records",
    "identity",
    Threshold(
        0.05,
        from_baseline=True,
        fallback=0.05,
        # 0.05, the margin of the kit's other training-against-holdout rules: a margin of 0.01 would
        # be under half the standard error of the difference between two groups of about 550
        # uniques (0.022 on Adult at 3,000 records), so no release of that size could clear it.
        source="kit default: training records unique on the keys carried as unique records more "
        "than 0.05 above the share for holdout records unique on the keys (Newcombe's interval; "
        "Fisher's one-sided p-value in the reading), the margin of the kit's other comparisons "
        "with the holdout; without a holdout, more than 5 in 100 replicated at all. synthpop "
        "(Nowok, Raab & Dibben 2016) reports the count without a cut-off",
        scope="looks only at people unique on the key variables, the ones an intruder can single out",
        risk_words="training records unique on the keys are carried into the synthetic data as unique "
        "records more often than unique people the generator never saw",
        safe_words="training records unique on the keys are carried over no more often than unique "
        "people the generator never saw, within the margin",
    ),
    Reference("privlib.identity.replicated_uniques:replicated_uniques"),
    lambda c: {"train": c.train, "synthetic": c.synthetic, "holdout": c.holdout, "keys": c.keys},
    needs=("keys",),
    at_risk=lambda r: (
        r.records_at_risk,
        "training records unique on the keys are unique, with the same keys, in the synthetic data, "
        "beyond the share of the holdout's unique records the release replicates",
    ),
)
