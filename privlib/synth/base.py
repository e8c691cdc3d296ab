"""What every baseline synthesizer shares: the table encoded as one float matrix and back, the
checks of hyper-parameters, and the ``fit``/``sample`` protocol of :class:`_Synthesizer`."""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from privlib.errors import DataError, PrivlibError
from privlib.schema import (
    NUMERIC,
    check_frame,
    infer_kinds,
    numeric_values,
    restore_numeric,
)
from privlib.validation import Integer, check_value

#: Largest ``noise_scale`` of :class:`AdditiveNoise` and ``bandwidth`` of :class:`ParzenWindows`,
#: in standard deviations of each column: at ten the noise swamps every record (a categorical
#: one-hot of 1 under noise of 10 is redrawn almost at random), so a larger value makes no other
#: lesson, only values beyond the range of dates and integers, which are no table of the input's
#: kind.
MAX_NOISE = 10.0

#: Most rows :meth:`sample` draws: a billion rows of one column is 8 GB already; numpy itself
#: refuses arrays past 2**63 bytes with a ValueError.
MAX_SAMPLE_ROWS = 10**9

#: Largest ``min_samples_leaf`` of :class:`SequentialTrees`: a leaf of at least as many records as
#: the training data is one leaf (the column's own distribution), so a billion takes nothing away,
#: and scikit-learn keeps the value in a 64-bit integer that 1e29 overflows.
MAX_LEAF = 10**9


# --------------------------------------------------------------------------------------------
# Encoding a table as one float matrix, and back
# --------------------------------------------------------------------------------------------
@dataclass
class _Column:
    """How one column is turned into floats and back.

    Numeric columns become float64 (dates in days); categorical columns become integer codes
    (positions in the categorical dtype's categories, or in the sorted distinct values for other
    dtypes). Missing is NaN in both.
    """

    name: object
    numeric: bool
    like: pd.Series  # an empty series with the original dtype and name
    labels: np.ndarray | None = None  # distinct values of a non-categorical dtype, by code

    @classmethod
    def fit(cls, series: pd.Series, kind: str) -> tuple[_Column, np.ndarray]:
        like = series.iloc[:0]
        if kind == NUMERIC:
            values = numeric_values(series)
            if np.isinf(values).any():
                raise DataError(
                    f"column {series.name!r} of `data` holds infinite values; replace them with "
                    "finite numbers or NaN before fitting."
                )
            return cls(series.name, True, like), values
        labels: np.ndarray | None
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes, labels = series.cat.codes.to_numpy(), None
        else:
            codes, uniques = pd.factorize(series, sort=True)
            labels = np.asarray(uniques, dtype=object)
        coded = np.where(codes < 0, np.nan, codes).astype("float64")
        return cls(series.name, False, like, labels), coded

    def decode(self, values: np.ndarray) -> pd.Series:
        if self.numeric:
            return restore_numeric(values, self.like)
        codes = np.where(np.isnan(values), -1, values).astype("int64")
        dtype = self.like.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), name=self.name)
        assert self.labels is not None  # fit keeps the labels of a column that is not categorical
        out = pd.api.extensions.take(self.labels, codes, allow_fill=True)
        return pd.Series(out, name=self.name, dtype=object).astype(dtype)


@dataclass
class _Table:
    """A training table as a float matrix (one column per variable) plus its decoders."""

    columns: list
    matrix: np.ndarray

    @classmethod
    def fit(cls, df: pd.DataFrame) -> _Table:
        kinds = infer_kinds(df, name="data")
        fitted = [_Column.fit(df[c], kinds[c]) for c in df.columns]
        return cls([c for c, _ in fitted], np.column_stack([v for _, v in fitted]))

    @property
    def numeric(self) -> np.ndarray:
        return np.array([c.numeric for c in self.columns])

    def decode(self, matrix: np.ndarray) -> pd.DataFrame:
        return pd.concat([c.decode(matrix[:, j]) for j, c in enumerate(self.columns)], axis=1)


