"""The family rule: how the judged measures of one kind of disclosure become the family's verdict,
the measure that decides it and the headline a reader sees (:func:`family_verdict`).

The rule, as the audit applies it (``privlib/audit/README.md`` states it for readers):

1. Only measures judged ``risk``, ``inconclusive`` or ``no evidence of risk`` count. With none,
   the family is **not assessed**, and the headline gives the reason.
2. The p-values of the measures whose verdict is an **exact test** (the rule's ``exact_test``)
   are adjusted together by Holm's weighted step-down procedure, each attack an equal share of
   the error rate ``1 - confidence`` (:func:`privlib.audit.rulebook.family_decision`). A measure
   that adjusts its own readings (the near-copy test, the attack ensemble) enters once, with its
   own adjusted p-value. A measure judged by its **interval** does not enter, even when it
   reports a p-value: its verdict reads the interval against a margin, not the p-value.
3. Each measure's **standing**: an exact test judged ``risk`` stays ``risk`` when its adjusted
   p-value is at most ``1 - confidence``, and is ``inconclusive`` otherwise, a risk on its own but
   not after the adjustment (:func:`privlib.rules.corrected_verdict`); every other measure keeps
   its own verdict.
4. The family's verdict is the most severe standing (risk, then inconclusive, then no evidence
   of risk); among the measures of that standing, the one furthest beyond its threshold, in its
   own units, decides (the first given among equals; one without a threshold comes last).
5. The headline names the verdict and the deciding measure with its value, interval and
   threshold, and for an exact test its adjusted p-value against ``1 - confidence``; a measure
   demoted by step 3 is named as a risk on its own, with the number of exact tests adjusted and
   its adjusted p-value.

"Significant alone, not after correction" reads ``inconclusive`` wherever it occurs: here, across
a family's exact tests, and inside a measure that adjusts its own readings
(:func:`privlib.thresholds.judge`), through the same :func:`privlib.rules.corrected_verdict`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from privlib.audit.report import NOT_ASSESSED
from privlib.audit.rulebook import family_decision
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, RISK
from privlib.rules import corrected_verdict
from privlib.uncertainty import DEFAULT_CONFIDENCE

__all__ = ["Judged", "FamilyVerdict", "family_verdict", "SEVERITY"]

#: The verdicts that count for a family, in order of severity.
SEVERITY = {NO_EVIDENCE: 0, INCONCLUSIVE: 1, RISK: 2}


@dataclass(frozen=True)
class Judged:
    """One judged measure of a family, as the family rule reads it.

    ``exact`` says whether its verdict is an exact test on ``p_value`` (otherwise its interval
    decides); ``value``, ``threshold``, ``ci_low``/``ci_high`` and ``confidence`` are shown in the
    headline, and ``higher_is_riskier`` orients the distance beyond the threshold.
    """

    key: str
    title: str
    verdict: str
    exact: bool = False
    p_value: float | None = None
    value: float | None = None
    threshold: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    higher_is_riskier: bool = True
    confidence: float = DEFAULT_CONFIDENCE


@dataclass(frozen=True)
class FamilyVerdict:
    """The family's verdict, the key of the measure that decides it (``None`` when not assessed),
    that measure's Holm-adjusted p-value (``None`` unless an exact test decides), the headline,
    every exact test's adjusted p-value and each measure's standing (step 3 of the rule)."""

    verdict: str
    deciding: str | None
    adjusted_p: float | None
    headline: str
    adjusted: dict[str, float] = field(default_factory=dict)
    standing: dict[str, str] = field(default_factory=dict)


def family_verdict(
    measures: Sequence[Judged],
    *,
    title: str,
    confidence: float = DEFAULT_CONFIDENCE,
    unassessed_reason: str = "no measure of this kind could be read on these data",
) -> FamilyVerdict:
    """The verdict of one family from its judged measures, by the rule of this module.

    Parameters
    ----------
    measures : sequence of Judged
        The family's measures, in the order that breaks ties.
    title : str
        The family's title, which opens the headline.
    confidence : float, default 0.95
        The adjustment's level is ``1 - confidence``.
    unassessed_reason : str
        Why no measure could be judged, for the headline of a family not assessed.

    Returns
    -------
    FamilyVerdict

    Examples
    --------
    >>> ensemble = Judged("attack_ensemble", "Ensemble", "risk", exact=True, p_value=0.04,
    ...                   value=0.03, threshold=0.02)
    >>> distance = Judged("nn_mia_tpr_at_0.1pct", "Distance", "no evidence of risk", exact=True,
    ...                   p_value=0.5, value=0.001, threshold=0.002)
    >>> found = family_verdict([ensemble, distance], title="Membership")
    >>> found.verdict, found.deciding, found.adjusted_p
    ('inconclusive', 'attack_ensemble', 0.08)
    """
    judged = [m for m in measures if m.verdict in SEVERITY]
    if not judged:
        return FamilyVerdict(
            verdict=NOT_ASSESSED,
            deciding=None,
            adjusted_p=None,
            headline=f"{title}: not assessed, because {unassessed_reason}.",
        )
    holm = family_decision({m.key: m.p_value for m in judged if m.exact}, confidence=confidence)
    level = 1 - confidence
    standing = {
        m.key: corrected_verdict(m.verdict, holm.adjusted.get(m.key), level=level) if m.exact else m.verdict
        for m in judged
    }
    deciding = max(judged, key=lambda m: (SEVERITY[standing[m.key]], _beyond(m)))
    verdict = standing[deciding.key]
    adjusted_p = holm.adjusted.get(deciding.key)
    if verdict == deciding.verdict:
        headline = _headline(title, verdict, deciding, adjusted_p)
    else:  # step 3: a risk on its own, not once the family's exact tests are adjusted
        headline = (
            f"{title}: {verdict}: {deciding.title} = {_number(deciding.value)} is a risk on its "
            f"own, but not after Holm's adjustment across the {len(holm.p_values)} exact tests of "
            f"this kind, each attack an equal share (adjusted p = {adjusted_p:.3g} against "
            f"{level:.2g})."
        )
    return FamilyVerdict(
        verdict=verdict,
        deciding=deciding.key,
        adjusted_p=adjusted_p,
        headline=headline,
        adjusted=dict(holm.adjusted),
        standing=standing,
    )


def _beyond(measure: Judged) -> float:
    """How far a measure lies beyond its threshold, in its own units (ranks measures of one
    standing)."""
    if measure.threshold is None or measure.value is None:
        return -math.inf
    beyond = measure.value - measure.threshold
    return beyond if measure.higher_is_riskier else -beyond


def _number(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3g}"


def _headline(family: str, verdict: str, measure: Judged, adjusted_p: float | None) -> str:
    """One line: the family's verdict and the measure that decides it. An exact test is decided by
    its p-value, not by where its interval lies, so its Holm-adjusted p is named as the reason."""
    interval = (
        ""
        if measure.ci_low is None or measure.ci_high is None
        else f" ({measure.confidence:.0%} interval {_number(measure.ci_low)} to {_number(measure.ci_high)})"
    )
    threshold = "" if measure.threshold is None else f", threshold {_number(measure.threshold)}"
    test = (
        ""
        if adjusted_p is None
        else f"; read by its exact test: Holm-adjusted p = {adjusted_p:.2g} against {1 - measure.confidence:.2g}"
    )
    return f"{family}: {verdict}, decided by {measure.title} = {_number(measure.value)}{interval}{threshold}{test}."
