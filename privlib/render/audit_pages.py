"""An audit's pages from its result model: the decision page, the verdict lines, the fidelity card,
the appendix, the forest figure, and the whole report as one HTML page.

Every function takes the audit's report as the ``AuditReport`` model or the plain dict it dumps
to (``schema_version``, ``title``, ``decision``, ``families``, ``measures``, ``skipped``,
``fidelity``, ...), shapes it for a template (numbers to three significant digits, intervals as
"low to high", families in the report's order) and renders it with autoescape: a column name or a
title from the user is text wherever it appears. Fragments are joined into a page only as the
output of the kit's own templates (:class:`markupsafe.Markup`), never as user text.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup

from privlib.formatting import count_threshold, interval, number, p_value, readable_text
from privlib.render.audit_limits import evidence_limits_html
from privlib.render.pages import render_page
from privlib.render.why import copy_lines, human_names, near_copy_words, why_html

__all__ = [
    "decision_html",
    "verdict_lines_html",
    "fidelity_html",
    "readings_html",
    "comparison_html",
    "appendix_html",
    "figure_html",
    "forest_figure_html",
    "forest_alt_text",
    "measure_figure_html",
    "audit_page_html",
    "glossary_html",
    "rerun_command",
    "NOT_ASSESSED",
]

#: How many of a measure's details (its other scalar fields) the appendix shows; metrics.json has all.
SHOWN_DETAILS = 4

#: The verdict of a family none of whose measures could run.
NOT_ASSESSED = "not assessed"

#: The figures' type: DejaVu Sans, the family of the report's text (privlib.render.pdf).
FIGURE_STYLE: dict[Any, Any] = {"font.family": "DejaVu Sans", "font.sans-serif": ["DejaVu Sans"]}

#: A table's role as the report's sentences name it.
_TABLE_WORDS = {"train": "training"}


def _plain(report) -> dict:
    """The report as a plain dict (a pydantic model is dumped in JSON mode)."""
    if hasattr(report, "model_dump"):
        return report.model_dump(mode="json")
    if not isinstance(report, Mapping):
        raise TypeError(f"expected an AuditReport or its dict, got {type(report).__name__}")
    return dict(report)


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and not math.isfinite(value))


def _number(value) -> str:
    """A number as the report writes every number (:func:`privlib.formatting.number`: "1,549",
    "0.0123", "< 0.001", never scientific notation), nothing for a missing value."""
    return number(value)


def _interval(record: Mapping) -> str:
    return interval(record.get("ci_low"), record.get("ci_high"))


#: The words of a rule that mark an exact test: its verdict is its p-value's, not its interval's.
EXACT_TEST_WORDS = "an exact test"


def _exact_p(record: Mapping, adjusted: Mapping) -> float | None:
    """The p-value that decides an exact test (its family's Holm-adjusted one when there is one,
    else its own), or ``None`` for a measure judged by its interval."""
    if EXACT_TEST_WORDS not in (record.get("verdict_rule") or ""):
        return None
    p = adjusted.get(record.get("key"))
    if p is None:
        p = (record.get("details") or {}).get("p_value")
    return float(p) if isinstance(p, (int, float)) else None


def _p_name(record: Mapping, adjusted: Mapping) -> str:
    return "Holm-adjusted p" if record.get("key") in adjusted else "p"


def _counts_people(record: Mapping) -> bool:
    """Whether the measure's value counts people (its records at risk are its excess count)."""
    return "records_at_risk" in (record.get("details") or {})


def _threshold_text(record: Mapping, p: float | None, name: str = "p") -> str:
    """The threshold as the verdict table and page 1 print it: an exact test's p-value against
    its level ("exact test: p < 0.001 (risk at 0.05 or below)"); a count's threshold in whole
    people ("18 or more people"); else the number."""
    if p is not None:
        level = 1 - float(record.get("confidence") or 0.95)
        return f"exact test: {p_value(p, name=name)} (risk at {number(level)} or below)"
    threshold = record.get("threshold")
    if _counts_people(record):
        return f"{count_threshold(threshold, higher_is_riskier=record.get('higher_is_riskier', True))} people"
    return _number(threshold)


