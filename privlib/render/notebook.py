"""An executed notebook as one self-contained HTML file (nbconvert, the kit's template and CSS)."""

from __future__ import annotations

import re
from pathlib import Path

from privlib.errors import PrivlibError
from privlib.render.math import typeset_math
from privlib.render.pages import render_page, stylesheet

__all__ = [
    "render_html",
    "add_toc",
    "REMOVE_CELL_TAGS",
    "HIDE_INPUT_TAGS",
    "HIDE_OUTPUT_TAGS",
    "notebook_title",
    "without_nbval_markers",
    "EDITIONS",
    "check_edition",
    "is_solution",
    "without_answers",
    "student_edition",
]

# Cell tags every rendering honours (handouts, reports, slides, the course site; see
# notebooks/CONVENTIONS.md).
#: The whole cell is left out.
REMOVE_CELL_TAGS = ("remove-cell", "parameters", "injected-parameters", "claims")
#: A code cell shows its output only.
HIDE_INPUT_TAGS = ("hide-input", "remove-input")
#: A code cell shows its source only (progress lines of the audit).
HIDE_OUTPUT_TAGS = ("hide-output",)

#: The editions of a handout or site: the lecturer's keeps the solutions (their code folded), the
#: student's leaves every solution out, its input and its output.
EDITIONS = ("lecturer", "student")

_NBVAL_LINE = re.compile(r"^\s*# NBVAL_[A-Z_]+\s*(\n|$)", re.M)


def without_nbval_markers(source: str) -> str:
    """``source`` without nbval's ``# NBVAL_...`` marker lines."""
    return _NBVAL_LINE.sub("", source)


_DETAILS = re.compile(r"<details\b[^>]*>.*?</details>\s*", re.DOTALL)


def without_answers(markdown: str) -> str:
    """``markdown`` without its collapsed ``<details>`` blocks (where the lessons fold answers)."""
    return _DETAILS.sub("", markdown)


def is_solution(cell) -> bool:
    """Whether a cell is an exercise's solution (notebooks/CONVENTIONS.md, item 7).

    A code cell is one when its source opens with ``# Solution``; a markdown cell when, its
    ``<details>`` blocks taken out, nothing is left or what is left opens with ``**Solution``.
    A markdown cell that holds other text beside a folded answer (an exercise prompt with its
    solutions below it) is not: :func:`student_edition` keeps its text and drops the fold.
    """
    source = cell.get("source", "")
    if cell.get("cell_type") == "code":
        return source.lstrip().startswith("# Solution")
    if cell.get("cell_type") == "markdown":
        rest = without_answers(source).lstrip()
        return not rest or rest.startswith("**Solution")
    return False


def student_edition(notebook):
    """A copy of ``notebook`` without answers: every solution cell left out (input and output)
    and every ``<details>`` block taken out of the markdown that remains (the exercise prompts
    stay). The lecturer's edition is the notebook itself."""
    import nbformat

    copy = nbformat.from_dict(notebook)
    copy.cells = [nbformat.from_dict(cell) for cell in notebook.cells if not is_solution(cell)]
    for cell in copy.cells:
        if cell.cell_type == "markdown":
            cell.source = without_answers(cell.source)
    return copy


def check_edition(edition) -> None:
    """Refuse an ``edition`` that is not one of :data:`EDITIONS`, in one line."""
    if edition not in EDITIONS:
        raise PrivlibError(f"`edition` must be one of {list(EDITIONS)}, got {str(edition)[:40]!r}.")


def add_toc(page: str) -> str:
    """``page`` (a whole HTML page) with a table of contents at the top of its body: one link per
    ``<h2>``, in order, to the heading's ``id`` (one is made from its position when it has none).

    The entries are the headings' text, rendered by the kit's ``toc.html.j2`` with autoescape.
    """
    return _with_layout(page, toc=True, compact=False)


