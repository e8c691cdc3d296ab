"""Audit and course reports: run a notebook with papermill, render it to HTML and PDF.

Two kinds of report share one rendering path (nbconvert HTML with the kit's print stylesheet,
then WeasyPrint PDF):

* the **privacy audit** (:func:`run_audit`): ``reports/privacy_audit.ipynb`` is executed on file
  paths (training data, one or several synthetic files, an optional holdout) and writes, into the
  output folder, the executed notebook, ``report.html`` (no code, figures embedded, no external
  resources), ``report.pdf`` and ``metrics.json``;
* the **course** (:func:`run_course`): the teaching notebooks ``notebooks/0*.ipynb`` executed on
  one dataset, each rendered to HTML and PDF, with an ``index.html`` page.

How the numbers reach ``metrics.json``
    The audit notebook collects every result in an :class:`Audit` and, in its last cell, writes
    ``metrics.json`` itself (:meth:`Audit.write_metrics`) to the path given as its
    ``metrics_path`` parameter. No measure is computed twice: the file holds
    ``Result.to_dict()`` of the very objects the report shows.

Reproducibility
    ``metrics.json`` is a function of the inputs and the parameters, except for the one field
    ``provenance["created"]`` (the UTC time of the run), kept because a report must say when it
    was made. Compare two runs with that field removed (:func:`comparable_metrics`).

Safety
    Everything is validated before anything runs (:func:`load_audit_inputs` raises a
    :class:`~privlib.errors.PrivlibError` naming the problem); the report is rendered in a
    temporary folder and its files are moved into the output folder only at the end, so a failed
    run leaves an earlier report intact. The report shows aggregates, distances and plots only,
    never a record.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import hashlib
import html
import json
import logging
import math
import os
import platform
import re
import shutil
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from privlib.datasets import DATASETS, dataset_info, load_dataset, read_table, sample_split
from privlib.errors import PrivlibError
from privlib.results import Result, verdict_for
from privlib.schema import NUMERIC, check_columns, check_same_columns, infer_kinds

#: Fewest rows of training or synthetic data for which the audit computes anything.
MIN_ROWS = 20

#: Files an audit writes into its output folder (and nothing else).
AUDIT_FILES = ("privacy_audit.ipynb", "report.html", "report.pdf", "metrics.json")

SECTIONS = {
    "identity": "Identity disclosure",
    "attribute": "Attribute disclosure",
    "membership": "Membership disclosure",
    "comparison": "Synthesizer comparison",
}

#: Thresholds of the measures that carry none of their own (``Result.measure`` -> threshold).
#: They follow the readings of the measures: a DCR share more than 5 points above 50 %, an
#: attack AUC of 0.6 or more, a privacy loss above 0.1 (a fifth of a copy's 0.5), synthetic
#: records judged 2 points more "real" than unseen ones. Override them with ``thresholds``.
DEFAULT_THRESHOLDS = {
    "dcr_holdout_share": 0.55,
    "nn_mia_auc": 0.6,
    "privacy_loss": 0.1,
    "discriminator_excess_realness": 0.02,
}

_TEMPLATES = Path(__file__).resolve().parent / "templates"
_REPO = Path(__file__).resolve().parents[1]

# Why a measure is not run when an input it needs is missing; `Audit.run(needs=...)` keys.
_NEEDS = {
    "holdout": "no holdout data was given (or it had fewer than {min_rows} rows), so there is no "
    "set of non-members to compare the training data with",
    "population_size": "no population size N was given",
    "keys": "no key variables were given",
    "sensitive": "no sensitive variables were given",
    "several_synthetic": "only one synthetic file was given",
}


class ReportError(PrivlibError):
    """A notebook failed while it ran (not bad input): the report was not written."""


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AuditInputs:
    """The validated tables of an audit.

    Attributes
    ----------
    train : pandas.DataFrame
        The confidential training data.
    synthetic : dict of str to pandas.DataFrame
        The synthetic tables, labelled by file name (without extension); the first is the one the
        identity, attribute and membership sections assess.
    holdout : pandas.DataFrame or None
        Real records the generator never saw; ``None`` when absent or too small.
    population_size : int or None
        Size N of the population the training data was drawn from.
    keys, sensitive : list of str
        Key (quasi-identifying) and sensitive variables.
    files : dict of str to list of pathlib.Path
        The files each role was read from.
    problem : str or None
        Why the inputs are too small to assess, or ``None`` when they can be assessed.
    notes : list of str
        Remarks about the inputs (e.g. a holdout set aside because it was too small).
    """

    train: pd.DataFrame
    synthetic: dict
    holdout: pd.DataFrame | None
    population_size: int | None
    keys: list
    sensitive: list
    files: dict
    problem: str | None = None
    notes: list = field(default_factory=list)

    @property
    def assessable(self) -> bool:
        """Whether the tables are large enough to compute any measure."""
        return self.problem is None

    @property
    def primary(self) -> pd.DataFrame:
        """The first synthetic table: the one the disclosure sections assess."""
        return next(iter(self.synthetic.values()))

    @property
    def primary_label(self) -> str:
        return next(iter(self.synthetic))


def _as_paths(value, parameter: str) -> list[Path]:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        raise PrivlibError(f"`{parameter}` is required; give the path of a CSV file.")
    values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    for v in values:
        if not isinstance(v, (str, os.PathLike)) or not str(v).strip():
            raise PrivlibError(f"`{parameter}` must be a path to a CSV file, got {v!r}.")
    return [Path(v) for v in values]


def _labels(paths: list[Path]) -> list[str]:
    """One distinct label per synthetic file: its name, with a number added for repeats."""
    labels = []
    for path in paths:
        label, i = path.stem, 2
        while label in labels:
            label, i = f"{path.stem}_{i}", i + 1
        labels.append(label)
    return labels


def _check_like(train: pd.DataFrame, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Check ``frame`` has the training data's columns, numbers where it has numbers.

    :func:`privlib.datasets.read_table` with ``like=train`` already gave the categorical columns
    the training data's categories, so only the numeric columns are left to check (with a
    message about files rather than tables).
    """
    check_same_columns(train, frame, ("train", name))
    for column, kind in infer_kinds(train, name="train").items():
        values = frame[column]
        if kind == NUMERIC and not (
            pd.api.types.is_numeric_dtype(values) or pd.api.types.is_datetime64_any_dtype(values)
        ):
            raise PrivlibError(
                f"column {column!r} holds numbers in `train` but not in `{name}`; give it the "
                "same type in both files."
            )
    return frame[list(train.columns)]