def _level(record: Mapping) -> str:
    confidence = record.get("confidence")
    return f"{confidence:.0%}" if isinstance(confidence, (int, float)) else "95%"


def _measure_view(record: Mapping, adjusted: Mapping | None = None) -> dict:
    """A measure record with its numbers as text, as every template shows it; ``adjusted``: its
    family's Holm-adjusted p-values by key, which decide its exact tests."""
    p = _exact_p(record, adjusted or {})
    return {
        "key": record.get("key", ""),
        "title": record.get("title") or record.get("key", ""),
        "value": _number(record.get("value")),
        "interval": _interval(record),
        "confidence": _level(record),
        "ci_method": record.get("ci_method") or "",
        "baseline": _number(record.get("baseline")),
        "threshold": _threshold_text(record, p, _p_name(record, adjusted or {})),
        # the verdict table's narrow column: the p-value alone (the rule is in the appendix)
        "threshold_short": f"exact test, {p_value(p)}" if p is not None else _threshold_text(record, None),
        "exact": p is not None,
        "direction": ""
        if p is not None
        else ("risk above" if record.get("higher_is_riskier", True) else "risk below"),
        "verdict": record.get("verdict") or "not assessable",
        "verdict_rule": readable_text((record.get("verdict_rule") or "").rstrip(". ")),
        "reading": readable_text(record.get("reading") or ""),
        "details": [
            (str(name), _number(value))
            for name, value in (record.get("details") or {}).items()
            if isinstance(value, (str, int, float)) and not _missing(value)
        ][:SHOWN_DETAILS],
    }


def _adjusted_p_values(report: Mapping) -> dict:
    """Every family's Holm-adjusted p-values of its exact tests, by measure key."""
    return {k: v for f in report.get("families", []) for k, v in (f.get("adjusted_p_values") or {}).items()}


def _counts_text(counts: Mapping) -> str:
    order = ("risk", "inconclusive", "no evidence of risk", "not assessable")
    parts = [f"{counts[v]} {v}" for v in order if counts.get(v)]
    return " · ".join(parts) if parts else "no measure judged"


def _not_run_count(report: dict, family: str) -> str:
    """How many measures of ``family`` did not run ("2 measures"), or nothing; page 1 leaves
    their reasons (which may name settings) to the family's section and the appendix."""
    n = sum(skipped.get("family") == family for skipped in report.get("skipped", []))
    return f"{n} measure{'s' if n > 1 else ''}" if n else ""


#: The verdicts that decide a release (page 1 states the counts of these measures only).
DECIDING_VERDICTS = ("risk", "inconclusive")

#: The verbs of a count's phrase in the singular ("1 training record has ...").
_SINGULAR_VERBS = {"have": "has", "are": "is"}


def _counted(count: int, what: str) -> str:
    """``count`` and ``what`` (a plural phrase, "training records have ..."), in the singular
    for a count of one: "records" and the first verb after it."""
    words = what.split(" ")
    if count == 1 and "records" in words:
        noun = words.index("records")
        words[noun] = "record"
        verb = next((i for i in range(noun + 1, len(words)) if words[i] in _SINGULAR_VERBS), None)
        if verb is not None:
            words[verb] = _SINGULAR_VERBS[words[verb]]
    return f"{count:,} {' '.join(words)}"


def _findings(family: Mapping, measures: Mapping) -> list[dict]:
    """The family's counts of records at risk from measures whose verdict decides (risk or
    inconclusive), each with that verdict and, for a measure run per variable, the variable."""
    shown = []
    for item in family.get("at_risk", []):
        record = measures.get(item.get("key")) or {}
        verdict = record.get("verdict")
        if verdict in DECIDING_VERDICTS and item.get("count"):
            shown.append(
                {
                    "key": item.get("key", ""),
                    "verdict": verdict,
                    "target": record.get("target"),
                    "text": human_names(
                        _counted(int(item["count"]), near_copy_words(record, item.get("what", "")))
                    ),
                }
            )
    return shown


