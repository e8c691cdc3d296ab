"""Utility measures: how much of the real data's value the synthetic data keeps.

Privacy is only half of the story: a synthesizer that outputs noise is perfectly private and
useless. The kit measures utility in three ways, each a function returning a result object, so
that risk and utility can be read side by side (:func:`compare_synthesizers`):

* :func:`tstr` - *train on synthetic, test on real*: a model for one target variable fitted on the
  synthetic data and scored on real records it never saw, against the same model fitted on the
  real training data (*train on real, test on real*).
* :func:`pmse` - the propensity-score mean squared error (Woo et al. 2009; Snoke et al. 2018):
  how well a classifier tells synthetic from original records, compared with what it would
  reach on two samples of one distribution.
* :func:`marginal_fidelity` - per variable, the total variation distance between the original
  and synthetic distributions, and the Kolmogorov-Smirnov statistic for numeric variables.

Utility results have ``higher_is_riskier=False``: they are not risks, and a higher value does
not mean a higher disclosure risk.

References
----------
Woo M-J, Reiter JP, Oganian A, Karr AF. Global measures of data utility for microdata masked for
disclosure limitation. J Privacy and Confidentiality 1(1), 2009.

Snoke J, Raab GM, Nowok B, Dibben C, Slavkovic A. General and specific utility measures for
synthetic data. J R Stat Soc A 181(3), 2018.

Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of synthetic
health data. AIDR 2019 (train on synthetic, test on real).
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit
from scipy import stats
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, get_scorer, get_scorer_names, r2_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from threadpoolctl import threadpool_limits

from privlib import attribute, membership
from privlib.errors import DataError, ParameterError
from privlib.matching import subsample_rows
from privlib.results import Result, _fmt, _plain, per_record
from privlib.schema import NUMERIC, check_columns, check_comparable, check_frame, infer_kinds, numeric_values
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOTSTRAP,
    AUCRanks,
    bootstrap_interval,
    percentile_interval,
    resampled_means,
)
from privlib.validation import (
    HasMethods,
    Instance,
    Integer,
    Names,
    Number,
    RandomState,
    Table,
    validate_params,
)

__all__ = [
    "tstr",
    "pmse",
    "marginal_fidelity",
    "fidelity_summary",
    "compare_synthesizers",
    "TSTRResult",
    "PMSEResult",
    "MarginalFidelityResult",
    "FidelitySummary",
    "FidelityMeasure",
]

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
    check_frame(original, "original")
    check_frame(synthetic, "synthetic")
    check_comparable(original, synthetic, ("original", "synthetic"), unseen="ignore")
    if not isinstance(count, (int, np.integer)) or count < 1:
        raise ParameterError(f"`{name}` must be a positive integer, got {count!r}.")
    return infer_kinds(original, name="original")


def _model_name(estimator) -> str:
    final = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
    return type(final).__name__


# --------------------------------------------------------------------------------------------
# Train on synthetic, test on real
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class TSTRResult(Result):
    """Train on synthetic, test on real (``value``) against train on real, test on real
    (``baseline``).

    Attributes
    ----------
    ratio : float
        ``(value - chance) / (baseline - chance)``: the share of the real data's gain over chance
        that the synthetic data keeps (1 = as useful as the real data for this task, 0 = no
        better than chance; NaN when the real data does no better than chance).
    chance : float
        The score of a model that learned nothing: 0.5 for a ROC AUC, the holdout's most common
        class share for the accuracy, 0 for R² (already measured against the mean) and for any
        other scorer.
    target : str
        The predicted variable.
    metric : str
        The scikit-learn scorer used (``"roc_auc"``, ``"accuracy"``, ``"r2"``, ...).
    task : {"binary", "multiclass", "regression"}
        The kind of prediction.
    model : str
        The estimator's class name.
    """

    target: str
    metric: str
    task: str
    model: str
    ratio: float
    chance: float = 0.0
    higher_is_riskier: bool = False

    def reading(self) -> str:
        return (
            f"Trained on the synthetic data, a {self.model} predicts {self.target!r} on real "
            f"records it never saw with {self.metric} {_fmt(self.value)}, against "
            f"{_fmt(self.baseline)} when trained on the real training data and {_fmt(self.chance)} "
            f"by chance: the synthetic data keeps {_percent(self.ratio)} of the real data's gain "
            "over chance for this task."
        )


def _percent(share: float) -> str:
    return "an undefined share" if not np.isfinite(share) else f"{100 * share:.0f}%"


def _default_metric(task: str) -> str:
    return {"binary": "roc_auc", "multiclass": "accuracy", "regression": "r2"}[task]


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "holdout": [Table()],
        "target": [Names()],
        "estimator": [HasMethods("fit", "predict"), None],
        "metric": [Instance(str, description="a scikit-learn scoring name"), None],
    }
)
def tstr(*, train, synthetic, holdout, target, estimator=None, metric=None) -> TSTRResult:
    """Train on synthetic, test on real (TSTR) against train on real, test on real (TRTR).

    The same model predicts ``target`` from every other variable. Fitted on ``synthetic`` and
    scored on ``holdout`` it gives the TSTR score; fitted on ``train`` (the data the synthesizer
    learned from) and scored on the same ``holdout`` it gives the TRTR baseline.

    Parameters
    ----------
    train : pandas.DataFrame
        The real training data (the synthesizer's input).
    synthetic : pandas.DataFrame
        The synthetic data, with the same columns.
    holdout : pandas.DataFrame
        Real records used by neither the synthesizer nor the models (e.g. the holdout).
    target : str
        The column to predict. A categorical column with two values is a binary task, with more
        a multiclass task; a numeric column is a regression task.
    estimator : scikit-learn estimator, optional
        Any unfitted estimator or Pipeline; it is cloned before each fit. It receives the
        features as a DataFrame in which numeric columns are floats (dates in days, NaN where
        missing) and categorical columns are text labels (missing as ``"<missing>"``), so it
        should do its own encoding. Default: ``HistGradientBoostingClassifier`` (or
        ``...Regressor``) with native categorical splits after an ordinal encoding and early
        stopping off, so the default is deterministic.
    metric : str, optional
        A scikit-learn scorer name (``sklearn.metrics.get_scorer_names()``). Default: ``"roc_auc"``
        for a binary target (the positive class is the later of the two sorted labels),
        ``"accuracy"`` for a multiclass target, ``"r2"`` (the coefficient of determination) for a
        numeric target.

    Returns
    -------
    TSTRResult
        ``value`` (TSTR), ``baseline`` (TRTR), ``chance`` (the score of a model that learned
        nothing) and ``ratio = (value - chance) / (baseline - chance)``: independent marginals,
        which keep no relationship between the variables, read near 0, not near the AUC of 0.5
        over the real data's AUC.

    Raises
    ------
    PrivlibError
        If a table is not a DataFrame or is empty, the columns differ, ``target`` is not a column,
        is missing in some rows, or takes a single value in ``train`` or ``synthetic``, or
        ``metric`` is not a scorer name.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": ["a", "b"] * 20, "y": ["yes", "no"] * 20})
    >>> tstr(train=real, synthetic=real, holdout=real, target="y").value
    1.0
    """
    return _tstr_result(
        _tstr_fit(
            train=train,
            synthetic=synthetic,
            holdout=holdout,
            target=target,
            estimator=estimator,
            metric=metric,
        )
    )


@dataclass(frozen=True)
class _TSTRFit:
    """The two fitted models of TSTR and TRTR with the holdout they are scored on."""

    models: dict  # "synthetic" and "train" -> the fitted estimator
    x_test: pd.DataFrame  # the holdout's features, model-ready
    y_test: pd.Series  # the holdout's target labels
    target: str
    metric: str
    task: str
    model: str

    def score(self, source: str) -> float:
        """The metric of the model fitted on ``source`` on the whole holdout."""
        with threadpool_limits(limits=_THREADS):
            return float(get_scorer(self.metric)(self.models[source], self.x_test, self.y_test))

    @property
    def chance(self) -> float:
        """The score of a model that learned nothing: 0.5 for a ROC AUC, the holdout's most common
        class share for the accuracy (always guessing it), 0 otherwise (R² is already measured
        against the mean)."""
        if self.metric == "roc_auc":
            return 0.5
        if self.metric == "accuracy":
            return float(self.y_test.value_counts(normalize=True).max())
        return 0.0


def _over_chance(value, baseline, chance: float):
    """The share of the baseline's gain over ``chance`` that ``value`` keeps (NaN without a gain)."""
    gain = np.asarray(baseline, dtype="float64") - chance
    kept = np.divide(
        np.asarray(value, dtype="float64") - chance, gain, out=np.full(gain.shape, np.nan), where=gain > 0
    )
    return float(kept) if kept.ndim == 0 else kept


def _tstr_fit(*, train, synthetic, holdout, target, estimator, metric) -> _TSTRFit:
    """Check the inputs of :func:`tstr` and fit its model on ``synthetic`` and on ``train``."""
    tables = {"train": train, "synthetic": synthetic, "holdout": holdout}
    for name, table in tables.items():
        check_frame(table, name)
        check_columns(table, target, "target", name)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    check_comparable(train, holdout, ("train", "holdout"), unseen="ignore")
    if not isinstance(target, str):
        raise ParameterError(f"`target` must be one column name, got {target!r}.")
    features = [c for c in train.columns if c != target]
    if not features:
        raise DataError(f"`train` has no column besides the target {target!r}; add predictors.")
    for name, table in tables.items():
        n_missing = int(table[target].isna().sum())
        if n_missing:
            raise DataError(
                f"the target {target!r} is missing in {n_missing} row(s) of `{name}`; drop those "
                "rows or fill them in."
            )

    kinds = infer_kinds(train, name="train")
    regression = kinds[target] == NUMERIC
    labels = {name: _features(table, {target: kinds[target]})[target] for name, table in tables.items()}
    if regression:
        task = "regression"
    else:
        for name in ("train", "synthetic"):
            if labels[name].nunique() < 2:
                raise DataError(
                    f"the target {target!r} takes a single value in `{name}`, so no classifier "
                    "can be fitted; choose another target."
                )
        task = "binary" if labels["train"].nunique() == 2 else "multiclass"

    metric = _default_metric(task) if metric is None else metric
    if metric not in get_scorer_names():
        raise ParameterError(
            f"`metric` must be a scikit-learn scorer name such as 'roc_auc', 'accuracy' or 'r2', "
            f"got {metric!r}."
        )
    if metric.startswith("roc_auc") and labels["holdout"].nunique() < 2:
        raise DataError(
            f"the target {target!r} takes a single value in `holdout`, so {metric} is undefined; "
            "use a larger holdout or metric='accuracy'."
        )

    feature_kinds = {c: kinds[c] for c in features}
    if estimator is None:
        estimator = _tree_model(feature_kinds, regression)
    else:
        _check_estimator(estimator, needs_proba=False)
    with threadpool_limits(limits=_THREADS):
        models = {
            source: clone(estimator).fit(_features(tables[source], feature_kinds), labels[source])
            for source in ("synthetic", "train")
        }
    return _TSTRFit(
        models=models,
        x_test=_features(holdout, feature_kinds),
        y_test=labels["holdout"],
        target=target,
        metric=metric,
        task=task,
        model=_model_name(estimator),
    )


def _tstr_result(fit: _TSTRFit) -> TSTRResult:
    value, baseline = fit.score("synthetic"), fit.score("train")
    return TSTRResult(
        measure="tstr",
        value=value,
        baseline=baseline,
        chance=fit.chance,
        ratio=_over_chance(value, baseline, fit.chance),
        target=fit.target,
        metric=fit.metric,
        task=fit.task,
        model=fit.model,
    )


# --------------------------------------------------------------------------------------------
# Propensity-score mean squared error
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class PMSEResult(Result):
    """Propensity-score mean squared error (``value``) and its null expectation (``baseline``).

    Attributes
    ----------
    ratio : float
        ``value / baseline``: about 1 when the model cannot tell synthetic from original records
        better than it could two samples of one distribution; larger is worse utility.
    standardized : float
        ``(value - baseline) / null_sd``, Snoke et al.'s standardised pMSE.
    null_sd : float
        Standard deviation of pMSE under the null.
    null : {"analytic", "permutation"}
        How the null was obtained (formula for the logistic model, label permutations otherwise).
    model : str
        Description of the propensity model.
    n_parameters : int
        For the logistic model, ``k``: the rank of its design matrix with the intercept.
    synthetic_share : float
        ``c = n_synthetic / N``.
    propensity : numpy.ndarray
        Per-record propensity of being synthetic: the original records first, then the synthetic.
    """

    ratio: float
    standardized: float
    null_sd: float
    null: str
    model: str
    n_parameters: int | None
    synthetic_share: float
    propensity: np.ndarray = per_record(default=None)
    higher_is_riskier: bool = False

    def reading(self) -> str:
        return (
            f"A {self.model} separates synthetic from original records with pMSE {_fmt(self.value)},"
            f" {_fmt(self.ratio)} times the {_fmt(self.baseline)} it would reach on two samples "
            f"of one distribution ({self.null} null). {PMSE_RATIO_WORDS}"
        )


#: Below this pMSE ratio a release is hardly told apart from its own training sample: a sign of
#: copying (kit default). A generator that reproduces the training sample's own proportions, as a
#: well-fitted one does, reaches about 0.5, because it shares that sample's chance deviations from
#: the population; half of that is what only a release that copies the sample reaches.
PMSE_COPY_RATIO = 0.25

#: How a pMSE ratio reads, both ways.
PMSE_RATIO_WORDS = (
    "A ratio near 1 is a sample-like release: the model cannot tell it from the training data any "
    "better than it tells two samples of one distribution apart. Far above 1 the release is easy to "
    "tell apart (lower fidelity). Between about 0.5 and 1 the release follows its training sample's "
    "own chance deviations, as any generator fitted to that sample does; below "
    f"{PMSE_COPY_RATIO:g} it is hardly told apart from its training sample, a sign of copying: read "
    "it with the identity family's copies."
)


def _pmse_reading(ratio: float, low: float, high: float, model: str) -> str:
    """The fidelity summary's reading of a pMSE ratio and its interval, both ways."""
    text = (
        f"A {model} tells synthetic from real records {ratio:.2f} times as well as it tells apart two "
        f"samples of one distribution (interval {low:.2f} to {high:.2f}). "
    )
    if high < PMSE_COPY_RATIO:
        return text + (
            f"Below {PMSE_COPY_RATIO:g}: the release is hardly told apart from its training sample, a "
            "sign of copying; see the identity family's copies beyond chance."
        )
    if high < 1:
        return text + (
            "Below 1: the release follows its training sample more closely than a fresh sample would, "
            "as a generator fitted to that sample does (about 0.5 when it reproduces the sample's own "
            "proportions); not by itself a sign of copying."
        )
    if low > 1:
        return text + "Above 1: the release is easier to tell apart than a fresh sample (lower fidelity)."
    return text + "About 1: a sample-like release, no easier to tell apart than a fresh sample."


def _pmse_of(estimator, x: pd.DataFrame, z: np.ndarray, share: float) -> tuple[float, np.ndarray]:
    with warnings.catch_warnings(), threadpool_limits(limits=_THREADS):
        # When the two tables coincide the Newton solver starts at the optimum, its line search
        # finds nothing to improve and scikit-learn warns before falling back to lbfgs, which
        # returns the same (correct) fit.
        warnings.filterwarnings("ignore", message="Line search of Newton solver", category=ConvergenceWarning)
        model = clone(estimator).fit(x, z)
        propensity = model.predict_proba(x)[:, list(model.classes_).index(1)]
    return float(np.mean((propensity - share) ** 2)), propensity


@validate_params(
    {
        "original": [Table()],
        "synthetic": [Table()],
        "estimator": [HasMethods("fit", "predict_proba"), None],
        "random_state": [RandomState()],
        "n_permutations": [Integer(low=0)],
    }
)
def pmse(*, original, synthetic, estimator=None, random_state=None, n_permutations=20) -> PMSEResult:
    """Propensity-score mean squared error and its ratio to the null expectation.

    The original and synthetic records are stacked (``N = n_original + n_synthetic``) with an
    indicator that is 1 for a synthetic record; a classifier estimates each record's propensity
    ``p_i`` of being synthetic, in sample, and ``pMSE = (1/N) sum_i (p_i - c)^2`` with
    ``c = n_synthetic / N`` (Woo et al. 2009). A model that cannot tell the two apart predicts
    ``c`` for everyone (pMSE 0); perfect separation gives ``(1 - c) c``.

    Even two samples of one distribution give a positive pMSE, because the model fits noise. The
    result therefore compares pMSE with its expectation under that null (Snoke et al. 2018):

    * default model, a main-effects logistic regression (one-hot categories with missing as a
      level, standardised numbers with a missing flag; fitted by Newton's method with a
      negligible ridge penalty, ``C = 1e6``, which only matters when a level occurs in one table
      alone and the unpenalised fit would not exist): the analytic null
      ``E = (k - 1) c (1 - c) / N`` with standard deviation ``sqrt(2(k - 1)) c (1 - c) / N``,
      where ``k`` is the number of parameters (the rank of the design matrix with the intercept,
      so collinear variables such as Adult's education and education-num count once). Under the
      null the fitted propensities are, to first order, the projection of the centred labels
      (variance ``c(1 - c)`` each) onto the ``k - 1`` non-constant directions of the design, so
      ``N pMSE / (c (1 - c))`` is approximately chi-squared with ``k - 1`` degrees of freedom;
      for a single categorical variable with ``k`` levels this is exact up to a factor
      ``N / (N - 1)``. Snoke et al. (2018) print ``(k - 1)(1 - c)^2 c / N``, smaller by the factor
      ``1 - c``; with that value two samples of one distribution average a ratio of ``1 / (1 - c)``
      (2 for equal sizes) in simulation, so the kit uses the expectation above, under which they
      average 1;
    * any other ``estimator``: the null is estimated by refitting it ``n_permutations`` times on
      the same records with the synthetic/original labels shuffled (seeded by
      ``random_state``); its mean and standard deviation are the expectation and spread.

    Parameters
    ----------
    original : pandas.DataFrame
        The real data.
    synthetic : pandas.DataFrame
        The synthetic data, with the same columns.
    estimator : scikit-learn classifier, optional
        Unfitted classifier or Pipeline with ``predict_proba``, cloned before each fit; it
        receives the features as in :func:`tstr` and must do its own encoding. Default: the
        logistic model above.
    random_state : int, numpy.random.Generator or None
        Seed of the label permutations (unused by the default model, which is deterministic).
    n_permutations : int, default 20
        Permutations for the null of a non-default ``estimator``.

    Returns
    -------
    PMSEResult
        ``value`` (pMSE), ``baseline`` (null expectation), ``ratio``, ``standardized`` and the
        per-record propensities.

    Raises
    ------
    PrivlibError
        If a table is not a DataFrame or is empty, the columns differ or a column is numeric in
        one table and categorical in the other, ``estimator`` has no ``predict_proba``, or
        ``n_permutations`` is not a positive integer.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "g": ["a", "b", "a", "b"]})
    >>> round(pmse(original=real, synthetic=real).value, 12)
    0.0
    """
    kinds = _check_pair(original, synthetic, n_permutations, "n_permutations")
    columns = list(original.columns)
    x = pd.concat([_features(original, kinds), _features(synthetic[columns], kinds)], ignore_index=True)
    z = np.r_[np.zeros(len(original), dtype=int), np.ones(len(synthetic), dtype=int)]
    n = len(z)
    share = len(synthetic) / n

    if estimator is None:
        design = _main_effects(kinds).fit_transform(x)
        with threadpool_limits(limits=_THREADS):
            k = int(np.linalg.matrix_rank(np.column_stack([np.ones(n), design])))
        # The null expectation is derived for the maximum-likelihood fit, so the ridge penalty is
        # tiny (1/C = 1e-6): it only keeps coefficients finite when a level occurs in one table
        # alone (separation), where Newton steps would otherwise diverge or stall.
        logistic = LogisticRegression(C=1e6, solver="newton-cholesky", tol=1e-8, max_iter=200)
        value, propensity = _pmse_of(logistic, design, z, share)
        expected = (k - 1) * share * (1 - share) / n
        spread = np.sqrt(2 * (k - 1)) * share * (1 - share) / n
        null, model = "analytic", "main-effects logistic regression"
    else:
        _check_estimator(estimator, needs_proba=True)
        rng = np.random.default_rng(random_state)
        value, propensity = _pmse_of(estimator, x, z, share)
        shuffled = [_pmse_of(estimator, x, rng.permutation(z), share)[0] for _ in range(n_permutations)]
        expected, spread = (
            float(np.mean(shuffled)),
            float(np.std(shuffled, ddof=1)) if n_permutations > 1 else float("nan"),
        )
        k, null, model = None, "permutation", _model_name(estimator)

    return PMSEResult(
        measure="pmse",
        value=value,
        baseline=float(expected),
        ratio=value / expected if expected > 0 else float("nan"),
        standardized=(value - expected) / spread if spread > 0 else float("nan"),
        null_sd=float(spread),
        null=null,
        model=model,
        n_parameters=k,
        synthetic_share=share,
        propensity=propensity,
    )


# --------------------------------------------------------------------------------------------
# Marginal fidelity
# --------------------------------------------------------------------------------------------
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


@validate_params({"original": [Table()], "synthetic": [Table()], "n_bins": [Integer(low=1)]})
def marginal_fidelity(*, original, synthetic, n_bins=20) -> MarginalFidelityResult:
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
    original : pandas.DataFrame
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
    >>> marginal_fidelity(original=a, synthetic=b).value
    0.25
    """
    kinds = _check_pair(original, synthetic, n_bins, "n_bins")
    left, right = _features(original, kinds), _features(synthetic, kinds)
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
        measure="mean_tvd",
        value=float(table["tvd"].mean()),
        max_tvd=float(table["tvd"].max()),
        worst_variable=str(table["tvd"].idxmax()),
        mean_ks=float(numeric_ks.mean()) if len(numeric_ks) else float("nan"),
        n_bins=int(n_bins),
        per_variable=table,
    )


# --------------------------------------------------------------------------------------------
# Fidelity beside privacy
# --------------------------------------------------------------------------------------------
#: The metric of each default TSTR task scored on predictions (the AUC is resampled by ranks).
_DEFAULT_SCORES = {"accuracy": accuracy_score, "r2": r2_score}


@dataclass(frozen=True)
class FidelityMeasure:
    """One figure of the fidelity summary: its value, interval, ideal value and reading.

    Attributes
    ----------
    key : str
        ``"tstr_ratio"``, ``"pmse_ratio"`` or ``"mean_tvd"``.
    title : str
        The figure's name in words.
    value, ci_low, ci_high : float
        The value and the ends of its percentile bootstrap interval.
    ideal : float
        The value of synthetic data as good as a second sample of the real data.
    reading : str
        What the value means, in a sentence.
    details : dict
        The numbers behind the value (TSTR and TRTR scores, the metric, the worst variable, ...).
    """

    key: str
    title: str
    value: float
    ci_low: float
    ci_high: float
    ideal: float
    reading: str
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FidelitySummary:
    """How much of the real data's value the synthetic data keeps: context for a privacy audit.

    Attributes
    ----------
    measures : tuple of FidelityMeasure
        The figures computed, in the order TSTR/TRTR, pMSE ratio, mean marginal distance.
    skipped : tuple of (str, str)
        ``(key, reason)`` for each figure the inputs did not allow.
    confidence : float
        Level of the intervals.
    records : tuple of (str, int, int)
        ``(table, used, of)`` for each table given: the records the figures used, of how many
        (fewer when ``max_records`` sampled the table).
    """

    measures: tuple
    skipped: tuple
    confidence: float
    records: tuple = ()

    def get(self, key: str) -> FidelityMeasure | None:
        """The figure ``key``, or ``None`` when it was not computed."""
        return next((m for m in self.measures if m.key == key), None)

    def to_dict(self) -> dict:
        """JSON-friendly: the figures, the skipped ones with their reasons, and the level."""
        return {
            "confidence": self.confidence,
            "ci_method": BOOTSTRAP,
            "measures": [
                {f.name: _plain(getattr(m, f.name)) for f in dataclasses.fields(m)} for m in self.measures
            ],
            "skipped": [{"key": key, "reason": reason} for key, reason in self.skipped],
            "records": [{"table": table, "used": used, "of": of} for table, used, of in self.records],
        }


def _tstr_ratio_interval(fit: _TSTRFit, *, rng, n_bootstrap, confidence) -> tuple[float, float]:
    """Percentile bootstrap interval of (TSTR - chance) / (TRTR - chance) over the holdout's
    records, the two fitted models held fixed: each resample scores both models on the same resampled records. An AUC is
    resampled within each class (the holdout's positives and negatives separately, as
    :func:`privlib.uncertainty.auc_interval` does), so that every resample has both classes."""
    truth = fit.y_test.to_numpy()
    with threadpool_limits(limits=_THREADS):
        if fit.metric == "roc_auc":
            positive = truth == sorted(set(truth))[-1]  # the scorer's positive class: the later label
            ranks = {}
            for source, model in fit.models.items():
                # classes_ are sorted: column 1 is the positive class's probability
                scores = model.predict_proba(fit.x_test)[:, 1]
                ranks[source] = AUCRanks(scores[positive], scores[~positive])
        else:
            predicted = {source: model.predict(fit.x_test) for source, model in fit.models.items()}
    if fit.metric == "roc_auc":
        values = np.empty(n_bootstrap)
        for b in range(n_bootstrap):
            rows = ranks["synthetic"].resample(rng)
            values[b] = _over_chance(ranks["synthetic"].auc(*rows), ranks["train"].auc(*rows), fit.chance)
        return percentile_interval(values, confidence=confidence)
    score = _DEFAULT_SCORES[fit.metric]

    def ratio(rows):  # the chance level of the whole holdout, held fixed like the models
        trtr = score(truth[rows], predicted["train"][rows])
        return _over_chance(score(truth[rows], predicted["synthetic"][rows]), trtr, fit.chance)

    return bootstrap_interval(
        ratio, [np.arange(len(truth))], rng=rng, n_bootstrap=n_bootstrap, confidence=confidence
    )


def _pmse_ratio_interval(
    result: PMSEResult, n_original: int, *, rng, n_bootstrap, confidence
) -> tuple[float, float]:
    """Percentile bootstrap interval of the pMSE ratio over records, the propensity model held
    fixed: original and synthetic records are resampled separately, so the synthetic share ``c``
    and the null expectation stay as they are."""
    squared = (result.propensity - result.synthetic_share) ** 2
    groups = (squared[:n_original], squared[n_original:])
    means = sum(len(g) * resampled_means(g, rng=rng, n_bootstrap=n_bootstrap) for g in groups) / len(squared)
    assert result.baseline is not None  # pmse() always sets the null expectation
    return percentile_interval(means / result.baseline, confidence=confidence)


def _mean_tvd_interval(codes: dict, estimate: float, *, rng, n_bootstrap, confidence) -> tuple[float, float]:
    """Bias-corrected percentile bootstrap interval of the mean TVD, the records of both tables
    resampled separately.

    Resampling adds noise to both tables' shares, and noise only ever widens a distance, so the
    resampled TVDs sit above the estimate (a copy gives 0, its resamples about 0.02). The
    percentiles are therefore moved down by the resamples' mean excess over the estimate (the
    bootstrap estimate of the bias; Efron & Tibshirani 1993, ch. 10) and kept within [0, 1].
    """
    # Every variable's levels numbered apart (an offset per variable), so that one count over a
    # resample's rows gives the level counts of all variables at once.
    levels = np.array([k for _, _, k in codes.values()])
    offsets = np.concatenate([[0], np.cumsum(levels)[:-1]])
    tables = [
        np.column_stack([c[side] for c in codes.values()]).astype(np.int32) + offsets.astype(np.int32)
        for side in (0, 1)
    ]
    values = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        shares = []
        for table in tables:
            rows = rng.integers(0, len(table), len(table))
            drawn = np.bincount(rows, minlength=len(table))
            shares.append(_level_counts(table, drawn, int(levels.sum())) / len(table))
        per_variable = 0.5 * np.add.reduceat(np.abs(shares[0] - shares[1]), offsets)
        values[b] = per_variable.mean()
    bias = float(np.mean(values)) - estimate
    low, high = percentile_interval(values - bias, confidence=confidence)
    return float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))


@njit(cache=True, nogil=True)
def _level_counts(table: np.ndarray, drawn: np.ndarray, n_levels: int) -> np.ndarray:
    """How often each level occurs in a resample of ``table``'s rows that holds row ``i``
    ``drawn[i]`` times (levels numbered apart per column): the table read once in order, rather
    than row by row in the resample's random order, which misses the cache at every row."""
    counts = np.zeros(n_levels, dtype=np.int64)
    for row in range(table.shape[0]):
        times = drawn[row]
        if times:
            for column in range(table.shape[1]):
                counts[table[row, column]] += times
    return counts


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "holdout": [Table(), None],
        "target": [Names(), None],
        "random_state": [RandomState()],
        "n_bootstrap": [Integer(low=1)],
        "confidence": [Number(low=0, high=1, closed="neither")],
        "max_records": [Integer(low=2), None],
    }
)
def fidelity_summary(
    *,
    train,
    synthetic,
    holdout=None,
    target=None,
    random_state=None,
    n_bootstrap=DEFAULT_N_BOOTSTRAP,
    confidence=DEFAULT_CONFIDENCE,
    max_records=None,
) -> FidelitySummary:
    """Fidelity of ``synthetic`` to ``train`` in three figures with intervals, beside the privacy verdicts.

    The same measures as :func:`compare_synthesizers`' utility columns, each with a percentile
    bootstrap interval (:mod:`privlib.uncertainty`). They are context: no privacy verdict depends
    on them, and they have no threshold.

    * ``tstr_ratio``: :func:`tstr` (default model and metric) against its TRTR baseline, both
      measured from chance, ``(TSTR - chance) / (TRTR - chance)``: the share of the real data's
      gain over chance for predicting ``target`` that the synthetic data keeps (ideal 1, 0 for a
      release that keeps no relationship between the variables). Interval: both fitted models scored on resamples of the holdout's records (the
      uncertainty of the evaluation, not of the fits). Needs ``holdout`` and ``target``.
    * ``pmse_ratio``: :func:`pmse` (default logistic model) over its null expectation (ideal 1;
      about 0.5 for a release that reproduces its training sample's own proportions, and below
      :data:`PMSE_COPY_RATIO` a sign of copying, as the reading says).
      Interval: original and synthetic records resampled separately, the fitted propensities
      held fixed.
    * ``mean_tvd``: :func:`marginal_fidelity`'s mean total variation distance (ideal 0).
      Interval: both tables' records resampled separately, bias-corrected (resampling widens
      every distance, so the percentiles are moved back by the resamples' mean excess).

    Parameters
    ----------
    train : pandas.DataFrame
        The real training data (the generator's input).
    synthetic : pandas.DataFrame
        The synthetic data, with the same columns.
    holdout : pandas.DataFrame, optional
        Real records the generator never saw; without it TSTR is skipped.
    target : str, optional
        The column TSTR predicts; without it TSTR is skipped.
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap (one independent stream per figure, so skipping one leaves the
        others unchanged).
    n_bootstrap : int, default 200
        Resamples per interval.
    confidence : float, default 0.95
        Level of the intervals.
    max_records : int, optional
        Most records of each table the figures use: a larger table is replaced by a sample of
        this many records drawn without replacement (seeded, from a stream of its own), as
        mostlyai-qa's ``max_sample_size_accuracy`` does. The intervals are those of the sample,
        so they widen accordingly. Default: every record.

    Returns
    -------
    FidelitySummary

    Raises
    ------
    PrivlibError
        If a table is not a DataFrame or is empty, or the tables' columns differ.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] * 10, "g": ["a", "b", "a", "c"] * 10})
    >>> fidelity_summary(train=real, synthetic=real, random_state=0).get("mean_tvd").value
    0.0
    """
    # the sample's stream comes last, so the figures' streams are the same with and without it
    keys = ("tstr_ratio", "pmse_ratio", "mean_tvd", "sample")
    streams = dict(zip(keys, np.random.default_rng(random_state).spawn(len(keys)), strict=True))
    given = {"train": train, "synthetic": synthetic, "holdout": holdout}
    used = {
        name: table if max_records is None else _at_most(table, max_records, streams["sample"])
        for name, table in given.items()
        if table is not None
    }
    records = tuple((name, len(used[name]), len(given[name])) for name in used)
    train, synthetic, holdout = (used.get(name) for name in given)
    bootstrap = {"n_bootstrap": n_bootstrap, "confidence": confidence}
    measures, skipped = [], []
    if holdout is None or target is None:
        needs = [
            what for what, given in (("a holdout", holdout), ("a target variable", target)) if given is None
        ]
        skipped.append(("tstr_ratio", f"train on synthetic, test on real needs {' and '.join(needs)}"))
    else:
        try:
            fit = _tstr_fit(
                train=train, synthetic=synthetic, holdout=holdout, target=target, estimator=None, metric=None
            )
        except DataError as exc:
            skipped.append(("tstr_ratio", f"the data do not allow it: {exc}"))
        else:
            result = _tstr_result(fit)
            low, high = _tstr_ratio_interval(fit, rng=streams["tstr_ratio"], **bootstrap)
            measures.append(
                FidelityMeasure(
                    key="tstr_ratio",
                    title="Train on synthetic, test on real (share of the real data's gain over chance)",
                    value=result.ratio,
                    ci_low=low,
                    ci_high=high,
                    ideal=1.0,
                    reading=f"A model trained on the synthetic data predicts {fit.target!r} on unseen real "
                    f"records with {_percent(result.ratio)} of the gain over chance a model trained on the real "
                    f"data reaches ({fit.metric} {result.value:.3f} against {result.baseline:.3f}; chance "
                    f"{result.chance:.3f}). 0 is a release that keeps no relationship between the variables.",
                    details={
                        "tstr": result.value,
                        "trtr": result.baseline,
                        "chance": result.chance,
                        "metric": fit.metric,
                        "target": fit.target,
                        "task": fit.task,
                        "model": fit.model,
                    },
                )
            )
    propensity = pmse(original=train, synthetic=synthetic)
    low, high = _pmse_ratio_interval(propensity, len(train), rng=streams["pmse_ratio"], **bootstrap)
    measures.append(
        FidelityMeasure(
            key="pmse_ratio",
            title="Propensity score MSE ratio (real or synthetic?)",
            value=propensity.ratio,
            ci_low=low,
            ci_high=high,
            ideal=1.0,
            reading=_pmse_reading(propensity.ratio, low, high, propensity.model),
            details={
                "pmse": propensity.value,
                "null_expectation": propensity.baseline,
                "model": propensity.model,
            },
        )
    )
    kinds = infer_kinds(train, name="train")
    marginals = marginal_fidelity(original=train, synthetic=synthetic)
    codes = _marginal_codes(
        _features(train, kinds), _features(synthetic[list(train.columns)], kinds), kinds, marginals.n_bins
    )
    low, high = _mean_tvd_interval(codes, marginals.value, rng=streams["mean_tvd"], **bootstrap)
    measures.append(
        FidelityMeasure(
            key="mean_tvd",
            title="Mean distance between real and synthetic marginals (TVD)",
            value=marginals.value,
            ci_low=low,
            ci_high=high,
            ideal=0.0,
            reading=f"A variable's synthetic distribution differs from the real one by a total variation "
            f"distance of {marginals.value:.3f} on average (0 = identical shares, 1 = no overlap); the largest "
            f"gap is {marginals.worst_variable!r}, {marginals.max_tvd:.3f}.",
            details={
                "max_tvd": marginals.max_tvd,
                "worst_variable": marginals.worst_variable,
                "n_bins": marginals.n_bins,
            },
        )
    )
    return FidelitySummary(
        measures=tuple(measures), skipped=tuple(skipped), confidence=float(confidence), records=records
    )