def _column_list(value, parameter: str, train: pd.DataFrame) -> list:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return []
    return check_columns(train, value, parameter, "train")


def load_audit_inputs(
    *,
    train,
    synthetic,
    holdout=None,
    population_size=None,
    keys=None,
    sensitive=None,
) -> AuditInputs:
    """Read and validate the files of an audit.

    Parameters
    ----------
    train : str or path
        CSV file of the training data.
    synthetic : str, path or list of them
        One or several CSV files of synthetic data, with the training data's columns.
    holdout : str or path, optional
        CSV file of real records from the same population that the generator never saw.
    population_size : int, optional
        Size N of the population the training data was drawn from; at least the number of
        training rows.
    keys, sensitive : list of str, optional
        Key and sensitive variables (columns of the training data); the measures that need them
        are skipped when they are not given.

    Returns
    -------
    AuditInputs
        With ``problem`` set (and nothing computed later) when the training data or a synthetic
        table has fewer than :data:`MIN_ROWS` rows.

    Raises
    ------
    PrivlibError
        For a missing or empty file, tables with different columns or column types, a key or
        sensitive variable that is not a column, a variable that is both, or a population size
        that is not an integer at least as large as the training data.
    """
    train_path = _as_paths(train, "train")
    if len(train_path) != 1:
        raise PrivlibError("`train` must be one CSV file, got several.")
    synthetic_paths = _as_paths(synthetic, "synthetic")
    holdout_path = _as_paths(holdout, "holdout") if holdout is not None else []
    if len(holdout_path) > 1:
        raise PrivlibError("`holdout` must be one CSV file, got several.")

    train_df = read_table(train_path[0], "train")
    synthetic_dfs = {}
    for label, path in zip(_labels(synthetic_paths), synthetic_paths):
        name = f"synthetic ({path.name})"
        synthetic_dfs[label] = _check_like(train_df, read_table(path, name, like=train_df), name)
    holdout_df = None
    if holdout_path:
        holdout_df = _check_like(train_df, read_table(holdout_path[0], "holdout", like=train_df), "holdout")

    keys = _column_list(keys, "keys", train_df)
    sensitive = _column_list(sensitive, "sensitive", train_df)
    both = [c for c in sensitive if c in keys]
    if both:
        raise PrivlibError(
            f"{both} {'is' if len(both) == 1 else 'are'} given both as `keys` and as `sensitive`; "
            "a variable the adversary already knows cannot be the one they want to learn."
        )
    if population_size is not None:
        if isinstance(population_size, bool) or not float(population_size).is_integer():
            raise PrivlibError(
                f"`population_size` must be a whole number of people, got {population_size!r}."
            )
        population_size = int(population_size)
        if population_size < len(train_df):
            raise PrivlibError(
                f"`population_size` ({population_size}) is smaller than the training data "
                f"({len(train_df)} rows); N is the size of the population the training data was "
                "drawn from, so it is at least that large."
            )

    problem = None
    small = [("training data", len(train_df))] + [
        (f"synthetic data {label!r}", len(frame)) for label, frame in synthetic_dfs.items()
    ]
    too_small = [f"the {what} has {n} row(s)" for what, n in small if n < MIN_ROWS]
    if too_small:
        problem = "; ".join(too_small) + f" (at least {MIN_ROWS} are needed)"
    notes = []
    if holdout_df is not None and len(holdout_df) < MIN_ROWS:
        notes.append(
            f"The holdout has {len(holdout_df)} row(s), fewer than {MIN_ROWS}; it was set aside."
        )
        holdout_df = None

    files = {"train": train_path, "synthetic": synthetic_paths, "holdout": holdout_path}
    return AuditInputs(
        train=train_df,
        synthetic=synthetic_dfs,
        holdout=holdout_df,
        population_size=population_size,
        keys=keys,
        sensitive=sensitive,
        files=files,
        problem=problem,
        notes=notes,
    )


