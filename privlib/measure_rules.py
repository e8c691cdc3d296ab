"""Every measure's threshold rule, keyed by ``Result.measure``: cut-off, direction, source and words.

Data below the measures: this module imports only :mod:`privlib.rules` (which builds the rules
shared by several measures), so that judging a result (:func:`privlib.thresholds.judge`) loads no
measure, no audit and no rendering. A measure's declaration
(listed in :mod:`privlib.catalogue`) takes its rule from :data:`RULES` under its own key;
``tests/test_measures.py`` checks that every declared rule is the one here.
"""

from __future__ import annotations

from privlib.rules import (
    CARLINI_HOLM,
    LOW_FPRS,
    Threshold,
    exact_share_rule,
    low_fpr_key,
    low_fpr_rule,
    partition_rule,
)

__all__ = ["RULES"]

#: The rule of each measure that has one (a measure compared by eye, such as
#: ``compare_synthesizers``, has none).
RULES: dict[str, Threshold] = {
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
    "nn_mia_tpr_at_0.1pct": low_fpr_rule("distance", "0.1%"),
    "nn_mia_tpr_at_1pct": low_fpr_rule("distance", "1%"),
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
    "partition_f1": partition_rule(),
    "ground_truth_f1": partition_rule(),
    "shadow_model_auc": exact_share_rule(
        source="kit default: risk when the worst target's exact one-sided Mann-Whitney test of "
        "its AUC (Mann & Whitney 1947), after Holm's step-down adjustment over the targets (Holm "
        "1979, Scand. J. Statist. 6(2)), finds the classifier telling the tables made with the "
        "target from those made without it at the audit's confidence, no margin, since a target "
        "told apart is a person whose membership the release gives away; judging each target and "
        "reporting the worst follows Stadler, Oprisanu & Troncoso, 'Synthetic data - anonymisation "
        "groundhog day', USENIX Security 2022, who find outliers exposed where averages are not",
        scope="asks, for a few chosen target records (outliers by default), whether the "
        "generator's output changes when that one record is in its training data; a worst "
        "case for those records, not an average over all",
        risk_words="the release tells whether a target record was in the training data, beyond "
        "chance even after correcting for trying several targets",
        safe_words="the attack tells no target's membership better than chance allows, after "
        "correcting for trying several targets",
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
    "near_copy_test": exact_share_rule(
        source=CARLINI_HOLM,
        scope="scores each real record by its distance to the nearest other real record over its "
        "distance to the nearest synthetic record, so a copy moved a little stands out even in a dense "
        "region, and reads the score at false-positive rates of 0.1% and 1% (Holm over the two)",
        risk_words="more training records than holdout records have a synthetic record far nearer "
        "than any real neighbour, as near copies do",
        safe_words="training records have a synthetic record far nearer than their real neighbours no "
        "more often than holdout records, at this confidence",
    ),
    "attack_ensemble": exact_share_rule(
        source=CARLINI_HOLM,
        scope="reads five no-box attacks calibrated on real data (the distance to the closest synthetic "
        "record, DCR-diff, a k-NN density ratio as in DOMIAS, a local-neighbourhood count and a "
        "classifier of synthetic against real records) at "
        "false-positive rates of 0.1% and 1%, thresholds chosen on the holdout alone, and judges the "
        "strongest after correcting for the choice",
        risk_words="one of the attacks identifies training records at a low false-positive rate, more "
        "than chance allows even after correcting for trying several attacks",
        safe_words="none of the attacks finds more training records at a low false-positive rate than "
        "chance gives it, after correcting for trying several",
    ),
    **{
        low_fpr_key(attack, rate): low_fpr_rule(words, f"{100 * rate:g}%")
        for attack, words in (("density_attack", "density-ratio"), ("shadow_model", "shadow-model"))
        for rate in LOW_FPRS
    },
}
