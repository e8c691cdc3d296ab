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

Every measure returns its value with a confidence interval (``ci_low``, ``ci_high``: Wilson for
the shares, a seeded bootstrap over records for the AUC, the F1, the adversarial accuracy and the
privacy loss; :mod:`privlib.uncertainty`) and a verdict from the threshold registry
(:mod:`privlib.thresholds`). Where a measure is random (attack sets drawn, tables subsampled to
equal sizes, a classifier fitted), ``n_repeats`` repeats it with one seeded generator; the result
holds the mean as its value and the 2.5 % and 97.5 % quantiles over the repetitions as
``repeat_low`` and ``repeat_high`` (the spread of one run, not a confidence interval).

The measures look at different things and can disagree on the same data: the attack AUC ranks
every record by its distance to the synthetic data, so a general shift counts; the privacy loss
and the adversarial accuracy compare each record's nearest synthetic and nearest real neighbour
and react mostly to (near) copies; the DCR share asks only which real table is nearer. The
registry's ``scope`` of each measure says so, and :func:`privlib.audit.rulebook.disagreements` turns
two differing verdicts into a sentence.

References
----------
El Emam K, Mosquera L, Fang X. Validating a membership disclosure metric for synthetic health
data. JAMIA Open 5(4), 2022. doi:10.1093/jamiaopen/ooac083

Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of synthetic
health data. AIDR 2019. doi:10.1145/3359115.3359124
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from numbers import Integral, Real
from typing import cast

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import roc_auc_score, roc_curve
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from privlib import search_reuse
from privlib.errors import DataError, ParameterError
from privlib.matching import (
    attack_distances,
    check_tables,
    gower_setup,
    query_samples,
    sample_size,
    sampled,
    subsample,
    subsample_rows,
)
from privlib.neighbors import Neighbors, kneighbors, nearest_distances
from privlib.results import NOT_ASSESSABLE, QuerySampled, Result, per_record
from privlib.rules import M_THRESHOLD
from privlib.schema import NUMERIC, TableEncoder, infer_kinds, numeric_values
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOTSTRAP,
    WILSON,
    auc_interval,
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
    Number,
    Numbers,
    RandomState,
    Table,
    validate_params,
)

logger = logging.getLogger(__name__)

__all__ = [
    "M_THRESHOLD",
    "DEFAULT_ATTACK_SIZE",
    "naive_f1",
    "relative_risk",
    "risk_utility_loss",
    "ground_truth_risk",
    "partition_risk",
    "dcr_holdout_share",
    "threshold_attack",
    "nn_mia",
    "adversarial_accuracy",
    "privacy_loss",
    "discriminator_test",
    "MembershipRisk",
    "DcrHoldoutShare",
    "ThresholdAttack",
    "NNMia",
    "AdversarialAccuracy",
    "PrivacyLoss",
    "DiscriminatorTest",
    "shadow_model_attack",
    "density_attack",
    "tpr_at_low_fpr",
    "low_fpr_points",
    "nn_mia_low_fpr",
]

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
    """A result averaged over seeded repetitions.

    ``repeat_low``/``repeat_high`` are the 2.5 %/97.5 % quantiles of the value over the
    repetitions: the spread of one run, kept apart from the confidence interval
    ``ci_low``/``ci_high``.
    """

    n_repeats: int = 1
    repeat_low: float | None = None
    repeat_high: float | None = None
    repeats: np.ndarray = per_record(default=None)

    def _spread_text(self) -> str:
        if self.n_repeats < 2:
            return ""
        return (
            f" (mean of {self.n_repeats} repetitions, 95% of them between {self.repeat_low:.3f} "
            f"and {self.repeat_high:.3f})"
        )


@dataclass(frozen=True, kw_only=True)
class MembershipRisk(_Repeated):
    """Outcome of a Hamming-threshold membership attack (:func:`ground_truth_risk`, :func:`partition_risk`).

    The attack is run at every h at once (the nearest Hamming distance of each attack record is all
    it needs). ``f1``, ``precision``, ``recall``, ``called_share`` and ``m`` are those of the asked
    ``h`` (means over repetitions). ``blind`` says whether that h calls at least
    :data:`BLIND_SHARE` of the attack set members; then its F1 is the naive F1 whatever the
    generator did. Two further h are reported: ``h_not_blind``, the largest h up to the asked one
    that is not blind, and ``h_rule``, the h whose called share is closest to the member share t
    (an adversary who knows t calls about as many records as there are members; the choice uses
    no membership label). ``value``, its interval and the verdict are those of ``h_verdict``: the
    asked h when it is not blind, otherwise whichever of ``h_not_blind`` and ``h_rule`` gives the
    riskier verdict (an adversary may pick either).

    ``baseline`` is F_max, the F1 of calling everyone a member: of n/N when the population size
    is known, otherwise of t (``m_from`` says which); ``m = (F1 - F_max) / (1 - F_max)`` is El
    Emam et al.'s relative risk, and the threshold registry's F1 cut-off is where M = 0.2.
    """

    f1: float
    f1_low: float | None = None
    f1_high: float | None = None
    called_share: float
    precision: float
    recall: float
    m: float | None = None
    m_from: str = "n/N"
    t: float
    attack_size: int
    h: int
    n: int
    population_size: int | None = None
    blind: bool = False
    h_verdict: int | None = None
    h_not_blind: int | None = None
    f1_not_blind: float | None = None
    m_not_blind: float | None = None
    called_share_not_blind: float | None = None
    h_rule: int | None = None
    f1_rule: float | None = None
    m_rule: float | None = None
    called_share_rule: float | None = None
    precisions: np.ndarray = per_record(default=None)
    recalls: np.ndarray = per_record(default=None)
    called_by_h: np.ndarray = per_record(default=None)
    f1_by_h: np.ndarray = per_record(default=None)

    def _at(self, h, f1, m, called) -> str:
        m_text = "" if m is None or math.isnan(m) else f", M = {m:.3f}"
        return f"h = {h} (calls {called:.0%} members, F1 = {f1:.3f}{m_text})"

    def reading(self) -> str:
        text = (
            f"Calling a record a member when a synthetic record lies within Hamming distance "
            f"{self.h} of it gives F1 = {self.f1:.3f}{self._spread_text()} (precision "
            f"{self.precision:.3f}, recall {self.recall:.3f}) on attack sets of {self.attack_size} "
            f"records with {self.t:.1%} members, against {self.baseline:.3f} for calling everyone a "
            f"member (F_max of {self.m_from})"
        )
        if self.m is not None and not math.isnan(self.m):
            text += f"; M = {self.m:.3f}"
        text += "."
        if self.blind:
            text += (
                f" At h = {self.h} the attack calls {self.called_share:.0%} of the attack set "
                f"members (at least {BLIND_SHARE:.0%}: blind), so these numbers say nothing about "
                "the generator."
            )
            others = []
            if self.h_not_blind is not None:
                others.append(
                    "the largest h that is not blind is "
                    + self._at(
                        self.h_not_blind, self.f1_not_blind, self.m_not_blind, self.called_share_not_blind
                    )
                )
            if self.h_rule is not None:
                others.append(
                    "the h whose called share is closest to t is "
                    + self._at(self.h_rule, self.f1_rule, self.m_rule, self.called_share_rule)
                )
            if others:
                text += " Instead, " + "; ".join(others) + "."
            if self.h_verdict is not None:
                text += f" The interval and verdict are those at h = {self.h_verdict}."
        if self.m_from == "t":
            text += (
                " Without the population size N, F_max is that of the attack set's member "
                "share t, which equals El Emam et al.'s M when t = n/N."
            )
        return self.with_judgement(text)


