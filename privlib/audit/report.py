"""`AuditReport`: the one typed result of an audit.

HTML, PDF, the notebook display and ``metrics.json`` all come from it: ``metrics.json`` is its
JSON dump (:meth:`AuditReport.to_json`), validated by the JSON Schema the package ships
(``privlib/audit/metrics.schema.json``, :func:`metrics_schema`). The per-record arrays a figure
needs stay on the Python object (:meth:`AuditReport.result`) and never reach the JSON.

The model imports no rendering: :mod:`privlib.render.audit` imports the model and registers its
pages here (:func:`register_pages`), so the notebook display (:meth:`AuditReport._repr_html_`) and
:meth:`AuditReport.save` find them, and neither module needs the other to load.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import tempfile
import typing
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, create_model

from privlib.errors import PrivlibError
from privlib.publish import checked_out, new_file_mode, publish, staging
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, Result
from privlib.rules import corrected_verdict

__all__ = [
    "SCHEMA_VERSION",
    "DECISIONS",
    "NOT_ASSESSED",
    "AtRisk",
    "DetectionLimitRecord",
    "DetectionLimits",
    "EpsilonClaim",
    "MeasureRecord",
    "Skipped",
    "FamilyFinding",
    "InputFile",
    "FileDecision",
    "Provenance",
    "AuditReport",
    "ReportPages",
    "register_pages",
    "metrics_schema",
    "comparable_metrics",
]

#: Version of the metrics.json layout; bumped whenever a field changes meaning or goes, and, since
#: the schema admits no field it does not name, when one is added (2.1: ``files``; 2.2:
#: ``detection_limits`` and ``epsilon_claim``).
SCHEMA_VERSION = "2.2"

#: The family verdict when none of its measures could run.
NOT_ASSESSED: Final = "not assessed"

DO_NOT_RELEASE: Final = "do not release"
WITH_CAVEATS: Final = "release only with the listed caveats"
NO_EVIDENCE_FOUND: Final = "no evidence of risk at the strength of these attacks"
#: The overall decisions, most severe first.
DECISIONS = (DO_NOT_RELEASE, WITH_CAVEATS, NO_EVIDENCE_FOUND, NOT_ASSESSABLE)

DECISION_RULE = (
    f"'{DO_NOT_RELEASE}' when any kind of disclosure has the verdict risk; otherwise "
    f"'{WITH_CAVEATS}' when any is inconclusive or was not assessed; otherwise "
    f"'{NO_EVIDENCE_FOUND}'. A kind of disclosure takes the most severe verdict of its measures, "
    "except its exact record-level tests (copies beyond chance, attacks at a low false-positive "
    "rate), adjusted together by Holm's weighted step-down method (Holm 1979), each attack an equal "
    "share of the error rate: a test that is a risk alone but not after the adjustment makes the "
    "kind inconclusive. Rules read on an interval with a margin stand alone. Each measure keeps its "
    "own verdict in the table."
)

Verdict = Literal["risk", "no evidence of risk", "inconclusive", "not assessable"]
FamilyVerdict = Literal["risk", "no evidence of risk", "inconclusive", "not assessable", "not assessed"]
Decision = Literal[
    "do not release",
    "release only with the listed caveats",
    "no evidence of risk at the strength of these attacks",
    "not assessable",
]


#: The files :meth:`AuditReport.save` can write, by format.
REPORT_FILES: Final = {"json": "metrics.json", "html": "report.html", "pdf": "report.pdf"}


class ReportPages(Protocol):
    """What rendering provides the report (:mod:`privlib.render.audit` registers it)."""

    def display(self, report: AuditReport) -> str:
        """The report's display in a notebook: a fragment with its own scoped styles."""
        ...

    def page(self, report: AuditReport) -> str:
        """The whole report as one self-contained HTML page."""
        ...

    def pdf(self, html_file: Path, target: Path) -> Path:
        """The page ``html_file`` printed to the PDF ``target``."""
        ...


