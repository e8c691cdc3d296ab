"""Train on synthetic, test on real (TSTR; Yale et al. 2019): a model fitted on the synthetic data,
scored on real records it never saw, against the same model fitted on the real training data."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.metrics import get_scorer, get_scorer_names
from threadpoolctl import threadpool_limits

from privlib.errors import DataError, ParameterError
from privlib.results import Result, _fmt
from privlib.schema import NUMERIC, check_columns, check_comparable, check_frame, infer_kinds
from privlib.utility.models import _THREADS, _check_estimator, _features, _model_name, _tree_model
from privlib.validation import (
    HasMethods,
    Instance,
    Names,
    Table,
    validate_params,
)

__all__ = ["KEY", "TSTRResult", "tstr"]

#: The measure's key (``Result.measure``).
KEY = "tstr"


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
        measure=KEY,
        value=value,
        baseline=baseline,
        chance=fit.chance,
        ratio=_over_chance(value, baseline, fit.chance),
        target=fit.target,
        metric=fit.metric,
        task=fit.task,
        model=fit.model,
    )
