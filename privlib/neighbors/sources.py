"""Sources: the two inputs (tables or numeric arrays) turned into encoded float64 blocks on demand."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlib.errors import DataError, ParameterError
from privlib.schema import NUMERIC, TableEncoder, check_frame, check_same_columns


# --------------------------------------------------------------------------------------------
# Sources: turn the two inputs into encoded float64 blocks on demand
# --------------------------------------------------------------------------------------------
class _TableSource:
    """DataFrames encoded by a TableEncoder, a block of rows at a time."""

    def __init__(self, query, reference, metric, encoder, exclude_self):
        # a column missing in every record of one table still has distances (missing vs value)
        check_frame(query, "query", allow_missing_columns=True)
        check_frame(reference, "reference", allow_missing_columns=True)
        columns = check_same_columns(query, reference, ("query", "reference"))
        if encoder is None:
            encoder = TableEncoder(metric=metric, columns=columns).fit(
                query, reference, names=["query", "reference"]
            )
        elif not isinstance(encoder, TableEncoder):
            raise ParameterError(
                f"`encoder` must be a fitted privlib.schema.TableEncoder, got {type(encoder).__name__}."
            )
        elif encoder.metric != metric:
            raise ParameterError(
                f"`encoder` was built for metric {encoder.metric!r} but `metric` is {metric!r}; "
                f"fit a TableEncoder(metric={metric!r})."
            )
        elif not encoder.kinds_:
            raise ParameterError("`encoder` is not fitted yet; call encoder.fit(...) first.")
        elif sorted(map(str, encoder.columns_)) != sorted(map(str, columns)):
            raise ParameterError(
                f"`encoder` encodes columns {list(encoder.columns_)} but the tables have "
                f"{columns}; fit the encoder on tables with the same columns."
            )
        self.encoder = encoder
        self.query, self.reference = query, reference
        self.n_query, self.n_reference = len(query), len(reference)
        self.n_features = len(encoder.columns_)
        self.weights = encoder.feature_weights
        if not (np.isfinite(self.weights).all() and (self.weights >= 0).all()):
            raise ParameterError(
                f"`encoder` has weights {self.weights.tolist()}; Gower weights must be finite "
                "and non-negative."
            )
        self.cap, self.scale = encoder.cap, encoder.scale
        # Category codes (and Hamming bins) are whole numbers, so min(|a - b|, 1) is exactly
        # "a differs from b": the kernel tests that instead, which costs fewer instructions.
        self.codes = np.array([metric == "hamming" or encoder.kinds_[c] != NUMERIC for c in encoder.columns_])
        self.exclude_self = bool(exclude_self)
        if exclude_self:
            _check_same(query is reference or query.equals(reference))

    def query_block(self, start, stop):
        return self.encoder.transform(self.query.iloc[start:stop], "query")

    def reference_block(self, start, stop):
        return self.encoder.transform(self.reference.iloc[start:stop], "reference")


class _ArraySource:
    """Numeric arrays (or numeric DataFrames) for L1 and L2, used as they are."""

    def __init__(self, query, reference, exclude_self):
        same = query is reference
        if isinstance(query, pd.DataFrame) and isinstance(reference, pd.DataFrame):
            columns = check_same_columns(query, reference, ("query", "reference"))
            reference = reference[columns]
        self.query = _numeric_array(query, "query")
        self.reference = self.query if same else _numeric_array(reference, "reference")
        if self.query.shape[1] != self.reference.shape[1]:
            raise DataError(
                f"`query` has {self.query.shape[1]} columns but `reference` has "
                f"{self.reference.shape[1]}; pass arrays with the same columns."
            )
        self.n_query, self.n_reference = len(self.query), len(self.reference)
        self.n_features = self.query.shape[1]
        self.weights = np.ones(self.n_features)
        self.cap, self.scale = np.inf, 1.0
        self.codes = np.zeros(self.n_features, dtype=bool)
        self.exclude_self = bool(exclude_self)
        if exclude_self:
            _check_same(same or np.array_equal(self.query, self.reference))

    def query_block(self, start, stop):
        return self.query[start:stop]

    def reference_block(self, start, stop):
        return self.reference[start:stop]


def _check_same(same: bool) -> None:
    if not same:
        raise ParameterError(
            "`exclude_self=True` needs `query` and `reference` to be the same table; pass the "
            "same table twice, or set exclude_self=False."
        )


def _numeric_array(data, name: str) -> np.ndarray:
    if isinstance(data, pd.DataFrame):
        check_frame(data, name)
        for column in data.columns:
            if not pd.api.types.is_numeric_dtype(data[column].dtype):
                raise DataError(
                    f"column {column!r} of `{name}` is not numeric ({data[column].dtype}); "
                    "L1 and L2 need numbers: encode it first, or use metric='gower'."
                )
        data = data.to_numpy(dtype="float64", na_value=np.nan)
    try:
        array = np.asarray(data, dtype="float64")
    except (TypeError, ValueError) as error:
        raise DataError(
            f"`{name}` must hold numbers only for L1 and L2 ({error}); encode it first, or use "
            "metric='gower'."
        ) from None
    if array.ndim != 2:
        raise ParameterError(
            f"`{name}` must be 2-D (records x features), got {array.ndim} dimension(s); "
            "use array.reshape(-1, 1) for a single feature."
        )
    if array.shape[0] == 0 or array.shape[1] == 0:
        raise DataError(f"`{name}` is empty (shape {array.shape}); pass at least one record.")
    if not np.isfinite(array).all():
        raise DataError(
            f"`{name}` holds missing or infinite values; L1 and L2 need complete data: impute "
            "them, or use metric='gower', which handles missing values."
        )
    return np.ascontiguousarray(array)
