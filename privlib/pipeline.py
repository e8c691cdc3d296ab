"""The pipelines behind ``privlib audit``, ``privlib course`` and ``privlib reports``.

Each pipeline stages, executes, renders and publishes:

* **stage**: a private folder is made *beside* the output folder (same filesystem), before any
  work starts, which also proves the output folder's parent is writable; every temporary file of
  the run (tables made from a params file, executed notebooks, the report) lives there and is
  removed on every exit, including Ctrl-C and SIGTERM (see :mod:`privlib.cli`);
* **execute**: papermill runs the notebook (the kernel talks over IPC sockets, not TCP);
* **render**: :mod:`privlib.render` writes HTML and PDF;
* **publish**: the finished folder replaces the output folder by renaming (atomic on one
  filesystem); entries of an earlier output folder that are not the report's own (e.g. a
  ``course/`` folder) move along by rename, and symbolic links are moved, never followed. A run
  that fails at any step leaves the earlier output untouched.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from privlib.audit import load_audit_inputs, materialise, read_params
from privlib.datasets import DATASETS, dataset_info, read_table
from privlib.errors import PrivlibError
from privlib.render import render_html, render_page, render_pdf
from privlib.render.notebook import notebook_title
from privlib.resources import resource_path
from privlib.thresholds import check_overrides

__all__ = [
    "AUDIT_FILES", "ReportError", "audit_notebook", "course_notebooks", "params_file",
    "run_audit", "run_course", "run_all", "copy_notebooks",
]

logger = logging.getLogger(__name__)

#: Files an audit writes into its output folder (and nothing else).
AUDIT_FILES = ("privacy_audit.ipynb", "report.html", "report.pdf", "metrics.json")


class ReportError(PrivlibError):
    """A notebook failed while it ran (not bad input): the report was not written."""


# --------------------------------------------------------------------------------------------
# The output folder: checked first, staged beside, published by rename
# --------------------------------------------------------------------------------------------
def _checked_out(out) -> Path:
    """``out`` as an absolute path, after the checks that need no writing."""
    if out is None or not str(out).strip():
        raise PrivlibError("`--out` is empty; give the folder the report should be written to.")
    out = Path(os.path.abspath(os.path.expanduser(str(out))))
    if out.is_symlink():
        raise PrivlibError(f"`--out` {str(out)!r} is a symbolic link; give a real folder.")
    if out.exists() and not out.is_dir():
        raise PrivlibError(f"`--out` {str(out)!r} exists and is not a folder; choose a folder.")
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise PrivlibError(f"`--out` {str(out)!r} is not writable; choose a folder you can write to.")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise PrivlibError(
                    f"`--out` {str(out)!r} cannot be made: {str(parent)!r} is a file, not a folder."
                )
            break
    return out


@contextlib.contextmanager
def _staging(out: Path, prefix: str):
    """A private folder beside ``out`` (made first, removed on every exit)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.{prefix}-", dir=out.parent))
    except OSError as exc:
        raise PrivlibError(
            f"cannot write beside `--out` {str(out)!r} ({exc.strerror or exc}); choose a folder "
            "you can write to."
        ) from None
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _publish(finished: Path, out: Path, own: set[str]) -> None:
    """Replace ``out`` by the folder ``finished`` (both on one filesystem).

    Entries of an earlier ``out`` not named in ``own`` are moved into ``finished`` first, so that
    they survive; the earlier ``out`` is renamed aside, ``finished`` renamed into place, and the
    earlier one removed. On failure the earlier ``out`` is put back as it was.
    """
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise PrivlibError(f"`--out` {str(out)!r} changed while the report was made; nothing was written.")
    carried = []
    if out.exists():
        for entry in sorted(os.listdir(out)):
            if entry not in own and not (finished / entry).exists():
                os.rename(out / entry, finished / entry)
                carried.append(entry)
    aside = finished.parent / (finished.name + ".previous")
    moved_aside = False
    try:
        if out.exists():
            os.rename(out, aside)
            moved_aside = True
        os.rename(finished, out)
    except OSError as exc:
        if moved_aside and not out.exists():
            os.rename(aside, out)
        for entry in carried:
            with contextlib.suppress(OSError):
                os.rename(finished / entry, out / entry)
        raise PrivlibError(
            f"could not publish into `--out` {str(out)!r} ({exc.strerror or exc}); the earlier "
            "output is intact."
        ) from None
    if moved_aside:
        shutil.rmtree(aside, ignore_errors=True)


# --------------------------------------------------------------------------------------------
# Executing a notebook
# --------------------------------------------------------------------------------------------
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


