"""The numbers of the ACS and Adult params audits, pinned.

``pinned_audit_metrics.json`` holds every measure's value, interval, baseline, threshold and verdict
as the audit gave them before the one-spec refactor (issue 20), keyed by today's measure keys: a
change of the audit's seams must not move a number. Tolerance 0 where the computation is unchanged.
A deliberate change of a measure or a rule updates this file in the same commit, with the reason:
``make pins`` rewrites it from fresh audits (``tests/pins.py``) and prints the diff to review.
"""

from __future__ import annotations

import json
import math

import pytest
from pins import AUDITS, PINNED_PATH, as_text, audit

from privlib.audit import read_params
from privlib.audit.report import plain_number
from privlib.pipeline import params_file

PINNED = json.loads(PINNED_PATH.read_text())


@pytest.mark.parametrize("name", AUDITS)
def test_the_params_audits_give_the_pinned_numbers(name, tmp_path):
    report = audit(name, tmp_path)
    got = {m.key: m for m in report.measures}
    assert set(got) == set(PINNED[name]), "measures added or gone: run `make pins` and review its diff"
    for key, pinned in PINNED[name].items():
        for field, expected in pinned.items():
            value = getattr(got[key], field)
            if isinstance(expected, float):
                expected = plain_number(expected)
            assert value == expected or (value is None and expected is None), (key, field, value, expected)
    assert read_params(params_file(name))["seed"] == report.provenance.spec["seed"]
    assert not any(isinstance(m.value, float) and math.isnan(m.value) for m in report.measures)


def test_make_pins_writes_the_file_in_its_own_format():
    # so that `make pins` shows only the numbers that changed, never a reformatted file
    assert as_text(PINNED) == PINNED_PATH.read_text()
