"""What a rule is (:class:`Threshold`: cut-off, direction, source and words) and the pieces that
several rules share: the rules of a family of measures, and the sources they cite.

Each measure's rule is written in its declaration, beside its title and wiring (the catalogue,
:mod:`privlib.catalogue`, lists them); :data:`privlib.thresholds.REGISTRY` reads them from there. A cut-off is either
**published** (a paper and where in it) or a **kit default** judged against the measure's baseline
with a stated margin; the rule says which, and why.

This module imports no measure module and no plotting, scikit-learn or numba, and neither do the
declarations (they name their functions by dotted path), so that judging a result
(:func:`privlib.thresholds.judge`) loads none of them and no import cycle runs through the rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from privlib.results import INCONCLUSIVE, RISK
from privlib.validation import Instance, Number, validate_params

if TYPE_CHECKING:
    from privlib.results import Result

__all__ = [
    "Threshold",
    "M_THRESHOLD",
    "LOW_FPRS",
    "low_fpr_key",
    "is_missing",
    "criterion_rule",
    "control_rule",
    "partition_rule",
    "low_fpr_rule",
    "corrected_verdict",
    "CHANCE_COPIES",
    "CARLINI_HOLM",
]

#: The relative risk M above which El Emam, Mosquera & Fang (2022) call a release not acceptable.
M_THRESHOLD = 0.2

#: The false-positive rates at which the membership attacks' true-positive rates are judged.
LOW_FPRS = (0.001, 0.01)


@validate_params(
    {"attack": [Instance(str)], "fpr": [Number(low=0, high=1, closed="neither")]}, skip_nested=True
)
def low_fpr_key(attack: str, fpr: float) -> str:
    """The measure key of ``attack``'s TPR at false-positive rate ``fpr``.

    Examples
    --------
    >>> low_fpr_key("nn_mia", 0.001)
    'nn_mia_tpr_at_0.1pct'
    """
    return f"{attack}_tpr_at_{100 * fpr:g}pct"


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
    exact_test : bool
        Whether the verdict is an exact test on the value itself: the baseline is the largest
        value chance gives at the audit's confidence, so the value above it is the risk and the
        interval, shown beside it, does not decide.
    lowest, highest : float or None
        The values the measure can take: a cut-off beyond them on the risky side cannot be
        crossed, and the result is then not assessable rather than safe by construction.
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
    exact_test: bool = False
    lowest: float | None = None
    highest: float | None = None

    def __post_init__(self) -> None:
        # a direction written as a word ("lower") or a number would be read as truthy: higher
        if not isinstance(self.higher_is_riskier, bool):
            raise TypeError(
                f"`higher_is_riskier` must be True (values above the cut-off are the risk) or False "
                f"(values below it), got {self.higher_is_riskier!r}."
            )

    @property
    def side(self) -> str:
        """Where the risk lies: ``"above"`` or ``"below"`` the cut-off."""
        return "above" if self.higher_is_riskier else "below"

    @property
    def judged(self) -> str:
        """What the verdict reads against the cut-off: the whole interval, or the value alone."""
        return "the value" if self.exact_test else "the whole interval"

    def reachable(self, cut: float) -> bool:
        """Whether some value the measure can take lies on the risky side of ``cut``."""
        if self.higher_is_riskier:
            return self.highest is None or cut < self.highest
        return self.lowest is None or cut > self.lowest

    def effective(
        self, baseline: float | None, reference: float | None = None, count: float | None = None
    ) -> float | None:
        """The absolute cut-off for a result with this ``baseline``, gap ``reference`` and
        ``count`` (``None`` when the rule needs one of them and there is none)."""
        if self.gap_to is not None:
            if baseline is None or reference is None or is_missing(baseline) or is_missing(reference):
                return self.fallback
            return baseline + self.cutoff * (reference - baseline)
        if self.from_baseline:
            if baseline is None or is_missing(baseline):
                return self.fallback
            return baseline + self.cutoff if self.higher_is_riskier else baseline - self.cutoff
        if self.per is not None:
            return None if count is None or is_missing(count) else self.cutoff * count
        return self.cutoff

    def describe(self) -> str:
        """The rule in words, for any result ("risk when the whole interval lies above the
        baseline plus 0.05").

        Examples
        --------
        >>> partition_rule().describe().split(" lies ")[1]
        'above the baseline plus 0.2 of the way to 1'
        >>> Threshold(0.05, source="kit default", from_baseline=True).describe().split(" lies ")[1]
        'above the baseline plus 0.05'
        """
        if self.gap_to is not None:
            reference = f"the result's {self.gap_to}" if isinstance(self.gap_to, str) else f"{self.gap_to:g}"
            cut = f"the baseline plus {self.cutoff:g} of the way to {reference}"
        elif self.from_baseline and self.exact_test:
            cut = "the baseline, the largest value chance gives (an exact test)"
        elif self.from_baseline:
            cut = f"the baseline {'plus' if self.higher_is_riskier else 'minus'} {self.cutoff:g}"
        elif self.per is not None:
            cut = f"{self.cutoff:g} times the result's {self.per}"
        else:
            cut = f"{self.cutoff:g}"
        if self.fallback is not None:
            cut += f" ({self.fallback:g} when there is no baseline)"
        return f"risk when {self.judged} lies {self.side} {cut}"

    def reference_of(self, result: Result) -> float | None:
        """The gap reference for ``result`` (a number, or the named field's value)."""
        if isinstance(self.gap_to, str):
            return getattr(result, self.gap_to, None)
        return self.gap_to

    def count_of(self, result: Result) -> float | None:
        return getattr(result, self.per, None) if self.per is not None else None


def corrected_verdict(alone: str, adjusted_p: float | None, *, level: float) -> str:
    """The verdict of an exact test read among several, once adjusted for the others read with it.

    A test that is a risk on its own (``alone``) stays a risk when its adjusted p-value is at most
    ``level``, and is ``inconclusive`` otherwise: significant alone, not after correction, is
    doubt, neither a finding nor a clearance. Any other verdict, and a test without an adjusted
    p-value, keeps its verdict. The family rule (:mod:`privlib.audit.family_rule`) reads a family's
    exact tests with it; :func:`privlib.thresholds.judge` the readings of a measure that adjusts
    its own (the attack ensemble, the near-copy test).

    Examples
    --------
    >>> corrected_verdict("risk", 0.03, level=0.05), corrected_verdict("risk", 0.06, level=0.05)
    ('risk', 'inconclusive')
    >>> corrected_verdict("no evidence of risk", 0.06, level=0.05)
    'no evidence of risk'
    """
    if alone != RISK or adjusted_p is None or adjusted_p <= level + 1e-12:
        return alone
    return INCONCLUSIVE


def is_missing(value) -> bool:
    """Whether ``value`` is absent: ``None`` or a float NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


#: The source of the copy measures' rules without an exact test (identical matches, DCR zero).
CHANCE_COPIES = (
    "kit default: more than 1 synthetic record in 100 copying a training record beyond the copies "
    "of holdout records that chance gives; without a holdout, more than 5 in 100 (chance copies "
    "can exceed this on data with few distinct records, so give a holdout)"
)
_EL_EMAM_M = (
    "El Emam, Mosquera & Fang (2022), JAMIA Open 5(4), Discussion: a relative risk M = (F1 - F_max) "
    "/ (1 - F_max) above 0.2 is not acceptable, F_max being the F1 of calling everyone a member "
    "(of n/N, or of the attack set's member share t when N is unknown)"
)
_HAMMING_SCOPE = (
    "calls a real record a member when some synthetic record differs from it on at most h binned "
    "variables; it needs an h at which not everyone is called"
)


def criterion_rule(what: str, scope: str) -> Threshold:
    """The rule of the three criteria of Opinion 05/2014 (baseline 0: training records attacked no
    more easily than the control records)."""
    return Threshold(
        0.05,
        from_baseline=True,
        source=f"kit default: a {what} risk more than 0.05 above 0, that is the attack succeeding "
        "on more than 5% of the targets that the same attack on unseen control records misses; "
        "Giomi et al. (2023, PoPETs 2023(2)) publish no cut-off; 0.05 is the kit's margin for every "
        "comparison with the holdout",
        scope=scope,
        risk_words=f"the {what} attack succeeds on training records more often than on records "
        "the generator never saw",
        safe_words=f"the {what} attack does no better on training records than on unseen ones, "
        "within the margin",
    )


def partition_rule() -> Threshold:
    return Threshold(
        M_THRESHOLD,
        gap_to=1.0,
        published=True,
        source=_EL_EMAM_M,
        scope=_HAMMING_SCOPE,
        risk_words="the Hamming attack finds members clearly better than calling everyone a member",
        safe_words="the Hamming attack gains no more than the accepted share over calling everyone a member",
    )


_CARLINI = (
    "kit default: risk when an exact one-sided test at the audit's confidence finds more members "
    "than an attack that cannot tell members from non-members, with no margin, since each member "
    "found there is a certain disclosure (privlib.records); the operating point follows Carlini, "
    "Chien, Nasr, Song, Terzis & Tramer, 'Membership Inference Attacks From First Principles', "
    "IEEE S&P 2022: judge an attack by its true-positive rate at a low false-positive rate, since "
    "an attack that identifies a few members with certainty is a privacy failure even when its AUC "
    "is 0.5"
)


def control_rule(
    attack: str, quantity: str, context: str, *, scope: str, smaller_is_risk: bool = False
) -> Threshold:
    """The rule of an attribute measure read against its holdout control: the training records'
    excess over the holdout records (baseline 0), with a margin of 0.05.

    The excess is oriented so that above the cut-off is the risk; ``smaller_is_risk`` says that
    the ``quantity`` itself is an error, where the training records' lying *below* the holdout
    records' is the risk, and the source words the comparison that way.

    Examples
    --------
    >>> control_rule("k-NN", "mean error", "", scope="", smaller_is_risk=True).source.split(" (")[0]
    'kit default: the mean error of training records more than 0.05 below that of holdout records the generator never saw'
    """
    return Threshold(
        0.05,
        from_baseline=True,
        source=f"kit default: the {quantity} of training records more than 0.05 "
        f"{'below' if smaller_is_risk else 'above'} that of "
        "holdout records the generator never saw (an interval resampling both groups); the "
        "holdout's value, what anyone in the population learns, is context ("
        f"{context}; 0.05 is over three standard errors (at most 0.5 sqrt(1/n1 + 1/n2)) once "
        "both groups hold 2,000 records)",
        scope=scope,
        risk_words=f"the {attack} attack learns the sensitive value of training records better than "
        "that of people the generator never saw",
        safe_words=f"the {attack} attack learns the sensitive value of training records no better than "
        "that of people the generator never saw, within the margin",
    )


#: The source of the rules of the calibrated attacks read at low false-positive rates with Holm.
CARLINI_HOLM = (
    "kit default: risk when the strongest reading, after Holm's step-down adjustment over every "
    "attack and false-positive rate read (Holm 1979, Scand. J. Statist. 6(2)), finds more members "
    "than an attack blind to membership by an exact one-sided test at the audit's confidence, no "
    "margin; reading attacks at a false-positive rate of 0.1% and 1% follows Carlini et al., "
    "'Membership Inference Attacks From First Principles', IEEE S&P 2022, and taking the maximum "
    "over an ensemble follows Ward et al. 2025 (Synth-MIA), who find that no single attack dominates"
)


def exact_share_rule(*, source: str, scope: str, risk_words: str, safe_words: str) -> Threshold:
    """The rule of a share judged by its exact test: the result's baseline is the largest share
    the test puts down to chance, so "above it" is the test."""
    return Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        lowest=0.0,
        highest=1.0,
        source=source,
        scope=scope,
        risk_words=risk_words,
        safe_words=safe_words,
    )


def low_fpr_rule(attack: str, rate: str) -> Threshold:
    """The exact test of an attack's TPR at a false-positive rate of at most ``rate``."""
    return exact_share_rule(
        source=_CARLINI,
        scope=f"calls a record a member only when its {attack} score beats all but {rate} of the "
        "holdout records, the threshold chosen on the holdout alone: it sees the few members an "
        "attack is sure of, which an AUC averages away",
        risk_words=f"the {attack} attack identifies training records at a false-positive rate of at "
        f"most {rate}, more than chance allows: certain disclosures",
        safe_words=f"at a false-positive rate of at most {rate} the {attack} attack finds no more "
        "training records than chance gives it",
    )