def _ipc_kernel_manager():
    """A kernel manager whose kernel listens on IPC sockets (files in the run's folder), so no
    code or output travels over TCP, and the kernel does not warn that it does."""
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
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

    missing = [name for name in ("papermill", "nbconvert", "nbformat", "ipykernel", "weasyprint")
               if importlib.util.find_spec(name) is None]
    if missing:
        raise PrivlibError(
            f"rendering reports needs {', '.join(missing)}: install the report extra, "
            "pip install 'privlib[report]'."
        )


def _require_dask() -> None:
    import importlib.util

    if importlib.util.find_spec("distributed") is None:
        raise PrivlibError("--dask-scheduler needs the dask extra: pip install 'privlib[dask]'.")


def _execute(notebook, output, parameters: dict, *, cwd, progress: bool) -> None:
    import papermill

    # papermill logs every cell's output at INFO; of those, the progress lines of the audit are
    # worth showing during a long run, the rest repeats what the report shows.
    papermill_log = logging.getLogger("papermill")
    if _PROGRESS_FILTER not in papermill_log.filters:
        papermill_log.addFilter(_PROGRESS_FILTER)
    # The kernel inherits this process's environment; MPLBACKEND=Agg (set for headless runs)
    # would stop figures from reaching the notebook, so the kernel gets the inline backend.
    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    # OpenMP threads that wait passively (numba, gradient boosting): actively waiting threads slow
    # a run down many times over on a machine shared with other jobs.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        papermill.execute_notebook(
            str(notebook), str(output), parameters=parameters, cwd=str(cwd),
            # The audit's own progress lines (through the log) say where the run is; papermill's
            # cell bar on the same stream would interleave with them.
            kernel_name="python3", progress_bar=False, log_output=progress,
            kernel_manager_class=_ipc_kernel_manager(),
        )
    except papermill.PapermillExecutionError as exc:
        detail = f"{exc.ename}: {exc.evalue}".splitlines()[0]
        raise ReportError(f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {detail}") from None
    except RuntimeError as exc:  # the kernel died or did not start
        raise ReportError(f"the notebook's kernel failed: {str(exc).splitlines()[0]}") from None
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous


def _say(progress: bool, message: str) -> None:
    """A progress line on stderr (stdout may be a pipe the caller reads)."""
    if progress:
        print(f"privlib: {message} ...", file=sys.stderr, flush=True)


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
    if lessons:
        unknown = [l for l in lessons if not any(p.name.startswith(str(l)) for p in found)]
        if unknown:
            raise PrivlibError(
                f"`lessons` {unknown} match no lesson; the lessons are {[p.stem for p in found]}."
            )
        found = [p for p in found if any(p.name.startswith(str(l)) for l in lessons)]
    return found


def params_file(dataset: str) -> Path:
    """The params file the kit ships for ``dataset`` (``reports/params/<dataset>.yaml``)."""
    if dataset not in DATASETS:
        raise PrivlibError(f"unknown dataset {dataset!r}; the bundled datasets are {list(DATASETS)}.")
    return resource_path("reports", "params", f"{dataset}.yaml")


# --------------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------------
def _audit_arguments(params, given: dict) -> dict:
    """The audit's arguments: those given, else the params file's, else the defaults."""
    spec = read_params(params) if params is not None else {}
    names = ("keys", "sensitive", "population_size", "seed", "title", "thresholds", "attack_share")
    merged = {name: given[name] if given.get(name) is not None else spec.get(name) for name in names}
    merged["seed"] = 2026 if merged["seed"] is None else merged["seed"]
    if isinstance(merged["seed"], bool) or not isinstance(merged["seed"], int) or merged["seed"] < 0:
        raise PrivlibError(f"`seed` must be a whole number >= 0, got {merged['seed']!r}.")
    merged["attack_share"] = 0.5 if merged["attack_share"] is None else merged["attack_share"]
    merged["thresholds"] = check_overrides(merged["thresholds"])
    merged["title"] = merged["title"] or "Privacy audit of a synthetic dataset"
    return {"spec": spec, **merged}


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
    allow_new_categories: bool = False,
    schema=None,
    dask_scheduler: str | None = None,
    targeted_attack: str | None = None,
    progress: bool = True,
) -> Path:
    """Run the privacy audit and write its report into ``out``.

    Give either the file arguments (``train``, ``synthetic``, ...) or ``params``, a YAML file
    (see :func:`privlib.audit.read_params`); values in the file are used where the arguments
    are left at ``None``. Defaults: seed 2026, attack share 0.5.

    Returns
    -------
    pathlib.Path
        The output folder, holding :data:`AUDIT_FILES` (and whatever else it held before).

    Raises
    ------
    PrivlibError
        For bad input, before anything runs and before ``out`` is touched; or when the notebook
        fails (``out`` is then left as it was).
    """
    out = _checked_out(out)
    _require_report_extra()
    if dask_scheduler is not None:
        _require_dask()
    if targeted_attack is not None:
        from privlib.targeted import resolve_synthesizer

        resolve_synthesizer(targeted_attack)  # a bad name or entry point fails before any work
    notebook = audit_notebook()
    arguments = _audit_arguments(params, dict(
        keys=keys, sensitive=sensitive, population_size=population_size, seed=seed, title=title,
        thresholds=thresholds, attack_share=attack_share,
    ))
    spec = arguments.pop("spec")
    with _staging(out, "audit") as stage:
        work, report = stage / "work", stage / "report"
        work.mkdir()
        report.mkdir()
        recipe = None
        if "dataset" in spec:
            _say(progress, f"making the tables of {spec['dataset']} (seed {arguments['seed']})")
            made = materialise(spec | {"seed": arguments["seed"]}, work)
            train, synthetic, holdout, recipe = made["train"], made["synthetic"], made["holdout"], made["recipe"]
        elif spec:
            train, synthetic, holdout = spec["train"], spec["synthetic"], spec.get("holdout")
        inputs = load_audit_inputs(
            train=train, synthetic=synthetic, holdout=holdout,
            population_size=arguments["population_size"], keys=arguments["keys"],
            sensitive=arguments["sensitive"], allow_new_categories=allow_new_categories,
            schema=schema,
        )
        parameters = {
            "train": str(Path(train).resolve()),
            "synthetic": [str(Path(p).resolve()) for p in inputs.files["synthetic"]],
            "holdout": str(Path(holdout).resolve()) if holdout is not None else None,
            "population_size": inputs.population_size,
            "keys": inputs.keys,
            "sensitive": inputs.sensitive,
            "thresholds": arguments["thresholds"],
            "attack_share": arguments["attack_share"],
            "seed": arguments["seed"],
            "title": arguments["title"],
            "recipe": recipe,
            "dask_scheduler": dask_scheduler,
            "targeted_attack": targeted_attack,
            "metrics_path": str(report / "metrics.json"),
        }
        executed = report / "privacy_audit.ipynb"
        _say(progress, "running the audit notebook")
        _execute(notebook, executed, parameters, cwd=work, progress=progress)
        if not (report / "metrics.json").is_file():
            raise ReportError("the audit notebook did not write metrics.json; is it the kit's template?")
        _say(progress, "rendering report.html and report.pdf")
        render_html(executed, report / "report.html", title=arguments["title"])
        render_pdf(report / "report.html", report / "report.pdf")
        _publish(report, out, set(AUDIT_FILES))
    return out


