"""Classification-based risk (Choi et al. 2017; Kaur et al. 2021; :func:`knn_risk`): a model fitted
on the synthetic data only predicts the target of every training and holdout record; with the
declarations of its two readings (accuracy for a category, relative error for a number).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from privlib.attribute.control import (
    _against_control,
    _check_keys_target,
    _excess_interval,
    _no_control,
    _value_codes,
)
from privlib.declaration import Context, MeasureSpec, Reference
from privlib.errors import DataError, ParameterError
from privlib.matching import gower_setup
from privlib.neighbors import kneighbors
from privlib.results import Result, _fmt
from privlib.results import per_record as per_record_field
from privlib.rules import control_rule
from privlib.schema import MISSING, NUMERIC, TableEncoder, infer_kinds, numeric_values
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    WILSON,
    bootstrap_interval,
    check_confidence,
    wilson_interval,
)
from privlib.validation import (
    CLIENT,
    CONFIDENCE,
    Boolean,
    HasMethods,
    Integer,
    Names,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KnnRiskResult", "knn_risk"]

ACCURACY_KEY = "knn_risk_accuracy"
RELATIVE_ERROR_KEY = "knn_risk_relative_error"

#: Distances of knn_risk's default model (see :func:`knn_risk`).
KNN_METRICS = ("gower", "l1", "l2")


# --------------------------------------------------------------------------------------------
# Classification-based risk
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class KnnRiskResult(Result):
    """Classification-based attribute risk: a model fitted on the synthetic data predicts R.

    Attributes
    ----------
    value : float
        With a holdout, the **excess** for training records: ``train_value - holdout_value``
        for a category (measure ``knn_risk_accuracy``), ``holdout_value - train_value`` for a
        number (measure ``knn_risk_relative_error``: a smaller error is the risk), so that a
        larger value is always the risk. Without a holdout, ``train_value`` (not assessable).
    train_value : float
        Categorical target: share of original records whose target the model fitted on S
        predicts correctly. Continuous target: mean over original records of the prediction's
        error in units of the interquartile range of R's target, each capped at 1 (see
        :func:`knn_risk`).
    holdout_value : float or None
        The same for the holdout records, from the same synthetic data: what anyone in the
        population learns from the release (context, not a verdict).
    baseline : float or None
        0 with a holdout (training records predicted no better than holdout records); ``None``
        without one.
    guess_value : float
        ``train_value`` with no data: always predicting the most common target value of R
        (categorical), or R's median (continuous).
    original_value : float
        The same quantity for the same model fitted on R itself, each record predicted by a model
        that did not see it (leave-one-out for k-NN, ``cv``-fold cross-validation otherwise).
    share_worse : float
        Share of original records predicted less accurately from S than from R (categorical:
        wrong from S but right from R; continuous: larger absolute error). Ties count as not
        worse.
    task : {"classification", "regression"}
        Read from the target's kind (:func:`privlib.schema.infer_kinds`).
    model : str
        The model used: the kit's k-NN (``"k-nearest neighbours (k=3, metric='gower', ...)"``)
        or the ``repr`` of the estimator passed in.
    median_relative_error, median_relative_error_original : float or None
        Continuous target only: median over records of the relative absolute error
        ``|y_hat - y| / |y|`` from S and from R (records with ``y = 0`` left out).
    keys, target : tuple of str
        Key variables and the target variable.
    n_records : int
        Number of original records.
    per_record, per_record_original : numpy.ndarray
        Categorical: 1.0 where the prediction (from S, from R) is right, else 0.0. Continuous:
        the capped error ``min(|y_hat - y| / IQR, 1)`` of each record.
    """

    measure: str = "knn_risk"
    task: str = "classification"
    model: str = ""
    train_value: float = math.nan
    holdout_value: float | None = None
    guess_value: float = math.nan
    n_holdout: int = 0
    original_value: float = math.nan
    share_worse: float = math.nan
    median_relative_error: float | None = None
    median_relative_error_original: float | None = None
    keys: tuple = ()
    target: tuple = ()
    n_records: int = 0
    per_record: np.ndarray = per_record_field(default=None)
    per_record_original: np.ndarray = per_record_field(default=None)

    def reading(self) -> str:
        keys = ", ".join(self.keys)
        target = self.target[0]
        worse = (
            f"{self.share_worse:.0%} of records are predicted less accurately from the synthetic "
            "data than from the original"
        )
        control = _against_control(self, "accuracy" if self.task == "classification" else "error reduction")
        if self.task == "classification":
            return self.with_judgement(
                f"Knowing {keys}, a model fitted on the synthetic data predicts {target} correctly "
                f"for {self.train_value:.1%} of the training records, against "
                f"{self.original_value:.1%} for the same model fitted on the original data and "
                f"{self.guess_value:.1%} for always guessing the most common value; {worse}. "
                f"{control}."
            )
        return self.with_judgement(
            f"Knowing {keys}, a model fitted on the synthetic data predicts {target} with a mean "
            f"error of {_fmt(self.train_value)} interquartile ranges of {target} "
            f"(each error capped at one range; median relative error "
            f"{_fmt(self.median_relative_error)}), against {_fmt(self.original_value)} (median "
            f"relative error {_fmt(self.median_relative_error_original)}) when fitted on the "
            f"original data and {_fmt(self.guess_value)} for always guessing the median; {worse}. "
            f"{control}."
        )


def _spread_errors(predicted: np.ndarray, truth: np.ndarray, spread: float) -> np.ndarray:
    """Absolute errors in units of ``spread``, capped at 1 (exact matches only when the spread is 0)."""
    error = np.abs(predicted - truth)
    if spread > 0:
        return np.minimum(error / spread, 1.0)
    return (error > 0).astype(float)


def _numeric_knn_risk(y_r, predicted, predicted_original, control, rng, common: dict) -> KnnRiskResult:
    """The numeric branch of :func:`knn_risk`: errors relative to the target's interquartile range.

    Why not the mean squared error: on the original scale, one extreme record dominates it and
    its baseline (R's variance), and a few digits of that record's value can be read back from
    them. Each record's error here is ``min(|y_hat - y| / IQR(y), 1)``, with the interquartile
    range of R's target (a spread fixed by the middle half of the records, not by any single one)
    and a cap at one IQR, so every record weighs at most ``1 / n`` in the mean. The numbers are
    scale-free (the same for dollars and cents), and an extreme value far beyond the quartiles
    changes none of them. With an IQR of 0 (a target mostly one value), an error is 0 for an
    exact prediction and 1 otherwise, the limit of the rule. ``control`` is ``(y_h, predicted_h)``
    for the holdout records, or ``None``; their errors are in the same units (R's IQR).
    """
    q25, q75 = np.quantile(y_r, [0.25, 0.75])
    spread = float(q75 - q25)
    error = _spread_errors(predicted, y_r, spread)
    error_original = _spread_errors(predicted_original, y_r, spread)
    guess = _spread_errors(np.full(len(y_r), np.median(y_r)), y_r, spread)
    absolute, absolute_original = np.abs(predicted - y_r), np.abs(predicted_original - y_r)
    defined = y_r != 0

    def median_relative(values):  # |y_hat - y| / |y|; a median over records: no record dominates
        return float(np.median(values[defined] / np.abs(y_r[defined]))) if defined.any() else math.nan

    train_value = float(np.mean(error))
    if control is None:
        low, high = bootstrap_interval(np.mean, [error], rng=rng, confidence=common["confidence"])
        judged = dict(value=train_value, higher_is_riskier=False) | _no_control()
    else:
        holdout_error = _spread_errors(control[1], control[0], spread)
        # a smaller error on training records is the risk: the excess is holdout minus training
        low, high = _excess_interval(holdout_error, error, rng=rng, confidence=common["confidence"])
        holdout_value = float(np.mean(holdout_error))
        judged = dict(value=holdout_value - train_value, holdout_value=holdout_value, baseline=0.0)
    return KnnRiskResult(
        measure=RELATIVE_ERROR_KEY,
        **judged,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        train_value=train_value,
        guess_value=float(np.mean(guess)),
        original_value=float(np.mean(error_original)),
        share_worse=float(np.mean(absolute > absolute_original)),
        median_relative_error=median_relative(absolute),
        median_relative_error_original=median_relative(absolute_original),
        per_record=error,
        per_record_original=error_original,
        **common,
    )


def _key_features(original, synthetic, keys) -> tuple[np.ndarray, np.ndarray]:
    """Encode the keys: numeric min-max scaled, categorical one-hot times 1/2.

    With this encoding the Manhattan distance between two records is p times their Gower
    distance (p = number of keys), ranges and categories taken from both tables together.
    """
    names = ["train", "synthetic"]
    encoder = TableEncoder(metric="gower").fit(original[keys], synthetic[keys], names=names)
    coded = np.vstack(
        [encoder.transform(frame[keys], name) for frame, name in zip((original, synthetic), names)]
    )
    blocks = []
    for j, column in enumerate(keys):
        values = coded[:, j]
        if encoder.kinds_[column] == NUMERIC:
            if (values == MISSING).any():
                raise DataError(
                    f"key column {column!r} has missing values; a numeric key must be complete "
                    "for this model: fill them in, drop those rows, or use the default "
                    "metric='gower', which handles missing values."
                )
            blocks.append(values[:, None])
        else:
            # A missing value is a category of its own (its code is MISSING).
            _, inverse = np.unique(values, return_inverse=True)
            blocks.append(0.5 * np.eye(inverse.max() + 1)[inverse])
    features = np.hstack(blocks)
    return features[: len(original)], features[len(original) :]


def _check_k(k, estimator, n_original, n_synthetic):
    if estimator is not None:
        return
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"`k` must be a positive integer, got {k!r}.")
    if k > n_synthetic:
        raise DataError(
            f"`k` = {k} is larger than the synthetic data ({n_synthetic} rows); choose a smaller k."
        )
    if k > n_original - 1:
        raise DataError(
            f"`k` = {k} needs at least {k + 1} original records for the leave-one-out comparison, "
            f"but `train` has {n_original}; choose a smaller k."
        )


def _majority_vote(votes: np.ndarray) -> np.ndarray:
    """Per row of ``votes`` (n, k) of class codes: the most frequent code, the smallest on a tie.

    The smallest code wins a tied vote, as in scikit-learn's ``KNeighborsClassifier`` with
    uniform weights, so the two agree whenever they find the same neighbours.
    """
    n_classes = int(votes.max()) + 1
    counts = np.zeros(votes.shape, dtype=np.int64)
    for j in range(votes.shape[1]):  # k is small: n x k memory, k passes
        counts += votes == votes[:, [j]]
    # more votes first, then the smaller code: one integer per neighbour to maximise
    score = counts * n_classes + (n_classes - 1 - votes)
    return votes[np.arange(len(votes)), score.argmax(axis=1)]


def _engine_predictions(
    original, synthetic, keys, y_r, y_s, k, metric, encoder, regression, client, progress
):
    """Predictions of the k-NN model for R from S, and from R leaving each record out.

    The neighbours come from :func:`privlib.neighbors.kneighbors` (exact, ties to the lower
    row number); the prediction is the neighbours' mean (regression) or majority vote. With
    Gower, ``encoder`` is the one fitted on the keys of every table compared (training, holdout
    and synthetic), so the training and the control records are measured on the same ranges.

    Records with the same key values have the same distances to every record, so each distinct
    combination is searched once (a few keys leave far fewer combinations than records). A
    record's neighbours among the *other* records of R are the combination's k + 1 nearest in R
    without the record itself, or the first k when it is not among them (all ahead of it in the
    tie order are then other records).
    """
    if metric == "gower":
        query, reference = original[keys], synthetic[keys]
        options = dict(metric="gower", encoder=encoder)
    else:
        query, reference = _key_features(original, synthetic, keys)
        options = dict(metric=metric)
    options |= dict(client=client, progress=progress)
    combination = original[keys].groupby(keys, dropna=False, sort=False, observed=True).ngroup().to_numpy()
    first = np.unique(combination, return_index=True)[1]
    distinct = query.iloc[first] if isinstance(query, pd.DataFrame) else query[first]
    from_synthetic = kneighbors(distinct, reference, k=k, **options).indices[combination]
    nearest = kneighbors(distinct, query, k=k + 1, **options).indices[combination]
    itself = nearest == np.arange(len(nearest))[:, None]
    keep = ~itself
    keep[~itself.any(axis=1), k] = False  # not among its k + 1: the first k are others
    from_original = nearest[keep].reshape(len(nearest), k)
    if regression:
        return y_s[from_synthetic].mean(axis=1), y_r[from_original].mean(axis=1)
    return _majority_vote(y_s[from_synthetic]), _majority_vote(y_r[from_original])


def _estimator_predictions(original, synthetic, keys, y_r, y_s, estimator, cv, rng):
    """Predictions of any scikit-learn estimator for R from S, and for R by cross-validation."""
    x_r, x_s = _key_features(original, synthetic, keys)
    predicted = clone(estimator).fit(x_s, y_s).predict(x_r)
    if isinstance(estimator, (KNeighborsClassifier, KNeighborsRegressor)):
        # predict(None) predicts each training record from its neighbours other than itself.
        return predicted, clone(estimator).fit(x_r, y_r).predict(None)
    folds = KFold(n_splits=cv, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
    return predicted, cross_val_predict(clone(estimator), x_r, y_r, cv=folds)


def _check_estimator(estimator, regression, target, cv, n):
    """A clone of ``estimator`` checked for kind, and ``cv`` checked when it will be used."""
    if not hasattr(estimator, "fit") or not hasattr(estimator, "predict"):
        raise ParameterError(
            "`estimator` must be a scikit-learn estimator with fit and predict, got "
            f"{type(estimator).__name__}."
        )
    if regression != is_regressor(estimator) or regression == is_classifier(estimator):
        kind, wanted = ("numeric", "regressor") if regression else ("categorical", "classifier")
        raise ParameterError(
            f"`target` {target!r} is {kind}, so `estimator` must be a scikit-learn {wanted}; "
            f"got {type(estimator).__name__}."
        )
    leave_one_out = isinstance(estimator, (KNeighborsClassifier, KNeighborsRegressor))
    if not leave_one_out and (
        isinstance(cv, bool) or not isinstance(cv, (int, np.integer)) or not 2 <= cv <= n
    ):
        raise ParameterError(
            f"`cv` must be an integer between 2 and the number of original records ({n}), got {cv!r}."
        )
    return clone(estimator)


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "keys": [Names()],
        "target": [Names()],
        "holdout": [Table(), None],
        "k": [Integer(low=1)],
        "metric": [Options(*KNN_METRICS)],
        "estimator": [HasMethods("fit", "predict"), None],
        "cv": [Integer(low=2)],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
        "progress": [Boolean()],
        "client": [CLIENT, None],
    },
    renamed={"original": "train"},
)
def knn_risk(
    *,
    train,
    synthetic,
    keys,
    target,
    holdout=None,
    k=3,
    metric="gower",
    estimator=None,
    cv=10,
    random_state=None,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
    progress=False,
) -> KnnRiskResult:
    """Classification-based attribute risk: predict R's target from a model fitted on S.

    The intruder fits a model on the synthetic data (keys -> target) and applies it to the keys
    of every original record. The same model fitted on the original data, and a guess that uses
    no data, put the result in context.

    Parameters
    ----------
    train : pandas.DataFrame
        The real records (R) whose target the intruder tries to learn.
    synthetic : pandas.DataFrame
        The released synthetic records (S).
    keys : str or list of str
        The variables the intruder knows.
    target : str
        The one variable to predict. Categorical (see :func:`privlib.schema.infer_kinds`):
        classification; numeric: regression.
    holdout : pandas.DataFrame, optional
        Real records of the same population the generator never saw: the control. The same model
        predicts their target from S; only the training records' excess over them is a
        disclosure about the people in the data, the rest is what the release teaches about
        anyone.
    k : int, default 3
        Neighbours of the default k-nearest-neighbours model (ignored with ``estimator``).
    metric : {"gower", "l1", "l2"}, default "gower"
        Distance of the default model. ``"gower"``: Gower distance on the keys, ranges and
        categories from R and S together (missing values allowed: missing equals missing).
        ``"l1"``, ``"l2"``: Manhattan or Euclidean distance on the encoded keys (numeric keys
        min-max scaled, categorical keys one-hot with entries 1/2; numeric keys must be
        complete). ``"l1"`` ranks neighbours exactly as ``"gower"`` does (it is p times the
        Gower distance) and was the default before the kit's engine ran this measure.
    estimator : scikit-learn classifier or regressor, optional
        Any unfitted scikit-learn estimator of the right kind (classifier for a categorical
        target, regressor for a numeric one), fitted on the encoded keys of the ``"l1"`` option;
        it is cloned before fitting. Replaces the default k-NN model.
    cv : int, default 10
        Folds of the cross-validation that gives R's own out-of-sample predictions when
        ``estimator`` is not a k-NN model.
    random_state : None, int or numpy.random.Generator
        Seeds the bootstrap interval of a numeric target, the cross-validation folds and, when
        the estimator has a ``random_state`` parameter left at ``None``, the estimator.
    confidence : float, default 0.95
        Level of the interval (``ci_low``, ``ci_high``).
    client : dask.distributed.Client, optional
        Run the neighbour searches of the default model on this Dask cluster (see
        :func:`privlib.neighbors.kneighbors`); the result is identical.
    progress : bool, default False
        Show tqdm progress bars over the neighbour searches.

    Returns
    -------
    KnnRiskResult
        ``train_value`` (accuracy, or the capped relative error for a numeric target, see the
        Notes), ``guess_value`` (no-data guess), ``original_value`` (the model fitted on R),
        ``share_worse`` and per-record arrays. With ``holdout``: ``value`` is the excess for
        training records over ``holdout_value``, with a percentile bootstrap interval (training
        and holdout records resampled separately) and ``baseline`` 0, judged by
        :mod:`privlib.thresholds`. Without: ``value`` is ``train_value`` with its interval
        (Wilson for the accuracy, bootstrap for the error), not assessable for want of a control.

    Raises
    ------
    PrivlibError
        For bad tables or columns (as :func:`cap`), more than one target, a missing value in the
        numeric target (or in a numeric key with ``"l1"``, ``"l2"`` or an ``estimator``), a
        ``k`` that is not a positive integer or is larger than the synthetic data (or than the
        original data minus one), an unknown ``metric``, an estimator of the wrong kind, or
        ``cv`` smaller than 2 or larger than the original data.

    Notes
    -----
    * The default model is a k-nearest-neighbours model on the kit's exact engine
      (:func:`privlib.neighbors.kneighbors`): it predicts the mean of the k neighbours' targets
      (numeric target) or their most frequent value, the value that comes first in the
      table's coding (:func:`pandas.factorize` order over R then S) when two values have as
      many votes. Among records at the same distance as the k-th neighbour, the ones with the
      lower row number are taken. scikit-learn's ``KNeighborsClassifier`` (Manhattan metric on
      the same encoding) makes the same vote but may take other records among those tied
      ones; the two give identical predictions wherever the k-th and the (k+1)-th neighbours
      are at different distances.
    * Fair comparison with R: a model fitted on R and applied to R would see each record in its
      own training data. The k-NN model therefore predicts each record of R from its k nearest
      *other* records of R (leave-one-out; a duplicate of the record still counts); any other
      estimator predicts each record from a model fitted on the ``cv - 1`` folds that do not hold
      it.
    * A numeric target is measured scale-free and robustly (``knn_risk_relative_error``): each
      record's error is ``min(|y_hat - y| / IQR, 1)``, with IQR the interquartile range of R's
      target, and the value is their mean; the baseline guesses R's median. The mean squared
      error this replaced is dominated by one extreme record, and with R's variance as its
      baseline it let a reader recover an outlying training value to several digits; here every
      record weighs at most ``1 / n`` and the quartiles do not move with an extreme value.
    * Relative error at ``y = 0``: ``|y_hat - y| / |y|`` is undefined, so such records are left
      out of the median relative errors (they still count in the value and in ``share_worse``).

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "ill": ["y", "y", "n", "n"]})
    >>> s = pd.DataFrame({"age": [21.0, 49.0], "ill": ["y", "n"]})
    >>> knn_risk(train=r, synthetic=s, keys="age", target="ill", k=1).value
    1.0
    """
    keys, targets = _check_keys_target(train, synthetic, keys, target)
    if holdout is not None:
        _check_keys_target(holdout, synthetic, keys, targets)
    if len(targets) != 1:
        raise ParameterError(
            f"`target` names {len(targets)} columns {targets}; knn_risk predicts one variable "
            "at a time (cap accepts a joint target)."
        )
    target = targets[0]
    n = len(train)
    confidence = check_confidence(confidence)
    _check_k(k, estimator, n, len(synthetic))
    regression = infer_kinds(train[[target]], name="train")[target] == NUMERIC
    rng = np.random.default_rng(random_state)
    if estimator is not None:
        estimator = _check_estimator(estimator, regression, target, cv, n)
        params = estimator.get_params()
        if "random_state" in params and params["random_state"] is None:
            estimator.set_params(random_state=int(rng.integers(2**31 - 1)))

    real = train if holdout is None else pd.concat([train, holdout], ignore_index=True)
    if regression:
        y_real, y_s = numeric_values(real[target]), numeric_values(synthetic[target])
        if np.isnan(y_real).any() or np.isnan(y_s).any():
            raise DataError(
                f"the numeric `target` {target!r} has missing values; fill them in or drop those rows."
            )
    else:
        # Shared integer labels for the tables; a missing value is a class of its own.
        labels = _value_codes(real, synthetic, [target])
        y_real, y_s = labels[: len(real)], labels[len(real) :]
    y_r, y_h = y_real[:n], y_real[n:]

    encoder = None
    if estimator is None and metric == "gower":
        encoder = (
            TableEncoder(metric="gower").fit(train[keys], synthetic[keys], names=["train", "synthetic"])
            if holdout is None
            else gower_setup(train[keys], holdout[keys], synthetic[keys])
        )

    def predictions(people, y_people):
        """Predictions for ``people`` from S, and from ``people`` themselves out of sample."""
        if estimator is None:
            return _engine_predictions(
                people, synthetic, keys, y_people, y_s, k, metric, encoder, regression, client, progress
            )
        return _estimator_predictions(people, synthetic, keys, y_people, y_s, estimator, cv, rng)

    predicted, predicted_original = predictions(train, y_r)
    # the holdout records' own out-of-sample predictions are not used: only what S tells about them
    control = None if holdout is None else (y_h, predictions(holdout, y_h)[0])
    if estimator is None:
        model_name = f"k-nearest neighbours (k={k}, metric={metric!r}, privlib.neighbors)"
    else:
        model_name = repr(estimator)

    common = dict(
        task="regression" if regression else "classification",
        model=model_name,
        keys=tuple(keys),
        target=(target,),
        n_records=n,
        n_holdout=0 if holdout is None else len(holdout),
        confidence=confidence,
    )
    if regression:
        return _numeric_knn_risk(y_r, predicted, predicted_original, control, rng, common)
    right, right_original = predicted == y_r, predicted_original == y_r
    train_value = float(right.mean())
    if control is None:
        low, high = wilson_interval(int(right.sum()), n, confidence=confidence)
        judged = dict(value=train_value, ci_method=WILSON) | _no_control()
    else:
        holdout_right = control[1] == control[0]
        low, high = _excess_interval(right, holdout_right, rng=rng, confidence=confidence)
        holdout_value = float(holdout_right.mean())
        judged = dict(
            value=train_value - holdout_value, holdout_value=holdout_value, baseline=0.0, ci_method=BOOTSTRAP
        )
    return KnnRiskResult(
        measure=ACCURACY_KEY,
        **judged,
        ci_low=low,
        ci_high=high,
        train_value=train_value,
        guess_value=float(np.bincount(y_r).max() / n),
        original_value=float(right_original.mean()),
        share_worse=float(np.mean(~right & right_original)),
        per_record=right.astype(float),
        per_record_original=right_original.astype(float),
        **common,
    )


def _knn_arguments(context: Context) -> dict:
    return {
        "train": context.train,
        "synthetic": context.synthetic,
        "holdout": context.holdout,
        "keys": context.keys,
        "target": context.target,
        "random_state": context.settings["seed"],
    }


def _numeric_target(context: Context) -> bool:
    return context.kinds.get(context.target) == NUMERIC


KNN_RISK_ACCURACY = MeasureSpec(
    ACCURACY_KEY,
    "Nearest-neighbour prediction of a sensitive category",
    "attribute",
    control_rule(
        # not "k-NN": the same rule judges the model a user passes as ``estimator``
        "prediction",
        "share of records whose category the model predicts right",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and counts the training and the holdout "
        "records whose target it predicts correctly, and judges the difference",
    ),
    Reference("privlib.attribute.knn_risk:knn_risk"),
    _knn_arguments,
    needs=("holdout", "keys", "sensitive"),
    per_target=True,
    applies=lambda c: not _numeric_target(c),
)


KNN_RISK_RELATIVE_ERROR = MeasureSpec(
    RELATIVE_ERROR_KEY,
    "Nearest-neighbour prediction of a sensitive number",
    "attribute",
    control_rule(
        # not "k-NN": the same rule judges the model a user passes as ``estimator``
        "prediction",
        "mean error, in interquartile ranges of the target (each record's capped at one),",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and measures how much smaller its error is on "
        "the training records' target than on the holdout records', in interquartile ranges of "
        "the target, each record's error capped at one, so that no outlier can be read back",
        smaller_is_risk=True,
    ),
    Reference("privlib.attribute.knn_risk:knn_risk"),
    _knn_arguments,
    needs=("holdout", "keys", "sensitive"),
    per_target=True,
    applies=_numeric_target,
)