_pages: ReportPages | None = None


def register_pages(pages: ReportPages) -> None:
    """Make ``pages`` the rendering of every report (called once, by :mod:`privlib.render.audit`)."""
    global _pages
    _pages = pages


def _registered_pages() -> ReportPages:
    if _pages is None:
        raise PrivlibError("no report rendering is registered; import privlib.render.audit first.")
    return _pages


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AtRisk(_Frozen):
    """How many records a measure puts at risk (a count, never the records)."""

    key: str
    count: int
    what: str
    target: str | None = Field(default=None, description="the sensitive variable, for attribute measures")


def _result_columns() -> dict[str, Any]:
    """Every field of :class:`~privlib.results.Result`, as a column of :class:`MeasureRecord`
    under the same name, type and default: a number may be ``None`` (NaN and infinities are
    written as null), and the verdict, which the runner always sets, is one of the four."""
    hints = typing.get_type_hints(Result)
    columns: dict[str, Any] = {}
    for field in dataclasses.fields(Result):
        kind = hints[field.name]
        default = ... if field.default is dataclasses.MISSING else field.default
        if field.name == "verdict":
            kind, default = Verdict, ...
        elif kind is float:
            kind = float | None
        columns[field.name] = (kind, default)
    return columns


#: The columns every measure has, read from the fields of ``Result``: a field added there is a
#: column of metrics.json without another line here or in the runner.
#: (Typed ``Any`` for the type checker, which cannot see fields made at run time.)
_ResultColumns: Any = create_model("_ResultColumns", __base__=_Frozen, **_result_columns())


class MeasureRecord(_ResultColumns):
    """One computed measure, judged: every field of its :class:`~privlib.results.Result` (the
    per-record arrays left out), where and what it is, its reading and the result's other scalar
    fields (``details``)."""

    key: str = Field(description="unique per measure and target, e.g. cap[DIS]")
    target: str | None = None
    family: str
    title: str
    reading: str
    seconds: float
    details: dict[str, Any] = Field(default_factory=dict, description="the result's other scalar fields")

    if typing.TYPE_CHECKING:  # the columns made from Result's fields, which the checker cannot see

        def __getattr__(self, name: str) -> Any: ...

    def to_dict(self) -> dict[str, Any]:
        """The record as plain Python values, one entry per field (as in metrics.json's ``measures``)."""
        return self.model_dump(mode="json")

    def __repr__(self) -> str:
        return f"MeasureRecord(key={self.key!r}, family={self.family!r}, value={self.value!r}, verdict={self.verdict!r})"

    __str__ = __repr__


class Skipped(_Frozen):
    """A measure the audit did not compute, and why."""

    key: str
    measure: str
    family: str
    title: str
    reason: str


class FamilyFinding(_Frozen):
    """One kind of disclosure: its verdict, the measure that decided it, and what is at risk."""

    family: str
    title: str
    question: str
    verdict: FamilyVerdict
    deciding: str | None = Field(None, description="key of the measure that gave the verdict")
    headline: str
    reason: str | None = Field(None, description="why the family was not assessed")
    how_to_assess: str | None = None
    counts: dict[str, int] = Field(default_factory=dict)
    at_risk: list[AtRisk] = Field(default_factory=list)
    adjusted_p_values: dict[str, float] = Field(
        default_factory=dict, description="Holm-adjusted p-values of the family's exact tests"
    )


class FileDecision(_Frozen):
    """The decision on one synthetic file of an audit of several, from that file's own audit."""

    synthetic_label: str
    decision: Decision
    families: dict[str, FamilyVerdict] = Field(description="each kind of disclosure's verdict on the file")


class InputFile(_Frozen):
    role: str
    file: str
    rows: int | None
    columns: int
    sha256: str