def _families(report: dict) -> list[dict]:
    measures = {m.get("key"): m for m in report.get("measures", [])}
    adjusted = _adjusted_p_values(report)
    views = []
    for family in report.get("families", []):
        deciding = measures.get(family.get("deciding"))
        views.append(
            {
                "key": family.get("family", ""),
                "name": family.get("title") or str(family.get("family", "")).capitalize(),
                "verdict": family.get("verdict") or NOT_ASSESSED,
                "reason": family.get("reason"),
                "how_to_assess": family.get("how_to_assess"),
                "deciding": _measure_view(deciding, adjusted) if deciding else None,
                "findings": _findings(family, measures),
                "counts_text": _counts_text(family.get("counts") or {}),
                "not_run": _not_run_count(report, family.get("family")),
            }
        )
    return views


def _inputs_line(report: dict) -> str:
    """The files audited with their row counts, and the date: one line."""
    provenance = report.get("provenance") or {}
    files = []
    for item in provenance.get("inputs", []):
        role = _TABLE_WORDS.get(item.get("role"), item.get("role", ""))
        rows = item.get("rows")
        counted = f", {rows:,} rows" if isinstance(rows, int) else ""
        files.append(f"{item.get('file', '')} ({role}{counted})")
    created = str(provenance.get("created") or "")[:10]
    return " · ".join(files + ([f"audited {created}"] if created else []))


def _family_titles(report: dict) -> dict:
    return {f.get("family"): f.get("title") for f in report.get("families", []) if f.get("title")}


def _query_sample(report: dict) -> int | None:
    """The largest sample of records per table a distance measure read (``sample_size`` of
    :class:`privlib.results.QuerySampled`), or ``None`` when every one read every record."""
    sizes = [
        size
        for record in report.get("measures", [])
        if isinstance(size := (record.get("details") or {}).get("sample_size"), int)
    ]
    return max(sizes, default=None)


def _file_decisions(report: dict) -> dict:
    """Which synthetic file the headline decision is for, and, with several files, the decision
    on each (``files`` of the report, from each file's own audit), its families' verdicts in the
    order of the report's families."""
    synthetic = [
        i for i in (report.get("provenance") or {}).get("inputs", []) if i.get("role") == "synthetic"
    ]
    titles = _family_titles(report)
    order = [f.get("family") for f in report.get("families", [])]
    rows = [
        {
            "label": item.get("synthetic_label", ""),
            "decision": item.get("decision", ""),
            "verdicts": [(item.get("families") or {}).get(key, NOT_ASSESSED) for key in order],
        }
        for item in report.get("files") or []
    ]
    return {
        "label": report.get("synthetic_label", ""),
        "several": max(len(synthetic), len(rows)) > 1,
        "count": max(len(synthetic), len(rows)),
        "rows": rows,
        "families": [titles.get(key) or str(key).capitalize() for key in order],
    }


def decision_html(report, explanations=()) -> Markup:
    """Page 1: the files audited on one line, the decision and the synthetic file it is for (with
    several files, the decision on each), one plain-words line per family (its verdict, the
    deciding measure, or why it was not assessed) and a card per family with the counts of
    records at risk from the measures that decide (risk or inconclusive), each beside its verdict
    and variable; both kinds of copy by their own names (:func:`privlib.render.why.copy_lines`);
    why each family is at risk or inconclusive and what to do, from ``explanations``
    (:func:`privlib.audit.explain.explain`, which needs the tables: none when not given); what
    the audit cannot show, with the samples read on large tables."""
    report = _plain(report)
    return render_page(
        "audit_decision.html.j2",
        report=report,
        families=_families(report),
        inputs=_inputs_line(report),
        files=_file_decisions(report),
        query_sample=_query_sample(report),
        copies=copy_lines(report),
        why=why_html(report, list(explanations)),
        evidence_limits=evidence_limits_html(report),
    )


def verdict_lines_html(report) -> Markup:
    """One line per measure (human name, value, interval, threshold, verdict), grouped by family."""
    report = _plain(report)
    titles = _family_titles(report)
    measures = report.get("measures", [])
    adjusted = _adjusted_p_values(report)
    order = list(
        dict.fromkeys(
            [f.get("family") for f in report.get("families", [])] + [m.get("family") for m in measures]
        )
    )
    groups = []
    for family in order:
        rows = [_measure_view(m, adjusted) for m in measures if m.get("family") == family]
        if rows:
            groups.append({"title": titles.get(family) or str(family).capitalize(), "rows": rows})
    confidence = _level(measures[0]) if measures else "95%"
    return render_page("audit_verdicts.html.j2", groups=groups, confidence=confidence)


