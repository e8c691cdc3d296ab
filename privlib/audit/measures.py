"""Every measure of the kit, declared once: title, family, threshold rule and audit wiring.

Each :class:`~privlib.audit.catalogue.MeasureSpec` below is keyed by the ``Result.measure`` of the
results its function returns and carries the :class:`~privlib.rules.Threshold` that judges them,
with its cut-off, source and words; rules shared by several measures are built by the helpers of
:mod:`privlib.rules`. :data:`MEASURES` holds the declarations; the audit's :data:`CATALOGUE` and the
threshold registry (:data:`privlib.thresholds.REGISTRY`) are read from it, so a measure's title,
rule and wiring are typed once.

This module imports no measure module and no plotting library: a declaration names its function,
and a table helper of a measure module, by a :class:`~privlib.audit.catalogue.Reference` (imported
on first call), and its figure helpers import the plots when they draw. So judging a result, which
reads the rules here, loads none of them. ``tests/test_measures.py`` checks that every public
measure is declared here exactly once, that every result the audit can produce has a rule and that
every reference resolves. To add a measure, see ``privlib/audit/README.md``.
"""

from __future__ import annotations

import pandas as pd

from privlib.audit.catalogue import Context, MeasureSpec, Reference, release, with_settings
from privlib.rules import (
    CARLINI_HOLM,
    CHANCE_COPIES,
    LOW_FPRS,
    Threshold,
    control_rule,
    criterion_rule,
    exact_share_rule,
    low_fpr_key,
    low_fpr_rule,
    partition_rule,
)
from privlib.schema import NUMERIC, harmonize

__all__ = ["MEASURES", "CATALOGUE"]

#: Most records per table the discriminator fits and scores (a seeded sample beyond it, stated
#: in its reading): its repeated fits cost as much as several whole-table neighbour searches at a
#: million records, while its intervals at this size are already narrower than its margin.
DISCRIMINATOR_SAMPLE = 100_000


#: Most targets an attack of the criteria draws per group. Up to it every record is a target; past
#: it a seeded draw of this many keeps the cost of a large audit bounded, while the interval of a
#: rate over 20,000 targets (at most +-0.007) stays far inside the rules' margin of 0.05. The
#: reading names the number of attacks made.
MAX_ATTACK_TARGETS = 20_000

#: Most records per table whose nearest-neighbour distances the distance measures read (a seeded
#: sample beyond it, the same records for every distance measure, each searched among every
#: record, stated in their readings): a search of every record of a table costs about a whole-table
#: search per measure question, nine of them at a million records. Over 50,000 records per table
#: the 95% interval of adversarial accuracy spans about +-0.003 and that of the privacy loss about
#: +-0.005 (benchmarks/README.md, 200,000 Adult-like records), a tenth of their margins (0.05 and
#: 0.1) or less; a test at a false-positive rate of 0.1% still rests on 50 holdout records. Exact
#: copies are counted on every record (copy_test), whatever the size.
MAX_DISTANCE_QUERIES = 50_000


def _every_record(context: Context) -> int:
    """Attacks of each criterion of Opinion 05/2014 (singling out, linkability, inference): one
    per training record, every record a target up to :data:`MAX_ATTACK_TARGETS`, so that the
    attacks have all the power the data give (the functions draw no more targets than the smaller
    of training and control has)."""
    return min(len(context.train), MAX_ATTACK_TARGETS)


def _every_record_of_both(context: Context) -> int:
    """Targets per group of the inference attack, which draws each group's own number: every
    training and every holdout record, whichever table is larger (a larger control narrows the
    control rate's interval), up to :data:`MAX_ATTACK_TARGETS`."""
    assert context.holdout is not None  # the measure needs a holdout
    return min(max(len(context.train), len(context.holdout)), MAX_ATTACK_TARGETS)


# -- argument builders ---------------------------------------------------------------------------
def _distance_release(context: Context) -> dict:
    """The release, its distances read on at most :data:`MAX_DISTANCE_QUERIES` records per table."""
    return release(context) | {"max_queries": MAX_DISTANCE_QUERIES}