# --------------------------------------------------------------------------------------------
# Shared machinery
# --------------------------------------------------------------------------------------------
def _rng(random_state) -> np.random.Generator:
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise PrivlibError(
            f"`random_state` must be None, a non-negative integer or a numpy Generator, got {random_state!r}."
        ) from exc


def _check_number(value, parameter: str, *, low: float, high: float = np.inf, low_open=False):
    """Check that a real-valued hyper-parameter is a number within its range."""
    # A Real compares as a float does; typeshed's numbers.Real declares only < and <=.
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(cast(float, value)):
        raise PrivlibError(f"`{parameter}` must be a number, got {value!r}.")
    too_low = value <= low if low_open else value < low
    if too_low or cast(float, value) > high:
        bracket = "(" if low_open else "["
        raise PrivlibError(f"`{parameter}` must lie in {bracket}{low}, {high}], got {value!r}.")


def _pick_rows(n_train: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Training rows to release: all in order, a subset in order, or a draw with replacement."""
    if n == n_train:
        return np.arange(n_train)
    if n < n_train:
        return np.sort(rng.choice(n_train, size=n, replace=False))
    return rng.integers(0, n_train, size=n)


class _Synthesizer:
    """Common ``fit`` / ``sample`` plumbing; subclasses implement ``_fit`` and ``_sample``."""

    def __repr__(self) -> str:
        params = inspect.signature(type(self)).parameters
        shown = ", ".join(f"{p}={getattr(self, p)!r}" for p in params)
        return f"{type(self).__name__}({shown})"

    def fit(self, df: pd.DataFrame):
        """Learn from the training table ``df``.

        Parameters
        ----------
        df : pandas.DataFrame
            The real records. No column may be entirely missing or hold a single value.

        Returns
        -------
        self

        Raises
        ------
        PrivlibError
            For an empty table, a constant or entirely missing column, an unsupported column
            type, infinite numbers, or a bad hyper-parameter.
        """
        # forget an earlier fit first, so a failed refit cannot leave a usable half-state
        vars(self).pop("n_train_", None)
        self._check_params()
        data = check_frame(df, "data", reject_constant=True).reset_index(drop=True)
        self.columns_ = list(data.columns)
        self.data_ = data
        try:
            self.table_ = _Table.fit(data)
            self._fit(data)
        except MemoryError:
            raise DataError(
                f"fitting {type(self).__name__} to {len(data):,} rows x {data.shape[1]} columns ran out "
                "of memory; fit it to fewer rows (n_train of a params file) or fewer columns."
            ) from None
        self.n_train_ = len(data)  # set last: its presence marks a fitted synthesizer
        return self

    def sample(self, n: int | None = None, random_state=None) -> pd.DataFrame:
        """Draw a synthetic table.

        Parameters
        ----------
        n : int, optional
            Number of rows; by default as many as the training table.
        random_state : int, numpy.random.Generator or None
            Seed of the one random generator used; the same seed gives the same table.

        Returns
        -------
        pandas.DataFrame
            ``n`` rows with the training columns, in the same order and with the same dtypes,
            indexed 0..n-1.
        """
        if not hasattr(self, "n_train_"):
            raise PrivlibError(
                f"this {type(self).__name__} is not fitted yet; call fit(train) before sample()."
            )
        if n is None:
            n = self.n_train_
        else:
            check_value(n, "n", [Integer(low=1, high=MAX_SAMPLE_ROWS)])
        try:
            out = self._sample(int(n), _rng(random_state))
        except MemoryError:
            raise DataError(
                f"drawing {int(n):,} rows from {type(self).__name__} ran out of memory; lower `n` "
                "(the synthesizer's number of rows)."
            ) from None
        out.index = pd.RangeIndex(int(n))
        return out

    #: The declared constraints of the hyper-parameters (:mod:`privlib.validation`), by name.
    _constraints: dict = {}

    def _check_params(self):
        """Validate the hyper-parameters (called by ``fit``, as scikit-learn does)."""
        for name, accepted in self._constraints.items():
            check_value(getattr(self, name), name, accepted)

    def _fit(self, data: pd.DataFrame):
        """Learn what the method needs beyond ``data_`` and its encoding ``table_``."""

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        raise NotImplementedError
