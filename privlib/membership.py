"""Membership disclosure: can an adversary tell that a person was in the training data?

Two families of measures live here.

*Hamming-threshold attacks* (El Emam, Mosquera & Fang 2022). An adversary holds an attack set of
real records and calls a record a member when some synthetic record lies within Hamming distance
``h`` of it (numeric variables binned first). :func:`ground_truth_risk` runs the attack when the
whole population is at hand; :func:`partition_risk` is the practical stand-in that only needs the
real data split into a training part and a holdout. :func:`naive_f1`, :func:`relative_risk` and
:func:`risk_utility_loss` turn the attack's F1 into the relative risk M and a tuning loss.

*Distance attacks* (Yale et al. 2019; the Clearbox AI tutorial), all on Gower distance:
:func:`dcr_holdout_share`, :func:`threshold_attack`, :func:`nn_mia`, :func:`adversarial_accuracy`,
:func:`privacy_loss`, and the classifier-based :func:`discriminator_test`.

Where a measure is random (attack sets drawn, tables subsampled to equal sizes, a classifier
fitted), ``n_repeats`` repeats it with one seeded generator; the result holds the mean as its value
and the 2.5 % and 97.5 % quantiles over the repetitions as ``low`` and ``high`` (the spread of one
run, not a confidence interval for the mean).

References
----------
El Emam K, Mosquera L, Fang X. Validating a membership disclosure metric for synthetic health
data. JAMIA Open 5(4), 2022. doi:10.1093/jamiaopen/ooac083

Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of synthetic
health data. AIDR 2019. doi:10.1145/3359115.3359124
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import RandomForestClassifier
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder

from privlib.errors import PrivlibError
from privlib.neighbors import kneighbors, nearest_distances
from privlib.results import Result, per_record, verdict_for
from privlib.schema import NUMERIC, TableEncoder, check_comparable, check_frame, infer_kinds, numeric_values

__all__ = [
    "M_THRESHOLD", "DEFAULT_ATTACK_SIZE",
    "naive_f1", "relative_risk", "risk_utility_loss", "ground_truth_risk", "partition_risk",
    "dcr_holdout_share", "threshold_attack", "nn_mia", "adversarial_accuracy", "privacy_loss",
    "discriminator_test",
    "MembershipRisk", "DcrHoldoutShare", "ThresholdAttack", "NNMia", "AdversarialAccuracy",
    "PrivacyLoss", "DiscriminatorTest",
    "shadow_model_attack", "density_attack",
]

#: Relative risk above which El Emam et al. (2022) judge membership disclosure unacceptable.
M_THRESHOLD = 0.2

#: Attack-set size of El Emam et al.'s simulations.
DEFAULT_ATTACK_SIZE = 1000

#: A Hamming attack that calls at least this share of its attack set members cannot tell members
#: from non-members (its F1 is the naive F1 whatever the generator did): its M is no evidence of
#: safety, so it gets no verdict. A kit choice, stated in the reading.
BLIND_SHARE = 0.95

_MISSING_LABEL = "<missing>"


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class _Repeated(Result):
    """A result averaged over seeded repetitions; ``low``/``high`` are the 2.5 %/97.5 % quantiles."""

    n_repeats: int = 1
    low: float | None = None
    high: float | None = None
    repeats: np.ndarray = per_record(default=None)

    def _spread_text(self) -> str:
        if self.n_repeats < 2:
            return ""
        return (
            f" (mean of {self.n_repeats} repetitions, 95% of them between {self.low:.3f} and "
            f"{self.high:.3f})"
        )


@dataclass(frozen=True, kw_only=True)
class MembershipRisk(_Repeated):
    """Outcome of a Hamming-threshold membership attack (:func:`ground_truth_risk`, :func:`partition_risk`).

    ``value`` is the F1 (mean over repetitions); ``baseline`` the F1 of an adversary who calls
    every record of this attack set a member (:func:`naive_f1` of its member share ``t``);
    ``threshold``, when the population size is known, is the F1 at which the relative risk M
    reaches 0.2, so the verdict is exactly "M <= 0.2". ``called_share`` is the mean share of the
    attack set called a member; at :data:`BLIND_SHARE` or above the attack is blind at this ``h``
    (a large h on data with many variables puts everyone near some synthetic record) and the
    verdict is left out.
    """

    f1: float
    called_share: float
    precision: float
    recall: float
    m: float | None = None
    t: float
    attack_size: int
    h: int
    n: int
    population_size: int | None = None
    precisions: np.ndarray = per_record(default=None)
    recalls: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        text = (
            f"Calling a record a member when a synthetic record lies within Hamming distance {self.h} "
            f"of it gives F1 = {self.f1:.3f}{self._spread_text()} (precision {self.precision:.3f}, "
            f"recall {self.recall:.3f}) on attack sets of {self.attack_size} records with "
            f"{self.t:.1%} members, against {self.baseline:.3f} for calling everyone a member"
        )
        if self.called_share >= BLIND_SHARE:
            return text + (
                f". The attack calls {self.called_share:.0%} of the attack set members: at h = "
                f"{self.h} nearly everyone has a synthetic record that close, so it cannot tell "
                "members from non-members and its F1 and M say nothing about the generator. "
                "Run it again with a smaller h, and read the distance-based attacks."
            )
        if self.m is None:
            return text + "; without the population size the relative risk M cannot be computed."
        judged = "acceptable" if self.m <= M_THRESHOLD else "not acceptable"
        return (
            text + f"; the relative risk M = {self.m:.3f} is {judged} against the "
            f"{M_THRESHOLD} threshold."
        )


@dataclass(frozen=True, kw_only=True)
class DcrHoldoutShare(Result):
    """Share of synthetic records closer to training than to holdout (:func:`dcr_holdout_share`)."""

    ties: float
    n_synthetic: int
    n_reference: int
    dcr_train: np.ndarray = per_record(default=None)
    dcr_holdout: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        excess = self.value - self.baseline
        # a generator that never saw the training data puts each record on either side by a coin
        # toss, so the share's standard error is about sqrt(0.25 / n) (ties only shrink it)
        error = math.sqrt(0.25 / self.n_synthetic)
        if excess > max(0.05, 3 * error):
            meaning = "well above"
        elif excess > 2 * error:
            meaning = "above"
        else:
            meaning = "within chance of or below"
        meaning += " the 50% expected when the generator has not memorised its training data"
        return (
            f"{self.value:.1%} of the {self.n_synthetic} synthetic records are closer to a training "
            f"record than to a holdout record (ties counted half, {self.ties:.1%} of records tied), "
            f"{meaning}."
        )


@dataclass(frozen=True, kw_only=True)
class ThresholdAttack(Result):
    """Precision of the distance-threshold attack over thresholds (:func:`threshold_attack`).

    ``value`` is the precision of the adversary who calls the closer half of the attack set
    members (threshold = median DCR); ``max_precision`` the best over the thresholds tried that
    call at least 1 % of the attack set members.
    """

    max_precision: float
    best_threshold: float
    n_attack: int
    thresholds: np.ndarray = per_record(default=None)
    precision: np.ndarray = per_record(default=None)
    recall: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return (
            f"Calling the closer half of {self.n_attack} records (half training, half holdout) "
            f"members is right {self.value:.1%} of the time, and the best threshold tried reaches "
            f"{self.max_precision:.1%} (threshold {self.best_threshold:.3g}), against "
            f"{self.baseline:.0%} for guessing."
        )


@dataclass(frozen=True, kw_only=True)
class NNMia(Result):
    """Nearest-neighbour membership inference attack (:func:`nn_mia`): ``auc`` and the ROC points."""

    auc: float
    n_train: int
    n_holdout: int
    fpr: np.ndarray = per_record(default=None)
    tpr: np.ndarray = per_record(default=None)
    dcr: np.ndarray = per_record(default=None)
    is_member: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        if self.auc >= 0.9:
            meaning = "nearly every training record is exposed"
        elif self.auc >= 0.6:
            meaning = "the synthetic data leaks who was in the training data"
        else:
            meaning = "the adversary does little better than a coin toss"
        return (
            f"Ranking records by their distance to the nearest synthetic record separates training "
            f"from holdout records with AUC = {self.auc:.3f} (0.5 is guessing, 1.0 full exposure): "
            f"{meaning}."
        )


@dataclass(frozen=True, kw_only=True)
class AdversarialAccuracy(_Repeated):
    """Nearest-neighbour adversarial accuracy AA_TS (:func:`adversarial_accuracy`)."""

    aa_target: float
    aa_synthetic: float
    ties: float
    n: int

    def reading(self) -> str:
        if self.value < 0.4:
            meaning = (
                "synthetic records sit closer to real ones than real records to each other, as "
                "copies do"
            )
        elif self.value > 0.6:
            meaning = "synthetic records lie far from the real ones, which costs utility rather than privacy"
        else:
            meaning = "real and synthetic records are hard to tell apart by their nearest neighbours"
        if self.ties > 0.2:
            meaning += (
                f"; but {self.ties:.0%} of the comparisons are ties, which the strict '>' counts "
                "as 'synthetic as close', so part of the gap below 0.5 comes from repeated values"
            )
        return (
            f"The nearest-neighbour adversarial accuracy on {self.n} records per table is "
            f"{self.value:.3f}{self._spread_text()} against {self.baseline} for indistinguishable "
            f"tables: {meaning}."
        )


@dataclass(frozen=True, kw_only=True)
class PrivacyLoss(_Repeated):
    """Privacy loss AA(test) - AA(train) of Yale et al. (2019) (:func:`privacy_loss`)."""

    aa_train: float
    aa_test: float

    def reading(self) -> str:
        if self.value > 0.1:
            meaning = "the synthetic data sits much closer to its training records than to unseen ones"
        elif self.value > 0.03:
            meaning = "the synthetic data sits somewhat closer to its training records than to unseen ones"
        else:
            meaning = "the synthetic data is no closer to its training records than to unseen ones"
        return (
            f"The privacy loss is {self.value:.3f}{self._spread_text()} (adversarial accuracy "
            f"{self.aa_test:.3f} on test records minus {self.aa_train:.3f} on training records; 0 is "
            f"ideal, 0.5 is a copy): {meaning}."
        )


@dataclass(frozen=True, kw_only=True)
class DiscriminatorTest(_Repeated):
    """Discriminator test (:func:`discriminator_test`).

    ``value`` is the mean "real" probability of unseen synthetic records minus that of holdout
    records: above 0 the classifier finds synthetic records more real than genuine unseen ones.
    ``auc`` is how well the "real" probability separates holdout (positive) from synthetic records.
    The reading calls a difference above 0.02 (and, with repetitions, a spread entirely above 0)
    a sign of over-fitting; the margin is a teaching choice, not a published threshold.
    """

    real_holdout: float
    real_synthetic: float
    auc: float

    def reading(self) -> str:
        # over-fitting is claimed only beyond a small margin and, with repetitions, when even the
        # low end of the spread is above 0
        if self.value > 0.02 and (self.n_repeats < 2 or self.low > 0):
            meaning = (
                "the synthetic records look more real than genuine unseen records, a sign that "
                "the generator over-fitted its training data"
            )
        elif self.auc > 0.6:
            meaning = (
                "the classifier recognises synthetic records as synthetic, a matter of fidelity "
                "rather than of membership"
            )
        else:
            meaning = "the classifier cannot tell synthetic from unseen real records"
        return (
            f"A classifier trained to tell training from synthetic records gives unseen synthetic "
            f"records a mean 'real' probability of {self.real_synthetic:.3f} and holdout records "
            f"{self.real_holdout:.3f} (difference {self.value:+.3f}{self._spread_text()}, AUC "
            f"{self.auc:.3f}): {meaning}."
        )


# --------------------------------------------------------------------------------------------
# Validation and shared steps
# --------------------------------------------------------------------------------------------
def _check_integer(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise PrivlibError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _check_share(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= value <= 1:
        raise PrivlibError(f"`{name}` must be a number between 0 and 1, got {value!r}.")
    return float(value)


def _check_h(h) -> int:
    return _check_integer(h, "h", minimum=0)


def _check_tables(**tables) -> dict:
    """Check every table and that each has the first one's columns and column types.

    Categories absent from the first table are allowed: a distance simply counts them as
    different, and a holdout may well hold a rare category the training data lacks.
    """
    (first_name, first), *rest = tables.items()
    check_frame(first, first_name)
    for name, table in rest:
        check_frame(table, name)
        check_comparable(first, table, (first_name, name), unseen="ignore")
    return tables


def _spread(values) -> tuple[float, float, float]:
    """Mean and the 2.5 %/97.5 % quantiles of repetition values (NaN values ignored)."""
    values = np.asarray(values, dtype="float64")
    if np.isnan(values).all():
        return math.nan, math.nan, math.nan
    low, high = np.nanquantile(values, [0.025, 0.975])
    return float(np.nanmean(values)), float(low), float(high)


def _subsample(table: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``size`` rows of ``table`` drawn without replacement (the table itself when it has that many)."""
    if len(table) == size:
        return table
    return table.iloc[np.sort(rng.choice(len(table), size, replace=False))]


