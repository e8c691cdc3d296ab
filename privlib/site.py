"""The course site: lessons, slides, glossary, teaching plan and library reference, built offline.

:func:`build_site` stages the course into a folder Jupyter Book (version 1) can build, then runs
it. The lessons are the committed, executed notebooks (nothing is re-executed); the reference
pages come from the docstrings (Sphinx autodoc with napoleon for the numpydoc sections); each
lesson's reveal.js slides (:mod:`privlib.slides`) are copied in and linked; MathJax is served from
the site itself, so the pages work without a network.

Cell tags are those of the handouts (``notebooks/CONVENTIONS.md``): ``remove-cell``,
``parameters``, ``injected-parameters`` and ``claims`` hide a cell, ``hide-input`` folds a code
cell under its output.

Editions: the lecturer's site (the default) keeps the exercises' solutions and the teaching plan;
a student's site (``edition="student"``) leaves every solution out, input and output
(:func:`privlib.render.notebook.student_edition`), and the teaching plan with it. Neither holds the
capstone's key, ``capstone_key.ipynb``: only the lessons and the student's ``capstone.ipynb`` are
staged.

References
----------
Jupyter Book 1, https://jupyterbook.org (v1 documentation); Sphinx autodoc and napoleon.
"""

from __future__ import annotations

import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from privlib.errors import PrivlibError
from privlib.render.notebook import (
    REMOVE_CELL_TAGS,
    check_edition,
    notebook_title,
    student_edition,
    without_nbval_markers,
)
from privlib.slides import fetch_assets, render_slides

__all__ = ["REFERENCE_MODULES", "build_site", "stage_site"]

#: modules whose reference page comes first, in the order of the course
_COURSE_ORDER = (
    "privlib.identity",
    "privlib.attribute",
    "privlib.membership",
    "privlib.criteria",
    "privlib.targeted",
    "privlib.dp",
    "privlib.utility",
    "privlib.synth",
    "privlib.audit",
    "privlib.pipeline",
    "privlib.datasets",
    "privlib.schema",
    "privlib.neighbors",
    "privlib.results",
    "privlib.thresholds",
    "privlib.uncertainty",
    "privlib.plots",
    "privlib.slides",
)


def _public_modules() -> list[str]:
    """Every public module and subpackage of privlib (no leading underscore)."""
    import privlib

    return [
        f"privlib.{info.name}"
        for info in pkgutil.iter_modules(privlib.__path__)
        if not info.name.startswith("_")
    ]


#: modules with a reference page: every public one, those of the course first, then the rest
REFERENCE_MODULES = tuple(
    dict.fromkeys([m for m in _COURSE_ORDER if m in _public_modules()] + sorted(_public_modules()))
)

_CONFIG = """\
title: privlib course
author: the privlib authors
only_build_toc_files: true
execute:
  execute_notebooks: "off"
sphinx:
  extra_extensions:
    - sphinx.ext.autodoc
    - sphinx.ext.napoleon
  config:
    html_extra_path: ["slides"]
    mathjax_path: "mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"
    html_static_path: ["_static"]
    napoleon_numpy_docstring: true
    autodoc_member_order: bysource
    suppress_warnings: ["mystnb.unknown_mime_type", "myst.header"]
"""


def _lessons(notebooks: Path) -> list[Path]:
    lessons = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    capstone = notebooks / "capstone.ipynb"
    return lessons + ([capstone] if capstone.exists() else [])


def _hide_for_the_site(notebook):
    """Tag cells as Jupyter Book expects: removed cells get ``remove-cell``, nbval lines go."""
    for cell in notebook.cells:
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if set(tags) & set(REMOVE_CELL_TAGS) and "remove-cell" not in tags:
            tags.append("remove-cell")
        if cell.cell_type == "code":
            cell.source = without_nbval_markers(cell.source)
    return notebook


#: The lecturer's pages (notebooks/*.md), each with the editions it belongs to.
_PAGES = {
    "GLOSSARY.md": ("lecturer", "student"),
    "TEACHING.md": ("lecturer",),
    "CONVENTIONS.md": ("lecturer", "student"),
}


