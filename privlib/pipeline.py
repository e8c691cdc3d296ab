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

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import pandas as pd

from privlib.audit import AuditSpec, materialise, read_params
from privlib.audit.checks import check_input_size
from privlib.audit.inputs import AuditInputs
from privlib.audit.spec import (
    DEFAULT_MAX_EXPANSION,
    DEFAULT_MAX_INPUT_MB,
    MAX_SEED,
    TABLE_FIELDS,
    user_settings,
)
from privlib.background import in_background, isolated_python
from privlib.datasets import DATASETS, dataset_info, read_table
from privlib.errors import PrivlibError, ReportError, blanked
from privlib.publish import checked_out as _checked_out
from privlib.publish import publish as _publish
from privlib.publish import staging as _staging
from privlib.render import render_html, render_page, render_pdf
from privlib.render.notebook import notebook_title
from privlib.resources import resource_path

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
]

logger = logging.getLogger(__name__)

#: Files an audit writes into its output folder (and nothing else).
AUDIT_FILES = ("privacy_audit.ipynb", "report.html", "report.pdf", "metrics.json")

#: The formats ``privlib audit --formats`` takes, each with the files it publishes: the executed
#: notebook is the source of the HTML and the PDF, and goes with either.
AUDIT_FORMATS = {
    "json": ("metrics.json",),
    "html": ("report.html", "privacy_audit.ipynb"),
    "pdf": ("report.pdf", "privacy_audit.ipynb"),
}


def audit_formats(formats) -> frozenset[str]:
    """``formats`` (names of :data:`AUDIT_FORMATS`, or ``None`` for all) checked; metrics.json is
    always written, the record a gate reads."""
    chosen = frozenset(AUDIT_FORMATS if formats is None else formats)
    unknown = sorted(chosen - set(AUDIT_FORMATS))
    if unknown or not chosen:
        shown = ", ".join(repr(str(name)[:20]) for name in unknown[:3]) or "none"
        raise PrivlibError(
            f"`formats` {shown}: give one or more of {', '.join(AUDIT_FORMATS)}, separated by commas."
        )
    return chosen | {"json"}


# --------------------------------------------------------------------------------------------
# Executing a notebook
# --------------------------------------------------------------------------------------------
logger = logging.getLogger(__name__)


class _KernelProgress(io.TextIOBase):
    """Where the kernel's stderr goes while a notebook runs: the lines the kit's own loggers wrote
    there (``privlib...: message``, already redacted in the kernel) are logged here as progress;
    anything else (library warnings) stays in the notebook only."""

    def __init__(self) -> None:
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.startswith("privlib."):
                logger.info("%s", line.split(": ", 1)[-1])
        return len(text)


def _ipc_kernel_manager():
    """A kernel manager whose kernel listens on IPC sockets (files in the run's folder), so no
    code or output travels over TCP, and the kernel does not warn that it does.

    The kernel process writes nothing to the terminal: cell outputs come over its sockets, and
    what it prints itself is its own chatter, such as a ZMQ traceback when an interrupted run
    closes the sockets it was about to answer on."""
    import subprocess

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            """This interpreter's ipykernel, whatever kernelspec named ``python3`` the machine
            holds, and isolated from the folder it starts in (:func:`isolated_python`):
            ipykernel otherwise puts its working folder on the import path, before the
            installed packages; ``ignore_cwd`` stops that where ``-P`` is not there."""
            return [
                *isolated_python(),
                "-m",
                "ipykernel_launcher",
                "-f",
                os.path.realpath(self.connection_file),
                "--IPKernelApp.ignore_cwd=True",
                *(extra_arguments or []),
            ]

        async def _async_pre_start_kernel(self, **kw):
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            return await super()._async_pre_start_kernel(**kw)

        # jupyter_client types AsyncKernelManager.shutdown_kernel as a coroutine but its base's as
        # returning None (and silences the clash on its side).
        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:  # type: ignore[override]
            """Ask the kernel to shut down, without the SIGINT jupyter_client sends it first.

            papermill shuts the kernel down once the notebook has run. jupyter_client's own
            shutdown interrupts the kernel before asking, and when the signal lands while the
            kernel is still answering a message, ipykernel logs "KeyboardInterrupt caught in
            kernel." into the log of a run that succeeded. A kernel that does not stop when asked
            is still killed (``shutdown_wait_time``), and ``now`` kills it at once as before.
            """
            if now or not self.owns_kernel or not self.has_kernel:
                await super().shutdown_kernel(now=now, restart=restart)
                return
            self.shutting_down = True
            self.stop_restarter()
            await self.request_shutdown(restart=restart)
            await self.finish_shutdown(restart=restart)
            await self.cleanup_resources(restart=restart)

    return IPCKernelManager


