"""The numbers of the ACS and Adult params audits, pinned.

``pinned_audit_metrics.json`` holds every measure's value, interval, baseline, threshold and verdict
as the audit gave them before the one-spec refactor (issue 20), keyed by today's measure keys: a
change of the audit's seams must not move a number. Tolerance 0 where the computation is unchanged.
A deliberate change of a measure or a rule updates this file in the same commit, with the reason.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from privlib.audit import materialise, read_params, run
from privlib.audit.report import plain_number
from privlib.pipeline import audit_spec, params_file

PINNED = json.loads((Path(__file__).with_name("pinned_audit_metrics.json")).read_text())


@pytest.mark.parametrize("name", ["acs", "adult"])
def test_the_params_audits_give_the_pinned_numbers(name, tmp_path):
    spec, recipe = audit_spec(params=params_file(name))
    made = materialise(recipe | {"seed": spec.seed}, tmp_path)
    report = run(
        spec.model_copy(
            update={
                "train": Path(made["train"]),
                "holdout": Path(made["holdout"]),
                "synthetic": [Path(p) for p in made["synthetic"]],
            }
        )
    )
    got = {m.key: m for m in report.measures}
    assert set(got) == set(PINNED[name])
    for key, pinned in PINNED[name].items():
        for field, expected in pinned.items():
            value = getattr(got[key], field)
            if isinstance(expected, float):
                expected = plain_number(expected)
            assert value == expected or (value is None and expected is None), (key, field, value, expected)
    assert read_params(params_file(name))["seed"] == spec.seed
    assert not any(isinstance(m.value, float) and math.isnan(m.value) for m in report.measures)
