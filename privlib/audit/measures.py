"""Every measure of the kit, declared once: title, family, threshold rule and audit wiring.

Each :class:`~privlib.audit.catalogue.MeasureSpec` below is keyed by the ``Result.measure`` of the
results its function returns. :data:`MEASURES` holds them all; the threshold registry
(:data:`privlib.thresholds.REGISTRY`, here :data:`RULES`) and the audit's :data:`CATALOGUE` are
read from it, so a cut-off, its source, the words that judge and the measure's title are typed
once. ``tests/test_measures.py`` checks that every public measure is declared here exactly once and
that every result the audit can produce has a rule. To add a measure, see
``privlib/audit/README.md``.
"""

from __future__ import annotations

import pandas as pd

from privlib import attribute, identity, membership, plots, records, utility
from privlib.audit.catalogue import Context, MeasureSpec, release, with_settings
from privlib.schema import NUMERIC, harmonize
from privlib.thresholds import Threshold

__all__ = ["MEASURES", "RULES", "CATALOGUE"]

#: Attacks drawn by each criterion of Opinion 05/2014 (singling out, linkability, inference).
N_ATTACKS = 2000
#: Most records per table the discriminator fits and scores (a seeded sample beyond it, stated
#: in its reading): its repeated fits cost as much as several whole-table neighbour searches at a
#: million records, while its intervals at this size are already narrower than its margin.
DISCRIMINATOR_SAMPLE = 100_000

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
        membership.M_THRESHOLD,
        gap_to=1.0,
        published=True,
        source=_EL_EMAM_M,
        scope=_HAMMING_SCOPE,
        risk_words="the Hamming attack finds members clearly better than calling everyone a member",
        safe_words="the Hamming attack gains no more than the accepted share over calling everyone a member",
    )


# -- argument builders ---------------------------------------------------------------------------
def _criterion(**fixed):
    """Arguments of a criterion of Opinion 05/2014: the holdout is the control set."""
    return with_settings(
        lambda c: (
            {"synthetic": c.synthetic, "train": c.train, "control": c.holdout, "n_attacks": N_ATTACKS} | fixed
        ),
        random_state="seed",
    )


def _cap_arguments(context: Context) -> dict:
    original, synthetic = context.binned(context.keys + [context.target])
    return {
        "original": original,
        "synthetic": synthetic,
        "keys": context.keys,
        "target": context.target,
        "random_state": context.settings["seed"],
    }


def _knn_arguments(context: Context) -> dict:
    return {
        "original": context.train,
        "synthetic": context.synthetic,
        "keys": context.keys,
        "target": context.target,
        "random_state": context.settings["seed"],
    }


def _numeric_target(context: Context) -> bool:
    return context.kinds.get(context.target) == NUMERIC


def _partition_arguments(context: Context) -> dict:
    # With N, the attack set holds the share t = n/N of members that reproduces the ground truth.
    known = context.population_size is not None
    return release(context) | {
        "t": None if known else context.settings["attack_share"],
        "h": context.settings["hamming_threshold"],
        "population_size": context.population_size,
        "random_state": context.settings["seed"],
        "n_repeats": context.settings["repeats"],
    }


def _population(context: Context) -> pd.DataFrame:
    """Training and holdout records as one table (shared categories): the real records the
    targeted attack draws its shadow training sets from."""
    assert context.holdout is not None  # the measure needs a holdout
    both = harmonize({"train": context.train, "holdout": context.holdout})
    return pd.concat([both["train"], both["holdout"]], ignore_index=True)


def _plot_dcr(result, ax):
    shown = {"synthetic to training": result.distances}
    if result.holdout_distances is not None:
        shown["holdout to training"] = result.holdout_distances
    return plots.plot_dcr_histogram(shown, ax=ax, title="Distance to the closest training record")