def _require_report_extra() -> None:
    """Refuse, before any work, when a package of the ``report`` extra is missing."""
    import importlib.util

    missing = [
        name
        for name in ("papermill", "nbconvert", "nbformat", "ipykernel", "weasyprint")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise PrivlibError(
            f"rendering reports needs {', '.join(missing)}: install the report extra, "
            "pip install 'privlib[report]'."
        )


#: Seconds a Dask scheduler has to answer (connection and handshake) before an audit refuses to
#: start.
SCHEDULER_TIMEOUT = 10


def _require_dask(address: str) -> None:
    """Refuse, before any work, a Dask scheduler that the dask extra cannot reach, or that does
    not complete Dask's handshake within :data:`SCHEDULER_TIMEOUT` seconds.

    distributed's ``Client`` waits without limit for the handshake of a server that accepts the
    connection and never answers (an HTTP server, say), so the handshake is tried here with
    distributed's own ``connect``, on an event loop of its own thread, while this thread waits
    for it at most the deadline: a signal (Ctrl-C, SIGTERM) reaches this thread at once and
    never lands inside the loop's callbacks. No ``Client`` is made in this process, so none is
    left to time out after the exit."""
    import asyncio
    import importlib.util
    import threading

    if importlib.util.find_spec("distributed") is None:
        raise PrivlibError("--dask-scheduler needs the dask extra: pip install 'privlib[dask]'.")
    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=SCHEDULER_TIMEOUT), SCHEDULER_TIMEOUT)
        await comm.close()

    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            asyncio.run(handshake())
            outcome.append(None)
        except BaseException as exc:  # handed to the waiting thread, which words it
            outcome.append(exc)

    shown = repr(address[:200])
    # distributed logs every failed attempt to connect; the refusal below says it once.
    quiet = logging.getLogger("distributed")
    level, quiet.level = quiet.level, logging.CRITICAL
    try:
        trying = threading.Thread(target=attempt, name="privlib-dask-handshake", daemon=True)
        trying.start()
        trying.join(SCHEDULER_TIMEOUT + 5)  # the loop's own deadline, and a margin for it to end
    finally:
        quiet.level = level
    error = outcome[0] if outcome else TimeoutError()
    if error is None:
        return
    if isinstance(error, TimeoutError):  # connected, but no Dask handshake came back in time
        raise PrivlibError(
            f"the Dask scheduler {shown} gave no answer within {SCHEDULER_TIMEOUT} s: it is not a "
            "Dask scheduler, or it is too busy to answer; check the address (tcp://HOST:PORT)."
        )
    if isinstance(error, (ValueError, TypeError)):  # an unknown scheme or a malformed address
        raise PrivlibError(
            f"--dask-scheduler {shown} is not an address the kit can connect to "
            f"({type(error).__name__}); give tcp://HOST:PORT (TLS needs credentials the kit does "
            "not take)."
        )
    if isinstance(error, OSError):  # refused, unreachable, or closed during the handshake
        raise PrivlibError(
            f"the Dask scheduler {shown} gave no answer ({type(error).__name__}): nothing listens "
            "there, or it is not a Dask scheduler; check the address and that the scheduler runs."
        )
    raise PrivlibError(  # an answer that is not Dask's handshake
        f"{shown} is not a Dask scheduler (its answer is not Dask's handshake: "
        f"{type(error).__name__}); check the address and port."
    )


def _check_report_names(out: Path, names) -> None:
    """Refuse, before any work, an output folder holding a folder at a name the report writes a
    file to: publishing would fail there after the whole run."""
    for name in names:
        target = out / name
        if target.is_dir() and not target.is_symlink():
            raise PrivlibError(
                f"`--out` {str(out)!r} holds a folder named {name!r}, where the report writes a "
                "file; move or rename that folder, or choose another --out."
            )


@contextlib.contextmanager
def _kernel_environment() -> Iterator[None]:
    """The environment a kernel started inside the block inherits."""
    # The kernel inherits this process's environment; MPLBACKEND=Agg (set for headless runs)
    # would stop figures from reaching the notebook, so the kernel gets the inline backend.
    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    _passive_openmp()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous


