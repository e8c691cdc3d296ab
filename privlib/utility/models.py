"""The models and design matrices the utility measures share, and the checks of their inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

from privlib.errors import ParameterError
from privlib.schema import NUMERIC, check_comparable, check_frame, infer_kinds, numeric_values

#: Label given to a missing categorical value before encoding, so "missing" is a level of its own.
MISSING_LABEL = "<missing>"

# Model fits run with the native thread pools (OpenMP, BLAS) limited to one thread: the tables are
# small, so threads gain little, and on a busy machine spinning OpenMP and BLAS threads slowed
# gradient boosting and the logistic fit 20 to 50 times in our measurements.
_THREADS = 1

# HistGradientBoosting bins every categorical feature into at most 255 values (max_bins); rarer
# levels beyond this many are pooled so that high-cardinality user columns still fit.
_MAX_TREE_CATEGORIES = 254


# --------------------------------------------------------------------------------------------
# Shared preparation
# --------------------------------------------------------------------------------------------
def _features(df: pd.DataFrame, kinds: dict) -> pd.DataFrame:
    """Model-ready copy of ``df[kinds]``: numeric columns as float (dates in days, NaN kept),
    categorical columns as text labels with missing values as the level ``MISSING_LABEL``."""
    out = {}
    for column, kind in kinds.items():
        series = df[column]
        if kind == NUMERIC:
            out[column] = numeric_values(series)
        else:
            # each distinct value is turned into text once (code -1, a missing value, picks the
            # label appended at the end)
            codes, values = pd.factorize(series)
            labels = np.array([str(v) for v in values] + [MISSING_LABEL], dtype=object)
            out[column] = labels[codes]
    return pd.DataFrame(out, index=df.index)


def _split_kinds(kinds: dict) -> tuple[list, list]:
    categorical = [c for c, k in kinds.items() if k != NUMERIC]
    numeric = [c for c, k in kinds.items() if k == NUMERIC]
    return categorical, numeric


def _tree_model(kinds: dict, regression: bool) -> Pipeline:
    """HistGradientBoosting with native categorical splits, behind an ordinal encoding.

    Early stopping is off, so the model is deterministic and needs no seed.
    """
    categorical, numeric = _split_kinds(kinds)
    encode = ColumnTransformer(
        [
            (
                "categories",
                OrdinalEncoder(
                    handle_unknown="use_encoded_value",
                    unknown_value=np.nan,  # a level never seen in training is treated as missing
                    max_categories=_MAX_TREE_CATEGORIES,
                ),
                categorical,
            ),
            ("numbers", "passthrough", numeric),
        ]
    )
    is_categorical = [True] * len(categorical) + [False] * len(numeric)
    booster = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
    return Pipeline(
        [("encode", encode), ("model", booster(categorical_features=is_categorical, early_stopping=False))]
    )


def _main_effects(kinds: dict) -> ColumnTransformer:
    """Design matrix of a main-effects model: one-hot categories (first level dropped, so the
    columns are not collinear with the intercept) and standardised numbers with a missing flag."""
    categorical, numeric = _split_kinds(kinds)
    numbers = Pipeline(
        [("impute", SimpleImputer(strategy="median", add_indicator=True)), ("scale", StandardScaler())]
    )
    return ColumnTransformer(
        [
            ("categories", OneHotEncoder(drop="first", sparse_output=False), categorical),
            ("numbers", numbers, numeric),
        ]
    )


def _check_estimator(estimator, needs_proba: bool):
    if not (hasattr(estimator, "fit") and hasattr(estimator, "get_params")):
        raise ParameterError(
            f"`estimator` must be an unfitted scikit-learn estimator or Pipeline, got "
            f"{type(estimator).__name__}."
        )
    if needs_proba and not hasattr(estimator, "predict_proba"):
        raise ParameterError(
            f"`estimator` ({type(estimator).__name__}) has no predict_proba; the propensity score "
            "needs a probabilistic classifier such as LogisticRegression or a tree ensemble."
        )


def _check_pair(original, synthetic, count, name: str) -> dict:
    """Check the two tables and that ``count`` (the argument ``name``) is a positive integer.

    Returns the column kinds of ``original``.
    """
    check_frame(original, "train")
    check_frame(synthetic, "synthetic")
    check_comparable(original, synthetic, ("train", "synthetic"), unseen="ignore")
    if not isinstance(count, (int, np.integer)) or count < 1:
        raise ParameterError(f"`{name}` must be a positive integer, got {count!r}.")
    return infer_kinds(original, name="train")


def _model_name(estimator) -> str:
    final = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
    return type(final).__name__
