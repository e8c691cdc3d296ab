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

# The report's pages register themselves with the report model (which imports no rendering), so
# that a report displays and saves wherever privlib.audit is imported.
import privlib.render.audit  # noqa: F401
from privlib.audit.catalogue import FAMILIES, MeasureSpec
from privlib.audit.inputs import MIN_ROWS, AuditInputs, load_audit_inputs, sha256
from privlib.audit.measures import CATALOGUE, MEASURES
from privlib.audit.params import materialise, read_params
from privlib.audit.report import AuditReport, comparable_metrics, metrics_schema
from privlib.audit.runner import Audit, AuditError, inputs_of, run
from privlib.audit.spec import AuditSpec

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