def fidelity_html(report) -> Markup:
    """The fidelity card (utility ratio, pMSE ratio, marginal distance), or a line saying it is absent."""
    report = _plain(report)
    fidelity = report.get("fidelity")
    view = None
    if fidelity:
        view = {
            "measures": [
                dict(_measure_view(m), ideal=_number(m.get("ideal"))) for m in fidelity.get("measures", [])
            ],
            "skipped": list(fidelity.get("skipped", [])),
            "sampled": [
                dict(table=_TABLE_WORDS.get(r["table"], r["table"]), used=f"{r['used']:,}", of=f"{r['of']:,}")
                for r in fidelity.get("records", [])
                if r["used"] < r["of"]
            ],
        }
    return render_page("audit_fidelity.html.j2", fidelity=view)


def _reading_without_rule(record: Mapping) -> str:
    """The measure's reading without the rule it quotes at its end (``(rule: ...)``): the rule
    and its source are printed once, in the appendix."""
    reading, rule = record.get("reading") or "", record.get("verdict_rule")
    return reading.replace(f" (rule: {rule})", "") if rule else reading


#: Where one sentence ends and the next begins (not after an abbreviation such as "et al.").
_SENTENCE_END = re.compile(r"(?<!\bal\.)(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<=[.!?])\s+(?=[A-Z(])")

#: Sentences of a measure's finding its reading in the body keeps: the first, and the second when
#: both together stay within :data:`READING_CHARACTERS` (a long list stays in metrics.json).
READING_SENTENCES = 2
READING_CHARACTERS = 360


def short_reading(record: Mapping) -> str:
    """A measure's finding in at most :data:`READING_SENTENCES` sentences (the second only when
    both fit in :data:`READING_CHARACTERS`): its reading without
    the verdict sentence (the verdict stands beside it) and the rule (in the appendix), numbers
    written by :mod:`privlib.formatting`; the whole reading is in metrics.json. The partitioning
    attack, whose reading is technical, is said in plain words (:func:`_partition_words`)."""
    if record.get("measure") == "partition_f1":
        plain = _partition_words(record)
        if plain:
            return plain
    reading = _reading_without_rule(record)
    judgement = record.get("judgement") or ""
    start = reading.find(judgement[:40]) if judgement else -1
    body = (reading[:start] if start > 0 else reading).strip()
    sentences = _SENTENCE_END.split(body)
    kept = sentences[:1]
    for sentence in sentences[1:READING_SENTENCES]:
        if len(" ".join([*kept, sentence])) > READING_CHARACTERS:
            break
        kept.append(sentence)
    return human_names(readable_text(" ".join(kept)))


def _partition_words(record: Mapping) -> str:
    """The partitioning attack's finding for a reader who does not know F1."""
    numbers = [record.get(k) for k in ("value", "baseline", "threshold")]
    if not all(isinstance(v, (int, float)) and not _missing(v) for v in numbers):
        return ""
    value, baseline, threshold = (float(v) for v in numbers if isinstance(v, (int, float)))
    return (
        "The partitioning attack calls a record a member of the training data when some synthetic "
        "record differs from it in only a few columns. Its score (F1: 0 finds no member, 1 finds "
        f"every member and only them) is {_number(value)}, against {_number(baseline)} for calling "
        f"every record a member: a gain of {_number(value - baseline)}, where a gain beyond "
        f"{_number(threshold - baseline)} would be a risk."
    )


def _refitted_generator(report: Mapping, record: Mapping) -> str:
    """For the shadow-model attack run with one of the kit's own generators (``--targeted-attack``
    naming a :mod:`privlib.synth` class, not an entry point ``module:Class``): a sentence saying
    which generator it refitted, and that it is not the user's own."""
    named = ((report.get("provenance") or {}).get("spec") or {}).get("targeted_attack")
    if record.get("measure") != "shadow_model_auc" or not isinstance(named, str) or ":" in named:
        return ""
    label = report.get("synthetic_label") or "the synthetic file"
    return (
        f" The attack refitted the kit's own {named} (privlib.synth, its default settings), not a "
        f"generator of yours: it speaks for {label} only if that file was made by {named} with "
        "those settings; name your own generator as module:Class to test it."
    )


