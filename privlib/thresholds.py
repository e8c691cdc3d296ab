"""The threshold registry: one place for every cut-off, its direction, its source and its words.

Each entry is keyed by ``Result.measure``. A cut-off is either **published** (a paper and where in
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
from dataclasses import dataclass
from numbers import Real

from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS, Result

__all__ = ["Threshold", "REGISTRY", "cutoff", "judge", "check_overrides", "rule_text",
           "verdict_sentence", "with_verdict", "disagreements", "registry_frame"]


@dataclass(frozen=True)
class Threshold:
    """How one measure is judged, and the words its readings use.

    Attributes
    ----------
    measure : str
        ``Result.measure`` of the results this entry judges.
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
    family : str
        ``"identity"``, ``"attribute"`` or ``"membership"``: measures of one family answer one
        question, so their verdicts are compared by :func:`disagreements`.
    scope : str
        What the measure looks at, in a clause ("ranks every training and holdout record by ...").
    risk_words, safe_words : str
        What a ``risk`` (a ``no evidence of risk``) verdict means for this measure, in a clause.
    """

    measure: str
    cutoff: float
    source: str
    higher_is_riskier: bool = True
    from_baseline: bool = False
    gap_to: float | str | None = None
    per: str | None = None
    fallback: float | None = None
    published: bool = False
    family: str = ""
    scope: str = ""
    risk_words: str = "the value lies beyond its cut-off"
    safe_words: str = "the value stays on the safe side of its cut-off"

    def effective(self, baseline: float | None, reference: float | None = None,
                  count: float | None = None) -> float | None:
        """The absolute cut-off for a result with this ``baseline``, gap ``reference`` and
        ``count`` (``None`` when the rule needs one of them and there is none)."""
        if self.gap_to is not None:
            if _missing(baseline) or _missing(reference):
                return self.fallback
            return baseline + self.cutoff * (reference - baseline)
        if self.from_baseline:
            if _missing(baseline):
                return self.fallback
            return baseline + self.cutoff if self.higher_is_riskier else baseline - self.cutoff
        if self.per is not None:
            return None if _missing(count) else self.cutoff * count
        return self.cutoff

    def describe(self) -> str:
        """The rule in words, for any result ("risk when the whole interval lies above the
        baseline plus 0.05").

        Examples
        --------
        >>> REGISTRY["cap"].describe().split(" lies ")[1]
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


def _entry(measure, cutoff, source, **kwargs) -> tuple[str, Threshold]:
    return measure, Threshold(measure=measure, cutoff=cutoff, source=source, **kwargs)


_COPIES_SCOPE = (
    "counts exact copies only: a generator that moves every record a little makes none, so read "
    "it with the distance measures"
)
_CHANCE_COPIES = (
    "kit default: more than 1 synthetic record in 100 copying a training record beyond the copies "
    "of holdout records that chance gives; without a holdout, more than 5 in 100 (chance copies "
    "can exceed this on data with few distinct records, so give a holdout)"
)

#: Every measure's threshold, keyed by ``Result.measure``.
REGISTRY: dict[str, Threshold] = dict(
    [
        _entry(
            "relative_risk_m", 0.2, published=True, family="membership",
            source="El Emam, Mosquera & Fang (2022), JAMIA Open 5(4), Discussion: a relative risk "
            "M above 0.2 is not acceptable",
            scope="rescales the Hamming attack's F1 between calling everyone a member (0) and a "
            "perfect attack (1)",
            risk_words="the attack beats calling everyone a member by more than the accepted share",
            safe_words="the attack gains no more than the accepted share over calling everyone a "
            "member",
        ),
        _entry(
            "dcr_holdout_share", 0.05, from_baseline=True, family="membership",
            source="kit default: more than 5 points above the 50% of a generator that memorised "
            "nothing (Clearbox AI's tutorial reads 'about 50% or below' as good, without a cut-off)",
            scope="asks of each synthetic record only which real table holds its nearest record, "
            "not how near",
            risk_words="synthetic records sit closer to training than to holdout records more often "
            "than chance allows, a sign of memorisation",
            safe_words="synthetic records sit no closer to training than to holdout records beyond "
            "chance",
        ),
        _entry(
            "nn_mia_auc", 0.05, from_baseline=True, family="membership",
            source="kit default: an attack AUC more than 0.05 above chance (0.5); Yale et al. "
            "(2019) read 0.5 as no information and publish no cut-off",
            scope="ranks every training and holdout record by its distance to the nearest "
            "synthetic record, so a small shift of all distances counts as much as a few copies",
            risk_words="distance to the synthetic data tells training from holdout records better "
            "than chance",
            safe_words="distance to the synthetic data tells training from holdout records no "
            "better than chance, within the margin",
        ),
        _entry(
            "privacy_loss", 0.1, from_baseline=True, family="membership",
            source="kit default: a fifth of the 0.5 that copying the training data gives (Yale et "
            "al. 2019 read 0 as ideal and publish no cut-off)",
            scope="compares, record by record, the nearest synthetic with the nearest other real "
            "record, once for training and once for unseen records; ties count against the real "
            "record, so it reacts to exact and near copies rather than to a general shift",
            risk_words="synthetic records stand in for their training records, as near copies do, "
            "clearly more than for unseen records",
            safe_words="synthetic records stand in for training records no more than for unseen "
            "records, within the margin",
        ),
        _entry(
            "discriminator_excess_realness", 0.02, from_baseline=True, family="membership",
            source="kit default: synthetic records judged 2 points more 'real' than genuine "
            "unseen records",
            scope="asks a classifier trained on training vs synthetic records whether unseen "
            "synthetic records look more like the training data than real unseen records do",
            risk_words="synthetic records look more like the training data than genuine unseen "
            "records, a sign of over-fitting",
            safe_words="synthetic records look no more like the training data than genuine unseen "
            "records, within the margin",
        ),
        # Issue 12: a verdict for every measure of identity, attribute and membership.
        _entry(
            "identical_match_share", 0.01, from_baseline=True, fallback=0.05, family="identity",
            source=_CHANCE_COPIES, scope=_COPIES_SCOPE,
            risk_words="the generator reproduces its training records beyond chance",
            safe_words="the synthetic data copies training records no more than chance copies "
            "unseen people, within the margin",
        ),
        _entry(
            "dcr_zero_share", 0.01, from_baseline=True, fallback=0.05, family="identity",
            source=_CHANCE_COPIES,
            scope="counts synthetic records at Gower distance 0 from a training record (exact "
            "copies); its median distance, reported beside it, shows near copies",
            risk_words="the generator reproduces its training records beyond chance",
            safe_words="the synthetic data sits on training records no more than unseen people "
            "do, within the margin",
        ),
        _entry(
            "replicated_uniques", 0.01, from_baseline=True, fallback=0.05, family="identity",
            source="kit default: more than 1 in 100 of the original's unique records replicated "
            "beyond the share a holdout sample of other real people replicates by chance; without "
            "a holdout, more than 5 in 100 (synthpop reports the count without a cut-off)",
            scope="looks only at people unique on the key variables, the ones an intruder can "
            "single out",
            risk_words="unique people are carried into the synthetic data as unique records "
            "beyond chance",
            safe_words="unique people are carried over no more than chance carries them, within "
            "the margin",
        ),
        _entry(
            "expected_match_risk", 0.09, per="n_records", published=True, family="identity",
            source="Health Canada (2019), Guidance document on the public release of clinical "
            "information, and the EMA Policy 0070 guidance: an average re-identification "
            "probability of 0.09 for public release, applied here to the expected number of "
            "targets identified per target",
            scope="assumes an intruder who knows every target's original values and picks at "
            "random among the matching synthetic records",
            risk_words="an intruder would identify more targets than the public-release "
            "threshold allows",
            safe_words="an intruder would identify fewer targets than the public-release "
            "threshold allows",
        ),
        _entry(
            "cap", 0.5, gap_to="original_cap", family="attribute",
            source="kit default: the synthetic data goes more than half of the way from guessing "
            "from the overall shares to what the original data reveals (Taub et al. 2018 compare "
            "the two without a cut-off)",
            scope="averages, over the original records, how often the synthetic records sharing "
            "a person's key carry that person's target value",
            risk_words="the synthetic data reveals most of what the original reveals about the "
            "target",
            safe_words="the synthetic data reveals less than half of what the original reveals "
            "beyond guessing",
        ),
        _entry(
            "knn_risk_accuracy", 0.5, gap_to="original_value", family="attribute",
            source="kit default: a model fitted on the synthetic data goes more than half of the "
            "way from the majority-class guess to the same model fitted on the original data "
            "(Choi et al. 2017 compare the two without a cut-off)",
            scope="fits a model on the synthetic data and counts the original records whose "
            "target it predicts correctly",
            risk_words="the synthetic data predicts the target nearly as well as the original",
            safe_words="the synthetic data predicts the target less than half as well as the "
            "original, beyond guessing",
        ),
        _entry(
            "knn_risk_mse", 0.5, gap_to="original_value", higher_is_riskier=False,
            family="attribute",
            source="kit default: a model fitted on the synthetic data closes more than half of "
            "the gap in squared error between guessing the mean and the same model fitted on the "
            "original data",
            scope="fits a model on the synthetic data and measures its squared error on the "
            "original records' target",
            risk_words="the synthetic data predicts the target nearly as well as the original",
            safe_words="the synthetic data predicts the target less than half as well as the "
            "original, beyond guessing",
        ),
        *(
            _entry(
                measure, 0.2, gap_to=1.0, published=True, family="membership",
                source="El Emam, Mosquera & Fang (2022), JAMIA Open 5(4), Discussion: a relative "
                "risk M = (F1 - F_max) / (1 - F_max) above 0.2 is not acceptable, F_max being the "
                "F1 of calling everyone a member (of n/N, or of the attack set's member share t "
                "when N is unknown)",
                scope="calls a real record a member when some synthetic record differs from it on "
                "at most h binned variables; it needs an h at which not everyone is called",
                risk_words="the Hamming attack finds members clearly better than calling everyone "
                "a member",
                safe_words="the Hamming attack gains no more than the accepted share over calling "
                "everyone a member",
            )
            for measure in ("ground_truth_f1", "partition_f1")
        ),
        _entry(
            "threshold_attack_precision", 0.05, from_baseline=True, family="membership",
            source="kit default: calling the closer half members is right more than 5 points "
            "above guessing (0.5), the same margin as the attack AUC's",
            scope="calls the closer half of equally many training and holdout records members, "
            "by distance to the nearest synthetic record",
            risk_words="the records closest to the synthetic data are training records more often "
            "than guessing",
            safe_words="the records closest to the synthetic data are training records no more "
            "often than guessing, within the margin",
        ),
        _entry(
            "adversarial_accuracy", 0.05, from_baseline=True, higher_is_riskier=False,
            family="membership",
            source="kit default: more than 0.05 below the accuracy of indistinguishable tables "
            "(0.5 less half the share of tied comparisons, which the strict '>' of Yale et al. "
            "2019 counts against the real record), the same margin as the attack AUC's",
            scope="compares, record by record, the nearest record in the other table with the "
            "nearest record in the same table; many ties (repeated values) lower it even for "
            "indistinguishable tables, hence the tie-aware baseline",
            risk_words="synthetic records sit closer to real ones than real records sit to each "
            "other, as copies do",
            safe_words="real and synthetic records are no easier to tell apart by their nearest "
            "neighbours than two samples of one distribution, within the margin",
        ),
        # The three criteria of Opinion 05/2014 (privlib.criteria). The baseline of each risk is 0
        # (the training records attacked no more easily than the control records).
        *(
            _entry(
                measure, 0.05, from_baseline=True, family=family,
                source=f"kit default: a {what} risk more than 0.05 above 0, that is the attack "
                "succeeding on more than 5% of the targets that the same attack on unseen control "
                "records misses; Giomi et al. (2023, PoPETs 2023(2)) publish no cut-off, and 0.05 "
                "is about the interval half-width that 500 attacks resolve",
                scope=scope,
                risk_words=f"the {what} attack succeeds on training records more often than on "
                "records the generator never saw",
                safe_words=f"the {what} attack does no better on training records than on unseen "
                "ones, within the margin",
            )
            for measure, what, family, scope in (
                ("singling_out_risk", "singling-out", "identity",
                 "asks whether predicates read off the synthetic data isolate exactly one training "
                 "record more often than one control record; it targets rare values and outliers"),
                ("linkability_risk", "linkability", "identity",
                 "asks whether the synthetic data joins two halves of a person's columns more often "
                 "for training than for control records"),
                ("inference_risk", "inference", "attribute",
                 "asks whether nearest synthetic records reveal a secret column more often for "
                 "training than for control records"),
            )
        ),
        # Targeted attacks (privlib.targeted)
        _entry(
            "shadow_model_auc", 0.1, from_baseline=True, family="membership",
            scope="asks, for a few chosen target records (outliers by default), whether the "
            "generator's output changes when that one record is in its training data; a worst "
            "case for those records, not an average over all",
            risk_words="the release tells whether the target records were in the training data",
            safe_words="the attack does no better than guessing on the target records, within "
            "the margin",
            source="kit default: a mean AUC over the targets more than 0.1 above chance (0.5); "
            "Stadler, Oprisanu & Troncoso (2022) read any gain over 0.5 on an outlier as a "
            "privacy loss and publish no cut-off; the margin is wider than nn_mia_auc's because "
            "each target's AUC rests on a few dozen shadow pairs",
        ),
        _entry(
            "density_attack_auc", 0.05, from_baseline=True, family="membership",
            scope="ranks every record by how much denser the synthetic data is around it than a "
            "reference sample of real data: local over-fitting, as DOMIAS defines it",
            risk_words="the synthetic data is denser around training records than around unseen ones",
            safe_words="the synthetic data is no denser around training records than around "
            "unseen ones, within the margin",
            source="kit default: an attack AUC more than 0.05 above chance (0.5), as for "
            "nn_mia_auc; van Breugel et al. (2023, DOMIAS) report AUCs against 0.5 without a "
            "cut-off",
        ),
    ]
)


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
        dict(measure=e.measure, family=e.family, rule=e.describe(), published=e.published,
             source=e.source, scope=e.scope)
        for e in REGISTRY.values()
    ]
    return pd.DataFrame(rows).set_index("measure")


