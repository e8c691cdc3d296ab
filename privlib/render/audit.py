"""The audit report's fragments that need the Python report (its results and figures), and its
provenance; the pages built from the report's data alone are in :mod:`privlib.render.audit_pages`.

Every fragment comes from a jinja2 template with autoescape (:func:`privlib.render.render_page`):
a column name, a category or a title from the user's files is always text, never markup. The audit
notebook displays these fragments.

This module imports the report model, never the other way round: it registers its pages with
the model (:func:`privlib.audit.report.register_pages`), so that :meth:`AuditReport._repr_html_`
shows :func:`summary_html` and :meth:`AuditReport.save` writes :func:`report_page_html` and its PDF.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from privlib.audit.report import AuditReport, MeasureRecord, register_pages
from privlib.render.pages import render_page, scoped_stylesheet

__all__ = [
    "DISPLAY_SCOPE",
    "provenance_html",
    "summary_html",
    "table_html",
    "figures",
    "measure_tables",
    "report_page_html",
]

#: The class of the element a report's notebook display sits in; its styles apply inside it only.
DISPLAY_SCOPE = "privlib-report"


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


def summary_html(report: AuditReport) -> Markup:
    """The decision page and the verdict lines (:mod:`privlib.render.audit_pages`): a report's
    display in a notebook, inside an element that carries the kit's styles scoped to it
    (:func:`privlib.render.pages.scoped_stylesheet`), so that chips, cards and colours survive
    JupyterLab's theme and change nothing else on the page."""
    from privlib.render.audit_pages import decision_html, verdict_lines_html

    return render_page(
        "scoped.html.j2",
        scope=DISPLAY_SCOPE,
        css=scoped_stylesheet(f".{DISPLAY_SCOPE}"),
        body=decision_html(report) + verdict_lines_html(report),
    )


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


def report_page_html(report: AuditReport) -> Markup:
    """The whole report as one page (:func:`privlib.render.audit_pages.audit_page_html`) with
    each family's tables and figures, which need the report's results."""
    from privlib.render.audit_pages import audit_page_html, measure_figure_html

    extras = {}
    for finding in report.families:
        shown = [table_html(table.round(3)) for _, table in measure_tables(report, finding.family)]
        shown += [measure_figure_html(*drawn) for drawn in figures(report, finding.family)]
        extras[finding.family] = Markup("").join(shown)
    return audit_page_html(report, family_extras=extras)


class _Pages:
    """The report's pages, as :class:`privlib.audit.report.ReportPages` asks."""

    def display(self, report: AuditReport) -> str:
        return str(summary_html(report))

    def page(self, report: AuditReport) -> str:
        return str(report_page_html(report))

    def pdf(self, html_file: Path, target: Path) -> Path:
        from privlib.render.pdf import render_pdf

        return render_pdf(html_file, target)


register_pages(_Pages())