def _prf(truth: np.ndarray, predicted: np.ndarray) -> tuple[float, float, float]:
    """Precision, recall and F1 of boolean predictions; 0 where a ratio would divide by zero.

    An adversary who calls nobody a member has precision 0 here (sklearn's ``zero_division=0``
    convention), and an attack set without members gives recall 0: both mean "nothing learned",
    and they keep the mean over repetitions defined.
    """
    hits = np.count_nonzero(truth & predicted)
    called, members = np.count_nonzero(predicted), np.count_nonzero(truth)
    precision = hits / called if called else 0.0
    recall = hits / members if members else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def _hamming_attack(
    pools, draws, synthetic, encoder, h, *, t, n, population_size, measure
) -> MembershipRisk:
    """Run the Hamming-threshold attack on each drawn attack set and summarise the repetitions.

    ``pools`` is a list of ``(table, is_member)``; ``draws`` a list of attack sets, each an array
    of positions into the tables of ``pools`` stacked in order. The distance from a record to the
    synthetic data does not depend on the draw, so it is computed once per record drawn at all.
    """
    sizes = [len(table) for table, _ in pools]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    distance = np.full(offsets[-1], np.nan)
    drawn = np.unique(np.concatenate(draws))
    for (table, _), start, stop in zip(pools, offsets[:-1], offsets[1:]):
        mine = drawn[(drawn >= start) & (drawn < stop)]
        if mine.size:
            distance[mine] = nearest_distances(
                table.iloc[mine - start], synthetic, metric="hamming", encoder=encoder
            )
    is_member = np.concatenate([np.asarray(member, dtype=bool) for _, member in pools])
    scores = np.array([_prf(is_member[d], distance[d] <= h) for d in draws])
    precision, recall, f1 = (_spread(scores[:, j]) for j in range(3))
    called_share = float(np.mean([np.mean(distance[d] <= h) for d in draws]))
    m = threshold = None
    if population_size is not None:
        m = relative_risk(f1[0], n, population_size)
        f_max = naive_f1(n / population_size)
        threshold = f_max + M_THRESHOLD * (1 - f_max)
    return MembershipRisk(
        measure=measure, value=f1[0], baseline=naive_f1(t), threshold=threshold,
        verdict=None if called_share >= BLIND_SHARE else verdict_for(f1[0], threshold),
        f1=f1[0], called_share=called_share, precision=precision[0],
        recall=recall[0], m=m, t=t, attack_size=len(draws[0]), h=h, n=n,
        population_size=population_size, n_repeats=len(draws), low=f1[1], high=f1[2],
        repeats=scores[:, 2], precisions=scores[:, 0], recalls=scores[:, 1],
    )