# --------------------------------------------------------------------------------------------
# The course
# --------------------------------------------------------------------------------------------
def _course_dataset(dataset, params, seed):
    if params is not None:
        spec = read_params(params)
        dataset = spec.get("dataset") or spec["train"]
        seed = spec.get("seed", seed)
    if dataset is None:
        raise PrivlibError("give `--dataset` (a bundled dataset or a CSV path) or `--params`.")
    if dataset in DATASETS:
        return dataset, dataset_info(dataset).title, seed
    if not Path(dataset).is_file():
        raise PrivlibError(
            f"`dataset` {dataset!r} is neither a bundled dataset {list(DATASETS)} nor an existing CSV file."
        )
    read_table(dataset, "dataset")  # fails early on an empty or unreadable file
    return str(Path(dataset).resolve()), Path(dataset).name, seed


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

    Raises
    ------
    ReportError
        When a lesson fails (with ``keep_going``: after publishing the others, or when none
        finished).
    """
    from privlib import __version__

    out = _checked_out(out)
    _require_report_extra()
    dataset, dataset_title, seed = _course_dataset(dataset, params, seed)
    capstone = _capstone(notebooks) if lessons is None else None
    lessons = course_notebooks(notebooks, lessons)
    with _staging(out, "course") as stage:
        course = stage / "course"
        course.mkdir()
        entries, failed = [], []
        for i, notebook in enumerate(lessons, 1):
            _say(progress, f"lesson {i}/{len(lessons)}: {notebook.name}")
            parameters = {"dataset": dataset, "seed": seed, "quick": quick,
                          **_record_parameter(notebook, show_records)}
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
        page = render_page("course_index.html.j2", title=f"Course: {dataset_title}",
                           dataset_title=dataset_title, seed=seed, quick=quick, version=__version__,
                           lessons=entries, capstone=capstone and {
                               "file": capstone.name, "title": notebook_title(capstone) or capstone.stem})
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
        When ``target`` is inside the kit or is a file, or (without ``force``) when a file to
        write exists already; nothing is written then.
    """
    source = resource_path("notebooks")
    kit = source.parent.resolve()
    target = Path(target)
    if target.resolve().is_relative_to(kit):
        raise PrivlibError(
            f"{str(target)!r} is inside the kit ({kit}); give a folder outside it for the copies."
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
    (out / "index.html").write_text(page, encoding="utf-8")
    if incomplete:
        raise ReportError("courses incomplete: " + "; ".join(incomplete))
    return out