def readings_html(report, family: str | None = None) -> Markup:
    """Each family's readings (only ``family``'s when given), written once: the verdict lines and
    the appendix do not repeat them, and the rule each reading quotes is left to the appendix.
    What did not run is listed with the reason."""
    report = _plain(report)
    adjusted = _adjusted_p_values(report)
    families = []
    for finding in report.get("families", []):
        key = finding.get("family")
        if family is not None and key != family:
            continue
        families.append(
            {
                "key": key,
                "name": finding.get("title") or str(key).capitalize(),
                "question": finding.get("question") or "",
                "measures": [
                    dict(
                        _measure_view(m, adjusted), reading=short_reading(m) + _refitted_generator(report, m)
                    )
                    for m in report.get("measures", [])
                    if m.get("family") == key
                ],
                "skipped": [s for s in report.get("skipped", []) if s.get("family") == key],
            }
        )
    return render_page("audit_families.html.j2", families=families)


def comparison_html(reports) -> Markup:
    """Several synthetic files side by side, from one audit report per file (a mapping of the
    file's label to its report): each file's decision, then every measure by its key, with the
    value and verdict the file's own verdict page gives, grouped by family. A measure one audit
    did not compute shows "not run"."""
    reports = {str(label): _plain(report) for label, report in reports.items()}
    if not reports:
        return Markup("")
    first = next(iter(reports.values()))
    titles = _family_titles(first)
    records = {label: {m.get("key"): m for m in r.get("measures", [])} for label, r in reports.items()}
    keys = list(dict.fromkeys(m.get("key") for r in reports.values() for m in r.get("measures", [])))
    families = {m.get("key"): m.get("family") for r in reports.values() for m in r.get("measures", [])}
    named = {
        m.get("key"): m.get("title") or m.get("key") for r in reports.values() for m in r.get("measures", [])
    }
    groups = []
    for family in dict.fromkeys(families[k] for k in keys):
        rows = []
        for key in (k for k in keys if families[k] == family):
            cells = []
            for label in reports:
                record = records[label].get(key)
                cells.append(
                    None
                    if record is None
                    else {
                        "value": _number(record.get("value")),
                        "verdict": record.get("verdict") or "not assessable",
                    }
                )
            rows.append({"title": named[key], "key": key, "cells": cells})
        groups.append({"title": titles.get(family) or str(family).capitalize(), "rows": rows})
    return render_page(
        "audit_comparison.html.j2",
        labels=list(reports),
        decisions=[r.get("decision", "") for r in reports.values()],
        groups=groups,
    )


def _rule_rows(measures: list[dict]) -> list[dict]:
    """The appendix's rows: measures with the same name, rule and interval (one measure run for
    each sensitive variable) share a row, which names each key and gives each one's details, so
    the same rule is printed once."""
    groups: dict[tuple, list[dict]] = {}
    for view in measures:
        rule = (
            view["title"],
            view["verdict_rule"],
            bool(view["interval"]),
            view["confidence"],
            view["ci_method"],
        )
        groups.setdefault(rule, []).append(view)
    return [
        dict(
            group[0],
            measure_keys=[view["key"] for view in group],
            details=[(view["key"] if len(group) > 1 else None, view["details"]) for view in group],
        )
        for group in groups.values()
    ]


def appendix_html(report) -> Markup:
    """The decision rule, each measure's rule with its source and its details, and what did not
    run."""
    report = _plain(report)
    titles = _family_titles(report)
    skipped = [
        dict(
            s,
            title=s.get("title") or s.get("key", ""),
            family=titles.get(s.get("family")) or s.get("family", ""),
        )
        for s in report.get("skipped", [])
    ]
    return render_page(
        "audit_appendix.html.j2",
        report=report,
        measures=_rule_rows(
            [_measure_view(m, _adjusted_p_values(report)) for m in report.get("measures", [])]
        ),
        skipped=skipped,
        rerun=rerun_command(report),
        sampled=bool((report.get("fidelity") or {}).get("records"))
        and any(r["used"] < r["of"] for r in report["fidelity"]["records"]),
    )


#: Settings of the spec that are not command-line flags (how a params file made its tables).
_NOT_FLAGS = ("recipe", "title")