def sha256(path) -> str:
    """SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# The audit: collect results, say what was skipped, write metrics.json
# --------------------------------------------------------------------------------------------
class Audit:
    """Runs the measures of an audit and keeps their results for the report and metrics.json.

    Parameters
    ----------
    inputs : AuditInputs
        From :func:`load_audit_inputs`.
    parameters : dict, optional
        The notebook's parameters, recorded in the provenance (file paths reduced to file names,
        so that the record does not depend on where the files were).
    thresholds : dict, optional
        Measure name (``Result.measure``, e.g. ``"nn_mia_auc"``) -> threshold. A threshold given
        here replaces the measure's own; :data:`DEFAULT_THRESHOLDS` fill in for measures that
        have none.

    Notes
    -----
    :meth:`run` calls one measure of the kit and records its result, or records why it was
    skipped: an input it ``needs`` is missing, the inputs are too small, or the measure itself
    rejected the data with a :class:`~privlib.errors.PrivlibError` (whose message is kept). Other
    exceptions are bugs and propagate.
    """

    def __init__(self, inputs: AuditInputs, *, parameters: dict | None = None, thresholds=None):
        self.inputs = inputs
        self.parameters = _portable(parameters or {})
        self.thresholds = dict(thresholds or {})
        self.results: list[tuple[str, str, Result]] = []
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
        }
        for need in needs:
            if need not in have:
                raise PrivlibError(f"unknown requirement {need!r}; use one of {sorted(have)}.")
            if not have[need]:
                return _NEEDS[need].format(min_rows=MIN_ROWS)
        return None

    def run(self, section: str, label: str, func, /, *args, needs=(), **kwargs):
        """Call ``func(*args, **kwargs)`` and record its outcome as ``label`` in ``section``.

        Returns the result (with the audit's threshold and verdict applied), or ``None`` when the
        measure was skipped. A :class:`~privlib.results.Result` is recorded for the verdict table;
        a DataFrame is kept as a table of the report under ``label``.
        """
        if section not in SECTIONS:
            raise PrivlibError(f"`section` must be one of {list(SECTIONS)}, got {section!r}.")
        reason = self.missing(needs)
        if reason is not None:
            self.skip(section, label, reason)
            return None
        self._step += 1
        print(f"[{self._step}] {SECTIONS[section]}: {label} ...", flush=True)
        start = time.perf_counter()
        try:
            out = func(*args, **kwargs)
        except PrivlibError as exc:
            self.skip(section, label, f"the data do not allow it: {exc}")
            print(f"    skipped: {exc}", flush=True)
            return None
        print(f"    done in {time.perf_counter() - start:.1f} s", flush=True)
        if isinstance(out, pd.DataFrame):
            self.tables[label] = out
        elif isinstance(out, Result):
            out = self._judged(out)
            self.results.append((section, label, out))
        return out

    def _judged(self, result: Result) -> Result:
        """``result`` with the audit's threshold for its measure, and the verdict that follows."""
        if result.measure in self.thresholds:
            threshold = self.thresholds[result.measure]
        elif result.threshold is None and result.measure in DEFAULT_THRESHOLDS:
            threshold = DEFAULT_THRESHOLDS[result.measure]
        else:
            return result
        verdict = verdict_for(result.value, threshold, result.higher_is_riskier)
        return dataclasses.replace(result, threshold=threshold, verdict=verdict)

    def skip(self, section: str, label: str, reason: str) -> None:
        """Record that ``label`` was not run, and why."""
        self.skipped.append((section, label, reason))

    def binned(self, columns, n_bins: int = 5):
        """Training and primary synthetic data restricted to ``columns``, numeric ones binned.

        CAP matches values exactly, so numeric keys and targets are first cut into the same
        quantile bins of the training data (:func:`privlib.attribute.discretize`).
        """
        from privlib.attribute import discretize

        columns = list(columns)
        train, synthetic = self.inputs.train[columns], self.inputs.primary[columns]
        numeric = [c for c, kind in infer_kinds(train, name="train").items() if kind == NUMERIC]
        if numeric:
            train, synthetic = discretize(original=train, synthetic=synthetic, columns=numeric, n_bins=n_bins)
        return train, synthetic

    # -- views -------------------------------------------------------------------------------
    def get(self, label: str):
        """The recorded result (or table) called ``label``, or ``None`` when it was not run."""
        if label in self.tables:
            return self.tables[label]
        return next((r for _, name, r in self.results if name == label), None)

    def verdict_table(self) -> pd.DataFrame:
        """One row per result: section, measure, value, baseline, threshold, verdict, reading."""
        columns = ["section", "measure", "value", "baseline", "threshold", "verdict", "reading"]
        rows = [
            {
                "section": s,
                "measure": label,
                "value": r.value,
                "baseline": r.baseline,
                "threshold": r.threshold,
                "verdict": r.verdict,
                "reading": r.reading(),
            }
            for s, label, r in self.results
        ]
        return pd.DataFrame(rows, columns=columns)

    def verdict_html(self) -> str:
        """The verdict table as HTML, numbers to 3 significant digits, verdicts coloured."""
        table = self.verdict_table()
        if table.empty:
            return "<p><em>No measure was computed.</em></p>"
        for column in ("value", "baseline", "threshold"):
            table[column] = table[column].map(_number)
        table["reading"] = table["reading"].map(html.escape)
        table["verdict"] = table["verdict"].map(
            lambda v: f'<span class="privlib-verdict-{v}">{v}</span>' if isinstance(v, str) else "none"
        )
        return table.to_html(index=False, escape=False, classes="privlib-verdicts", border=0)

    def skipped_table(self) -> pd.DataFrame:
        """One row per skipped measure, with the reason."""
        return pd.DataFrame(self.skipped, columns=["section", "measure", "reason"])

    def section_markdown(self, section: str) -> str:
        """The readings of one section as a Markdown list, with what was skipped and why."""
        lines = [f"- **{label}**: {r.reading()}" for s, label, r in self.results if s == section]
        lines += [f"- *{label} not run*: {why}." for s, label, why in self.skipped if s == section]
        return "\n".join(lines) if lines else "Nothing in this section applies to these inputs."

    def summary(self) -> str:
        """One paragraph: how many measures ran, passed, failed and were skipped."""
        if not self.inputs.assessable:
            return (
                f"**Not assessable**: {self.inputs.problem}. No measure was computed; provide "
                "larger tables."
            )
        verdicts = [r.verdict for _, _, r in self.results]
        # a result can carry a threshold and still no verdict (an attack too blind to judge by)
        unjudged = sum(r.verdict is None and r.threshold is not None for _, _, r in self.results)
        text = (
            f"{len(self.results)} measure(s) computed on the synthetic data "
            f"**{self.inputs.primary_label}**: {verdicts.count('pass')} within their threshold, "
            f"{verdicts.count('fail')} beyond it, {verdicts.count(None) - unjudged} without a "
            "threshold (read them against their baseline)"
            + (f", {unjudged} with no verdict (its reading says why)" if unjudged else "")
            + f"; {len(self.skipped)} skipped (listed at the end)."
        )
        failed = [label for _, label, r in self.results if r.verdict == "fail"]
        if failed:
            text += f" Look first at: {', '.join(failed)}."
        return text

    def provenance(self) -> dict:
        """Version, time, row counts and SHA-256 of the inputs, and the parameters."""
        from privlib import __version__

        inputs = self.inputs
        rows = {"train": [len(inputs.train)], "synthetic": [len(f) for f in inputs.synthetic.values()]}
        rows["holdout"] = [len(inputs.holdout) if inputs.holdout is not None else None]
        files = [
            {
                "role": role,
                "file": path.name,
                "rows": rows[role][i],
                "columns": inputs.train.shape[1],
                "sha256": sha256(path),
            }
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
            "parameters": self.parameters,
            "notes": list(inputs.notes),
        }

    def provenance_table(self) -> pd.DataFrame:
        """The provenance as a two-column table for the report's first page."""
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
        ]
        shown = {"train", "synthetic", "holdout", "population_size", "keys", "sensitive"}
        rows += [
            (f"parameter {name}", json.dumps(value, default=str))
            for name, value in p["parameters"].items()
            if name not in shown
        ]
        rows += [("note", note) for note in p["notes"]]
        return pd.DataFrame(rows, columns=["item", "value"])

    def to_dict(self) -> dict:
        """Everything metrics.json holds."""
        return {
            "assessable": self.inputs.assessable,
            "problem": self.inputs.problem,
            "summary": self.summary(),
            "measures": [dict(section=s, label=label, **r.to_dict()) for s, label, r in self.results],
            "tables": {
                name: json.loads(table.reset_index().to_json(orient="records", date_format="iso"))
                for name, table in self.tables.items()
            },
            "skipped": [dict(section=s, measure=m, reason=why) for s, m, why in self.skipped],
            "provenance": self.provenance(),
        }

    def write_metrics(self, path) -> None:
        """Write :meth:`to_dict` as JSON to ``path`` (nothing when ``path`` is ``None``)."""
        if path is None:
            return
        text = json.dumps(self.to_dict(), indent=2, allow_nan=False, default=_json_default)
        Path(path).write_text(text + "\n", encoding="utf-8")


