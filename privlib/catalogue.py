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

from privlib.attribute.cap import CAP
from privlib.attribute.inference import INFERENCE_RISK
from privlib.attribute.knn_risk import KNN_RISK_ACCURACY, KNN_RISK_RELATIVE_ERROR
from privlib.declaration import (
    DISCRIMINATOR_SAMPLE,
    MAX_DISTANCE_QUERIES,
    SAMPLED_RELEASE,
    Context,
    MeasureSpec,
    Reference,
    release,
    with_settings,
)
from privlib.identity.copy_test import COPY_TEST
from privlib.identity.dcr import DCR_ZERO_SHARE
from privlib.identity.identical_match_share import IDENTICAL_MATCH_SHARE
from privlib.identity.linkability import LINKABILITY_RISK
from privlib.identity.match_risk import EXPECTED_MATCH_RISK
from privlib.identity.replicated_uniques import REPLICATED_UNIQUES
from privlib.identity.singling_out import SINGLING_OUT_MULTIVARIATE, SINGLING_OUT_UNIVARIATE
from privlib.measure_rules import RULES
from privlib.rare_attributions import RARE_ATTRIBUTION_TEST
from privlib.rare_copies import RARE_COPY_TEST
from privlib.rules import LOW_FPRS, low_fpr_key
from privlib.schema import harmonize

__all__ = ["MEASURES", "CATALOGUE", "RULES"]


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
    IDENTICAL_MATCH_SHARE,
    COPY_TEST,
    DCR_ZERO_SHARE,
    REPLICATED_UNIQUES,
    SINGLING_OUT_UNIVARIATE,
    SINGLING_OUT_MULTIVARIATE,
    LINKABILITY_RISK,
    EXPECTED_MATCH_RISK,
    # -- attribute --------------------------------------------------------------------------------
    CAP,
    KNN_RISK_ACCURACY,
    KNN_RISK_RELATIVE_ERROR,
    INFERENCE_RISK,
    RARE_ATTRIBUTION_TEST,
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
    RARE_COPY_TEST,
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