def rerun_command(report) -> str:
    """The command line that repeats the audit on the same files with the same settings: the
    report's input files by name and each setting that was given, as ``--flag value``."""
    report = _plain(report)
    provenance = report.get("provenance") or {}
    files: dict[str, list[str]] = {}
    for item in provenance.get("inputs", []):
        files.setdefault(item.get("role", ""), []).append(str(item.get("file", "")))
    parts = ["privlib audit"]
    for role in ("train", "synthetic", "holdout"):
        if files.get(role):
            parts.append(f"--{role} {' '.join(files[role])}")
    for name, value in (provenance.get("spec") or {}).items():
        if name in _NOT_FLAGS or value in (None, [], {}, False):
            continue
        flag = f"--{name.replace('_', '-')}"
        if value is True:
            parts.append(flag)
        elif isinstance(value, list):
            parts.append(f"{flag} {' '.join(str(v) for v in value)}")
        elif isinstance(value, dict):
            parts.append(f"{flag} '{json.dumps(value)}'")
        else:
            parts.append(f"{flag} {value}")
    return " ".join(parts + ["--out FOLDER"])


def figure_png(figure, *, dpi: int = 150) -> str:
    """A matplotlib figure as base64 PNG text (no timestamp or software tag, so reproducible)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def figure_html(
    figure,
    *,
    alt: str,
    caption: str | None = None,
    id: str | None = None,
    heading: str | None = None,
    half: bool = False,
) -> Markup:
    """One figure as ``<figure>`` with an embedded PNG, its alt text and caption, under an
    ``<h2>`` ``heading`` (with the ``id``) when one is given; ``half`` takes half the width.

    The alt text is required and must say what the figure shows, not what it is ("Forest plot:
    2 of 14 measures at risk, ..."), so that a screen reader and the PDF's text carry its message.
    """
    if not alt or not alt.strip():
        raise ValueError("a figure needs alt text that says what it shows")
    return render_page(
        "figure.html.j2", png=figure_png(figure), alt=alt, caption=caption, id=id, heading=heading, half=half
    )


def _deciding_keys(report: Mapping) -> list[str]:
    return [f["deciding"] for f in report.get("families", []) if f.get("deciding")]


def forest_alt_text(measures, deciding=()) -> str:
    """The forest figure's message in words, written from where the figure draws each measure
    (:func:`privlib.plots.forest_points`): how many are drawn, each verdict with the measures
    at risk or inconclusive by name (those beyond the edge and those that decided their family
    said so), and the measures listed without a point."""
    from privlib.plots import forest_points

    measures, deciding = list(measures), set(deciding)
    drawn: dict[str, list[str]] = {}
    listed = []
    for m, (position, beyond) in zip(measures, forest_points(measures)):
        name = m.get("title") or m.get("key")
        if not math.isfinite(position):
            listed.append(name)
            continue
        marks = [
            mark
            for mark, applies in (
                ("beyond the edge", beyond),
                ("decided its family", m.get("key") in deciding),
            )
            if applies
        ]
        drawn.setdefault(m.get("verdict") or "not assessable", []).append(
            f"{name}{' (' + ', '.join(marks) + ')' if marks else ''}"
        )
    parts = []
    for verdict in ("risk", "inconclusive", "no evidence of risk", "not assessable"):
        names = drawn.get(verdict, [])
        if names:
            named = f": {'; '.join(names)}" if verdict in DECIDING_VERDICTS else ""
            parts.append(f"{len(names)} {verdict}{named}")
    count = sum(len(names) for names in drawn.values())
    text = (
        f"Forest plot of {count} measures, each drawn between its baseline (0) and its threshold (1), "
        f"further right being riskier. {'. '.join(parts)}."
    )
    if listed:
        text += f" Listed without a point (no threshold or no value): {'; '.join(listed)}."
    return text


def forest_figure_html(report) -> Markup:
    """The forest plot of every measure (:func:`privlib.plots.plot_verdict_forest`, the deciding
    measure of each family ringed) as a figure with alt text and caption; nothing when no
    measure was computed."""
    import matplotlib.pyplot as plt

    from privlib.plots import plot_verdict_forest

    report = _plain(report)
    measures = report.get("measures", [])
    if not measures:
        return Markup("")
    deciding = _deciding_keys(report)
    with plt.rc_context(FIGURE_STYLE):
        exact = {
            m.get("key"): p for m in measures if (p := _exact_p(m, _adjusted_p_values(report))) is not None
        }
        ax = plot_verdict_forest(
            measures, family_titles=_family_titles(report), deciding=deciding, exact_tests=exact
        )
    try:
        return figure_html(
            ax.figure,
            alt=forest_alt_text(measures, deciding),
            id="forest",
            heading="Every measure against its threshold",
            caption="Each marker is a measure's value and its line the measure's interval (a "
            "measure without one is its marker alone), placed so that 0 is the measure's baseline "
            "(what chance gives) and 1 its threshold: right of the dashed line is beyond the "
            "threshold. A ring marks the measure that decided its family's verdict. A hollow marker "
            "is an exact test: it is decided by its p-value (printed on the right, Holm-adjusted "
            "when its family has several exact tests), not by where its "
            "interval lies against the threshold, so an exact test may be a risk while its interval "
            "crosses the dashed line. The measure's own numbers are on the right, its key in the "
            "table below.",
        )
    finally:
        plt.close(ax.figure)


def measure_figure_html(record, result, plot, *, figsize=(5.0, 2.7)) -> str:
    """One measure's figure (its declaration's ``plot(result, ax)``) as a half-width ``<figure>``,
    with alt text saying what it shows (the plot's title, the measure's name and its reading)
    and the measure's name and key as caption."""
    import matplotlib.pyplot as plt

    record = _plain(record)
    with plt.rc_context(FIGURE_STYLE):  # the figure and every text drawn on it
        figure, ax = plt.subplots(figsize=figsize, layout="constrained")
        try:
            plot(result, ax)
        except BaseException:
            plt.close(figure)
            raise
    try:
        drawn = ax.get_title() or "Figure"
        title = record.get("title") or record.get("key", "")
        alt = f"{drawn}, for {title}. {record.get('reading') or ''}".strip()
        return render_page(
            "figure.html.j2",
            png=figure_png(figure),
            alt=alt,
            id=None,
            heading=None,
            caption=f"{title} ({record.get('key', '')})",
            half=True,
        )
    finally:
        plt.close(figure)