class Provenance(_Frozen):
    privlib_version: str
    python_version: str
    pandas_version: str
    created: str
    inputs: list[InputFile]
    spec: dict[str, Any]
    notes: list[str] = Field(default_factory=list)


Leak = Literal["verbatim", "rare copies", "near copies", "rare-key attributions"]


class DetectionLimitRecord(_Frozen):
    """The smallest leak of one kind one family's tests catch, planted into this release
    (:class:`privlib.audit.detection_limits.DetectionLimit`): counts and shares only."""

    leak: Leak
    family: str
    limit: int | None = Field(
        description="fewest planted records caught in at least `rate` of the draws; "
        "null when no size up to `largest` is"
    )
    share: float | None = Field(description="the limit as a share of the release's records")
    release_size: int
    largest: int = Field(description="the most records this leak could plant")
    rate_at_limit: float | None = Field(
        description="share of the draws caught at the limit (at `largest` when there is no limit)"
    )
    below: int | None = Field(description="the largest size tried under the limit")
    rate_below: float | None
    tests: list[str] = Field(description="the tests re-run on every planted release")
    held: list[str] = Field(
        description="the family's other exact tests, in Holm's step at the audit's p-values"
    )
    reading: str


class DetectionLimits(_Frozen):
    """What the audit could have seen: for every kind of disclosure that reads "no evidence of
    risk" or "inconclusive", the smallest planted leak its own tests catch (context beside the
    verdict, never a verdict)."""

    draws: int = Field(description="seeded draws per size tried")
    rate: float = Field(description="share of the draws a leak must be caught in")
    random_state: int
    confidence: float
    families: list[str] = Field(description="the kinds of disclosure the limits are for")
    limits: list[DetectionLimitRecord]
    not_computed: dict[str, str] = Field(
        default_factory=dict, description="kind of disclosure -> why its limits were not computed"
    )


class EpsilonClaim(_Frozen):
    """A differential-privacy claim put to the test: an empirical lower bound on epsilon from the
    membership evidence (:func:`privlib.epsilon_audit.epsilon_lower_bound`)."""

    claimed_epsilon: float
    claimed_delta: float
    lower_bound: float = Field(description="valid at `confidence` under `assumption`")
    confidence: float
    contradicts_claim: bool = Field(description="whether the lower bound lies above the claimed epsilon")
    assumption: str
    attack: str = Field(description="the attack whose guesses were counted")
    member_guess_share: float
    nonmember_guess_share: float
    records_counted: int
    guesses: int
    correct: int
    reading: str


