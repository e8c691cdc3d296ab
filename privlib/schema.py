"""Column kinds, input validation and the one numeric encoding every distance uses.

Every public function of the kit validates its tables here, so that bad input fails early with a
:class:`~privlib.errors.PrivlibError` that names the table, the column and the fix, instead of a
traceback from deep inside pandas.

Column kinds
------------
``categorical``
    unordered values (pandas categorical, object, string, bool; integer survey codes become
    categoricals when a CSV file is read, see :func:`infer_kinds`).
``ordinal``
    an ordered pandas categorical; treated as categorical by the distances (a different level
    is a different value), kept apart so that synthesizers and plots can respect the order.
``numeric``
    integers, floats and dates (dates are measured in days).

Encoding
--------
:class:`TableEncoder` turns a DataFrame into a float64 array on which every distance of the kit
is one formula::

    d(a, b) = sum_k w_k * min(|a_k - b_k|, cap) / scale

* Gower: a numeric column becomes ``(x - min) / range`` (range from the tables the encoder was
  fitted on), a categorical column its integer category code, so ``min(|a - b|, 1)`` is the
  per-variable Gower term (0 or 1 for categories). ``cap = 1``, ``scale = p``.
* Hamming: numeric columns are first cut into equal-width bins (20 by default) and then coded
  like categories; ``cap = 1``, ``scale = 1``, so the distance counts differing variables.
* Missing values: a missing entry is coded as ``MISSING`` (far away from every real code), so
  missing equals missing (distance 0) and missing against a value is 1 after the cap.
"""

from __future__ import annotations

import decimal
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from privlib.errors import DataError, ParameterError, PrivlibError

CATEGORICAL = "categorical"
ORDINAL = "ordinal"
NUMERIC = "numeric"
KINDS = (CATEGORICAL, ORDINAL, NUMERIC)

#: Code given to a missing value by :class:`TableEncoder`; far from every real code or scaled value.
MISSING = 1.0e9

#: Integer columns with at most this many distinct values are read as categorical codes.
DEFAULT_MAX_CATEGORIES = 10


# --------------------------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------------------------
def check_frame(
    df,
    name: str = "data",
    *,
    min_rows: int = 1,
    reject_constant: bool = False,
    allow_missing_columns: bool = False,
) -> pd.DataFrame:
    """Check that ``df`` is a usable table and return it.

    Parameters
    ----------
    df : pandas.DataFrame
        The table to check.
    name : str
        How the table is called in error messages (the parameter name, e.g. ``"synthetic"``).
    min_rows : int, default 1
        Fewest rows accepted.
    reject_constant : bool, default False
        Also reject a column holding a single value in every row (synthesizers have nothing to
        learn from it).
    allow_missing_columns : bool, default False
        Accept a column that is entirely missing (a block of a larger table, or a query record
        with a missing value, still has a distance to other records).

    Raises
    ------
    ParameterError
        If ``df`` is not a DataFrame.
    DataError
        If it is empty, has duplicated column names, has a column that is entirely missing, a
        column of an unsupported type, or (with ``reject_constant``) a constant column.
    """
    if not isinstance(df, pd.DataFrame):
        raise ParameterError(
            f"`{name}` must be a pandas DataFrame, got {type(df).__name__}; "
            "read a CSV with pandas.read_csv or privlib.datasets.read_table first."
        )
    if df.shape[1] == 0:
        raise DataError(f"`{name}` has no columns; pass a table with at least one variable.")
    if len(df) < min_rows:
        raise DataError(
            f"`{name}` has {len(df)} row(s) but at least {min_rows} are needed; pass a larger table."
        )
    duplicated = df.columns[df.columns.duplicated()].tolist()
    if duplicated:
        raise DataError(f"`{name}` has duplicated column names {duplicated}; rename them.")
    for column in df.columns:
        series = df[column]
        if series.isna().all() and not allow_missing_columns:
            raise DataError(f"column {column!r} of `{name}` is entirely missing; drop it or fill it in.")
        _kind_of(series, column, name)  # raises for unsupported types
        if reject_constant and series.nunique(dropna=False) == 1:
            # The value itself is not shown: it is a value of the (confidential) data.
            raise DataError(
                f"column {column!r} of `{name}` holds one value in every row, so there is "
                "nothing to learn from it; drop it before fitting and add it back afterwards."
            )
    return df