def _passive_openmp() -> None:
    """OpenMP threads that wait passively (numba, gradient boosting), for the processes started
    from here on and for this one if OpenMP has not loaded yet: actively waiting threads slow a
    run down many times over on a machine shared with other jobs."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")


@contextlib.contextmanager
def _early_kernel(folder: Path) -> Iterator[Any]:
    """A kernel started now, its connection file in ``folder``, so that it boots while this
    process computes; :func:`_execute` runs a notebook on it (``kernel=``). Leaving the block
    shuts it down: asked to after a run, stopped at once after a failure or Ctrl-C.

    Its sockets are files in a private folder of the system's temporary directory, not in
    ``folder``: a socket's path has at most about 100 characters, which a deep ``--out`` passes."""
    from jupyter_core.utils import run_sync

    sockets = Path(tempfile.mkdtemp(prefix="privlib-kernel-"))  # mode 0700: this user's only
    try:
        kernel = _ipc_kernel_manager()(
            kernel_name="python3", ip=str(sockets / "k"), connection_file=str(folder / "kernel.json")
        )
        with _kernel_environment():
            run_sync(kernel.start_kernel)(cwd=str(folder))
        finished = False
        try:
            yield kernel
            finished = True
        finally:
            run_sync(kernel.shutdown_kernel)(now=not finished)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _execute(notebook, output, parameters: dict, *, cwd, progress: bool, kernel: Any = None) -> None:
    """Run ``notebook`` with papermill into ``output``, in a kernel of its own or in ``kernel``
    (from :func:`_early_kernel`), which is left running."""
    import papermill

    started = {} if kernel is None else {"km": kernel}
    try:
        with _kernel_environment():
            papermill.execute_notebook(
                str(notebook),
                str(output),
                parameters=parameters,
                cwd=str(cwd),
                # The audit's own progress lines (its loggers, on the kernel's stderr) say where the
                # run is; papermill's cell bar on the same stream would interleave with them.
                kernel_name="python3",
                progress_bar=False,
                log_output=False,
                stderr_file=_KernelProgress() if progress else None,
                kernel_manager_class=_ipc_kernel_manager(),
                **started,
            )
    except papermill.PapermillExecutionError as exc:
        # The kernel's message may quote a value of the data: every quoted part is blanked out.
        detail = f"{exc.ename}: {blanked(str(exc.evalue or ''))}"
        raise ReportError(
            f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {detail}"
        ) from None
    except RuntimeError as exc:  # the kernel died or did not start
        raise ReportError(f"the notebook's kernel failed: {str(exc).splitlines()[0]}") from None
    _names_only(Path(output))


def _names_only(executed: Path) -> None:
    """The executed notebook with the paths papermill records (the kit's template, the staging
    folder) reduced to file names: a published notebook names no folder of this machine."""
    import nbformat

    notebook = nbformat.read(str(executed), as_version=4)
    record = notebook.metadata.get("papermill", {})
    for field in ("input_path", "output_path"):
        if record.get(field):
            record[field] = Path(record[field]).name
    nbformat.write(notebook, str(executed))


def _say(progress: bool, message: str) -> None:
    """A progress line (the CLI shows them on stderr; stdout may be a pipe the caller reads)."""
    if progress:
        logger.info("%s ...", message)


# --------------------------------------------------------------------------------------------
# Shipped notebooks and params
# --------------------------------------------------------------------------------------------
def audit_notebook() -> Path:
    """The audit template the kit ships (``reports/privacy_audit.ipynb``)."""
    return resource_path("reports", "privacy_audit.ipynb")


def course_notebooks(folder=None, lessons=None) -> list[Path]:
    """The ordered teaching notebooks ``0*.ipynb`` of ``folder`` (default: the kit's own), or
    only those whose names start with one of ``lessons`` (e.g. ``["00", "04"]``)."""
    folder = Path(folder) if folder is not None else resource_path("notebooks")
    found = sorted(folder.glob("0*.ipynb"))
    if not found:
        raise PrivlibError(f"no teaching notebooks (0*.ipynb) found in {str(folder)!r}.")
    if lessons is not None and not all(str(lesson).strip() for lesson in lessons):
        raise PrivlibError(
            "`lessons` holds an empty name; give lesson numbers such as 00 04, or leave it "
            "out for every lesson."
        )
    if lessons:
        unknown = [lesson for lesson in lessons if not any(p.name.startswith(str(lesson)) for p in found)]
        if unknown:
            raise PrivlibError(
                f"`lessons` {unknown} match no lesson; the lessons are {[p.stem for p in found]}."
            )
        found = [p for p in found if any(p.name.startswith(str(lesson)) for lesson in lessons)]
    return found


def params_file(dataset: str) -> Path:
    """The params file the kit ships for ``dataset`` (``reports/params/<dataset>.yaml``)."""
    if dataset not in DATASETS:
        raise PrivlibError(f"unknown dataset {dataset!r}; the bundled datasets are {list(DATASETS)}.")
    return resource_path("reports", "params", f"{dataset}.yaml")


