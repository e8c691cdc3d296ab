"""The catalogue: every measure's declaration, in the order the audit runs and the report shows them.

A measure is a unit: its module holds its key, its result, its function with its constraints and
its declaration (:class:`~privlib.declaration.MeasureSpec`: title, family, threshold rule with its
source, and audit wiring). This module only lists those declarations, in order, and reads from
them the maps the rest of the kit uses: :data:`MEASURES` (every declaration by key),
:data:`CATALOGUE` (the ones the audit lists) and :data:`RULES` (each key's threshold rule, which
:func:`privlib.thresholds.judge` reads). It imports no audit, rendering or plotting module.
Declarations not yet moved into their measure's module are written here. To add a measure, see
``privlib/audit/README.md``.
"""

from __future__ import annotations

import pandas as pd

from privlib.declaration import (
    DISCRIMINATOR_SAMPLE,
    MAX_DISTANCE_QUERIES,
    SAMPLED_RELEASE,
    Context,
    MeasureSpec,
    Reference,
    criterion,
    every_record,
    every_record_of_both,
    release,
    with_settings,
)
from privlib.measure_rules import RULES
from privlib.rules import LOW_FPRS, low_fpr_key
from privlib.schema import NUMERIC, harmonize
from privlib.utility.comparison import COMPARE_SYNTHESIZERS

__all__ = ["MEASURES", "CATALOGUE", "RULES"]


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


