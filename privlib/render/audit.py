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
from privlib.formatting import number
from privlib.render.pages import render_page, scoped_stylesheet

__all__ = [
    "DISPLAY_SCOPE",
    "provenance_html",
    "summary_html",
    "table_html",
    "figures",
    "measure_tables",
    "report_page_html",
    "fidelity_sample",
    "variable_fidelity_html",
]

#: The class of the element a report's notebook display sits in; its styles apply inside it only.
DISPLAY_SCOPE = "privlib-report"


def provenance_html(report: AuditReport) -> Markup:
    """The provenance as a two-column table: the kit's version, the run's date, each input file
    with its size and fingerprint, how a params file made the tables, and the notes (the other
    settings are in the appendix's command that re-runs the audit)."""
    p = report.provenance
    rows: list[tuple[str, Any]] = [
        ("privlib version", p.privlib_version),
        ("created (UTC)", p.created),
        ("Python / pandas", f"{p.python_version} / {p.pandas_version}"),
    ]
    rows += [
        (f"{f.role}: {f.file}", f"{f.rows} rows x {f.columns} columns, SHA-256 {f.sha256}") for f in p.inputs
    ]
    if p.spec.get("recipe"):
        rows.append(("tables made by", json.dumps(p.spec["recipe"], default=str)))
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


def table_html(
    table: pd.DataFrame, *, index: bool = False, classes: str = "", caption: str | None = None
) -> str:
    """A DataFrame as an HTML table fragment, every cell in full and escaped, numbers as the
    report writes them (:func:`privlib.formatting.number`), under ``caption`` when given."""
    frame = table.reset_index() if index else table
    rows = [[number(v) for v in row] for row in frame.itertuples(index=False)]
    caption = caption or table.attrs.get("caption")
    return render_page(
        "table.html.j2",
        columns=[str(c) for c in frame.columns],
        rows=rows,
        index_name=None,
        classes=classes,
        caption=caption,
    )


#: What each measure's table holds, by the start of the measure's name.
_TABLE_CONTENTS = {
    "shadow_model": "each target record attacked, with its AUC and p-value",
    "nn_mia_tpr": "the attack read at each false-positive rate, with its counts",
    "near_copy_test": "each false-positive rate read, with its counts",
    "attack_ensemble": "each attack and false-positive rate read, with its counts",
}


def table_caption(record: MeasureRecord) -> str:
    """The title of a measure's table: the measure's name and what the table holds."""
    contents = next((v for k, v in _TABLE_CONTENTS.items() if record.measure.startswith(k)), "its numbers")
    return f"{record.title}: {contents}"


def figures(report: AuditReport, family: str) -> list[tuple[MeasureRecord, Any, Any]]:
    """``(record, result, plot)`` for every computed measure of ``family`` that has a figure (a
    report read back from metrics.json has no results to draw, so none)."""
    from privlib.catalogue import MEASURES

    return [
        (m, report.result(m.key), MEASURES[m.measure].plot)
        for m in report.by_family(family)
        if MEASURES[m.measure].plot is not None and report.result(m.key) is not None
    ]


def measure_tables(report: AuditReport, family: str) -> list[tuple[MeasureRecord, pd.DataFrame]]:
    """``(record, table)`` for every computed measure of ``family`` whose declaration shows a
    table (none for a report read back from metrics.json, which has no results), each table
    carrying its title (:func:`table_caption`) in ``attrs["caption"]``."""
    from privlib.catalogue import MEASURES

    shown = []
    for m in report.by_family(family):
        table, result = MEASURES[m.measure].table, report.result(m.key)
        if table is not None and result is not None:
            frame = table(result).copy()
            frame.attrs["caption"] = table_caption(m)  # table_html titles it from here
            shown.append((m, frame))
    return shown


def report_page_html(report: AuditReport, explanations=()) -> Markup:
    """The whole report as one page (:func:`privlib.render.audit_pages.audit_page_html`) with
    each family's tables and figures, which need the report's results, and page 1's "why" from
    ``explanations`` (:func:`privlib.audit.explain.explain`, which needs the tables)."""
    from privlib.render.audit_pages import audit_page_html, measure_figure_html

    extras = {}
    for finding in report.families:
        shown = [table_html(table) for _, table in measure_tables(report, finding.family)]
        shown += [measure_figure_html(*drawn) for drawn in figures(report, finding.family)]
        extras[finding.family] = Markup("").join(shown)
    return audit_page_html(report, family_extras=extras, explanations=explanations)


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


#: How many random streams fidelity_summary spawns from its seed; the sample's is the last one.
_FIDELITY_STREAMS = 4


