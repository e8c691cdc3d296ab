"""The audit report's HTML fragments, rendered from an :class:`~privlib.audit.report.AuditReport`.

Every fragment comes from a jinja2 template with autoescape (:func:`privlib.render.render_page`):
a column name, a category or a title from the user's files is always text, never markup. The audit
notebook displays these fragments; :meth:`AuditReport._repr_html_` shows :func:`summary_html`.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

import pandas as pd

from privlib.render.pages import render_page

if TYPE_CHECKING:
    from privlib.audit.report import AuditReport, MeasureRecord

__all__ = [
    "conclusion_html", "verdict_html", "family_html", "rules_html", "provenance_html",
    "skipped_html", "summary_html", "table_html", "figures",
]


def _number(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _interval(record: MeasureRecord) -> str:
    if record.ci_low is None or record.ci_high is None:
        return ""
    return f"{_number(record.ci_low)} to {_number(record.ci_high)}"


def _families() -> dict:
    from privlib.audit.catalogue import FAMILIES

    return FAMILIES


def conclusion_html(report: AuditReport) -> str:
    """The first page: the decision, every kind of disclosure (assessed or not), the notes and
    what the audit cannot show."""
    return render_page(
        "conclusion.html.j2", report=report, counts=report.counts(),
        findings=[dict(f.model_dump(), interval=_deciding_interval(report, f.deciding))
                  for f in report.families],
    )


def _deciding_interval(report: AuditReport, key: str | None) -> str:
    record = next((m for m in report.measures if m.key == key), None)
    return "" if record is None else _interval(record)


def verdict_html(report: AuditReport) -> str:
    """The verdict table: one line per measure, grouped by family."""
    groups = []
    for key, family in _families().items():
        rows = [
            {"title": m.title, "key": m.key, "value": _number(m.value), "interval": _interval(m),
             "baseline": _number(m.baseline), "threshold": _number(m.threshold), "verdict": m.verdict}
            for m in report.by_family(key)
        ]
        if rows:
            groups.append({"title": family.title, "rows": rows})
    return render_page("verdicts.html.j2", groups=groups)


def family_html(report: AuditReport, family: str) -> str:
    """One family's section: its question and introduction, the readings, what was skipped."""
    readings = [(m.title, m.key, m.reading) for m in report.by_family(family)]
    skipped = [(s.title, s.key, s.reason) for s in report.skipped if s.family == family]
    return render_page("readings.html.j2", family=_families()[family], readings=readings,
                       skipped=skipped, tables=family == "comparison" and bool(report.tables))


def rules_html(report: AuditReport) -> str:
    """Each rule this audit's verdicts used, with its source, and the decision rule."""
    seen: dict[str, tuple[str, str]] = {}
    for m in report.measures:
        if m.verdict_rule and m.measure not in seen:
            seen[m.measure] = (m.title, m.verdict_rule)
    return render_page("rules.html.j2", rules=[(title, key, rule) for key, (title, rule) in seen.items()],
                       decision_rule=report.decision_rule)


def provenance_html(report: AuditReport) -> str:
    """The provenance as a two-column table."""
    p = report.provenance
    rows: list[tuple[str, Any]] = [
        ("privlib version", p.privlib_version),
        ("created (UTC)", p.created),
        ("Python / pandas", f"{p.python_version} / {p.pandas_version}"),
    ]
    rows += [(f"{f.role}: {f.file}", f"{f.rows} rows x {f.columns} columns, SHA-256 {f.sha256}")
             for f in p.inputs]
    rows += [(f"setting {name}", json.dumps(value, default=str) if not isinstance(value, str) else value)
             for name, value in p.spec.items() if value not in (None, [], {})]
    rows += [("note", note) for note in p.notes]
    return render_page("table.html.j2", columns=["item", "value"], rows=rows, index_name=None,
                       classes="privlib-provenance")


def skipped_html(report: AuditReport) -> str:
    """The measures that were not computed, and why."""
    if not report.skipped:
        return "<p>None: every measure ran.</p>"
    rows = [(s.family, s.title, s.key, s.reason) for s in report.skipped]
    return render_page("table.html.j2", columns=["family", "measure", "key", "reason"], rows=rows,
                       index_name=None, classes="")


def summary_html(report: AuditReport) -> str:
    """The decision, the families and the verdict table: a report's display in a notebook."""
    return conclusion_html(report) + verdict_html(report)


def table_html(table: pd.DataFrame, *, index: bool = False, classes: str = "") -> str:
    """A DataFrame as an HTML table fragment, every cell in full and escaped."""
    frame = table.reset_index() if index else table
    rows = [[_number(v) for v in row] for row in frame.itertuples(index=False)]
    return render_page("table.html.j2", columns=[str(c) for c in frame.columns], rows=rows,
                       index_name=None, classes=classes)


def figures(report: AuditReport, family: str) -> list[tuple[MeasureRecord, Any, Any]]:
    """``(record, result, plot)`` for every computed measure of ``family`` that has a figure."""
    from privlib.audit.measures import MEASURES

    return [(m, report.result(m.key), MEASURES[m.measure].plot) for m in report.by_family(family)
            if MEASURES[m.measure].plot is not None]


def measure_tables(report: AuditReport, family: str) -> list[tuple[MeasureRecord, pd.DataFrame]]:
    """``(record, table)`` for every computed measure of ``family`` whose declaration shows a table."""
    from privlib.audit.measures import MEASURES

    shown = []
    for m in report.by_family(family):
        table = MEASURES[m.measure].table
        if table is not None:
            shown.append((m, table(report.result(m.key))))
    return shown
