"""What the attribute measures share: the check of their keys and target, the codes of the values
they compare, and the holdout control their verdict is read against (its sentence, its bootstrap
interval, and the fields of a result without one)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlib.errors import DataError, ParameterError
from privlib.results import NOT_ASSESSABLE, _fmt
from privlib.schema import check_columns, check_comparable, check_frame
from privlib.uncertainty import percentile_interval, resampled_means


# --------------------------------------------------------------------------------------------
# Shared validation
# --------------------------------------------------------------------------------------------
def _check_keys_target(original, synthetic, keys, target):
    """Validate the two tables and the key and target columns; return them as lists."""
    check_frame(original, "train")
    check_frame(synthetic, "synthetic")
    keys = check_columns(original, keys, "keys", "train")
    target = check_columns(original, target, "target", "train")
    check_columns(synthetic, keys, "keys", "synthetic")
    check_columns(synthetic, target, "target", "synthetic")
    for name, columns in (("keys", keys), ("target", target)):
        if len(set(columns)) < len(columns):
            raise ParameterError(f"`{name}` names a column twice ({columns}); name each once.")
    both = [c for c in target if c in keys]
    if both:
        raise ParameterError(
            f"`target` column(s) {both} are also among the `keys`; an intruder who already knows "
            "a variable cannot learn it. Remove them from `keys` or from `target`."
        )
    # Categories only in one table are allowed (they simply never match), hence unseen="ignore".
    check_comparable(original, synthetic, ("train", "synthetic"), columns=keys + target, unseen="ignore")
    return keys, target


def _against_control(result, what: str) -> str:
    """The sentence that reads a result against its holdout control (or says it has none)."""
    if result.baseline is None:
        return (
            "Without holdout records there is no control: what the release teaches about anyone "
            "in the population cannot be told apart from a disclosure about the people in the data"
        )
    holdout = getattr(result, "holdout_cap", None)
    if holdout is None:
        holdout = result.holdout_value
    return (
        f"For {result.n_holdout} holdout records the generator never saw, the same release gives "
        f"{_fmt(holdout)}: what anyone in the population learns from it. The {what} excess for "
        f"training records is {_fmt(result.value)}{result._interval_text()}"
    )


def _excess_interval(train, holdout, *, rng, confidence) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(train) - mean(holdout)``, the two groups of records
    resampled separately (two independent samples of people)."""
    return percentile_interval(
        resampled_means(train, rng=rng) - resampled_means(holdout, rng=rng), confidence=confidence
    )


def _no_control() -> dict:
    """The fields of an attribute result computed without holdout records: no verdict, and why."""
    return dict(
        baseline=None,
        verdict=NOT_ASSESSABLE,
        verdict_rule="no holdout records were given, so there is no control to tell a disclosure "
        "about the people in the data from what the release teaches about anyone in the "
        "population; pass `holdout`",
    )


def _value_codes(original: pd.DataFrame, synthetic: pd.DataFrame, columns) -> np.ndarray:
    """One integer per row of ``train`` then ``synthetic``, equal iff all ``columns`` are equal.

    Values are compared as values (1 and 1.0 match, categories with different category lists
    match by label); a missing value is a value of its own, equal to every other missing value.
    """
    joint = np.zeros(len(original) + len(synthetic), dtype=np.int64)
    for column in columns:
        both = pd.concat([original[column], synthetic[column]], ignore_index=True)
        codes, uniques = pd.factorize(both, use_na_sentinel=False)
        if not np.isin(codes[len(original) :], codes[: len(original)]).any():
            raise DataError(
                f"column {column!r} shares no value between `train` and `synthetic` "
                f"({original[column].nunique()} and {synthetic[column].nunique()} distinct values); "
                "code it the same way in both tables (same labels and types)."
            )
        # Re-factorising after each column keeps the codes below the number of rows (no overflow).
        joint, _ = pd.factorize(joint * len(uniques) + codes)
    return joint