class AuditReport(_Frozen):
    """The result of an audit (see the module's docstring)."""

    schema_version: Literal["2.2"] = "2.2"
    title: str
    decision: Decision
    decision_rule: str = DECISION_RULE
    assessable: bool
    problem: str | None = None
    synthetic_label: str
    notes: list[str] = Field(default_factory=list)
    families: list[FamilyFinding]
    measures: list[MeasureRecord]
    skipped: list[Skipped]
    tables: dict[str, list[dict[str, Any]]] = Field(default_factory=dict)
    fidelity: dict[str, Any] | None = Field(
        None,
        description="fidelity of the synthetic data (privlib.utility.fidelity_summary): "
        "context beside the privacy verdicts, never a verdict itself",
    )
    provenance: Provenance
    files: list[FileDecision] = Field(
        default_factory=list,
        description="with several synthetic files, the decision on each, from its own audit (the "
        "first is this report's file, ``synthetic_label``); empty for one file",
    )

    detection_limits: DetectionLimits | None = Field(
        None,
        description="the smallest planted leaks the audit's own tests catch, for every kind of "
        "disclosure without a risk; null when every kind read risk or none could be assessed",
    )
    epsilon_claim: EpsilonClaim | None = Field(
        None, description="the claimed epsilon put to the test; null when no claim was given"
    )

    _results: dict[str, Any] = PrivateAttr(default_factory=dict)

    # -- access -----------------------------------------------------------------------------------
    def result(self, key: str) -> Result | Any | None:
        """The full result (with per-record arrays) or table computed as ``key``, if any."""
        return self._results.get(key)

    def by_family(self, family: str) -> list[MeasureRecord]:
        return [m for m in self.measures if m.family == family]

    def counts(self) -> dict[str, int]:
        """How many measures had each verdict."""
        out = {v: 0 for v in (RISK, INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE)}
        for m in self.measures:
            out[m.verdict] += 1
        return out

    def summary(self) -> dict[str, Any]:
        """The decision, the file it is for and the decision on each file (:attr:`files`), each
        family's verdict and records at risk: what ``--json`` prints.

        A measure's records at risk are listed only when it stands as a risk in its family: judged
        ``risk``, and, for an exact test, still so after the family's adjustment
        (:func:`privlib.rules.corrected_verdict`)."""
        measures = {m.key: m for m in self.measures}

        def stands(family: FamilyFinding, key: str) -> bool:
            measure = measures.get(key)
            return measure is not None and RISK == corrected_verdict(
                measure.verdict, family.adjusted_p_values.get(key), level=1 - measure.confidence
            )

        return {
            "schema_version": self.schema_version,
            "synthetic_label": self.synthetic_label,
            "decision": self.decision,
            "files": [f.model_dump(mode="json") for f in self.files],
            "families": {
                f.family: {
                    "verdict": f.verdict,
                    "deciding": f.deciding,
                    "records_at_risk": {a.key: a.count for a in f.at_risk if stands(f, a.key)},
                }
                for f in self.families
            },
            "verdicts": self.counts(),
            "skipped": len(self.skipped),
        }

    # -- output -----------------------------------------------------------------------------------
    def to_json(self, *, indent: int | None = 2) -> str:
        """metrics.json: the report as JSON (NaN and infinities as null)."""
        return json.dumps(self.model_dump(mode="json"), indent=indent, allow_nan=False, default=str) + "\n"

    def save(self, path: str | os.PathLike, formats: Iterable[str] = ("json", "html", "pdf")) -> Path:
        """Write the report: to a path ending in ``.json``, its JSON alone (metrics.json's content
        under that name; ``formats`` is then not used); to any other path, a folder, the files the
        command line writes: metrics.json (``"json"``), report.html (``"html"``) and report.pdf
        (``"pdf"``, which needs the report extra).

        The folder (or the JSON file's folder) is made if it does not exist; a path that is a file
        (for a folder), a folder (for a JSON file), a symbolic link or inside the kit's own folders
        is refused with a :class:`~privlib.errors.PrivlibError` before anything is written. Each
        file is written in a private folder beside its destination and moved in by one rename, so
        a reader sees the earlier file or the new one, never a part. In a folder, the report's
        files of the formats not asked for are removed in the same publication, so that the folder
        never holds files of two reports; other files are left alone (:mod:`privlib.publish`).
        Returns the JSON file or the folder.
        """
        if str(path).lower().endswith(".json"):
            return self._save_json(Path(path))
        formats = tuple(formats)
        unknown = sorted(set(formats) - set(REPORT_FILES))
        if unknown or not formats:
            raise PrivlibError(
                f"`formats` {unknown or 'is empty'}: give one or more of {list(REPORT_FILES)}."
            )
        out = checked_out(path, name="folder")
        pages = _registered_pages() if {"html", "pdf"} & set(formats) else None
        with staging(out, "report") as stage:
            (stage / REPORT_FILES["json"]).write_text(self.to_json(), encoding="utf-8")
            if pages is not None:
                (stage / REPORT_FILES["html"]).write_text(pages.page(self), encoding="utf-8")
                if "pdf" in formats:
                    pages.pdf(stage / REPORT_FILES["html"], stage / REPORT_FILES["pdf"])
            written = {REPORT_FILES[f] for f in formats}
            publish(stage, out, written, retire=set(REPORT_FILES.values()) - written)
        return out

    def _save_json(self, target: Path) -> Path:
        """The report's JSON published as the file ``target`` (see :meth:`save`): written beside
        it and renamed over its name, which replaces a file there whole."""
        if os.path.lexists(target) and (target.is_symlink() or not target.is_file()):
            raise PrivlibError(
                f"`path` {str(target)!r} exists and is not a plain file; give a file name ending "
                "in .json (or a folder for the whole report)."
            )
        folder = checked_out(target.parent, name="path's folder")
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(self.to_json())
            os.chmod(temporary, new_file_mode())
            os.replace(temporary, folder / target.name)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        return folder / target.name

    def with_files(self, reports: Iterable[AuditReport]) -> AuditReport:
        """This report with the decision on each synthetic file (:attr:`files`), from one report
        per file: this one's audit first, then each other file's own audit."""
        files = [
            FileDecision(
                synthetic_label=r.synthetic_label,
                decision=r.decision,
                families={f.family: f.verdict for f in r.families},
            )
            for r in reports
        ]
        return self.model_copy(update={"files": files})

    def to_frame(self) -> Any:
        """One row per measure, as a :class:`pandas.DataFrame` indexed by the measure's ``key``:
        a column per field of :class:`MeasureRecord` (``value``, ``ci_low``, ``ci_high``,
        ``baseline``, ``threshold``, ``verdict``, ``family``, ``title``, ``reading``, ...), in
        the order of its fields; ``details`` holds each measure's other scalar fields as a dict.
        Missing numbers are NaN."""
        import pandas as pd

        columns = list(MeasureRecord.model_fields)
        rows = [m.to_dict() for m in self.measures]
        frame = pd.DataFrame(rows, columns=columns)
        return frame.set_index("key", drop=False).rename_axis(None)

    def __repr__(self) -> str:
        """The decision, the file, and how many kinds of disclosure and measures had each verdict."""

        def tally(verdicts: Iterable[str]) -> str:
            counted: dict[str, int] = {}
            for verdict in verdicts:
                counted[verdict] = counted.get(verdict, 0) + 1
            return ", ".join(f"{n} {v}" for v, n in counted.items())

        families = tally(f.verdict for f in self.families)
        measures = tally(m.verdict for m in self.measures)
        files = f", files={len(self.files)}" if self.files else ""
        return (
            f"AuditReport(decision={self.decision!r}, synthetic={self.synthetic_label!r}{files}, "
            f"families={len(self.families)} ({families}), measures={len(self.measures)}"
            f"{f' ({measures})' if measures else ''}, skipped={len(self.skipped)})"
        )

    __str__ = __repr__  # print(report) too: pydantic's own would print every field

    def _repr_html_(self) -> str:
        """The decision page and the verdict lines, with the kit's styles scoped to them."""
        return _registered_pages().display(self)

    def __dir__(self) -> list[str]:
        """The report's fields and its own methods, not the many of pydantic's model."""
        own = [name for name in vars(type(self)) if not name.startswith("_")]
        return sorted(set(type(self).model_fields) | set(own) | {"model_dump", "model_dump_json"})


def metrics_schema() -> dict[str, Any]:
    """The JSON Schema of metrics.json (the package ships it as ``metrics.schema.json``)."""
    schema = AuditReport.model_json_schema(mode="serialization")
    schema["$id"] = f"https://privlib.invalid/metrics-{SCHEMA_VERSION}.schema.json"
    return schema


def comparable_metrics(metrics: dict) -> dict:
    """``metrics`` without the run time and durations, the fields that differ between identical runs."""
    out = json.loads(json.dumps(metrics))
    out.get("provenance", {}).pop("created", None)
    for measure in out.get("measures", []):
        measure.pop("seconds", None)
    return out


def plain_number(value: Any) -> float | None:
    """A JSON-safe float: ``None`` for missing, NaN and infinite values."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None
