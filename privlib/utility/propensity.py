"""Propensity-score mean squared error (Woo et al. 2009; Snoke et al. 2018): how well a classifier
tells synthetic from original records, against two samples of one distribution."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

from privlib.results import Result, _fmt, per_record
from privlib.utility.bands import PMSE_COPY_RATIO, PMSE_RATIO_WORDS
from privlib.utility.models import (
    _THREADS,
    _check_estimator,
    _check_pair,
    _features,
    _main_effects,
    _model_name,
)
from privlib.validation import (
    HasMethods,
    Integer,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KEY", "PMSE_COPY_RATIO", "PMSEResult", "pmse"]

#: The measure's key (``Result.measure``).
KEY = "pmse"


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
        "train": [Table()],
        "synthetic": [Table()],
        "estimator": [HasMethods("fit", "predict_proba"), None],
        "random_state": [RandomState()],
        "n_permutations": [Integer(low=0)],
    },
    renamed={"original": "train"},
)
def pmse(*, train, synthetic, estimator=None, random_state=None, n_permutations=20) -> PMSEResult:
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
    train : pandas.DataFrame
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
    >>> round(pmse(train=real, synthetic=real).value, 12)
    0.0
    """
    kinds = _check_pair(train, synthetic, n_permutations, "n_permutations")
    columns = list(train.columns)
    x = pd.concat([_features(train, kinds), _features(synthetic[columns], kinds)], ignore_index=True)
    z = np.r_[np.zeros(len(train), dtype=int), np.ones(len(synthetic), dtype=int)]
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
        measure=KEY,
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
