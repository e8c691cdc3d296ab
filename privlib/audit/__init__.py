"""The privacy audit as a package: one spec in, one report out.

* :mod:`privlib.audit.spec`: :class:`AuditSpec`, every setting of an audit (defaults live there);
* :mod:`privlib.audit.inputs` and :mod:`privlib.audit.checks`: read and check the tables;
* :mod:`privlib.audit.params`: params files (YAML) and the tables of a bundled-dataset audit;
* :mod:`privlib.audit.catalogue`: what a measure declaration is; :mod:`privlib.audit.measures`:
  every measure, declared once (title, family, threshold rule, audit wiring);
* :mod:`privlib.audit.runner`: :func:`run`, which computes, judges once and returns
* :mod:`privlib.audit.report`: :class:`AuditReport`, the typed result that HTML, PDF, the
  notebook display and ``metrics.json`` come from.

The audit notebook ``reports/privacy_audit.ipynb`` calls :func:`run`; :mod:`privlib.pipeline`
executes it and renders the report.
"""

from importlib import import_module
from typing import TYPE_CHECKING

# The report's pages register themselves with the report model (which imports no rendering), so
# that a report displays and saves wherever privlib.audit is imported. They load no measure module.
import privlib.render.audit  # noqa: F401

if TYPE_CHECKING:
    from privlib.audit.catalogue import FAMILIES, MeasureSpec
    from privlib.audit.inputs import MIN_ROWS, AuditInputs, load_audit_inputs, sha256
    from privlib.audit.measures import CATALOGUE, MEASURES
    from privlib.audit.params import materialise, read_params
    from privlib.audit.report import AuditReport, comparable_metrics, metrics_schema
    from privlib.audit.runner import Audit, AuditError, inputs_of, run
    from privlib.audit.spec import AuditSpec

# Each name of the package, by the submodule it comes from: loaded on first use, so that importing
# one submodule (the declarations, when a result is judged) does not load the runner and, through
# it, every measure module.
_HOMES = {
    "FAMILIES": "catalogue",
    "MeasureSpec": "catalogue",
    "MIN_ROWS": "inputs",
    "AuditInputs": "inputs",
    "load_audit_inputs": "inputs",
    "sha256": "inputs",
    "CATALOGUE": "measures",
    "MEASURES": "measures",
    "materialise": "params",
    "read_params": "params",
    "AuditReport": "report",
    "comparable_metrics": "report",
    "metrics_schema": "report",
    "Audit": "runner",
    "AuditError": "runner",
    "inputs_of": "runner",
    "run": "runner",
    "AuditSpec": "spec",
}


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


__all__ = [
    "CATALOGUE",
    "FAMILIES",
    "MEASURES",
    "MIN_ROWS",
    "Audit",
    "AuditError",
    "AuditInputs",
    "AuditReport",
    "AuditSpec",
    "MeasureSpec",
    "comparable_metrics",
    "inputs_of",
    "load_audit_inputs",
    "materialise",
    "metrics_schema",
    "read_params",
    "run",
    "sha256",
]
