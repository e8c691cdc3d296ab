"""The threshold registry: one place for every cut-off, its direction, its source and its words.

Each entry is keyed by ``Result.measure`` and is declared once, in the measure's declaration
(read from :mod:`privlib.catalogue`): judging a result loads no audit, rendering or templating
module. A cut-off
is either **published** (a paper and where in it) or a **kit default** judged against the
measure's baseline with a stated margin (e.g. "an attack AUC above 0.5 by more than 0.05"); the
entry says which, and why. Three kinds of rule exist:

* an absolute cut-off (``from_baseline=False``), optionally a share of a count of the result
  (``per``, e.g. 0.09 of the targets);
* a margin over the baseline (``from_baseline=True``): baseline + margin, or baseline - margin when
  lower values are the risk, with an absolute ``fallback`` when the result has no baseline;
* a share of a gap (``gap_to``): the baseline plus ``cutoff`` times the distance from the baseline
  to a reference, a number (the relative risk M of El Emam et al. is the share of the gap from the
  naive F1 to a perfect 1) or a field of the result (CAP: the share of the way from guessing to
  what the original data reveals).

:func:`judge` turns a result and its interval into one of the four verdicts of
:mod:`privlib.results`:

* ``risk``: the whole interval lies beyond the cut-off;
* ``no evidence of risk``: the whole interval lies on the safe side (the cut-off itself is safe);
* ``inconclusive``: the interval straddles the cut-off;
* ``not assessable``: the value is undefined, or the measure itself said why it cannot be read.

Readings take their judgement words from here as well (:func:`verdict_sentence`), so that a
threshold and the words around it are typed once and two measures of one report cannot call the
same evidence by different names. Each entry's ``scope`` says what part of the data the measure
looks at; :func:`privlib.audit.rulebook.disagreements` uses it to explain two measures of one family whose verdicts differ
(e.g. the attack AUC ranks every record, the privacy loss compares each record's nearest synthetic
and nearest real neighbour).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from numbers import Real

from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS, Result
from privlib.rules import Threshold, corrected_verdict, is_missing

__all__ = [
    "Threshold",
    "REGISTRY",
    "cutoff",
    "judge",
    "check_overrides",
    "rule_text",
    "verdict_sentence",
]


class _DeclaredRules(Mapping[str, Threshold]):
    """The rules of the measures' declarations, read from :data:`privlib.catalogue.RULES` on first
    use: the catalogue imports every measure module and their libraries, which reading a spec or
    starting the command line need not load."""

    def _rules(self) -> Mapping[str, Threshold]:
        from privlib.catalogue import RULES

        return RULES

    def __getitem__(self, key: str) -> Threshold:
        return self._rules()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rules())

    def __len__(self) -> int:
        return len(self._rules())


#: Every measure's threshold rule, keyed by ``Result.measure`` (read-only; from the declarations
#: listed in :mod:`privlib.catalogue`).
REGISTRY: Mapping[str, Threshold] = _DeclaredRules()


def rule_text(
    entry: Threshold,
    baseline: float | None = None,
    reference: float | None = None,
    count: float | None = None,
) -> str:
    """The rule of ``entry`` in words, with its numbers and source.

    Examples
    --------
    >>> rule_text(REGISTRY["nn_mia_auc"], 0.5).split(";")[0]
    'risk when the interval lies above 0.55 (the baseline 0.5 plus 0.05)'
    """
    side, what = entry.side, "the interval" if not entry.exact_test else "the value"
    value = entry.effective(baseline, reference, count)
    if value is None:
        how = "no cut-off applies without a baseline"
    elif entry.gap_to is not None and not is_missing(baseline) and not is_missing(reference):
        how = (
            f"risk when {what} lies {side} {value:.3g} (the baseline {baseline:.3g} plus "
            f"{entry.cutoff:.3g} of the way to {reference:.3g})"
        )
    elif entry.from_baseline and entry.exact_test and not is_missing(baseline):
        how = (
            f"risk when {what} lies {side} {value:.3g}, the largest value chance gives at this "
            "confidence (an exact test; the interval is shown, not used)"
        )
    elif entry.from_baseline and entry.cutoff == 0 and not is_missing(baseline):
        how = f"risk when {what} lies {side} {value:.3g} (the baseline)"
    elif entry.from_baseline and not is_missing(baseline):
        how = (
            f"risk when {what} lies {side} {value:.3g} (the baseline {baseline:.3g} "
            f"{'plus' if entry.higher_is_riskier else 'minus'} {entry.cutoff:.3g})"
        )
    elif entry.per is not None:
        how = f"risk when {what} lies {side} {value:.3g} ({entry.cutoff:.3g} of {count:.0f})"
    elif entry.from_baseline or entry.gap_to is not None:
        how = f"risk when {what} lies {side} {value:.3g} (no baseline: the fallback cut-off)"
    else:
        how = f"risk when {what} lies {side} {value:.3g}"
    return f"{how}; {entry.source}"


def cutoff(
    measure: str, baseline: float | None = None, *, reference: float | None = None, count: float | None = None
) -> float | None:
    """The absolute cut-off of ``measure`` for a result with ``baseline`` (and, for rules that need
    them, the gap ``reference`` and the ``count``).

    Examples
    --------
    >>> cutoff("nn_mia_auc", 0.5)
    0.55
    >>> cutoff("partition_f1", 0.5, reference=1.0)
    0.6
    """
    return _entry_of(measure).effective(baseline, reference, count)


def _entry_of(measure: str) -> Threshold:
    try:
        return REGISTRY[measure]
    except KeyError:
        raise PrivlibError(
            f"no threshold is registered for measure {measure!r}; the registered measures are "
            f"{sorted(REGISTRY)}."
        ) from None


def check_overrides(thresholds) -> dict[str, float]:
    """Validate user thresholds (measure -> absolute cut-off): known keys, finite numbers."""
    if thresholds is None:
        return {}
    if not isinstance(thresholds, dict):
        raise PrivlibError(
            f"`thresholds` must map measure names to numbers, got {type(thresholds).__name__}; "
            f"the measures are {sorted(REGISTRY)}."
        )
    unknown = sorted(str(k) for k in thresholds if k not in REGISTRY)
    if unknown:
        raise PrivlibError(
            f"`thresholds` names unknown measure(s) {unknown}; the valid keys are {sorted(REGISTRY)}."
        )
    out = {}
    for key, value in thresholds.items():
        if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
            raise PrivlibError(f"`thresholds[{key!r}]` must be a finite number, got {value!r}.")
        out[key] = float(value)
    return out


def judge(result: Result, *, override: float | None = None) -> Result:
    """``result`` with its threshold, verdict, ``verdict_rule`` and ``judgement`` sentence from
    the registry.

    A result that already says it is not assessable keeps that verdict and its reason. With
    ``override`` (an absolute cut-off a custodian chose), that cut-off replaces the registry's.
    Judging a judged result again gives the same result.

    Examples
    --------
    >>> from privlib.results import Result
    >>> judge(Result(measure="nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5)).verdict
    'risk'
    >>> judge(Result(measure="nn_mia_auc", value=0.55, ci_low=0.52, ci_high=0.58, baseline=0.5)).verdict
    'inconclusive'
    """
    judged = _verdict_of(result, override)
    return dataclasses.replace(judged, judgement=verdict_sentence(judged) or None)


def _verdict_of(result: Result, override: float | None) -> Result:
    if result.verdict == NOT_ASSESSABLE:
        return result
    entry = _entry_of(result.measure)
    if override is not None:
        entry = dataclasses.replace(
            entry,
            cutoff=float(override),
            from_baseline=False,
            gap_to=None,
            per=None,
            source=f"set for this audit (the registry's rule: {entry.source})",
        )
    value = result.value
    if value is None or is_missing(value):
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE, verdict_rule="the value is undefined for these data"
        )
    reference, count = entry.reference_of(result), entry.count_of(result)
    baseline = result.baseline
    if (
        entry.gap_to is not None
        and reference is not None
        and baseline is not None
        and not is_missing(reference)
        and not is_missing(baseline)
    ):
        gap = reference - baseline
        if (gap <= 0) if entry.higher_is_riskier else (gap >= 0):
            return dataclasses.replace(
                result,
                verdict=NOT_ASSESSABLE,
                higher_is_riskier=entry.higher_is_riskier,
                verdict_rule=f"the reference ({reference:.3g}) does no better than the baseline "
                f"({baseline:.3g}), so there is nothing beyond guessing to reveal and no "
                f"cut-off between them: {entry.source}",
            )
    cut = entry.effective(result.baseline, reference, count)
    if cut is None:
        return dataclasses.replace(
            result,
            verdict=NOT_ASSESSABLE,
            verdict_rule="there is no baseline to judge against: " + rule_text(entry),
        )
    if not entry.reachable(cut):
        bound = entry.highest if entry.higher_is_riskier else entry.lowest
        return dataclasses.replace(
            result,
            verdict=NOT_ASSESSABLE,
            higher_is_riskier=entry.higher_is_riskier,
            verdict_rule=f"the cut-off {cut:.3g} lies {entry.side} {bound:g}, beyond every value the "
            f"measure can take, so no result could show a risk; these data leave no room for the "
            f"margin ({rule_text(entry, result.baseline, reference, count)})",
        )
    low, high = result.ci_low, result.ci_high
    if entry.exact_test or low is None or high is None or is_missing(low) or is_missing(high):
        low = high = value
    if entry.higher_is_riskier:
        verdict = RISK if low > cut else NO_EVIDENCE if high <= cut else INCONCLUSIVE
    else:
        verdict = RISK if high < cut else NO_EVIDENCE if low >= cut else INCONCLUSIVE
    if entry.exact_test and override is None and verdict == NO_EVIDENCE and _significant_alone(result):
        # a measure that adjusts its own readings (the attack ensemble, the near-copy test): its
        # strongest reading significant alone but not after the adjustment is doubt, as in a family
        verdict = corrected_verdict(RISK, getattr(result, "p_value", None), level=1 - result.confidence)
    assert verdict in VERDICTS
    return dataclasses.replace(
        result,
        threshold=cut,
        verdict=verdict,
        verdict_rule=rule_text(entry, result.baseline, reference, count),
        higher_is_riskier=entry.higher_is_riskier,
    )


def _significant_alone(result: Result) -> bool:
    """Whether the deciding reading of a measure that adjusts its own readings (``raw_p_value``
    beside the adjusted ``p_value``) is significant before the adjustment."""
    raw = getattr(result, "raw_p_value", None)
    return raw is not None and not is_missing(raw) and raw <= 1 - result.confidence + 1e-12


def _number(value) -> str:
    return f"{value:.3g}"


def verdict_sentence(result: Result) -> str:
    """One sentence giving a judged result's verdict, what it means, its interval against the
    cut-off, and the rule's source; ``""`` for a result that was never judged.

    Every reading ends with this sentence, so the words that judge ("better than chance", "as
    copies do") come from the registry entry that also holds the cut-off.

    Examples
    --------
    >>> from privlib.results import Result
    >>> r = judge(Result(measure="nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5))
    >>> verdict_sentence(r).split(":")[0]
    'Risk'
    """
    if result.verdict is None:
        return ""
    if result.verdict == NOT_ASSESSABLE:
        return f"Not assessable: {result.verdict_rule}."
    if result.verdict not in VERDICTS:  # set by hand, outside the registry
        return f"Verdict: {result.verdict}."
    entry = REGISTRY.get(result.measure)
    risk_words = entry.risk_words if entry else Threshold.risk_words
    words = {
        RISK: risk_words,
        NO_EVIDENCE: entry.safe_words if entry else Threshold.safe_words,
        INCONCLUSIVE: f"the data cannot tell whether {risk_words}",
    }[result.verdict]
    if result.threshold is None:
        return f"{result.verdict.capitalize()}: {words} ({result.verdict_rule})."
    opening = f"{result.verdict.capitalize()}: {words}"
    if (entry is not None and entry.exact_test) or is_missing(result.ci_low) or is_missing(result.ci_high):
        if result.verdict == INCONCLUSIVE:  # an exact test is inconclusive only through its adjustment
            return f"{opening}; {_alone_not_adjusted(result)} (rule: {result.verdict_rule})."
        low: float | None = result.value
        high: float | None = result.value
        where = f"the value {_number(result.value)}"
    else:
        low, high = result.ci_low, result.ci_high
        where = f"the {result.confidence:.0%} interval {_number(low)} to {_number(high)}"
    sentence = f"{opening}; {where} {_against_cut(result, low, high)} (rule: {result.verdict_rule})."
    if result.verdict == INCONCLUSIVE:
        sentence += " " + _what_settles_it(result)
    return sentence


def _against_cut(result: Result, low: float | None, high: float | None) -> str:
    """Where a judged value or interval lies against the cut-off, in the rule's direction, the
    cut-off itself stated as the safe side it is judged on."""
    side = "above" if result.higher_is_riskier else "below"
    # the end of the interval nearest the risk, and the end nearest safety
    risky_end, safe_end = (high, low) if result.higher_is_riskier else (low, high)
    on_cut = f"the cut-off, which is judged safe (a risk lies strictly {side} it)"
    if result.verdict == RISK:
        return f"lies {side} the cut-off"
    if result.verdict == NO_EVIDENCE:
        if risky_end != result.threshold:
            return "does not reach the cut-off"
        return f"equals {on_cut}" if low == high else f"ends at {on_cut}"
    if safe_end == result.threshold:
        return f"runs from {on_cut}, to beyond it"
    return "straddles the cut-off"


def _alone_not_adjusted(result: Result) -> str:
    """Why an exact test of a measure that adjusts its own readings is inconclusive."""
    n_tests = getattr(result, "n_tests", 0)
    readings = f"its {n_tests} readings" if n_tests else "its readings"
    return (
        f"the strongest reading, {_number(result.value)}, is significant on its own (p = "
        f"{getattr(result, 'raw_p_value', math.nan):.2g}) but not after Holm's adjustment over "
        f"{readings} (adjusted p = {getattr(result, 'p_value', math.nan):.2g} against "
        f"{1 - result.confidence:.2g})"
    )


def _what_settles_it(result: Result) -> str:
    """How many more records would settle an inconclusive verdict, were the value to hold: an
    interval narrows as one over the square root of the records, so its half on the cut-off's
    side must shrink by the factor (half-width / distance to the cut-off)."""
    assert result.threshold is not None and result.ci_low is not None and result.ci_high is not None
    distance = abs(result.value - result.threshold)
    if distance == 0:
        return "The value lies on the cut-off itself: no number of records settles it."
    half = result.value - result.ci_low if result.value > result.threshold else result.ci_high - result.value
    factor = (half / distance) ** 2
    if factor > 100:
        return "The value lies so near the cut-off that a hundred times as many records would not settle it."
    return (
        f"Were the value to hold, about {factor:.2g} times as many records would settle it (an "
        "interval narrows as one over the square root of the records)."
    )
