"""Page 1's "why, and what to do": each deciding finding in words a privacy officer reads, with its
denominator, the columns behind it (:mod:`privlib.audit.explain`) and its remedy; and the two
meanings of "copy" named apart.

Numbers are counts and shares only (:mod:`privlib.formatting`), never a value of a column.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from markupsafe import Markup

from privlib.formatting import count, count_of, number, share
from privlib.render.pages import render_page

__all__ = [
    "ATTACK_NAMES",
    "human_names",
    "near_copy_words",
    "finding_text",
    "columns_text",
    "why_html",
    "copy_lines",
    "CLOSE_COPY",
    "EXACT_COPY",
]

#: The two meanings of "copy", each with one name everywhere the report's own words say it.
#: "Close", not "near": the near-copy test of membership names another thing (a synthetic record
#: far nearer to a training record than its real neighbours).
CLOSE_COPY = "close copy"
EXACT_COPY = "identical copy"

#: The attacks' names in the measures' own text, and the names people read.
ATTACK_NAMES = {
    "local_neighbourhood": "local-neighbourhood",
    "density_ratio": "density-ratio",
    "dcr_diff": "DCR-difference",
    "near_copy": "near-copy",
    "nn_mia": "nearest-neighbour",
    "dcr": "DCR",
}

_ATTACK_NAME = re.compile(r"\b(" + "|".join(ATTACK_NAMES) + r")\b")


def human_names(text: str) -> str:
    """``text`` with each attack's internal name (``local_neighbourhood``, ``dcr``) written as
    people read it (:data:`ATTACK_NAMES`)."""
    return _ATTACK_NAME.sub(lambda m: ATTACK_NAMES[m.group(1)], text)


#: Per measure, the detail that is the denominator of its count, and what it counts.
_DENOMINATORS = {
    "copy_test": ("n_train", "training records"),
    "rare_copy_test": ("n_train", "rare training records"),
    "replicated_uniques": ("n_unique_original", "training records unique on the keys"),
    "rare_attribution_test": ("n_train", "training records unique on the keys"),
    "singling_out": ("n_attacks", "predicates"),
    "near_copy_test": ("n_members", "training records"),
    "attack_ensemble": ("n_members", "training records"),
    "nn_mia_low_fpr": ("n_members", "training records"),
}


def _denominator(record: Mapping) -> tuple[int, str] | None:
    measure = str(record.get("measure") or "")
    name = "singling_out" if measure.startswith("singling_out") else measure
    field = _DENOMINATORS.get(name) or _DENOMINATORS.get(str(record.get("key", "")).split("_tpr")[0])
    if field is None:
        return None
    total = (record.get("details") or {}).get(field[0])
    return (int(total), field[1]) if isinstance(total, int) and total > 0 else None


def near_copy_words(record: Mapping, what: str) -> str:
    """The copy test's own words with its copy named as a close copy and its width."""
    tolerance = (record.get("details") or {}).get("numeric_tolerance")
    if record.get("measure") in ("copy_test", "rare_copy_test") and tolerance:
        return what.replace(
            "have a synthetic copy",
            f"have a {CLOSE_COPY} in the synthetic data (every number within {share(tolerance)} of its range)",
        )
    return what


def _synthetic_rows(report: Mapping) -> int | None:
    """The rows of the (first) synthetic file the report audits, from its provenance."""
    rows = [
        i.get("rows")
        for i in (report.get("provenance") or {}).get("inputs", [])
        if i.get("role") == "synthetic"
    ]
    return rows[0] if rows and isinstance(rows[0], int) else None


def finding_text(record: Mapping, at_risk: Mapping | None, report: Mapping | None = None) -> str:
    """The deciding finding in one sentence: the records at risk with their denominator and share
    ("85 training records have ... (85 of 3,000, 2.8%)"), or the measure's value and interval."""
    if record.get("measure") == "dcr_zero_share":
        identical = _identical_line(record, _synthetic_rows(report or {}))
        if identical:
            return identical
    denominator = _denominator(record)
    if at_risk and at_risk.get("count"):
        n = int(at_risk["count"])
        text = f"{count(n)} {human_names(near_copy_words(record, str(at_risk.get('what', ''))))}"
        if denominator:
            text += f": {count_of(n, denominator[0])}"
        return text + "."
    value = number(record.get("value"))
    low, high = number(record.get("ci_low")), number(record.get("ci_high"))
    interval = f" ({record.get('confidence', 0.95):.0%} interval {low} to {high})" if low and high else ""
    reference = ""
    if not _missing_number(record.get("baseline")) and not _missing_number(record.get("threshold")):
        reference = f", where chance gives {number(record['baseline'])} and the threshold is {number(record['threshold'])}"
    return f"Measured {value}{interval}{reference}."


def _missing_number(value) -> bool:
    return number(value) == "" or isinstance(value, str)


def _names(columns) -> str:
    return ", ".join(columns)