def check_columns(df: pd.DataFrame, columns, parameter: str, name: str = "data") -> list[str]:
    """Return ``columns`` as a list after checking each is a column of ``df``.

    ``parameter`` is the argument the columns came from (``"keys"``, ``"target"``), so the message
    can point at it.
    """
    if columns is None:
        raise ParameterError(f"`{parameter}` is required; name one or more columns of `{name}`.")
    if isinstance(columns, str) or not isinstance(columns, Iterable):
        columns = [columns]
    columns = list(columns)
    if not columns:
        raise ParameterError(f"`{parameter}` is empty; name one or more columns of `{name}`.")
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ParameterError(
            f"`{parameter}` names {missing}, which {'is' if len(missing) == 1 else 'are'} not "
            f"a column of `{name}`; its columns are {list(df.columns)}."
        )
    return columns


def check_same_columns(
    left: pd.DataFrame, right: pd.DataFrame, names: tuple[str, str] = ("train", "synthetic")
) -> list:
    """Check that two tables have the same set of columns; return them in ``left``'s order.

    Raises
    ------
    DataError
        Naming the columns found in only one of the two tables.
    """
    left_name, right_name = names
    only_left = [c for c in left.columns if c not in right.columns]
    only_right = [c for c in right.columns if c not in left.columns]
    if only_left or only_right:
        parts = []
        if only_left:
            parts.append(f"{only_left} only in `{left_name}`")
        if only_right:
            parts.append(f"{only_right} only in `{right_name}`")
        raise DataError(
            f"`{left_name}` and `{right_name}` have different columns: "
            + "; ".join(parts)
            + ". Select the same columns in both tables."
        )
    return list(left.columns)


def check_comparable(
    left: pd.DataFrame,
    right: pd.DataFrame,
    names: tuple[str, str] = ("train", "synthetic"),
    *,
    columns: Sequence[str] | None = None,
    unseen: str = "raise",
) -> None:
    """Check that two tables describe the same variables in the same way.

    Parameters
    ----------
    left, right : pandas.DataFrame
        The tables to compare (each already passed :func:`check_frame`).
    names : tuple of str
        What the two tables are called in messages.
    columns : sequence of str, optional
        Compare only these columns; by default both tables must have the same set of columns.
    unseen : {"raise", "ignore"}, default "raise"
        What to do when ``right`` holds a category never seen in ``left``.

    Raises
    ------
    DataError
        Naming the columns missing on either side, a column that is numeric in one table and
        categorical in the other, or the unseen categories.
    """
    left_name, right_name = names
    if columns is None:
        columns = check_same_columns(left, right, names)
    else:
        check_columns(left, columns, "columns", left_name)
        check_columns(right, columns, "columns", right_name)
    left_kinds = infer_kinds(left[list(columns)])
    right_kinds = infer_kinds(right[list(columns)])
    for column in columns:
        lk, rk = left_kinds[column], right_kinds[column]
        if (lk == NUMERIC) != (rk == NUMERIC):
            raise DataError(
                f"column {column!r} is {lk} in `{left_name}` but {rk} in `{right_name}`; "
                "give it the same type in both tables (e.g. with astype)."
            )
        if unseen == "raise" and lk != NUMERIC:
            seen = set(left[column].dropna().unique().tolist())
            new = sorted({v for v in right[column].dropna().unique().tolist() if v not in seen}, key=str)
            if new:
                # counts only: a category of the data may be a confidential value
                rows = int(right[column].isin(new).sum())
                raise DataError(
                    f"column {column!r} of `{right_name}` holds {len(new)} categor"
                    f"{'y' if len(new) == 1 else 'ies'} never seen in `{left_name}` ({rows} row(s)); "
                    "recode them to known categories or drop those rows."
                )