@dataclass(frozen=True, kw_only=True)
class DcrHoldoutShare(QuerySampled):
    """Share of synthetic records closer to training than to holdout (:func:`dcr_holdout_share`)."""

    ties: float
    n_synthetic: int
    n_reference: int
    dcr_train: np.ndarray = per_record(default=None)
    dcr_holdout: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"{self.value:.1%}{self._interval_text()} of the {self.n_synthetic} synthetic records "
            f"are closer to a training record than to a holdout record (ties counted half, "
            f"{self.ties:.1%} of records tied), against {self.baseline:.0%} for a generator that "
            f"never saw its training records.{self._sample_text()}"
        )


@dataclass(frozen=True, kw_only=True)
class ThresholdAttack(QuerySampled):
    """Precision of the distance-threshold attack over thresholds (:func:`threshold_attack`).

    ``value`` is the precision of the adversary who calls the closer half of the attack set
    members (threshold = median DCR), with its Wilson interval over the records called;
    ``max_precision`` the best over the thresholds tried that call at least 1 % of the attack set
    members (chosen after the fact, so it has no interval and is not judged).
    """

    max_precision: float
    best_threshold: float
    n_attack: int
    thresholds: np.ndarray = per_record(default=None)
    precision: np.ndarray = per_record(default=None)
    recall: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"Calling the closer half of {self.n_attack} records (half training, half holdout) "
            f"members is right {self.value:.1%}{self._interval_text()} of the time, and the best "
            f"threshold tried reaches {self.max_precision:.1%} (threshold "
            f"{self.best_threshold:.3g}), against {self.baseline:.0%} for guessing.{self._sample_text()}"
        )


@dataclass(frozen=True, kw_only=True)
class NNMia(QuerySampled):
    """Nearest-neighbour membership inference attack (:func:`nn_mia`): ``auc`` and the ROC points."""

    auc: float
    n_train: int
    n_holdout: int
    fpr: np.ndarray = per_record(default=None)
    tpr: np.ndarray = per_record(default=None)
    dcr: np.ndarray = per_record(default=None)
    is_member: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return self.with_judgement(
            f"Ranking {self.n_train} training and {self.n_holdout} holdout records by their "
            f"distance to the nearest synthetic record separates them with AUC = "
            f"{self.auc:.3f}{self._interval_text()} ({self.baseline} is guessing, 1.0 full "
            f"exposure).{self._sample_text()}"
        )


@dataclass(frozen=True, kw_only=True)
class AdversarialAccuracy(_Repeated, QuerySampled):
    """Nearest-neighbour adversarial accuracy AA_TS (:func:`adversarial_accuracy`).

    ``baseline`` is the accuracy of two indistinguishable tables, ``0.5 (1 - ties)``: the strict
    ">" counts a tied comparison against the real record, and the untied ones split evenly.
    """

    aa_target: float
    aa_synthetic: float
    ties: float
    n: int

    def reading(self) -> str:
        return self.with_judgement(
            f"The nearest-neighbour adversarial accuracy on {self.n} records per table is "
            f"{self.value:.3f}{self._interval_text()}{self._spread_text()} (target side "
            f"{self.aa_target:.3f}, synthetic side {self.aa_synthetic:.3f}); with {self.ties:.0%} "
            f"of the comparisons tied, indistinguishable tables would score {self.baseline:.3f}, "
            f"and copies score near 0.{self._sample_text()}"
        )


@dataclass(frozen=True, kw_only=True)
class PrivacyLoss(_Repeated, QuerySampled):
    """Privacy loss AA(test) - AA(train) of Yale et al. (2019) (:func:`privacy_loss`)."""

    aa_train: float
    aa_test: float

    def reading(self) -> str:
        return self.with_judgement(
            f"The privacy loss is {self.value:.3f}{self._interval_text()}{self._spread_text()} "
            f"(adversarial accuracy {self.aa_test:.3f} on unseen records minus "
            f"{self.aa_train:.3f} on training records; {self.baseline:g} is ideal, about 0.5 a "
            f"copy).{self._sample_text()}"
        )


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