# --------------------------------------------------------------------------------------------
# Relative risk
# --------------------------------------------------------------------------------------------
def naive_f1(t):
    """F1 of an adversary who calls every record of the attack set a member, F_max = 2t / (1 + t).

    Parameters
    ----------
    t : float or array-like of float
        Share of members in the attack set, between 0 and 1 (``n / N`` when the attack set is drawn
        from the population).

    Returns
    -------
    float or numpy.ndarray
        Precision is ``t`` and recall 1, so F1 = 2t / (1 + t).

    Examples
    --------
    >>> naive_f1(0.5)
    0.6666666666666666
    """
    try:
        values = np.asarray(t, dtype="float64")
    except (TypeError, ValueError):
        values = np.array(np.nan)
    if isinstance(t, bool) or np.isnan(values).any() or (values < 0).any() or (values > 1).any():
        raise PrivlibError(f"`t` must hold shares between 0 and 1, got {t!r}.")
    out = 2 * values / (1 + values)
    return float(out) if out.ndim == 0 else out


def relative_risk(f1, n, N):
    """Relative membership risk M = (F1 - F_max) / (1 - F_max), F_max = :func:`naive_f1` (n / N).

    Parameters
    ----------
    f1 : float
        F1 of the membership attack, between 0 and 1.
    n : int
        Number of records the generator was trained on.
    N : int
        Size of the population they were drawn from; must exceed ``n``.

    Returns
    -------
    float
        M: 0 when the attack does as well as calling everyone a member, 1 for a perfect attack,
        below 0 when it does worse than that naive guess. El Emam et al. (2022) accept M <= 0.2.

    Raises
    ------
    PrivlibError
        If ``n > N`` (a population smaller than its sample) or ``n == N`` (then F_max = 1 and M is
        undefined: every possible target is a member).

    Examples
    --------
    >>> round(relative_risk(0.5, 1000, 3000), 4)  # F_max = 0.5
    0.0
    """
    f1 = _check_share(f1, "f1")
    n = _check_integer(n, "n")
    N = _check_integer(N, "N")
    if n > N:
        raise PrivlibError(
            f"the training data (n = {n}) cannot be larger than the population it was drawn from "
            f"(N = {N}); pass the population size as `N`."
        )
    if n == N:
        raise PrivlibError(
            f"M is undefined when the training data is the whole population (n = N = {N}): every "
            "target is a member, so membership reveals nothing; pass the size of the larger "
            "population the data represents as `N`."
        )
    f_max = naive_f1(n / N)
    return (f1 - f_max) / (1 - f_max)


