"""Attribute disclosure: what an intruder learns about a person's sensitive value.

Two measures, both asking "if I know some variables of a person in the original data (the *keys*),
how well does the synthetic data tell me another variable (the *target*)?":

* :func:`cap` - the correct attribution probability (Elliot 2014; Taub et al. 2018; Baillargeon &
  Charest 2020): the share of synthetic records with the person's key that also carry the
  person's target value.
* :func:`knn_risk` - classification-based risk (Choi et al. 2017; Kaur et al. 2021): a model fitted
  on the synthetic data only predicts the target of every original record.

Both report the value beside what the original data itself would reveal and what one learns with
no data at all, because a high value alone is not a leak: if 95% of people have health insurance,
guessing "insured" is right 95% of the time without any synthetic data.

:func:`discretize` cuts numeric variables into bins so that CAP, which needs exact matches, can be
used on continuous keys or targets.

A release that predicts well teaches something about everyone in the population, not only about
the people it was trained on. So both measures take ``holdout``, real records the generator never
saw: computed for them with the same synthetic data, the measure says what anyone in the
population learns from the release (context), and the verdict of the threshold registry
(:mod:`privlib.thresholds`) is on the training records' excess over them, with a seeded bootstrap
interval that resamples the two groups of records separately. Without a holdout the value is
reported and not judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import KFold, cross_val_predict
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

from privlib.errors import DataError, ParameterError
from privlib.matching import gower_setup
from privlib.neighbors import kneighbors
from privlib.results import NOT_ASSESSABLE, Result, _fmt
from privlib.results import per_record as per_record_field
from privlib.schema import (
    MISSING,
    NUMERIC,
    TableEncoder,
    check_columns,
    check_comparable,
    check_frame,
    infer_kinds,
    numeric_values,
)
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    WILSON,
    bootstrap_interval,
    check_confidence,
    percentile_interval,
    resampled_means,
    wilson_interval,
)
from privlib.validation import (
    CLIENT,
    CONFIDENCE,
    Boolean,
    HasMethods,
    Instance,
    Integer,
    Names,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["CAPResult", "KnnRiskResult", "cap", "discretize", "inference", "knn_risk"]

#: Distances of knn_risk's default model (see :func:`knn_risk`).
KNN_METRICS = ("gower", "l1", "l2")


# --------------------------------------------------------------------------------------------
# Shared validation
# --------------------------------------------------------------------------------------------
def _check_keys_target(original, synthetic, keys, target):
    """Validate the two tables and the key and target columns; return them as lists."""
    check_frame(original, "original")
    check_frame(synthetic, "synthetic")
    keys = check_columns(original, keys, "keys", "original")
    target = check_columns(original, target, "target", "original")
    check_columns(synthetic, keys, "keys", "synthetic")
    check_columns(synthetic, target, "target", "synthetic")
    for name, columns in (("keys", keys), ("target", target)):
        if len(set(columns)) < len(columns):
            raise ParameterError(f"`{name}` names a column twice ({columns}); name each once.")
    both = [c for c in target if c in keys]
    if both:
        raise ParameterError(
            f"`target` column(s) {both} are also among the `keys`; an intruder who already knows "
            "a variable cannot learn it. Remove them from `keys` or from `target`."
        )
    # Categories only in one table are allowed (they simply never match), hence unseen="ignore".
    check_comparable(original, synthetic, ("original", "synthetic"), columns=keys + target, unseen="ignore")
    return keys, target


def _against_control(result, what: str) -> str:
    """The sentence that reads a result against its holdout control (or says it has none)."""
    if result.baseline is None:
        return (
            "Without holdout records there is no control: what the release teaches about anyone "
            "in the population cannot be told apart from a disclosure about the people in the data"
        )
    holdout = getattr(result, "holdout_cap", None)
    if holdout is None:
        holdout = result.holdout_value
    return (
        f"For {result.n_holdout} holdout records the generator never saw, the same release gives "
        f"{_fmt(holdout)}: what anyone in the population learns from it. The {what} excess for "
        f"training records is {_fmt(result.value)}{result._interval_text()}"
    )


def _excess_interval(train, holdout, *, rng, confidence) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(train) - mean(holdout)``, the two groups of records
    resampled separately (two independent samples of people)."""
    return percentile_interval(
        resampled_means(train, rng=rng) - resampled_means(holdout, rng=rng), confidence=confidence
    )


