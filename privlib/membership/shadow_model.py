"""The targeted shadow-model attack: does the release tell whether one chosen record was in the
training data?

The distance measures of :mod:`privlib.membership` average over all records. A generator can
pass them and still give away whether one particular person, typically an outlier, was in its
training data. This attack looks for that directly.

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
likely effect, makes the AUC vary less than the test assumes, so the test conservative. Stadler et al. report
and judge the attack per target, so the verdict does too:
Holm's step-down adjustment over the targets (:func:`privlib.records.family_tests`), and the
finding is the worst target, the one with the smallest adjusted p-value, whose AUC is the headline;
the mean AUC over targets is context. By default the targets are the most isolated training
records: those with the largest Gower distance to their nearest other training record, the records
Stadler et al. found most exposed.

References
----------
Stadler T, Oprisanu B, Troncoso C. Synthetic data - anonymisation groundhog day. USENIX Security
2022 (shadow-model attack, Section 4; feature sets naive, histogram, correlation).

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

import logging
import math
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import RandomForestClassifier

from privlib.declaration import Context, MeasureSpec, Reference
from privlib.errors import DataError, ParameterError
from privlib.membership.rank_sums import _auc_with_interval, _chance_auc, rank_sum_p_value
from privlib.membership.targeted_setup import (
    _check_tables,
    _Features,
    _shadow_features,
    outlier_targets,
    resolve_synthesizer,
)
from privlib.neighbors import nearest_distances
from privlib.records import family_tests
from privlib.results import Result, per_record
from privlib.rules import LOW_FPRS, exact_share_rule, low_fpr_key, low_fpr_rule
from privlib.schema import harmonize
from privlib.uncertainty import BOOTSTRAP, check_confidence
from privlib.validation import (
    CONFIDENCE,
    HasMethods,
    Instance,
    Integer,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = [
    "KEY",
    "LOW_FPR_ATTACK",
    "FEATURE_SETS",
    "MAX_TEST_PAIRS",
    "ShadowModelAttack",
    "shadow_model_attack",
    "SHADOW_MODEL_AUC",
    "SHADOW_MODEL_LOW_FPR",
]

logger = logging.getLogger(__name__)


#: The key of its results (``Result.measure``) and of its declaration.
KEY = "shadow_model_auc"

#: The attack's name in the keys of its readings at low false-positive rates.
LOW_FPR_ATTACK = "shadow_model"


#: The feature sets of Stadler et al. (2022) that the shadow-model attack can use.
FEATURE_SETS = ("naive", "histogram", "correlation")


#: Most fresh shadow pairs per target: the exact null distribution of a target's rank sum is
#: counted in about ``4 n_test**4`` steps (about 0.1 s at 50), and each pair costs two
#: fits of the generator.
MAX_TEST_PAIRS = 50


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
    #: The module of the refitted generator's class (``privlib.synth...`` for the kit's own).
    synthesizer_module: str = ""
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

    def refitted(self) -> str:
        """The generator the attack refits, said so: the audit has only the release's files, so
        its own generator is never refitted; the kit's stands in for it unless one is given."""
        if self.synthesizer_module.startswith("privlib."):
            return (
                f"the kit's {self.synthesizer} generator (a stand-in: not the generator that made "
                "the release, unless that is the kit's too)"
            )
        return f"the generator given, {self.synthesizer_module}.{self.synthesizer}"

    def reading(self) -> str:
        deciding = int(np.flatnonzero(self.target_index == self.deciding_row)[0])
        level = 1 - self.confidence
        at_risk = (
            f"significant after the adjustment: training row(s) {', '.join(map(str, self.rows_at_risk))}"
            if self.rows_at_risk
            else "none is significant after the adjustment"
        )
        return self.with_judgement(
            f"Refitting {self.refitted()} on shadow data with and without each of "
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
        "target_rows": [
            Instance(list, tuple, np.ndarray, pd.Index, description="a list of row positions"),
            None,
        ],
    },
    renamed={"targets": "target_rows"},
)
def shadow_model_attack(
    *,
    synthesizer,
    train,
    population,
    target_rows=None,
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
    target_rows : sequence of int, optional
        Row positions in ``train`` of the targets. Default: the ``n_targets`` most isolated
        records (:func:`outlier_targets`).
    n_targets : int, default 5
        Number of targets when ``target_rows`` is not given.
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
    target_index, target_distance = _chosen_targets(train, target_rows, n_targets)
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
        score_out, score_in = _fresh_scores(
            train.iloc[[int(index)]],
            population=population,
            template=template,
            featurizer=featurizer,
            features=features,
            shadow_size=shadow_size,
            n_synthetic=n_synthetic,
            n_shadows=n_shadows,
            n_test=n_test,
            n_jobs=n_jobs,
            rng=rng,
        )
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
        synthesizer_module=type(template).__module__,
        features=features,
        n_shadows=n_shadows,
        n_test=n_test,
    )