# --------------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------------
#: Fields of a bundled-dataset params file that say how its tables are made.
_RECIPE_FIELDS = ("dataset", "n_train", "n_holdout", "synthesizers")


def audit_spec(*, params=None, data_root=None, **given) -> tuple[AuditSpec, dict | None]:
    """The spec of an audit from a params file and the arguments ``given`` (those not ``None``
    win over the file's), checked before any work; with it, the recipe of a bundled-dataset
    params file whose tables :func:`privlib.audit.materialise` still has to make (else ``None``).
    The params file's tables lie inside ``data_root`` (default: its own folder).
    """
    values = {name: value for name, value in given.items() if value is not None}
    recipe = None
    if data_root is not None and params is None:
        raise PrivlibError("`--data-root` is where a params file's tables lie: give it with --params.")
    if params is not None:
        found = read_params(params, root=data_root)
        settings = set(user_settings()) - set(TABLE_FIELDS)
        values = {name: found[name] for name in settings if found.get(name) is not None} | values
        if "dataset" in found:
            recipe = {name: found[name] for name in _RECIPE_FIELDS if name in found}
            # the tables do not exist yet: the params file stands in for them while the settings
            # are checked
            values |= {"train": params, "synthetic": [params], "holdout": None}
        else:
            values = {
                "train": found["train"],
                "synthetic": found["synthetic"],
                "holdout": found.get("holdout"),
            } | values
    spec = AuditSpec.build(**values)
    return spec, recipe


def _with_absolute_paths(spec: AuditSpec) -> AuditSpec:
    """The spec with its files as absolute paths, for a notebook that runs in another folder."""

    def absolute(table):
        return table.resolve() if isinstance(table, Path) else table

    synthetic = (
        {k: absolute(v) for k, v in spec.synthetic.items()}
        if isinstance(spec.synthetic, dict)
        else [absolute(v) for v in spec.synthetic]
    )
    return spec.model_copy(
        update={
            "train": absolute(spec.train),
            "synthetic": synthetic,
            "holdout": None if spec.holdout is None else absolute(spec.holdout),
            "schema_file": None if spec.schema_file is None else absolute(spec.schema_file),
        }
    )


def run_audit(
    *, out, params=None, data_root=None, progress: bool = True, schema=None, formats=None, **settings
) -> Path:
    """Run the privacy audit and write its report into ``out``.

    Give either the tables (``train``, ``synthetic``, ``holdout``) or ``params``, a YAML file
    (see :func:`privlib.audit.read_params`); ``settings`` are those of
    :class:`privlib.audit.AuditSpec`, under the same names (the command line's flags), and win
    over the file's; those left at ``None`` take the file's value or the spec's default.
    ``schema`` is the earlier name of ``schema_file``. The files a params file names must lie
    inside ``data_root`` (default: the params file's own folder). ``formats``: the names of
    :data:`AUDIT_FORMATS` to write (default all; metrics.json always): the work of the others is
    skipped (the notebook and the HTML with neither ``html`` nor ``pdf``), and the earlier run's
    files of the formats left out are removed from ``out`` in the same publication, so that
    ``out`` never holds files of two runs.

    Returns
    -------
    pathlib.Path
        The output folder, holding the files of ``formats`` (and whatever else it held before).

    Raises
    ------
    PrivlibError
        For bad input, before anything runs and before ``out`` is touched; or when the notebook
        fails (``out`` is then left as it was).
    """
    audit_and_publish(
        out=out,
        params=params,
        data_root=data_root,
        progress=progress,
        schema=schema,
        formats=formats,
        **settings,
    )
    return _checked_out(out)