def risk_utility_loss(m, utility):
    """Loss for tuning a generator: -max([M > 0.2] (0.31 + 1 / (1 + e^(M - 1))), [M <= 0.2]) * U.

    Lower is better. Up to M = 0.2 the loss is -U, so only utility counts; above it the utility is
    discounted by a factor that falls smoothly from 1 (at M = 0.2) to 0.81 (at M = 1).

    Parameters
    ----------
    m : float or array-like of float
        Relative risk M (at most 1).
    utility : float or array-like of float
        Utility score U between 0 and 1 (broadcast against ``m``).

    Returns
    -------
    float or numpy.ndarray

    Notes
    -----
    The published constant 0.31 makes the two branches meet only approximately: at M = 0.2 the
    upper branch is 0.31 + 1 / (1 + e^-0.8) = 0.999971..., so the loss jumps by less than 3e-5 * U
    there. We keep the formula as published.

    Examples
    --------
    >>> risk_utility_loss(0.1, 0.8)
    -0.8
    """
    m_values = np.asarray(m, dtype="float64")
    u_values = np.asarray(utility, dtype="float64")
    if not np.isfinite(m_values).all() or (m_values > 1).any():
        raise PrivlibError(f"`m` must be a relative risk of at most 1, got {m!r}.")
    if not np.isfinite(u_values).all() or (u_values < 0).any() or (u_values > 1).any():
        raise PrivlibError(f"`utility` must be a score between 0 and 1, got {utility!r}.")
    factor = np.where(m_values > M_THRESHOLD, 0.31 + 1 / (1 + np.exp(m_values - 1)), 1.0)
    out = -factor * u_values
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------
# Hamming-threshold attacks
# --------------------------------------------------------------------------------------------
def ground_truth_risk(
    population, members, synthetic, attack_size=None, h=5, random_state=None, *, n_bins=20, n_repeats=1
) -> MembershipRisk:
    """Membership attack with the whole population at hand (El Emam, Mosquera & Fang 2022).

    Each repetition draws an attack set of ``attack_size`` records from the population, without
    replacement and independently of who is a member; a record is called a member when its
    Hamming distance to the nearest synthetic record is at most ``h``.

    Parameters
    ----------
    population : pandas.DataFrame
        The population P (N rows) the training data was drawn from.
    members : array-like of bool or of int
        Who is in the training data, which is how the truth is known: a boolean mask with one
        entry per population row, or the row positions (0-based, as in ``population.iloc``) of
        the training records.
    synthetic : pandas.DataFrame
        The released synthetic data, with the population's columns.
    attack_size : int, optional
        Records per attack set; default 1000 (as in the paper), or N when the population is smaller.
    h : int, default 5
        Hamming threshold: number of variables that may differ.
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    n_bins : int, default 20
        Equal-width bins per numeric (or date) variable, with edges taken from the population.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions; precision is 0 for an attack
        set where nobody is called a member), ``.m`` the relative risk with n = number of members,
        ``.low``/``.high`` the spread of F1 over repetitions.
    """
    _check_tables(population=population, synthetic=synthetic)
    size = len(population)
    is_member = _member_mask(members, size)
    n = int(is_member.sum())
    if n == size:
        raise PrivlibError(
            "`members` covers every row of `population`, so membership reveals nothing and the "
            "relative risk is undefined; pass the larger population the training data came from."
        )
    h = _check_h(h)
    n_repeats = _check_integer(n_repeats, "n_repeats")
    if attack_size is None:
        attack_size = min(DEFAULT_ATTACK_SIZE, size)
    attack_size = _check_integer(attack_size, "attack_size")
    if attack_size > size:
        raise PrivlibError(
            f"`attack_size` = {attack_size} exceeds the population's {size} rows; ask for fewer."
        )
    encoder = TableEncoder(metric="hamming", n_bins=_check_integer(n_bins, "n_bins")).fit(
        population, names=["population"]
    )
    rng = np.random.default_rng(random_state)
    draws = [rng.choice(size, attack_size, replace=False) for _ in range(n_repeats)]
    return _hamming_attack(
        [(population, is_member)], draws, synthetic, encoder, h, t=n / size, n=n,
        population_size=size, measure="ground_truth_f1",
    )