# --------------------------------------------------------------------------------------------
# Column kinds
# --------------------------------------------------------------------------------------------
#: Values an object column may hold: labels and numbers.
_SCALARS = (str, bool, np.bool_, int, float, np.integer, np.floating, decimal.Decimal)


def _kind_of(series: pd.Series, column, name: str, max_categories: int | None = None):
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return ORDINAL if dtype.ordered else CATEGORICAL
    if pd.api.types.is_bool_dtype(dtype):
        return CATEGORICAL
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return NUMERIC
    if pd.api.types.is_integer_dtype(dtype):
        if max_categories is not None and series.nunique() <= max_categories:
            return CATEGORICAL
        return NUMERIC
    if pd.api.types.is_float_dtype(dtype):
        return NUMERIC
    if pd.api.types.is_object_dtype(dtype) or pd.api.types.is_string_dtype(dtype):
        values = series.dropna()
        # fast path (pandas' C type inference) for the common all-text or all-boolean column
        if pd.api.types.infer_dtype(values, skipna=True) in ("string", "boolean"):
            return CATEGORICAL
        if values.map(lambda v: isinstance(v, (str, bool, np.bool_))).all():
            return CATEGORICAL
        # Messages name types and counts only: a value of the column may be confidential.
        others = sorted({type(v).__name__ for v in values if not isinstance(v, _SCALARS)})
        if others:
            raise DataError(
                f"column {column!r} of `{name}` holds values of type {', '.join(others)}, which the "
                "kit cannot compare; convert them to numbers, dates or labels, or drop the column."
            )
        numeric = pd.to_numeric(values, errors="coerce")
        if numeric.notna().all():
            return NUMERIC
        labels = int(numeric.isna().sum())
        raise DataError(
            f"column {column!r} of `{name}` mixes {len(values) - labels} number(s) with {labels} "
            "other value(s); clean it so it is all numbers or all labels."
        )
    raise DataError(
        f"column {column!r} of `{name}` has unsupported type {dtype}; "
        "convert it to numbers, dates or categories."
    )


def infer_kinds(df: pd.DataFrame, *, max_categories: int | None = None, name: str = "data") -> dict[str, str]:
    """Infer each column's kind: ``"categorical"``, ``"ordinal"`` or ``"numeric"``.

    Rules: an ordered pandas categorical is ordinal; an unordered categorical, a boolean, an
    object or string column is categorical; an integer, float or date column is numeric.

    With ``max_categories``, an integer column with at most that many distinct values is read as
    categorical (survey codes such as SEX = 1, 2). :func:`privlib.datasets.read_table` applies this
    once, to the whole file, and stores the answer as a pandas categorical; every later step reads
    the dtype. (Guessing again on each table would make a short sample of a numeric column look
    categorical.)
    """
    return {c: _kind_of(df[c], c, name, max_categories) for c in df.columns}