def audit_and_publish(
    *, out, params=None, data_root=None, progress: bool = True, schema=None, formats=None, **settings
):
    """:func:`run_audit`, returning the report it published (an
    :class:`~privlib.audit.AuditReport`): the one its files in ``out`` hold, whatever another run
    into ``out`` publishes after it (the command line's ``--json`` and ``--fail-on`` read it)."""
    formats = audit_formats(formats)
    written = {name for kind in formats for name in AUDIT_FORMATS[kind]}
    pages_wanted = bool(formats & {"html", "pdf"})
    out = _checked_out(out)
    _check_report_names(out, written)
    if pages_wanted:
        _require_report_extra()
    if schema is not None:
        settings.setdefault("schema_file", schema)
    spec, recipe = audit_spec(params=params, data_root=data_root, **settings)
    if spec.dask_scheduler is not None:
        _require_dask(spec.dask_scheduler)
    if spec.targeted_attack is not None:
        from privlib.targeted import resolve_synthesizer

        # a bad name or entry point fails before any work; what a module the user named prints
        # on import stays off stdout, which --json gives to the caller
        with contextlib.redirect_stdout(sys.stderr):
            resolve_synthesizer(spec.targeted_attack)
    with _staging(out, "audit") as stage:
        work, report = stage / "work", stage / "report"
        work.mkdir()
        report.mkdir()
        if recipe is not None:
            _say(progress, f"making the tables of {recipe['dataset']} (seed {spec.seed})")
            made = materialise(recipe | {"seed": spec.seed}, work)
            spec = spec.model_copy(
                update={
                    "train": Path(made["train"]),
                    "synthetic": [Path(p) for p in made["synthetic"]],
                    "holdout": Path(made["holdout"]) if made["holdout"] else None,
                    "recipe": made["recipe"],
                }
            )
        spec = _with_absolute_paths(spec)
        # the notebook's kernel boots while the audit computes, off the critical path
        with _early_kernel(work) if pages_wanted else contextlib.nullcontext() as kernel:
            with _as_report_error("the audit"):
                inputs = _audit_inputs(spec, progress=progress, preload=pages_wanted)
                if pages_wanted:
                    # the per-variable figures need only the tables: drawn beside the measures
                    with _variable_figures(spec, inputs, work) as variable_figures:
                        reports = _with_file_decisions(_audit_reports(spec, inputs))
                        _say(progress, "drawing the report's figures")
                        pages = _report_sections(reports, variable_figures())
                else:
                    reports = _with_file_decisions(_audit_reports(spec, inputs))
            (report / "metrics.json").write_text(reports[0].to_json(), encoding="utf-8")
            if pages_wanted:
                sections = work / "audit_sections.json"
                sections.write_text(json.dumps(pages), encoding="utf-8")
                _say(progress, "running the audit notebook")
                _execute(
                    audit_notebook(),
                    report / "privacy_audit.ipynb",
                    {"sections_path": sections.name},
                    cwd=work,
                    progress=progress,
                    kernel=kernel,
                )
        if pages_wanted:
            _say(
                progress,
                f"rendering {' and '.join(sorted(written - {'metrics.json', 'privacy_audit.ipynb'}))}",
            )
            render_html(
                report / "privacy_audit.ipynb",
                report / "report.html",
                title=spec.title,
                toc=True,
                compact=True,
            )
            if "pdf" in formats:
                render_pdf(report / "report.html", report / "report.pdf")
        # an earlier run's files of the formats left out go in the same step: a reader never
        # sees this run's metrics.json beside another run's report
        _publish(report, out, written, retire=set(AUDIT_FILES) - written)
    return reports[0]


def _with_file_decisions(reports: list) -> list:
    """``reports`` (the audit, then each other synthetic file's own) with the decision on each
    file on the first, when there are several."""
    if len(reports) < 2:
        return reports
    return [reports[0].with_files(reports), *reports[1:]]


def _preload(*modules: str) -> None:
    """Import ``modules`` in a thread of their own; a later import of one waits for it (Python's
    import lock) and then finds it loaded."""
    threading.Thread(target=lambda: [import_module(name) for name in modules], daemon=True).start()


def _audit_inputs(spec: AuditSpec, *, progress: bool, preload: bool) -> AuditInputs:
    """The tables of ``spec`` read and checked (bad input raises :class:`PrivlibError`);
    ``preload``: load the renderers meanwhile."""
    n_synthetic = len(spec.synthetic)
    _say(
        progress,
        f"reading and checking the tables (training, {n_synthetic} synthetic file"
        f"{'s' if n_synthetic > 1 else ''}{', holdout' if spec.holdout is not None else ''})",
    )
    started = time.perf_counter()
    _passive_openmp()
    from privlib.audit.runner import inputs_of

    if preload:
        # the renderers load while the audit computes (after the audit's own imports: imports in
        # two threads only take turns)
        _preload("papermill", "nbconvert", "weasyprint")
    inputs = inputs_of(spec)
    if progress:
        logger.info("tables checked in %.1f s", time.perf_counter() - started)
    return inputs


def _audit_reports(spec: AuditSpec, inputs: AuditInputs) -> list:
    """The audit of ``spec`` in this process on its tables ``inputs``, then, with several
    synthetic files, each other file's own audit, labelled as each audit labels its file."""
    from privlib.audit.runner import run, run_on_inputs

    if isinstance(spec.synthetic, dict):
        alone: list = [{name: table} for name, table in list(spec.synthetic.items())[1:]]
    else:
        alone = [[table] for table in spec.synthetic[1:]]
    others = [spec.model_copy(update={"synthetic": synthetic}) for synthetic in alone]
    return [run_on_inputs(inputs, spec)] + [run(one) for one in others]


