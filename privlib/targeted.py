"""Worst-case membership attacks: a targeted shadow-model attack and a density attack.

The distance measures of :mod:`privlib.membership` average over all records. A generator can
pass them and still give away whether one particular person, typically an outlier, was in its
training data. Two attacks look for that directly.

**Shadow-model attack** (Stadler, Oprisanu & Troncoso 2022), :func:`shadow_model_attack`. The
adversary knows the generator (its class and settings), a sample of the population, and the
target record ``t``. For each target she

1. draws shadow training sets ``D`` of the training size from the population (never holding
   ``t`` itself) and makes a twin ``D + t`` in which ``t`` replaces one random record of ``D``;
2. fits the generator on every shadow set and draws a synthetic table from it;
3. turns each synthetic table into a fixed-length feature vector (the feature sets of Stadler et
   al.: ``"naive"`` summary statistics, ``"histogram"`` of every category and numeric bin,
   ``"correlation"`` between all pairs of encoded variables) and trains a random forest to tell
   the tables made with ``t`` from those made without it;
4. scores fresh shadow pairs, never seen in training, and reports the AUC of those scores.

AUC 0.5 means the synthetic data says nothing about whether ``t`` was used; 1.0 means it always
tells. Each target has its own AUC with a bootstrap interval over the fresh pairs and its own
p-value: the exact one-sided Wilcoxon-Mann-Whitney test of the fresh pairs' scores (the AUC is its
U statistic over ``n_out * n_in``), whose null distribution, the rank sum of every way of choosing
which ``n_in`` of the pooled scores are "with the target", is counted exactly, ties at their
mid-ranks included (:func:`rank_sum_p_value`). Exact rather than a normal approximation because a
verdict reads p-values near ``0.05 / k`` on 20 + 20 scores, which a forest's votes can tie;
counted rather than drawn so that no seed moves it. It is exact when the scores of the fresh tables
are independent, as they are for a generator that ignores its data; for a real generator the two
tables of one pair share all but one record, and a positive correlation of their scores, the
likely effect, makes the AUC vary less than the test assumes, so the test conservative. Stadler et al. report and judge the attack per target, so the verdict does too:
Holm's step-down adjustment over the targets (:func:`privlib.records.family_tests`), and the
finding is the worst target, the one with the smallest adjusted p-value, whose AUC is the headline;
the mean AUC over targets is context. By default the targets are the most isolated training
records: those with the largest Gower distance to their nearest other training record, the records
Stadler et al. found most exposed.

**Density attack**, DOMIAS (van Breugel, Sun, Qian & van der Schaar 2023),
:func:`density_attack`. A generator that over-fits puts more mass near its training records than
the population does. DOMIAS scores each record ``x`` by the density ratio
``p_S(x) / p_R(x)``: the density of the synthetic data over that of a reference sample of the
population, both estimated on the kit's encoding. A member should score higher than a
non-member; the AUC over training (members) and holdout (non-members) records measures it. The
ratio, rather than ``p_S`` alone, is what keeps a record in a dense region of the population from
looking like a member just because the region is dense.

Encoding for the densities: numeric variables divided by their range, categorical variables
one-hot times one half, the embedding in which L1 distance is Gower distance (Gower 1971) times
the number of variables, so that every variable weighs alike.

References
----------
Stadler T, Oprisanu B, Troncoso C. Synthetic data - anonymisation groundhog day. USENIX Security
2022 (shadow-model attack, Section 4; feature sets naive, histogram, correlation).

van Breugel B, Sun H, Qian Z, van der Schaar M. Membership inference attacks against synthetic
data through overfitting detection. AISTATS 2023 (DOMIAS, Section 3, eq. 3).

Shokri R, Stronati M, Song C, Shmatikov V. Membership inference attacks against machine learning
models. IEEE S&P 2017 (shadow models).

Houssiau F, Jordon J, Cohen SN, et al. TAPAS: a toolbox for adversarial privacy auditing of
synthetic data. NeurIPS workshop on synthetic data 2022.

Mann HB, Whitney DR. On a test of whether one of two random variables is stochastically larger
than the other. Annals of Mathematical Statistics 18(1), 1947 (the exact test; Hollander, Wolfe &
Chicken, Nonparametric Statistical Methods, 3rd ed. 2014, Section 4.1, for its tied form).

Holm S. A simple sequentially rejective multiple test procedure. Scandinavian Journal of
Statistics 6(2), 1979.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import logging
import math
import time
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import rankdata
from sklearn.ensemble import RandomForestClassifier
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import KernelDensity
from threadpoolctl import threadpool_limits

from privlib.errors import DataError, ParameterError
from privlib.neighbors import nearest_distances
from privlib.records import family_tests
from privlib.results import Result, per_record
from privlib.schema import MISSING, NUMERIC, TableEncoder, check_comparable, check_frame
from privlib.uncertainty import BOOTSTRAP, bootstrap_interval, check_confidence
from privlib.validation import (
    CONFIDENCE,
    HasMethods,
    Instance,
    Integer,
    Number,
    Options,
    RandomState,
    Table,
    validate_params,
)

logger = logging.getLogger(__name__)

__all__ = [
    "FEATURE_SETS",
    "ShadowModelAttack",
    "DensityAttack",
    "resolve_synthesizer",
    "outlier_targets",
    "rank_sum_p_value",
    "shadow_model_attack",
    "density_attack",
]

#: The feature sets of Stadler et al. (2022) that the shadow-model attack can use.
FEATURE_SETS = ("naive", "histogram", "correlation")

#: Most fresh shadow pairs per target: the exact null distribution of a target's rank sum is
#: counted in about ``4 n_test**4`` steps (about 0.1 s at 50), and each pair costs two
#: fits of the generator.
MAX_TEST_PAIRS = 50


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ShadowModelAttack(Result):
    """Result of :func:`shadow_model_attack`: the worst target, judged after Holm over targets.

    ``value`` is the AUC of the deciding target (``deciding_row``, the smallest Holm-adjusted
    p-value, the higher AUC among ties) with its interval; ``p_value`` its adjusted p-value,
    ``raw_p_value`` its own; ``baseline`` the largest AUC its exact test at level
    ``(1 - confidence) / n_targets`` (where Holm's first step rejects) puts down to chance, so that
    "value above baseline" is the adjusted test. ``rows_at_risk`` lists the training rows (0-based
    positions) of the targets significant after adjustment, ``n_significant_alone`` counts those
    significant before it. ``mean_auc`` and its interval are context.

    Per target (in the order of ``target_index``): its row position in the training table, the
    Gower distance to its nearest other training record, its AUC and interval, its own and its
    adjusted p-value. The records themselves are never kept.
    """

    synthesizer: str = ""
    features: str = "correlation"
    n_targets: int = 0
    n_shadows: int = 0
    n_test: int = 0
    deciding_row: int = -1
    p_value: float = math.nan
    raw_p_value: float = math.nan
    rows_at_risk: tuple = ()
    n_significant_alone: int = 0
    mean_auc: float = math.nan
    mean_ci_low: float = math.nan
    mean_ci_high: float = math.nan
    target_index: np.ndarray = per_record(default=None)
    target_distance: np.ndarray = per_record(default=None)
    target_auc: np.ndarray = per_record(default=None)
    target_ci_low: np.ndarray = per_record(default=None)
    target_ci_high: np.ndarray = per_record(default=None)
    target_p_value: np.ndarray = per_record(default=None)
    target_adjusted_p: np.ndarray = per_record(default=None)
    #: The classifier's scores of the fresh shadow tables made with (``scores_in``) and without
    #: (``scores_out``) a target, pooled over the targets (for
    #: :func:`privlib.records.low_fpr_points`).
    scores_in: np.ndarray = per_record(default=None)
    scores_out: np.ndarray = per_record(default=None)

    def per_target(self) -> pd.DataFrame:
        """One row per target: training row, nearest-record distance, AUC and its interval, its
        own and its Holm-adjusted p-value."""
        return pd.DataFrame(
            {
                "training row": self.target_index,
                "distance to nearest record": self.target_distance,
                "AUC": self.target_auc,
                "ci low": self.target_ci_low,
                "ci high": self.target_ci_high,
                "p": self.target_p_value,
                "adjusted p": self.target_adjusted_p,
            }
        )

    def reading(self) -> str:
        deciding = int(np.flatnonzero(self.target_index == self.deciding_row)[0])
        level = 1 - self.confidence
        at_risk = (
            f"significant after the adjustment: training row(s) {', '.join(map(str, self.rows_at_risk))}"
            if self.rows_at_risk
            else "none is significant after the adjustment"
        )
        return self.with_judgement(
            f"Refitting {self.synthesizer} on shadow data with and without each of "
            f"{self.n_targets} target record(s), a classifier on {self.features} features of the "
            f"synthetic data tells whether the target was used; per target, the exact "
            f"Mann-Whitney test of {self.n_test} fresh pairs, Holm-adjusted over the targets. The "
            f"worst target, training row {self.deciding_row}, reaches AUC {self.value:.3f} "
            f"({self.target_ci_low[deciding]:.3f} to {self.target_ci_high[deciding]:.3f}; chance "
            f"0.5), p = {self.raw_p_value:.2g} on its own, {self.p_value:.2g} adjusted. "
            f"{self.n_significant_alone} of {self.n_targets} target(s) reach p <= {level:.2g} on "
            f"their own; {at_risk}. Mean AUC over the targets {self.mean_auc:.3f} "
            f"({self.mean_ci_low:.3f} to {self.mean_ci_high:.3f}), context only: averaging "
            "hides the one record a release exposes."
        )


@dataclass(frozen=True, kw_only=True)
class DensityAttack(Result):
    """Result of :func:`density_attack`: the AUC of the DOMIAS density-ratio score.

    ``score`` holds the log density ratio of every training record, then every holdout record;
    ``is_member`` says which is which.
    """

    estimator: str = "kde"
    n_train: int = 0
    n_holdout: int = 0
    score: np.ndarray = per_record(default=None)
    is_member: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return (
            f"Scoring {self.n_train} training and {self.n_holdout} holdout records by the density "
            f"of the synthetic data over that of a reference sample ({self.estimator}), members "
            f"rank above non-members with AUC {self.value:.3f} ({self.ci_low:.3f} to "
            f"{self.ci_high:.3f}; chance {self.baseline:.1f})."
        )


# --------------------------------------------------------------------------------------------
# Checks and the generator
# --------------------------------------------------------------------------------------------
def _check_count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ParameterError(f"`{name}` must be a whole number >= {minimum}, got {value!r}.")
    return int(value)


def _check_tables(tables: dict) -> None:
    """Every table valid and with the columns and column kinds of the first.

    Categories one table holds and another does not are allowed (a population holds more than a
    training sample), and never printed.
    """
    (first_name, first), *others = tables.items()
    check_frame(first, first_name)
    for name, table in others:
        check_frame(table, name)
        check_comparable(first, table, (first_name, name), unseen="ignore")


def resolve_synthesizer(spec, **params):
    """An unfitted synthesizer from a name, an entry point, a class or an instance.

    Parameters
    ----------
    spec : str, type or object
        A class name of :mod:`privlib.synth` (``"SequentialTrees"``, ``"MST"``, ...); an entry
        point ``"module:Class"`` naming a class whose instances have ``fit(df)`` and
        ``sample(n)`` (``sample`` may also take ``random_state``); such a class; or an unfitted
        instance (copied, never changed).
    **params
        Hyper-parameters passed to the class (not allowed with an instance).

    Returns
    -------
    object
        A fresh unfitted synthesizer.

    Raises
    ------
    PrivlibError
        When the name is unknown, the module or class cannot be imported, or the object lacks
        ``fit`` or ``sample``.

    Examples
    --------
    >>> resolve_synthesizer("Copy")
    Copy()
    >>> resolve_synthesizer("privlib.synth:ParzenWindows", bandwidth=0.2)
    ParzenWindows(bandwidth=0.2)
    """
    from privlib import synth

    if isinstance(spec, str) and ":" in spec:
        module_name, _, class_name = spec.partition(":")
        try:
            spec = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise ParameterError(
                f"`synthesizer` entry point {module_name}:{class_name} cannot be imported "
                f"({type(exc).__name__}); give 'module:Class' with the module on the Python path."
            ) from None
    made: object  # checked for fit() and sample() below
    if isinstance(spec, str):
        made = synth.make(spec, **params)
    elif inspect.isclass(spec):
        try:
            made = spec(**params)
        except TypeError as exc:
            raise ParameterError(f"`synthesizer` {spec.__name__} rejects its parameters: {exc}.") from None
    else:
        if params:
            raise ParameterError("give `synthesizer` as a name or class to pass parameters to it.")
        made = copy.deepcopy(spec)
    for method in ("fit", "sample"):
        if not callable(getattr(made, method, None)):
            raise ParameterError(
                f"`synthesizer` {type(made).__name__} has no {method}() method; a generator needs "
                "fit(df) and sample(n)."
            )
    return made


def _fit_and_sample(template, data: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """Fit a fresh copy of ``template`` on ``data`` and draw ``n`` rows, seeded by ``seed``."""
    model = copy.deepcopy(template)
    fit_seed, sample_seed = np.random.SeedSequence(seed).generate_state(2)
    if "random_state" in inspect.signature(type(model)).parameters:
        model.random_state = int(fit_seed)  # e.g. the noise of MST's fit
    model.fit(data)
    if "random_state" in inspect.signature(model.sample).parameters:
        return model.sample(n, random_state=int(sample_seed))
    return model.sample(n)


# --------------------------------------------------------------------------------------------
# Features of a synthetic table (Stadler et al. 2022)
# --------------------------------------------------------------------------------------------
def _category_slot(codes: np.ndarray, size: int) -> np.ndarray:
    """Encoder codes of a categorical column as slots ``0..size-1``.

    ``size`` is the number of known categories plus two: the second-last slot takes every
    category the encoder never saw, the last one missing values.
    """
    return np.where(codes == MISSING, size - 1, np.minimum(codes, size - 2)).astype(int)


class _Features:
    """Fixed-length features of any table with the population's columns.

    Fitted once on the population: the numeric ranges and bins and the categories, so that every
    shadow table maps to the same positions.
    """

    N_BINS = 10

    def __init__(self, population: pd.DataFrame):
        self.encoder = TableEncoder().fit(population, names=["population"])
        self.columns = list(self.encoder.columns_)
        self.numeric = [self.encoder.kinds_[c] == NUMERIC for c in self.columns]
        self.n_categories = [
            0 if num else len(self.encoder.categories_[c]) + 2 for c, num in zip(self.columns, self.numeric)
        ]
        self.n_encoded = sum(max(size, 1) for size in self.n_categories)

    def _one_hot(self, codes: np.ndarray) -> np.ndarray:
        """Numeric columns as scaled values, categorical ones as indicators (missing, unseen)."""
        parts = []
        for j, numeric in enumerate(self.numeric):
            x = codes[:, j]
            if numeric:
                parts.append(np.where(x == MISSING, np.nan, x)[:, None])
            else:
                parts.append(np.eye(self.n_categories[j])[_category_slot(x, self.n_categories[j])])
        return np.hstack(parts)

    def __call__(self, table: pd.DataFrame, kind: str) -> np.ndarray:
        # one BLAS thread: the shadow fits already run in parallel, and threads only fight
        with threadpool_limits(1):
            return self._features(self.encoder.transform(table, "synthetic"), kind)

    def _features(self, codes: np.ndarray, kind: str) -> np.ndarray:
        if kind == "correlation":
            encoded = np.nan_to_num(self._one_hot(codes), nan=0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                corr = np.atleast_2d(np.corrcoef(encoded, rowvar=False))
            return np.nan_to_num(corr[np.triu_indices_from(corr, k=1)], nan=0.0)
        out = []
        for j, numeric in enumerate(self.numeric):
            x = codes[:, j]
            if numeric:
                present = x[x != MISSING]
                if kind == "naive":
                    stats = (
                        [present.mean(), np.median(present), present.var(), present.min(), present.max()]
                        if present.size
                        else [0.0] * 5
                    )
                    out.extend(stats + [1 - present.size / len(x)])
                else:
                    bins = np.clip(np.floor(present * self.N_BINS), 0, self.N_BINS - 1)
                    hist = np.bincount(bins.astype(int), minlength=self.N_BINS) / len(x)
                    out.extend(list(hist) + [1 - present.size / len(x)])
            else:
                size = self.n_categories[j]
                freq = np.bincount(_category_slot(x, size), minlength=size) / len(x)
                if kind == "naive":
                    seen = np.flatnonzero(freq)
                    out.extend([seen.size, int(np.argmax(freq)), int(seen[np.argmin(freq[seen])])])
                else:
                    out.extend(freq)
        return np.asarray(out, dtype="float64")


def _shadow_features(
    template, without, target, swap, n_synthetic, seed, features, featurizer
) -> tuple[np.ndarray, np.ndarray]:
    """Features of the synthetic tables made from one shadow set without and with the target."""
    with_target = without.copy()
    with_target.iloc[swap] = target.iloc[0]
    seeds = np.random.SeedSequence(seed).generate_state(2)
    return (
        featurizer(_fit_and_sample(template, without, n_synthetic, int(seeds[0])), features),
        featurizer(_fit_and_sample(template, with_target, n_synthetic, int(seeds[1])), features),
    )


def outlier_targets(train: pd.DataFrame, n_targets: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the ``n_targets`` training records farthest from their nearest other one.

    Returns the positions (ties broken by the lower position) and those Gower distances.

    Examples
    --------
    >>> df = pd.DataFrame({"age": [30.0, 31.0, 32.0, 90.0]})
    >>> outlier_targets(df, 1)[0].tolist()
    [3]
    """
    check_frame(train, "train")
    n_targets = _check_count(n_targets, "n_targets")
    if n_targets > len(train) - 1:
        raise DataError(
            f"`n_targets` ({n_targets}) must be below the number of training records ({len(train)})."
        )
    distance = nearest_distances(train, train, exclude_self=True)
    order = np.lexsort((np.arange(len(train)), -distance))[:n_targets]
    return order, distance[order]


def _auc(out: np.ndarray, inside: np.ndarray) -> float:
    """Share of (non-member, member) pairs ranked right, ties counting half: the ROC AUC.

    The Mann-Whitney form, ``(R - n1 (n1 + 1) / 2) / (n0 n1)`` with ``R`` the rank sum of the
    members (Hanley & McNeil 1982); it equals ``sklearn.metrics.roc_auc_score`` and, without its
    input checks, is fast enough to run inside a bootstrap.
    """
    ranks = rankdata(np.concatenate([out, inside]))
    n_out, n_in = len(out), len(inside)
    return float((ranks[n_out:].sum() - n_in * (n_in + 1) / 2) / (n_out * n_in))


def _rank_sum_tail(out: np.ndarray, inside: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """The exact null distribution of the members' doubled rank sum, given the pooled scores.

    Mid-ranks are halves, so twice a rank is a whole number. ``ways[k, s]`` counts the ``k``-subsets
    of the pooled scores seen so far whose doubled ranks sum to ``s`` (a knapsack count over the
    scores). Returns every doubled sum ``s`` that some choice of ``len(inside)`` scores reaches, the
    probability ``P(sum >= s)`` of each under random labelling, and the observed sum.
    """
    n_in = len(inside)
    doubled = np.rint(2 * rankdata(np.concatenate([out, inside]))).astype(int)
    ways = np.zeros((n_in + 1, int(doubled.sum()) + 1))
    ways[0, 0] = 1.0
    for weight in doubled:  # every weight >= 2, so the slices below are never empty
        ways[1:, weight:] = ways[1:, weight:] + ways[:-1, :-weight]
    counts = ways[n_in]
    reached = np.flatnonzero(counts)
    tail = np.cumsum(counts[reached][::-1])[::-1] / counts.sum()
    return reached, tail, int(doubled[len(out) :].sum())


def rank_sum_p_value(out, inside) -> float:
    """One-sided p-value of the exact Wilcoxon-Mann-Whitney test that ``inside`` scores higher.

    The probability, over every way of choosing which ``len(inside)`` of the pooled scores are
    labelled "inside" (all equally likely when the labels mean nothing), of a rank sum at least
    the observed one; ties take their mid-ranks and the count is exact for them too (Hollander,
    Wolfe & Chicken 2014, Section 4.1). The AUC of the scores is the same statistic,
    ``(R - n (n + 1) / 2) / (n_out n)``, so this is the exact p-value of that AUC.

    Examples
    --------
    >>> rank_sum_p_value([0.1, 0.2], [0.3, 0.4])  # 1 of the C(4, 2) = 6 labellings ranks as high
    0.16666666666666666
    """
    reached, tail, observed = _rank_sum_tail(np.asarray(out, float), np.asarray(inside, float))
    return float(tail[np.searchsorted(reached, observed)])


def _chance_auc(out: np.ndarray, inside: np.ndarray, level: float) -> float:
    """The largest AUC whose exact p-value exceeds ``level`` for these pooled scores: an AUC above
    it is significant at ``level``; 1.0 when no AUC can be."""
    reached, tail, _ = _rank_sum_tail(out, inside)
    significant = np.flatnonzero(tail <= level)
    if significant.size == 0:
        return 1.0
    n_out, n_in = len(out), len(inside)
    below = reached[significant[0] - 1]  # the p-value of the smallest sum, P(sum >= min), is 1
    return float((below / 2 - n_in * (n_in + 1) / 2) / (n_out * n_in))


def _auc_with_interval(groups, rng, confidence) -> tuple[float, float, float]:
    """Mean AUC over (out, in) score pairs of groups, with a bootstrap interval."""

    def mean_auc(*resampled):
        return float(np.mean([_auc(out, inside) for out, inside in zip(resampled[::2], resampled[1::2])]))

    value = mean_auc(*groups)
    low, high = bootstrap_interval(mean_auc, groups, rng=rng, confidence=confidence)
    return value, low, high


@validate_params(
    {
        "train": [Table()],
        "population": [Table()],
        "n_targets": [Integer(low=1)],
        "n_shadows": [Integer(low=2)],
        "n_test": [Integer(low=2, high=MAX_TEST_PAIRS)],
        "shadow_size": [Integer(low=2), None],
        "synthetic_size": [Integer(low=1), None],
        "features": [Options(*FEATURE_SETS)],
        "n_jobs": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
        "synthesizer": [Instance(str, type), HasMethods("fit", "sample")],
        "targets": [Instance(list, tuple, np.ndarray, pd.Index, description="a list of row positions"), None],
    }
)
def shadow_model_attack(
    *,
    synthesizer,
    train,
    population,
    targets=None,
    n_targets=5,
    n_shadows=40,
    n_test=20,
    shadow_size=None,
    synthetic_size=None,
    features="correlation",
    n_jobs=2,
    confidence=0.95,
    random_state=None,
) -> ShadowModelAttack:
    """Targeted membership attack with shadow models (Stadler, Oprisanu & Troncoso 2022).

    See the module documentation for the method.

    Parameters
    ----------
    synthesizer : str, type or object
        The generator, as :func:`resolve_synthesizer` takes it: a :mod:`privlib.synth` name, an
        entry point ``"module:Class"``, a class, or an unfitted instance with ``fit`` and
        ``sample``. It is refitted ``2 * (n_shadows + n_test)`` times per target, each time on a
        fresh copy; a class whose constructor takes ``random_state`` (e.g. the noise of
        :class:`privlib.dp.MST`) gets a new seed for every fit, as a real release would.
    train : pandas.DataFrame
        The generator's real training data: the targets are chosen among its records.
    population : pandas.DataFrame
        What the adversary knows of the population, with the same columns; shadow sets are drawn
        from it, without replacement and never holding a copy of the target.
    targets : sequence of int, optional
        Row positions in ``train`` of the targets. Default: the ``n_targets`` most isolated
        records (:func:`outlier_targets`).
    n_targets : int, default 5
        Number of targets when ``targets`` is not given.
    n_shadows : int, default 40
        Shadow pairs (with and without the target) per target to train the classifier.
    n_test : int, default 20
        Fresh shadow pairs per target to measure its AUC and test it (at most
        :data:`MAX_TEST_PAIRS`). With 5 targets, 20 pairs let a target's AUC of about 0.78 or
        more pass Holm's first step at 5%; 10 pairs need about 0.9.
    shadow_size : int, optional
        Records per shadow training set (default: ``len(train)``).
    synthetic_size : int, optional
        Synthetic records drawn from each shadow fit (default: ``shadow_size``).
    features : {"correlation", "histogram", "naive"}, default "correlation"
        The feature set of Stadler et al.: the correlations between every pair of encoded
        variables (numbers scaled, categories one-hot); the frequencies of every category and of
        ten equal-width bins of every numeric variable; or the mean, median, variance, minimum
        and maximum of numeric variables and the number of categories seen, the most and the
        least frequent of categorical ones. On Adult outliers the correlations find a copied
        target best (see ``benchmarks/README.md``): they see combinations that are rare, where the
        others see one variable at a time.
    n_jobs : int, default 2
        Shadow fits run in parallel by joblib in this many processes; each holds at most two
        synthetic tables at a time and sends back only their features.
    confidence : float, default 0.95
        Level of the intervals (percentile bootstrap over the fresh pairs) and of the tests: a
        target is at risk when its Holm-adjusted p-value is at most ``1 - confidence``.
    random_state : int, numpy.random.Generator or None
        Seed of every draw: shadow sets, fits, samples, classifiers, bootstrap (the exact tests
        draw nothing).

    Returns
    -------
    ShadowModelAttack
        ``value`` the worst target's AUC with its interval, ``p_value`` its Holm-adjusted
        p-value and ``baseline`` the largest AUC chance gives at Holm's first step, judged by the
        registry's ``shadow_model_auc`` entry as an exact test; ``rows_at_risk`` the training rows
        significant after adjustment; per target ``target_index``, ``target_distance``,
        ``target_auc``, ``target_ci_low``, ``target_ci_high``, ``target_p_value``,
        ``target_adjusted_p`` (and :meth:`~ShadowModelAttack.per_target`).

    Raises
    ------
    PrivlibError
        For bad tables, counts, targets or feature set, a population too small for the shadow
        sets, or a synthesizer that cannot be resolved.

    Examples
    --------
    >>> import pandas as pd
    >>> population = pd.DataFrame({"x": [float(i % 7) for i in range(200)] + [50.0]})
    >>> train = population.iloc[[0, 1, 2, 3, 4, 5, 200]].reset_index(drop=True)
    >>> result = shadow_model_attack(synthesizer="Copy", train=train, population=population,
    ...     n_targets=1, n_shadows=10, n_test=10, features="histogram", n_jobs=1,
    ...     random_state=0)
    >>> result.target_index.tolist(), result.value, result.rows_at_risk
    ([6], 1.0, (6,))
    """
    confidence = check_confidence(confidence)
    _check_tables({"train": train, "population": population})
    n_shadows, n_test, n_jobs = int(n_shadows), int(n_test), int(n_jobs)
    if shadow_size is None and len(train) < 2:
        raise DataError(f"`train` has {len(train)} row(s); a shadow training set needs at least 2.")
    shadow_size = int(len(train) if shadow_size is None else shadow_size)
    n_synthetic = int(shadow_size if synthetic_size is None else synthetic_size)
    template = resolve_synthesizer(synthesizer)
    rng = np.random.default_rng(random_state)
    train = train.reset_index(drop=True)
    population = population[list(train.columns)].reset_index(drop=True)
    if targets is None:
        target_index, target_distance = outlier_targets(train, n_targets)
    else:
        target_index = np.asarray(list(targets))
        if (
            target_index.ndim != 1
            or target_index.size == 0
            or not np.issubdtype(target_index.dtype, np.integer)
            or target_index.min() < 0
            or target_index.max() >= len(train)
            or len(set(target_index)) < target_index.size
        ):
            raise ParameterError(
                f"`targets` must be distinct row positions in `train` (0 to {len(train) - 1})."
            )
        target_distance = nearest_distances(train, train, exclude_self=True)[target_index]
    featurizer = _Features(population)
    if features == "correlation" and featurizer.n_encoded < 2:
        raise DataError("`features='correlation'` needs at least two encoded variables; use 'histogram'.")

    groups, per_target = [], []
    logger.info(
        "shadow-model attack: refitting %s %d times for each of %d target(s)",
        type(template).__name__,
        2 * (n_shadows + n_test),
        len(target_index),
    )
    started = time.perf_counter()
    for done, index in enumerate(target_index, 1):
        target = train.iloc[[int(index)]]
        # the pool never holds the target (nor an identical record): "without" must mean without
        others = np.flatnonzero(nearest_distances(population, target) > 0)
        if len(others) < shadow_size:
            raise DataError(
                f"`population` has {len(others)} records other than a target, fewer than "
                f"`shadow_size` ({shadow_size}); give a larger population or a smaller shadow_size."
            )
        n_pairs = n_shadows + n_test
        tasks = [
            (
                np.sort(rng.choice(others, size=shadow_size, replace=False)),
                int(rng.integers(shadow_size)),
                int(rng.integers(2**63)),
            )
            for _ in range(n_pairs)
        ]
        # a generator: joblib builds each shadow table only when a worker is ready for it
        pairs = Parallel(n_jobs=n_jobs)(
            delayed(_shadow_features)(
                template,
                population.iloc[rows].reset_index(drop=True),
                target,
                swap,
                n_synthetic,
                seed,
                features,
                featurizer,
            )
            for rows, swap, seed in tasks
        )
        x_out = np.array([p[0] for p in pairs])
        x_in = np.array([p[1] for p in pairs])
        classifier = RandomForestClassifier(
            n_estimators=500, n_jobs=n_jobs, random_state=int(rng.integers(2**31))
        )
        classifier.fit(
            np.vstack([x_out[:n_shadows], x_in[:n_shadows]]), np.r_[np.zeros(n_shadows), np.ones(n_shadows)]
        )
        score_out = classifier.predict_proba(x_out[n_shadows:])[:, 1]
        score_in = classifier.predict_proba(x_in[n_shadows:])[:, 1]
        groups.extend([score_out, score_in])
        per_target.append(_auc_with_interval([score_out, score_in], rng, confidence))
        logger.info(
            "shadow-model attack: target %d of %d done (%.0f s)",
            done,
            len(target_index),
            time.perf_counter() - started,
        )

    return _over_targets(
        rows=np.asarray(target_index, dtype=int),
        distance=target_distance,
        groups=groups,
        per_target=per_target,
        mean=_auc_with_interval(groups, rng, confidence),
        confidence=confidence,
        synthesizer=type(template).__name__,
        features=features,
        n_shadows=n_shadows,
        n_test=n_test,
    )


def _over_targets(*, rows, distance, groups, per_target, mean, confidence, **about) -> ShadowModelAttack:
    """The result from each target's fresh scores (``groups``: out, in, out, in, ...), AUC and
    interval (``per_target``) and the mean AUC with its interval: each target's exact p-value,
    Holm's adjustment over the targets, and the worst target as the finding."""
    aucs = np.asarray(per_target, dtype=float)
    holm = family_tests(
        {
            int(row): rank_sum_p_value(out, inside)
            for row, out, inside in zip(rows, groups[::2], groups[1::2])
        },
        confidence=confidence,
    )
    raw = np.array([holm.p_values[int(row)] for row in rows])
    adjusted = np.array([holm.adjusted[int(row)] for row in rows])
    # the worst target: the smallest adjusted p-value, then the higher AUC, then the earlier target
    worst = int(np.lexsort((np.arange(rows.size), -aucs[:, 0], adjusted))[0])
    level = 1 - confidence
    return ShadowModelAttack(
        measure="shadow_model_auc",
        value=float(aucs[worst, 0]),
        ci_low=float(aucs[worst, 1]),
        ci_high=float(aucs[worst, 2]),
        ci_method=BOOTSTRAP,
        confidence=confidence,
        # Holm's first step tests the smallest p-value at level / k: above this AUC it rejects
        baseline=_chance_auc(groups[2 * worst], groups[2 * worst + 1], level / rows.size),
        n_targets=rows.size,
        deciding_row=int(rows[worst]),
        p_value=float(adjusted[worst]),
        raw_p_value=float(raw[worst]),
        rows_at_risk=tuple(int(row) for row in rows if holm.significant[int(row)]),
        n_significant_alone=int((raw <= level).sum()),
        mean_auc=mean[0],
        mean_ci_low=mean[1],
        mean_ci_high=mean[2],
        target_index=rows,
        target_distance=distance,
        target_auc=aucs[:, 0],
        target_ci_low=aucs[:, 1],
        target_ci_high=aucs[:, 2],
        target_p_value=raw,
        target_adjusted_p=adjusted,
        scores_in=np.concatenate(groups[1::2]),
        scores_out=np.concatenate(groups[0::2]),
        **about,
    )


# --------------------------------------------------------------------------------------------
# DOMIAS
# --------------------------------------------------------------------------------------------
def _embedding(encoder: TableEncoder, table: pd.DataFrame, name: str) -> np.ndarray:
    """Numeric values over their range, categories one-hot times 1/2 (missing a category)."""
    codes = encoder.transform(table, name)
    parts = []
    for j, column in enumerate(encoder.columns_):
        x = codes[:, j]
        if encoder.kinds_[column] == NUMERIC:
            # a missing number sits at the middle of the range: it must not pull a record away
            parts.append(np.where(x == MISSING, 0.5, x)[:, None])
        else:
            size = len(encoder.categories_[column]) + 2
            parts.append(0.5 * np.eye(size)[_category_slot(x, size)])
    return np.hstack(parts)


def _log_density(
    fit_on: np.ndarray, at: np.ndarray, estimator: str, bandwidth, n_components, rng
) -> np.ndarray:
    if estimator == "kde":
        if bandwidth is None:  # Scott's rule on the encoded data
            spread = float(np.mean(fit_on.std(axis=0)))
            bandwidth = max(spread, 1e-3) * len(fit_on) ** (-1.0 / (fit_on.shape[1] + 4))
        return KernelDensity(bandwidth=bandwidth).fit(fit_on).score_samples(at)
    mixture = GaussianMixture(
        n_components=min(n_components, len(fit_on)),
        covariance_type="diag",
        reg_covar=1e-4,
        random_state=int(rng.integers(2**31)),
    )
    return mixture.fit(fit_on).score_samples(at)


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "reference": [Table()],
        "estimator": [Options("kde", "gmm")],
        "bandwidth": [Number(low=0, closed="neither"), None],
        "n_components": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    }
)
def density_attack(
    *,
    train,
    holdout,
    synthetic,
    reference,
    estimator="kde",
    bandwidth=None,
    n_components=10,
    confidence=0.95,
    random_state=None,
) -> DensityAttack:
    """DOMIAS: membership by the density ratio of synthetic to reference data (van Breugel 2023).

    Every training record (member) and holdout record (non-member) ``x`` is scored by
    ``log p_S(x) - log p_R(x)``, the densities of ``synthetic`` and of ``reference`` estimated
    on the kit's encoding (see the module documentation); the AUC says how well the score ranks
    members above non-members.

    Parameters
    ----------
    train, holdout : pandas.DataFrame
        Members (the generator's training data) and non-members from the same population.
    synthetic : pandas.DataFrame
        The released data.
    reference : pandas.DataFrame
        Population records the adversary holds, used by neither the generator nor as targets.
    estimator : {"kde", "gmm"}, default "kde"
        A Gaussian kernel density (scikit-learn ``KernelDensity``) or a Gaussian mixture with
        diagonal covariances (``GaussianMixture``), one fitted on each of ``synthetic`` and
        ``reference``.
    bandwidth : float, optional
        Kernel width in encoded units (numeric ranges are 1, categories 1/2 apart per
        indicator). Default: Scott's rule, ``s * n**(-1/(d+4))`` with ``s`` the mean standard
        deviation of the encoded columns, computed for each of the two tables.
    n_components : int, default 10
        Mixture components for ``"gmm"``.
    confidence : float, default 0.95
        Level of the bootstrap interval (members and non-members resampled separately).
    random_state : int, numpy.random.Generator or None
        Seed of the mixture fits and the bootstrap.

    Returns
    -------
    DensityAttack
        ``value`` the AUC with its interval, baseline 0.5; per record ``score`` and
        ``is_member`` (training records first).

    Examples
    --------
    >>> import pandas as pd
    >>> members = pd.DataFrame({"x": [0.0, 10.0]})
    >>> others = pd.DataFrame({"x": [5.0, 5.5]})
    >>> reference = pd.DataFrame({"x": [0.0, 2.5, 5.0, 7.5, 10.0]})
    >>> result = density_attack(train=members, holdout=others, synthetic=members,
    ...                         reference=reference, bandwidth=0.05, random_state=0)
    >>> result.value
    1.0
    """
    confidence = check_confidence(confidence)
    tables = {"train": train, "holdout": holdout, "synthetic": synthetic, "reference": reference}
    _check_tables(tables)
    n_components = int(n_components)
    rng = np.random.default_rng(random_state)
    columns = list(train.columns)
    tables = {name: t[columns] for name, t in tables.items()}
    encoder = TableEncoder().fit(*tables.values(), names=list(tables))
    embedded = {name: _embedding(encoder, t, name) for name, t in tables.items()}
    queries = np.vstack([embedded["train"], embedded["holdout"]])
    log_synthetic = _log_density(embedded["synthetic"], queries, estimator, bandwidth, n_components, rng)
    log_reference = _log_density(embedded["reference"], queries, estimator, bandwidth, n_components, rng)
    with np.errstate(invalid="ignore"):
        score = log_synthetic - log_reference
    is_member = np.r_[np.ones(len(train), dtype=bool), np.zeros(len(holdout), dtype=bool)]
    # far from every record both densities can underflow to 0: the ratio says nothing (score 0);
    # one underflowing alone gives an infinite score, which still ranks right
    score = np.where(np.isnan(score), 0.0, score)
    auc, low, high = _auc_with_interval([score[~is_member], score[is_member]], rng, confidence)
    result = DensityAttack(
        measure="density_attack_auc",
        value=auc,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        baseline=0.5,
        estimator=estimator,
        n_train=len(train),
        n_holdout=len(holdout),
        score=score,
        is_member=is_member,
    )
    return result