def glossary_html(report, extra: str = "") -> Markup:
    """The glossary of the words the report uses, and the works it cites
    (:mod:`privlib.render.glossary`); ``extra`` is more of the report's text to look for terms in."""
    from privlib.render.glossary import glossary_html as glossary

    return glossary(_plain(report), extra)


def _text_of(*fragments: Markup) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(f))) for f in fragments)


def audit_page_html(report, *, family_extras: Mapping | None = None, explanations=()) -> Markup:
    """The whole audit as one self-contained HTML page with a sticky table of contents: the
    decision, the fidelity card, the forest figure, the verdict lines, the readings of each
    family (followed by ``family_extras[family]``, the kit's own fragments of its tables and
    figures, when given: they need the results' per-record arrays), the appendix and the
    glossary with the references."""
    report = _plain(report)
    extras = dict(family_extras or {})
    entries = [
        ("decision", "Decision"),
        ("fidelity", "Fidelity"),
        ("forest", "All measures"),
        ("verdicts", "Verdicts"),
    ]
    entries += [
        (f"family-{f.get('family')}", f.get("title") or str(f.get("family")).capitalize())
        for f in report.get("families", [])
    ]
    entries += [("appendix", "Appendix"), ("glossary", "Glossary")]
    if not report.get("measures"):
        entries.remove(("forest", "All measures"))
    sections = {
        "decision": decision_html(report, explanations),
        "fidelity": fidelity_html(report),
        "forest": forest_figure_html(report),
        "verdicts": verdict_lines_html(report),
        "readings": Markup("").join(
            readings_html(report, f.get("family")) + extras.get(f.get("family"), Markup(""))
            for f in report.get("families", [])
        ),
        "appendix": appendix_html(report),
    }
    return render_page(
        "audit_report.html.j2",
        title=report.get("title", "Privacy audit"),
        entries=entries,
        glossary=glossary_html(report, _text_of(*sections.values())),
        **sections,
    )
