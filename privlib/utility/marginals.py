"""Marginal fidelity: per variable, the total variation distance between the original and synthetic
distributions, and the Kolmogorov-Smirnov statistic for numeric variables."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from privlib.results import Result, per_record
from privlib.schema import NUMERIC
from privlib.utility.models import _check_pair, _features
from privlib.validation import (
    Integer,
    Table,
    validate_params,
)

__all__ = ["KEY", "MarginalFidelityResult", "marginal_fidelity"]

#: The measure's key (``Result.measure``).
KEY = "mean_tvd"


@dataclass(frozen=True, kw_only=True)
class MarginalFidelityResult(Result):
    """Per-variable total variation distance (TVD) and KS statistic; ``value`` is the mean TVD.

    Attributes
    ----------
    per_variable : pandas.DataFrame
        One row per variable (index: the column name) with ``kind``, ``tvd`` and ``ks`` (NaN for a
        categorical variable).
    max_tvd : float
        The largest TVD.
    worst_variable : str
        The variable with the largest TVD.
    mean_ks : float
        Mean KS statistic over the numeric variables (NaN if there are none).
    n_bins : int
        Equal-width bins used for the TVD of numeric variables.
    """

    max_tvd: float
    worst_variable: str
    mean_ks: float
    n_bins: int
    per_variable: pd.DataFrame = per_record(default=None)
    higher_is_riskier: bool = False

    def reading(self) -> str:
        return (
            f"On average a variable's synthetic distribution differs from the original one by a "
            f"total variation distance of {self.value:.3f} (0 = identical shares, 1 = no "
            f"overlap); the largest gap is {self.worst_variable!r} with {self.max_tvd:.3f}."
        )


def _marginal_codes(left: pd.DataFrame, right: pd.DataFrame, kinds: dict, n_bins: int) -> dict:
    """Per variable, the level of each record of ``left`` and of ``right`` as integer codes, and
    the number of levels: the labels of a categorical variable (missing is a label), or
    ``n_bins`` equal-width bins over the range of both tables for a numeric one (missing values
    in a level of their own, ``n_bins``)."""
    codes = {}
    for column, kind in kinds.items():
        if kind == NUMERIC:
            a, b = left[column].to_numpy(), right[column].to_numpy()
            both = np.concatenate([a, b])
            both = both[np.isfinite(both)]
            low, span = (both.min(), both.max() - both.min()) if both.size else (0.0, 0.0)
            codes[column] = (_bin_codes(a, low, span, n_bins), _bin_codes(b, low, span, n_bins), n_bins + 1)
        else:
            both = np.concatenate([left[column].to_numpy(), right[column].to_numpy()])
            levels, uniques = pd.factorize(both)
            codes[column] = (levels[: len(left)], levels[len(left) :], len(uniques))
    return codes


def _bin_codes(values: np.ndarray, low: float, span: float, n_bins: int) -> np.ndarray:
    """Equal-width bin of each value over ``[low, low + span]``; missing values in bin ``n_bins``."""
    bins = np.zeros(len(values)) if span == 0 else np.floor((values - low) / span * n_bins)
    return np.where(np.isnan(values), n_bins, np.clip(bins, 0, n_bins - 1)).astype(np.intp)


def _tvd(left_codes: np.ndarray, right_codes: np.ndarray, n_levels: int) -> float:
    """Half the L1 distance between the level shares of two code arrays."""
    p = np.bincount(left_codes, minlength=n_levels) / len(left_codes)
    q = np.bincount(right_codes, minlength=n_levels) / len(right_codes)
    return float(0.5 * np.abs(p - q).sum())


@validate_params(
    {"train": [Table()], "synthetic": [Table()], "n_bins": [Integer(low=1)]}, renamed={"original": "train"}
)
def marginal_fidelity(*, train, synthetic, n_bins=20) -> MarginalFidelityResult:
    """Per-variable total variation distance and, for numeric variables, the KS statistic.

    The total variation distance between the original shares ``p`` and synthetic shares ``q``
    of a variable's values is ``TVD = (1/2) sum_v |p_v - q_v|``: 0 when every value is as common
    in both tables, 1 when they share no value. Missing is a value of its own.

    * Categorical variables: the shares of the labels (a label present in one table only counts
      with share 0 in the other).
    * Numeric variables (dates in days): the values are cut into ``n_bins`` equal-width bins
      spanning the range of both tables together (the binning of the kit's Hamming distance, after El Emam et al. 2022), and the TVD
      is taken over the bins. The two-sample Kolmogorov-Smirnov statistic (the largest gap
      between the two empirical distribution functions, ``scipy.stats.ks_2samp``) is reported
      too, on the non-missing values; it needs no binning.

    Parameters
    ----------
    train : pandas.DataFrame
        The real data.
    synthetic : pandas.DataFrame
        The synthetic data, with the same columns.
    n_bins : int, default 20
        Bins per numeric variable for the TVD.

    Returns
    -------
    MarginalFidelityResult
        ``value`` = mean TVD over variables; ``per_variable`` holds the table.

    Raises
    ------
    PrivlibError
        If a table is not a DataFrame or is empty, the columns differ or a column is numeric in
        one table and categorical in the other, or ``n_bins`` is not a positive integer.

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"g": ["x", "x", "y", "y"]})
    >>> b = pd.DataFrame({"g": ["x", "x", "x", "y"]})
    >>> marginal_fidelity(train=a, synthetic=b).value
    0.25
    """
    kinds = _check_pair(train, synthetic, n_bins, "n_bins")
    left, right = _features(train, kinds), _features(synthetic, kinds)
    codes = _marginal_codes(left, right, kinds, n_bins)
    rows = {}
    for column, kind in kinds.items():
        tvd, ks = _tvd(*codes[column]), float("nan")
        if kind == NUMERIC:
            a, b = left[column].to_numpy(), right[column].to_numpy()
            a, b = a[np.isfinite(a)], b[np.isfinite(b)]
            # Only the statistic is used; the asymptotic method skips the costly exact p-value.
            ks = float(stats.ks_2samp(a, b, method="asymp").statistic) if a.size and b.size else float("nan")
        rows[column] = {"kind": kind, "tvd": tvd, "ks": ks}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "variable"
    numeric_ks = table["ks"].dropna()
    return MarginalFidelityResult(
        measure=KEY,
        value=float(table["tvd"].mean()),
        max_tvd=float(table["tvd"].max()),
        worst_variable=str(table["tvd"].idxmax()),
        mean_ks=float(numeric_ks.mean()) if len(numeric_ks) else float("nan"),
        n_bins=int(n_bins),
        per_variable=table,
    )
