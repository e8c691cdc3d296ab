"""A calibrated ensemble of membership attacks, and near copies read against their neighbourhood.

The measures live in :mod:`privlib.membership` (:mod:`privlib.membership.attack_ensemble`,
:mod:`privlib.membership.near_copy_test`), the attacks' scores in
:mod:`privlib.membership.attack_scores` and their reading at low false-positive rates in
:mod:`privlib.membership.low_fpr_tests`; this module keeps their names where the lessons,
benchmarks and the rare-record measures import them.
"""

from __future__ import annotations

from privlib.membership.attack_ensemble import attack_ensemble
from privlib.membership.attack_scores import (
    ATTACK_RECORDS,
    ATTACKS,
    N_NEIGHBOURS,
    RealNeighbourhoods,
    ensemble_scores,
    real_neighbourhoods,
)
from privlib.membership.attack_scores import _attack_rows as _attack_rows
from privlib.membership.attack_scores import _check_release as _check_release
from privlib.membership.attack_scores import _log_ratio as _log_ratio
from privlib.membership.attack_scores import _neighbourhoods as _neighbourhoods
from privlib.membership.low_fpr_tests import MaxOverTests
from privlib.membership.near_copy_test import near_copy_test

__all__ = [
    "ATTACKS",
    "ATTACK_RECORDS",
    "N_NEIGHBOURS",
    "MaxOverTests",
    "RealNeighbourhoods",
    "attack_ensemble",
    "ensemble_scores",
    "near_copy_test",
    "real_neighbourhoods",
]
