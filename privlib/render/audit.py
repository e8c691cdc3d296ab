"""The audit report's fragments that need the Python report (its results and figures), and its
provenance; the pages built from the report's data alone are in :mod:`privlib.render.audit_pages`.

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

__all__ = ["provenance_html", "summary_html", "table_html", "figures", "measure_tables"]


def _number(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def provenance_html(report: AuditReport) -> str:
    """The provenance as a two-column table."""
    p = report.provenance
    rows: list[tuple[str, Any]] = [
        ("privlib version", p.privlib_version),
        ("created (UTC)", p.created),
        ("Python / pandas", f"{p.python_version} / {p.pandas_version}"),
    ]
    rows += [
        (f"{f.role}: {f.file}", f"{f.rows} rows x {f.columns} columns, SHA-256 {f.sha256}") for f in p.inputs
    ]
    rows += [
        (f"setting {name}", json.dumps(value, default=str) if not isinstance(value, str) else value)
        for name, value in p.spec.items()
        if value not in (None, [], {})
    ]
    rows += [("note", note) for note in p.notes]
    return render_page(
        "table.html.j2", columns=["item", "value"], rows=rows, index_name=None, classes="privlib-provenance"
    )


def summary_html(report: AuditReport) -> str:
    """The decision page and the verdict lines (:mod:`privlib.render.audit_pages`): a report's
    display in a notebook."""
    from privlib.render.audit_pages import decision_html, verdict_lines_html

    return decision_html(report) + verdict_lines_html(report)


def table_html(table: pd.DataFrame, *, index: bool = False, classes: str = "") -> str:
    """A DataFrame as an HTML table fragment, every cell in full and escaped."""
    frame = table.reset_index() if index else table
    rows = [[_number(v) for v in row] for row in frame.itertuples(index=False)]
    return render_page(
        "table.html.j2", columns=[str(c) for c in frame.columns], rows=rows, index_name=None, classes=classes
    )


def figures(report: AuditReport, family: str) -> list[tuple[MeasureRecord, Any, Any]]:
    """``(record, result, plot)`` for every computed measure of ``family`` that has a figure."""
    from privlib.audit.measures import MEASURES

    return [
        (m, report.result(m.key), MEASURES[m.measure].plot)
        for m in report.by_family(family)
        if MEASURES[m.measure].plot is not None
    ]


def measure_tables(report: AuditReport, family: str) -> list[tuple[MeasureRecord, pd.DataFrame]]:
    """``(record, table)`` for every computed measure of ``family`` whose declaration shows a table."""
    from privlib.audit.measures import MEASURES

    shown = []
    for m in report.by_family(family):
        table = MEASURES[m.measure].table
        if table is not None:
            shown.append((m, table(report.result(m.key))))
    return shown