def _member_mask(members, size: int) -> np.ndarray:
    try:
        values = np.asarray(members)
    except Exception:  # noqa: BLE001 - anything that is not array-like
        values = np.array(None)
    if values.ndim != 1 or values.size == 0:
        raise PrivlibError(
            "`members` must be a non-empty boolean mask over the population's rows or a list of "
            "row positions."
        )
    if values.dtype == bool:
        if values.size != size:
            raise PrivlibError(
                f"`members` is a boolean mask of length {values.size}, but `population` has "
                f"{size} rows; give one entry per population row."
            )
        if not values.any():
            raise PrivlibError("`members` marks no population row as a member; mark the training rows.")
        return values
    if values.dtype.kind not in "iu":
        raise PrivlibError(
            f"`members` must be booleans or integer row positions, got values of type {values.dtype}."
        )
    if values.min() < 0 or values.max() >= size:
        raise PrivlibError(
            f"`members` holds positions outside 0..{size - 1}; give 0-based row positions into "
            "`population` (as for .iloc), not index labels."
        )
    if np.unique(values).size != values.size:
        raise PrivlibError("`members` lists some row positions more than once; list each member once.")
    mask = np.zeros(size, dtype=bool)
    mask[values] = True
    return mask


def _partition_attack_size(attack_size, t, n_train, n_holdout) -> tuple[int, int]:
    """Attack-set size and how many of its records come from training, checked for feasibility."""
    if attack_size is None:
        limits = [DEFAULT_ATTACK_SIZE]
        if t > 0:
            limits.append(math.floor(n_train / t))
        if t < 1:
            limits.append(math.floor(n_holdout / (1 - t)))
        attack_size = min(limits)
        # rounding t * m can ask for one record too many from one side
        while attack_size > 1 and (
            round(t * attack_size) > n_train or attack_size - round(t * attack_size) > n_holdout
        ):
            attack_size -= 1
    else:
        attack_size = _check_integer(attack_size, "attack_size")
    from_train = round(t * attack_size)
    if from_train > n_train or attack_size - from_train > n_holdout:
        raise PrivlibError(
            f"an attack set of {attack_size} records with a share t = {t:.4g} from training needs "
            f"{from_train} training and {attack_size - from_train} holdout records, but `train` has "
            f"{n_train} and `holdout` {n_holdout}; pass a smaller `attack_size`."
        )
    if attack_size < 1:
        raise PrivlibError("the tables are too small to build an attack set; pass larger tables.")
    return attack_size, from_train


def partition_risk(
    train, holdout, synthetic, t=None, attack_size=None, h=5, random_state=None, *,
    population_size=None, n_repeats=1, n_bins=20,
) -> MembershipRisk:
    """Membership attack by the partitioning method (El Emam, Mosquera & Fang 2022).

    The generator was trained on ``train``; ``holdout`` holds real records from the same
    population that it never saw. Each repetition builds an attack set of ``attack_size`` records,
    ``round(t * attack_size)`` drawn from ``train`` and the rest from ``holdout`` (both without
    replacement), and calls a record a member when a synthetic record lies within Hamming
    distance ``h`` of it.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data (n rows), holdout and synthetic data, with the same columns.
    t : float, optional
        Share of the attack set drawn from training. Defaults to n / N when ``population_size``
        is given, which is the choice that reproduces the ground-truth F1; t = 0.5, common in the
        literature, overstates the risk when n is small next to N.
    attack_size : int, optional
        Records per attack set; default 1000 (as in the paper) or as many as the tables allow.
    h : int, default 5
        Hamming threshold.
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    population_size : int, optional
        N, the size of the population the training data stands for; enables ``.m``.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).
    n_bins : int, default 20
        Equal-width bins per numeric variable, with edges taken from training and holdout together
        (the real data at hand standing in for the population).

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions; precision 0 when nobody is
        called a member), ``.low``/``.high`` the F1 spread, and ``.m`` with its verdict against
        0.2 when ``population_size`` is given.

    Raises
    ------
    PrivlibError
        If neither ``t`` nor ``population_size`` is given, if ``population_size`` is not larger
        than ``len(train)``, or if the tables cannot supply the requested attack set.
    """
    _check_tables(train=train, holdout=holdout, synthetic=synthetic)
    n = len(train)
    if population_size is not None:
        population_size = _check_integer(population_size, "population_size")
        if population_size <= n:
            raise PrivlibError(
                f"`population_size` (N = {population_size}) must be larger than the training data "
                f"(n = {n}); M is undefined when n = N and impossible when n > N."
            )
    if t is None:
        if population_size is None:
            raise PrivlibError(
                "pass `t`, the share of the attack set drawn from training, or `population_size` "
                "so that t defaults to n / N (the choice that matches the ground truth)."
            )
        t = n / population_size
    t = _check_share(t, "t")
    h = _check_h(h)
    n_repeats = _check_integer(n_repeats, "n_repeats")
    attack_size, from_train = _partition_attack_size(attack_size, t, n, len(holdout))
    encoder = TableEncoder(metric="hamming", n_bins=_check_integer(n_bins, "n_bins")).fit(
        train, holdout, names=["train", "holdout"]
    )
    rng = np.random.default_rng(random_state)
    draws = [
        np.concatenate([
            rng.choice(n, from_train, replace=False),
            n + rng.choice(len(holdout), attack_size - from_train, replace=False),
        ])
        for _ in range(n_repeats)
    ]
    pools = [(train, np.ones(n, dtype=bool)), (holdout, np.zeros(len(holdout), dtype=bool))]
    return _hamming_attack(
        pools, draws, synthetic, encoder, h, t=t, n=n, population_size=population_size,
        measure="partition_f1",
    )