@contextlib.contextmanager
def _as_report_error(what: str) -> Iterator[None]:
    """Bad input (:class:`PrivlibError`) as it is; any other failure, one of the kit, as a
    :class:`ReportError` naming ``what`` whose message quotes no value (no traceback)."""
    try:
        yield
    except (PrivlibError, MemoryError):  # bad input as it is; memory: the command names the settings
        raise
    except Exception as exc:
        raise ReportError(f"{what} failed: {type(exc).__name__}: {blanked(str(exc))}") from None


#: The longest wait for the per-variable figures once the measures are done (they are drawn from
#: a bounded sample: seconds on any machine).
_FIGURES_SECONDS = 600.0


@contextlib.contextmanager
def _variable_figures(spec: AuditSpec, inputs: AuditInputs, folder: Path) -> Iterator[Callable[[], str]]:
    """The per-variable fidelity figures (:func:`privlib.render.audit.variable_fidelity_html`, on
    the fidelity card's sample, redacted), drawn in a second process while this one computes (its
    files in ``folder``): yields a function that waits for their HTML ("" for tables too small
    to assess)."""
    if not inputs.assessable:
        yield str
        return
    from privlib.render.audit import fidelity_sample, variable_fidelity_html

    real, fake = fidelity_sample(
        inputs.train,
        next(iter(inputs.synthetic.values())),
        max_records=spec.fidelity_sample,
        random_state=spec.seed,
    )
    # the sample is drawn here, so the other process gets only what it draws
    draw = functools.partial(variable_fidelity_html, max_records=None, random_state=spec.seed)
    with in_background(draw, real, fake, folder=folder, what="drawing the per-variable figures") as drawn:
        yield lambda: drawn(_FIGURES_SECONDS)


def _report_sections(reports: list, variables: str) -> dict:
    """The report's pages as the kit's escaped HTML fragments, figures embedded, in the order
    ``reports/privacy_audit.ipynb`` shows them: drawn once here, where the results' per-record
    arrays are, and read back by the notebook as data. ``reports``: the audit, then the other
    synthetic files' own audits; ``variables``: the per-variable figures (:func:`_variable_figures`)."""
    from privlib.render import audit as page
    from privlib.render import audit_pages as pages

    report, others = reports[0], reports[1:]
    document = report.model_dump(mode="json")
    families = [
        {
            "readings": pages.readings_html(document, family),
            "tables": [page.table_html(table) for _, table in page.measure_tables(report, family)],
            "figures": "".join(
                pages.measure_figure_html(record, result, plot)
                for record, result, plot in page.figures(report, family)
            ),
        }
        for family in [f.family for f in report.families]
    ]
    compared = {r.synthetic_label: r for r in reports} if others else {}
    return {
        "decision": pages.decision_html(document),
        "fidelity": pages.fidelity_html(document),
        "variable_fidelity": variables,
        "forest": pages.forest_figure_html(document),
        "verdicts": pages.verdict_lines_html(document),
        "families": families,
        "comparison": pages.comparison_html(compared) if compared else "",
        "appendix": pages.appendix_html(document),
        "provenance": page.provenance_html(report),
        "glossary": pages.glossary_html(document),
    }


# --------------------------------------------------------------------------------------------
# The course
# --------------------------------------------------------------------------------------------
def _course_dataset(dataset, params, seed, data_root=None):
    if data_root is not None and params is None:
        raise PrivlibError("`--data-root` is where a params file's tables lie: give it with --params.")
    if params is not None:
        spec = read_params(params, root=data_root)
        dataset = spec.get("dataset") or spec["train"]
        seed = spec.get("seed", seed)
    if dataset is None:
        raise PrivlibError("give `--dataset` (a bundled dataset or a CSV path) or `--params`.")
    if dataset in DATASETS:
        return dataset, dataset_info(dataset).title, seed
    if not os.path.lexists(dataset):
        raise PrivlibError(
            f"`dataset` {dataset!r} is neither a bundled dataset {list(DATASETS)} nor an existing CSV file."
        )
    check_input_size(
        dataset, "dataset", max_input_mb=DEFAULT_MAX_INPUT_MB, max_expansion=DEFAULT_MAX_EXPANSION
    )
    # fails early on a FIFO, a folder, an empty or unreadable file
    _refuse_mathtext(read_table(dataset, "dataset"), "dataset")
    return str(Path(dataset).resolve()), Path(dataset).name, seed


def _mathtext(text: str) -> bool:
    """Whether matplotlib would typeset ``text`` as mathematics: an even, non-zero number of
    dollar signs not escaped as ``\\$`` (the rule of ``matplotlib.text.Text``)."""
    dollars = text.count("$") - text.count("\\$")
    return dollars > 0 and dollars % 2 == 0


