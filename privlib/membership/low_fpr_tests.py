"""Attacks read at low false-positive rates and judged on the strongest reading after Holm's
adjustment (:class:`MaxOverTests`): the reading of :func:`~privlib.membership.near_copy_test`
and :func:`~privlib.membership.attack_ensemble`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privlib.membership.rank_sums import _auc as mann_whitney_auc
from privlib.records import LowFprPoint, family_tests, tpr_at_low_fpr
from privlib.results import NOT_ASSESSABLE, QuerySampled, per_record

__all__ = ["MaxOverTests"]


@dataclass(frozen=True, kw_only=True)
class MaxOverTests(QuerySampled):
    """The strongest of several attacks read at low false-positive rates, corrected for the choice.

    Each attack is read at each rate of ``fprs`` by :func:`privlib.records.tpr_at_low_fpr`; Holm's
    adjustment runs over the ``n_tests`` assessable readings. The *deciding* reading is the one
    with the smallest adjusted p-value (the most members called among ties): ``value`` is its
    true-positive rate, ``p_value`` its adjusted p-value, ``raw_p_value`` its own, and
    ``baseline`` the largest TPR that its exact test at level ``(1 - confidence) / n_tests`` (where
    Holm's first step rejects) puts down to chance, so that "value above baseline" is the adjusted
    test. ``ci_low``/``ci_high`` is its Clopper-Pearson interval, shown beside the exact test that
    decides, ``excess_members`` the members it calls beyond the holdout rate (the records at risk)
    and ``excess_low``/``excess_high`` that interval in records. ``aucs`` gives each attack's AUC, ``found`` lists the readings
    significant after adjustment, and :meth:`per_attack` is the table of every reading.
    """

    attacks: tuple
    fprs: tuple
    deciding_attack: str = ""
    deciding_fpr: float = math.nan
    n_tests: int = 0
    n_members: int = 0
    n_nonmembers: int = 0
    members_called: int = 0
    nonmembers_called: int = 0
    critical_count: int | None = None
    excess_members: int = 0
    excess_low: float = math.nan
    excess_high: float = math.nan
    p_value: float = math.nan
    raw_p_value: float = math.nan
    aucs: dict | None = None
    found: tuple = ()
    points: dict = per_record(default=None)
    adjusted: dict = per_record(default=None)

    def per_attack(self) -> pd.DataFrame:
        """One row per attack: its AUC and, per rate, the members called, the TPR and the raw
        and Holm-adjusted p-values (aggregates only)."""
        rows = []
        for attack in self.attacks:
            row = {"attack": attack, "AUC": self.aucs[attack] if self.aucs else math.nan}
            for rate in self.fprs:
                point = self.points[(attack, rate)]
                label = f"{100 * rate:g}%"
                assessable = point.verdict != NOT_ASSESSABLE
                row[f"members called at {label}"] = point.members_called if assessable else None
                row[f"TPR at {label}"] = point.value
                row[f"p at {label}"] = point.p_value
                row[f"adjusted p at {label}"] = self.adjusted.get(_test_key(attack, rate), math.nan)
            rows.append(row)
        return pd.DataFrame(rows)

    def reading(self) -> str:
        if self.verdict == NOT_ASSESSABLE or math.isnan(self.value):
            text = "The attacks cannot be read at these false-positive rates"
            sample = self._sample_text()
            return (
                self.with_judgement(f"{text}.{sample}")
                if self.judgement
                else f"{text}: {self.verdict_rule}.{sample}"
            )
        found = "; ".join(self.found) if self.found else "none after the adjustment"
        assert self.ci_low is not None and self.ci_high is not None  # an assessed reading has one
        return self.with_judgement(
            f"Of {self.n_tests} readings ({', '.join(self.attacks)} at false-positive rates of at "
            f"most {', '.join(f'{100 * r:g}%' for r in self.fprs)}), the strongest is "
            f"{self.deciding_attack} at {100 * self.deciding_fpr:g}%: it calls {self.members_called} "
            f"of {self.n_members} training records and {self.nonmembers_called} of "
            f"{self.n_nonmembers} holdout records, TPR {100 * self.value:.2g}% "
            f"({self.confidence:.0%} interval {100 * self.ci_low:.2g}% to {100 * self.ci_high:.2g}%), "
            f"{self.excess_members} records beyond the holdout rate ({self.excess_low:.1f} to "
            f"{self.excess_high:.1f}); Holm-adjusted p = {self.p_value:.2g} (its own "
            f"{self.raw_p_value:.2g}). Found: {found}.{self._sample_text()}"
        )


def _test_key(attack: str, fpr: float) -> str:
    return f"{attack} at {100 * fpr:g}%"


def _auc(members: np.ndarray, nonmembers: np.ndarray) -> float:
    return mann_whitney_auc(nonmembers, members)


def _max_over_tests(
    scores: dict, fprs, confidence: float, *, measure: str, sample: int | None = None
) -> MaxOverTests:
    """:class:`MaxOverTests` of the attacks' ``scores`` (name -> (members, non-members)), read on
    a sample of at most ``sample`` records per table (``None``: every record)."""
    points = {
        (attack, rate): tpr_at_low_fpr(
            member_scores=members, nonmember_scores=others, fpr=rate, attack=attack, confidence=confidence
        )
        for attack, (members, others) in scores.items()
        for rate in fprs
    }
    holm = family_tests(
        {_test_key(*key): point.p_value for key, point in points.items()}, confidence=confidence
    )
    members, others = next(iter(scores.values()))
    common = dict(
        measure=measure,
        confidence=confidence,
        attacks=tuple(scores),
        fprs=tuple(fprs),
        n_members=members.size,
        n_nonmembers=others.size,
        aucs={attack: _auc(*pair) for attack, pair in scores.items()},
        points=points,
        adjusted=holm.adjusted,
        sample_size=sample,
    )
    assessable = [key for key in points if _test_key(*key) in holm.adjusted]
    if not assessable:
        return MaxOverTests(
            value=math.nan,
            verdict=NOT_ASSESSABLE,
            verdict_rule=f"{others.size} holdout records cannot show a false-positive rate of "
            f"{100 * max(fprs):g}% or below",
            **common,
        )
    deciding = min(assessable, key=lambda key: (holm.adjusted[_test_key(*key)], -points[key].members_called))
    point: LowFprPoint = points[deciding]
    level = (1 - confidence) / len(assessable)
    corrected = tpr_at_low_fpr(
        member_scores=point.member_scores,
        nonmember_scores=point.nonmember_scores,
        fpr=deciding[1],
        confidence=1 - level,
    )
    m, n = point.n_members, point.n_nonmembers
    expected = m * point.nonmembers_called / n  # members an attack blind to membership would call
    assert point.ci_low is not None and point.ci_high is not None  # an assessable reading has one
    return MaxOverTests(
        value=point.value,
        baseline=corrected.baseline,
        deciding_attack=deciding[0],
        deciding_fpr=deciding[1],
        n_tests=len(assessable),
        members_called=point.members_called,
        nonmembers_called=point.nonmembers_called,
        critical_count=corrected.critical_count,
        excess_members=point.excess_members,
        excess_low=max(0.0, m * point.ci_low - expected),
        excess_high=max(0.0, m * point.ci_high - expected),
        ci_low=point.ci_low,
        ci_high=point.ci_high,
        ci_method=point.ci_method,
        p_value=holm.adjusted[_test_key(*deciding)],
        raw_p_value=point.p_value,
        found=tuple(
            f"{_test_key(*key)}: {points[key].members_called} training records called "
            f"(adjusted p = {holm.adjusted[_test_key(*key)]:.2g})"
            for key in assessable
            if holm.significant[_test_key(*key)]
        ),
        **common,
    )