def _chosen_targets(train: pd.DataFrame, targets, n_targets: int) -> tuple[np.ndarray, np.ndarray]:
    """The targets' row positions in ``train`` (the most isolated records unless ``target_rows`` names
    them) and each one's Gower distance to its nearest other training record."""
    if targets is None:
        return outlier_targets(train=train, n_targets=n_targets)
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
            f"`target_rows` must be distinct row positions in `train` (0 to {len(train) - 1})."
        )
    return target_index, nearest_distances(train, train, exclude_self=True)[target_index]


def _fresh_scores(
    target: pd.DataFrame,
    *,
    population,
    template,
    featurizer,
    features,
    shadow_size,
    n_synthetic,
    n_shadows,
    n_test,
    n_jobs,
    rng,
) -> tuple[np.ndarray, np.ndarray]:
    """One target's attack: ``n_shadows + n_test`` shadow pairs without and with it, a forest
    trained on the first ``n_shadows``, and its scores of the fresh pairs (without, with)."""
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
    return classifier.predict_proba(x_out[n_shadows:])[:, 1], classifier.predict_proba(x_in[n_shadows:])[:, 1]


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
        measure=KEY,
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


def _population(context: Context) -> pd.DataFrame:
    """Training and holdout records as one table (shared categories): the real records the
    targeted attack draws its shadow training sets from."""
    assert context.holdout is not None  # the measure needs a holdout
    both = harmonize({"train": context.train, "holdout": context.holdout})
    return pd.concat([both["train"], both["holdout"]], ignore_index=True)


SHADOW_MODEL_AUC = MeasureSpec(
    KEY,
    "Shadow-model attack on chosen records (worst target's AUC)",
    "membership",
    exact_share_rule(
        source="kit default: risk when the worst target's exact one-sided Mann-Whitney test of "
        "its AUC (Mann & Whitney 1947), after Holm's step-down adjustment over the targets (Holm "
        "1979, Scand. J. Statist. 6(2)), finds the classifier telling the tables made with the "
        "target from those made without it at the audit's confidence, no margin, since a target "
        "told apart is a person whose membership the release gives away; judging each target and "
        "reporting the worst follows Stadler, Oprisanu & Troncoso, 'Synthetic data - anonymisation "
        "groundhog day', USENIX Security 2022, who find outliers exposed where averages are not",
        scope="asks, for a few chosen target records (outliers by default), whether the "
        "generator's output changes when that one record is in its training data; a worst "
        "case for those records, not an average over all",
        risk_words="the release tells whether a target record was in the training data, beyond "
        "chance even after correcting for trying several targets",
        safe_words="the attack tells no target's membership better than chance allows, after "
        "correcting for trying several targets",
    ),
    Reference("privlib.membership:shadow_model_attack"),
    lambda c: {
        "synthesizer": c.settings["targeted_attack"],
        "train": c.train,
        "population": _population(c),
        "n_targets": 5,
        "n_shadows": 40,
        "n_test": 20,
        "n_jobs": 2,
        "random_state": c.settings["seed"],
    },
    needs=("holdout", "targeted_attack"),
    # per target: its row number in the training file, its distance to its nearest record, its
    # AUC and p-values, never the record
    table=lambda r: r.per_target(),
    at_risk=lambda r: (
        len(r.rows_at_risk),
        "target records whose membership the shadow-model attack tells after Holm's adjustment "
        "over the targets"
        + (f": training rows {', '.join(map(str, r.rows_at_risk))} (0-based)" if r.rows_at_risk else ""),
    ),
)

#: The attack read at false-positive rates of 0.1% and 1% (:func:`privlib.records.tpr_at_low_fpr`);
#: the audit does not run it.
SHADOW_MODEL_LOW_FPR = tuple(
    MeasureSpec(
        low_fpr_key(LOW_FPR_ATTACK, rate),
        f"Shadow-model attack at a false-positive rate of {100 * rate:g}% (TPR)",
        "membership",
        low_fpr_rule("shadow-model", f"{100 * rate:g}%"),
    )
    for rate in LOW_FPRS
)