def fidelity_sample(
    train: pd.DataFrame, synthetic: pd.DataFrame, *, max_records: int | str | None, random_state: int
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The training and synthetic records the fidelity card used: the same seeded samples
    :func:`privlib.utility.fidelity_summary` draws with ``random_state`` (its last stream, train
    first), or the whole tables for ``max_records`` ``None`` or ``"all"``."""
    import numpy as np

    from privlib.utility import _at_most

    if max_records in (None, "all"):
        return train, synthetic
    stream = np.random.default_rng(random_state).spawn(_FIDELITY_STREAMS)[-1]
    return _at_most(train, int(max_records), stream), _at_most(synthetic, int(max_records), stream)


def _largest_pairs(differences: pd.DataFrame, shown: int = 3) -> str:
    """The ``shown`` pairs of variables whose association differs most, with the difference."""
    values = differences.to_numpy(dtype=float)
    names = [str(c) for c in differences.columns]
    pairs = [
        (float(values[i, j]), names[i], names[j])
        for i in range(len(names))
        for j in range(i)
        if not math.isnan(values[i, j])
    ]
    pairs.sort(key=lambda pair: -pair[0])
    return "; ".join(f"{a} and {b} {gap:.2f}" for gap, a, b in pairs[:shown])


def variable_fidelity_html(
    train: pd.DataFrame,
    synthetic: pd.DataFrame,
    *,
    max_records: int | str | None,
    random_state: int,
    first: tuple | list = (),
) -> Markup:
    """Per-variable fidelity on the fidelity card's sample (:func:`fidelity_sample`): the small
    multiples of every variable's distribution (:func:`privlib.plots.plot_variable_fidelity`),
    :data:`privlib.plots.PANELS_PER_FIGURE` to a figure, the variables of ``first`` (the keys and
    sensitive variables) ahead, and the pairwise association differences
    (:func:`privlib.plots.plot_association_differences`), all redacted (no minimum, maximum or
    rare category of a column), each with a caption naming the variables it shows and alt text
    written from what it shows."""
    import matplotlib.pyplot as plt

    from privlib.plots import (
        HALF_WIDTH_VARIABLES,
        OTHER,
        PANELS_PER_FIGURE,
        association_differences,
        plot_association_differences,
        plot_variable_fidelity,
        variable_chunks,
        variable_order,
    )
    from privlib.render.audit_pages import FIGURE_STYLE, figure_html
    from privlib.schema import infer_kinds

    real, fake = fidelity_sample(train, synthetic, max_records=max_records, random_state=random_state)
    kinds = infer_kinds(real, name="train")
    order = variable_order([c for c in real.columns if c in kinds], first=first)
    chunks = variable_chunks(order, most=PANELS_PER_FIGURE)
    parts = []
    for number_of, shown in enumerate(chunks, start=1):
        with plt.rc_context(FIGURE_STYLE):
            figure = plot_variable_fidelity(real, fake, kinds=kinds, columns=shown)
        part = f" (figure {number_of} of {len(chunks)})" if len(chunks) > 1 else ""
        try:
            parts.append(
                figure_html(
                    figure,
                    alt=f"Small multiples of the distributions of {', '.join(map(str, shown))}, real (blue) "
                    f"against synthetic (orange): each category's share, rare categories pooled as "
                    f"'{OTHER}', and histograms of numeric variables on their central range.",
                    caption=f"Variables {', '.join(map(str, shown))}{part}: each in the real (blue) and "
                    f"synthetic (orange) data; all {len(order)} variables are drawn. Categories with "
                    f"fewer than 10 real records are pooled as '{OTHER}'; numeric variables are drawn "
                    "on their central range, with at least 10 real records beyond each end, so no axis "
                    "shows a column's smallest or largest value.",
                    # a figure of one or two panels is drawn half as wide (plot_variable_fidelity):
                    # it sits beside the next figure rather than above a blank half line
                    half=len(shown) <= 2,
                )
            )
        finally:
            plt.close(figure)
    if len(order) > 1:
        differences = association_differences(real, fake, kinds=kinds, columns=order)
        with plt.rc_context(FIGURE_STYLE):
            ax = plot_association_differences(real, fake, kinds=kinds, columns=order)
        try:
            parts.append(
                figure_html(
                    ax.figure,
                    alt=f"Heatmap of how much each pair of {len(order)} variables differs in "
                    f"association (Cramér's V) between the real and the synthetic data; the largest "
                    f"differences: {_largest_pairs(differences) or 'none'}.",
                    caption="Pairwise association, real against synthetic: the absolute difference "
                    "of Cramér's V (numbers cut at the real data's quintiles). 0 = the pair's "
                    "association is kept; larger = lost or invented by the generator. The largest "
                    f"differences: {_largest_pairs(differences) or 'none'}.",
                    half=len(order) <= HALF_WIDTH_VARIABLES,
                )
            )
        finally:
            plt.close(ax.figure)
    return render_page("audit_variable_fidelity.html.j2", figures=parts)