_CARLINI = (
    "kit default: risk when an exact one-sided test at the audit's confidence finds more members "
    "than an attack that cannot tell members from non-members, with no margin, since each member "
    "found there is a certain disclosure (privlib.records); the operating point follows Carlini, "
    "Chien, Nasr, Song, Terzis & Tramer, 'Membership Inference Attacks From First Principles', "
    "IEEE S&P 2022: judge an attack by its true-positive rate at a low false-positive rate, since "
    "an attack that identifies a few members with certainty is a privacy failure even when its AUC "
    "is 0.5"
)


def _low_fpr_rule(attack: str, rate: str) -> Threshold:
    """The exact test of an attack's TPR at a false-positive rate of at most ``rate``: the
    result's baseline is the largest TPR the test puts down to chance, so "above it" is the test."""
    return Threshold(
        0.0,
        from_baseline=True,
        source=_CARLINI,
        scope=f"calls a record a member only when its {attack} score beats all but {rate} of the "
        "holdout records, the threshold chosen on the holdout alone: it sees the few members an "
        "attack is sure of, which an AUC averages away",
        risk_words=f"the {attack} attack identifies training records at a false-positive rate of at "
        f"most {rate}, more than chance allows: certain disclosures",
        safe_words=f"at a false-positive rate of at most {rate} the {attack} attack finds no more "
        "training records than chance gives it",
    )


def _plot_low_fpr(result, ax):
    return plots.plot_roc_loglog(
        {"distance to the nearest synthetic record": (result.member_scores, result.nonmember_scores)},
        ax=ax,
        title="Distance attack: ROC on log axes",
    )