def columns_text(explanation, *, named: int = 4) -> str:
    """The columns behind a finding, in words (:class:`privlib.audit.explain.Explanation`)."""
    kind = explanation.kind
    if kind == "predicates":
        if not explanation.columns:
            return "No predicate singled out a training record."
        shown = ", ".join(
            f"{c.column} in {count_of(c.count, explanation.total)}" for c in explanation.columns[:named]
        )
        return f"The columns of the predicates that single out a training record, most used first: {shown}."
    if kind == "link":
        first, second = (list(s) for s in explanation.linked)
        return f"The attacker links records on {_names(first)} and on {_names(second)}."
    if kind == "keys":
        keys = _names(c.column for c in explanation.columns)
        target = f"; the sensitive variable read: {explanation.target}" if explanation.target else ""
        return f"The key combination: {keys}{target}."
    if kind == "copies":
        text = (
            f"Of the training records with a copy, {count(explanation.identical)} have an {EXACT_COPY} "
            f"(every value the same) and {count(explanation.near)} a close copy only (numbers within the width)."
        )
        if explanation.columns:
            shown = ", ".join(f"{c.column} ({count(c.count)} more)" for c in explanation.columns[:named])
            text += (
                " The columns the release changes most (ignoring each, this many more training "
                f"records would have a copy): {shown}."
            )
        return text
    if kind == "left_out":
        lowered = _lowering(explanation)
        where = f"on a seeded sample of at most {count(explanation.sample)} records per table"
        if not lowered:
            return f"No single column drives it: left out one at a time ({where}), none lowers the measure."
        shown = ", ".join(f"{column} to {number(value)}" for column, value in lowered[:named])
        return (
            f"The columns that drive it: left out one at a time ({where}, where the measure is "
            f"{number(explanation.value)} with every column), these lower it most: {shown}."
        )
    if kind == "identical":
        return (
            f"An {EXACT_COPY} repeats every one of the {count(explanation.total)} columns of a "
            "training record."
        )
    return f"Columns behind it: not shown ({explanation.note})."


def _lowering(explanation) -> list[tuple[str, float]]:
    """The left-out columns whose removal makes the measure less risky, most first."""
    sign = 1.0 if explanation.higher_is_riskier else -1.0
    lowered = [(c, v) for c, v in explanation.shifts if sign * (explanation.value - v) > 0]
    return sorted(lowered, key=lambda item: -sign * (explanation.value - item[1]))


def why_html(report: Mapping, explanations: Sequence) -> Markup:
    """Page 1's block: per explained finding, its measure's title and verdict, the finding with its
    denominator, the columns behind it and the remedy with its source; nothing without findings."""
    if not explanations:
        return Markup("")
    measures = {m.get("key"): m for m in report.get("measures", [])}
    at_risk = {
        item.get("key"): item for family in report.get("families", []) for item in family.get("at_risk", [])
    }
    titles = {f.get("family"): f.get("title") for f in report.get("families", [])}
    items = []
    given = set()
    for explanation in explanations:
        record = measures.get(explanation.key) or {}
        remedy = explanation.remedy
        repeated = remedy in given
        given.add(remedy)
        items.append(
            {
                "family": titles.get(explanation.family) or explanation.family,
                "title": record.get("title") or explanation.key,
                "verdict": record.get("verdict") or "",
                "finding": finding_text(record, at_risk.get(explanation.key), report),
                "columns": columns_text(explanation),
                "remedy": "as above" if repeated else remedy.action,
                "source": None if repeated else remedy.source,
            }
        )
    return render_page("audit_why.html.j2", items=items)


def copy_lines(report: Mapping) -> list[str]:
    """Both kinds of copy on page 1, each by its own name: the training records with a near or
    exact copy (the copy test, within its width) and the synthetic records identical to a training
    record (distance 0), each with its denominator; a kind the audit did not measure is left out."""
    measures = {m.get("measure"): m for m in report.get("measures", [])}
    lines = []
    test = measures.get("copy_test")
    if test:
        details = test.get("details") or {}
        copied, total = details.get("train_copied"), details.get("n_train")
        if isinstance(copied, int) and isinstance(total, int):
            lines.append(
                f"{count_of(copied, total, 'training records')} have a {CLOSE_COPY} in the synthetic data "
                f"(every number within {share(details.get('numeric_tolerance') or 0)} of its range, every "
                f"other value the same); {count_of(details.get('holdout_copied'), details.get('n_holdout'), 'holdout records')} "
                "have one by chance."
            )
    identical = _identical_line(measures.get("dcr_zero_share") or {}, _synthetic_rows(report))
    return lines + ([identical] if identical else [])


def _identical_line(record: Mapping, rows: int | None) -> str:
    """The synthetic records identical to a training record (``dcr_zero_share`` times the records
    it read: its sample, or every one of the file's ``rows``), or nothing without them."""
    size = (record.get("details") or {}).get("sample_size") or rows
    value = record.get("value")
    if not isinstance(size, int) or not isinstance(value, (int, float)):
        return ""
    return (
        f"{count_of(round(value * size), size, 'synthetic records')} are {EXACT_COPY.replace('copy', 'copies')} of a "
        "training record (every value the same, distance 0)."
    )