# --------------------------------------------------------------------------------------------
# Validation and shared steps
# --------------------------------------------------------------------------------------------
def _check_integer(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < minimum:
        raise ParameterError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def _check_share(value, name: str) -> float:
    # A Real compares as a float does; typeshed's numbers.Real declares only < and <=.
    if isinstance(value, bool) or not isinstance(value, Real) or not 0 <= cast(float, value) <= 1:
        raise ParameterError(f"`{name}` must be a number between 0 and 1, got {value!r}.")
    return float(value)


def _spread(values) -> tuple[float, float, float]:
    """Mean and the 2.5 %/97.5 % quantiles of repetition values (NaN values ignored)."""
    values = np.asarray(values, dtype="float64")
    if np.isnan(values).all():
        return math.nan, math.nan, math.nan
    low, high = np.nanquantile(values, [0.025, 0.975])
    return float(np.nanmean(values)), float(low), float(high)


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


def _averaged_interval(intervals) -> tuple[float, float]:
    """One interval for a mean over repetitions: the mean of each end of the repetitions'
    intervals.

    Each repetition's interval is centred on its own value, so the averaged ends centre on the
    mean; it keeps the width of one repetition, which is conservative, since the repetitions share
    most of their records and their mean varies less than one repetition, but not by a factor
    that can be known without their overlap.
    """
    ends = np.asarray(intervals, dtype="float64").reshape(-1, 2)
    if np.isnan(ends).all():
        return math.nan, math.nan
    return float(np.nanmean(ends[:, 0])), float(np.nanmean(ends[:, 1]))


def _severity(result: MembershipRisk) -> int:
    """How the F1's interval lies against the cut-off of M = :data:`M_THRESHOLD` (the rule the
    audit judges the partitioning attack by): 2 wholly above, 1 straddling, 0 below."""
    # Both attacks set F_max and the F1's interval.
    assert result.baseline is not None and result.ci_low is not None and result.ci_high is not None
    cut = result.baseline + M_THRESHOLD * (1 - result.baseline)
    return 2 if result.ci_low > cut else 1 if result.ci_high > cut else 0


def _counts_prf(true_hits, false_hits, n_members):
    """Precision, recall and F1 from the numbers of members and non-members called (arrays
    broadcast), with :func:`_prf`'s conventions: 0 where a ratio would divide by zero."""
    true_hits, false_hits = np.asarray(true_hits, dtype="float64"), np.asarray(false_hits, dtype="float64")
    called, members = true_hits + false_hits, np.broadcast_to(n_members, true_hits.shape)
    zeros = np.zeros(true_hits.shape)
    precision = np.divide(true_hits, called, out=zeros.copy(), where=called > 0)
    recall = np.divide(true_hits, members, out=zeros.copy(), where=members > 0)
    f1 = np.divide(2 * true_hits, called + members, out=zeros.copy(), where=true_hits > 0)
    return precision, recall, f1


def _hamming_attack(
    pools, draws, synthetic, encoder, h, *, t, n, population_size, measure, rng, confidence, client=None
) -> MembershipRisk:
    """Run the Hamming-threshold attack on each drawn attack set at every h, and judge it.

    ``pools`` is a list of ``(table, is_member)``; ``draws`` a list of attack sets, each an array
    of positions into the tables of ``pools`` stacked in order. The distance from a record to the
    synthetic data does not depend on the draw or on h, so it is computed once per record drawn
    at all, and every h is evaluated from it.
    """
    sizes = [len(table) for table, _ in pools]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    distance = np.full(offsets[-1], -1, dtype=np.int64)
    drawn = np.unique(np.concatenate(draws))
    for (table, _), start, stop in zip(pools, offsets[:-1], offsets[1:]):
        mine = drawn[(drawn >= start) & (drawn < stop)]
        if mine.size:
            distance[mine] = np.rint(
                nearest_distances(
                    table.iloc[mine - start],
                    synthetic,
                    metric="hamming",
                    encoder=encoder,
                    client=client,
                )
            ).astype(np.int64)
    is_member = np.concatenate([np.asarray(member, dtype=bool) for _, member in pools])
    # Every h beyond the largest distance calls everyone, as that distance does: evaluate h up to
    # it, and read a larger asked h at it.
    top = int(distance[drawn].max())
    at = min(h, top)

    # Per draw and per h, members and non-members called: cumulative counts of their distances.
    def called_counts(of_members: bool) -> np.ndarray:
        return np.array(
            [
                np.cumsum(np.bincount(distance[d][is_member[d] == of_members], minlength=top + 1))
                for d in draws
            ]
        )

    members_called, others_called = called_counts(True), called_counts(False)
    n_members = np.array([np.count_nonzero(is_member[d]) for d in draws])
    n_others = len(draws[0]) - n_members
    precision, recall, f1 = _counts_prf(members_called, others_called, n_members[:, None])
    called_share = (members_called + others_called).mean(axis=0) / len(draws[0])
    blind = called_share >= BLIND_SHARE

    if population_size is not None:
        f_max, m_from = naive_f1(n / population_size), "n/N"
    else:
        f_max, m_from = naive_f1(t), "t"

    def relative(value):
        return (value - f_max) / (1 - f_max) if f_max < 1 else math.nan

    def f1_interval(g):
        """Bootstrap of the F1 at h = g over each draw's records, members and non-members
        resampled separately (so t is kept): the resampled counts called are binomial. The draws'
        intervals are averaged."""
        ends = []
        for r in range(len(draws)):
            true_hits = rng.binomial(
                n_members[r], members_called[r, g] / max(n_members[r], 1), size=DEFAULT_N_BOOTSTRAP
            )
            false_hits = rng.binomial(
                n_others[r], others_called[r, g] / max(n_others[r], 1), size=DEFAULT_N_BOOTSTRAP
            )
            resampled = _counts_prf(true_hits, false_hits, n_members[r])[2]
            ends.append(percentile_interval(resampled, confidence=confidence))
        return _averaged_interval(ends)

    h_not_blind = next((g for g in range(at, -1, -1) if not blind[g]), None)
    h_rule = int(np.argmin(np.abs(called_share - t)))
    common = dict(
        measure=measure,
        baseline=f_max,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        f1=float(f1[:, at].mean()),
        called_share=float(called_share[at]),
        precision=float(precision[:, at].mean()),
        recall=float(recall[:, at].mean()),
        m=relative(float(f1[:, at].mean())),
        m_from=m_from,
        t=t,
        attack_size=len(draws[0]),
        h=h,
        n=n,
        population_size=population_size,
        blind=bool(blind[at]),
        h_not_blind=None if h_not_blind is None else (h if h_not_blind == at else h_not_blind),
        h_rule=h_rule,
        called_share_rule=float(called_share[h_rule]),
        f1_rule=float(f1[:, h_rule].mean()),
        m_rule=relative(float(f1[:, h_rule].mean())),
        n_repeats=len(draws),
        repeats=f1[:, at],
        precisions=precision[:, at],
        recalls=recall[:, at],
        called_by_h=called_share,
        f1_by_h=f1.mean(axis=0),
    )
    if h_not_blind is not None:
        common.update(
            f1_not_blind=float(f1[:, h_not_blind].mean()),
            m_not_blind=relative(float(f1[:, h_not_blind].mean())),
            called_share_not_blind=float(called_share[h_not_blind]),
        )
    f1_low, f1_high = f1_interval(at)
    _, spread_low, spread_high = _spread(f1[:, at])

    def read_at(g):
        low, high = (f1_low, f1_high) if g == at else f1_interval(g)
        return MembershipRisk(
            value=float(f1[:, g].mean()),
            ci_low=low,
            ci_high=high,
            h_verdict=h if g == at else g,
            f1_low=f1_low,
            f1_high=f1_high,
            repeat_low=spread_low,
            repeat_high=spread_high,
            **common,
        )

    if not blind[at]:
        return read_at(at)
    readable = [g for g in dict.fromkeys((h_not_blind, h_rule)) if g is not None and not blind[g]]
    candidates = [read_at(g) for g in readable]
    if candidates:
        return max(candidates, key=_severity)  # the first (largest h) wins a tie
    return MembershipRisk(
        value=float(f1[:, at].mean()),
        ci_low=f1_low,
        ci_high=f1_high,
        f1_low=f1_low,
        f1_high=f1_high,
        repeat_low=spread_low,
        repeat_high=spread_high,
        verdict=NOT_ASSESSABLE,
        verdict_rule=f"the attack calls at least {BLIND_SHARE:.0%} of the attack set members at "
        "every h, even h = 0, so it cannot tell members from non-members; read the distance attacks",
        **common,
    )


# --------------------------------------------------------------------------------------------
# Relative risk
# --------------------------------------------------------------------------------------------
@validate_params({"t": [Numbers(low=0, high=1)]})
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
    values = np.asarray(t, dtype="float64")
    out = 2 * values / (1 + values)
    return float(out) if out.ndim == 0 else out


@validate_params({"f1": [Number(low=0, high=1)], "n": [Integer(low=1)], "N": [Integer(low=1)]})
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
    if n > N:
        raise DataError(
            f"the training data (n = {n}) cannot be larger than the population it was drawn from "
            f"(N = {N}); pass the population size as `N`."
        )
    if n == N:
        raise DataError(
            f"M is undefined when the training data is the whole population (n = N = {N}): every "
            "target is a member, so membership reveals nothing; pass the size of the larger "
            "population the data represents as `N`."
        )
    f_max = naive_f1(n / N)
    return (f1 - f_max) / (1 - f_max)


@validate_params({"m": [Numbers(high=1)], "utility": [Numbers(low=0, high=1)]})
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
    factor = np.where(m_values > M_THRESHOLD, 0.31 + 1 / (1 + np.exp(m_values - 1)), 1.0)
    out = -factor * u_values
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------
# Hamming-threshold attacks
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "population": [Table()],
        "synthetic": [Table()],
        "attack_size": [Integer(low=1), None],
        "h": [Integer(low=0)],
        "random_state": [RandomState()],
        "n_bins": [Integer(low=1)],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "members": [
            Instance(
                list,
                tuple,
                np.ndarray,
                pd.Series,
                pd.Index,
                description="an array of booleans or row positions",
            )
        ],
    }
)
def ground_truth_risk(
    *,
    population,
    members,
    synthetic,
    attack_size=None,
    h=5,
    random_state=None,
    n_bins=20,
    n_repeats=1,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
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
        Hamming threshold: number of variables that may differ (5 in the literature). When it
        calls at least :data:`BLIND_SHARE` of the attack set members (blind), the attack is also
        read at the largest smaller h that is not blind and at the h whose called share is
        closest to the member share (see :class:`MembershipRisk`).
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    n_bins : int, default 20
        Equal-width bins per numeric (or date) variable, with edges taken from the population.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).
    confidence : float, default 0.95
        Level of the F1 interval: a bootstrap over the attack set's records, members and
        non-members resampled separately, averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions at ``h``; precision is 0 for
        an attack set where nobody is called a member), ``.m`` the relative risk with n = number
        of members, ``.repeat_low``/``.repeat_high`` the spread of F1 over repetitions; ``value``,
        ``ci_low``/``ci_high`` and the verdict at ``h_verdict`` (see :class:`MembershipRisk`).

    Examples
    --------
    >>> import pandas as pd
    >>> population = pd.DataFrame({"a": list("xxyyzzww"), "b": list("pqpqpqpq")})
    >>> r = ground_truth_risk(population=population, members=[0, 2, 4], synthetic=population.iloc[[0, 2, 4]],
    ...                       h=0, random_state=0)
    >>> from privlib.thresholds import judge
    >>> r.f1, judge(r).verdict
    (1.0, 'risk')
    """
    check_tables(population=population, synthetic=synthetic)
    size = len(population)
    is_member = _member_mask(members, size)
    n = int(is_member.sum())
    if n == size:
        raise DataError(
            "`members` covers every row of `population`, so membership reveals nothing and the "
            "relative risk is undefined; pass the larger population the training data came from."
        )
    if attack_size is None:
        attack_size = min(DEFAULT_ATTACK_SIZE, size)
    attack_size = _check_integer(attack_size, "attack_size")
    if attack_size > size:
        raise DataError(f"`attack_size` = {attack_size} exceeds the population's {size} rows; ask for fewer.")
    encoder = TableEncoder(metric="hamming", n_bins=_check_integer(n_bins, "n_bins")).fit(
        population, names=["population"]
    )
    rng = np.random.default_rng(random_state)
    draws = [rng.choice(size, attack_size, replace=False) for _ in range(n_repeats)]
    return _hamming_attack(
        [(population, is_member)],
        draws,
        synthetic,
        encoder,
        h,
        t=n / size,
        n=n,
        population_size=size,
        measure="ground_truth_f1",
        rng=rng,
        confidence=check_confidence(confidence),
        client=client,
    )


def _member_mask(members, size: int) -> np.ndarray:
    try:
        values = np.asarray(members)
    except Exception:  # noqa: BLE001 - anything that is not array-like
        values = np.array(None)
    if values.ndim != 1 or values.size == 0:
        raise ParameterError(
            "`members` must be a non-empty boolean mask over the population's rows or a list of "
            "row positions."
        )
    if values.dtype == bool:
        if values.size != size:
            raise ParameterError(
                f"`members` is a boolean mask of length {values.size}, but `population` has "
                f"{size} rows; give one entry per population row."
            )
        if not values.any():
            raise ParameterError("`members` marks no population row as a member; mark the training rows.")
        return values
    if values.dtype.kind not in "iu":
        raise ParameterError(
            f"`members` must be booleans or integer row positions, got values of type {values.dtype}."
        )
    if values.min() < 0 or values.max() >= size:
        raise ParameterError(
            f"`members` holds positions outside 0..{size - 1}; give 0-based row positions into "
            "`population` (as for .iloc), not index labels."
        )
    if np.unique(values).size != values.size:
        raise ParameterError("`members` lists some row positions more than once; list each member once.")
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
        raise DataError(
            f"an attack set of {attack_size} records with a share t = {t:.4g} from training needs "
            f"{from_train} training and {attack_size - from_train} holdout records, but `train` has "
            f"{n_train} and `holdout` {n_holdout}; pass a smaller `attack_size`."
        )
    if attack_size < 1:
        raise DataError("the tables are too small to build an attack set; pass larger tables.")
    return attack_size, from_train


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "t": [Number(low=0, high=1), None],
        "attack_size": [Integer(low=1), None],
        "h": [Integer(low=0)],
        "random_state": [RandomState()],
        "population_size": [Integer(low=1), None],
        "n_repeats": [Integer(low=1)],
        "n_bins": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
    }
)
def partition_risk(
    *,
    train,
    holdout,
    synthetic,
    t=None,
    attack_size=None,
    h=5,
    random_state=None,
    population_size=None,
    n_repeats=1,
    n_bins=20,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
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
        Hamming threshold: number of variables that may differ (5 in the literature). When it
        calls at least :data:`BLIND_SHARE` of the attack set members (blind), the attack is also
        read at the largest smaller h that is not blind and at the h whose called share is
        closest to the member share (see :class:`MembershipRisk`).
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    population_size : int, optional
        N, the size of the population the training data stands for; enables ``.m``.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).
    n_bins : int, default 20
        Equal-width bins per numeric variable, with edges taken from training and holdout together
        (the real data at hand standing in for the population).
    confidence : float, default 0.95
        Level of the F1 interval: a bootstrap over the attack set's records, members and
        non-members resampled separately, averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions at ``h``; precision 0 when
        nobody is called a member), ``.repeat_low``/``.repeat_high`` the F1 spread, ``.m`` (of
        n/N with ``population_size``, else of t: ``.m_from``), and ``value``, its interval and
        the verdict (M <= 0.2) at ``h_verdict``; when ``h`` is blind also ``h_not_blind`` and
        ``h_rule`` with their F1 and M.

    Raises
    ------
    PrivlibError
        If neither ``t`` nor ``population_size`` is given, if ``population_size`` is not larger
        than ``len(train)``, or if the tables cannot supply the requested attack set.

    Notes
    -----
    A blind h. With many variables, h = 5 puts a synthetic record near almost every real record,
    so the attack calls nearly everyone a member and its F1 sits at F_max whatever the generator
    did (El Emam et al.'s own published F1s lie close to F_max(n/N)). The attack's nearest
    Hamming distance per record answers every h at once, so when the asked h calls at least
    :data:`BLIND_SHARE` of the attack set, two more readings cost nothing: the largest h up to
    the asked one that is not blind (the closest to the literature's design), and the h whose
    called share is closest to t (a data-driven choice: an adversary who knows t calls about as
    many records as there are members; it uses no membership label). The verdict takes the
    riskier of the two, and the result says which h each number used.
    """
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    n = len(train)
    if population_size is not None:
        population_size = _check_integer(population_size, "population_size")
        if population_size <= n:
            raise DataError(
                f"`population_size` (N = {population_size}) must be larger than the training data "
                f"(n = {n}); M is undefined when n = N and impossible when n > N."
            )
    if t is None:
        if population_size is None:
            raise ParameterError(
                "pass `t`, the share of the attack set drawn from training, or `population_size` "
                "so that t defaults to n / N (the choice that matches the ground truth)."
            )
        t = n / population_size
    t = _check_share(t, "t")
    attack_size, from_train = _partition_attack_size(attack_size, t, n, len(holdout))
    encoder = TableEncoder(metric="hamming", n_bins=_check_integer(n_bins, "n_bins")).fit(
        train, holdout, names=["train", "holdout"]
    )
    rng = np.random.default_rng(random_state)
    draws = [
        np.concatenate(
            [
                rng.choice(n, from_train, replace=False),
                n + rng.choice(len(holdout), attack_size - from_train, replace=False),
            ]
        )
        for _ in range(n_repeats)
    ]
    pools = [(train, np.ones(n, dtype=bool)), (holdout, np.zeros(len(holdout), dtype=bool))]
    return _hamming_attack(
        pools,
        draws,
        synthetic,
        encoder,
        h,
        t=t,
        n=n,
        population_size=population_size,
        measure="partition_f1",
        rng=rng,
        confidence=check_confidence(confidence),
        client=client,
    )


