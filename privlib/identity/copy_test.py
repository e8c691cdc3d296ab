"""Training records with a synthetic copy, against holdout records with one by chance, by Fisher's
exact test (:func:`copy_test`), and its declaration. What a copy is and the test are described in
:mod:`privlib.records`; their code is in :mod:`privlib.copies`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.copies import DEFAULT_NUMERIC_TOLERANCE, _copy_widths, _fisher_excess, _has_copy
from privlib.declaration import MeasureSpec, Reference, release
from privlib.results import Result
from privlib.rules import Threshold
from privlib.schema import check_comparable, check_frame
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import CONFIDENCE, Number, Table, validate_params

__all__ = ["CopyTest", "copy_test"]

KEY = "copy_test"


@dataclass(frozen=True, kw_only=True)
class CopyTest(Result):
    """Training records with a synthetic copy, against holdout records with one (:func:`copy_test`).

    ``value`` is the excess ``train_copied - holdout_copied * n_train / n_holdout``, the
    records at risk, with ``ci_low``/``ci_high`` its interval in records (Newcombe's, times
    ``n_train``; shown, the verdict is the exact test's); ``records_at_risk`` the excess rounded
    and at least 0. ``p_value`` is Fisher's
    exact test, one-sided; ``critical_count`` the fewest copied training records (given the
    total copied) that make it significant, and ``baseline`` the excess they would give minus one
    record: the largest excess put down to chance.
    """

    n_train: int
    n_holdout: int
    train_copied: int
    holdout_copied: int
    numeric_tolerance: float
    records_at_risk: int = 0
    critical_count: int | None = None
    p_value: float = math.nan

    def reading(self) -> str:
        tolerance = (
            ""
            if self.numeric_tolerance == 0
            else f", numbers within {self.numeric_tolerance:.0%} of their range"
        )
        return self.with_judgement(
            f"{self.train_copied} of {self.n_train} training records have a synthetic copy "
            f"(every value equal{tolerance}), against {self.holdout_copied} of {self.n_holdout} "
            f"holdout records: an excess of {self.value:+.1f} people ({self.confidence:.0%} "
            f"interval {self.ci_low:+.1f} to {self.ci_high:+.1f} people) copied beyond the "
            f"holdout's rate. Fisher's exact test puts an excess of up to {self.baseline:+.1f} "
            f"people down to chance at this confidence (p = {self.p_value:.2g})."
        )


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "numeric_tolerance": [Number(low=0, high=1)],
        "confidence": [CONFIDENCE],
    }
)
def copy_test(
    *,
    train,
    holdout,
    synthetic,
    numeric_tolerance=DEFAULT_NUMERIC_TOLERANCE,
    confidence=DEFAULT_CONFIDENCE,
) -> CopyTest:
    """Records at risk: training records with a synthetic copy beyond the holdout's chance copies.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    numeric_tolerance : float, default 0.01
        Share of each numeric variable's range within which two values count as equal (0 for
        exact copies only); see the module documentation.
    confidence : float, default 0.95
        Level of the interval; Fisher's test is one-sided at ``1 - confidence``.

    Returns
    -------
    CopyTest
        Unjudged; ``value`` the excess count of training records with a copy (records at risk).

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(100)], "g": ["a", "b"] * 50})
    >>> holdout = pd.DataFrame({"x": [i + 100.5 for i in range(100)], "g": ["a", "b"] * 50})
    >>> synthetic = pd.concat([train.iloc[:20], holdout.iloc[:2]], ignore_index=True)
    >>> test = copy_test(train=train, holdout=holdout, synthetic=synthetic, numeric_tolerance=0)
    >>> test.train_copied, test.holdout_copied, test.value, test.value > test.baseline
    (20, 2, 18.0, True)
    """
    confidence = check_confidence(confidence)
    check_frame(train, "train")
    for name, table in (("holdout", holdout), ("synthetic", synthetic)):
        check_frame(table, name)
        check_comparable(train, table, ("train", name), unseen="ignore")
    columns = list(train.columns)
    holdout, synthetic = holdout[columns], synthetic[columns]
    widths = _copy_widths(train, holdout, synthetic, numeric_tolerance)
    a, b = (int(np.count_nonzero(found)) for found in _has_copy([train, holdout], synthetic, widths))
    return CopyTest(
        measure=KEY,
        numeric_tolerance=float(numeric_tolerance),
        **_fisher_excess(a, len(train), b, len(holdout), confidence),
    )


COPY_TEST = MeasureSpec(
    KEY,
    "Training records with a close copy (same categories, numbers within 1% of their range), beyond chance",
    "identity",
    Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the "
        "training records with a synthetic copy against the holdout records with one; no "
        "margin, since every record copied beyond chance is a disclosure. It replaces the "
        "fixed margin of 1 in 100 of identical_match_share wherever a holdout exists",
        scope="counts real records, training and holdout, that have a synthetic copy (every "
        "categorical value equal, every number within 1% of its range); records at risk are "
        "the training records copied beyond the holdout's rate",
        risk_words="the release copies training records more often than it copies people it "
        "never saw: those records are published",
        safe_words="training records have a synthetic copy no more often than holdout records, "
        "at this confidence",
    ),
    Reference("privlib.identity.copy_test:copy_test"),
    release,
    needs=("holdout",),
    at_risk=lambda r: (
        r.records_at_risk,
        "training records have a close copy beyond the copies chance gives holdout records",
    ),
)
