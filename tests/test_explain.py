"""The columns behind a finding (privlib.audit.explain) and their words on page 1
(privlib.render.why): values worked out by hand on small tables."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest

from privlib.audit.explain import (
    DEFAULT_REMEDY,
    REMEDIES,
    ColumnCount,
    Explanation,
    copy_columns,
    leave_one_out,
    predicate_columns,
    remedy_for,
)
from privlib.render.why import columns_text, copy_lines, finding_text, human_names


def test_predicate_columns_count_the_successful_predicates_using_each_column():
    # 4 predicates over columns (0, 2), (2,), ... : 3 succeed, using column 2 three times, 0 once
    result = types.SimpleNamespace(
        predicate_columns=np.array([[0, 2], [1, 2], [2, 1], [0, 1]]),
        attack_success=np.array([True, False, True, True]),
    )
    named, total = predicate_columns(result, ["age", "sex", "fnlwgt"])
    assert total == 3
    # successful: (0, 2), (2, 1), (0, 1): fnlwgt 2, age 2, sex 2 -> ties kept in column order
    assert named == (ColumnCount("age", 2), ColumnCount("sex", 2), ColumnCount("fnlwgt", 2))
    one = types.SimpleNamespace(predicate_columns=np.array([2, 2, 0]), attack_success=np.array([1, 1, 0]))
    assert predicate_columns(one, ["age", "sex", "fnlwgt"]) == ((ColumnCount("fnlwgt", 2),), 2)


@pytest.mark.slow  # the copy test's compiled matching, about 5 s the first time
def test_copy_columns_count_identical_and_near_copies_and_the_columns_a_release_changes():
    train = pd.DataFrame({"x": [0.0, 10.0, 20.0, 30.0, 40.0, 50.0], "g": list("abcdef")})
    holdout = pd.DataFrame({"x": [100.0, 110.0, 120.0, 130.0, 140.0, 150.0], "g": list("uvwxyz")})
    synthetic = pd.DataFrame(
        {
            # record 0 copied exactly, record 1 within 1% of x's range (0 to 150: 1.5), record 2
            # with its x moved far, record 3 with its g changed
            "x": [0.0, 11.0, 25.0, 30.0],
            "g": ["a", "b", "c", "q"],
        }
    )
    identical, near, columns = copy_columns(
        train=train, synthetic=synthetic, holdout=holdout, numeric_tolerance=0.01
    )
    assert (identical, near) == (1, 1)
    # ignoring x, record 2 (g = "c") gains a copy; ignoring g, record 3 (x = 30) does: one each
    assert sorted(columns, key=lambda c: c.column) == [ColumnCount("g", 1), ColumnCount("x", 1)]


def test_leave_one_out_reruns_a_measure_without_each_column_on_a_seeded_sample():
    def share_of_columns_equal(*, train, synthetic, holdout, random_state=None):
        # a toy measure: how many columns the first records share, as a share of the columns
        same = sum(train[c].iloc[0] == synthetic[c].iloc[0] for c in train.columns)
        return types.SimpleNamespace(value=same / len(train.columns))

    train = pd.DataFrame({"a": [1] * 5, "b": [2] * 5, "c": [3] * 5})
    synthetic = pd.DataFrame({"a": [1] * 5, "b": [9] * 5, "c": [3] * 5})
    full, shifts, size = leave_one_out(
        share_of_columns_equal, train=train, synthetic=synthetic, holdout=train, random_state=0, max_records=3
    )
    # every column: 2 of 3 equal; without a: 1 of 2; without b: 2 of 2; without c: 1 of 2
    assert full == pytest.approx(2 / 3)
    assert shifts == (("a", 0.5), ("b", 1.0), ("c", 0.5))
    assert size == 3  # the sample, at most max_records


def test_every_measure_kind_has_a_remedy_with_a_source():
    assert remedy_for("singling_out_univariate") is REMEDIES["singling_out"]
    assert remedy_for("knn_risk_accuracy") is REMEDIES["knn_risk"]
    assert remedy_for("rare_copy_test") is REMEDIES["rare_copy_test"]  # the longer name wins
    assert remedy_for("nn_mia_auc") is DEFAULT_REMEDY
    assert all(r.source for r in [*REMEDIES.values(), DEFAULT_REMEDY])


def _explanation(kind, **fields):
    return Explanation(family="identity", key="k", measure="singling_out_univariate", kind=kind, **fields)


def test_the_columns_behind_a_finding_in_words():
    predicates = _explanation("predicates", columns=(ColumnCount("fnlwgt", 997),), total=1020)
    # 997 / 1020 = 97.7%: 98%
    assert "fnlwgt in 997 of 1,020 (98%)" in columns_text(predicates)
    assert columns_text(_explanation("predicates")) == "No predicate singled out a training record."
    link = _explanation("link", linked=(("age", "sex"), ("race",)))
    assert columns_text(link) == "The attacker links records on age, sex and on race."
    keys = _explanation("keys", columns=(ColumnCount("age", 0), ColumnCount("sex", 0)), target="income")
    assert columns_text(keys) == "The key combination: age, sex; the sensitive variable read: income."
    copies = _explanation("copies", identical=46, near=47, columns=(ColumnCount("age", 205),))
    assert "46 have an identical copy" in columns_text(copies) and "age (205 more)" in columns_text(copies)
    left = _explanation("left_out", value=0.57, shifts=(("age", 0.55), ("sex", 0.6)), sample=1000)
    assert "these lower it most: age to 0.55." in columns_text(left)  # sex raises it: not named
    lower_riskier = _explanation(
        "left_out", value=0.45, shifts=(("age", 0.40),), sample=10, higher_is_riskier=False
    )
    assert "No single column drives it" in columns_text(lower_riskier)
    assert "15 columns" in columns_text(_explanation("identical", total=15))
    assert "not shown (why)" in columns_text(_explanation("none", note="why"))


def test_findings_carry_their_denominator_and_both_copies_are_named_apart():
    copy = {
        "key": "copy_test",
        "measure": "copy_test",
        "details": {
            "n_train": 3000,
            "n_holdout": 3000,
            "train_copied": 93,
            "holdout_copied": 8,
            "numeric_tolerance": 0.01,
        },
    }
    at_risk = {"count": 85, "what": "training records have a synthetic copy beyond the copies chance gives"}
    text = finding_text(copy, at_risk)
    assert text.startswith("85 training records have a close copy in the synthetic data")
    assert text.endswith(": 85 of 3,000 (2.8%).")  # 85 / 3000 = 2.83%
    zero = {
        "key": "dcr_zero_share",
        "measure": "dcr_zero_share",
        "value": 0.016,
        "details": {"sample_size": None},
    }
    report = {
        "measures": [copy, zero],
        "provenance": {"inputs": [{"role": "synthetic", "rows": 3000}]},
    }
    lines = copy_lines(report)
    # 93 / 3000 = 3.1%; 8 / 3000 = 0.27%; 0.016 * 3000 = 48 identical copies
    assert lines[0].startswith("93 of 3,000 training records (3.1%) have a close copy")
    assert "8 of 3,000 holdout records (0.3%)" in lines[0]
    assert lines[1].startswith("48 of 3,000 synthetic records (1.6%) are identical copies")


def test_attack_names_read_as_people_say_them():
    text = "the dcr attack; dcr_diff, density_ratio, local_neighbourhood at 1%"
    assert human_names(text) == "the DCR attack; DCR-difference, density-ratio, local-neighbourhood at 1%"


def test_page_1_explains_each_deciding_finding_and_the_columns_findings_at_risk():
    from privlib.audit.explain import _deciding_records

    def record(key, family, verdict):
        return types.SimpleNamespace(key=key, measure=key, family=family, verdict=verdict)

    measures = [
        record("copy_test", "identity", "risk"),
        record("dcr_zero_share", "identity", "risk"),  # stated by page 1's copy lines instead
        record("singling_out_univariate", "identity", "risk"),
        record("linkability_risk", "identity", "no evidence of risk"),
        record("cap", "attribute", "no evidence of risk"),
        record("nn_mia_auc", "membership", "inconclusive"),
    ]
    families = [
        types.SimpleNamespace(family="identity", verdict="risk", deciding="copy_test"),
        types.SimpleNamespace(family="attribute", verdict="no evidence of risk", deciding="cap"),
        types.SimpleNamespace(family="membership", verdict="inconclusive", deciding="nn_mia_auc"),
    ]
    report = types.SimpleNamespace(
        measures=measures,
        families=families,
        by_family=lambda f: [m for m in measures if m.family == f],
    )
    assert [m.key for m in _deciding_records(report)] == [
        "copy_test",
        "singling_out_univariate",
        "nn_mia_auc",
    ]