def _with_layout(page: str, *, toc: bool, compact: bool) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    if soup.body is None:
        return page
    if compact:
        classes = soup.body.get_attribute_list("class")
        soup.body["class"] = " ".join([c for c in classes if c] + ["privlib-compact"])
    entries = []
    for number, heading in enumerate(soup.find_all("h2") if toc else [], start=1):
        for anchor in heading.select("a.anchor-link"):  # nbconvert's pilcrow links
            anchor.decompose()
        if not heading.get("id"):
            heading["id"] = f"section-{number}"
        entries.append((heading["id"], heading.get_text(" ", strip=True)))
    if entries:
        nav = BeautifulSoup(render_page("toc.html.j2", entries=entries), features="html.parser")
        soup.body.insert(0, nav)
    return str(soup)


def notebook_title(path) -> str | None:
    """The first level-1 heading of a notebook's markdown, if any (a lesson's title)."""
    import nbformat

    for cell in nbformat.read(str(path), as_version=4).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return None


def render_html(
    notebook,
    target,
    *,
    show_code: bool = False,
    math: bool = False,
    title: str | None = None,
    toc: bool = False,
    compact: bool = False,
    edition: str = "lecturer",
) -> Path:
    """Render an executed notebook to a self-contained HTML file.

    Figures are embedded as data URIs; no script or stylesheet is fetched from the network.
    With ``math=True`` the LaTeX formulas of markdown cells are typeset by
    :func:`~privlib.render.math.typeset_math` as embedded SVG images, so they show offline,
    without JavaScript and in the PDF (one that mathtext cannot read stays as its source, in
    ``<code>``). With ``toc=True`` a table of contents linking every section heading (``<h2>``)
    stays at the top of the screen (:func:`add_toc`; it is not printed); with ``compact=True``
    the page prints in denser type (the body gets the class ``privlib-compact``). A figure shown with
    alt text in its display metadata (``display(fig, metadata={"image/png": {"alt": ...}})``)
    keeps it as the image's ``alt``; the audit shows its figures as ``<figure>`` fragments with
    alt text and caption (:func:`privlib.render.audit_pages.figure_html`). Left out: the papermill
    parameters cells, cells tagged ``remove-cell``, the
    source of cells tagged ``hide-input``, the outputs of cells tagged ``hide-output`` (progress
    lines), every stderr stream (warnings, progress bars) and nbval's ``# NBVAL_`` markers; with
    ``show_code=False`` every code cell's source. With ``edition="student"`` the exercises'
    solutions are left out whole, input and output (:func:`student_edition`); the default
    ``"lecturer"`` keeps them.

    The HTML outputs are the kit's own escaped fragments (:mod:`privlib.render.pages`), so a
    user-supplied name is text there; nbconvert's ``sanitize_html`` is not used because it
    escapes the kit's own markup (headings, tables) along with anything else.
    """
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    check_edition(edition)
    nb = nbformat.read(str(notebook), as_version=4)
    if edition == "student":
        nb = student_edition(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
            cell.source = without_nbval_markers(cell.source)
        elif cell.cell_type == "markdown" and math:
            cell.source = typeset_math(cell.source)
    if title:
        nb.metadata["title"] = title
    exporter = HTMLExporter(
        template_name="lab",
        template_file=str(Path(__file__).parent / "templates" / "notebook.html.j2"),
        exclude_input=not show_code,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    hidden = TagRemovePreprocessor(
        remove_cell_tags=set(REMOVE_CELL_TAGS),
        remove_input_tags=set(HIDE_INPUT_TAGS),
        remove_all_outputs_tags=set(HIDE_OUTPUT_TAGS),
    )
    exporter.register_preprocessor(hidden, enabled=True)
    body, _ = exporter.from_notebook_node(nb, resources={"privlib_css": stylesheet()})
    if toc or compact:
        body = _with_layout(body, toc=toc, compact=compact)
    target = Path(target)
    target.write_text(body, encoding="utf-8")
    return target
