"""The audit runner: runs the catalogue, judges each result, keeps what the report shows.

:class:`Audit` runs every entry of :data:`~privlib.audit.catalogue.CATALOGUE` (or records why it
was skipped), passes each result through the threshold registry (:func:`privlib.thresholds.judge`,
with the custodian's overrides), and gives the report its views: the verdicts, the readings per
family, the provenance, and ``metrics.json``. It computes nothing itself: every number comes from
the public function a notebook would call.

Reproducibility: ``metrics.json`` is a function of the inputs and the settings, except
``provenance["created"]`` (the UTC time of the run); compare runs with
:func:`comparable_metrics`.
"""

from __future__ import annotations

import datetime as _dt
import inspect
import re
import json
import math
import os
import platform
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from privlib.audit.catalogue import CATALOGUE, FAMILIES, NEEDS, Context, Measure
from privlib.audit.inputs import MIN_ROWS, AuditInputs, sha256
from privlib.errors import PrivlibError
from privlib.render.pages import render_page
from privlib.results import Result
from privlib.schema import NUMERIC, infer_kinds
from privlib.thresholds import REGISTRY, check_overrides, judge

__all__ = ["Audit", "Recorded", "DEFAULT_SETTINGS", "comparable_metrics"]

#: Settings of the audit's measures (the audit notebook's parameters of the same names).
DEFAULT_SETTINGS = {
    "seed": 2026,             # one seed for every random step
    "repeats": 5,             # repetitions of the random membership measures
    "hamming_threshold": 5,   # h of the partitioning attack (El Emam et al. 2022)
    "attack_share": 0.5,      # t of the partitioning attack when N is not given
    "cap_bins": 5,            # quantile bins of numeric keys and targets for CAP
    "targeted_attack": None,  # generator to refit for the shadow-model attack (off when None)
}


@dataclass(frozen=True)
class Recorded:
    """One computed measure: its family, label, judged result and run time."""

    family: str
    label: str
    result: Result
    seconds: float


