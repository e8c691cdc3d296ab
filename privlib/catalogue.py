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

from privlib.declaration import (
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
from privlib.membership.adversarial_accuracy import ADVERSARIAL_ACCURACY
from privlib.membership.attack_ensemble import ATTACK_ENSEMBLE
from privlib.membership.dcr_holdout_share import DCR_HOLDOUT_SHARE
from privlib.membership.density_attack import DENSITY_ATTACK_AUC, DENSITY_ATTACK_LOW_FPR
from privlib.membership.discriminator import DISCRIMINATOR_EXCESS_REALNESS
from privlib.membership.ground_truth import GROUND_TRUTH_F1
from privlib.membership.near_copy_test import NEAR_COPY_TEST
from privlib.membership.nn_mia import NN_MIA, NN_MIA_TPR_AT_01PCT, NN_MIA_TPR_AT_1PCT
from privlib.membership.partition import PARTITION_F1
from privlib.membership.privacy_loss import PRIVACY_LOSS
from privlib.membership.shadow_model import SHADOW_MODEL_AUC, SHADOW_MODEL_LOW_FPR
from privlib.membership.threshold_attack import THRESHOLD_ATTACK
from privlib.schema import NUMERIC

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
    DCR_HOLDOUT_SHARE,
    THRESHOLD_ATTACK,
    NN_MIA,
    NN_MIA_TPR_AT_01PCT,
    NN_MIA_TPR_AT_1PCT,
    ADVERSARIAL_ACCURACY,
    PRIVACY_LOSS,
    PARTITION_F1,
    GROUND_TRUTH_F1,
    SHADOW_MODEL_AUC,
    DENSITY_ATTACK_AUC,
    *DENSITY_ATTACK_LOW_FPR,
    *SHADOW_MODEL_LOW_FPR,
    DISCRIMINATOR_EXCESS_REALNESS,
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
    NEAR_COPY_TEST,
    ATTACK_ENSEMBLE,
)

#: Every measure, by key (``Result.measure``).
MEASURES: dict[str, MeasureSpec] = {spec.key: spec for spec in _DECLARED}

#: The measures the audit lists, in the order it runs them.
CATALOGUE: tuple[MeasureSpec, ...] = tuple(spec for spec in _DECLARED if spec.audited)

#: Each measure's threshold rule, by key (a measure compared by eye has none).
RULES: dict = {spec.key: spec.rule for spec in _DECLARED if spec.rule is not None}
