"""Worst-case membership attacks: the targeted shadow-model attack and the DOMIAS density attack.

Both live in :mod:`privlib.membership` (:mod:`privlib.membership.shadow_model`,
:mod:`privlib.membership.density_attack`, with the steps they share in
:mod:`privlib.membership.targeted_setup` and :mod:`privlib.membership.rank_sums`); this module
keeps their names where the lessons, benchmarks and the pipeline import them.
"""

from __future__ import annotations

from privlib.membership.density_attack import DensityAttack, density_attack
from privlib.membership.rank_sums import rank_sum_p_value
from privlib.membership.shadow_model import FEATURE_SETS, ShadowModelAttack, shadow_model_attack
from privlib.membership.targeted_setup import outlier_targets, resolve_synthesizer

__all__ = [
    "FEATURE_SETS",
    "ShadowModelAttack",
    "DensityAttack",
    "resolve_synthesizer",
    "outlier_targets",
    "rank_sum_p_value",
    "shadow_model_attack",
    "density_attack",
]