def _no_control() -> dict:
    """The fields of an attribute result computed without holdout records: no verdict, and why."""
    return dict(
        baseline=None,
        verdict=NOT_ASSESSABLE,
        verdict_rule="no holdout records were given, so there is no control to tell a disclosure "
        "about the people in the data from what the release teaches about anyone in the "
        "population; pass `holdout`",
    )


# --------------------------------------------------------------------------------------------
# CAP
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CAPResult(Result):
    """Average correct attribution probability, with its two baselines.

    Attributes
    ----------
    value : float
        Without a holdout: the average CAP of the original (training) records from the synthetic
        data (version 1 or 2, see ``variant``). With a holdout: the **excess** for training
        records, ``train_cap - holdout_cap``, the part of what the release reveals that is about
        the people in the training data rather than about anyone in the population.
    baseline : float or None
        With a holdout, 0 (training records learned about no better than holdout records);
        without one, ``None``: the verdict needs the control.
    train_cap : float
        Average CAP of the original (training) records from the synthetic data.
    holdout_cap : float or None
        Average CAP of the holdout records from the same synthetic data: what anyone in the
        population learns from this release (context, not a verdict).
    marginal_cap : float
        Guessing from the overall shares: the share, in the original data, of each record's own
        target value, scored like ``train_cap`` (version 1: 0 where the key is absent from the
        synthetic data) and averaged over the same records.
    original_cap : float
        Average CAP computed with the original data in place of the synthetic data (what the
        original itself would reveal), scored like ``train_cap`` over the same records.
    variant : {1, 2}
        1: records whose key is absent from the synthetic data count as 0; 2: they are left out.
    keys, target : tuple of str
        The intruder's key variables and the (joint) target variables.
    n_records : int
        Number of original records.
    n_matched : int
        Original records whose key combination appears in the synthetic data.
    per_record : numpy.ndarray
        CAP of each original record from the synthetic data (0 where its key is absent).
    per_record_original : numpy.ndarray
        CAP of each original record from the original data.
    per_record_marginal : numpy.ndarray
        Share of each record's target value in the original data.
    key_in_synthetic : numpy.ndarray of bool
        Whether each original record's key appears in the synthetic data.
    """

    measure: str = "cap"
    variant: int = 1
    keys: tuple = ()
    target: tuple = ()
    train_cap: float = math.nan
    holdout_cap: float | None = None
    marginal_cap: float = math.nan
    original_cap: float = math.nan
    n_records: int = 0
    n_holdout: int = 0
    n_matched: int = 0
    per_record: np.ndarray = per_record_field(default=None)
    per_record_original: np.ndarray = per_record_field(default=None)
    per_record_marginal: np.ndarray = per_record_field(default=None)
    key_in_synthetic: np.ndarray = per_record_field(default=None)

    def reading(self) -> str:
        target = " and ".join(self.target)
        keys = ", ".join(self.keys)
        over = (
            "all records, counting 0 where the key is absent from the synthetic data"
            if self.variant == 1
            else f"the {self.n_matched} records whose key appears in the synthetic data"
        )
        if math.isnan(self.train_cap):
            return self.with_judgement(
                f"Average CAP (version {self.variant}) is undefined: no original record's key "
                f"({keys}) appears in the synthetic data."
            )
        text = (
            f"Knowing {keys}, an intruder using the synthetic data attributes the right {target} "
            f"to a training record with probability {_fmt(self.train_cap)}"
            f"{'' if self.holdout_cap is not None else self._interval_text()} on average over "
            f"{over} (version {self.variant}); the original data would give "
            f"{_fmt(self.original_cap)} and guessing from the overall shares {_fmt(self.marginal_cap)}"
        )
        gap = self.original_cap - self.marginal_cap
        if gap > 0:
            text += (
                f", so the synthetic data goes {(self.train_cap - self.marginal_cap) / gap:.0%} of "
                "the way from guessing to what the original reveals"
            )
        return self.with_judgement(text + ". " + _against_control(self, "CAP") + ".")


