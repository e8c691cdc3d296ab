"""Result objects shared by every measure.

A measure returns a small frozen dataclass derived from :class:`Result`. It

* prints as one readable line (value, baseline, threshold, verdict),
* turns into a one-row DataFrame with :meth:`Result.to_frame`, so a report table is a
  ``pandas.concat`` of results,
* serialises to plain JSON types with :meth:`Result.to_dict` (for ``metrics.json``),
* keeps per-record values (for plots) in fields marked with :func:`per_record`, which the table
  and JSON views leave out; it never holds the records themselves.

Every result carries a confidence interval (``ci_low``, ``ci_high``, ``ci_method``; see
:mod:`privlib.uncertainty`). Measures return results unjudged; judging is a separate step
(:func:`privlib.thresholds.judge`, called once by the audit runner, or by hand in a notebook) that
fills in one of four verdicts: :data:`RISK`, :data:`NO_EVIDENCE`, :data:`INCONCLUSIVE` or
:data:`NOT_ASSESSABLE`, the rule that gave it (``verdict_rule``) and the sentence a reading ends
with (``judgement``). This module knows nothing of the thresholds themselves.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
import pandas as pd

#: The four verdicts of a judged measure.
RISK: Final = "risk"
NO_EVIDENCE: Final = "no evidence of risk"
INCONCLUSIVE: Final = "inconclusive"
NOT_ASSESSABLE: Final = "not assessable"
VERDICTS = (RISK, NO_EVIDENCE, INCONCLUSIVE, NOT_ASSESSABLE)


def per_record(**kwargs):
    """A dataclass field for per-record arrays: kept on the result, left out of tables and JSON."""
    return field(repr=False, compare=False, metadata={"per_record": True}, **kwargs)


def _plain(value: Any):
    """Convert numpy scalars and arrays to JSON-friendly Python values (NaN becomes None)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_plain(v) for v in value.tolist()]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _fmt(value) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "undefined"
        return f"{value:.4g}"
    return str(value)


@dataclass(frozen=True, kw_only=True)
class Result:
    """Base of every result: one measure with its value and, where they apply, its context.

    Attributes
    ----------
    measure : str
        Name of the measure (e.g. ``"nn_mia_auc"``).
    value : float
        The headline number.
    ci_low, ci_high : float or None
        Ends of the confidence interval of ``value`` (``None`` where none applies). A measure
        repeated over seeded subsamples keeps the spread of its repetitions apart, in
        ``repeat_low``/``repeat_high``.
    ci_method : str or None
        How the interval was computed: ``"wilson"`` or ``"bootstrap"`` (:mod:`privlib.uncertainty`).
    confidence : float
        Level of the interval (0.95 by default).
    baseline : float or None
        What the value is compared with (chance level, the original data's own value, ...).
    threshold : float or None
        The value beyond which the result counts as a risk.
    verdict : str or None
        One of :data:`VERDICTS` once judged by :func:`privlib.thresholds.judge`; ``None`` before.
    verdict_rule : str or None
        The rule that gave the verdict, with its source, or why the measure is not assessable.
    higher_is_riskier : bool
        Direction of the value: ``True`` for a ``*_risk``.
    judgement : str or None
        The sentence that states the verdict, its meaning and the rule, set by the judge; the
        reading ends with it.
    """

    measure: str
    value: float
    ci_low: float | None = None
    ci_high: float | None = None
    ci_method: str | None = None
    confidence: float = 0.95
    baseline: float | None = None
    threshold: float | None = None
    verdict: str | None = None
    verdict_rule: str | None = None
    higher_is_riskier: bool = True
    judgement: str | None = None

    def _scalar_items(self) -> dict:
        items = {}
        for f in dataclasses.fields(self):
            if f.metadata.get("per_record"):
                continue
            items[f.name] = getattr(self, f.name)
        return items

    def to_dict(self) -> dict:
        """The scalar fields as JSON-friendly Python values (per-record arrays left out)."""
        out = {k: _plain(v) for k, v in self._scalar_items().items()}
        out["reading"] = self.reading()
        return out

    def to_frame(self) -> pd.DataFrame:
        """A one-row DataFrame of the scalar fields, indexed by the measure name."""
        items = self._scalar_items()
        row = {k: v for k, v in items.items() if k != "measure"}
        row["reading"] = self.reading()
        return pd.DataFrame([row], index=pd.Index([self.measure], name="measure"))

    def reading(self) -> str:
        """What the value means, from its numbers, then the verdict; subclasses say more."""
        parts = [f"{self.measure} = {_fmt(self.value)}{self._interval_text()}"]
        if self.baseline is not None:
            parts.append(f"baseline {_fmt(self.baseline)}")
        return self.with_judgement(", ".join(parts) + ".")

    def with_judgement(self, facts: str) -> str:
        """A reading: ``facts`` (numbers and column names), then the judge's sentence if any."""
        return f"{facts} {self.judgement}" if self.judgement else facts

    def _interval_text(self) -> str:
        """`` (95% CI 0.41 to 0.47)``, or nothing when the result has no interval or when its
        verdict sentence (:func:`privlib.thresholds.verdict_sentence`) states the interval."""
        if self.ci_low is None or self.ci_high is None or math.isnan(self.ci_low):
            return ""
        if self.verdict in (RISK, NO_EVIDENCE, INCONCLUSIVE) and self.threshold is not None:
            return ""
        return f" ({self.confidence:.0%} CI {_fmt(self.ci_low)} to {_fmt(self.ci_high)})"

    def __str__(self) -> str:
        extra = []
        if self.ci_low is not None and self.ci_high is not None:
            extra.append(f"ci=[{_fmt(self.ci_low)}, {_fmt(self.ci_high)}]")
        if self.baseline is not None:
            extra.append(f"baseline={_fmt(self.baseline)}")
        if self.threshold is not None:
            extra.append(f"threshold={_fmt(self.threshold)}")
        if self.verdict is not None:
            extra.append(f"verdict={self.verdict}")
        tail = (", " + ", ".join(extra)) if extra else ""
        return f"{type(self).__name__}({self.measure}={_fmt(self.value)}{tail})"

    def _repr_html_(self) -> str:
        return self.to_frame().to_html()


def results_frame(results) -> pd.DataFrame:
    """Stack several results into one table (one row each)."""
    return pd.concat([r.to_frame() for r in results])


@dataclass(frozen=True, kw_only=True)
class QuerySampled(Result):
    """A nearest-neighbour measure that may read a seeded sample of each table's records
    (:func:`privlib.matching.query_samples`).

    ``sample_size`` is the most records per table whose distances were read when a table was
    sampled (``max_queries``), else ``None``; each sampled record was searched among every
    record, and the intervals are those of the sample.
    """

    sample_size: int | None = None

    def _sample_text(self) -> str:
        if self.sample_size is None:
            return ""
        return (
            f" The distances of a seeded sample of at most {self.sample_size:,} records per table "
            "were read, each searched among every record; the intervals are those of the sample."
        )
