"""The course pipeline: :func:`run_course` executes and renders the lessons, :func:`copy_notebooks`
copies them to edit, and :func:`run_all` writes the audit and the course for every dataset."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from privlib.audit import read_params
from privlib.audit.checks import check_input_size
from privlib.audit.spec import (
    DEFAULT_MAX_EXPANSION,
    DEFAULT_MAX_INPUT_MB,
    MAX_SEED,
)
from privlib.datasets import DATASETS, dataset_info, read_table
from privlib.errors import PrivlibError, ReportError
from privlib.pipeline.audit_report import course_notebooks, params_file, run_audit
from privlib.pipeline.execution import _execute, _require_report_extra, _say
from privlib.publish import checked_out as _checked_out
from privlib.publish import publish as _publish
from privlib.publish import staging as _staging
from privlib.render import render_html, render_page, render_pdf
from privlib.render.notebook import check_edition, notebook_title, student_edition
from privlib.resources import resource_path

# one logger for the whole pipeline, whichever of its modules writes
logger = logging.getLogger("privlib.pipeline")


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
    edition: str = "lecturer",
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
    edition : {"lecturer", "student"}, default "lecturer"
        Whose handouts: the lecturer's keep the exercises' solutions; the student's leave every
        solution out, code and output (:func:`privlib.render.notebook.student_edition`). Either
        way the capstone is the student's notebook only, never its key.
    data_root : str or path, optional
        The folder the params file's ``train`` file lies in (default: the params file's own).

    Raises
    ------
    ReportError
        When a lesson fails (with ``keep_going``: after publishing the others, or when none
        finished).
    """
    from privlib import __version__

    check_edition(edition)
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
                entries.append(
                    _run_lesson(notebook, course, parameters, stage=stage, slides=slides, edition=edition)
                )
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


def _run_lesson(
    notebook: Path, course: Path, parameters: dict, *, stage: Path, slides: bool, edition: str
) -> dict:
    """Execute one lesson into ``course`` and render its HTML, PDF (and slides) in ``edition``; its
    index entry."""
    executed = course / notebook.name
    _execute(notebook, executed, parameters, cwd=stage, progress=False)
    stem = notebook.stem
    render_html(executed, course / f"{stem}.html", show_code=True, math=True, edition=edition)
    render_pdf(course / f"{stem}.html", course / f"{stem}.pdf")
    if slides:
        from privlib.slides import render_slides

        render_slides(executed, course / f"{stem}.slides.html", assets=course / "assets")
    if edition == "student":  # the executed notebook is published beside its handout: without answers too
        import nbformat

        nbformat.write(student_edition(nbformat.read(executed, as_version=4)), executed)
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
