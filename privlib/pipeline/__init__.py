"""The pipelines behind ``privlib audit``, ``privlib course`` and ``privlib reports``.

Each pipeline stages, executes, renders and publishes:

* **stage**: a private folder is made *beside* the output folder (same filesystem), before any
  work starts, which also proves the output folder's parent is writable; every temporary file of
  the run (tables made from a params file, executed notebooks, the report) lives there and is
  removed on every exit, including Ctrl-C and SIGTERM (see :mod:`privlib.cli`);
* **execute**: papermill runs the notebook (the kernel talks over IPC sockets, not TCP); the
  audit itself runs in this process (:func:`privlib.audit.run`), which draws the report's
  figures once and saves its pages for the audit notebook to show, so the kernel only displays.
  The kernel boots, and the per-variable figures (which need only the tables) are drawn in a
  second process (:mod:`privlib.background`), while the measures compute;
* **render**: :mod:`privlib.render` writes HTML and PDF;
* **publish**: each finished file replaces its earlier version in the output folder by one
  rename; nothing else there is touched and no link is followed (:mod:`privlib.publish`, which
  also locks the output folder for the run and refuses one inside the kit's own folders). A run
  that fails before publishing leaves the earlier output untouched.
"""

from privlib.errors import ReportError
from privlib.pipeline.audit_report import (
    AUDIT_FILES,
    AUDIT_FORMATS,
    audit_and_publish,
    audit_formats,
    audit_notebook,
    audit_spec,
    course_notebooks,
    params_file,
    run_audit,
)
from privlib.pipeline.course import EDITABLE, copy_notebooks, run_all, run_course
from privlib.pipeline.execution import SCHEDULER_TIMEOUT

__all__ = [
    "AUDIT_FILES",
    "AUDIT_FORMATS",
    "audit_formats",
    "ReportError",
    "audit_notebook",
    "audit_and_publish",
    "audit_spec",
    "copy_notebooks",
    "course_notebooks",
    "params_file",
    "run_audit",
    "run_course",
    "run_all",
    "SCHEDULER_TIMEOUT",
    "EDITABLE",
]