def stage_site(root, staging, *, slides=True, lessons=None, edition="lecturer") -> Path:
    """Write the Jupyter Book sources of the course into ``staging``.

    Parameters
    ----------
    root : str or Path
        The repository root (it holds ``notebooks/`` and ``privlib/``).
    staging : str or Path
        The folder to write; emptied first.
    slides : bool, default True
        Render each lesson's slides (needs the slide assets, fetched once by npm).
    lessons : list of str, optional
        Notebook names to include (default: every ``notebooks/NN_*.ipynb`` and the capstone).
    edition : {"lecturer", "student"}, default "lecturer"
        The lecturer's site keeps the solutions and the teaching plan; the student's leaves
        every solution out (input and output) and the teaching plan too.

    Returns
    -------
    Path
        ``staging``.

    Raises
    ------
    PrivlibError
        If ``root`` holds no lesson notebooks, or ``edition`` is not one of the two.

    Examples
    --------
    >>> stage_site(".", "build/course-site/src", slides=False)  # doctest: +SKIP
    PosixPath('build/course-site/src')
    """
    check_edition(edition)
    root, staging = Path(root), Path(staging)
    chosen = lessons
    lessons = [path for path in _lessons(root / "notebooks") if chosen is None or path.name in chosen]
    if not lessons:
        raise PrivlibError(f"`root` ({root}) holds no notebooks/NN_*.ipynb lessons.")
    if staging.exists():
        shutil.rmtree(staging)
    (staging / "lessons").mkdir(parents=True)
    (staging / "reference").mkdir()
    (staging / "_static").mkdir()
    for lesson in lessons:
        notebook = nbformat.read(lesson, as_version=4)
        if edition == "student":
            notebook = student_edition(notebook)
        nbformat.write(_hide_for_the_site(notebook), staging / "lessons" / lesson.name)
    for page, editions in _PAGES.items():
        if edition in editions and (root / "notebooks" / page).exists():
            shutil.copyfile(root / "notebooks" / page, staging / page.lower())
    for module in REFERENCE_MODULES:
        (staging / "reference" / f"{module}.md").write_text(
            f"# `{module}`\n\n```{{eval-rst}}\n.. automodule:: {module}\n   :members:\n```\n"
        )
    slide_lines = []
    assets = fetch_assets(root / "build" / "slides-assets") if slides else None
    (staging / "slides").mkdir()
    if assets is not None:  # slides asked for
        shutil.copytree(assets, staging / "slides" / "slides" / "assets")
        for lesson in lessons:
            render_slides(
                lesson,
                staging / "slides" / "slides" / f"{lesson.stem}.html",
                assets=staging / "slides" / "slides" / "assets",
                fetch=False,
            )
            slide_lines.append(f"- [{notebook_title(lesson) or lesson.stem}](slides/{lesson.stem}.html)")
    try:
        import jupyter_server_mathjax
    except ImportError as error:
        raise PrivlibError("the site serves MathJax itself: pip install 'privlib[course]'") from error
    shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static", staging / "_static" / "mathjax")
    capstone = [path for path in lessons if path.stem == "capstone"]
    capstone_line = (
        f"\n## Capstone\n\n[{notebook_title(capstone[0]) or 'The capstone'}](lessons/capstone), "
        "an assessment that uses the whole course.\n"
        if capstone
        else ""
    )
    (staging / "intro.md").write_text(
        "# The privlib course\n\n"
        "Lessons on the privacy risk of synthetic tabular data, each a notebook that runs on four "
        "bundled datasets, with slides, a glossary, "
        + ("a teaching plan" if edition == "lecturer" else "the exercises without their solutions")
        + ", a capstone and the library reference.\n\n## Slides\n\n"
        + ("\n".join(slide_lines) or "(built without slides)")
        + "\n"
        + capstone_line
    )
    toc = ["format: jb-book", "root: intro", "parts:", "  - caption: Lessons", "    chapters:"]
    toc += [f"      - file: lessons/{lesson.stem}" for lesson in lessons]
    toc += [f"  - caption: {'For the lecturer' if edition == 'lecturer' else 'Notes'}", "    chapters:"]
    toc += [
        f"      - file: {page}"
        for page in ("teaching", "glossary", "conventions")
        if (staging / f"{page}.md").exists()
    ]
    toc += ["  - caption: Library reference", "    chapters:"]
    toc += [f"      - file: reference/{module}" for module in REFERENCE_MODULES]
    (staging / "_toc.yml").write_text("\n".join(toc) + "\n")
    (staging / "_config.yml").write_text(_CONFIG)
    return staging


def build_site(root, out, *, slides=True, strict=False, lessons=None, edition="lecturer") -> Path:
    """Build the course site into ``out`` (its ``html/`` folder is the site).

    Parameters
    ----------
    root : str or Path
        The repository root.
    out : str or Path
        Where to stage and build; ``out/html/index.html`` is the entry page.
    slides : bool, default True
        Include each lesson's offline slides.
    strict : bool, default False
        Turn Sphinx warnings into errors.
    lessons : list of str, optional
        Notebook names to include (default: all of them).
    edition : {"lecturer", "student"}, default "lecturer"
        Whose site: see :func:`stage_site`. Build each into its own ``out`` to publish both.

    Returns
    -------
    Path
        The ``html`` folder.

    Raises
    ------
    PrivlibError
        If Jupyter Book is missing (``pip install 'privlib[course]'``) or the build fails.

    Examples
    --------
    >>> build_site(".", "build/course-site")  # doctest: +SKIP
    PosixPath('build/course-site/_build/html')
    """
    out = Path(out)
    staging = stage_site(root, out / "src", slides=slides, lessons=lessons, edition=edition)
    in_venv = Path(sys.executable).parent / "jupyter-book"
    program = str(in_venv) if in_venv.exists() else (shutil.which("jupyter-book") or "jupyter-book")
    command = [program, "build", str(staging), "--path-output", str(out), "--builder", "html"]
    if strict:
        command.append("-W")
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except FileNotFoundError as error:
        raise PrivlibError("Jupyter Book is not installed: pip install 'privlib[course]'") from error
    if done.returncode != 0:
        raise PrivlibError(f"the site did not build:\n{(done.stdout + done.stderr)[-2000:]}")
    return out / "_build" / "html"
