"""Numeric variables cut into the training data's quantile bins (:func:`discretize`), so that CAP,
which needs exact matches, can be used on continuous keys or targets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlib.errors import ParameterError
from privlib.schema import NUMERIC, check_columns, check_comparable, check_frame, infer_kinds, numeric_values
from privlib.validation import Instance, Integer, Names, Table, validate_params

__all__ = ["discretize"]


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "columns": [Names(), Instance(list, tuple, description="an empty list"), None],
        "n_bins": [Integer(low=2)],
    },
    renamed={"original": "train"},
)
def discretize(*, train, synthetic, columns=None, n_bins=5):
    """Cut numeric columns of both tables into the same quantile bins of the original data.

    CAP needs exact matches on keys and target; on a continuous variable (income, expenditure,
    age) almost no two records match, so the variable is first grouped into bins.

    Parameters
    ----------
    train, synthetic : pandas.DataFrame
        The two tables to cut the same way.
    columns : str or list of str, optional
        Columns to cut; by default every column of ``train`` that
        :func:`privlib.schema.infer_kinds` reads as numeric (categorical columns are left as
        they are). An empty list cuts nothing and returns copies.
    n_bins : int, default 5
        Number of bins: the edges are the quantiles 1/n_bins, ..., (n_bins-1)/n_bins of the
        original column, so each bin holds about the same number of original records. Repeated
        edges (a value shared by many records) are merged, so a column may get fewer bins.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Copies of ``train`` and ``synthetic`` in which each cut column is an ordered
        categorical with labels such as ``"< 20"``, ``"20 to < 35"``, ``">= 35"``. The outer bins
        are open-ended, so synthetic values outside the original range fall into them. Missing
        values stay missing.

    Raises
    ------
    PrivlibError
        If a table is empty, a column is not in both tables or is not numeric in both, or
        ``n_bins`` is not an integer of at least 2.
    """
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 2:
        raise ParameterError(f"`n_bins` must be an integer of at least 2, got {n_bins!r}.")
    check_frame(train, "train")
    check_frame(synthetic, "synthetic")
    kinds = infer_kinds(train, name="train")
    if columns is None:
        columns = [c for c, kind in kinds.items() if kind == NUMERIC]
    elif not isinstance(columns, (list, tuple)) or columns:
        columns = check_columns(train, columns, "columns", "train")
    if not columns:  # nothing to cut (e.g. the numeric keys of an all-categorical table)
        return train.copy(), synthetic.copy()
    check_columns(synthetic, columns, "columns", "synthetic")
    check_comparable(train, synthetic, ("train", "synthetic"), columns=columns, unseen="ignore")
    not_numeric = [c for c in columns if kinds[c] != NUMERIC]
    if not_numeric:
        raise ParameterError(
            f"`columns` names {not_numeric}, which are not numeric in `train`; only numeric "
            "columns can be cut into bins."
        )
    out_original, out_synthetic = train.copy(), synthetic.copy()
    for column in columns:
        values = numeric_values(train[column])
        finite = values[np.isfinite(values)]
        inner = np.unique(np.quantile(finite, np.arange(1, n_bins) / n_bins))
        # Edges equal to the minimum would make an empty first bin.
        inner = inner[inner > finite.min()]
        edges = np.concatenate([[-np.inf], inner, [np.inf]])
        is_date = pd.api.types.is_datetime64_any_dtype(train[column].dtype)
        labels = _bin_labels(inner, is_date)
        dtype = pd.CategoricalDtype(labels, ordered=True)
        for frame in (out_original, out_synthetic):
            # pandas-stubs: cut's bins leave out the numpy array of edges that pandas takes
            codes = pd.cut(numeric_values(frame[column]), edges, right=False, labels=False)  # type: ignore[call-overload]
            frame[column] = pd.Categorical.from_codes(
                np.where(np.isnan(codes), -1, codes).astype(int), dtype=dtype
            )
    return out_original, out_synthetic


def _bin_labels(inner: np.ndarray, is_date: bool) -> list[str]:
    """Readable labels for the bins cut at ``inner`` (open-ended outer bins)."""
    if is_date:
        stamps = [pd.Timestamp("1970-01-01") + pd.Timedelta(days=float(e)) for e in inner]
        formats = [
            lambda t: t.strftime("%Y-%m-%d"),
            lambda t: t.strftime("%Y-%m-%d %H:%M"),
            lambda t: t.isoformat(),
        ]
        candidates = ([f(t) for t in stamps] for f in formats)
    else:
        # As few digits as keep the edges apart (150.1 and 150.2 must not both read "150").
        candidates = (
            [f"{e:,.{d}f}" if abs(e) >= 100 else f"{e:.{d + 3}g}" for e in inner] for d in range(15)
        )
    shown = next((c for c in candidates if len(set(c)) == len(c)), [repr(float(e)) for e in inner])
    if not shown:
        return ["all values"]
    labels = [f"< {shown[0]}"]
    labels += [f"{lo} to < {hi}" for lo, hi in zip(shown[:-1], shown[1:])]
    labels.append(f">= {shown[-1]}")
    return labels