def numeric_values(series: pd.Series) -> np.ndarray:
    """Return a numeric column as float64 (dates in days since 1970-01-01 UTC), NaN where missing."""
    if pd.api.types.is_datetime64_any_dtype(series.dtype):
        if getattr(series.dt, "tz", None) is not None:  # time-zone aware: compare in UTC
            series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        days = (series - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
        return days.to_numpy(dtype="float64", na_value=np.nan)
    return pd.to_numeric(series, errors="coerce").to_numpy(dtype="float64", na_value=np.nan)


def restore_numeric(values: np.ndarray, like: pd.Series) -> pd.Series:
    """Turn float values back into the dtype of ``like`` (rounding for integers and dates).

    Raises
    ------
    PrivlibError
        When a value lies beyond what the dtype holds (a date past the calendar pandas keeps, an
        integer beyond its width): a generator drew values of another kind than the column's.
    """
    values = np.asarray(values, dtype="float64")
    dtype = like.dtype
    try:
        if pd.api.types.is_datetime64_any_dtype(dtype):
            days = np.round(values)
            out = pd.to_datetime(days, unit="D", origin="unix")
            return pd.Series(out, name=like.name).astype(dtype)
        if pd.api.types.is_integer_dtype(dtype):
            info = np.iinfo(dtype.numpy_dtype if hasattr(dtype, "numpy_dtype") else dtype)
            finite = values[np.isfinite(values)]
            if np.isinf(values).any() or (
                finite.size and (finite.min() < info.min or finite.max() > info.max)
            ):
                raise OverflowError
            if np.isnan(values).any():
                return pd.Series(np.round(values), name=like.name).astype("Int64")
            # A nullable integer dtype (Int64, UInt8...) is pandas', which numpy's astype cannot take.
            if not isinstance(dtype, np.dtype):
                return pd.Series(np.round(values), name=like.name).astype(dtype)
            return pd.Series(np.round(values).astype(dtype), name=like.name)
    except (OverflowError, pd.errors.OutOfBoundsDatetime):
        raise PrivlibError(
            f"the values drawn for column {like.name!r} lie beyond what its type ({dtype}) holds; "
            "lower the generator's noise (noise_scale, bandwidth)."
        ) from None
    return pd.Series(values, name=like.name).astype(dtype)


def coerce_kinds(df: pd.DataFrame, kinds: Mapping[str, str]) -> pd.DataFrame:
    """Return a copy of ``df`` whose categorical and ordinal columns are pandas categoricals.

    Used when a table is read from CSV: survey codes become categories, so every later step
    (synthesizers, CAP, distances) treats them as labels.
    """
    out = df.copy()
    for column, kind in kinds.items():
        if kind in (CATEGORICAL, ORDINAL) and not isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype("category")
    return out


def harmonize(frames: Mapping[str, pd.DataFrame], columns: Sequence[str] | None = None):
    """Give the categorical columns of several tables one shared set of categories.

    Returns a dict of copies with the same keys. Category codes then mean the same thing in
    every table, which the encoder and the group-by joins of CAP rely on.
    """
    first = next(iter(frames.values()))
    columns = list(first.columns) if columns is None else list(columns)
    per_frame = [infer_kinds(f[columns], name=n) for n, f in frames.items()]
    kinds = {}
    for column in columns:
        ks = {k[column] for k in per_frame}
        kinds[column] = NUMERIC if ks == {NUMERIC} else (ORDINAL if ORDINAL in ks else CATEGORICAL)
    out = {name: frame.copy() for name, frame in frames.items()}
    for column, kind in kinds.items():
        if kind == NUMERIC:
            continue
        ordered_source = next(
            (
                dtype
                for dtype in (f[column].dtype for f in frames.values())
                if isinstance(dtype, pd.CategoricalDtype) and dtype.ordered
            ),
            None,
        )
        if ordered_source is not None:
            categories = list(ordered_source.categories)
            extra = []
            for f in frames.values():
                extra += [v for v in pd.unique(f[column].dropna()) if v not in categories and v not in extra]
            dtype = pd.CategoricalDtype(categories + sorted(extra, key=str), ordered=True)
        else:
            values = []
            for f in frames.values():
                s = f[column]
                cats = s.cat.categories if isinstance(s.dtype, pd.CategoricalDtype) else pd.unique(s.dropna())
                values += [v for v in cats if v not in values]
            dtype = pd.CategoricalDtype(_sorted_labels(values))
        for name in out:
            out[name][column] = out[name][column].astype(object).astype(dtype)
    return out


#: Pseudo-range of a numeric column constant in fit: any real difference from it reaches the cap.
_CONSTANT_SPAN = 1e-9


def _label_code(label) -> int:
    """A code for a category label the encoder never saw: the same label always gets the same
    code, different labels different ones (48 bits of a hash; whole numbers stay exact in float64)."""
    digest = hashlib.blake2b(repr(label).encode("utf-8"), digest_size=6).digest()
    return int.from_bytes(digest, "big")


def _sorted_labels(values: list) -> list:
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


# --------------------------------------------------------------------------------------------
# Encoding
# --------------------------------------------------------------------------------------------
@dataclass
class TableEncoder:
    """Encode tables as float arrays for the distance engine, fitted once per comparison.

    Parameters
    ----------
    metric : {"gower", "hamming"}
        Gower scales numeric columns by their range; Hamming cuts them into ``n_bins``
        equal-width bins.
    n_bins : int, default 20
        Bins per numeric column for Hamming (El Emam et al. use 20; dates likewise).
    columns : sequence of str, optional
        Columns to use (default: all columns of the first fitted table); the columns actually
        encoded are ``columns_`` after ``fit``, so one encoder can be refitted on other tables.
    weights : mapping of column to float, optional
        Gower weights ``w_k`` (default 1 for every column).

    Notes
    -----
    ``fit`` takes one or more tables: numeric ranges (Gower) and bin edges (Hamming) are taken
    from all of them together, and categories are the union of those seen. The kit's metrics fit
    on every table of a comparison (e.g. training, holdout and synthetic data), so no value falls
    outside the range; a value outside the fitted range contributes at most 1 (the cap). A numeric
    column constant in ``fit`` contributes 0 between values equal to that constant and 1 between
    any two different values. A category never seen in ``fit`` differs from every known category
    and from every other unseen category (its code is derived from the label itself, so the same
    unseen label gets the same code in every table).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"age": [20.0, 40.0], "sex": ["F", "M"]})
    >>> enc = TableEncoder().fit(a)
    >>> enc.transform(a).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """

    metric: str = "gower"
    n_bins: int = 20
    columns: Sequence[str] | None = None
    weights: Mapping[str, float] | None = None
    columns_: list = field(default_factory=list, init=False, repr=False)
    kinds_: dict = field(default_factory=dict, init=False, repr=False)
    lows_: dict = field(default_factory=dict, init=False, repr=False)
    spans_: dict = field(default_factory=dict, init=False, repr=False)
    categories_: dict = field(default_factory=dict, init=False, repr=False)

    def fit(self, *frames: pd.DataFrame, names: Sequence[str] | None = None) -> TableEncoder:
        if self.metric not in ("gower", "hamming"):
            raise PrivlibError(f"`metric` must be 'gower' or 'hamming', got {self.metric!r}.")
        if not isinstance(self.n_bins, (int, np.integer)) or self.n_bins < 1:
            raise PrivlibError(f"`n_bins` must be a positive integer, got {self.n_bins!r}.")
        if not frames:
            raise PrivlibError("TableEncoder.fit needs at least one table.")
        names = list(names) if names is not None else [f"table {i + 1}" for i in range(len(frames))]
        for frame, name in zip(frames, names):
            check_frame(frame, name, allow_missing_columns=True)
        columns = list(frames[0].columns) if self.columns is None else list(self.columns)
        for frame, name in zip(frames, names):
            check_columns(frame, columns, "columns", name)
        self.columns_ = columns
        self.kinds_, self.lows_, self.spans_, self.categories_ = {}, {}, {}, {}
        if self.weights is not None:
            unknown = [c for c in self.weights if c not in columns]
            if unknown:
                raise PrivlibError(f"`weights` names {unknown}, which are not encoded columns.")
        for column in columns:
            kind = self._pooled_kind(column, frames, names)
            self.kinds_[column] = kind
            if kind == NUMERIC:
                values = np.concatenate([numeric_values(f[column]) for f in frames])
                finite = values[np.isfinite(values)]
                low = float(finite.min()) if finite.size else 0.0
                high = float(finite.max()) if finite.size else 0.0
                self.lows_[column] = low
                self.spans_[column] = high - low
            else:
                seen: dict = {}
                for f in frames:
                    for v in pd.unique(f[column].dropna()):
                        seen.setdefault(v, len(seen))
                self.categories_[column] = seen
        return self

    @staticmethod
    def _pooled_kind(column, frames, names) -> str:
        """Kind of ``column`` over all fitted tables together.

        A table in which the column is entirely missing (a one-record query with a missing
        value, say) says nothing about its kind.
        """
        present = [(f[column], n) for f, n in zip(frames, names) if f[column].notna().any()]
        if not present:
            raise DataError(f"column {column!r} is entirely missing in every table; drop it or fill it in.")
        kinds = {_kind_of(s, column, n) for s, n in present}
        if kinds == {NUMERIC}:
            return NUMERIC
        if NUMERIC in kinds:
            raise DataError(
                f"column {column!r} is numeric in one table and categorical in another; "
                "give it the same type in every table."
            )
        return ORDINAL if ORDINAL in kinds else CATEGORICAL

    @property
    def feature_weights(self) -> np.ndarray:
        """Weight ``w_k`` of each encoded column, in column order."""
        self._check_fitted()
        w = self.weights or {}
        return np.array([float(w.get(c, 1.0)) for c in self.columns_], dtype="float64")

    @property
    def cap(self) -> float:
        """Largest contribution of one variable before weighting."""
        return 1.0

    @property
    def scale(self) -> float:
        """Divisor of the weighted sum: the total weight for Gower, 1 for Hamming."""
        return float(self.feature_weights.sum()) if self.metric == "gower" else 1.0

    def transform(self, df: pd.DataFrame, name: str = "data") -> np.ndarray:
        """Encode ``df`` as an ``(n, p)`` float64 array (C order)."""
        self._check_fitted()
        check_frame(df, name, min_rows=0, allow_missing_columns=True)
        check_columns(df, self.columns_, "columns", name)
        out = np.empty((len(df), len(self.columns_)), dtype="float64")
        for j, column in enumerate(self.columns_):
            series = df[column]
            if self.kinds_[column] == NUMERIC:
                # integers are numbers whatever their count, and an all-missing block has no type
                readable = (
                    pd.api.types.is_integer_dtype(series.dtype)
                    or series.isna().all()
                    or _kind_of(series, column, name) == NUMERIC
                )
                if not readable:
                    raise DataError(
                        f"column {column!r} of `{name}` is not numeric, but it was numeric when "
                        "the encoder was fitted; convert it to numbers."
                    )
                values = numeric_values(series)
                if np.isinf(values).any():
                    raise DataError(
                        f"column {column!r} of `{name}` holds infinite values; replace them with "
                        "numbers or leave them missing (NaN)."
                    )
                low, span = self.lows_[column], self.spans_[column]
                if span == 0:
                    # Constant in fit: equal to the constant is 0 apart, any difference is capped at 1.
                    scale = _CONSTANT_SPAN * max(1.0, abs(low))
                    coded = (values - low) / scale if self.metric == "gower" else np.sign(values - low)
                elif self.metric == "gower":
                    coded = (values - low) / span
                else:
                    coded = np.clip(np.floor((values - low) / span * self.n_bins), 0, self.n_bins - 1)
            else:
                mapping = self.categories_[column]
                if isinstance(series.dtype, pd.CategoricalDtype):
                    # look up the column's few categories rather than every value (code -1,
                    # a missing value, picks the -1 appended at the end)
                    known = [mapping.get(label, -1) for label in series.cat.categories]
                    codes = np.array(known + [-1], dtype=np.int64)[series.cat.codes.to_numpy()]
                else:
                    codes = pd.Index(list(mapping), dtype=object).get_indexer(series.astype(object))
                coded = codes.astype("float64")
                unseen = (codes < 0) & series.notna().to_numpy()
                if unseen.any():
                    coded[unseen] = [len(mapping) + _label_code(v) for v in series[unseen]]
            coded = np.where(series.isna().to_numpy(), MISSING, coded)
            out[:, j] = coded
        return out

    def fit_transform(self, *frames: pd.DataFrame, names: Sequence[str] | None = None):
        """Fit on all ``frames`` and return the encoded arrays, one per frame."""
        self.fit(*frames, names=names)
        names = list(names) if names is not None else [f"table {i + 1}" for i in range(len(frames))]
        return [self.transform(f, n) for f, n in zip(frames, names)]

    def _check_fitted(self):
        if not self.kinds_:
            raise PrivlibError("This TableEncoder is not fitted yet; call fit(...) first.")