def table_html(table: pd.DataFrame, *, index: bool = False, classes: str | None = None) -> str:
    """A table as plain HTML, every cell in full (a notebook's display would cut long text)."""
    return table.to_html(index=index, border=0, na_rep="", classes=classes)


def _number(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.3g}" if isinstance(value, float) else str(value)


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
    """``metrics`` without the run time, the one field that differs between identical runs."""
    out = json.loads(json.dumps(metrics))
    out.get("provenance", {}).pop("created", None)
    return out


# --------------------------------------------------------------------------------------------
# Params files: how the tables of a bundled-dataset audit are made
# --------------------------------------------------------------------------------------------
_PARAMS_KEYS = {
    "title", "dataset", "n_train", "n_holdout", "synthesizers", "population_size", "keys",
    "sensitive", "seed", "thresholds", "attack_share", "train", "synthetic", "holdout",
}


def read_params(path) -> dict:
    """Read an audit parameters file (YAML) and check its fields.

    The file either names a bundled ``dataset`` with ``n_train``, ``n_holdout`` and a list of
    ``synthesizers`` (each ``{method: ..., params: {...}}``), from which :func:`materialise`
    makes the CSV files, or gives ``train``, ``synthetic`` and ``holdout`` paths (relative to the
    file's folder). See ``reports/params/*.yaml``.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise PrivlibError(f"params file {str(path)!r} does not exist; check `--params`.")
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PrivlibError(f"params file {str(path)!r} is not valid YAML: {exc}".splitlines()[0]) from None
    if not isinstance(params, dict):
        raise PrivlibError(f"params file {str(path)!r} must hold a mapping of names to values.")
    unknown = sorted(set(params) - _PARAMS_KEYS)
    if unknown:
        raise PrivlibError(
            f"params file {str(path)!r} has unknown field(s) {unknown}; the fields are "
            f"{sorted(_PARAMS_KEYS)}."
        )
    if "dataset" in params:
        if params["dataset"] not in DATASETS:
            raise PrivlibError(
                f"params file {str(path)!r} names unknown dataset {params['dataset']!r}; the "
                f"bundled datasets are {list(DATASETS)}."
            )
        for name in ("n_train", "synthesizers"):
            if name not in params:
                raise PrivlibError(f"params file {str(path)!r} needs `{name}` with `dataset`.")
    else:
        if "train" not in params or "synthetic" not in params:
            raise PrivlibError(
                f"params file {str(path)!r} needs either `dataset` or both `train` and `synthetic`."
            )
        for name in ("train", "synthetic", "holdout"):
            value = params.get(name)
            if isinstance(value, list):
                params[name] = [str(path.parent / v) for v in value]
            elif value is not None:
                params[name] = str(path.parent / value)
    return params


def materialise(params: dict, folder) -> dict:
    """Make the tables a bundled-dataset params file describes and write them as CSV files.

    The training and holdout rows are a seeded split of the bundled dataset
    (:func:`privlib.datasets.sample_split`); each synthetic table is sampled, seeded, from a
    synthesizer of :mod:`privlib.synth` fitted on the training rows. Returns the audit arguments
    with file paths (``train``, ``synthetic``, ``holdout``) and the recipe for the provenance.
    """
    from privlib import synth

    folder = Path(folder)
    seed = params.get("seed", 2026)
    data = load_dataset(params["dataset"])
    for name in ("keys", "sensitive"):  # checked now, before the synthesizers take their time
        if params.get(name):
            check_columns(data, params[name], name, params["dataset"])
    n_holdout = params.get("n_holdout") or 0
    train, holdout = sample_split(data, params["n_train"], n_holdout, random_state=seed)
    paths = {"train": folder / "train.csv", "synthetic": [], "holdout": None}
    train.to_csv(paths["train"], index=False)
    if n_holdout:
        paths["holdout"] = folder / "holdout.csv"
        holdout.to_csv(paths["holdout"], index=False)
    specs = params["synthesizers"]
    if not specs or not isinstance(specs, list) or not all(isinstance(x, dict) and "method" in x for x in specs):
        raise PrivlibError(
            "`synthesizers` must be a non-empty list of entries, each with a `method` (a "
            "privlib.synth name) and optional `params`."
        )
    # Each file is named after its synthesizer: the name the report's comparison shows.
    for spec, label in zip(specs, _labels([Path(x["method"]) for x in specs])):
        model = synth.make(spec["method"], **(spec.get("params") or {})).fit(train)
        target = folder / f"{label}.csv"
        model.sample(spec.get("n"), random_state=seed).to_csv(target, index=False)
        paths["synthetic"].append(target)
    recipe = {k: params[k] for k in ("dataset", "n_train", "n_holdout", "synthesizers") if k in params}
    recipe["seed"] = seed
    return {
        "train": str(paths["train"]),
        "synthetic": [str(p) for p in paths["synthetic"]],
        "holdout": str(paths["holdout"]) if paths["holdout"] else None,
        "recipe": recipe,
    }


# --------------------------------------------------------------------------------------------
# Formulas: the course's LaTeX math typeset as SVG images, offline and without JavaScript
# --------------------------------------------------------------------------------------------
# Math in a markdown cell is ``$$...$$`` (display) or ``$...$`` (inline, within a paragraph).
# Dollar amounts stay text by a rule close to Pandoc's: an inline span opens with a ``$``
# followed by a non-space and closes with a ``$`` not followed by a digit, and ``\$`` is a
# literal dollar; so "costs $5 and $10" and "$5-$10" are text, "$U = 1 - $" is math. Code
# spans and fenced code blocks are left alone.
_CODE = re.compile(r"(^```.*?^```[ \t]*$|^~~~.*?^~~~[ \t]*$|`+[^`]*?`+)", re.S | re.M)
_MATH = re.compile(
    r"(?<!\\)\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?=[^\s$])(?P<inline>(?:[^$\\\n]|\\.|\n(?![ \t]*\n))+?)\$(?![\d$])",
    re.S,
)
# TeX commands mathtext lacks, each with a supported equivalent (``\big(`` -> ``(``, ...).
_TEX_SUBSTITUTES = [
    (re.compile(r"\\[bB]ig{1,2}[lmr]?(?![a-zA-Z])\s*"), ""),
    (re.compile(r"\\tfrac(?![a-zA-Z])"), r"\\frac"),
    (re.compile(r"\\(d?frac)\s*([0-9a-zA-Z])\s*([0-9a-zA-Z])"), r"\\\1{\2}{\3}"),
    (re.compile(r"\\le(?![a-zA-Z])"), r"\\leq"),
    (re.compile(r"\\ge(?![a-zA-Z])"), r"\\geq"),
    (re.compile(r"\\(?:textrm|textup)(?![a-zA-Z])"), r"\\text"),
    (re.compile(r"\\textbf(?![a-zA-Z])"), r"\\mathbf"),
    (re.compile(r"\\textit(?![a-zA-Z])"), r"\\mathit"),
    (re.compile(r"\\[lr]vert(?![a-zA-Z])"), "|"),
    (re.compile(r"\s+"), " "),  # mathtext reads one line
]
_MATH_SIZE = 12.0  # points at 72 dpi; the image is sized in em of the surrounding text


def mathtext_source(tex: str, *, display: bool = False) -> str:
    """LaTeX ``tex`` rewritten for matplotlib's mathtext: supported equivalents of common
    commands it lacks (``\\tfrac``, ``\\big(``, ``\\le``, ``\\frac12``, ...) and one line.
    In ``display`` math ``\\frac`` becomes ``\\dfrac`` (full-size, as TeX sets it)."""
    if display:
        tex = re.sub(r"\\frac(?![a-zA-Z])", r"\\dfrac", tex)
    for pattern, replacement in _TEX_SUBSTITUTES:
        tex = pattern.sub(replacement, tex)
    return tex.strip()


@functools.lru_cache(maxsize=1024)
def math_svg(tex: str, display: bool = False) -> tuple[str, float, float, float] | None:
    """Typeset ``tex`` (LaTeX, without dollars) with mathtext as an SVG document (``display``:
    see :func:`mathtext_source`).

    Returns ``(svg, width, height, depth)``, the sizes in em (height: the whole image's; depth:
    the part below the baseline), or ``None`` when mathtext cannot parse the formula. Glyphs
    are drawn as paths, so the SVG needs no font; it is reproducible (no date, fixed ids).
    """
    import io

    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    source = f"${mathtext_source(tex, display=display)}$"
    # DejaVu, the report's text font, so that formulas and text look alike.
    prop = FontProperties(family="DejaVu Sans", size=_MATH_SIZE, math_fontfamily="dejavusans")
    with matplotlib.rc_context({"svg.hashsalt": "privlib", "svg.fonttype": "path"}):
        try:
            # Measured at 4 x 72 dpi: mathtext rounds the box up to whole pixels.
            width, height, depth = (
                size / 4 for size in MathTextParser("path").parse(source, dpi=288, prop=prop)[:3]
            )
        except Exception:  # pyparsing's errors, and mathtext's ValueError for odd input
            return None
        if not (width > 0 and height > 0):
            return None
        fig = Figure(figsize=(width / 72, height / 72))
        fig.text(0, depth / height, source, fontproperties=prop)
        buffer = io.StringIO()
        try:
            fig.savefig(buffer, dpi=72, format="svg", transparent=True, metadata={"Date": None})
        except Exception:
            return None
    return buffer.getvalue(), width / _MATH_SIZE, height / _MATH_SIZE, depth / _MATH_SIZE


def _html_attribute(text: str) -> str:
    """``text`` escaped for an HTML attribute, markdown's special characters as entities too,
    so that the markdown parser leaves it (and the TeX in it) as it is."""
    text = html.escape(text, quote=True)
    for char in "\\_*$`~[]{}|<>":
        text = text.replace(char, f"&#{ord(char)};")
    return text


def math_html(tex: str, *, display: bool = False) -> str:
    """One formula as inline HTML that survives markdown: an ``<img>`` of the SVG from
    :func:`math_svg` (base64 data URI, baseline on the text's baseline), centred on its own
    line when ``display``; the LaTeX source in ``<code>`` if mathtext cannot parse it."""
    import base64

    rendered = math_svg(tex.strip(), display)
    kind = "display" if display else "inline"
    if rendered is None:
        source = _html_attribute(tex.strip())
        return f'<code class="privlib-math-source privlib-math-{kind}">{source}</code>'
    svg, width, height, depth = rendered
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    image = (
        f'<img class="privlib-math" alt="{_html_attribute(tex.strip())}" '
        f'style="width:{width:.3f}em !important;height:{height:.3f}em !important;'
        f'vertical-align:{-depth:.3f}em" src="data:image/svg+xml;base64,{data}">'
    )
    return f'<span class="privlib-math-display">{image}</span>' if display else image


def typeset_math(markdown: str) -> str:
    """Replace every formula of a markdown text by :func:`math_html` (see the rule above)."""

    def formulas(text: str) -> str:
        def one(match: re.Match) -> str:
            if match.group("display") is not None:
                return math_html(match.group("display"), display=True)
            return math_html(match.group("inline"))

        return _MATH.sub(one, text)

    parts = _CODE.split(markdown)
    return "".join(part if i % 2 else formulas(part) for i, part in enumerate(parts))


# --------------------------------------------------------------------------------------------
# Rendering: nbconvert HTML with the kit's template and print CSS, WeasyPrint PDF
# --------------------------------------------------------------------------------------------
def render_html(
    notebook, target, *, show_code: bool = False, math: bool = False, title: str | None = None
) -> Path:
    """Render an executed notebook to a self-contained HTML file.

    Figures are embedded as data URIs; no script or stylesheet is fetched from the network.
    With ``math=True`` the LaTeX formulas of markdown cells are typeset by
    :func:`typeset_math` as embedded SVG images, so they show offline, without JavaScript and
    in the PDF (one that mathtext cannot read stays as its source, in ``<code>``). Outputs of
    cells tagged ``hide-output``
    (progress lines) and every stderr stream (warnings, progress bars) are left out; with
    ``show_code=False`` so is every code cell's source.
    """
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    nb = nbformat.read(str(notebook), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
        elif cell.cell_type == "markdown" and math:
            cell.source = typeset_math(cell.source)
    if title:
        nb.metadata["title"] = title
    exporter = HTMLExporter(
        template_name="lab",
        template_file=str(_TEMPLATES / "report.html.j2"),
        exclude_input=not show_code,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    exporter.register_preprocessor(TagRemovePreprocessor(remove_all_outputs_tags={"hide-output"}), enabled=True)
    css = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
    body, _ = exporter.from_notebook_node(nb, resources={"privlib_css": css})
    target = Path(target)
    target.write_text(body, encoding="utf-8")
    return target


def render_pdf(html_file, target) -> Path:
    """Render an HTML file from :func:`render_html` to PDF with WeasyPrint (print CSS applies)."""
    # WeasyPrint reports every CSS property it does not support; JupyterLab's stylesheet has many.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    with warnings.catch_warnings():
        # WeasyPrint announces future system-library requirements when loaded; not the user's concern.
        warnings.simplefilter("ignore", DeprecationWarning)
        from weasyprint import HTML

        HTML(filename=str(html_file)).write_pdf(str(target))
    return Path(target)


class _ProgressLines(logging.Filter):
    """Let through, of papermill's log of cell outputs, only the audit's progress lines."""

    pattern = re.compile(r"^(\[\d+\] |    (done|skipped))")

    def filter(self, record):
        message = record.getMessage().strip("\n")
        if not self.pattern.match(message):
            return False
        record.msg, record.args = message, ()
        return True


_PROGRESS_FILTER = _ProgressLines()


def _execute(notebook, output, parameters: dict, *, cwd, progress: bool) -> None:
    import papermill

    # papermill logs every cell's output at INFO; of those, the progress lines of Audit.run are
    # worth showing during a long run, the rest repeats what the report shows.
    papermill_log = logging.getLogger("papermill")
    if _PROGRESS_FILTER not in papermill_log.filters:
        papermill_log.addFilter(_PROGRESS_FILTER)
    # The kernel inherits this process's environment; MPLBACKEND=Agg (set for headless runs)
    # would stop figures from reaching the notebook, so the kernel gets the inline backend.
    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    try:
        papermill.execute_notebook(
            str(notebook),
            str(output),
            parameters=parameters,
            cwd=str(cwd),
            kernel_name="python3",
            progress_bar=progress,
            log_output=progress,
        )
    except papermill.PapermillExecutionError as exc:
        detail = f"{exc.ename}: {exc.evalue}".splitlines()[0]
        raise ReportError(
            f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {detail}"
        ) from None
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous


def _say(progress: bool, message: str) -> None:
    """A progress line on stderr (stdout may be a pipe the caller reads)."""
    if progress:
        print(f"privlib: {message} ...", file=sys.stderr, flush=True)


def _publish(staging: Path, out: Path, names) -> None:
    """Move the finished files from ``staging`` into ``out`` (creating it), replacing old ones.

    Only these files are touched: other files in ``out`` (e.g. a course folder) stay.
    """
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.move(str(staging / name), str(out / name))


def _check_out(out) -> Path:
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise PrivlibError(f"`--out` {str(out)!r} exists and is not a folder; choose a folder.")
    return out


# --------------------------------------------------------------------------------------------
# Audit and course
# --------------------------------------------------------------------------------------------
def audit_notebook() -> Path:
    """Path of the audit template, ``reports/privacy_audit.ipynb`` in the repository."""
    path = _REPO / "reports" / "privacy_audit.ipynb"
    if not path.is_file():
        raise PrivlibError(
            f"the audit notebook {path} is missing; run privlib from a clone of the repository."
        )
    return path


def run_audit(
    *,
    out,
    train=None,
    synthetic=None,
    holdout=None,
    population_size=None,
    keys=None,
    sensitive=None,
    seed: int | None = None,
    title: str | None = None,
    thresholds: dict | None = None,
    attack_share: float | None = None,
    params=None,
    progress: bool = True,
) -> Path:
    """Run the privacy audit and write its report into ``out``.

    Give either the file arguments (``train``, ``synthetic``, ...) or ``params``, a YAML file
    (see :func:`read_params`); values in the file are used where the arguments are left at
    ``None``. Defaults: seed 2026, attack share 0.5.

    Returns
    -------
    pathlib.Path
        The output folder, holding :data:`AUDIT_FILES`.

    Raises
    ------
    PrivlibError
        For bad input, before anything runs and before ``out`` is touched; or when the notebook
        fails (``out`` is then left as it was).
    """
    out = _check_out(out)
    notebook = audit_notebook()
    recipe = None
    with tempfile.TemporaryDirectory(prefix="privlib-audit-") as work:
        work = Path(work)
        if params is not None:
            spec = read_params(params)
            keys = keys if keys is not None else spec.get("keys")
            sensitive = sensitive if sensitive is not None else spec.get("sensitive")
            population_size = population_size if population_size is not None else spec.get("population_size")
            seed = seed if seed is not None else spec.get("seed")
            title = title or spec.get("title")
            thresholds = thresholds if thresholds is not None else spec.get("thresholds")
            attack_share = attack_share if attack_share is not None else spec.get("attack_share")
        seed = 2026 if seed is None else seed
        attack_share = 0.5 if attack_share is None else attack_share
        if params is not None and "dataset" in spec:
            _say(progress, f"making the tables of {spec['dataset']} (seed {seed})")
            made = materialise(spec | {"seed": seed}, work)
            train, synthetic, holdout, recipe = made["train"], made["synthetic"], made["holdout"], made["recipe"]
        elif params is not None:
            train, synthetic, holdout = spec["train"], spec["synthetic"], spec.get("holdout")
        inputs = load_audit_inputs(
            train=train,
            synthetic=synthetic,
            holdout=holdout,
            population_size=population_size,
            keys=keys,
            sensitive=sensitive,
        )
        staging = work / "report"
        staging.mkdir()
        parameters = {
            "train": str(Path(train).resolve()),
            "synthetic": [str(Path(p).resolve()) for p in inputs.files["synthetic"]],
            "holdout": str(Path(holdout).resolve()) if holdout is not None else None,
            "population_size": inputs.population_size,
            "keys": inputs.keys,
            "sensitive": inputs.sensitive,
            "thresholds": dict(thresholds or {}),
            "attack_share": attack_share,
            "seed": seed,
            "title": title or "Privacy audit of a synthetic dataset",
            "recipe": recipe,
            "metrics_path": str(staging / "metrics.json"),
        }
        executed = staging / "privacy_audit.ipynb"
        _say(progress, "running the audit notebook")
        _execute(notebook, executed, parameters, cwd=work, progress=progress)
        if not (staging / "metrics.json").is_file():
            raise ReportError("the audit notebook did not write metrics.json; is it the kit's template?")
        _say(progress, "rendering report.html and report.pdf")
        render_html(executed, staging / "report.html", title=parameters["title"])
        render_pdf(staging / "report.html", staging / "report.pdf")
        _publish(staging, out, AUDIT_FILES)
    return out


def course_notebooks(folder=None) -> list[Path]:
    """The ordered teaching notebooks ``0*.ipynb`` of ``folder`` (default: the repo's notebooks/)."""
    folder = Path(folder) if folder is not None else _REPO / "notebooks"
    found = sorted(folder.glob("0*.ipynb"))
    if not found:
        raise PrivlibError(f"no teaching notebooks (0*.ipynb) found in {str(folder)!r}.")
    return found


def run_course(
    *,
    out,
    dataset: str | None = None,
    params=None,
    seed: int = 2026,
    quick: bool = True,
    notebooks=None,
    progress: bool = True,
) -> Path:
    """Run the teaching notebooks on one dataset and render each to HTML and PDF with an index.

    Parameters
    ----------
    out : str or path
        Output folder: ``index.html`` and, per notebook, the executed ``.ipynb``, ``.html`` and
        ``.pdf``.
    dataset : str, optional
        A bundled dataset name or a path to a CSV file (the notebooks' ``dataset`` parameter).
    params : str or path, optional
        An audit params file instead of ``dataset``: its ``dataset`` (or its ``train`` file) and
        its ``seed`` are used.
    seed : int, default 2026
        The notebooks' ``seed`` parameter.
    quick : bool, default True
        The notebooks' ``quick`` parameter (small, fast settings).
    notebooks : str or path, optional
        Folder of the notebooks (default: the repository's ``notebooks/``).
    """
    out = _check_out(out)
    if params is not None:
        spec = read_params(params)
        dataset = spec.get("dataset") or spec["train"]
        seed = spec.get("seed", seed)
    if dataset is None:
        raise PrivlibError("give `--dataset` (a bundled dataset or a CSV path) or `--params`.")
    if dataset in DATASETS:
        title = dataset_info(dataset).title
    else:
        if not Path(dataset).is_file():
            raise PrivlibError(
                f"`dataset` {dataset!r} is neither a bundled dataset {list(DATASETS)} nor an "
                "existing CSV file."
            )
        title = Path(dataset).name
        read_table(dataset, "dataset")  # fails early on an empty or unreadable file
        dataset = str(Path(dataset).resolve())
    lessons = course_notebooks(notebooks)
    with tempfile.TemporaryDirectory(prefix="privlib-course-") as work:
        staging = Path(work) / "course"
        staging.mkdir()
        entries = []
        for i, notebook in enumerate(lessons, 1):
            _say(progress, f"lesson {i}/{len(lessons)}: {notebook.name}")
            executed = staging / notebook.name
            _execute(
                notebook, executed, {"dataset": dataset, "seed": seed, "quick": quick},
                cwd=notebook.parent, progress=False,
            )
            stem = notebook.stem
            render_html(executed, staging / f"{stem}.html", show_code=True, math=True)
            render_pdf(staging / f"{stem}.html", staging / f"{stem}.pdf")
            entries.append((stem, _notebook_title(executed) or stem))
        (staging / "index.html").write_text(_course_index(title, entries, seed, quick), encoding="utf-8")
        names = ["index.html"] + [f"{s}{ext}" for s, _ in entries for ext in (".ipynb", ".html", ".pdf")]
        _publish(staging, out, names)
    return out


def _notebook_title(path) -> str | None:
    """The first level-1 heading of a notebook, if any."""
    import nbformat

    nb = nbformat.read(str(path), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return None


def _course_index(title: str, entries, seed, quick) -> str:
    css = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
    from privlib import __version__

    items = "\n".join(
        f'<li><a href="{html.escape(stem)}.html">{html.escape(name)}</a> '
        f'(<a href="{html.escape(stem)}.pdf">PDF</a>, '
        f'<a href="{html.escape(stem)}.ipynb">notebook</a>)</li>'
        for stem, name in entries
    )
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>Course: {html.escape(title)}</title><style>{css}</style></head>\n"
        f"<body><main><h1>The privacy of synthetic data: the course on {html.escape(title)}</h1>\n"
        f"<p>Each lesson was run on this dataset with seed {seed} "
        f"({'quick settings' if quick else 'full settings'}), privlib {html.escape(__version__)}.</p>\n"
        f"<ol>\n{items}\n</ol></main></body></html>\n"
    )


def params_file(dataset: str) -> Path:
    """The bundled params file of ``dataset``: ``reports/params/<dataset>.yaml``."""
    if dataset not in DATASETS:
        raise PrivlibError(f"unknown dataset {dataset!r}; the bundled datasets are {list(DATASETS)}.")
    path = _REPO / "reports" / "params" / f"{dataset}.yaml"
    if not path.is_file():
        raise PrivlibError(f"the params file {path} is missing; run privlib from a clone of the repository.")
    return path


def run_all(*, out, datasets=None, course: bool = True, progress: bool = True) -> Path:
    """Audit (and course) for every bundled dataset into ``out/<dataset>/``, with an index page."""
    out = _check_out(out)
    datasets = list(datasets or DATASETS)
    files = [params_file(d) for d in datasets]  # every name checked before anything runs
    for name, path in zip(datasets, files):
        _say(progress, f"{name}: audit")
        run_audit(out=out / name, params=path, progress=progress)
        if course:
            _say(progress, f"{name}: course")
            run_course(out=out / name / "course", params=path, progress=progress)
    items = "\n".join(
        f'<li>{html.escape(dataset_info(d).title)}: <a href="{d}/report.html">audit</a> '
        f'(<a href="{d}/report.pdf">PDF</a>, <a href="{d}/metrics.json">metrics.json</a>)'
        + (f', <a href="{d}/course/index.html">course</a>' if course else "")
        + "</li>"
        for d in datasets
    )
    css = (_TEMPLATES / "report.css").read_text(encoding="utf-8")
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>privlib reports</title>"
        f"<style>{css}</style></head>\n<body><main><h1>Privacy reports per dataset</h1>\n<ul>\n{items}\n"
        "</ul></main></body></html>\n",
        encoding="utf-8",
    )
    return out
