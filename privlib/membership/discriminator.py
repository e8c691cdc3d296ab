"""The discriminator test: do unseen synthetic records look more like the training data than
real unseen records do?
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from privlib.declaration import DISCRIMINATOR_SAMPLE, MeasureSpec, Reference, release, with_settings
from privlib.errors import DataError
from privlib.matching import (
    check_tables,
    subsample,
)
from privlib.membership.repetitions import _Repeated, _spread
from privlib.rules import Threshold
from privlib.schema import NUMERIC, infer_kinds, numeric_values
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    bootstrap_interval,
    check_confidence,
)
from privlib.validation import (
    CONFIDENCE,
    Boolean,
    HasMethods,
    Integer,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KEY", "DiscriminatorTest", "discriminator_test", "THREADED_ROWS", "DISCRIMINATOR_EXCESS_REALNESS"]

logger = logging.getLogger(__name__)


#: The key of its results (``Result.measure``) and of its declaration.
KEY = "discriminator_excess_realness"


_MISSING_LABEL = "<missing>"


@dataclass(frozen=True, kw_only=True)
class DiscriminatorTest(_Repeated):
    """Discriminator test (:func:`discriminator_test`).

    ``value`` is the mean "real" probability of unseen synthetic records minus that of holdout
    records: above 0 the classifier finds synthetic records more real than genuine unseen ones.
    ``ci_low``/``ci_high`` is its bootstrap interval over records; the verdict comes from the
    registry (:mod:`privlib.thresholds`). ``auc`` is how well the "real" probability separates
    holdout (positive) from synthetic records, with the Hanley-McNeil interval ``auc_low``,
    ``auc_high``; ``model`` names the classifier; ``sample_size`` is the most records per table
    used when the tables were sampled (``max_records``), else ``None``.
    """

    real_holdout: float
    real_synthetic: float
    auc: float
    auc_low: float | None = None
    auc_high: float | None = None
    model: str = ""
    sample_size: int | None = None

    def reading(self) -> str:
        sample = (
            ""
            if self.sample_size is None
            else f" Each table was replaced by a seeded sample of at most {self.sample_size:,} "
            "records; the intervals are those of the sampled records."
        )
        auc_interval = (
            ""
            if self.auc_low is None
            else f", {self.confidence:.0%} CI {self.auc_low:.3f} to {self.auc_high:.3f}"
        )
        return self.with_judgement(
            f"A classifier trained to tell training from synthetic records gives unseen synthetic "
            f"records a mean 'real' probability of {self.real_synthetic:.3f} and holdout records "
            f"{self.real_holdout:.3f} (difference {self.value:+.3f}{self._interval_text()}"
            f"{self._spread_text()}); it tells synthetic from unseen real records with AUC "
            f"{self.auc:.3f}{auc_interval}, which speaks of fidelity rather than membership.{sample}"
        )


#: Most categories a variable may have to be given to the default model as categorical: the
#: histogram gradient boosting's limit (``max_bins``, 255) on category codes.
_MAX_NATIVE_CATEGORIES = 255


def _classifier_frame(table: pd.DataFrame, kinds: dict) -> pd.DataFrame:
    """Numbers as float (dates in days, NaN kept) and categories as text, ready for one-hot encoding."""
    out = {}
    for column, kind in kinds.items():
        if kind == NUMERIC:
            out[column] = numeric_values(table[column])
        else:
            labels = table[column].astype(object)
            out[column] = labels.where(labels.notna(), _MISSING_LABEL).astype(str)
    return pd.DataFrame(out)


def _coded_features(tables, kinds: dict) -> tuple[list[np.ndarray], np.ndarray]:
    """The tables as float arrays for the default model, and which columns are categorical.

    Numbers as float (dates in days) and categories as one integer code per value, shared by the
    tables; missing values stay NaN, which the model sends down its own branch. A variable with
    more than :data:`_MAX_NATIVE_CATEGORIES` categories is given as its codes in order of
    frequency, an ordered number, because the model cannot split it as a category.
    """
    sizes = np.cumsum([0] + [len(t) for t in tables])
    columns, categorical = [], []
    for column, kind in kinds.items():
        joint = pd.concat([t[column] for t in tables], ignore_index=True)
        if kind == NUMERIC:
            columns.append(numeric_values(joint))
            categorical.append(False)
            continue
        codes, uniques = pd.factorize(joint)  # missing -> -1
        if len(uniques) > _MAX_NATIVE_CATEGORIES:
            frequency_rank = np.argsort(np.argsort(-np.bincount(codes[codes >= 0]), kind="stable"))
            codes = np.where(codes >= 0, frequency_rank[np.maximum(codes, 0)], -1)
        columns.append(np.where(codes >= 0, codes, np.nan))
        categorical.append(len(uniques) <= _MAX_NATIVE_CATEGORIES)
    matrix = np.column_stack(columns)
    return [matrix[a:b] for a, b in zip(sizes[:-1], sizes[1:])], np.array(categorical)


def _hanley_mcneil_interval(auc: float, n_positive: int, n_negative: int, confidence: float):
    """Normal interval of an AUC with the standard error of Hanley & McNeil (1982, eq. 2)."""
    q1, q2 = auc / (2 - auc), 2 * auc**2 / (1 + auc)
    variance = (auc * (1 - auc) + (n_positive - 1) * (q1 - auc**2) + (n_negative - 1) * (q2 - auc**2)) / (
        n_positive * n_negative
    )
    half = float(norm.ppf(0.5 + confidence / 2)) * math.sqrt(max(variance, 0.0))
    return max(0.0, auc - half), min(1.0, auc + half)


def _model_and_features(tables, kinds: dict, estimator) -> tuple[tuple, object, str]:
    """The discriminator's unfitted model, the tables as it reads them, and the name of the model's
    seed parameter: coded arrays for the default gradient-boosting model, frames one-hot encoded
    inside the pipeline for a given ``estimator``."""
    if estimator is None:
        features, categorical = _coded_features(tables, kinds)
        model = HistGradientBoostingClassifier(categorical_features=categorical, class_weight="balanced")
        return tuple(features), model, "random_state"
    names = [c for c, k in kinds.items() if k != NUMERIC]
    model = Pipeline(
        [
            (
                "encode",
                ColumnTransformer(
                    [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), names)],
                    remainder="passthrough",
                ),
            ),
            ("classify", clone(estimator)),
        ]
    )
    return tuple(_classifier_frame(t, kinds) for t in tables), model, "classify__random_state"


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "estimator": [HasMethods("fit", "predict_proba"), None],
        "random_state": [RandomState()],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        # -1: every core, as in scikit-learn
        "n_jobs": [Integer(low=1), Options(-1), None],
        "progress": [Boolean()],
        "max_records": [Integer(low=2), None],
    }
)
def discriminator_test(
    *,
    train,
    holdout,
    synthetic,
    estimator=None,
    random_state=None,
    n_repeats=1,
    confidence=DEFAULT_CONFIDENCE,
    n_jobs=None,
    progress=False,
    max_records=None,
) -> DiscriminatorTest:
    """Discriminator test (Yale et al. 2019, generalised).

    A classifier learns to tell training records (label "real") from half of the synthetic records
    (label "synthetic"); it then scores records it never saw: the holdout and the other half of the
    synthetic data. If unseen synthetic records get a higher "real" probability than genuine
    holdout records, the synthetic data resembles the very records the generator was trained on:
    a sign of over-fitting.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data (at least 2 rows).
    estimator : scikit-learn classifier, optional
        Replaces the default model; it receives categorical variables one-hot encoded and numeric
        ones as floats (dates in days, missing values as NaN). Its ``random_state`` is set from
        ``random_state`` when it has one. Default: histogram gradient boosting
        (``HistGradientBoostingClassifier`` with balanced class weights, on every core), which
        splits categorical variables natively and takes missing values as they are.
    random_state : int, numpy.random.Generator or None
        Seed for the split of the synthetic data, the classifier and the bootstrap.
    n_repeats : int, default 1
        Splits and fits to average over.
    confidence : float, default 0.95
        Level of the intervals of ``value`` and ``auc``.
    n_jobs : int, optional
        OpenMP threads of the model; -1 means every core. ``None`` (the default) chooses by size:
        one thread below :data:`THREADED_ROWS` fitting rows, where threads save little and, on a
        machine shared with other jobs, cost much (OpenMP threads wait for each other actively,
        and a thread that is not scheduled holds the others up; a 6,000-row fit measured 0.6 s
        on one thread and 3.9 s on two busy cores), and every core above. Setting the
        environment variable ``OMP_WAIT_POLICY=passive`` before Python starts also helps.
    progress : bool, default False
        Show a tqdm progress bar over the repetitions.
    max_records : int, optional
        Most records of each table the test uses: a larger table is replaced by a seeded sample
        of this many records (drawn before anything else), so the fits cost the same at any
        size. Both intervals are computed on the sampled records, so they widen with the
        smaller sample; the reading names the sample. ``None`` (the default) uses every record.

    Returns
    -------
    DiscriminatorTest
        ``value`` = mean "real" probability of unseen synthetic records minus that of holdout
        records (baseline 0; above 0 signals over-fitting) with its bootstrap interval over
        records, ``real_synthetic``, ``real_holdout``, ``auc`` of the "real" probability
        separating holdout from synthetic records with its interval ``auc_low``, ``auc_high``,
        and the verdict from :mod:`privlib.thresholds`.

    Notes
    -----
    The tables are encoded once; each repetition draws a split, fits one model and scores the
    holdout and the unseen half. The interval of ``value`` resamples holdout records and
    synthetic records (each with its "real" probabilities summed over the repetitions that
    scored it), so ``value`` is a difference of a mean and a ratio of sums, recomputed on each
    resample. The AUC interval is the normal interval with the standard error of Hanley and
    McNeil (1982), Radiology 143(1), equation 2, for the mean AUC.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> def table(n):
    ...     return pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["a", "b"], n)})
    >>> res = discriminator_test(train=table(200), holdout=table(200), synthetic=table(200),
    ...                          random_state=0)
    >>> res.ci_low <= res.value <= res.ci_high
    True
    """
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    if len(synthetic) < 2:
        raise DataError("`synthetic` needs at least 2 rows: one half to fit, one to score.")
    confidence = check_confidence(confidence)
    kinds = infer_kinds(train, name="train")
    rng = np.random.default_rng(random_state)
    sampled = max_records is not None and any(len(t) > max_records for t in (train, holdout, synthetic))
    if sampled:
        train, holdout, synthetic = (
            subsample(t, min(len(t), max_records), rng) for t in (train, holdout, synthetic)
        )
    (x_train, x_holdout, x_synthetic), model, model_step = _model_and_features(
        (train, holdout, synthetic), kinds, estimator
    )
    n_fit = len(synthetic) // 2
    n_scored = len(synthetic) - n_fit
    labels = np.repeat([1, 0], [len(train), n_fit])
    holdout_sum = np.zeros(len(holdout))
    synthetic_sum, synthetic_count = np.zeros(len(synthetic)), np.zeros(len(synthetic))
    per_repeat = []  # mean P(real) of the holdout, of the scored synthetic records, and the AUC
    threads = _check_threads(n_jobs, len(labels))
    logger.info(
        "discriminator: %d fit(s) of %s on %d training and %d synthetic records",
        n_repeats,
        _model_name(model),
        len(train),
        n_fit,
    )
    started = time.perf_counter()
    for repeat in _repetitions(n_repeats, progress):
        fitted = clone(model)
        if model_step in fitted.get_params():
            fitted.set_params(**{model_step: int(rng.integers(2**31 - 1))})
        order = rng.permutation(len(synthetic))
        fit_part, score_part = order[:n_fit], order[n_fit:]
        features = _stack(x_train, _take(x_synthetic, fit_part))
        with threadpool_limits(limits=threads, user_api="openmp"):
            try:
                fitted.fit(features, labels)
            except ValueError as exc:  # e.g. an estimator that cannot take missing values
                raise DataError(f"the discriminator `estimator` could not be fitted: {exc}") from None
            real = list(fitted.classes_).index(1)
            p_holdout = fitted.predict_proba(x_holdout)[:, real]
            p_synthetic = fitted.predict_proba(_take(x_synthetic, score_part))[:, real]
        holdout_sum += p_holdout
        synthetic_sum[score_part] += p_synthetic
        synthetic_count[score_part] += 1
        auc = roc_auc_score(
            np.repeat([1, 0], [p_holdout.size, p_synthetic.size]), np.concatenate([p_holdout, p_synthetic])
        )
        per_repeat.append((p_holdout.mean(), p_synthetic.mean(), auc))
        logger.info(
            "discriminator: fit %d of %d done (%.0f s)", repeat + 1, n_repeats, time.perf_counter() - started
        )
    rows = np.array(per_repeat)
    differences = rows[:, 1] - rows[:, 0]
    mean, low, high = _spread(differences)

    def excess_realness(holdout_mean, synthetic_sums):
        return synthetic_sums[:, 0].sum() / synthetic_sums[:, 1].sum() - holdout_mean.mean()

    scored = synthetic_count > 0
    ci_low, ci_high = bootstrap_interval(
        excess_realness,
        [holdout_sum / n_repeats, np.column_stack([synthetic_sum[scored], synthetic_count[scored]])],
        rng=rng,
        confidence=confidence,
    )
    auc = float(rows[:, 2].mean())
    auc_low, auc_high = _hanley_mcneil_interval(auc, len(holdout), n_scored, confidence)
    result = DiscriminatorTest(
        measure=KEY,
        value=mean,
        baseline=0.0,
        ci_low=ci_low,
        ci_high=ci_high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        real_holdout=float(rows[:, 0].mean()),
        real_synthetic=float(rows[:, 1].mean()),
        auc=auc,
        auc_low=auc_low,
        auc_high=auc_high,
        model=_model_name(model),
        n_repeats=n_repeats,
        repeat_low=low,
        repeat_high=high,
        repeats=differences,
        sample_size=max_records if sampled else None,
    )
    return result


#: Fitting rows from which the discriminator's model uses every core by default.
THREADED_ROWS = 50_000


def _check_threads(n_jobs, n_rows: int) -> int | None:
    """``n_jobs`` as a thread limit for threadpoolctl (``None`` there: no limit, every core)."""
    if n_jobs is None:
        return 1 if n_rows < THREADED_ROWS else None
    if n_jobs == -1:
        return None
    return int(n_jobs)


def _repetitions(n_repeats: int, progress: bool):
    if not progress:
        return range(n_repeats)
    from tqdm.auto import tqdm

    return tqdm(range(n_repeats), desc="discriminator", unit="fit")


def _take(features, rows: np.ndarray):
    return features.iloc[rows] if isinstance(features, pd.DataFrame) else features[rows]


def _stack(first, second):
    if isinstance(first, pd.DataFrame):
        return pd.concat([first, second], ignore_index=True)
    return np.concatenate([first, second])


def _model_name(model) -> str:
    final = model.steps[-1][1] if isinstance(model, Pipeline) else model
    return type(final).__name__


DISCRIMINATOR_EXCESS_REALNESS = MeasureSpec(
    KEY,
    "Discriminator: synthetic records judged real",
    "membership",
    Threshold(
        0.02,
        from_baseline=True,
        source="kit default: synthetic records judged 2 points more 'real' than genuine unseen records",
        scope="asks a classifier trained on training vs synthetic records whether unseen "
        "synthetic records look more like the training data than real unseen records do",
        risk_words="synthetic records look more like the training data than genuine unseen "
        "records, a sign of over-fitting",
        safe_words="synthetic records look no more like the training data than genuine unseen "
        "records, within the margin",
    ),
    Reference("privlib.membership:discriminator_test"),
    lambda c: (
        with_settings(release, random_state="seed", n_repeats="repeats")(c)
        | {"max_records": DISCRIMINATOR_SAMPLE}
    ),
    needs=("holdout",),
)