def rule_text(entry: Threshold, baseline: float | None = None, reference: float | None = None,
              count: float | None = None) -> str:
    """The rule of ``entry`` in words, with its numbers and source.

    Examples
    --------
    >>> rule_text(REGISTRY["nn_mia_auc"], 0.5).split(";")[0]
    'risk when the interval lies above 0.55 (the baseline 0.5 plus 0.05)'
    """
    side = "above" if entry.higher_is_riskier else "below"
    value = entry.effective(baseline, reference, count)
    if value is None:
        how = "no cut-off applies without a baseline"
    elif entry.gap_to is not None and not _missing(baseline) and not _missing(reference):
        how = (f"risk when the interval lies {side} {value:.3g} (the baseline {baseline:.3g} plus "
               f"{entry.cutoff:.3g} of the way to {reference:.3g})")
    elif entry.from_baseline and not _missing(baseline):
        how = (f"risk when the interval lies {side} {value:.3g} (the baseline {baseline:.3g} "
               f"{'plus' if entry.higher_is_riskier else 'minus'} {entry.cutoff:.3g})")
    elif entry.per is not None:
        how = (f"risk when the interval lies {side} {value:.3g} ({entry.cutoff:.3g} of "
               f"{count:.0f})")
    elif entry.from_baseline or entry.gap_to is not None:
        how = f"risk when the interval lies {side} {value:.3g} (no baseline: the fallback cut-off)"
    else:
        how = f"risk when the interval lies {side} {value:.3g}"
    return f"{how}; {entry.source}"


