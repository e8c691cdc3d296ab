"""The threshold registry: one place for every cut-off, its direction and its source.

Each entry is keyed by ``Result.measure``. A cut-off is either **published** (a paper and where in
it) or a **kit default** judged against the measure's baseline with a stated margin (e.g. "an
attack AUC above 0.5 by more than 0.05"); the entry says which, and why. :func:`judge` turns a
result and its interval into one of the four verdicts of :mod:`privlib.results`:

* ``risk``: the whole interval lies beyond the cut-off;
* ``no evidence of risk``: the whole interval lies on the safe side (the cut-off itself is safe);
* ``inconclusive``: the interval straddles the cut-off;
* ``not assessable``: the value is undefined, or the measure itself said why it cannot be read.

Readings, reports and notebooks take their numbers from here (:func:`cutoff`), so that a threshold
is typed once.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from numbers import Real

from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS, Result

__all__ = ["Threshold", "REGISTRY", "cutoff", "judge", "check_overrides", "rule_text"]


@dataclass(frozen=True)
class Threshold:
    """How one measure is judged.

    Attributes
    ----------
    measure : str
        ``Result.measure`` of the results this entry judges.
    cutoff : float
        The threshold itself, or, with ``from_baseline``, the margin added to (``higher_is_riskier``)
        or taken from the result's baseline.
    higher_is_riskier : bool
        Direction: ``True`` when values above the cut-off are the risk.
    from_baseline : bool
        Whether ``cutoff`` is a margin over the result's baseline rather than an absolute value.
    fallback : float or None
        Absolute cut-off used when ``from_baseline`` but the result has no baseline (e.g. no holdout
        was given).
    source : str
        Where the cut-off comes from: a paper and the place in it, or "kit default" and the reason.
    published : bool
        Whether the cut-off is published (``True``) or the kit's choice.
    """

    measure: str
    cutoff: float
    source: str
    higher_is_riskier: bool = True
    from_baseline: bool = False
    fallback: float | None = None
    published: bool = False

    def effective(self, baseline: float | None) -> float | None:
        """The absolute cut-off for a result with this ``baseline`` (``None`` when there is none)."""
        if not self.from_baseline:
            return self.cutoff
        if baseline is None or (isinstance(baseline, float) and math.isnan(baseline)):
            return self.fallback
        return baseline + self.cutoff if self.higher_is_riskier else baseline - self.cutoff


def _entry(measure, cutoff, source, **kwargs) -> tuple[str, Threshold]:
    return measure, Threshold(measure=measure, cutoff=cutoff, source=source, **kwargs)


#: Every measure's threshold, keyed by ``Result.measure``.
REGISTRY: dict[str, Threshold] = dict(
    [
        _entry(
            "relative_risk_m", 0.2, published=True,
            source="El Emam, Mosquera & Fang (2022), JAMIA Open 5(4), Discussion: a relative risk "
            "M above 0.2 is not acceptable",
        ),
        _entry(
            "dcr_holdout_share", 0.05, from_baseline=True,
            source="kit default: more than 5 points above the 50% of a generator that memorised "
            "nothing (Clearbox AI's tutorial reads 'about 50% or below' as good, without a cut-off)",
        ),
        _entry(
            "nn_mia_auc", 0.05, from_baseline=True,
            source="kit default: an attack AUC more than 0.05 above chance (0.5); Yale et al. "
            "(2019) read 0.5 as no information and publish no cut-off",
        ),
        _entry(
            "privacy_loss", 0.1, from_baseline=True,
            source="kit default: a fifth of the 0.5 that copying the training data gives (Yale et "
            "al. 2019 read 0 as ideal and publish no cut-off)",
        ),
        _entry(
            "discriminator_excess_realness", 0.02, from_baseline=True,
            source="kit default: synthetic records judged 2 points more 'real' than genuine "
            "unseen records",
        ),
        # issue 15: targeted attacks (privlib.targeted)
        _entry(
            "shadow_model_auc", 0.1, from_baseline=True,
            source="kit default: a mean AUC over the targets more than 0.1 above chance (0.5); "
            "Stadler, Oprisanu & Troncoso (2022) read any gain over 0.5 on an outlier as a "
            "privacy loss and publish no cut-off; the margin is wider than nn_mia_auc's because "
            "each target's AUC rests on a few dozen shadow pairs",
        ),
        _entry(
            "density_attack_auc", 0.05, from_baseline=True,
            source="kit default: an attack AUC more than 0.05 above chance (0.5), as for "
            "nn_mia_auc; van Breugel et al. (2023, DOMIAS) report AUCs against 0.5 without a "
            "cut-off",
        ),
    ]
)


def rule_text(entry: Threshold, baseline: float | None = None) -> str:
    """The rule of ``entry`` in words, with its numbers and source."""
    side = "above" if entry.higher_is_riskier else "below"
    value = entry.effective(baseline)
    if entry.from_baseline and baseline is not None and value is not None:
        how = (f"risk when the interval lies {side} {value:.3g} (the baseline {baseline:.3g} "
               f"{'plus' if entry.higher_is_riskier else 'minus'} {entry.cutoff:.3g})")
    elif value is not None:
        how = f"risk when the interval lies {side} {value:.3g}"
    else:
        how = "no cut-off applies without a baseline"
    return f"{how}; {entry.source}"


def cutoff(measure: str, baseline: float | None = None) -> float | None:
    """The absolute cut-off of ``measure`` for a result with ``baseline``."""
    return _entry_of(measure).effective(baseline)


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
    """``result`` with its threshold, verdict and ``verdict_rule`` from the registry.

    A result that already says it is not assessable keeps that verdict and its reason. With
    ``override`` (an absolute cut-off a custodian chose), that cut-off replaces the registry's.
    """
    if result.verdict == NOT_ASSESSABLE:
        return result
    entry = _entry_of(result.measure)
    if override is not None:
        entry = dataclasses.replace(
            entry, cutoff=float(override), from_baseline=False,
            source=f"set for this audit (the registry's rule: {entry.source})",
        )
    value = result.value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE, verdict_rule="the value is undefined for these data"
        )
    cut = entry.effective(result.baseline)
    if cut is None:
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE,
            verdict_rule="there is no baseline to judge against: " + rule_text(entry),
        )
    low, high = result.ci_low, result.ci_high
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        low = high = value
    if entry.higher_is_riskier:
        verdict = RISK if low > cut else NO_EVIDENCE if high <= cut else INCONCLUSIVE
    else:
        verdict = RISK if high < cut else NO_EVIDENCE if low >= cut else INCONCLUSIVE
    assert verdict in VERDICTS
    return dataclasses.replace(
        result, threshold=cut, verdict=verdict, verdict_rule=rule_text(entry, result.baseline),
        higher_is_riskier=entry.higher_is_riskier,
    )