# --------------------------------------------------------------------------------------------
# Distance attacks (Gower)
# --------------------------------------------------------------------------------------------
def _equal_sizes(train, holdout, rng):
    """Subsample the larger of training and holdout to the size of the smaller."""
    size = min(len(train), len(holdout))
    return _subsample(train, size, rng), _subsample(holdout, size, rng)


def _gower_setup(train, holdout, synthetic, rng=None):
    """A Gower encoder fitted on the three tables, and training and holdout data to compare.

    With ``rng`` the larger of training and holdout is subsampled to the smaller's size.
    """
    encoder = TableEncoder(metric="gower").fit(
        train, holdout, synthetic, names=["train", "holdout", "synthetic"]
    )
    if rng is not None:
        train, holdout = _equal_sizes(train, holdout, rng)
    return encoder, train, holdout


def dcr_holdout_share(synthetic, train, holdout, random_state=None) -> DcrHoldoutShare:
    """Share of synthetic records closer to a training record than to a holdout record.

    Distance to closest record (DCR) in Gower distance, with numeric ranges taken from training,
    holdout and synthetic data together. Training and holdout must count equally, so the larger
    of the two is subsampled (seeded) to the size of the smaller. A synthetic record exactly as
    close to both counts one half, so that a table of ties reads 0.5 like a fair coin.

    Parameters
    ----------
    synthetic, train, holdout : pandas.DataFrame
        The synthetic data, the generator's training data and real records it never saw.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling (unused when ``train`` and ``holdout`` have the same size).

    Returns
    -------
    DcrHoldoutShare
        ``value`` the share (baseline 0.5; well above it means memorisation), ``ties`` the share
        of tied records, per record ``dcr_train`` and ``dcr_holdout``.
    """
    _check_tables(train=train, holdout=holdout, synthetic=synthetic)
    encoder, train, holdout = _gower_setup(train, holdout, synthetic, np.random.default_rng(random_state))
    to_train = nearest_distances(synthetic, train, metric="gower", encoder=encoder)
    to_holdout = nearest_distances(synthetic, holdout, metric="gower", encoder=encoder)
    ties = float(np.mean(to_train == to_holdout))
    share = float(np.mean(to_train < to_holdout)) + 0.5 * ties
    return DcrHoldoutShare(
        measure="dcr_holdout_share", value=share, baseline=0.5, ties=ties,
        n_synthetic=len(synthetic), n_reference=len(train), dcr_train=to_train,
        dcr_holdout=to_holdout,
    )


def _attack_distances(train, holdout, synthetic, rng):
    """DCR to the synthetic data of each training and holdout record, and who is a member."""
    encoder, train, holdout = _gower_setup(train, holdout, synthetic, rng)
    dcr = np.concatenate([
        nearest_distances(train, synthetic, metric="gower", encoder=encoder),
        nearest_distances(holdout, synthetic, metric="gower", encoder=encoder),
    ])
    is_member = np.repeat([True, False], [len(train), len(holdout)])
    return dcr, is_member


def threshold_attack(train, holdout, synthetic, thresholds=None, random_state=None) -> ThresholdAttack:
    """Distance-threshold membership attack: precision over a range of thresholds.

    The adversary holds K, equally many training and holdout records (the larger table is
    subsampled, seeded), and calls a record a member when its Gower DCR to the synthetic data is
    at most the threshold (so a threshold of 0 catches exact copies). Guessing gives precision 0.5.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    thresholds : array-like of float, optional
        Gower distances to try (between 0 and 1). Default: 0 and the 2 %, 4 %, ..., 100 %
        quantiles of the attack set's DCRs, so the curve spans every share of records called.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling.

    Returns
    -------
    ThresholdAttack
        ``value`` the precision when the closer half is called (threshold = median DCR),
        ``max_precision`` over thresholds calling at least 1 % of K, per threshold ``precision``
        (NaN where nobody is called) and ``recall``.
    """
    _check_tables(train=train, holdout=holdout, synthetic=synthetic)
    dcr, is_member = _attack_distances(train, holdout, synthetic, np.random.default_rng(random_state))
    if thresholds is None:
        thresholds = np.unique(np.concatenate([[0.0], np.quantile(dcr, np.linspace(0.02, 1, 50))]))
    else:
        thresholds = np.asarray(thresholds, dtype="float64").ravel()
        if thresholds.size == 0 or not np.isfinite(thresholds).all() or (thresholds < 0).any():
            raise PrivlibError("`thresholds` must be a non-empty list of non-negative distances.")
        thresholds = np.sort(thresholds)
    called = dcr[None, :] <= thresholds[:, None]
    n_called = called.sum(axis=1)
    hits = (called & is_member[None, :]).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(n_called > 0, hits / n_called, np.nan)
    recall = hits / is_member.sum()
    enough = n_called >= max(1, math.ceil(0.01 * dcr.size))
    if enough.any():
        best = int(np.nanargmax(np.where(enough, precision, np.nan)))
    else:  # a handful of records: take the threshold that calls the most
        best = int(np.argmax(n_called))
    median_call = dcr <= np.median(dcr)
    return ThresholdAttack(
        measure="threshold_attack_precision", value=_prf(is_member, median_call)[0], baseline=0.5,
        max_precision=float(precision[best]), best_threshold=float(thresholds[best]),
        n_attack=dcr.size, thresholds=thresholds, precision=precision, recall=recall,
    )