class Audit:
    """Runs the measures of an audit and keeps their results for the report and metrics.json.

    Parameters
    ----------
    inputs : AuditInputs
        From :func:`privlib.audit.load_audit_inputs`.
    settings : dict, optional
        Values for :data:`DEFAULT_SETTINGS` (unknown names are an error).
    parameters : dict, optional
        The notebook's parameters, recorded in the provenance (file paths reduced to file names).
    thresholds : dict, optional
        ``Result.measure`` -> absolute cut-off replacing the registry's
        (:data:`privlib.thresholds.REGISTRY`); unknown measures are an error that lists the
        valid keys.
    catalogue : sequence of Measure, optional
        The measures to run (default :data:`~privlib.audit.catalogue.CATALOGUE`).
    client : dask.distributed.Client, optional
        Passed to every measure that takes a ``client`` (the neighbour-engine measures), which then
        search on the Dask cluster; the results are identical.
    """

    def __init__(self, inputs: AuditInputs, *, settings=None, parameters=None, thresholds=None,
                 catalogue=CATALOGUE, client=None):
        unknown = sorted(set(settings or {}) - set(DEFAULT_SETTINGS))
        if unknown:
            raise PrivlibError(
                f"unknown audit setting(s) {unknown}; the settings are {sorted(DEFAULT_SETTINGS)}."
            )
        self.inputs = inputs
        self.settings = DEFAULT_SETTINGS | dict(settings or {})
        self.parameters = _portable(parameters or {})
        self.thresholds = check_overrides(thresholds)
        self.catalogue = tuple(catalogue)
        self.client = client
        self._confidential = _labels_of(inputs.train, inputs.holdout)
        self.recorded: list[Recorded] = []
        self.skipped: list[tuple[str, str, str]] = []
        self.tables: dict[str, pd.DataFrame] = {}
        self._step = 0

    # -- running ---------------------------------------------------------------------------
    def missing(self, needs=()) -> str | None:
        """Why a measure needing ``needs`` cannot run, or ``None`` when it can."""
        if not self.inputs.assessable:
            return f"inputs too small to assess: {self.inputs.problem}"
        have = {
            "holdout": self.inputs.holdout is not None,
            "population_size": self.inputs.population_size is not None,
            "keys": bool(self.inputs.keys),
            "sensitive": bool(self.inputs.sensitive),
            "several_synthetic": len(self.inputs.synthetic) > 1,
            "targeted_attack": self.settings["targeted_attack"] is not None,
        }
        for need in needs:
            if need not in have:
                raise PrivlibError(f"unknown requirement {need!r}; use one of {sorted(have)}.")
            if not have[need]:
                return NEEDS[need].format(min_rows=MIN_ROWS)
        return None

    def context(self, target: str | None = None) -> Context:
        """The tables, variables and settings a measure's arguments are built from."""
        inputs = self.inputs
        return Context(
            train=inputs.train, synthetic=inputs.primary, holdout=inputs.holdout,
            synthetics=inputs.synthetic, keys=list(inputs.keys), sensitive=list(inputs.sensitive),
            population_size=inputs.population_size, settings=self.settings, binned=self.binned,
            target=target,
        )

    def run(self) -> "Audit":
        """Run every measure of the catalogue (or record why it was skipped); returns ``self``."""
        for entry in self.catalogue:
            self.run_measure(entry)
        return self

    def run_measure(self, entry: Measure) -> None:
        """Run one catalogue entry: once, or once per sensitive variable."""
        if entry.not_applicable:
            self.skip(entry.family, entry.key, entry.not_applicable)
            return
        reason = self.missing(entry.needs)
        if reason is not None:
            self.skip(entry.family, entry.key, reason)
            return
        targets = self.inputs.sensitive if entry.per_target else [None]
        for target in targets:
            label = entry.key if target is None else f"{entry.key} ({target})"
            self._call(entry, label, self.context(target))

    def _call(self, entry: Measure, label: str, context: Context) -> None:
        self._step += 1
        print(f"[{self._step}] {FAMILIES[entry.family].title}: {label} ...", flush=True)
        start = time.perf_counter()
        arguments = entry.arguments(context)
        if self.client is not None and "client" in inspect.signature(entry.function).parameters:
            arguments["client"] = self.client
        try:
            out = entry.function(**arguments)
        except PrivlibError as exc:
            self.skip(entry.family, label, f"the data do not allow it: {exc}")
            print(f"    skipped: {exc}", flush=True)
            return
        seconds = time.perf_counter() - start
        print(f"    done in {seconds:.1f} s", flush=True)
        if isinstance(out, pd.DataFrame):
            self.tables[label] = out
        elif isinstance(out, Result):
            self.recorded.append(Recorded(entry.family, label, self._judged(out), round(seconds, 3)))

    def _judged(self, result: Result) -> Result:
        """``result`` judged by the registry, with the audit's own cut-off where one was set."""
        if result.measure not in REGISTRY:
            return result
        return judge(result, override=self.thresholds.get(result.measure))

    def skip(self, family: str, label: str, reason: str) -> None:
        """Record that ``label`` was not run, and why (with any data value blanked out)."""
        self.skipped.append((family, label, self.redact(reason)))

    def redact(self, text: str) -> str:
        """``text`` with every quoted category label of the training or holdout data replaced by
        ``'…'``: the one place that keeps a value of the confidential data out of the report,
        whatever message a measure wrote. Readings and skip reasons pass through it."""
        if not self._confidential or "'" not in text and '"' not in text:
            return text
        return _QUOTED.sub(lambda m: "'…'" if m.group(2) in self._confidential else m.group(0), text)

    def binned(self, columns):
        """Training and primary synthetic data restricted to ``columns``, numeric ones binned.

        CAP matches values exactly, so numeric keys and targets are first cut into the same
        quantile bins of the training data (:func:`privlib.attribute.discretize`).
        """
        from privlib.attribute import discretize

        columns = list(columns)
        train, synthetic = self.inputs.train[columns], self.inputs.primary[columns]
        numeric = [c for c, kind in infer_kinds(train, name="train").items() if kind == NUMERIC]
        if numeric:
            train, synthetic = discretize(
                original=train, synthetic=synthetic, columns=numeric, n_bins=self.settings["cap_bins"]
            )
        return train, synthetic

    # -- views -------------------------------------------------------------------------------
    @property
    def results(self) -> list[Recorded]:
        """The computed measures, in the order they ran."""
        return list(self.recorded)

    def get(self, label: str):
        """The result (or table) recorded as ``label``, or ``None`` when it was not run."""
        if label in self.tables:
            return self.tables[label]
        return next((r.result for r in self.recorded if r.label == label), None)

    def _by_entry(self, family: str, field: str):
        """``(label, result, function)`` for every computed measure of ``family`` whose catalogue
        entry has the callable ``field`` (``plot``, ``table`` or ``at_risk``)."""
        functions = {e.key: getattr(e, field) for e in self.catalogue if getattr(e, field) is not None}
        return [
            (r.label, r.result, functions[r.label.split(" (")[0]])
            for r in self.recorded
            if r.family == family and r.label.split(" (")[0] in functions
        ]

    def measure_tables(self, family: str):
        """``(label, DataFrame)`` for every computed measure of ``family`` whose entry has a table."""
        return [(label, table(result)) for label, result, table in self._by_entry(family, "table")]

    def figures(self, family: str):
        """``(label, result, plot)`` for every computed measure of ``family`` that has a figure."""
        return self._by_entry(family, "plot")

    def verdict_rows(self) -> list[dict]:
        """One row per computed measure: family, label, value, interval, baseline, threshold,
        verdict, rule and reading."""
        return [
            {
                "family": r.family,
                "measure": r.label,
                "value": r.result.value,
                "ci_low": r.result.ci_low,
                "ci_high": r.result.ci_high,
                "baseline": r.result.baseline,
                "threshold": r.result.threshold,
                "verdict": r.result.verdict,
                "rule": r.result.verdict_rule,
                "reading": self.redact(r.result.reading()),
            }
            for r in self.recorded
        ]

    def verdict_table(self) -> pd.DataFrame:
        """:meth:`verdict_rows` as a DataFrame."""
        columns = ["family", "measure", "value", "ci_low", "ci_high", "baseline", "threshold",
                   "verdict", "rule", "reading"]
        return pd.DataFrame(self.verdict_rows(), columns=columns)

    def verdict_html(self) -> str:
        """The verdict table as an HTML fragment, one group per family (escaped by the template)."""
        groups = []
        for key, family in FAMILIES.items():
            rows = [
                dict(row, value=_number(row["value"]), interval=_interval(row), baseline=_number(row["baseline"]),
                     threshold=_number(row["threshold"]), verdict=row["verdict"] or "none")
                for row in self.verdict_rows() if row["family"] == key
            ]
            if rows:
                groups.append({"title": family.title, "rows": rows})
        return render_page("verdicts.html.j2", groups=groups)

    def family_html(self, family: str) -> str:
        """One family's section: its title, question and introduction, the readings of its
        measures, and what was skipped and why (an HTML fragment)."""
        readings = [(r.label, self.redact(r.result.reading())) for r in self.recorded if r.family == family]
        skipped = [(label, why) for f, label, why in self.skipped if f == family]
        return render_page("readings.html.j2", family=FAMILIES[family], readings=readings,
                           skipped=skipped)

    def conclusion(self) -> list[dict]:
        """Per family, the strongest finding: the measure whose verdict is most severe (risk, then
        inconclusive, then no evidence of risk), with its value, interval and verdict."""
        findings = []
        for key, family in FAMILIES.items():
            judged = [r for r in self.recorded if r.family == key and r.result.verdict in _SEVERITY]
            if not judged:
                continue
            worst = max(judged, key=lambda r: (_SEVERITY[r.result.verdict], _excess(r.result)))
            counts = {v: sum(r.result.verdict == v for r in judged) for v in _SEVERITY}
            at_risk = [(label, *counter(result)) for label, result, counter in self._by_entry(key, "at_risk")]
            findings.append({
                "family": family.title, "label": worst.label, "verdict": worst.result.verdict,
                "value": _number(worst.result.value), "interval": _interval(vars(worst.result)),
                "rule": worst.result.verdict_rule or "", "counts": counts, "n": len(judged),
                "at_risk": at_risk,
            })
        return findings

    def conclusion_html(self, title: str) -> str:
        """The report's first page: the title, the strongest finding per family, what the audit
        cannot show (an HTML fragment, every value escaped)."""
        return render_page(
            "conclusion.html.j2", title=title, assessable=self.inputs.assessable,
            problem=self.inputs.problem, findings=self.conclusion(), summary=self.summary(),
            label=self.inputs.primary_label, notes=self.inputs.notes,
        )

    def rules_html(self) -> str:
        """Each rule this audit's verdicts used, with its source (for "How to read")."""
        seen = {}
        for r in self.recorded:
            if r.result.verdict_rule and r.result.measure not in seen:
                seen[r.result.measure] = r.result.verdict_rule
        return render_page("rules.html.j2", rules=sorted(seen.items()))

    def skipped_table(self) -> pd.DataFrame:
        """One row per skipped measure, with the reason."""
        return pd.DataFrame(self.skipped, columns=["family", "measure", "reason"])

    def summary(self) -> str:
        """One paragraph: how many measures ran, with which verdicts, and how many were skipped."""
        if not self.inputs.assessable:
            return f"Not assessable: {self.inputs.problem}. No measure was computed; provide larger tables."
        counts: dict[str, int] = {}
        for r in self.recorded:
            counts[r.result.verdict or "no verdict"] = counts.get(r.result.verdict or "no verdict", 0) + 1
        told = ", ".join(f"{n} {verdict}" for verdict, n in counts.items())
        text = (
            f"{len(self.recorded)} measure(s) computed on the synthetic data "
            f"{self.inputs.primary_label}: {told}; {len(self.skipped)} skipped (listed at the end)."
        )
        flagged = [r.label for r in self.recorded if r.result.verdict == "risk"]
        if flagged:
            text += f" Look first at: {', '.join(flagged)}."
        return text

    def provenance(self) -> dict:
        """Version, time, row counts and SHA-256 of the inputs, the settings and parameters."""
        from privlib import __version__

        inputs = self.inputs
        rows = {"train": [len(inputs.train)], "synthetic": [len(f) for f in inputs.synthetic.values()]}
        rows["holdout"] = [len(inputs.holdout) if inputs.holdout is not None else None]
        files = [
            {"role": role, "file": path.name, "rows": rows[role][i],
             "columns": inputs.train.shape[1], "sha256": sha256(path)}
            for role, paths in inputs.files.items()
            for i, path in enumerate(paths)
        ]
        return {
            "privlib_version": __version__,
            "python_version": platform.python_version(),
            "pandas_version": pd.__version__,
            "created": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            "inputs": files,
            "population_size": inputs.population_size,
            "keys": inputs.keys,
            "sensitive": inputs.sensitive,
            "settings": dict(self.settings),
            "thresholds": dict(self.thresholds),
            "parameters": self.parameters,
            "notes": list(inputs.notes),
        }

    def provenance_html(self) -> str:
        """The provenance as a two-column table fragment for the report's first pages."""
        p = self.provenance()
        rows = [
            ("privlib version", p["privlib_version"]),
            ("created (UTC)", p["created"]),
            ("Python / pandas", f"{p['python_version']} / {p['pandas_version']}"),
        ]
        rows += [
            (f"{f['role']}: {f['file']}", f"{f['rows']} rows x {f['columns']} columns, SHA-256 {f['sha256']}")
            for f in p["inputs"]
        ]
        rows += [
            ("population size N", p["population_size"] or "not given"),
            ("keys", ", ".join(map(str, p["keys"])) or "none"),
            ("sensitive", ", ".join(map(str, p["sensitive"])) or "none"),
            ("settings", json.dumps(p["settings"])),
            ("thresholds set for this audit", json.dumps(p["thresholds"]) if p["thresholds"] else "none"),
        ]
        shown = {"train", "synthetic", "holdout", "population_size", "keys", "sensitive", "thresholds"}
        rows += [
            (f"parameter {name}", json.dumps(value, default=str))
            for name, value in p["parameters"].items()
            if name not in shown and name not in DEFAULT_SETTINGS
        ]
        rows += [("note", note) for note in p["notes"]]
        return render_page("table.html.j2", columns=["item", "value"], rows=rows, index_name=None,
                           classes="privlib-provenance")

    def to_dict(self) -> dict:
        """Everything metrics.json holds."""
        return {
            "assessable": self.inputs.assessable,
            "problem": self.inputs.problem,
            "summary": self.summary(),
            "measures": [
                dict(family=r.family, label=r.label, seconds=r.seconds,
                     **(r.result.to_dict() | {"reading": self.redact(r.result.reading())}))
                for r in self.recorded
            ],
            "tables": {
                name: json.loads(table.reset_index().to_json(orient="records", date_format="iso"))
                for name, table in self.tables.items()
            },
            "skipped": [dict(family=f, measure=m, reason=why) for f, m, why in self.skipped],
            "provenance": self.provenance(),
        }

    def write_metrics(self, path) -> None:
        """Write :meth:`to_dict` as JSON to ``path`` (nothing when ``path`` is ``None``)."""
        if path is None:
            return
        text = json.dumps(self.to_dict(), indent=2, allow_nan=False, default=_json_default)
        Path(path).write_text(text + "\n", encoding="utf-8")