_SAMPLED_RELEASE = with_settings(_distance_release, random_state="seed")


def _criterion(**fixed):
    """Arguments of a criterion of Opinion 05/2014: the holdout is the control set."""
    return with_settings(
        lambda c: (
            {"synthetic": c.synthetic, "train": c.train, "control": c.holdout, "n_attacks": _every_record(c)}
            | fixed
        ),
        random_state="seed",
    )


def _cap_arguments(context: Context) -> dict:
    columns = context.keys + [context.target]
    original, synthetic = context.binned(columns)
    assert context.holdout is not None  # the measure needs a holdout
    holdout = context.holdout[columns]
    numeric = [c for c in columns if context.kinds.get(c) == NUMERIC]
    if numeric:  # the control cut into the training data's bins, as the synthetic data is
        from privlib.attribute import discretize

        holdout = discretize(
            original=context.train[columns],
            synthetic=holdout,
            columns=numeric,
            n_bins=context.settings["cap_bins"],
        )[1]
    return {
        "original": original,
        "synthetic": synthetic,
        "holdout": holdout,
        "keys": context.keys,
        "target": context.target,
        "random_state": context.settings["seed"],
    }


def _knn_arguments(context: Context) -> dict:
    return {
        "original": context.train,
        "synthetic": context.synthetic,
        "holdout": context.holdout,
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
    from privlib import plots

    shown = {"synthetic to training": result.distances}
    if result.holdout_distances is not None:
        shown["holdout to training"] = result.holdout_distances
    return plots.plot_dcr_histogram(shown, ax=ax, title="Distance to the closest training record")


def _plot_cap(result, ax):
    from privlib import plots

    return plots.plot_cap_scatter(result, ax=ax, title=f"CAP per training record: {result.target[0]}")


def _plot_threshold_attack(result, ax):
    from privlib import plots

    return plots.plot_threshold_precision(result, ax=ax, title="Distance-threshold attack")


def _plot_nn_mia(result, ax):
    from privlib import plots

    return plots.plot_roc(
        result.fpr, result.tpr, auc=result.auc, ax=ax, title="Nearest-neighbour membership attack"
    )


def _plot_low_fpr(result, ax):
    from privlib import plots

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
            source=CHANCE_COPIES,
            scope="counts exact copies only: a generator that moves every record a little makes "
            "none, so read it with the distance measures",
            risk_words="the generator reproduces its training records beyond chance",
            safe_words="the synthetic data copies training records no more than chance copies "
            "unseen people, within the margin",
        ),
        Reference("privlib.identity:identical_match_share"),
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
        Reference("privlib.identity:copy_test"),
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
            source=CHANCE_COPIES,
            scope="counts synthetic records at Gower distance 0 from a training record (exact "
            "copies); its median distance, reported beside it, shows near copies",
            risk_words="the generator reproduces its training records beyond chance",
            safe_words="the synthetic data copies training records exactly no more often than it "
            "matches unseen people, within the margin; near copies are read from the median "
            "distance and the distance measures",
        ),
        Reference("privlib.identity:dcr_summary"),
        _SAMPLED_RELEASE,
        plot=_plot_dcr,
    ),
    MeasureSpec(
        "replicated_uniques",
        "Unique people replicated as unique records",
        "identity",
        Threshold(
            0.05,
            from_baseline=True,
            fallback=0.05,
            # 0.05, the margin of the kit's other training-against-holdout rules: a margin of 0.01 would
            # be under half the standard error of the difference between two groups of about 550
            # uniques (0.022 on Adult at 3,000 records), so no release of that size could clear it.
            source="kit default: training records unique on the keys carried as unique records more "
            "than 0.05 above the share for holdout records unique on the keys (Newcombe's interval; "
            "Fisher's one-sided p-value in the reading), the margin of the kit's other comparisons "
            "with the holdout; without a holdout, more than 5 in 100 replicated at all. synthpop "
            "(Nowok, Raab & Dibben 2016) reports the count without a cut-off",
            scope="looks only at people unique on the key variables, the ones an intruder can single out",
            risk_words="training records unique on the keys are carried into the synthetic data as unique "
            "records more often than unique people the generator never saw",
            safe_words="training records unique on the keys are carried over no more often than unique "
            "people the generator never saw, within the margin",
        ),
        Reference("privlib.identity:replicated_uniques"),
        lambda c: {"original": c.train, "synthetic": c.synthetic, "holdout": c.holdout, "keys": c.keys},
        needs=("keys",),
        at_risk=lambda r: (
            r.records_at_risk,
            "training records unique on the keys are unique, with the same keys, in the synthetic data, "
            "beyond the share of the holdout's unique records the release replicates",
        ),
    ),
    MeasureSpec(
        "singling_out_univariate",
        "Singling out with one column",
        "identity",
        criterion_rule(
            "singling-out",
            "asks whether predicates on one column read off the synthetic data isolate exactly one "
            "training record more often than one control record; it targets rare values and "
            "outliers",
        ),
        Reference("privlib.identity:singling_out"),
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
        criterion_rule(
            "singling-out",
            "asks whether predicates on several columns read off the synthetic data isolate "
            "exactly one training record more often than one control record",
        ),
        Reference("privlib.identity:singling_out"),
        _criterion(mode="multivariate", n_cols=3),
        needs=("holdout",),
    ),
    MeasureSpec(
        "linkability_risk",
        "Linkability",
        "identity",
        criterion_rule(
            "linkability",
            "asks whether the synthetic data joins two halves of a person's columns more often for "
            "training than for control records",
        ),
        Reference("privlib.identity:linkability"),
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "aux_columns": (c.keys, [k for k in c.train.columns if k not in c.keys]),
                "n_attacks": _every_record(c),
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
        control_rule(
            "CAP",
            "average correct attribution probability",
            "Taub et al. 2018 compare CAP with the original data's without a cut-off",
            scope="averages, over the training records and over the holdout records, how often the "
            "synthetic records sharing a person's key carry that person's target value, and judges "
            "the difference",
        ),
        Reference("privlib.attribute:cap"),
        _cap_arguments,
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
        plot=_plot_cap,
        at_risk=lambda r: (
            int((r.per_record == 1).sum()),
            "training records have their sensitive value on every synthetic record with their keys (CAP = 1)",
        ),
    ),
    MeasureSpec(
        "knn_risk_accuracy",
        "Nearest-neighbour prediction of a sensitive category",
        "attribute",
        control_rule(
            "k-NN",
            "share of records whose category the model predicts right",
            "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
            scope="fits a model on the synthetic data and counts the training and the holdout "
            "records whose target it predicts correctly, and judges the difference",
        ),
        Reference("privlib.attribute:knn_risk"),
        _knn_arguments,
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
        applies=lambda c: not _numeric_target(c),
    ),
    MeasureSpec(
        "knn_risk_relative_error",
        "Nearest-neighbour prediction of a sensitive number",
        "attribute",
        control_rule(
            "k-NN",
            "mean error, in interquartile ranges of the target (each record's capped at one),",
            "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
            scope="fits a model on the synthetic data and measures how much smaller its error is on "
            "the training records' target than on the holdout records', in interquartile ranges of "
            "the target, each record's error capped at one, so that no outlier can be read back",
            smaller_is_risk=True,
        ),
        Reference("privlib.attribute:knn_risk"),
        _knn_arguments,
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
        applies=_numeric_target,
    ),
    MeasureSpec(
        "inference_risk",
        "Inference of a sensitive value",
        "attribute",
        criterion_rule(
            "inference",
            "asks whether nearest synthetic records reveal a secret column more often for training "
            "than for control records",
        ),
        Reference("privlib.attribute:inference"),
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "secret": c.target,
                "aux_columns": list(c.keys),
                "n_attacks": _every_record_of_both(c),
            },
            random_state="seed",
        ),
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
    ),
    MeasureSpec(
        "rare_attribution_test",
        "Certain attributions to people unique on the keys, beyond chance",
        "attribute",
        Threshold(
            0.0,
            from_baseline=True,
            exact_test=True,
            source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the training "
            "records unique on the keys whose sensitive value the release gives with certainty against the "
            "holdout records with one, no margin, since each is a disclosure about a person who can be "
            "singled out; a certain attribution is a correct attribution probability of 1 (Taub, Elliot, "
            "Pampaka & Smith 2018, PSD; Taub & Elliot's targeted CAP, 2019)",
            scope="looks only at people whose keys no other real record (training or holdout) shares, and "
            "counts those for whom every synthetic record with their keys carries their sensitive value "
            "(a number within 1% of its range), so a few people exposed are not averaged away",
            risk_words="the release gives the sensitive value of people unique on the keys more often for "
            "training records than for people it never saw",
            safe_words="the release gives the sensitive value of training records unique on the keys no "
            "more often than that of unique people it never saw, at this confidence",
        ),
        Reference("privlib.rare_attributions:rare_attribution_test"),
        lambda c: release(c) | {"keys": c.keys, "target": c.target},
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
        at_risk=lambda r: (
            r.records_at_risk,
            "training records unique on the keys have their sensitive value on every synthetic record "
            "with their keys, beyond the holdout's rate",
        ),
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
            scope="asks of each synthetic record only which real table holds its nearest record, not how near",
            risk_words="synthetic records sit closer to training than to holdout records more often "
            "than chance allows, a sign of memorisation",
            safe_words="synthetic records sit no closer to training than to holdout records beyond chance",
        ),
        Reference("privlib.membership:dcr_holdout_share"),
        _SAMPLED_RELEASE,
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
            risk_words="the records closest to the synthetic data are training records more often than guessing",
            safe_words="the records closest to the synthetic data are training records no more "
            "often than guessing, within the margin",
        ),
        Reference("privlib.membership:threshold_attack"),
        _SAMPLED_RELEASE,
        needs=("holdout",),
        plot=_plot_threshold_attack,
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
            risk_words="distance to the synthetic data tells training from holdout records better than chance",
            safe_words="distance to the synthetic data tells training from holdout records no "
            "better than chance, within the margin",
        ),
        Reference("privlib.membership:nn_mia"),
        _SAMPLED_RELEASE,
        needs=("holdout",),
        plot=_plot_nn_mia,
    ),
    MeasureSpec(
        # after nn_mia_auc: it reads that attack's distances again, without a second search
        "nn_mia_tpr_at_0.1pct",
        "Distance attack at a false-positive rate of 0.1% (TPR)",
        "membership",
        low_fpr_rule("distance", "0.1%"),
        Reference("privlib.membership:nn_mia_low_fpr"),
        _SAMPLED_RELEASE,
        needs=("holdout",),
        plot=_plot_low_fpr,
        table=Reference("privlib.records:operating_points"),
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
        low_fpr_rule("distance", "1%"),
    ),
    MeasureSpec(
        "adversarial_accuracy",
        "Nearest-neighbour adversarial accuracy",
        "membership",
        Threshold(
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
        Reference("privlib.membership:adversarial_accuracy"),
        with_settings(
            lambda c: {"target": c.train, "synthetic": c.synthetic, "max_queries": MAX_DISTANCE_QUERIES},
            random_state="seed",
            n_repeats="repeats",
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
        Reference("privlib.membership:privacy_loss"),
        with_settings(
            lambda c: {
                "train": c.train,
                "test": c.holdout,
                "synthetic": c.synthetic,
                "max_queries": MAX_DISTANCE_QUERIES,
            },
            random_state="seed",
            n_repeats="repeats",
        ),
        needs=("holdout",),
        # its repetitions' neighbour lists answer the distance attacks' and adversarial
        # accuracy's nearest-record searches (of the same MAX_DISTANCE_QUERIES records per table)
        searches_first=True,
    ),
    MeasureSpec(
        "partition_f1",
        "Partitioning attack of El Emam et al. (F1)",
        "membership",
        partition_rule(),
        Reference("privlib.membership:partition_risk"),
        _partition_arguments,
        needs=("holdout",),
    ),
    MeasureSpec(
        "ground_truth_f1",
        "Partitioning attack against the ground truth (F1)",
        "membership",
        partition_rule(),
    ),
    MeasureSpec(
        "shadow_model_auc",
        "Shadow-model attack on chosen records (worst target's AUC)",
        "membership",
        exact_share_rule(
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
        Reference("privlib.membership:shadow_model_attack"),
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
        # per target: its row number in the training file, its distance to its nearest record, its
        # AUC and p-values, never the record
        table=lambda r: r.per_target(),
        at_risk=lambda r: (
            len(r.rows_at_risk),
            "target records whose membership the shadow-model attack tells after Holm's adjustment "
            "over the targets"
            + (f": training rows {', '.join(map(str, r.rows_at_risk))} (0-based)" if r.rows_at_risk else ""),
        ),
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
            low_fpr_key(attack, rate),
            f"{title} at a false-positive rate of {100 * rate:g}% (TPR)",
            "membership",
            low_fpr_rule(words, f"{100 * rate:g}%"),
        )
        for attack, title, words in (
            ("density_attack", "Density attack, DOMIAS,", "density-ratio"),
            ("shadow_model", "Shadow-model attack", "shadow-model"),
        )
        for rate in LOW_FPRS
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
        Reference("privlib.membership:discriminator_test"),
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
        Reference("privlib.utility:compare_synthesizers"),
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
    # -- the memorised few (issue 32): after the distance measures, whose searches they reuse ----
    MeasureSpec(
        "rare_copy_test",
        "Rare training records with a synthetic copy, beyond chance",
        "identity",
        Threshold(
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
        Reference("privlib.rare_copies:rare_copy_test"),
        with_settings(release, random_state="seed"),
        needs=("holdout",),
        at_risk=lambda r: (
            r.records_at_risk,
            "rare training records (no real twin, among the most isolated) have a synthetic copy "
            "beyond the copies chance gives rare holdout records",
        ),
    ),
    MeasureSpec(
        "near_copy_test",
        "Near copies: synthetic records far nearer than real neighbours",
        "membership",
        exact_share_rule(
            source=CARLINI_HOLM,
            scope="scores each real record by its distance to the nearest other real record over its "
            "distance to the nearest synthetic record, so a copy moved a little stands out even in a dense "
            "region, and reads the score at false-positive rates of 0.1% and 1% (Holm over the two)",
            risk_words="more training records than holdout records have a synthetic record far nearer "
            "than any real neighbour, as near copies do",
            safe_words="training records have a synthetic record far nearer than their real neighbours no "
            "more often than holdout records, at this confidence",
        ),
        Reference("privlib.attacks:near_copy_test"),
        _SAMPLED_RELEASE,
        needs=("holdout",),
        table=lambda r: r.per_attack(),
        at_risk=lambda r: (
            r.excess_members,
            "training records have a synthetic record far nearer than any real neighbour, beyond "
            "the holdout rate",
        ),
    ),
    MeasureSpec(
        "attack_ensemble",
        "Strongest of five calibrated membership attacks at a low false-positive rate",
        "membership",
        exact_share_rule(
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
        Reference("privlib.attacks:attack_ensemble"),
        with_settings(release, random_state="seed"),
        needs=("holdout",),
        # per attack: its AUC, and per rate the members called and the raw and adjusted p-values
        table=lambda r: r.per_attack(),
        at_risk=lambda r: (
            r.excess_members,
            f"training records are called members by the {r.deciding_attack or 'strongest'} attack "
            "at a low false-positive rate, beyond the holdout rate",
        ),
    ),
)

#: Every measure, by key (``Result.measure``).
MEASURES: dict[str, MeasureSpec] = {spec.key: spec for spec in _DECLARED}

#: The measures the audit lists, in the order it runs them.
CATALOGUE: tuple[MeasureSpec, ...] = tuple(spec for spec in _DECLARED if spec.audited)