# --------------------------------------------------------------------------------------------
# Distance attacks (Gower)
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table()],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "max_queries": [Integer(low=2), None],
    }
)
def dcr_holdout_share(
    *,
    synthetic,
    train,
    holdout,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> DcrHoldoutShare:
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
        Seed for the subsampling (unused when ``train`` and ``holdout`` have the same size) and
        the sample of synthetic records.
    confidence : float, default 0.95
        Level of the interval: the Wilson interval of the share closer to training among the
        untied synthetic records, mapped back with the tied share (taken as fixed) counted half.
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    DcrHoldoutShare
        ``value`` the share (baseline 0.5; well above it means memorisation) with its interval
        and verdict, ``ties`` the share of tied records, per record ``dcr_train`` and
        ``dcr_holdout``.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> holdout = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> dcr_holdout_share(synthetic=train, train=train, holdout=holdout).value
    1.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    encoder = gower_setup(train, holdout, synthetic)
    rows = query_samples(random_state, max_queries, synthetic=len(synthetic))
    queries = sampled(synthetic, rows["synthetic"])
    rng = np.random.default_rng(random_state)
    size = min(len(train), len(holdout))
    # the larger of training and holdout subsampled to the smaller's size (training drawn first);
    # each table's distances read from the search of the whole table, which dcr_zero_share and
    # privacy_loss make in an audit
    to_train, to_holdout = (
        _nearest_in_draw(queries, table, size, rng, encoder=encoder, client=client)
        for table in (train, holdout)
    )
    tied = to_train == to_holdout
    ties = float(np.mean(tied))
    closer = int(np.count_nonzero(to_train < to_holdout))
    share = closer / tied.size + 0.5 * ties
    low, high = wilson_interval(closer, int(np.count_nonzero(~tied)), confidence=confidence)
    if np.isnan(low):  # every record tied: the share is exactly one half
        low = high = share
    else:
        low, high = (1 - ties) * low + 0.5 * ties, (1 - ties) * high + 0.5 * ties
    return DcrHoldoutShare(
        measure="dcr_holdout_share",
        value=share,
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=WILSON,
        confidence=confidence,
        ties=ties,
        n_synthetic=len(queries),
        n_reference=size,
        dcr_train=to_train,
        dcr_holdout=to_holdout,
        sample_size=sample_size(*rows.values()),
    )


def _nearest_in_draw(query, reference, size, rng, **options) -> np.ndarray:
    """Distance from each ``query`` record to its nearest among ``size`` records of ``reference``
    drawn as :func:`privlib.matching.subsample` draws them (all of them when it has that many).

    The whole reference is searched and the nearest drawn record read from that list
    (:func:`_nearest_drawn`); only the queries whose nearest record was not drawn are searched
    among the drawn ones. The distances are those of searching the drawn records alone.
    """
    search = dict(metric="gower", **options)
    whole = kneighbors(query, reference, k=1, **search)
    if len(reference) == size:
        return whole.distances[:, 0].copy()
    rows = subsample_rows(len(reference), size, rng)
    drawn = np.zeros(len(reference), dtype=bool)
    drawn[rows] = True
    drawn_records = reference.iloc[rows]
    return _nearest_drawn(
        whole, drawn, lambda missing: nearest_distances(query.iloc[missing], drawn_records, **search)
    )


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "thresholds": [Numbers(low=0, scalar=False), None],
        "max_queries": [Integer(low=2), None],
    }
)
def threshold_attack(
    *,
    train,
    holdout,
    synthetic,
    thresholds=None,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> ThresholdAttack:
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
        Seed for the subsampling and the samples of training and holdout records.
    confidence : float, default 0.95
        Level of the Wilson interval of ``value`` (members among the records called).
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    ThresholdAttack
        ``value`` the precision when the closer half is called (threshold = median DCR), with its
        interval and verdict, ``max_precision`` over thresholds calling at least 1 % of K, per
        threshold ``precision`` (NaN where nobody is called) and ``recall``.
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    dcr, is_member = attack_distances(
        train,
        holdout,
        synthetic,
        np.random.default_rng(random_state),
        client,
        (rows["train"], rows["holdout"]),
    )
    if thresholds is None:
        thresholds = np.unique(np.concatenate([[0.0], np.quantile(dcr, np.linspace(0.02, 1, 50))]))
    else:
        thresholds = np.sort(np.asarray(thresholds, dtype="float64").ravel())
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
    low, high = wilson_interval(
        int(np.count_nonzero(median_call & is_member)),
        int(np.count_nonzero(median_call)),
        confidence=confidence,
    )
    return ThresholdAttack(
        measure="threshold_attack_precision",
        value=_prf(is_member, median_call)[0],
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=WILSON,
        confidence=confidence,
        max_precision=float(precision[best]),
        best_threshold=float(thresholds[best]),
        n_attack=dcr.size,
        thresholds=thresholds,
        precision=precision,
        recall=recall,
        sample_size=sample_size(*rows.values()),
    )


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "max_queries": [Integer(low=2), None],
    }
)
def nn_mia(
    *,
    train,
    holdout,
    synthetic,
    random_state=None,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> NNMia:
    """Nearest-neighbour membership inference attack (Yale et al. 2019).

    Every training and holdout record is scored by minus its Gower distance to the nearest
    synthetic record (closer = more likely a member); the ROC curve and its area (AUC) say how
    well that score separates members from non-members. Numeric ranges come from the three tables
    together. Tables of unequal size are fine: AUC does not depend on the class balance.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    random_state : int, numpy.random.Generator or None
        Seed for the bootstrap of the interval and the samples of training and holdout records.
    confidence : float, default 0.95
        Level of the interval: a percentile bootstrap over records, training and holdout records
        resampled separately (:func:`privlib.uncertainty.auc_interval`).
    max_queries : int, optional
        Most records per table whose distances are read: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, which draws the same records for every measure
        given the same integer seed), each searched among every record. ``None``: every record.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    NNMia
        ``.auc`` (baseline 0.5, 1.0 = every training record exposed) with its interval and
        verdict, ROC points ``.fpr`` and ``.tpr``, per record ``.dcr`` and ``.is_member``
        (training records first).

    Notes
    -----
    The AUC ranks *every* record, so a small shift of all training records towards the synthetic
    data counts as much as a few exact copies; :func:`privacy_loss` compares each record's
    nearest synthetic with its nearest real neighbour instead and reacts mostly to (near) copies.
    The two can therefore disagree on the same data, and the threshold registry's ``scope``
    says so in the report.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> holdout = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> nn_mia(train=train, holdout=holdout, synthetic=train, random_state=0).auc
    1.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    dcr, is_member = attack_distances(
        train, holdout, synthetic, client=client, rows=(rows["train"], rows["holdout"])
    )
    fpr, tpr, _ = roc_curve(is_member, -dcr)
    auc = float(roc_auc_score(is_member, -dcr))
    low, high = auc_interval(
        -dcr[is_member], -dcr[~is_member], rng=np.random.default_rng(random_state), confidence=confidence
    )
    return NNMia(
        measure="nn_mia_auc",
        value=auc,
        baseline=0.5,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        auc=auc,
        n_train=int(np.count_nonzero(is_member)),
        n_holdout=int(np.count_nonzero(~is_member)),
        fpr=fpr,
        tpr=tpr,
        dcr=dcr,
        is_member=is_member,
        sample_size=sample_size(*rows.values()),
    )


def _self_distances(table, options, rows=None, within=None) -> np.ndarray:
    """Distance from each record of ``table`` (those at positions ``rows`` when given) to its
    nearest *other* record of it, ``inf`` where none lies ``within`` the per-record bound."""
    if rows is None:
        return kneighbors(table, table, k=1, exclude_self=True, within=within, **options).distances[:, 0]
    return _nearest_other(table, rows, options, within)


def _at(values: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    return values if rows is None else values[rows]


def _aa_indicators(d_ts, d_tt, d_st, d_ss) -> tuple[np.ndarray, np.ndarray, float]:
    """The per-record indicators of the two halves of AA_TS for tables of equal size,
    1(d_TS(i) > d_TT(i)) and 1(d_ST(i) > d_SS(i)), and the share of tied comparisons."""
    ties = (np.mean(d_ts == d_tt) + np.mean(d_st == d_ss)) / 2
    return d_ts > d_tt, d_st > d_ss, float(ties)


#: Largest neighbour list searched to answer the repetitions' subsample searches from the whole
#: table (:func:`_aa_repeats`); a smaller subsample share would need longer lists than this.
_MAX_LIST_DEPTH = 16

#: Share of records whose list may hold no drawn record, and so need a search of their own.
_LIST_MISS_SHARE = 0.01


def _list_depth(share: float, n_records: int) -> int | None:
    """Neighbours to list so that a subsample of ``share`` of the ``n_records`` misses all of a
    record's listed neighbours for about ``_LIST_MISS_SHARE`` of the records: ``(1 - share)^depth``
    at most that, and no more than the other records there are; ``None`` when that takes more
    than ``_MAX_LIST_DEPTH``."""
    depth = math.ceil(math.log(_LIST_MISS_SHARE) / math.log1p(-share))
    return min(depth, n_records - 1) if depth <= _MAX_LIST_DEPTH else None


def _nearest_drawn(lists, drawn: np.ndarray, search_missing) -> np.ndarray:
    """Per query, the distance to its nearest record among the ``drawn`` ones (a mask over the
    listed table), read from its neighbour list: the first listed drawn record is the nearest, as
    every unlisted record is at least as far as the last listed one. A list searched within a
    bound and cut short by it (index -1) holds every record within the bound: with no drawn record
    listed, the nearest drawn one lies beyond it, and the distance reads ``inf``. Queries whose
    full list holds no drawn record get ``search_missing(positions)``."""
    listed = lists.indices >= 0
    hit = listed & drawn[lists.indices]
    rows = np.arange(len(hit))
    first = hit.argmax(axis=1)
    distances = lists.distances[rows, first]
    found = hit[rows, first]
    cut_short = ~listed[:, -1]
    distances[~found & cut_short] = np.inf
    missing = np.flatnonzero(~found & ~cut_short)
    if missing.size:
        distances[missing] = search_missing(missing)
    return distances


def _nearest_other(table: pd.DataFrame, rows: np.ndarray, options: dict, within=None) -> np.ndarray:
    """Distance from the records at positions ``rows`` of ``table`` to their nearest other record
    of it: the nearer of their two nearest records that is not the record itself (``inf`` where
    the other lies beyond ``within``; the record itself, at distance 0, never does)."""
    pair = kneighbors(table.iloc[rows], table, k=2, within=within, **options)
    other = (pair.indices[:, 0] == rows).astype(int)
    return pair.distances[np.arange(rows.size), other]


def _own_lists(table: pd.DataFrame, rows: np.ndarray | None, depth: int, within, options: dict) -> Neighbors:
    """The ``depth`` nearest other records of ``table`` for its records at positions ``rows``
    (all when ``None``), searched within the per-record bound ``within`` (one per record of the
    table). A sample's lists are searched one deeper and the record itself dropped where listed,
    else the last (twins at distance 0 on lower rows can push it out): ``depth`` others remain,
    in the engine's order."""
    if rows is None:
        return kneighbors(table, table, k=depth, exclude_self=True, within=within, **options)
    found = kneighbors(table.iloc[rows], table, k=depth + 1, within=within[rows], **options)
    keep = found.indices != rows[:, None]
    keep[keep.all(axis=1), -1] = False
    return Neighbors(
        distances=found.distances[keep].reshape(rows.size, depth),
        indices=found.indices[keep].reshape(rows.size, depth),
    )


def _aa_draws(target, synthetic, rng, n_repeats) -> list[np.ndarray]:
    """The rows of the larger table each repetition draws to the smaller's size (none when the
    tables have the same size: nothing is random then, and every repetition would give one value)."""
    size = min(len(target), len(synthetic))
    if size < 2:
        raise DataError(
            "adversarial accuracy needs at least 2 records in each table (a nearest *other* record)."
        )
    if len(target) == len(synthetic):
        return []
    larger = max(len(target), len(synthetic))
    return [subsample_rows(larger, size, rng) for _ in range(n_repeats)]


def _aa_repeats(
    target, synthetic, encoder, draws, client=None, synthetic_within=None, queries=(None, None)
) -> list:
    """Per repetition: the two AA indicator arrays and the tie share, the larger table subsampled
    to the ``draws`` of :func:`_aa_draws`.

    The smaller table is the same in every repetition, so what depends on it alone is searched
    once: its records' nearest other records, and the nearest of its records to each drawn record
    of the larger table (which keeps that distance in every subsample it is drawn into). What a
    repetition's subsample changes (the smaller table's records' nearest in the subsample, and the
    subsample's records' nearest other records in it) is read from neighbour lists of the whole
    larger table, searched once, deep enough that few records find none of their listed
    neighbours in a subsample; those few are searched in the subsample. A subsample too small a
    share of its table for short lists is searched in every repetition instead. Either way the
    indicators and ties are those of the plain algorithm, which searches each subsample.

    A record's nearest other record of its own (sub)sample only counts where it is no farther
    than its nearest record of the other table, so the larger table's lists, and the synthetic
    records' nearest other records when the tables have one size, are searched within that
    distance (``within``, which skips the farther tiles); a record with none that close reads
    ``inf``, which compares with the other distance as its true value does. ``synthetic_within``
    (one bound per synthetic record) widens that bound for the synthetic records (at least their
    distance to ``target``), so that one search answers several halves.

    ``queries`` holds the positions of the target and synthetic records whose indicators are
    read (:func:`privlib.matching.query_samples`; ``None``: every record): only they are
    searched, each among every record of the tables (or of the repetition's subsample), so each
    of its indicators is the plain algorithm's, and a repetition reads the sampled records of the
    larger table that its subsample draws. ``synthetic_within`` then needs values at the sampled
    synthetic records only.
    """
    size = min(len(target), len(synthetic))
    options = dict(metric="gower", encoder=encoder, client=client)
    target_rows, synthetic_rows = queries
    if not draws:  # tables of one size: one repetition
        to_target = nearest_distances(sampled(synthetic, synthetic_rows), target, **options)
        bound = to_target if synthetic_within is None else _at(synthetic_within, synthetic_rows)
        return [
            _aa_indicators(
                nearest_distances(sampled(target, target_rows), synthetic, **options),
                _self_distances(target, options, target_rows),
                to_target,
                _self_distances(synthetic, options, synthetic_rows, within=bound),
            )
        ]
    target_is_fixed = len(target) == size
    fixed, drawn = (target, synthetic) if target_is_fixed else (synthetic, target)
    fixed_rows, drawn_sample = (
        (target_rows, synthetic_rows) if target_is_fixed else (synthetic_rows, target_rows)
    )
    fixed_queries = sampled(fixed, fixed_rows)
    fixed_self = _self_distances(fixed, options, fixed_rows)
    # the drawn table's records read: its sample, or those some repetition draws
    read = np.unique(np.concatenate(draws)) if drawn_sample is None else drawn_sample
    if drawn_sample is None and 2 * read.size > len(drawn):
        # most of the table: search all of it, a search other measures of an audit make too
        drawn_to_fixed = nearest_distances(drawn, fixed, **options)
    else:
        drawn_to_fixed = np.full(len(drawn), np.nan)
        drawn_to_fixed[read] = nearest_distances(drawn.iloc[read], fixed, **options)
    # the lists cost about what two or three repetitions' searches do
    depth = _list_depth(size / len(drawn), len(drawn)) if len(draws) >= 3 else None
    if depth is not None:
        fixed_lists = kneighbors(fixed_queries, drawn, k=depth, **options)
        if target_is_fixed and synthetic_within is not None:
            within = synthetic_within
        else:  # records no repetition draws need nothing: bound 0
            within = np.nan_to_num(drawn_to_fixed, nan=0.0)
        drawn_lists = _own_lists(drawn, drawn_sample, depth, within, options)
    repeats = []
    for rows in draws:
        subsample = drawn.iloc[rows]
        if drawn_sample is None:  # every record of the subsample, listed under its row of the table
            picked, listed = np.arange(rows.size), rows
        else:  # the sampled records the subsample holds: their positions in it and in the sample
            in_sample = np.isin(drawn_sample, rows)
            picked, listed = np.searchsorted(rows, drawn_sample[in_sample]), np.flatnonzero(in_sample)
        if depth is None:
            fixed_to_drawn = nearest_distances(fixed_queries, subsample, **options)
            drawn_self = _self_distances(subsample, options, None if drawn_sample is None else picked)
        else:
            in_draw = np.zeros(len(drawn), dtype=bool)
            in_draw[rows] = True
            fixed_to_drawn = _nearest_drawn(
                fixed_lists,
                in_draw,
                lambda missing, sub=subsample: nearest_distances(fixed_queries.iloc[missing], sub, **options),
            )
            drawn_self = _nearest_drawn(
                _rows_of(drawn_lists, listed),
                in_draw,
                lambda missing, sub=subsample, at=picked: _nearest_other(sub, at[missing], options),
            )
        drawn_side = drawn_to_fixed[rows[picked]]
        if target_is_fixed:
            repeats.append(_aa_indicators(fixed_to_drawn, fixed_self, drawn_side, drawn_self))
        else:
            repeats.append(_aa_indicators(drawn_side, drawn_self, fixed_to_drawn, fixed_self))
    return repeats


def _rows_of(lists: Neighbors, rows: np.ndarray) -> Neighbors:
    """The neighbour lists of the queries at positions ``rows`` only."""
    return Neighbors(distances=lists.distances[rows], indices=lists.indices[rows])


def _aa_value(repeat) -> float:
    target_side, synthetic_side, _ = repeat
    return 0.5 * (target_side.mean() + synthetic_side.mean())


def _aa_resampled(repeat, rng) -> np.ndarray:
    """Bootstrap values of one repetition's AA_TS: each half's indicators resampled (exactly,
    through their binomial counts), so no neighbour is searched again."""
    target_side, synthetic_side, _ = repeat
    return 0.5 * (resampled_means(target_side, rng=rng) + resampled_means(synthetic_side, rng=rng))


@validate_params(
    {
        "target": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "max_queries": [Integer(low=2), None],
    }
)
def adversarial_accuracy(
    *,
    target,
    synthetic,
    random_state=None,
    n_repeats=1,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> AdversarialAccuracy:
    """Nearest-neighbour adversarial accuracy AA_TS (Yale et al. 2019).

    AA_TS = 1/2 [ mean_i 1(d_TS(i) > d_TT(i)) + mean_i 1(d_ST(i) > d_SS(i)) ], with Gower distances
    (ranges from both tables): d_TS(i) from target record i to its nearest synthetic record, d_TT(i)
    to its nearest other target record, and likewise d_ST, d_SS for synthetic records. The strict
    ">" of the formula is kept, so a tie counts as "the synthetic record is as close", i.e. against
    the target: tables of many ties (few distinct values) read lower than 0.5 even when
    indistinguishable, so the baseline is ``0.5 (1 - ties)``, the accuracy of indistinguishable
    tables with that share of ties. The two tables must have the same size; the larger is
    subsampled (seeded).

    Parameters
    ----------
    target : pandas.DataFrame
        Real records (the training data, or a test set).
    synthetic : pandas.DataFrame
        Synthetic data with the same columns.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling and the bootstrap.
    n_repeats : int, default 1
        Subsamplings to average over (ignored when the tables already have the same size).
    confidence : float, default 0.95
        Level of the interval: a bootstrap over records of the per-record indicators (each half
        resampled separately), averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.
    max_queries : int, optional
        Most records per table whose indicators are read: a larger table contributes a seeded
        sample of this many (drawn before the subsamples), each still searched among every
        record, so every indicator read is exact and the value estimates the whole tables' with
        the interval of the sample (``sample_size``). ``None``: every record.

    Returns
    -------
    AdversarialAccuracy
        ``value`` AA_TS (near 0 = copies, near 1 = far from real) with its interval and verdict
        (lower is riskier), ``baseline`` the tie-aware chance level, ``aa_target`` and
        ``aa_synthetic`` the two halves, ``ties`` the share of comparisons (d_TS vs d_TT, d_ST
        vs d_SS) that are equal, ``repeat_low``/``repeat_high`` the spread over repetitions.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> adversarial_accuracy(target=real, synthetic=real, random_state=0).value  # a copy
    0.0
    """
    confidence = check_confidence(confidence)
    check_tables(target=target, synthetic=synthetic)
    encoder = TableEncoder(metric="gower").fit(target, synthetic, names=["target", "synthetic"])
    # the target drawn as a training table is: with one seed adversarial accuracy and privacy_loss
    # read the same records, and an audit searches them once
    rows = query_samples(random_state, max_queries, train=len(target), synthetic=len(synthetic))
    queries = (rows["train"], rows["synthetic"])
    rng = np.random.default_rng(random_state)
    draws = _aa_draws(target, synthetic, rng, n_repeats)
    repeats = _aa_repeats(target, synthetic, encoder, draws, client, queries=queries)
    values = np.array([_aa_value(r) for r in repeats])
    low, high = _averaged_interval(
        [percentile_interval(_aa_resampled(r, rng), confidence=confidence) for r in repeats]
    )
    mean, spread_low, spread_high = _spread(values)
    ties = float(np.mean([r[2] for r in repeats]))
    return AdversarialAccuracy(
        measure="adversarial_accuracy",
        value=mean,
        baseline=0.5 * (1 - ties),
        higher_is_riskier=False,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        aa_target=float(np.mean([r[0].mean() for r in repeats])),
        aa_synthetic=float(np.mean([r[1].mean() for r in repeats])),
        ties=ties,
        n=min(len(target), len(synthetic)),
        n_repeats=len(values),
        repeat_low=spread_low,
        repeat_high=spread_high,
        repeats=values,
        sample_size=sample_size(*rows.values()),
    )


@validate_params(
    {
        "train": [Table()],
        "test": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "max_queries": [Integer(low=2), None],
    }
)
def privacy_loss(
    *,
    train,
    test,
    synthetic,
    random_state=None,
    n_repeats=1,
    client=None,
    confidence=DEFAULT_CONFIDENCE,
    max_queries=None,
) -> PrivacyLoss:
    """Privacy loss of Yale et al. (2019): AA_TS(test vs synthetic) - AA_TS(train vs synthetic).

    Both adversarial accuracies use one Gower encoder fitted on the three tables, and each
    subsamples the larger of its two tables to equal size (see :func:`adversarial_accuracy`).
    0 is ideal; a copy of the training data scores about 0.5 (AA on training is 0).

    Parameters
    ----------
    train, test, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    random_state : int, numpy.random.Generator or None
        Seed for the subsampling and the bootstrap.
    n_repeats : int, default 1
        Subsamplings to average over.
    confidence : float, default 0.95
        Level of the interval: a bootstrap over records of the four per-record indicator arrays
        (each resampled separately, which ignores that the two synthetic halves share records and
        so errs on the wide side), averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.
    max_queries : int, optional
        Most records per table whose indicators are read (see :func:`adversarial_accuracy`):
        the training, synthetic and test tables are sampled in that order, so that
        :func:`adversarial_accuracy` of the training data with the same seed reads the same
        training and synthetic records. ``None``: every record.

    Returns
    -------
    PrivacyLoss
        ``value`` the loss (baseline 0) with its interval and verdict, ``aa_train`` and
        ``aa_test``, ``repeat_low``/``repeat_high`` the spread over repetitions.

    Notes
    -----
    The loss compares, record by record, the nearest synthetic record with the nearest other real
    record, and a tie counts against the real record: it reacts to exact and near copies of
    training records. :func:`nn_mia` instead ranks every record by its distance to the synthetic
    data and also sees a general shift of the training records towards it, so the AUC can show a
    risk where the loss does not.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0]})
    >>> test = pd.DataFrame({"x": [0.5, 1.5, 2.5, 3.5]})
    >>> privacy_loss(train=train, test=test, synthetic=train, random_state=0).aa_train  # a copy
    0.0
    """
    confidence = check_confidence(confidence)
    check_tables(train=train, test=test, synthetic=synthetic)
    encoder = TableEncoder(metric="gower").fit(train, test, synthetic, names=["train", "test", "synthetic"])
    rows = query_samples(
        random_state, max_queries, train=len(train), synthetic=len(synthetic), holdout=len(test)
    )
    samples = {"train": rows["train"], "test": rows["holdout"]}
    synthetic_rows = rows["synthetic"]
    rng = np.random.default_rng(random_state)
    tables = {"train": train, "test": test}
    draws = {real: _aa_draws(table, synthetic, rng, n_repeats) for real, table in tables.items()}
    # A half that subsamples searches neighbour lists, the deeper the smaller its real table,
    # whose first columns answer the other half's searches of the same tables (the synthetic
    # records' nearest other synthetic records) and later measures' (privlib.search_reuse): the
    # halves search deepest first.
    repeats = {}
    with search_reuse.shared_searches():
        synthetic_within = None
        if len(synthetic) >= max(len(train), len(test)):
            # the synthetic records' nearest other synthetic records count only where no farther
            # than the nearest real record of a half: one search within the wider distance, for
            # the synthetic records read (the others are never compared)
            options = dict(metric="gower", encoder=encoder, client=client)
            queries = sampled(synthetic, synthetic_rows)
            nearest_real = np.maximum(
                nearest_distances(queries, train, **options), nearest_distances(queries, test, **options)
            )
            synthetic_within = np.zeros(len(synthetic))
            synthetic_within[slice(None) if synthetic_rows is None else synthetic_rows] = nearest_real
        for real in sorted(tables, key=lambda real: (not draws[real], len(tables[real]))):
            repeats[real] = _aa_repeats(
                tables[real],
                synthetic,
                encoder,
                draws[real],
                client,
                synthetic_within,
                queries=(samples[real], synthetic_rows),
            )
    on_train, on_test = repeats["train"], repeats["test"]
    # a pair of equal-sized tables yields one repetition, which pairs with each of the other's
    pairs = [
        (on_test[i % len(on_test)], on_train[i % len(on_train)])
        for i in range(max(len(on_train), len(on_test)))
    ]
    losses = np.array([_aa_value(a) - _aa_value(b) for a, b in pairs])
    low, high = _averaged_interval(
        [
            percentile_interval(_aa_resampled(a, rng) - _aa_resampled(b, rng), confidence=confidence)
            for a, b in pairs
        ]
    )
    mean, spread_low, spread_high = _spread(losses)
    return PrivacyLoss(
        measure="privacy_loss",
        value=mean,
        baseline=0.0,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        aa_train=float(np.mean([_aa_value(r) for r in on_train])),
        aa_test=float(np.mean([_aa_value(r) for r in on_test])),
        n_repeats=losses.size,
        repeat_low=spread_low,
        repeat_high=spread_high,
        repeats=losses,
        sample_size=sample_size(*rows.values()),
    )


# --------------------------------------------------------------------------------------------
# Discriminator test
# --------------------------------------------------------------------------------------------
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


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "estimator": [HasMethods("fit", "predict_proba"), None],
        "random_state": [RandomState()],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "n_jobs": [Integer(low=-1), None],
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
    if estimator is not None and not (hasattr(estimator, "fit") and hasattr(estimator, "predict_proba")):
        raise ParameterError(
            "`estimator` must be a scikit-learn classifier with fit and predict_proba, "
            f"got {type(estimator).__name__}."
        )
    kinds = infer_kinds(train, name="train")
    rng = np.random.default_rng(random_state)
    sampled = max_records is not None and any(len(t) > max_records for t in (train, holdout, synthetic))
    if sampled:
        train, holdout, synthetic = (
            subsample(t, min(len(t), max_records), rng) for t in (train, holdout, synthetic)
        )
    tables = (train, holdout, synthetic)
    # coded arrays for the default model, frames for the one-hot encoding of a given estimator
    x_train: np.ndarray | pd.DataFrame
    x_holdout: np.ndarray | pd.DataFrame
    x_synthetic: np.ndarray | pd.DataFrame
    if estimator is None:
        (x_train, x_holdout, x_synthetic), categorical = _coded_features(tables, kinds)
        model = HistGradientBoostingClassifier(categorical_features=categorical, class_weight="balanced")
        model_step = "random_state"
    else:
        x_train, x_holdout, x_synthetic = (_classifier_frame(t, kinds) for t in tables)
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
        model_step = "classify__random_state"
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
        measure="discriminator_excess_realness",
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
    if not isinstance(n_jobs, bool) and n_jobs == -1:
        return None
    return _check_integer(n_jobs, "n_jobs")


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


from privlib.records import low_fpr_points, nn_mia_low_fpr, tpr_at_low_fpr  # noqa: E402
from privlib.targeted import density_attack, shadow_model_attack  # noqa: E402
