"""The numbers of the ACS and Adult params audits, pinned.

``pinned_audit_metrics.json`` holds every measure's value, interval, baseline, threshold and verdict
as the audit gave them before the one-spec refactor (issue 20), keyed by today's measure keys: a
change of the audit's seams must not move a number. Tolerance 0 where the computation is unchanged.
A deliberate change of a measure or a rule updates this file in the same commit, with the reason:
``make pins`` rewrites it from fresh audits (``tests/pins.py``) and prints the diff to review.

Issue 31 changed: ``cap[*]`` and ``knn_risk_accuracy[*]`` (the training records' excess over the
holdout records, baseline 0, cut-off 0.05), ``copy_test`` and ``nn_mia_tpr_at_0.1pct`` (their
intervals now in ``ci_low``/``ci_high``), and ACS ``adversarial_accuracy`` (a cut-off below 0,
which no accuracy can cross, is not assessable); on Adult, ``singling_out_multivariate``,
``linkability_risk`` and ``inference_risk[income]`` (every one of the 3,000 training records a
target, not 2,000); ``inference_risk[*]`` of both (each target averaged over 16 tie-break draws).

Issue 31, second pass, changed (rules of two measures; nothing else moved):

* ``inference_risk[*]`` of both audits (value, ``ci_low``, ``ci_high``): the training and
  control success rates are compared at one mix of the secret's values (post-stratified, each
  stratum's variance Agresti and Coull's). ACS DIS -0.028 (-0.084 to 0.029) became 0.005 (-0.024
  to 0.035), still no evidence; ACS HICOV 0.049 (-0.016 to 0.114) became 0.049 (0.013 to 0.085),
  still inconclusive; Adult income 0.005 (-0.054 to 0.065) became 0.021 (-0.031 to 0.074), still
  inconclusive.
* ``replicated_uniques`` of both audits (baseline, threshold, value, ``ci_low``, ``ci_high``): the
  training uniques' excess over the holdout uniques replicated by the same release (baseline 0,
  Newcombe's interval, cut-off 0.05). ACS 0.143 of 7 uniques against a chance share of 0.286 + 0.01
  became an excess of 0.143 (-0.158 to 0.513), still inconclusive; Adult 0.164 (0.135 to 0.197)
  against 0.178 became an excess of 0.016 (-0.026 to 0.059), still inconclusive.

Issue 32 changed (a fifth attack of the ensemble; nothing else moved): Adult ``attack_ensemble``
(value, baseline, threshold, ``ci_low``, ``ci_high``). The ensemble now also reads the distance to
the closest synthetic record (``dcr``), Holm over 10 readings instead of 8: its strongest reading
is ``dcr`` at 0.1%, 78 of 3,000 training records called against 3 holdout records (the same
reading as ``nn_mia_tpr_at_0.1pct``), TPR 0.026 (0.0206 to 0.0323) above a baseline of 14 / 3,000
= 0.00467 (the exact test at 5% / 10), where it was the classifier at 1%, 0.043 (0.0360 to 0.0509)
above 0.0177; still risk. Checked against a brute-force numpy Gower search of the audit's tables.
ACS did not move.

The k-NN measures now fit one Gower encoder over the training, holdout and synthetic keys; their
pins did not move (the bundled audits' key ranges are the same either way).
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
    # issue 31: every measure that gives a verdict shows the interval it was read from
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
