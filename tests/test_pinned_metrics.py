"""The numbers of the ACS and Adult params audits, pinned.

``pinned_audit_metrics.json`` holds every measure's value, interval, baseline, threshold and verdict
as the bundled params audits give them, keyed by measure key: a change of the audit's seams must
not move a number. Tolerance 0 where the computation is unchanged. A deliberate change of a measure
or a rule updates this file in the same commit, with the reason and the moved numbers in the commit
message: ``make pins`` rewrites it from fresh audits (``tests/pins.py``) and prints the diff to
review. Besides the numbers, every measure that gives a verdict carries the interval it was read
from, no value is NaN, and the audit used its params file's seed.
"""

from __future__ import annotations

import json
import math

import pytest
from pins import AUDITS, PINNED_PATH, as_text, audit

from privlib.audit import read_params
from privlib.audit.report import plain_number
from privlib.pipeline import params_file
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, RISK

# an end-to-end audit, a cluster, a site or many draws: `make unit` leaves it out (`make test` runs it)
pytestmark = pytest.mark.slow

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
    # every measure that gives a verdict shows the interval it was read from
    assessed = [m for m in report.measures if m.verdict in (RISK, NO_EVIDENCE, INCONCLUSIVE)]
    assert assessed
    lacking = [
        m.key
        for m in assessed
        if m.ci_low is None or m.ci_high is None or not m.ci_low <= m.value <= m.ci_high
    ]
    assert lacking == []


def test_make_pins_writes_the_file_in_its_own_format():
    # so that `make pins` shows only the numbers that changed, never a reformatted file
    assert as_text(PINNED) == PINNED_PATH.read_text()