_QUOTED = re.compile(r"""(['"])(.*?)\1""")


def _labels_of(*tables) -> set[str]:
    """The category labels (text) of the categorical columns of ``tables``."""
    labels = set()
    for table in tables:
        if table is None:
            continue
        for column in table.columns:
            if isinstance(table[column].dtype, pd.CategoricalDtype) or table[column].dtype == object:
                labels.update(str(v) for v in pd.unique(table[column].dropna()))
    return labels


#: Verdicts in order of severity, for the conclusion (not assessable has nothing to show).
_SEVERITY = {"no evidence of risk": 0, "inconclusive": 1, "risk": 2}


def _excess(result: Result) -> float:
    """How far a result lies beyond its threshold, in its own units (for ranking one family's
    findings of equal severity)."""
    if result.threshold is None or result.value is None or math.isnan(result.value):
        return -math.inf
    beyond = result.value - result.threshold
    return beyond if result.higher_is_riskier else -beyond


def table_html(table: pd.DataFrame, *, index: bool = False, classes: str = "") -> str:
    """A DataFrame as an HTML table fragment, every cell in full and escaped."""
    frame = table.reset_index() if index else table
    rows = [[_number(v) for v in row] for row in frame.itertuples(index=False)]
    return render_page("table.html.j2", columns=[str(c) for c in frame.columns], rows=rows,
                       index_name=None, classes=classes)


def _number(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def _interval(row: dict) -> str:
    low, high = row["ci_low"], row["ci_high"]
    if low is None or high is None or (isinstance(low, float) and math.isnan(low)):
        return ""
    return f"{_number(low)} to {_number(high)}"


def _json_default(value):
    """JSON for the numpy and pandas scalars a table may hold; NaN and infinities become null."""
    if hasattr(value, "item"):
        value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            return None
        return value
    return str(value)


def _portable(parameters: dict) -> dict:
    """The parameters with file paths reduced to file names (the folder says nothing useful)."""
    out = {}
    for name, value in parameters.items():
        if name in ("train", "holdout") and value is not None:
            value = Path(value).name
        elif name == "synthetic" and value is not None:
            value = [Path(v).name for v in ([value] if isinstance(value, (str, os.PathLike)) else value)]
        elif name == "metrics_path":
            continue
        out[name] = value
    return out


def comparable_metrics(metrics: dict) -> dict:
    """``metrics`` without the run time and durations, the fields that differ between identical runs."""
    out = json.loads(json.dumps(metrics))
    out.get("provenance", {}).pop("created", None)
    for measure in out.get("measures", []):
        measure.pop("seconds", None)
    return out