def nn_mia(train, holdout, synthetic) -> NNMia:
    """Nearest-neighbour membership inference attack (Yale et al. 2019).

    Every training and holdout record is scored by minus its Gower distance to the nearest
    synthetic record (closer = more likely a member); the ROC curve and its area (AUC) say how
    well that score separates members from non-members. Numeric ranges come from the three tables
    together. Tables of unequal size are fine: AUC does not depend on the class balance.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.

    Returns
    -------
    NNMia
        ``.auc`` (baseline 0.5, 1.0 = every training record exposed), ROC points ``.fpr`` and
        ``.tpr``, per record ``.dcr`` and ``.is_member`` (training records first).
    """
    _check_tables(train=train, holdout=holdout, synthetic=synthetic)
    dcr, is_member = _attack_distances(train, holdout, synthetic, rng=None)
    fpr, tpr, _ = roc_curve(is_member, -dcr)
    auc = float(roc_auc_score(is_member, -dcr))
    return NNMia(
        measure="nn_mia_auc", value=auc, baseline=0.5, auc=auc, n_train=len(train),
        n_holdout=len(holdout), fpr=fpr, tpr=tpr, dcr=dcr, is_member=is_member,
    )


def _aa_once(target, synthetic, encoder) -> tuple[float, float, float]:
    """The two halves of AA_TS for tables of equal size, and the share of tied comparisons."""
    options = dict(metric="gower", encoder=encoder)
    d_ts = nearest_distances(target, synthetic, **options)
    d_st = nearest_distances(synthetic, target, **options)
    d_tt = kneighbors(target, target, k=1, exclude_self=True, **options).distances[:, 0]
    d_ss = kneighbors(synthetic, synthetic, k=1, exclude_self=True, **options).distances[:, 0]
    ties = (np.mean(d_ts == d_tt) + np.mean(d_st == d_ss)) / 2
    return float(np.mean(d_ts > d_tt)), float(np.mean(d_st > d_ss)), float(ties)


def _aa_repeats(target, synthetic, encoder, rng, n_repeats) -> np.ndarray:
    """Per repetition (rows): the AA halves and the tie share, the larger table subsampled."""
    size = min(len(target), len(synthetic))
    if size < 2:
        raise PrivlibError(
            "adversarial accuracy needs at least 2 records in each table (a nearest *other* record)."
        )
    if len(target) == len(synthetic):
        n_repeats = 1  # nothing is random: every repetition would give the same value
    return np.array([
        _aa_once(_subsample(target, size, rng), _subsample(synthetic, size, rng), encoder)
        for _ in range(n_repeats)
    ])


def adversarial_accuracy(target, synthetic, random_state=None, *, n_repeats=1) -> AdversarialAccuracy:
    """Nearest-neighbour adversarial accuracy AA_TS (Yale et al. 2019).

    AA_TS = 1/2 [ mean_i 1(d_TS(i) > d_TT(i)) + mean_i 1(d_ST(i) > d_SS(i)) ], with Gower distances
    (ranges from both tables): d_TS(i) from target record i to its nearest synthetic record, d_TT(i)
    to its nearest other target record, and likewise d_ST, d_SS for synthetic records. The strict
    ">" of the formula is kept, so a tie counts as "the synthetic record is as close", i.e. against
    the target: tables of many ties (few distinct values) read lower than 0.5 even when
    indistinguishable. The two tables must have the same size; the larger is subsampled (seeded).

    Parameters
    ----------
    target : pandas.DataFrame
        Real records (the training data, or a test set).
    synthetic : pandas.DataFrame
        Synthetic data with the same columns.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling.
    n_repeats : int, default 1
        Subsamplings to average over (ignored when the tables already have the same size).

    Returns
    -------
    AdversarialAccuracy
        ``value`` AA_TS (0.5 = indistinguishable, near 0 = copies, near 1 = far from real),
        ``aa_target`` and ``aa_synthetic`` the two halves, ``ties`` the share of comparisons
        (d_TS vs d_TT, d_ST vs d_SS) that are equal, ``low``/``high`` the spread.
    """
    _check_tables(target=target, synthetic=synthetic)
    n_repeats = _check_integer(n_repeats, "n_repeats")
    encoder = TableEncoder(metric="gower").fit(target, synthetic, names=["target", "synthetic"])
    halves = _aa_repeats(target, synthetic, encoder, np.random.default_rng(random_state), n_repeats)
    values = halves[:, :2].mean(axis=1)
    mean, low, high = _spread(values)
    return AdversarialAccuracy(
        measure="adversarial_accuracy", value=mean, baseline=0.5, higher_is_riskier=False,
        aa_target=float(halves[:, 0].mean()), aa_synthetic=float(halves[:, 1].mean()),
        ties=float(halves[:, 2].mean()), n=min(len(target), len(synthetic)),
        n_repeats=len(values), low=low, high=high, repeats=values,
    )