def _at_most(table: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``table``, or ``size`` of its rows drawn without replacement (in table order) when it has more."""
    if len(table) <= size:
        return table
    return table.iloc[subsample_rows(len(table), size, rng)]


# --------------------------------------------------------------------------------------------
# Risk and utility side by side
# --------------------------------------------------------------------------------------------
#: Columns of :func:`compare_synthesizers`, privacy measures first.
COMPARISON_COLUMNS = {
    "dcr_holdout_share": "share of synthetic records closer to training than to holdout (0.5 = no memorisation)",
    "nn_mia_auc": "nearest-neighbour membership attack AUC (0.5 = no information, 1 = every member exposed)",
    "privacy_loss": "AA(holdout vs S) - AA(train vs S) (0 ideal, about 0.5 for a copy)",
    "membership_f1": "F1 of the Hamming-threshold membership attack (partitioning method)",
    "membership_m": "relative membership risk M (at most 0.2 acceptable; NaN without the population size)",
    "cap": "average correct attribution probability of the target from the keys for the training records "
    "(version 1); raw, not the excess over holdout records that the attribute verdict reads",
    "tstr": "train-on-synthetic-test-on-holdout score for the target",
    "trtr": "train-on-real-test-on-holdout score (the same for every synthesizer)",
    "tstr_ratio": "(tstr - chance) / (trtr - chance): the share of the real data's gain over chance kept",
    "pmse_ratio": "pMSE / its null expectation (about 1 = sample-like; about 0.5 = fitted to the "
    f"training sample; below {PMSE_COPY_RATIO:g} = a sign of copying; far above 1 = easy to tell apart)",
    "mean_tvd": "mean total variation distance of the marginals (0 = identical)",
}


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Instance(dict, description="a dict of labels to DataFrames")],
        "keys": [Names()],
        "target": [Names()],
        "population_size": [Integer(low=1), None],
        "random_state": [RandomState()],
        "h": [Integer(low=0)],
        "attack_size": [Integer(low=1), None],
        "n_repeats": [Integer(low=1)],
        "estimator": [HasMethods("fit", "predict_proba"), None],
    }
)
def compare_synthesizers(
    *,
    train,
    holdout,
    synthetic,
    keys,
    target,
    population_size=None,
    random_state=None,
    h=5,
    attack_size=None,
    n_repeats=1,
    estimator=None,
) -> pd.DataFrame:
    """Privacy and utility of several synthetic tables of the same training data, one row each.

    For each synthetic table ``S`` the function computes, with the kit's own measures:

    * privacy: :func:`privlib.membership.dcr_holdout_share`, the nearest-neighbour attack AUC
      (:func:`privlib.membership.nn_mia`), the privacy loss of Yale et al.
      (:func:`privlib.membership.privacy_loss`, holdout as test), the Hamming-threshold attack by
      the partitioning method (:func:`privlib.membership.partition_risk`: its F1 and relative risk
      M) and the average CAP of ``target`` given ``keys`` (:func:`privlib.attribute.cap`, version 1,
      computed for the training records; numeric keys and a numeric target are first cut into
      the same quantile bins of the training data by :func:`privlib.attribute.discretize`);
    * utility: :func:`tstr` (trained on ``S`` or on ``train``, scored on ``holdout``), the pMSE
      ratio of :func:`pmse` (training data against ``S``, default logistic model) and the mean TVD
      of :func:`marginal_fidelity`.

    Parameters
    ----------
    train : pandas.DataFrame
        The real data every synthesizer was trained on.
    holdout : pandas.DataFrame
        Real records from the same population that no synthesizer saw.
    synthetic : dict of str to pandas.DataFrame
        The synthetic tables, by name (e.g. the synthesizer's name); each has the columns of
        ``train``.
    keys : str or list of str
        The intruder's key variables for CAP.
    target : str
        The variable predicted by TSTR and attributed by CAP.
    population_size : int, optional
        Size N of the population ``train`` was drawn from. With it the attack set holds a share
        ``t = n / N`` of training records and M is computed; without it ``t = 0.5`` (which
        overstates the risk, El Emam et al. 2022) and ``membership_m`` is NaN.
    random_state : int, numpy.random.Generator or None
        One seed for every random step (subsampling to equal sizes, attack sets).
    h : int, default 5
        Hamming threshold of the membership attack.
    attack_size : int, optional
        Records per attack set (default: :func:`privlib.membership.partition_risk`'s).
    n_repeats : int, default 1
        Repetitions of the random measures (privacy loss, membership attack).
    estimator : scikit-learn estimator, optional
        The TSTR model (see :func:`tstr`).

    Returns
    -------
    pandas.DataFrame
        One row per synthetic table (index: its name) and the columns of
        :data:`COMPARISON_COLUMNS`; ``df.attrs["tstr_metric"]`` names the TSTR score.

    Raises
    ------
    PrivlibError
        If ``synthetic`` is not a non-empty dict of DataFrames, or any measure rejects its input
        (the message names the table).
    """
    if not isinstance(synthetic, dict) or not synthetic:
        raise ParameterError(
            "`synthetic` must be a non-empty dict mapping a name to a synthetic DataFrame, e.g. "
            "{'SequentialTrees': table}."
        )
    check_frame(train, "train")
    check_frame(holdout, "holdout")
    check_comparable(train, holdout, ("train", "holdout"), unseen="ignore")
    keys = check_columns(train, keys, "keys", "train")
    target = check_columns(train, target, "target", "train")
    if len(target) != 1:
        raise ParameterError(f"`target` must name one column for TSTR, got {target}.")
    target = target[0]
    for name, table in synthetic.items():
        check_frame(table, f"synthetic[{name!r}]")
        check_comparable(train, table, ("train", f"synthetic[{name!r}]"), unseen="ignore")

    rng = np.random.default_rng(random_state)
    kinds = infer_kinds(train[keys + [target]], name="train")
    to_bin = [c for c, kind in kinds.items() if kind == NUMERIC]
    t = None if population_size is not None else 0.5
    rows, metric = {}, None
    for name, table in synthetic.items():
        table = table[list(train.columns)]
        cap_train, cap_synthetic = train[keys + [target]], table[keys + [target]]
        if to_bin:
            cap_train, cap_synthetic = attribute.discretize(
                original=cap_train, synthetic=cap_synthetic, columns=to_bin
            )
        attack = membership.partition_risk(
            train=train,
            holdout=holdout,
            synthetic=table,
            t=t,
            attack_size=attack_size,
            h=h,
            random_state=rng,
            population_size=population_size,
            n_repeats=n_repeats,
        )
        fit = tstr(train=train, synthetic=table, holdout=holdout, target=target, estimator=estimator)
        metric = fit.metric
        rows[name] = {
            "dcr_holdout_share": membership.dcr_holdout_share(
                synthetic=table, train=train, holdout=holdout, random_state=rng
            ).value,
            "nn_mia_auc": membership.nn_mia(
                train=train, holdout=holdout, synthetic=table, random_state=rng
            ).auc,
            "privacy_loss": membership.privacy_loss(
                train=train, test=holdout, synthetic=table, random_state=rng, n_repeats=n_repeats
            ).value,
            "membership_f1": attack.f1,
            "membership_m": attack.m if attack.m_from == "n/N" else np.nan,
            "cap": attribute.cap(original=cap_train, synthetic=cap_synthetic, keys=keys, target=target).value,
            "tstr": fit.value,
            "trtr": fit.baseline,
            "tstr_ratio": fit.ratio,
            "pmse_ratio": pmse(original=train, synthetic=table).ratio,
            "mean_tvd": marginal_fidelity(original=train, synthetic=table).value,
        }
    out = pd.DataFrame.from_dict(rows, orient="index", columns=list(COMPARISON_COLUMNS))
    out.index.name = "synthesizer"
    out.attrs["tstr_metric"] = metric
    return out
