"""Exact copies of training records among the synthetic records, beside the copies of holdout
records that chance alone produces (:func:`identical_match_share`), and its declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib.declaration import MeasureSpec, Reference, release
from privlib.identity.shares import _check_release, _pct, _row_codes, _share_interval
from privlib.results import Result, per_record
from privlib.rules import CHANCE_COPIES, Threshold
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import CONFIDENCE, Table, validate_params

__all__ = ["IdenticalMatchShare", "identical_match_share"]

KEY = "identical_match_share"


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
        measure=KEY,
        value=float(in_train.mean()),
        **_share_interval(in_train.sum(), n, confidence),
        baseline=float(in_holdout.mean()) if in_holdout is not None else None,
        n_synthetic=n,
        n_train_matches=int(in_train.sum()),
        n_holdout_matches=int(in_holdout.sum()) if in_holdout is not None else None,
        in_train=in_train,
        in_holdout=in_holdout,
    )


IDENTICAL_MATCH_SHARE = MeasureSpec(
    KEY,
    "Identical copies of training records",
    "identity",
    Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=CHANCE_COPIES,
        scope="counts exact copies only: a generator that moves every record a little makes "
        "none, so read it with the distance measures",
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data copies training records no more than chance copies "
        "unseen people, within the margin",
    ),
    Reference("privlib.identity.identical_match_share:identical_match_share"),
    release,
    # with a holdout, the copy test replaces this fixed margin
    applies=lambda c: c.holdout is None,
    at_risk=lambda r: (r.n_train_matches, "synthetic records are exact copies of a training record"),
)