def privacy_loss(train, test, synthetic, random_state=None, *, n_repeats=1) -> PrivacyLoss:
    """Privacy loss of Yale et al. (2019): AA_TS(test vs synthetic) - AA_TS(train vs synthetic).

    Both adversarial accuracies use one Gower encoder fitted on the three tables, and each
    subsamples the larger of its two tables to equal size (see :func:`adversarial_accuracy`).
    0 is ideal; a copy of the training data scores about 0.5 (AA on training is 0).

    Parameters
    ----------
    train, test, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling.
    n_repeats : int, default 1
        Subsamplings to average over.

    Returns
    -------
    PrivacyLoss
        ``value`` the loss (baseline 0), ``aa_train`` and ``aa_test``, ``low``/``high`` the spread.
    """
    _check_tables(train=train, test=test, synthetic=synthetic)
    n_repeats = _check_integer(n_repeats, "n_repeats")
    encoder = TableEncoder(metric="gower").fit(train, test, synthetic, names=["train", "test", "synthetic"])
    rng = np.random.default_rng(random_state)
    on_train = _aa_repeats(train, synthetic, encoder, rng, n_repeats)[:, :2].mean(axis=1)
    on_test = _aa_repeats(test, synthetic, encoder, rng, n_repeats)[:, :2].mean(axis=1)
    # a pair of equal-sized tables yields one value, which broadcasts against the other's repetitions
    losses = on_test - on_train
    mean, low, high = _spread(losses)
    return PrivacyLoss(
        measure="privacy_loss", value=mean, baseline=0.0, aa_train=float(on_train.mean()),
        aa_test=float(on_test.mean()), n_repeats=losses.size, low=low, high=high, repeats=losses,
    )


# --------------------------------------------------------------------------------------------
# Discriminator test
# --------------------------------------------------------------------------------------------
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


def discriminator_test(
    train, holdout, synthetic, estimator=None, random_state=None, *, n_repeats=1
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
        The final step of the model; it receives categorical variables one-hot encoded and
        numeric ones as floats (dates in days, missing values as NaN). Default: a random forest
        of 100 trees with balanced class weights. Its ``random_state`` is set from ``random_state``
        when it has one.
    random_state : int, numpy.random.Generator or None
        Seed for the split of the synthetic data and for the classifier.
    n_repeats : int, default 1
        Splits and fits to average over.

    Returns
    -------
    DiscriminatorTest
        ``value`` = mean "real" probability of unseen synthetic records minus that of holdout
        records (baseline 0; above 0 signals over-fitting), ``real_synthetic``, ``real_holdout``,
        ``auc`` of the "real" probability separating holdout from synthetic records.
    """
    _check_tables(train=train, holdout=holdout, synthetic=synthetic)
    if len(synthetic) < 2:
        raise PrivlibError("`synthetic` needs at least 2 rows: one half to fit, one to score.")
    n_repeats = _check_integer(n_repeats, "n_repeats")
    if estimator is None:
        estimator = RandomForestClassifier(n_estimators=100, class_weight="balanced", n_jobs=1)
    elif not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
        raise PrivlibError(
            "`estimator` must be a scikit-learn classifier with fit and predict_proba, "
            f"got {type(estimator).__name__}."
        )
    kinds = infer_kinds(train, name="train")
    frames = {name: _classifier_frame(table, kinds) for name, table in
              (("train", train), ("holdout", holdout), ("synthetic", synthetic))}
    categorical = [c for c, k in kinds.items() if k != NUMERIC]
    rng = np.random.default_rng(random_state)
    rows = []
    for _ in range(n_repeats):
        model = Pipeline([
            ("encode", ColumnTransformer(
                [("onehot", OneHotEncoder(handle_unknown="ignore", sparse_output=False), categorical)],
                remainder="passthrough",
            )),
            ("classify", clone(estimator)),
        ])
        if "classify__random_state" in model.get_params():
            model.set_params(classify__random_state=int(rng.integers(2**31 - 1)))
        order = rng.permutation(len(synthetic))
        fit_part, score_part = order[: len(order) // 2], order[len(order) // 2 :]
        features = pd.concat([frames["train"], frames["synthetic"].iloc[fit_part]], ignore_index=True)
        labels = np.repeat([1, 0], [len(train), fit_part.size])
        try:
            model.fit(features, labels)
        except ValueError as exc:  # e.g. an estimator that cannot take missing values
            raise PrivlibError(f"the discriminator `estimator` could not be fitted: {exc}") from None
        real = list(model.classes_).index(1)
        p_holdout = model.predict_proba(frames["holdout"])[:, real]
        p_synthetic = model.predict_proba(frames["synthetic"].iloc[score_part])[:, real]
        auc = roc_auc_score(np.repeat([1, 0], [p_holdout.size, p_synthetic.size]),
                            np.concatenate([p_holdout, p_synthetic]))
        rows.append((p_holdout.mean(), p_synthetic.mean(), auc))
    rows = np.array(rows)
    differences = rows[:, 1] - rows[:, 0]
    mean, low, high = _spread(differences)
    return DiscriminatorTest(
        measure="discriminator_excess_realness", value=mean, baseline=0.0,
        real_holdout=float(rows[:, 0].mean()), real_synthetic=float(rows[:, 1].mean()),
        auc=float(rows[:, 2].mean()), n_repeats=n_repeats, low=low, high=high, repeats=differences,
    )


from privlib.targeted import density_attack, shadow_model_attack  # noqa: E402