def _refuse_mathtext(frame, label: str) -> None:
    """Refuse category labels that the lessons' figures would typeset as mathematics (their axes
    and legends show the categories): matplotlib fails on most of them with an empty
    ``ValueError`` and the lesson stops."""
    named = sum(1 for column in frame.columns if _mathtext(str(column)))
    if named:
        raise PrivlibError(
            f"{named} column name(s) of `{label}` hold a pair of $ signs, which the lessons' figures "
            "would read as mathematical notation; write the $ signs as \\$ or remove them."
        )
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_numeric_dtype(values):
            continue
        typeset = sum(1 for v in values.dropna().unique() if isinstance(v, str) and _mathtext(v))
        if typeset:
            raise PrivlibError(
                f"column {column!r} of `{label}` has {typeset} categor{'y' if typeset == 1 else 'ies'} "
                "with a pair of $ signs, which the lessons' figures would read as mathematical "
                "notation; write the $ signs as \\$ or remove them."
            )


def _check_seed(seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise PrivlibError(f"`seed` must be a whole number >= 0 and <= {MAX_SEED:,}, got {str(seed)[:40]}.")


def run_course(
    *,
    out,
    dataset: str | None = None,
    params=None,
    seed: int = 2026,
    quick: bool = True,
    notebooks=None,
    lessons=None,
    slides: bool = False,
    keep_going: bool = False,
    show_records: bool = False,
    progress: bool = True,
    data_root=None,
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
        Folder of the notebooks (default: the kit's own).
    lessons : list of str, optional
        Only the lessons whose file names start with these (e.g. ``["00", "04"]``).
    slides : bool, default False
        Also write each lesson's reveal.js slides (``<lesson>.slides.html``, with an ``assets/``
        folder so that they open without network access; :mod:`privlib.slides`).
    keep_going : bool, default False
        When a lesson fails, go on with the next one, publish the lessons that finished and then
        raise :class:`ReportError` (each failed lesson is logged in one line). Without it the
        first failure stops the course and nothing is published.
    show_records : bool, default False
        The lessons' ``show_records`` parameter (given to each lesson that declares it): whether
        a lesson may display rows of the data. Off by default, since ``dataset`` may be a
        user's confidential file.
    data_root : str or path, optional
        The folder the params file's ``train`` file lies in (default: the params file's own).

    Raises
    ------
    ReportError
        When a lesson fails (with ``keep_going``: after publishing the others, or when none
        finished).
    """
    from privlib import __version__

    out = _checked_out(out)
    _require_report_extra()
    dataset, dataset_title, seed = _course_dataset(dataset, params, seed, data_root)
    _check_seed(seed)
    capstone = _capstone(notebooks) if lessons is None else None
    lessons = course_notebooks(notebooks, lessons)
    with _staging(out, "course") as stage:
        course = stage / "course"
        course.mkdir()
        entries, failed = [], []
        for i, notebook in enumerate(lessons, 1):
            _say(progress, f"lesson {i}/{len(lessons)}: {notebook.name}")
            parameters = {
                "dataset": dataset,
                "seed": seed,
                "quick": quick,
                **_record_parameter(notebook, show_records),
            }
            try:
                entries.append(_run_lesson(notebook, course, parameters, stage=stage, slides=slides))
            except ReportError as exc:
                if not keep_going:
                    raise
                failed.append(notebook.stem)
                logger.error("lesson %s failed: %s", notebook.stem, " ".join(str(exc).split()))
                for leftover in course.glob(f"{notebook.stem}.*"):
                    leftover.unlink()
        if not entries:
            raise ReportError(f"no lesson finished ({len(failed)} failed); nothing was published.")
        if capstone is not None:  # for the students to complete: copied, not run
            shutil.copyfile(capstone, course / capstone.name)
        page = render_page(
            "course_index.html.j2",
            title=f"Course: {dataset_title}",
            dataset_title=dataset_title,
            seed=seed,
            quick=quick,
            version=__version__,
            lessons=entries,
            capstone=capstone and {"file": capstone.name, "title": notebook_title(capstone) or capstone.stem},
        )
        (course / "index.html").write_text(page, encoding="utf-8")
        own = {"index.html", "assets", *([capstone.name] if capstone else [])} | {
            f"{e['stem']}{ext}" for e in entries for ext in (".ipynb", ".html", ".pdf", ".slides.html")
        }
        _publish(course, out, own)
    if failed:
        raise ReportError(
            f"{len(failed)} of {len(lessons)} lessons failed ({', '.join(failed)}); the "
            f"{len(entries)} that finished are published in {out}."
        )
    return out


def _capstone(folder) -> Path | None:
    """The capstone notebook beside the lessons, if there is one."""
    path = (Path(folder) if folder is not None else resource_path("notebooks")) / "capstone.ipynb"
    return path if path.is_file() else None


def _record_parameter(notebook: Path, show_records: bool) -> dict:
    """``{"show_records": ...}`` for a lesson that declares the parameter, else nothing (papermill
    would warn about an unknown parameter)."""
    import papermill

    declared = papermill.inspect_notebook(str(notebook))
    return {"show_records": bool(show_records)} if "show_records" in declared else {}


def _run_lesson(notebook: Path, course: Path, parameters: dict, *, stage: Path, slides: bool) -> dict:
    """Execute one lesson into ``course`` and render its HTML, PDF (and slides); its index entry."""
    executed = course / notebook.name
    _execute(notebook, executed, parameters, cwd=stage, progress=False)
    stem = notebook.stem
    render_html(executed, course / f"{stem}.html", show_code=True, math=True)
    render_pdf(course / f"{stem}.html", course / f"{stem}.pdf")
    if slides:
        from privlib.slides import render_slides

        render_slides(executed, course / f"{stem}.slides.html", assets=course / "assets")
    return {"stem": stem, "title": notebook_title(executed) or stem, "slides": slides}


#: What ``privlib notebooks`` copies out of the kit for a lecturer to edit.
EDITABLE = ("0*.ipynb", "capstone*.ipynb", "GLOSSARY.md", "TEACHING.md", "CONVENTIONS.md")


def copy_notebooks(target, *, force: bool = False) -> list[Path]:
    """Copy the lessons, the capstone, GLOSSARY.md, TEACHING.md and CONVENTIONS.md into ``target``.

    For a lecturer who installed the wheel and wants copies to edit. ``target`` is created if
    needed; it may not lie inside the kit. An existing file is never replaced unless ``force``,
    and a symbolic link is never followed: with ``force`` the link itself is replaced.

    Returns
    -------
    list of Path
        The files written, in order.

    Raises
    ------
    PrivlibError
        When ``target`` is inside the kit, is a file or a link to nothing, or (without
        ``force``) when a file to write exists already; nothing is written then.
    """
    source = resource_path("notebooks")
    kit = source.parent.resolve()
    target = Path(target)
    if target.resolve().is_relative_to(kit):
        raise PrivlibError(
            f"{str(target)!r} is inside the kit ({kit}); give a folder outside it for the copies."
        )
    if target.is_symlink() and not target.exists():
        raise PrivlibError(
            f"{str(target)!r} is a symbolic link to something that does not exist; make the folder "
            "it points to, or give another folder for the copies."
        )
    if target.exists() and not target.is_dir():
        raise PrivlibError(f"{str(target)!r} is a file; give a folder for the copies.")
    files = sorted({path for pattern in EDITABLE for path in source.glob(pattern)})
    present = [path.name for path in files if os.path.lexists(target / path.name)]
    if present and not force:
        raise PrivlibError(
            f"{len(present)} of the files exist in {str(target)!r} already (e.g. {present[0]}); "
            "pass --force to replace them, or give another folder."
        )
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for path in files:
        # copied beside, then renamed over the old name: a link is replaced, never followed
        handle, temporary = tempfile.mkstemp(dir=target, prefix=f".{path.name}.")
        os.close(handle)
        shutil.copyfile(path, temporary)
        os.replace(temporary, target / path.name)
        written.append(target / path.name)
    return written


def run_all(*, out, datasets=None, course: bool = True, progress: bool = True) -> Path:
    """Audit (and course) for every bundled dataset into ``out/<dataset>/``, with an index page.

    A course publishes the lessons that finished even when one fails (``keep_going``); the
    failures are raised once every dataset is done."""
    out = _checked_out(out)
    datasets = list(datasets or DATASETS)
    files = [params_file(d) for d in datasets]  # every name checked before anything runs
    incomplete = []
    for name, path in zip(datasets, files):
        _say(progress, f"{name}: audit")
        run_audit(out=out / name, params=path, progress=progress)
        if course:
            _say(progress, f"{name}: course")
            try:
                run_course(out=out / name / "course", params=path, keep_going=True, progress=progress)
            except ReportError as exc:
                incomplete.append(f"{name}: {exc}")
    entries = [{"name": d, "title": dataset_info(d).title, "course": course} for d in datasets]
    page = render_page("reports_index.html.j2", title="privlib reports", entries=entries)
    with _staging(out, "reports") as stage:
        (stage / "index.html").write_text(page, encoding="utf-8")
        _publish(stage, out, {"index.html"})
    if incomplete:
        raise ReportError("courses incomplete: " + "; ".join(incomplete))
    return out
