"""The rules beside the measures they judge: a table of every rule for a report's "How to read"
section, the sentences that explain two verdicts of one family that differ, and the adjustment
of a family's exact tests (:func:`family_decision`), which the family rule
(:mod:`privlib.audit.family_rule`) reads.

These need each measure's title and family (:mod:`privlib.catalogue`) and speak for the audit, so
they live here rather than in :mod:`privlib.thresholds`, which only judges a result.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

import pandas as pd

from privlib.catalogue import MEASURES
from privlib.results import NO_EVIDENCE, RISK
from privlib.uncertainty import DEFAULT_CONFIDENCE

if TYPE_CHECKING:
    from privlib.records import FamilyTests

__all__ = ["registry_frame", "disagreements", "family_decision", "attack_of"]

#: The suffix :func:`privlib.rules.low_fpr_key` gives one attack's reading at one rate.
_RATE_SUFFIX = re.compile(r"_tpr_at_[0-9.e+-]+pct$")


def registry_frame():
    """The registry as a table for a report's "How to read" section: one row per measure with its
    family, rule, whether the cut-off is published, source and scope.

    Examples
    --------
    >>> frame = registry_frame()
    >>> frame.loc["nn_mia_auc", "rule"]
    'risk when the whole interval lies above the baseline plus 0.05'
    """
    rows = [
        dict(
            measure=key,
            family=spec.family,
            title=spec.title,
            rule=spec.rule.describe(),
            published=spec.rule.published,
            source=spec.rule.source,
            scope=spec.rule.scope,
        )
        for key, spec in MEASURES.items()
        if spec.rule is not None
    ]
    return pd.DataFrame(rows).set_index("measure")


def disagreements(results) -> list[str]:
    """Sentences explaining pairs of judged results of one family whose verdicts differ
    (one ``risk``, the other ``no evidence of risk``), from the two entries' ``scope``.

    Examples
    --------
    >>> from privlib.results import Result
    >>> from privlib.thresholds import judge
    >>> auc = judge(Result(measure="nn_mia_auc", value=0.6, ci_low=0.58, ci_high=0.62, baseline=0.5))
    >>> loss = judge(Result(measure="privacy_loss", value=0.0, ci_low=-0.02, ci_high=0.02, baseline=0.0))
    >>> len(disagreements([auc, loss]))
    1
    """
    # only a measure with a rule gives a verdict
    specs = {key: spec for key, spec in MEASURES.items() if spec.rule is not None}
    judged = [r for r in results if r.measure in specs and r.verdict in (RISK, NO_EVIDENCE)]
    out = []
    for i, a in enumerate(judged):
        for b in judged[i + 1 :]:
            sa, sb = specs[a.measure], specs[b.measure]
            if sa.family != sb.family or a.verdict == b.verdict or a.measure == b.measure:
                continue
            risky, safe = (sa, sb) if a.verdict == RISK else (sb, sa)
            assert risky.rule is not None and safe.rule is not None  # only a rule gives a verdict
            out.append(
                f"{risky.title} finds a risk and {safe.title} does not, because they look at "
                f"different things: {risky.title} {risky.rule.scope}, while "
                f"{safe.title} {safe.rule.scope}."
            )
    return out


def attack_of(key: str) -> str:
    """The attack an exact test reads: its key without the rate of a low-FPR reading.

    Examples
    --------
    >>> attack_of("nn_mia_tpr_at_0.1pct"), attack_of("near_copy_test")
    ('nn_mia', 'near_copy_test')
    """
    return _RATE_SUFFIX.sub("", key)


def family_decision(p_values: Mapping[str, float | None], *, confidence=DEFAULT_CONFIDENCE) -> FamilyTests:
    """Which exact tests of one family stay significant once the family's tests are adjusted.

    Holm's weighted step-down procedure (Holm 1979; :func:`privlib.records.family_tests`) over the
    family's exact tests, each *attack* with an equal share of the error rate ``1 - confidence``,
    split equally among its readings at several false-positive rates (``nn_mia_tpr_at_0.1pct`` and
    ``nn_mia_tpr_at_1pct`` share one attack's part). A measure that already adjusts its own
    readings (the near-copy test, the attack ensemble) is one attack with one reading. The family
    raises a false alarm with probability at most ``1 - confidence`` whatever the tests'
    dependence: the weights depend on which tests ran, never on their results. Readings of one
    attack at two rates are close to one test, so counting each as a full test would spend the
    error rate twice on the same evidence.

    Parameters
    ----------
    p_values : mapping of str to float or None
        Measure key to its exact test's p-value; None or NaN (not assessable) is skipped.
    confidence : float, default 0.95

    Returns
    -------
    FamilyTests

    Examples
    --------
    >>> family = family_decision({"nn_mia_tpr_at_0.1pct": 0.004, "nn_mia_tpr_at_1pct": 0.2,
    ...                           "near_copy_test": 0.02})
    >>> family.adjusted["nn_mia_tpr_at_0.1pct"], family.adjusted["near_copy_test"]
    (0.016, 0.03)
    """
    # a measure module: imported here, so that reading the rules loads none (tests/test_thresholds.py)
    from privlib.records import family_tests

    present = [k for k, p in p_values.items() if p is not None and p == p]
    readings = Counter(attack_of(key) for key in present)
    weights = {key: 1 / readings[attack_of(key)] for key in present}
    return family_tests(dict(p_values), confidence=confidence, weights=weights)