def _value_codes(original: pd.DataFrame, synthetic: pd.DataFrame, columns) -> np.ndarray:
    """One integer per row of ``original`` then ``synthetic``, equal iff all ``columns`` are equal.

    Values are compared as values (1 and 1.0 match, categories with different category lists
    match by label); a missing value is a value of its own, equal to every other missing value.
    """
    joint = np.zeros(len(original) + len(synthetic), dtype=np.int64)
    for column in columns:
        both = pd.concat([original[column], synthetic[column]], ignore_index=True)
        codes, uniques = pd.factorize(both, use_na_sentinel=False)
        if not np.isin(codes[len(original) :], codes[: len(original)]).any():
            raise DataError(
                f"column {column!r} shares no value between `original` and `synthetic` "
                f"({original[column].nunique()} and {synthetic[column].nunique()} distinct values); "
                "code it the same way in both tables (same labels and types)."
            )
        # Re-factorising after each column keeps the codes below the number of rows (no overflow).
        joint, _ = pd.factorize(joint * len(uniques) + codes)
    return joint


@validate_params(
    {
        "original": [Table()],
        "synthetic": [Table()],
        "keys": [Names()],
        "target": [Names()],
        "holdout": [Table(), None],
        "variant": [Options(1, 2)],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
    }
)
def cap(
    *,
    original,
    synthetic,
    keys,
    target,
    holdout=None,
    variant=1,
    random_state=None,
    confidence=DEFAULT_CONFIDENCE,
) -> CAPResult:
    """Correct attribution probability (CAP) of the target given the keys.

    For an original record :math:`y_0` with key :math:`K(y_0)` and target :math:`T(y_0)`,

    .. math::

        CAP(y_0) = \\frac{\\#\\{z \\in S: K(z) = K(y_0), T(z) = T(y_0)\\}}
                        {\\#\\{z \\in S: K(z) = K(y_0)\\}},

    and 0 when no synthetic record has the key. Version 1 averages over every original record;
    version 2 over the records whose key appears in the synthetic data.

    Parameters
    ----------
    original : pandas.DataFrame
        The real records (R) whose targets the intruder tries to learn.
    synthetic : pandas.DataFrame
        The released synthetic records (S). Only the ``keys`` and ``target`` columns are used.
    keys : str or list of str
        The variables the intruder knows (quasi-identifiers).
    target : str or list of str
        The variable(s) to learn; several form one joint target (all must be right).
    holdout : pandas.DataFrame, optional
        Real records of the same population the generator never saw (cut into the same bins as
        ``original``): the control. CAP above guessing is also what a useful release teaches
        about anyone in the population, so only the excess of the training records over these
        records is a disclosure about the people in the data.
    variant : {1, 2}, default 1
        1: a record whose key never appears in S counts as CAP 0; 2: such records are left out.
    random_state : int, numpy.random.Generator or None
        Seed for the bootstrap of the interval.
    confidence : float, default 0.95
        Level of the interval: a percentile bootstrap over the averaged records' CAP values
        (with a holdout, of the excess, training and holdout records resampled separately).

    Returns
    -------
    CAPResult
        With ``holdout``: ``value`` is the excess ``train_cap - holdout_cap`` with its interval and
        ``baseline`` 0, judged by :mod:`privlib.thresholds`. Without: ``value`` is ``train_cap``
        and the result is not assessable (no control). Either way ``train_cap``,
        ``marginal_cap`` (guessing from R's shares) and ``original_cap`` (R in place of S), all
        scored the same way over the same records, and per-record arrays for plots.

    Raises
    ------
    PrivlibError
        If a table is not a non-empty DataFrame, a key or target is not a column of both tables,
        a column is both key and target, a column is numeric in one table and categorical in the
        other, a key or target column shares no value between the tables, or ``variant`` is not
        1 or 2.

    Notes
    -----
    * Matching is exact, on values: numeric keys or targets must be cut into bins first (see
      :func:`discretize`), otherwise almost no record matches.
    * A missing value (NaN) is treated as a value of its own: missing matches missing, as in
      the kit's distances.
    * The computation is one factorisation of the key and target columns and a count per group
      (:func:`numpy.bincount`), so it is linear in the number of rows.
    * Under version 2 with no key in common, ``value`` and both baselines are NaN.
    * Scored like the measure: under version 1, ``marginal_cap`` and ``original_cap`` also count
      0 for a record whose key is absent from S, so the share of the way from guessing to the
      original, ``(train_cap - marginal_cap) / (original_cap - marginal_cap)``, is the same under
      both versions.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"sex": ["F", "F", "M"], "ill": ["y", "n", "n"]})
    >>> s = pd.DataFrame({"sex": ["F", "F", "F", "F"], "ill": ["y", "y", "y", "n"]})
    >>> res = cap(original=r, synthetic=s, keys="sex", target="ill", random_state=0)
    >>> res.per_record.tolist()
    [0.75, 0.25, 0.0]
    >>> v2 = cap(original=r, synthetic=s, keys="sex", target="ill", variant=2, random_state=0)
    >>> round(res.train_cap, 4), round(v2.train_cap, 4)
    (0.3333, 0.5)
    """
    confidence = check_confidence(confidence)
    if variant not in (1, 2) or isinstance(variant, bool):
        raise ParameterError(f"`variant` must be 1 or 2, got {variant!r}.")
    keys, target = _check_keys_target(original, synthetic, keys, target)
    if holdout is not None:
        _check_keys_target(holdout, synthetic, keys, target)
    n = len(original)
    from_synthetic, from_original, marginal, matched = _cap_per_record(original, synthetic, keys, target)
    # Version 1 scores a record whose key is absent from the synthetic data as 0; its two
    # baselines are scored the same way, so that the three numbers are on one scale.
    scored = (lambda a: a[matched]) if variant == 2 else (lambda a: np.where(matched, a, 0.0))
    if matched.any() or variant == 1:
        train_value, original_value, marginal_value = (
            float(scored(a).mean()) for a in (from_synthetic, from_original, marginal)
        )
    else:
        train_value = original_value = marginal_value = math.nan
    rng = np.random.default_rng(random_state)
    if holdout is None:
        low, high = percentile_interval(
            resampled_means(scored(from_synthetic), rng=rng), confidence=confidence
        )
        judged = dict(value=train_value, holdout_cap=None) | _no_control()
    else:
        holdout_scores, _, _, holdout_matched = _cap_per_record(holdout, synthetic, keys, target)
        holdout_scores = holdout_scores[holdout_matched] if variant == 2 else holdout_scores
        holdout_value = float(holdout_scores.mean()) if len(holdout_scores) else math.nan
        low, high = _excess_interval(scored(from_synthetic), holdout_scores, rng=rng, confidence=confidence)
        judged = dict(value=train_value - holdout_value, holdout_cap=holdout_value, baseline=0.0)
    return CAPResult(
        **judged,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        train_cap=train_value,
        marginal_cap=marginal_value,
        original_cap=original_value,
        variant=variant,
        keys=tuple(keys),
        target=tuple(target),
        n_records=n,
        n_holdout=0 if holdout is None else len(holdout),
        n_matched=int(matched.sum()),
        per_record=from_synthetic,
        per_record_original=from_original,
        per_record_marginal=marginal,
        key_in_synthetic=matched,
    )


