"""The shares, their intervals and the checks that several identity measures use."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from privlib.matching import comparable_values, joint_codes
from privlib.schema import check_comparable, check_frame, infer_kinds
from privlib.uncertainty import WILSON, wilson_interval


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


def _check_release(synthetic, train, holdout) -> None:
    """Validate synthetic, training and (optional) holdout tables against the training columns."""
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    check_frame(train, "train", allow_missing_columns=True)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    if holdout is not None:
        check_frame(holdout, "holdout", allow_missing_columns=True)
        check_comparable(train, holdout, ("train", "holdout"), unseen="ignore")
