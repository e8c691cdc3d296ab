"""The calibration benchmark's logic (benchmarks/calibration.py) on a reduced size: seeded, so the
outcome is fixed; it checks the flags the benchmark counts, on one null draw and its leak."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

# an end-to-end audit, a cluster, a site or many draws: `make unit` leaves it out (`make test` runs it)
pytestmark = pytest.mark.slow

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py"


@pytest.fixture(scope="module")
def calibration():
    spec = importlib.util.spec_from_file_location("calibration", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_twenty_copies_are_flagged_in_both_families_and_the_null_in_neither(calibration):
    # 1,000 records per sample: "2% verbatim" is 20 training records published as they are
    null, copied = calibration.run_draw("adult", "GaussianCopula", 0, 2026, leaks=("2% verbatim",), size=1000)
    assert (null["release"], copied["release"]) == ("null", "2% verbatim")
    assert not null["identity_risk"] and not null["membership_risk"]
    assert copied["identity_risk"] and copied["membership_risk"]
    assert copied["train_copied"] - copied["holdout_copied"] >= 20 - null["holdout_copied"]
    assert copied["nn_called"] >= 20


def test_the_small_run_has_five_nulls_and_five_leaks(calibration):
    tasks = calibration.tasks(small=True, seed=0)
    assert len(tasks) == 5 and sum(len(leaks) for *_, leaks in tasks) == 5
    full = calibration.tasks(small=False, seed=0)
    nulls = [t for t in full if t[1] in calibration.NULL_GENERATORS]
    # no false alarm in n nulls puts Wilson's 95% upper end z^2 / (n + z^2) at or below 5% when
    # n >= 19 z^2 = 73.0 (z = 1.96)
    assert len(nulls) >= 73
    for dataset in ("adult", "acs"):  # every power row has at least 20 draws
        assert sum("1% near copies" in t[4] for t in full if t[0] == dataset) >= 20
        assert sum(t[1] == "OutlierCopies on train" for t in full if t[0] == dataset) >= 20
    assert sum("1% verbatim" in t[4] for t in full if t[0] == "adult") >= 10


def test_a_near_copy_of_all_categorical_records_changes_exactly_one_value(calibration):
    # 30 training records that differ in every column, so a record with one value changed is one
    # value away from its source and at least two from every other record
    train = pd.DataFrame({column: [f"{column}{i}" for i in range(30)] for column in "abc"})
    release = pd.DataFrame({column: ["none"] * 10 for column in "abc"})
    out = calibration.leak(release, train, 0.3, True, np.random.default_rng(0))
    replaced = out[out.ne(release).any(axis=1)]
    assert len(replaced) == 3
    for _, row in replaced.iterrows():
        assert sorted(train.ne(row).sum(axis=1))[:2] == [1, 2]


def test_ten_copied_rare_records_are_flagged_by_the_identity_family(calibration):
    (row,) = calibration.run_draw("adult", "OutlierCopies on train", 0, 2026, size=1000)
    assert row["identity_risk"] and row["rare_copied"] >= 10