def cutoff(measure: str, baseline: float | None = None, *, reference: float | None = None,
           count: float | None = None) -> float | None:
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
    """``result`` with its threshold, verdict and ``verdict_rule`` from the registry.

    A result that already says it is not assessable keeps that verdict and its reason. With
    ``override`` (an absolute cut-off a custodian chose), that cut-off replaces the registry's.

    Examples
    --------
    >>> from privlib.results import Result
    >>> judge(Result(measure="nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5)).verdict
    'risk'
    >>> judge(Result(measure="nn_mia_auc", value=0.55, ci_low=0.52, ci_high=0.58, baseline=0.5)).verdict
    'inconclusive'
    """
    if result.verdict == NOT_ASSESSABLE:
        return result
    entry = _entry_of(result.measure)
    if override is not None:
        entry = dataclasses.replace(
            entry, cutoff=float(override), from_baseline=False, gap_to=None, per=None,
            source=f"set for this audit (the registry's rule: {entry.source})",
        )
    value = result.value
    if _missing(value):
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE, verdict_rule="the value is undefined for these data"
        )
    reference, count = entry.reference_of(result), entry.count_of(result)
    if entry.gap_to is not None and not _missing(reference) and not _missing(result.baseline):
        gap = reference - result.baseline
        if (gap <= 0) if entry.higher_is_riskier else (gap >= 0):
            return dataclasses.replace(
                result, verdict=NOT_ASSESSABLE, higher_is_riskier=entry.higher_is_riskier,
                verdict_rule=f"the reference ({reference:.3g}) does no better than the baseline "
                f"({result.baseline:.3g}), so there is nothing beyond guessing to reveal and no "
                f"cut-off between them: {entry.source}",
            )
    cut = entry.effective(result.baseline, reference, count)
    if cut is None:
        return dataclasses.replace(
            result, verdict=NOT_ASSESSABLE,
            verdict_rule="there is no baseline to judge against: " + rule_text(entry),
        )
    low, high = result.ci_low, result.ci_high
    if _missing(low) or _missing(high):
        low = high = value
    if entry.higher_is_riskier:
        verdict = RISK if low > cut else NO_EVIDENCE if high <= cut else INCONCLUSIVE
    else:
        verdict = RISK if high < cut else NO_EVIDENCE if low >= cut else INCONCLUSIVE
    assert verdict in VERDICTS
    return dataclasses.replace(
        result, threshold=cut, verdict=verdict,
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
    entry = REGISTRY.get(result.measure)
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
        where = (f"the {result.confidence:.0%} interval {_number(result.ci_low)} to "
                 f"{_number(result.ci_high)}")
    side = "above" if result.higher_is_riskier else "below"
    relation = {RISK: f"lies {side}", NO_EVIDENCE: "does not reach",
                INCONCLUSIVE: "straddles"}[result.verdict]
    return (f"{result.verdict.capitalize()}: {words}; {where} {relation} the cut-off "
            f"(rule: {result.verdict_rule}).")


def with_verdict(facts: str, result: Result) -> str:
    """A measure's reading: its ``facts`` (numbers and column names) followed by
    :func:`verdict_sentence`.

    Examples
    --------
    >>> from privlib.results import Result
    >>> with_verdict("AUC = 0.5.", Result(measure="nn_mia_auc", value=0.5))
    'AUC = 0.5.'
    """
    sentence = verdict_sentence(result)
    return f"{facts} {sentence}" if sentence else facts


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
    judged = [r for r in results if r.measure in REGISTRY and r.verdict in (RISK, NO_EVIDENCE)]
    out = []
    for i, a in enumerate(judged):
        for b in judged[i + 1:]:
            ea, eb = REGISTRY[a.measure], REGISTRY[b.measure]
            if ea.family != eb.family or a.verdict == b.verdict or a.measure == b.measure:
                continue
            risky, safe = (a, b) if a.verdict == RISK else (b, a)
            out.append(
                f"{risky.measure} finds a risk and {safe.measure} does not, because they look at "
                f"different things: {risky.measure} {REGISTRY[risky.measure].scope}, while "
                f"{safe.measure} {REGISTRY[safe.measure].scope}."
            )
    return out
