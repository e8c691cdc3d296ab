"""The catalogue: every measure's declaration, in the order the audit runs and the report shows them.

A measure is a unit: its module holds its key, its result, its function with its constraints and
its declaration (:class:`~privlib.declaration.MeasureSpec`: title, family, threshold rule with its
source, and audit wiring). This module only lists those declarations, in order, and reads from
them the maps the rest of the kit uses: :data:`MEASURES` (every declaration by key),
:data:`CATALOGUE` (the ones the audit lists) and :data:`RULES` (each key's threshold rule, which
:func:`privlib.thresholds.judge` reads). It imports no audit, rendering or plotting module.
To add a measure, see ``privlib/audit/README.md``.
"""

from __future__ import annotations

from privlib.attribute.cap import CAP
from privlib.attribute.inference import INFERENCE_RISK
from privlib.attribute.knn_risk import KNN_RISK_ACCURACY, KNN_RISK_RELATIVE_ERROR
from privlib.declaration import MeasureSpec
from privlib.identity.copy_test import COPY_TEST
from privlib.identity.dcr import DCR_ZERO_SHARE
from privlib.identity.identical_match_share import IDENTICAL_MATCH_SHARE
from privlib.identity.linkability import LINKABILITY_RISK
from privlib.identity.match_risk import EXPECTED_MATCH_RISK
from privlib.identity.replicated_uniques import REPLICATED_UNIQUES
from privlib.identity.singling_out import SINGLING_OUT_MULTIVARIATE, SINGLING_OUT_UNIVARIATE
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
from privlib.rare_attributions import RARE_ATTRIBUTION_TEST
from privlib.rare_copies import RARE_COPY_TEST
from privlib.utility.comparison import COMPARE_SYNTHESIZERS

__all__ = ["MEASURES", "CATALOGUE", "RULES"]


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
    COMPARE_SYNTHESIZERS,
    # -- the memorised few (issue 32): after the distance measures, whose searches they reuse ----
    RARE_COPY_TEST,
    NEAR_COPY_TEST,
    ATTACK_ENSEMBLE,
)

#: Every measure, by key (``Result.measure``).
MEASURES: dict[str, MeasureSpec] = {spec.key: spec for spec in _DECLARED}

#: The measures the audit lists, in the order it runs them.
CATALOGUE: tuple[MeasureSpec, ...] = tuple(spec for spec in _DECLARED if spec.audited)

#: Each measure's threshold rule, by key (a measure compared by eye has none).
RULES: dict = {spec.key: spec.rule for spec in _DECLARED if spec.rule is not None}
