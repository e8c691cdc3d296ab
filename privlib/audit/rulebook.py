"""The rules beside the measures they judge: a table of every rule for a report's "How to read"
section, and the sentences that explain two verdicts of one family that differ.

These need each measure's title and family (:mod:`privlib.audit.measures`), so they live here
rather than in :mod:`privlib.thresholds`, which judges a result without importing any measure.
"""

from __future__ import annotations

import pandas as pd

from privlib.audit.measures import MEASURES
from privlib.results import NO_EVIDENCE, RISK

__all__ = ["registry_frame", "disagreements"]


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