def _cap_per_record(original, synthetic, keys, target):
    """Per record of ``original``: its CAP from ``synthetic`` (0 where its key is absent), its CAP
    from ``original`` itself, the share of its target value in ``original``, and whether its key
    appears in ``synthetic``."""
    n = len(original)
    key_codes = _value_codes(original, synthetic, keys)
    target_codes = _value_codes(original, synthetic, target)
    pair_codes, _ = pd.factorize(key_codes * (target_codes.max() + 1) + target_codes)
    k_r, k_s = key_codes[:n], key_codes[n:]
    p_r, p_s = pair_codes[:n], pair_codes[n:]
    t_r = target_codes[:n]

    def counts(codes):
        return np.bincount(codes, minlength=max(key_codes.max(), pair_codes.max()) + 1)

    key_s, pair_s = counts(k_s)[k_r], counts(p_s)[p_r]
    matched = key_s > 0
    from_synthetic = np.divide(pair_s, key_s, out=np.zeros(n), where=matched)
    # The record itself is in R, so its key group in R is never empty.
    from_original = counts(p_r)[p_r] / counts(k_r)[k_r]
    marginal = np.bincount(t_r)[t_r] / n
    return from_synthetic, from_original, marginal, matched


@validate_params(
    {
        "original": [Table()],
        "synthetic": [Table()],
        "columns": [Names(), Instance(list, tuple, description="an empty list"), None],
        "n_bins": [Integer(low=2)],
    }
)
def discretize(*, original, synthetic, columns=None, n_bins=5):
    """Cut numeric columns of both tables into the same quantile bins of the original data.

    CAP needs exact matches on keys and target; on a continuous variable (income, expenditure,
    age) almost no two records match, so the variable is first grouped into bins.

    Parameters
    ----------
    original, synthetic : pandas.DataFrame
        The two tables to cut the same way.
    columns : str or list of str, optional
        Columns to cut; by default every column of ``original`` that
        :func:`privlib.schema.infer_kinds` reads as numeric (categorical columns are left as
        they are). An empty list cuts nothing and returns copies.
    n_bins : int, default 5
        Number of bins: the edges are the quantiles 1/n_bins, ..., (n_bins-1)/n_bins of the
        original column, so each bin holds about the same number of original records. Repeated
        edges (a value shared by many records) are merged, so a column may get fewer bins.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Copies of ``original`` and ``synthetic`` in which each cut column is an ordered
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
    check_frame(original, "original")
    check_frame(synthetic, "synthetic")
    kinds = infer_kinds(original, name="original")
    if columns is None:
        columns = [c for c, kind in kinds.items() if kind == NUMERIC]
    elif not isinstance(columns, (list, tuple)) or columns:
        columns = check_columns(original, columns, "columns", "original")
    if not columns:  # nothing to cut (e.g. the numeric keys of an all-categorical table)
        return original.copy(), synthetic.copy()
    check_columns(synthetic, columns, "columns", "synthetic")
    check_comparable(original, synthetic, ("original", "synthetic"), columns=columns, unseen="ignore")
    not_numeric = [c for c in columns if kinds[c] != NUMERIC]
    if not_numeric:
        raise ParameterError(
            f"`columns` names {not_numeric}, which are not numeric in `original`; only numeric "
            "columns can be cut into bins."
        )
    out_original, out_synthetic = original.copy(), synthetic.copy()
    for column in columns:
        values = numeric_values(original[column])
        finite = values[np.isfinite(values)]
        inner = np.unique(np.quantile(finite, np.arange(1, n_bins) / n_bins))
        # Edges equal to the minimum would make an empty first bin.
        inner = inner[inner > finite.min()]
        edges = np.concatenate([[-np.inf], inner, [np.inf]])
        is_date = pd.api.types.is_datetime64_any_dtype(original[column].dtype)
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
        measure="knn_risk_relative_error",
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
    names = ["original", "synthetic"]
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
            f"but `original` has {n_original}; choose a smaller k."
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
        "original": [Table()],
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
    }
)
def knn_risk(
    *,
    original,
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
    original : pandas.DataFrame
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
    >>> knn_risk(original=r, synthetic=s, keys="age", target="ill", k=1).value
    1.0
    """
    keys, targets = _check_keys_target(original, synthetic, keys, target)
    if holdout is not None:
        _check_keys_target(holdout, synthetic, keys, targets)
    if len(targets) != 1:
        raise ParameterError(
            f"`target` names {len(targets)} columns {targets}; knn_risk predicts one variable "
            "at a time (cap accepts a joint target)."
        )
    target = targets[0]
    n = len(original)
    confidence = check_confidence(confidence)
    _check_k(k, estimator, n, len(synthetic))
    regression = infer_kinds(original[[target]], name="original")[target] == NUMERIC
    rng = np.random.default_rng(random_state)
    if estimator is not None:
        estimator = _check_estimator(estimator, regression, target, cv, n)
        params = estimator.get_params()
        if "random_state" in params and params["random_state"] is None:
            estimator.set_params(random_state=int(rng.integers(2**31 - 1)))

    real = original if holdout is None else pd.concat([original, holdout], ignore_index=True)
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
            TableEncoder(metric="gower").fit(original[keys], synthetic[keys], names=["original", "synthetic"])
            if holdout is None
            else gower_setup(original[keys], holdout[keys], synthetic[keys])
        )

    def predictions(people, y_people):
        """Predictions for ``people`` from S, and from ``people`` themselves out of sample."""
        if estimator is None:
            return _engine_predictions(
                people, synthetic, keys, y_people, y_s, k, metric, encoder, regression, client, progress
            )
        return _estimator_predictions(people, synthetic, keys, y_people, y_s, estimator, cv, rng)

    predicted, predicted_original = predictions(original, y_r)
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
        measure="knn_risk_accuracy",
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


from privlib.criteria import inference  # noqa: E402  (re-exported; issue 14)
