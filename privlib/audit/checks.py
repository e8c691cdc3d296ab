"""Checks of an audit's tables against each other, before any measure runs.

Each check either refuses the inputs with a :class:`~privlib.errors.PrivlibError` (one line that
names the file, the column and a count, never a value of the data) or returns a note for the
report's first page. They catch inputs that would make a release look safer than it is:

* a header that names a column twice (pandas would silently rename one ``X.1``);
* numbers that are infinite or so large that a range overflows (``1e308``), which would make every
  Gower distance 0 or undefined;
* a holdout that is the training data, or overlaps it beyond chance: the membership measures
  compare members with non-members and would see no difference;
* categories of the synthetic data or holdout that the training data lacks. A few are reported
  (with counts). A column whose categories look *recoded* (no category in common with the
  training data, or categories in common only after ignoring case and surrounding spaces) is
  refused unless the custodian says the new categories are real (``allow_new_categories``):
  with ``sex`` lowercased, CAP and replicated uniques would find nothing and read as safe.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from privlib.datasets import header_names
from privlib.errors import PrivlibError
from privlib.schema import NUMERIC, infer_kinds

__all__ = ["ABSURD", "OVERLAP_MARGIN", "check_header", "check_numbers", "check_holdout", "new_categories"]

#: Numbers at least this large in absolute value are refused: a range of two of them overflows.
ABSURD = 1e100

#: A holdout overlaps the training data when the share of its rows that equal a training row
#: exceeds the share of training rows that equal another training row (what chance gives in data
#: of this kind) by more than this margin and by more than three standard errors of the
#: difference. A kit rule, stated in the refusal.
OVERLAP_MARGIN = 0.05


def check_header(path, label: str) -> None:
    """Refuse a file that is not a regular file, and a CSV file (compressed or not) whose header
    names a column twice."""
    names = header_names(path, label)
    seen, repeated = set(), []
    for name in (n.strip() for n in names):
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    if repeated:
        raise PrivlibError(
            f"the header of `{label}` names {len(repeated)} column(s) more than once (e.g. "
            f"{repeated[0]!r}); give every column a distinct name."
        )


def check_numbers(frame: pd.DataFrame, label: str) -> None:
    """Refuse infinite or absurdly large numbers in the numeric columns of ``frame``."""
    for column, kind in infer_kinds(frame, name=label).items():
        if kind != NUMERIC or not pd.api.types.is_numeric_dtype(frame[column]):
            continue
        values = frame[column].to_numpy(dtype="float64", na_value=np.nan)
        infinite = int(np.isinf(values).sum())
        absurd = int((np.abs(values[np.isfinite(values)]) >= ABSURD).sum())
        if infinite or absurd:
            what = f"{infinite} infinite" if infinite else f"{absurd} absurdly large (|x| >= {ABSURD:.0e})"
            raise PrivlibError(
                f"column {column!r} of `{label}` holds {what} value(s); replace them with real "
                "numbers or leave them missing."
            )


def _row_keys(frame: pd.DataFrame) -> pd.Series:
    """One hashable key per row (missing values equal to each other)."""
    return pd.util.hash_pandas_object(frame.astype(object).where(frame.notna(), None), index=False)


def check_holdout(train: pd.DataFrame, holdout: pd.DataFrame, *, same_file: bool) -> None:
    """Refuse a holdout that is the training data or overlaps it beyond chance."""
    if same_file:
        raise PrivlibError(
            "`holdout` is the same file as `train`; the holdout must be real records the generator never saw."
        )
    train_keys, holdout_keys = _row_keys(train), _row_keys(holdout)
    in_train = float(holdout_keys.isin(set(train_keys)).mean())
    chance = float(train_keys.duplicated(keep=False).mean())
    pooled = (in_train * len(holdout) + chance * len(train)) / (len(holdout) + len(train))
    error = math.sqrt(pooled * (1 - pooled) * (1 / len(holdout) + 1 / len(train)))
    if in_train - chance > max(OVERLAP_MARGIN, 3 * error):
        raise PrivlibError(
            f"{in_train:.0%} of the `holdout` rows equal a `train` row, against {chance:.0%} of "
            "`train` rows that equal another `train` row (what chance gives in these data): the "
            "holdout seems to contain training records; give records the generator never saw."
        )


def _percent(share: float) -> str:
    return "under 0.1%" if 0 < share < 0.001 else f"{share:.1%}"


def _normalised(values) -> set:
    return {str(v).strip().casefold() for v in values}


def new_categories(train: pd.DataFrame, frame: pd.DataFrame, label: str, *, allow: bool) -> list[str]:
    """Notes on categories of ``frame`` that ``train`` lacks; refuse recoded columns.

    Returns one note per column with new categories (counts only). Raises when a column looks
    recoded and ``allow`` is false.
    """
    notes = []
    for column in train.columns:
        if not isinstance(train[column].dtype, pd.CategoricalDtype):
            continue
        known = set(train[column].dropna().unique())
        present = frame[column].dropna()
        if present.empty:
            continue
        values = set(present.unique())
        new = values - known
        if not new:
            continue
        rows = int(present.isin(new).sum())
        overlap = values & known
        recoded = not overlap or (_normalised(new) & _normalised(known))
        if recoded and not allow:
            how = "shares no category with" if not overlap else "has categories that match"
            tail = "" if not overlap else " only when case and surrounding spaces are ignored"
            raise PrivlibError(
                f"column {column!r} of `{label}` {how} `train`{tail} ({len(new)} new "
                f"categor{'y' if len(new) == 1 else 'ies'} in {rows} row(s)): it looks recoded. "
                "Code it as in the training data, or pass --allow-new-categories if the new "
                "categories are real."
            )
        notes.append(
            f"column {column!r} of {label}: {len(new)} categor{'y' if len(new) == 1 else 'ies'} "
            f"the training data lacks, in {rows} row(s) ({_percent(rows / len(frame))})."
        )
    return notes
