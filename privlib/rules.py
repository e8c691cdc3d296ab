"""The rules that judge every measure: cut-off, direction, source and words, keyed by measure.

One :class:`Threshold` per ``Result.measure`` in :data:`RULES`. A cut-off is either **published**
(a paper and where in it) or a **kit default** judged against the measure's baseline with a stated
margin; the rule says which, and why. :mod:`privlib.thresholds` judges results by these rules and
:mod:`privlib.audit.measures` declares each measure with the rule of its key.

This module imports no measure module and no plotting, scikit-learn or numba, so that judging a
result (:func:`privlib.thresholds.judge`) loads none of them and no import cycle runs through the
rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from privlib.results import Result

__all__ = ["Threshold", "RULES", "M_THRESHOLD", "LOW_FPRS", "low_fpr_key", "is_missing"]

#: The relative risk M above which El Emam, Mosquera & Fang (2022) call a release not acceptable.
M_THRESHOLD = 0.2

#: The false-positive rates at which the membership attacks' true-positive rates are judged.
LOW_FPRS = (0.001, 0.01)


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
        >>> RULES["partition_f1"].describe().split(" lies ")[1]
        'above the baseline plus 0.2 of the way to 1'
        >>> RULES["cap"].describe().split(" lies ")[1]
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


def is_missing(value) -> bool:
    """Whether ``value`` is absent: ``None`` or a float NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


_COPIES_SCOPE = (
    "counts exact copies only: a generator that moves every record a little makes none, so read "
    "it with the distance measures"
)
_CHANCE_COPIES = (
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


def _criterion_rule(what: str, scope: str) -> Threshold:
    """The rule of the three criteria of Opinion 05/2014 (baseline 0: training records attacked no
    more easily than the control records)."""
    return Threshold(
        0.05,
        from_baseline=True,
        source=f"kit default: a {what} risk more than 0.05 above 0, that is the attack succeeding "
        "on more than 5% of the targets that the same attack on unseen control records misses; "
        "Giomi et al. (2023, PoPETs 2023(2)) publish no cut-off, and 0.05 is about the interval "
        "half-width that 500 attacks resolve",
        scope=scope,
        risk_words=f"the {what} attack succeeds on training records more often than on records "
        "the generator never saw",
        safe_words=f"the {what} attack does no better on training records than on unseen ones, "
        "within the margin",
    )


def _partition_rule() -> Threshold:
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


def _control_rule(attack: str, quantity: str, context: str, *, scope: str) -> Threshold:
    """The rule of an attribute measure read against its holdout control: the training records'
    excess over the holdout records (baseline 0), with a margin of 0.05."""
    return Threshold(
        0.05,
        from_baseline=True,
        source=f"kit default: the {quantity} of training records more than 0.05 better than that "
        "of holdout records the generator never saw, the difference read from an interval that "
        "resamples both groups. Above guessing, a release teaches something about anyone in the "
        "population; only the training records' excess over the control is a disclosure about "
        f"the people in the data ({context}; 0.05 is about twice the standard error of the "
        "difference between two groups of 2,000 records)",
        scope=scope,
        risk_words=f"the {attack} attack learns the sensitive value of training records better than "
        "that of people the generator never saw",
        safe_words=f"the {attack} attack learns the sensitive value of training records no better than "
        "that of people the generator never saw, within the margin",
    )


_CARLINI_HOLM = (
    "kit default: risk when the strongest reading, after Holm's step-down adjustment over every "
    "attack and false-positive rate read (Holm 1979, Scand. J. Statist. 6(2)), finds more members "
    "than an attack blind to membership by an exact one-sided test at the audit's confidence, no "
    "margin; reading attacks at a false-positive rate of 0.1% and 1% follows Carlini et al., "
    "'Membership Inference Attacks From First Principles', IEEE S&P 2022, and taking the maximum "
    "over an ensemble follows Ward et al. 2025 (Synth-MIA), who find that no single attack dominates"
)


def _low_fpr_rule(attack: str, rate: str) -> Threshold:
    """The exact test of an attack's TPR at a false-positive rate of at most ``rate``: the
    result's baseline is the largest TPR the test puts down to chance, so "above it" is the test."""
    return Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        lowest=0.0,
        highest=1.0,
        source=_CARLINI,
        scope=f"calls a record a member only when its {attack} score beats all but {rate} of the "
        "holdout records, the threshold chosen on the holdout alone: it sees the few members an "
        "attack is sure of, which an AUC averages away",
        risk_words=f"the {attack} attack identifies training records at a false-positive rate of at "
        f"most {rate}, more than chance allows: certain disclosures",
        safe_words=f"at a false-positive rate of at most {rate} the {attack} attack finds no more "
        "training records than chance gives it",
    )