_DECLARED = (
    # -- identity ---------------------------------------------------------------------------------
    MeasureSpec(
        "identical_match_share",
        "Exact copies of training records",
        "identity",
        Threshold(
            0.01,
            from_baseline=True,
            fallback=0.05,
            source=_CHANCE_COPIES,
            scope=_COPIES_SCOPE,
            risk_words="the generator reproduces its training records beyond chance",
            safe_words="the synthetic data copies training records no more than chance copies "
            "unseen people, within the margin",
        ),
        identity.identical_match_share,
        release,
        # with a holdout, the copy test replaces this fixed margin
        applies=lambda c: c.holdout is None,
        at_risk=lambda r: (r.n_train_matches, "synthetic records are exact copies of a training record"),
    ),
    MeasureSpec(
        "copy_test",
        "Training records with a synthetic copy, beyond chance",
        "identity",
        Threshold(
            0.0,
            from_baseline=True,
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
        identity.copy_test,
        release,
        needs=("holdout",),
        at_risk=lambda r: (
            r.records_at_risk,
            "training records have a synthetic copy beyond the copies chance gives holdout records",
        ),
    ),
    MeasureSpec(
        "dcr_zero_share",
        "Synthetic records at distance 0 from a training record",
        "identity",
        Threshold(
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
        identity.dcr_summary,
        release,
        plot=_plot_dcr,
    ),
    MeasureSpec(
        "replicated_uniques",
        "Unique people replicated as unique records",
        "identity",
        Threshold(
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
        identity.replicated_uniques,
        lambda c: {"original": c.train, "synthetic": c.synthetic, "holdout": c.holdout, "keys": c.keys},
        needs=("keys",),
        at_risk=lambda r: (
            r.n_replicated,
            "training records unique on the keys are unique, with the same keys, in the synthetic data",
        ),
    ),
    MeasureSpec(
        "singling_out_univariate",
        "Singling out with one column",
        "identity",
        _criterion_rule(
            "singling-out",
            "asks whether predicates on one column read off the synthetic data isolate exactly one "
            "training record more often than one control record; it targets rare values and "
            "outliers",
        ),
        identity.singling_out,
        _criterion(mode="univariate"),
        needs=("holdout",),
        at_risk=lambda r: (
            r.attack_successes,
            "predicates read off the synthetic data single out exactly one training record",
        ),
    ),
    MeasureSpec(
        "singling_out_multivariate",
        "Singling out with several columns",
        "identity",
        _criterion_rule(
            "singling-out",
            "asks whether predicates on several columns read off the synthetic data isolate "
            "exactly one training record more often than one control record",
        ),
        identity.singling_out,
        _criterion(mode="multivariate", n_cols=3),
        needs=("holdout",),
    ),
    MeasureSpec(
        "linkability_risk",
        "Linkability",
        "identity",
        _criterion_rule(
            "linkability",
            "asks whether the synthetic data joins two halves of a person's columns more often for "
            "training than for control records",
        ),
        identity.linkability,
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "aux_columns": (c.keys, [k for k in c.train.columns if k not in c.keys]),
                "n_attacks": N_ATTACKS,
            },
            random_state="seed",
        ),
        needs=("holdout", "keys"),
    ),
    MeasureSpec(
        "expected_match_risk",
        "Expected matches of partially synthetic records",
        "identity",
        Threshold(
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
        not_applicable="it applies to partially synthetic data, where synthetic record i stands "
        "for training record i; the audit treats the synthetic data as fully synthetic",
    ),
    # -- attribute --------------------------------------------------------------------------------
    MeasureSpec(
        "cap",
        "Correct attribution probability (CAP)",
        "attribute",
        Threshold(
            0.5,
            gap_to="original_cap",
            source="kit default: the synthetic data goes more than half of the way from guessing "
            "from the overall shares to what the original data reveals (Taub et al. 2018 compare "
            "the two without a cut-off)",
            scope="averages, over the original records, how often the synthetic records sharing "
            "a person's key carry that person's target value",
            risk_words="the synthetic data reveals most of what the original reveals about the target",
            safe_words="the synthetic data reveals less than half of what the original reveals "
            "beyond guessing",
        ),
        attribute.cap,
        _cap_arguments,
        needs=("keys", "sensitive"),
        per_target=True,
        plot=lambda r, ax: plots.plot_cap_scatter(r, ax=ax, title=f"CAP per training record: {r.target[0]}"),
        at_risk=lambda r: (
            int((r.per_record == 1).sum()),
            "training records have their sensitive value on every synthetic record with their keys (CAP = 1)",
        ),
    ),
    MeasureSpec(
        "knn_risk_accuracy",
        "Nearest-neighbour prediction of a sensitive category",
        "attribute",
        Threshold(
            0.5,
            gap_to="original_value",
            source="kit default: a model fitted on the synthetic data goes more than half of the "
            "way from the majority-class guess to the same model fitted on the original data "
            "(Choi et al. 2017 compare the two without a cut-off)",
            scope="fits a model on the synthetic data and counts the original records whose "
            "target it predicts correctly",
            risk_words="the synthetic data predicts the target nearly as well as the original",
            safe_words="the synthetic data predicts the target less than half as well as the "
            "original, beyond guessing",
        ),
        attribute.knn_risk,
        _knn_arguments,
        needs=("keys", "sensitive"),
        per_target=True,
        applies=lambda c: not _numeric_target(c),
    ),
    MeasureSpec(
        "knn_risk_relative_error",
        "Nearest-neighbour prediction of a sensitive number",
        "attribute",
        Threshold(
            0.5,
            gap_to="original_value",
            higher_is_riskier=False,
            source="kit default: a model fitted on the synthetic data closes more than half of the "
            "gap in error (in interquartile ranges of the target, each record's error capped at one) "
            "between guessing the median and the same model fitted on the original data (Choi et al. "
            "2017 compare the two without a cut-off)",
            scope="fits a model on the synthetic data and measures its error on the original "
            "records' target, in interquartile ranges of the target, each record's error capped at "
            "one, so that no outlier can be read back from it",
            risk_words="the synthetic data predicts the target nearly as well as the original",
            safe_words="the synthetic data predicts the target less than half as well as the "
            "original, beyond guessing",
        ),
        attribute.knn_risk,
        _knn_arguments,
        needs=("keys", "sensitive"),
        per_target=True,
        applies=_numeric_target,
    ),
    MeasureSpec(
        "inference_risk",
        "Inference of a sensitive value",
        "attribute",
        _criterion_rule(
            "inference",
            "asks whether nearest synthetic records reveal a secret column more often for training "
            "than for control records",
        ),
        attribute.inference,
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "secret": c.target,
                "aux_columns": list(c.keys),
                "n_attacks": N_ATTACKS,
            },
            random_state="seed",
        ),
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
    ),
    # -- membership -------------------------------------------------------------------------------
    MeasureSpec(
        "dcr_holdout_share",
        "Synthetic records closer to training than to holdout",
        "membership",
        Threshold(
            0.05,
            from_baseline=True,
            source="kit default: more than 5 points above the 50% of a generator that memorised "
            "nothing (Clearbox AI's tutorial reads 'about 50% or below' as good, without a cut-off)",
            scope="asks of each synthetic record only which real table holds its nearest record, "
            "not how near",
            risk_words="synthetic records sit closer to training than to holdout records more often "
            "than chance allows, a sign of memorisation",
            safe_words="synthetic records sit no closer to training than to holdout records beyond chance",
        ),
        membership.dcr_holdout_share,
        with_settings(release, random_state="seed"),
        needs=("holdout",),
    ),
    MeasureSpec(
        "threshold_attack_precision",
        "Distance-threshold membership attack (precision)",
        "membership",
        Threshold(
            0.05,
            from_baseline=True,
            source="kit default: calling the closer half members is right more than 5 points "
            "above guessing (0.5), the same margin as the attack AUC's",
            scope="calls the closer half of equally many training and holdout records members, "
            "by distance to the nearest synthetic record",
            risk_words="the records closest to the synthetic data are training records more often "
            "than guessing",
            safe_words="the records closest to the synthetic data are training records no more "
            "often than guessing, within the margin",
        ),
        membership.threshold_attack,
        with_settings(release, random_state="seed"),
        needs=("holdout",),
        plot=lambda r, ax: plots.plot_threshold_precision(r, ax=ax, title="Distance-threshold attack"),
    ),
    MeasureSpec(
        "nn_mia_auc",
        "Nearest-neighbour membership attack (AUC)",
        "membership",
        Threshold(
            0.05,
            from_baseline=True,
            source="kit default: an attack AUC more than 0.05 above chance (0.5); Yale et al. "
            "(2019) read 0.5 as no information and publish no cut-off",
            scope="ranks every training and holdout record by its distance to the nearest "
            "synthetic record, so a small shift of all distances counts as much as a few copies",
            risk_words="distance to the synthetic data tells training from holdout records better "
            "than chance",
            safe_words="distance to the synthetic data tells training from holdout records no "
            "better than chance, within the margin",
        ),
        membership.nn_mia,
        with_settings(release, random_state="seed"),
        needs=("holdout",),
        plot=lambda r, ax: plots.plot_roc(
            r.fpr, r.tpr, auc=r.auc, ax=ax, title="Nearest-neighbour membership attack"
        ),
    ),
    MeasureSpec(
        # after nn_mia_auc: it reads that attack's distances again, without a second search
        "nn_mia_tpr_at_0.1pct",
        "Distance attack at a false-positive rate of 0.1% (TPR)",
        "membership",
        _low_fpr_rule("distance", "0.1%"),
        membership.nn_mia_low_fpr,
        release,
        needs=("holdout",),
        plot=_plot_low_fpr,
        table=records.operating_points,
        at_risk=lambda r: (
            r.excess_members,
            "training records are called members by the distance "
            "attack at a false-positive rate of at most 0.1%, beyond the holdout rate",
        ),
    ),
    MeasureSpec(
        "nn_mia_tpr_at_1pct",
        "Distance attack at a false-positive rate of 1% (TPR)",
        "membership",
        _low_fpr_rule("distance", "1%"),
    ),
    MeasureSpec(
        "adversarial_accuracy",
        "Nearest-neighbour adversarial accuracy",
        "membership",
        Threshold(
            0.05,
            from_baseline=True,
            higher_is_riskier=False,
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
        membership.adversarial_accuracy,
        with_settings(
            lambda c: {"target": c.train, "synthetic": c.synthetic}, random_state="seed", n_repeats="repeats"
        ),
    ),
    MeasureSpec(
        "privacy_loss",
        "Privacy loss (Yale et al.)",
        "membership",
        Threshold(
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
        membership.privacy_loss,
        with_settings(
            lambda c: {"train": c.train, "test": c.holdout, "synthetic": c.synthetic},
            random_state="seed",
            n_repeats="repeats",
        ),
        needs=("holdout",),
    ),
    MeasureSpec(
        "partition_f1",
        "Partitioning attack of El Emam et al. (F1)",
        "membership",
        _partition_rule(),
        membership.partition_risk,
        _partition_arguments,
        needs=("holdout",),
    ),
    MeasureSpec(
        "ground_truth_f1",
        "Partitioning attack against the ground truth (F1)",
        "membership",
        _partition_rule(),
    ),
    MeasureSpec(
        "shadow_model_auc",
        "Shadow-model attack on chosen records (AUC)",
        "membership",
        Threshold(
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
        membership.shadow_model_attack,
        lambda c: {
            "synthesizer": c.settings["targeted_attack"],
            "train": c.train,
            "population": _population(c),
            "n_targets": 5,
            "n_shadows": 40,
            "n_test": 20,
            "n_jobs": 2,
            "random_state": c.settings["seed"],
        },
        needs=("holdout", "targeted_attack"),
        # per target: its row number in the training file and its distance to its nearest record,
        # never the record
        table=lambda r: r.per_target(),
    ),
    MeasureSpec(
        "density_attack_auc",
        "Density membership attack, DOMIAS (AUC)",
        "membership",
        Threshold(
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
    ),
    *(
        MeasureSpec(
            records.low_fpr_key(attack, rate),
            f"{title} at a false-positive rate of {100 * rate:g}% (TPR)",
            "membership",
            _low_fpr_rule(words, f"{100 * rate:g}%"),
        )
        for attack, title, words in (
            ("density_attack", "Density attack, DOMIAS,", "density-ratio"),
            ("shadow_model", "Shadow-model attack", "shadow-model"),
        )
        for rate in records.LOW_FPRS
    ),
    MeasureSpec(
        "discriminator_excess_realness",
        "Discriminator: synthetic records judged real",
        "membership",
        Threshold(
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
        membership.discriminator_test,
        lambda c: (
            with_settings(release, random_state="seed", n_repeats="repeats")(c)
            | {"max_records": DISCRIMINATOR_SAMPLE}
        ),
        needs=("holdout",),
    ),
    # -- comparison -------------------------------------------------------------------------------
    MeasureSpec(
        "compare_synthesizers",
        "Synthetic files side by side",
        "comparison",
        None,
        utility.compare_synthesizers,
        lambda c: {
            "train": c.train,
            "holdout": c.holdout,
            "synthetic": c.synthetics,
            "keys": c.keys,
            "target": c.sensitive[:1],
            "population_size": c.population_size,
            "random_state": c.settings["seed"],
        },
        needs=("several_synthetic", "holdout", "keys", "sensitive"),
    ),
)

#: Every measure, by key (``Result.measure``).
MEASURES: dict[str, MeasureSpec] = {spec.key: spec for spec in _DECLARED}

#: The threshold rule of every measure that has one, by key: the registry of
#: :mod:`privlib.thresholds`.
RULES: dict[str, Threshold] = {key: spec.rule for key, spec in MEASURES.items() if spec.rule is not None}

#: The measures the audit lists, in the order it runs them.
CATALOGUE: tuple[MeasureSpec, ...] = tuple(spec for spec in _DECLARED if spec.audited)