_DECLARED = (
    # -- identity ---------------------------------------------------------------------------------
    MeasureSpec(
        "identical_match_share",
        "Exact copies of training records",
        "identity",
        RULES["identical_match_share"],
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
        RULES["copy_test"],
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
        RULES["dcr_zero_share"],
        Reference("privlib.identity:dcr_summary"),
        SAMPLED_RELEASE,
        plot=Reference("privlib.measure_figures:dcr_figure"),
    ),
    MeasureSpec(
        "replicated_uniques",
        "Unique people replicated as unique records",
        "identity",
        RULES["replicated_uniques"],
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
        RULES["singling_out_univariate"],
        Reference("privlib.identity:singling_out"),
        criterion(mode="univariate"),
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
        RULES["singling_out_multivariate"],
        Reference("privlib.identity:singling_out"),
        criterion(mode="multivariate", n_cols=3),
        needs=("holdout",),
    ),
    MeasureSpec(
        "linkability_risk",
        "Linkability",
        "identity",
        RULES["linkability_risk"],
        Reference("privlib.identity:linkability"),
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "aux_columns": (c.keys, [k for k in c.train.columns if k not in c.keys]),
                "n_attacks": every_record(c),
            },
            random_state="seed",
        ),
        needs=("holdout", "keys"),
    ),
    MeasureSpec(
        "expected_match_risk",
        "Expected matches of partially synthetic records",
        "identity",
        RULES["expected_match_risk"],
        not_applicable="it applies to partially synthetic data, where synthetic record i stands "
        "for training record i; the audit treats the synthetic data as fully synthetic",
    ),
    # -- attribute --------------------------------------------------------------------------------
    MeasureSpec(
        "cap",
        "Correct attribution probability (CAP)",
        "attribute",
        RULES["cap"],
        Reference("privlib.attribute:cap"),
        _cap_arguments,
        needs=("holdout", "keys", "sensitive"),
        per_target=True,
        plot=Reference("privlib.measure_figures:cap_figure"),
        at_risk=lambda r: (
            int((r.per_record == 1).sum()),
            "training records have their sensitive value on every synthetic record with their keys (CAP = 1)",
        ),
    ),
    MeasureSpec(
        "knn_risk_accuracy",
        "Nearest-neighbour prediction of a sensitive category",
        "attribute",
        RULES["knn_risk_accuracy"],
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
        RULES["knn_risk_relative_error"],
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
        RULES["inference_risk"],
        Reference("privlib.attribute:inference"),
        with_settings(
            lambda c: {
                "synthetic": c.synthetic,
                "train": c.train,
                "control": c.holdout,
                "secret": c.target,
                "aux_columns": list(c.keys),
                "n_attacks": every_record_of_both(c),
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
        RULES["rare_attribution_test"],
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
        RULES["dcr_holdout_share"],
        Reference("privlib.membership:dcr_holdout_share"),
        SAMPLED_RELEASE,
        needs=("holdout",),
    ),
    MeasureSpec(
        "threshold_attack_precision",
        "Distance-threshold membership attack (precision)",
        "membership",
        RULES["threshold_attack_precision"],
        Reference("privlib.membership:threshold_attack"),
        SAMPLED_RELEASE,
        needs=("holdout",),
        plot=Reference("privlib.measure_figures:threshold_attack_figure"),
    ),
    MeasureSpec(
        "nn_mia_auc",
        "Nearest-neighbour membership attack (AUC)",
        "membership",
        RULES["nn_mia_auc"],
        Reference("privlib.membership:nn_mia"),
        SAMPLED_RELEASE,
        needs=("holdout",),
        plot=Reference("privlib.measure_figures:nn_mia_figure"),
    ),
    MeasureSpec(
        # after nn_mia_auc: it reads that attack's distances again, without a second search
        "nn_mia_tpr_at_0.1pct",
        "Distance attack at a false-positive rate of 0.1% (TPR)",
        "membership",
        RULES["nn_mia_tpr_at_0.1pct"],
        Reference("privlib.membership:nn_mia_low_fpr"),
        SAMPLED_RELEASE,
        needs=("holdout",),
        plot=Reference("privlib.measure_figures:low_fpr_figure"),
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
        RULES["nn_mia_tpr_at_1pct"],
    ),
    MeasureSpec(
        "adversarial_accuracy",
        "Nearest-neighbour adversarial accuracy",
        "membership",
        RULES["adversarial_accuracy"],
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
        RULES["privacy_loss"],
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
        RULES["partition_f1"],
        Reference("privlib.membership:partition_risk"),
        _partition_arguments,
        needs=("holdout",),
    ),
    MeasureSpec(
        "ground_truth_f1",
        "Partitioning attack against the ground truth (F1)",
        "membership",
        RULES["ground_truth_f1"],
    ),
    MeasureSpec(
        "shadow_model_auc",
        "Shadow-model attack on chosen records (worst target's AUC)",
        "membership",
        RULES["shadow_model_auc"],
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
        RULES["density_attack_auc"],
    ),
    *(
        MeasureSpec(
            low_fpr_key(attack, rate),
            f"{title} at a false-positive rate of {100 * rate:g}% (TPR)",
            "membership",
            RULES[low_fpr_key(attack, rate)],
        )
        for attack, title in (
            ("density_attack", "Density attack, DOMIAS,"),
            ("shadow_model", "Shadow-model attack"),
        )
        for rate in LOW_FPRS
    ),
    MeasureSpec(
        "discriminator_excess_realness",
        "Discriminator: synthetic records judged real",
        "membership",
        RULES["discriminator_excess_realness"],
        Reference("privlib.membership:discriminator_test"),
        lambda c: (
            with_settings(release, random_state="seed", n_repeats="repeats")(c)
            | {"max_records": DISCRIMINATOR_SAMPLE}
        ),
        needs=("holdout",),
    ),
    # -- comparison -------------------------------------------------------------------------------
    COMPARE_SYNTHESIZERS,
    # -- the memorised few (issue 32): after the distance measures, whose searches they reuse ----
    MeasureSpec(
        "rare_copy_test",
        "Rare training records with a synthetic copy, beyond chance",
        "identity",
        RULES["rare_copy_test"],
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
        RULES["near_copy_test"],
        Reference("privlib.attacks:near_copy_test"),
        SAMPLED_RELEASE,
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
        RULES["attack_ensemble"],
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

#: Each measure's threshold rule, by key (a measure compared by eye has none).
RULES: dict = {spec.key: spec.rule for spec in _DECLARED if spec.rule is not None}