#: Every measure's rule, by ``Result.measure``.
RULES: dict[str, Threshold] = {
    "identical_match_share": Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=_CHANCE_COPIES,
        scope=_COPIES_SCOPE,
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data copies training records no more than chance copies "
        "unseen people, within the margin",
    ),
    "copy_test": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the "
        "training records with a synthetic copy against the holdout records with one; no "
        "margin, since every record copied beyond chance is a disclosure. It replaces the "
        "fixed margin of 1 in 100 of identical_match_share wherever a holdout exists",
        scope="counts real records, training and holdout, that have a synthetic copy (every "
        "categorical value equal, every number within 1% of its range); records at risk are "
        "the training records copied beyond the holdout's rate",
        risk_words="the release copies training records more often than it copies people it "
        "never saw: those records are published",
        safe_words="training records have a synthetic copy no more often than holdout records, "
        "at this confidence",
    ),
    "dcr_zero_share": Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=_CHANCE_COPIES,
        scope="counts synthetic records at Gower distance 0 from a training record (exact "
        "copies); its median distance, reported beside it, shows near copies",
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data sits on training records no more than unseen people "
        "do, within the margin",
    ),
    "replicated_uniques": Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source="kit default: more than 1 in 100 of the original's unique records replicated "
        "beyond the share a holdout sample of other real people replicates by chance; without "
        "a holdout, more than 5 in 100 (synthpop reports the count without a cut-off)",
        scope="looks only at people unique on the key variables, the ones an intruder can single out",
        risk_words="unique people are carried into the synthetic data as unique records beyond chance",
        safe_words="unique people are carried over no more than chance carries them, within the margin",
    ),
    "singling_out_univariate": _criterion_rule(
        "singling-out",
        "asks whether predicates on one column read off the synthetic data isolate exactly one "
        "training record more often than one control record; it targets rare values and "
        "outliers",
    ),
    "singling_out_multivariate": _criterion_rule(
        "singling-out",
        "asks whether predicates on several columns read off the synthetic data isolate "
        "exactly one training record more often than one control record",
    ),
    "linkability_risk": _criterion_rule(
        "linkability",
        "asks whether the synthetic data joins two halves of a person's columns more often for "
        "training than for control records",
    ),
    "expected_match_risk": Threshold(
        0.09,
        per="n_records",
        published=True,
        source="Health Canada (2019), Guidance document on the public release of clinical "
        "information, and the EMA Policy 0070 guidance: an average re-identification "
        "probability of 0.09 for public release, applied here to the expected number of "
        "targets identified per target",
        scope="assumes an intruder who knows every target's original values and picks at "
        "random among the matching synthetic records",
        risk_words="an intruder would identify more targets than the public-release threshold allows",
        safe_words="an intruder would identify fewer targets than the public-release threshold allows",
    ),
    "cap": _control_rule(
        "CAP",
        "average correct attribution probability",
        "Taub et al. 2018 compare CAP with the original data's without a cut-off",
        scope="averages, over the training records and over the holdout records, how often the "
        "synthetic records sharing a person's key carry that person's target value, and judges "
        "the difference",
    ),
    "knn_risk_accuracy": _control_rule(
        "k-NN",
        "share of records whose category the model predicts right",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and counts the training and the holdout "
        "records whose target it predicts correctly, and judges the difference",
    ),
    "knn_risk_relative_error": _control_rule(
        "k-NN",
        "mean error, in interquartile ranges of the target (each record's capped at one),",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and measures how much smaller its error is on "
        "the training records' target than on the holdout records', in interquartile ranges of "
        "the target, each record's error capped at one, so that no outlier can be read back",
    ),
    "inference_risk": _criterion_rule(
        "inference",
        "asks whether nearest synthetic records reveal a secret column more often for training "
        "than for control records",
    ),
    "dcr_holdout_share": Threshold(
        0.05,
        from_baseline=True,
        source="kit default: more than 5 points above the 50% of a generator that memorised "
        "nothing (Clearbox AI's tutorial reads 'about 50% or below' as good, without a cut-off)",
        scope="asks of each synthetic record only which real table holds its nearest record, not how near",
        risk_words="synthetic records sit closer to training than to holdout records more often "
        "than chance allows, a sign of memorisation",
        safe_words="synthetic records sit no closer to training than to holdout records beyond chance",
    ),
    "threshold_attack_precision": Threshold(
        0.05,
        from_baseline=True,
        source="kit default: calling the closer half members is right more than 5 points "
        "above guessing (0.5), the same margin as the attack AUC's",
        scope="calls the closer half of equally many training and holdout records members, "
        "by distance to the nearest synthetic record",
        risk_words="the records closest to the synthetic data are training records more often than guessing",
        safe_words="the records closest to the synthetic data are training records no more "
        "often than guessing, within the margin",
    ),
    "nn_mia_auc": Threshold(
        0.05,
        from_baseline=True,
        source="kit default: an attack AUC more than 0.05 above chance (0.5); Yale et al. "
        "(2019) read 0.5 as no information and publish no cut-off",
        scope="ranks every training and holdout record by its distance to the nearest "
        "synthetic record, so a small shift of all distances counts as much as a few copies",
        risk_words="distance to the synthetic data tells training from holdout records better than chance",
        safe_words="distance to the synthetic data tells training from holdout records no "
        "better than chance, within the margin",
    ),
    "nn_mia_tpr_at_0.1pct": _low_fpr_rule("distance", "0.1%"),
    "nn_mia_tpr_at_1pct": _low_fpr_rule("distance", "1%"),
    "adversarial_accuracy": Threshold(
        0.05,
        from_baseline=True,
        higher_is_riskier=False,
        lowest=0.0,
        highest=1.0,
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
    "privacy_loss": Threshold(
        0.1,
        from_baseline=True,
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
    "partition_f1": _partition_rule(),
    "ground_truth_f1": _partition_rule(),
    "shadow_model_auc": Threshold(
        0.1,
        from_baseline=True,
        source="kit default: a mean AUC over the targets more than 0.1 above chance (0.5); "
        "Stadler, Oprisanu & Troncoso (2022) read any gain over 0.5 on an outlier as a "
        "privacy loss and publish no cut-off; the margin is wider than nn_mia_auc's because "
        "each target's AUC rests on a few dozen shadow pairs",
        scope="asks, for a few chosen target records (outliers by default), whether the "
        "generator's output changes when that one record is in its training data; a worst "
        "case for those records, not an average over all",
        risk_words="the release tells whether the target records were in the training data",
        safe_words="the attack does no better than guessing on the target records, within the margin",
    ),
    "density_attack_auc": Threshold(
        0.05,
        from_baseline=True,
        source="kit default: an attack AUC more than 0.05 above chance (0.5), as for "
        "nn_mia_auc; van Breugel et al. (2023, DOMIAS) report AUCs against 0.5 without a "
        "cut-off",
        scope="ranks every record by how much denser the synthetic data is around it than a "
        "reference sample of real data: local over-fitting, as DOMIAS defines it",
        risk_words="the synthetic data is denser around training records than around unseen ones",
        safe_words="the synthetic data is no denser around training records than around "
        "unseen ones, within the margin",
    ),
    "discriminator_excess_realness": Threshold(
        0.02,
        from_baseline=True,
        source="kit default: synthetic records judged 2 points more 'real' than genuine unseen records",
        scope="asks a classifier trained on training vs synthetic records whether unseen "
        "synthetic records look more like the training data than real unseen records do",
        risk_words="synthetic records look more like the training data than genuine unseen "
        "records, a sign of over-fitting",
        safe_words="synthetic records look no more like the training data than genuine unseen "
        "records, within the margin",
    ),
    # the memorised few (issue 32)
    "rare_copy_test": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the rare "
        "training records with a synthetic copy against the rare holdout records with one, no margin, "
        "since every rare record copied is a disclosure of a person who can be singled out (Stadler, "
        "Oprisanu & Troncoso 2022, USENIX Security; Meeus et al. 2023, 'Achilles' heels', ESORICS)",
        scope="counts copies (every categorical value equal, every number within 1% of its range) of "
        "the rare real records only: no exact real twin and among the 2% most isolated by mean distance "
        "to their 5 nearest other real records, so the chance copies of common records do not drown "
        "them",
        risk_words="the release copies rare training records, people who stand out, more often than "
        "rare people it never saw",
        safe_words="rare training records have a synthetic copy no more often than rare holdout "
        "records, at this confidence",
    ),
    "near_copy_test": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        lowest=0.0,
        highest=1.0,
        source=_CARLINI_HOLM,
        scope="scores each real record by its distance to the nearest other real record over its "
        "distance to the nearest synthetic record, so a copy moved a little stands out even in a dense "
        "region, and reads the score at false-positive rates of 0.1% and 1% (Holm over the two)",
        risk_words="more training records than holdout records have a synthetic record far nearer "
        "than any real neighbour, as near copies do",
        safe_words="training records have a synthetic record far nearer than their real neighbours no "
        "more often than holdout records, at this confidence",
    ),
    "attack_ensemble": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        lowest=0.0,
        highest=1.0,
        source=_CARLINI_HOLM,
        scope="reads four no-box attacks calibrated on real data (DCR-diff, a k-NN density ratio as "
        "in DOMIAS, a local-neighbourhood count and a classifier of synthetic against real records) at "
        "false-positive rates of 0.1% and 1%, thresholds chosen on the holdout alone, and judges the "
        "strongest after correcting for the choice",
        risk_words="one of the attacks identifies training records at a low false-positive rate, more "
        "than chance allows even after correcting for trying several attacks",
        safe_words="none of the attacks finds more training records at a low false-positive rate than "
        "chance gives it, after correcting for trying several",
    ),
    **{
        low_fpr_key(attack, rate): _low_fpr_rule(words, f"{100 * rate:g}%")
        for attack, words in (("density_attack", "density-ratio"), ("shadow_model", "shadow-model"))
        for rate in LOW_FPRS
    },
}
