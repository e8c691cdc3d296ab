"""The Hamming-threshold membership attack of El Emam, Mosquera & Fang (2022), shared by
:func:`~privlib.membership.ground_truth_risk` and :func:`~privlib.membership.partition_risk`:
its result, the attack run at every Hamming distance h at once, and the relative risk M
(:func:`naive_f1`, :func:`relative_risk`, :func:`risk_utility_loss`).

References
----------
El Emam K, Mosquera L, Fang X. Validating a membership disclosure metric for synthetic health
data. JAMIA Open 5(4), 2022. doi:10.1093/jamiaopen/ooac083
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privlib.errors import DataError
from privlib.membership.repetitions import _averaged_interval, _Repeated, _spread
from privlib.neighbors import nearest_distances
from privlib.results import NOT_ASSESSABLE, per_record
from privlib.rules import M_THRESHOLD
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_N_BOOTSTRAP,
    percentile_interval,
)
from privlib.validation import (
    Integer,
    Number,
    Numbers,
    validate_params,
)

__all__ = [
    "DEFAULT_ATTACK_SIZE",
    "BLIND_SHARE",
    "MembershipRisk",
    "naive_f1",
    "relative_risk",
    "risk_utility_loss",
]

#: Attack-set size of El Emam et al.'s simulations.
DEFAULT_ATTACK_SIZE = 1000


#: A Hamming attack that calls at least this share of its attack set members cannot tell members
#: from non-members (its F1 is the naive F1 whatever the generator did): its M is no evidence of
#: safety, so it gets no verdict. A kit choice, stated in the reading.
BLIND_SHARE = 0.95


@dataclass(frozen=True, kw_only=True)
class MembershipRisk(_Repeated):
    """Outcome of a Hamming-threshold membership attack
    (:func:`~privlib.membership.ground_truth_risk`, :func:`~privlib.membership.partition_risk`).

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


def _severity(result: MembershipRisk) -> int:
    """How the F1's interval lies against the cut-off of M = :data:`M_THRESHOLD` (the rule the
    audit judges the partitioning attack by): 2 wholly above, 1 straddling, 0 below."""
    # Both attacks set F_max and the F1's interval.
    assert result.baseline is not None and result.ci_low is not None and result.ci_high is not None
    cut = result.baseline + M_THRESHOLD * (1 - result.baseline)
    return 2 if result.ci_low > cut else 1 if result.ci_high > cut else 0


def _counts_prf(true_hits, false_hits, n_members):
    """Precision, recall and F1 from the numbers of members and non-members called (arrays
    broadcast), with :func:`~privlib.membership.threshold_attack._prf`'s conventions: 0 where a
    ratio would divide by zero."""
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
