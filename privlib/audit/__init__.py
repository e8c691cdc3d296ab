"""The privacy audit as a package: inputs, the catalogue of measures, and the runner.

* :mod:`privlib.audit.inputs`: read and check the files of an audit (:func:`load_audit_inputs`);
* :mod:`privlib.audit.params`: params files (YAML) and the tables of a bundled-dataset audit;
* :mod:`privlib.audit.catalogue`: :data:`CATALOGUE`, one entry per measure the audit runs;
* :mod:`privlib.audit.runner`: :class:`Audit`, which runs the catalogue and judges each result
  against the threshold registry (:data:`REGISTRY`, from :mod:`privlib.thresholds`).

The audit notebook ``reports/privacy_audit.ipynb`` calls these; :mod:`privlib.pipeline` executes
it and renders the report.
"""

from privlib.audit.catalogue import CATALOGUE, FAMILIES, Measure
from privlib.audit.inputs import MIN_ROWS, AuditInputs, load_audit_inputs, sha256
from privlib.audit.params import materialise, read_params
from privlib.audit.runner import DEFAULT_SETTINGS, Audit, comparable_metrics, table_html
from privlib.thresholds import REGISTRY

__all__ = [
    "CATALOGUE", "FAMILIES", "Measure", "MIN_ROWS", "AuditInputs", "load_audit_inputs", "sha256",
    "read_params", "materialise", "DEFAULT_SETTINGS", "Audit", "comparable_metrics", "table_html",
    "REGISTRY",
]
