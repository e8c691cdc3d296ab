"""The threshold registry: one place for every cut-off, its direction, its source and its words.

Each entry is keyed by ``Result.measure`` and is declared with its measure, once, in
:mod:`privlib.audit.measures` (the rule beside the measure's title, family and audit wiring);
:data:`REGISTRY` is read from those declarations. A cut-off is either **published** (a paper and where in
it) or a **kit default** judged against the measure's baseline with a stated margin (e.g. "an
attack AUC above 0.5 by more than 0.05"); the entry says which, and why. Three kinds of rule exist:

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
looks at; :func:`disagreements` uses it to explain two measures of one family whose verdicts differ
(e.g. the attack AUC ranks every record, the privacy loss compares each record's nearest synthetic
and nearest real neighbour).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from numbers import Real

from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS, Result

__all__ = [
    "Threshold",
    "REGISTRY",
    "cutoff",
    "judge",
    "check_overrides",
    "rule_text",
    "verdict_sentence",
    "disagreements",
    "registry_frame",
]


class _Registry(Mapping):
    """Every measure's rule, by ``Result.measure``: a view of the declarations in
    :mod:`privlib.audit.measures`, read on first use (they import the measure modules, which this
    module must not import)."""

    def __getitem__(self, key: str) -> Threshold:
        return _registry()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_registry())

    def __len__(self) -> int:
        return len(_registry())


def _registry() -> Mapping[str, Threshold]:
    from privlib.audit.measures import RULES

    return RULES


def _measures():
    from privlib.audit.measures import MEASURES

    return MEASURES


@dataclass(frozen=True)
class Threshold:
    """How one measure is judged, and the words its readings use.

    Attributes
    ----------
    cutoff : float
        The threshold itself; with ``from_baseline`` the margin added to (``higher_is_riskier``)
        or taken from the result's baseline; with ``gap_to`` the share of the gap from the
        baseline to the reference.
    source : str
        Where the cut-off comes from: a paper and the place in it, or "kit default" and the reason.
    higher_is_riskier : bool
        Direction: ``True`` when values above the cut-off are the risk.
    from_baseline : bool
        Whether ``cutoff`` is a margin over the result's baseline rather than an absolute value.
    gap_to : float, str or None
        Reference of a share-of-the-gap rule: a number, or the name of a field of the result.
    per : str or None
        Name of a count field of the result the absolute cut-off is multiplied by.
    fallback : float or None
        Absolute cut-off used when the rule needs a baseline the result lacks (e.g. no holdout).
    published : bool
        Whether the cut-off is published (``True``) or the kit's choice.
    scope : str
        What the measure looks at, in a clause ("ranks every training and holdout record by ...").
    risk_words, safe_words : str
        What a ``risk`` (a ``no evidence of risk``) verdict means for this measure, in a clause.
    """

    cutoff: float
    source: str
    higher_is_riskier: bool = True
    from_baseline: bool = False
    gap_to: float | str | None = None
    per: str | None = None
    fallback: float | None = None
    published: bool = False
    scope: str = ""
    risk_words: str = "the value lies beyond its cut-off"
    safe_words: str = "the value stays on the safe side of its cut-off"

    def __post_init__(self) -> None:
        # a direction written as a word ("lower") or a number would be read as truthy: higher
        if not isinstance(self.higher_is_riskier, bool):
            raise TypeError(
                f"`higher_is_riskier` must be True (values above the cut-off are the risk) or False "
                f"(values below it), got {self.higher_is_riskier!r}."
            )

    def effective(
        self, baseline: float | None, reference: float | None = None, count: float | None = None
    ) -> float | None:
        """The absolute cut-off for a result with this ``baseline``, gap ``reference`` and
        ``count`` (``None`` when the rule needs one of them and there is none)."""
        if self.gap_to is not None:
            if baseline is None or reference is None or _missing(baseline) or _missing(reference):
                return self.fallback
            return baseline + self.cutoff * (reference - baseline)
        if self.from_baseline:
            if baseline is None or _missing(baseline):
                return self.fallback
            return baseline + self.cutoff if self.higher_is_riskier else baseline - self.cutoff
        if self.per is not None:
            return None if count is None or _missing(count) else self.cutoff * count
        return self.cutoff

    def describe(self) -> str:
        """The rule in words, for any result ("risk when the whole interval lies above the
        baseline plus 0.05").

        Examples
        --------
        >>> _registry()["cap"].describe().split(" lies ")[1]
        "above the baseline plus 0.5 of the way to the result's original_cap"
        """
        side = "above" if self.higher_is_riskier else "below"
        if self.gap_to is not None:
            reference = f"the result's {self.gap_to}" if isinstance(self.gap_to, str) else f"{self.gap_to:g}"
            cut = f"the baseline plus {self.cutoff:g} of the way to {reference}"
        elif self.from_baseline:
            cut = f"the baseline {'plus' if self.higher_is_riskier else 'minus'} {self.cutoff:g}"
        elif self.per is not None:
            cut = f"{self.cutoff:g} times the result's {self.per}"
        else:
            cut = f"{self.cutoff:g}"
        if self.fallback is not None:
            cut += f" ({self.fallback:g} when there is no baseline)"
        return f"risk when the whole interval lies {side} {cut}"

    def reference_of(self, result: Result) -> float | None:
        """The gap reference for ``result`` (a number, or the named field's value)."""
        if isinstance(self.gap_to, str):
            return getattr(result, self.gap_to, None)
        return self.gap_to

    def count_of(self, result: Result) -> float | None:
        return getattr(result, self.per, None) if self.per is not None else None


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


#: Every measure's threshold rule, keyed by ``Result.measure`` (declared in
#: :mod:`privlib.audit.measures`).
REGISTRY: Mapping[str, Threshold] = _Registry()


def registry_frame():
    """The registry as a table for a report's "How to read" section: one row per measure with its
    family, rule, whether the cut-off is published, source and scope.

    Examples
    --------
    >>> frame = registry_frame()
    >>> frame.loc["nn_mia_auc", "rule"]
    'risk when the whole interval lies above the baseline plus 0.05'
    """
    import pandas as pd

    rows = [
        dict(
            measure=key,
            family=spec.family,
            title=spec.title,
            rule=spec.rule.describe(),
            published=spec.rule.published,
            source=spec.rule.source,
            scope=spec.rule.scope,
        )
        for key, spec in _measures().items()
        if spec.rule is not None
    ]
    return pd.DataFrame(rows).set_index("measure")


def rule_text(
    entry: Threshold,
    baseline: float | None = None,
    reference: float | None = None,
    count: float | None = None,
) -> str:
    """The rule of ``entry`` in words, with its numbers and source.

    Examples
    --------
    >>> rule_text(_registry()["nn_mia_auc"], 0.5).split(";")[0]
    'risk when the interval lies above 0.55 (the baseline 0.5 plus 0.05)'
    """
    side = "above" if entry.higher_is_riskier else "below"
    value = entry.effective(baseline, reference, count)
    if value is None:
        how = "no cut-off applies without a baseline"
    elif entry.gap_to is not None and not _missing(baseline) and not _missing(reference):
        how = (
            f"risk when the interval lies {side} {value:.3g} (the baseline {baseline:.3g} plus "
            f"{entry.cutoff:.3g} of the way to {reference:.3g})"
        )
    elif entry.from_baseline and not _missing(baseline):
        how = (
            f"risk when the interval lies {side} {value:.3g} (the baseline {baseline:.3g} "
            f"{'plus' if entry.higher_is_riskier else 'minus'} {entry.cutoff:.3g})"
        )
    elif entry.per is not None:
        how = f"risk when the interval lies {side} {value:.3g} ({entry.cutoff:.3g} of {count:.0f})"
    elif entry.from_baseline or entry.gap_to is not None:
        how = f"risk when the interval lies {side} {value:.3g} (no baseline: the fallback cut-off)"
    else:
        how = f"risk when the interval lies {side} {value:.3g}"
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
        return _registry()[measure]
    except KeyError:
        raise PrivlibError(
            f"no threshold is registered for measure {measure!r}; the registered measures are "
            f"{sorted(_registry())}."
        ) from None


def check_overrides(thresholds) -> dict[str, float]:
    """Validate user thresholds (measure -> absolute cut-off): known keys, finite numbers."""
    if thresholds is None:
        return {}
    if not isinstance(thresholds, dict):
        raise PrivlibError(
            f"`thresholds` must map measure names to numbers, got {type(thresholds).__name__}; "
            f"the measures are {sorted(_registry())}."
        )
    unknown = sorted(str(k) for k in thresholds if k not in _registry())
    if unknown:
        raise PrivlibError(
            f"`thresholds` names unknown measure(s) {unknown}; the valid keys are {sorted(_registry())}."
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
    if value is None or _missing(value):
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE, verdict_rule="the value is undefined for these data"
        )
    reference, count = entry.reference_of(result), entry.count_of(result)
    baseline = result.baseline
    if (
        entry.gap_to is not None
        and reference is not None
        and baseline is not None
        and not _missing(reference)
        and not _missing(baseline)
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
    low, high = result.ci_low, result.ci_high
    if low is None or high is None or _missing(low) or _missing(high):
        low = high = value
    if entry.higher_is_riskier:
        verdict = RISK if low > cut else NO_EVIDENCE if high <= cut else INCONCLUSIVE
    else:
        verdict = RISK if high < cut else NO_EVIDENCE if low >= cut else INCONCLUSIVE
    assert verdict in VERDICTS
    return dataclasses.replace(
        result,
        threshold=cut,
        verdict=verdict,
        verdict_rule=rule_text(entry, result.baseline, reference, count),
        higher_is_riskier=entry.higher_is_riskier,
    )


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
    entry = _registry().get(result.measure)
    risk_words = entry.risk_words if entry else Threshold.risk_words
    words = {
        RISK: risk_words,
        NO_EVIDENCE: entry.safe_words if entry else Threshold.safe_words,
        INCONCLUSIVE: f"the data cannot tell whether {risk_words}",
    }[result.verdict]
    if result.threshold is None:
        return f"{result.verdict.capitalize()}: {words} ({result.verdict_rule})."
    if _missing(result.ci_low) or _missing(result.ci_high):
        where = f"the value {_number(result.value)}"
    else:
        where = f"the {result.confidence:.0%} interval {_number(result.ci_low)} to {_number(result.ci_high)}"
    side = "above" if result.higher_is_riskier else "below"
    relation = {RISK: f"lies {side}", NO_EVIDENCE: "does not reach", INCONCLUSIVE: "straddles"}[
        result.verdict
    ]
    return (
        f"{result.verdict.capitalize()}: {words}; {where} {relation} the cut-off "
        f"(rule: {result.verdict_rule})."
    )


def disagreements(results) -> list[str]:
    """Sentences explaining pairs of judged results of one family whose verdicts differ
    (one ``risk``, the other ``no evidence of risk``), from the two entries' ``scope``.

    Examples
    --------
    >>> from privlib.results import Result
    >>> auc = judge(Result(measure="nn_mia_auc", value=0.6, ci_low=0.58, ci_high=0.62, baseline=0.5))
    >>> loss = judge(Result(measure="privacy_loss", value=0.0, ci_low=-0.02, ci_high=0.02, baseline=0.0))
    >>> len(disagreements([auc, loss]))
    1
    """
    specs = _measures()
    judged = [r for r in results if r.measure in specs and r.verdict in (RISK, NO_EVIDENCE)]
    out = []
    for i, a in enumerate(judged):
        for b in judged[i + 1 :]:
            sa, sb = specs[a.measure], specs[b.measure]
            if sa.family != sb.family or a.verdict == b.verdict or a.measure == b.measure:
                continue
            risky, safe = (sa, sb) if a.verdict == RISK else (sb, sa)
            out.append(
                f"{risky.title} finds a risk and {safe.title} does not, because they look at "
                f"different things: {risky.title} {risky.rule.scope}, while "
                f"{safe.title} {safe.rule.scope}."
            )
    return out
