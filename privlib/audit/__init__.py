"""The privacy audit as a package: one spec in, one report out.

* :mod:`privlib.audit.spec`: :class:`AuditSpec`, every setting of an audit (defaults live there);
* :mod:`privlib.audit.inputs` and :mod:`privlib.audit.checks`: read and check the tables;
* :mod:`privlib.audit.params`: params files (YAML) and the tables of a bundled-dataset audit;
* the measures the audit runs are read from :mod:`privlib.catalogue` (each measure declared once,
  in its own module, with :class:`privlib.declaration.MeasureSpec`);
* :mod:`privlib.audit.runner`: :func:`run`, which computes, judges once and returns
* :mod:`privlib.audit.report`: :class:`AuditReport`, the typed result that HTML, PDF, the
  notebook display and ``metrics.json`` come from.

:mod:`privlib.pipeline` runs :func:`run` and has the audit notebook
``reports/privacy_audit.ipynb`` draw the saved report, then renders it. The audit imports no
rendering: whoever renders a report imports :mod:`privlib.render.audit`, which registers its pages
with the report model (the pipeline does; in a notebook, ``import privlib.render.audit`` before
displaying or saving a report as HTML or PDF).

Each name below is imported from its module on first use (PEP 562), so that ``import
privlib.audit`` and reading a spec stay cheap: the measures (scikit-learn, numba, matplotlib)
load only when the catalogue or the runner is first asked for.
"""

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from privlib.audit.inputs import MIN_ROWS, AuditInputs, load_audit_inputs, sha256
    from privlib.audit.params import materialise, read_params
    from privlib.audit.report import AuditReport, comparable_metrics, metrics_schema
    from privlib.audit.runner import Audit, AuditError, inputs_of, run
    from privlib.audit.spec import AuditSpec
    from privlib.catalogue import CATALOGUE, MEASURES
    from privlib.declaration import FAMILIES, MeasureSpec

#: Where each public name lives (its module, under ``privlib.audit`` unless dotted).
_HOMES = {
    "privlib.declaration": ("FAMILIES", "MeasureSpec"),
    "inputs": ("MIN_ROWS", "AuditInputs", "load_audit_inputs", "sha256"),
    "privlib.catalogue": ("CATALOGUE", "MEASURES"),
    "params": ("materialise", "read_params"),
    "report": ("AuditReport", "comparable_metrics", "metrics_schema"),
    "runner": ("Audit", "AuditError", "inputs_of", "run"),
    "spec": ("AuditSpec",),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

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


def __getattr__(name: str):
    if name in _HOME_OF:
        home = _HOME_OF[name]
        value = getattr(import_module(home if "." in home else f"privlib.audit.{home}"), name)
        globals()[name] = value  # once looked up, an ordinary attribute
        return value
    raise AttributeError(f"module 'privlib.audit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
