"""Lecture slides from the teaching notebooks: reveal.js HTML that opens without a network.

A lesson is one notebook; its slides come from the same cells, cut by the standard Jupyter
``slideshow.slide_type`` cell metadata (``slide``, ``subslide``, ``fragment``, ``-``, ``skip``,
``notes``). :func:`slide_types` gives the course's defaults (a slide per ``#``/``##`` heading, a
sub-slide per ``###``, solutions and checks skipped) and :func:`render_slides` writes the HTML.

Offline. nbconvert's reveal template loads reveal.js, RequireJS, jQuery and MathJax from CDNs. Here
each is pointed at a local copy in an ``assets/`` folder beside the HTML:

* reveal.js, RequireJS and jQuery are unpacked from their npm packages (``npm pack``) by
  :func:`fetch_assets` at build time, once per folder; nothing is committed to the repository;
* MathJax 2 comes from the PyPI package ``jupyter-server-mathjax`` (the ``course`` extra);
* nbconvert's mermaid import is replaced by a two-line module of our own, since no lesson uses
  mermaid diagrams.

Cell tags honoured (the same as the handouts and the course site): ``remove-cell``,
``parameters``, ``injected-parameters`` and ``claims`` remove a cell; ``hide-input`` and
``remove-input`` show only a code cell's output. Lines ``# NBVAL_CHECK_OUTPUT`` are dropped.

Slides that fit (issue 24). A notebook cell is often more than a slide holds, so the cells are
cut into pieces and packed onto slides by an estimate of their height (:func:`fit_to_slides`):
paragraphs and list items stay whole but move to a new sub-slide when the current one is full,
long lists are split between items, and every figure or table gets room of its own. Printed
readings become paragraphs of prose instead of a monospace block; printed tables stay monospace.
The style sheet (:data:`SLIDE_CSS`) scales figures down to the slide, and lets a table or a code
block that is still too large scroll inside its own box rather than run off the slide.

References
----------
reveal.js, https://revealjs.com (MIT licence); nbconvert's ``SlidesExporter``,
https://nbconvert.readthedocs.io.
"""

from __future__ import annotations

import html
import math
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import nbformat

from privlib.errors import PrivlibError
from privlib.render.notebook import (
    HIDE_INPUT_TAGS,
    REMOVE_CELL_TAGS,
    is_solution,
    student_edition,
    without_answers,
    without_nbval_markers,
)

__all__ = ["ASSET_PACKAGES", "SLIDE_CSS", "fetch_assets", "fit_to_slides", "render_slides", "slide_types"]

#: npm packages unpacked into ``assets/`` (version pinned to the one nbconvert's template targets)
ASSET_PACKAGES = {"reveal.js": "4.0.2", "requirejs": "2.3.6", "jquery": "2.2.4"}
_MERMAID_STUB = "export default { initialize() {} };\n"
# what each package contributes: (path inside the package, path inside assets/)
_PICKS = {
    "reveal.js": [
        ("dist", "reveal.js/dist"),
        ("plugin", "reveal.js/plugin"),
        ("LICENSE", "reveal.js/LICENSE"),
    ],
    "requirejs": [("require.js", "require.js")],
    "jquery": [("dist/jquery.min.js", "jquery.min.js"), ("LICENSE.txt", "jquery.LICENSE.txt")],
}


def slide_types(notebook) -> list[str]:
    """Default ``slideshow.slide_type`` of every cell of a lesson.

    A markdown cell opening with ``#`` or ``##`` starts a slide, one opening with ``###`` a
    sub-slide; solutions (:func:`privlib.render.notebook.is_solution`), cells tagged to be removed
    and the parameters are skipped;
    everything else continues the current slide (``-``).

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The lesson.

    Returns
    -------
    list of str
        One slide type per cell.

    Examples
    --------
    >>> import nbformat
    >>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Title"),
    ...     nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("# Solution 1")])
    >>> slide_types(nb)
    ['slide', '-', 'skip']
    """
    types = []
    for cell in notebook.cells:
        source = cell.source.lstrip()
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & set(REMOVE_CELL_TAGS):
            types.append("skip")
        elif cell.cell_type == "markdown" and re.match(r"#{1,2} ", source):
            types.append("slide")
        elif cell.cell_type == "markdown" and source.startswith("### "):
            types.append("subslide")
        elif is_solution(cell):
            types.append("skip")
        else:
            types.append("-")
    return types


def fetch_assets(directory, *, npm="npm") -> Path:
    """Unpack reveal.js, RequireJS, jQuery and MathJax into ``directory`` (once).

    Parameters
    ----------
    directory : str or Path
        The ``assets`` folder that the slides refer to; created if needed. Packages already
        there are not fetched again.
    npm : str, default "npm"
        The npm client used to download the packages (``npm pack``).

    Returns
    -------
    Path
        ``directory``.

    Raises
    ------
    PrivlibError
        When npm is missing or fails, or ``jupyter-server-mathjax`` is not installed (install the
        ``course`` extra).

    Examples
    --------
    >>> fetch_assets("build/slides-assets")  # doctest: +SKIP
    PosixPath('build/slides-assets')
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    missing = [name for name, picks in _PICKS.items() if not (directory / picks[0][1]).exists()]
    if missing:
        if shutil.which(npm) is None:
            raise PrivlibError(f"`npm` ({npm!r}) is not on the PATH; it is needed once to fetch {missing}.")
        with tempfile.TemporaryDirectory() as scratch:
            specs = [f"{name}@{ASSET_PACKAGES[name]}" for name in missing]
            done = subprocess.run([npm, "pack", *specs], cwd=scratch, capture_output=True, text=True)
            if done.returncode != 0:
                raise PrivlibError(f"`npm pack {' '.join(specs)}` failed: {done.stderr.strip()[-500:]}")
            for name in missing:
                archive = next(Path(scratch).glob(f"{name}-{ASSET_PACKAGES[name]}.tgz"))
                unpacked = Path(scratch) / name
                with tarfile.open(archive) as tar:
                    tar.extractall(unpacked, filter="data")
                for inside, outside in _PICKS[name]:
                    source, target = unpacked / "package" / inside, directory / outside
                    target.parent.mkdir(parents=True, exist_ok=True)
                    (shutil.copytree if source.is_dir() else shutil.copyfile)(source, target)
    mathjax = directory / "mathjax"
    if not mathjax.exists():
        try:
            import jupyter_server_mathjax
        except ImportError as error:
            raise PrivlibError(
                "offline slides need MathJax from the `jupyter-server-mathjax` package: "
                "pip install 'privlib[course]'"
            ) from error
        shutil.copytree(Path(jupyter_server_mathjax.__file__).parent / "static", mathjax)
    (directory / "mermaid-stub.mjs").write_text(_MERMAID_STUB)
    return directory


def _prepared(notebook):
    """The student's edition (slides never show answers) without the removed cells and without
    nbval markers."""
    kept = []
    for cell in student_edition(notebook).cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & set(REMOVE_CELL_TAGS):
            continue
        cell = nbformat.from_dict(cell)
        if cell.cell_type == "code":
            cell.source = without_nbval_markers(cell.source)
        kept.append(cell)
    copy = nbformat.from_dict(notebook)
    copy.cells = kept
    return copy


#: What a slide holds, in lines of body text (a 960 x 700 reveal.js slide, its heading included).
SLIDE_LINES = 14.0
#: The room a figure, a table or a code block takes (the style sheet caps their height to fit).
BLOCK_LINES = 10.0
_PROSE_CHARACTERS, _READING_CHARACTERS = 72, 85  # characters per line of body text, of a reading

#: Style added to every deck: figures scale down, tables and code scroll inside their own box.
SLIDE_CSS = """
.reveal .slides section { text-align: left; }
.reveal .jp-RenderedImage img, .reveal .jp-OutputArea-output img {
  max-height: 430px; max-width: 100%; width: auto; height: auto; }
.reveal .jp-OutputArea-output.jp-RenderedHTMLCommon { max-width: 100%; max-height: 450px; overflow: auto; }
.reveal .jp-OutputArea-output.jp-RenderedHTMLCommon table { font-size: 0.6em; margin: 0; }
.reveal .jp-RenderedText pre, .reveal .jp-InputArea pre {
  font-size: 0.45em; line-height: 1.3; max-height: 420px; overflow: auto; }
.reveal .jp-InputArea pre { white-space: pre-wrap; }
.reveal .jp-RenderedHTMLCommon .privlib-reading { max-height: none; overflow: visible; }
.reveal .privlib-reading p { font-size: 0.85em; line-height: 1.35; margin: 0 0 0.45em 0; }
"""

_ITEM = re.compile(r"^(?:>\s*)?(?:[-*+]|\d+[.)])\s|^>\s*\*\*")


def _markdown_blocks(source: str) -> list[tuple[str, bool]]:
    """``(text, joined)`` blocks of a markdown cell: paragraphs, and list items one by one.

    ``joined`` marks an item that continues the list (or quote) of the block before it, so that
    it is written on the next line rather than after a blank one. Collapsed ``<details>``
    blocks (solutions) are left out, as the slides skip solutions.
    """
    source = without_answers(source)
    blocks = []
    for paragraph in re.split(r"\n\s*\n", source.strip()):
        lines = paragraph.split("\n")
        if not _ITEM.match(lines[0]):
            blocks.append((paragraph, False))
            continue
        items = [[lines[0]]]
        for line in lines[1:]:
            if _ITEM.match(line) and not line.startswith((" ", "\t")):
                items.append([line])
            else:
                items[-1].append(line)
        blocks += [("\n".join(item), index > 0) for index, item in enumerate(items)]
    return blocks


def _text_lines(text: str, width: int) -> float:
    """Lines a piece of markdown takes at ``width`` characters a line (formulas counted apart)."""
    displayed = len(re.findall(r"\$\$.*?\$\$", text, flags=re.DOTALL))
    text = re.sub(r"\$\$.*?\$\$", "", text, flags=re.DOTALL)
    plain = re.sub(r"[*_`#>]|\]\([^)]*\)|\\\w+|[{}$]", "", text)
    hashes = re.match(r"#*", text.lstrip())
    assert hashes is not None  # "#*" matches at the start of every text, if only the empty string
    level = len(hashes.group())
    if level:  # a heading: larger type, fewer characters a line (reveal.js's h1, h2, h3)
        height, characters = {1: (2.4, 30), 2: (1.8, 40)}.get(level, (1.4, 50))
        return height * max(1, math.ceil(len(plain.strip()) / characters))
    return max(1, math.ceil(len(plain.strip()) / width)) + 2.2 * displayed


def _markdown_pieces(cell) -> list[tuple[nbformat.NotebookNode, float]]:
    """Paragraphs one by one, and each list (or quote) cut into runs of items that fit a slide."""
    runs: list[tuple[list[str], float]] = []
    for text, joined in _markdown_blocks(cell.source):
        cost = _text_lines(text, _PROSE_CHARACTERS) + (0.2 if joined else 0.6)
        if joined and runs and runs[-1][1] + cost <= SLIDE_LINES - 2:
            runs[-1] = (runs[-1][0] + [text], runs[-1][1] + cost)
        else:
            runs.append(([text], cost))
    return [(_markdown_cell(cell, texts), cost) for texts, cost in runs]


def _markdown_cell(cell, texts: list[str]):
    metadata = {k: v for k, v in cell.metadata.items() if k != "slideshow"}
    return nbformat.v4.new_markdown_cell("\n".join(texts), metadata=metadata)


def _tabular(text: str) -> bool:
    """Printed output laid out in columns (a printed table), which must stay monospace."""
    lines = [line for line in text.splitlines() if line.strip()]
    return sum(bool(re.search(r"\S {2,}\S", line)) or line.startswith("  ") for line in lines) >= 2


def _reading(lines: list[str]):
    """Printed sentences as paragraphs of an HTML output (escaped)."""
    paragraphs = "".join(f"<p>{html.escape(line)}</p>" for line in lines)
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/html": f'<div class="privlib-reading">{paragraphs}</div>',
            "text/plain": "\n".join(lines),
        },
    )


def _output_groups(outputs) -> list[tuple[list, float]]:
    """The outputs of a code cell in groups that each fit on a slide."""
    reading: list[str]  # printed lines waiting to become one reading output
    groups, reading, used = [], [], 0.0
    for output in outputs:
        if output.get("output_type") == "stream" and output.get("name") == "stderr":
            continue  # warnings and progress bars belong to the log, not to a lecture
        text = output.get("text", "") if output.get("output_type") == "stream" else None
        if text is not None and not _tabular(text):
            for line in (line for line in text.splitlines() if line.strip()):
                cost = 0.9 * max(1, math.ceil(len(line) / _READING_CHARACTERS)) + 0.35
                if reading and used + cost > SLIDE_LINES - 2:
                    groups.append(([_reading(reading)], used))
                    reading, used = [], 0.0
                reading.append(line)
                used += cost
            continue
        if reading:
            groups.append(([_reading(reading)], used))
            reading, used = [], 0.0
        groups.append(([output], _block_lines(output)))
    if reading:
        groups.append(([_reading(reading)], used))
    return groups


def _block_lines(output) -> float:
    """Room an output takes: a table by its rows (it scrolls beyond its box), else a full block."""
    table = output.get("data", {}).get("text/html", "") if "image/png" not in output.get("data", {}) else ""
    rows = table.count("<tr")
    return min(BLOCK_LINES, 0.75 * rows + 1.0) if rows else BLOCK_LINES


def _code_pieces(cell) -> list[tuple[nbformat.NotebookNode, float]]:
    hidden = bool(set(cell.metadata.get("tags", [])) & set(HIDE_INPUT_TAGS))
    pieces = []
    if not hidden:
        shown = nbformat.v4.new_code_cell(cell.source, metadata=dict(cell.metadata))
        lines = cell.source.count("\n") + 1
        pieces.append((shown, min(BLOCK_LINES, 0.6 * lines + 0.6)))
    for outputs, cost in _output_groups(cell.get("outputs", [])):
        piece = nbformat.v4.new_code_cell("", metadata={"tags": ["hide-input"]})
        piece.outputs = outputs
        pieces.append((piece, cost))
    if not pieces:
        return [(cell, 0.0)]
    if hidden:  # the cell's own metadata (its tags) goes with its first output
        pieces[0][0].metadata = dict(cell.metadata)
    return pieces


def fit_to_slides(notebook) -> nbformat.NotebookNode:
    """Cut the cells of a lesson into pieces and pack them onto slides that they fit.

    Every cell must already carry its ``slideshow.slide_type``. A piece that would overflow the
    current slide (:data:`SLIDE_LINES`, estimated from its text or :data:`BLOCK_LINES` for a
    figure, table or code block) starts a sub-slide. Skipped cells and notes are kept as they are.

    Parameters
    ----------
    notebook : nbformat.NotebookNode
        The lesson, with slide types.

    Returns
    -------
    nbformat.NotebookNode
        A copy whose cells are the pieces, each with its slide type.

    Examples
    --------
    >>> import nbformat
    >>> items = "\\n".join(f"- item {i} " + "word " * 40 for i in range(8))
    >>> cell = nbformat.v4.new_markdown_cell("## A long list\\n\\n" + items)
    >>> cell.metadata["slideshow"] = {"slide_type": "slide"}
    >>> fitted = fit_to_slides(nbformat.v4.new_notebook(cells=[cell]))
    >>> [c.metadata["slideshow"]["slide_type"] for c in fitted.cells]
    ['slide', '-', 'subslide', 'subslide']
    """
    copy = nbformat.from_dict(notebook)
    cells, used = [], 0.0
    for cell in notebook.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type", "-")
        if kind in ("skip", "notes"):
            cells.append(cell)
            continue
        pieces = (
            _markdown_pieces(cell)
            if cell.cell_type == "markdown"
            else (_code_pieces(cell) if cell.cell_type == "code" else [(cell, 1.0)])
        )
        for index, (piece, cost) in enumerate(pieces):
            own = kind if index == 0 else "-"
            if own in ("slide", "subslide"):
                used = 0.0
            elif used > 0 and used + cost > SLIDE_LINES:
                own, used = "subslide", 0.0
            piece.metadata["slideshow"] = {"slide_type": own}
            used += cost
            cells.append(piece)
    copy.cells = cells
    return copy


def render_slides(notebook, target, *, assets=None, fetch=True) -> Path:
    """Write the reveal.js slides of one lesson, working without network access.

    Cells without ``slideshow`` metadata get the defaults of :func:`slide_types`. The HTML
    refers to the assets by a relative path, so the folder can be copied or zipped whole.

    Parameters
    ----------
    notebook : str, Path or nbformat.NotebookNode
        The lesson (executed, so that the slides show its outputs).
    target : str or Path
        The HTML file to write (its folder is created).
    assets : str or Path, optional
        The assets folder; default ``assets`` beside ``target``.
    fetch : bool, default True
        Fetch missing assets with :func:`fetch_assets`; with False they must be there already.

    Returns
    -------
    Path
        ``target``.

    Raises
    ------
    PrivlibError
        If the notebook cannot be read or the assets are missing and cannot be fetched.

    Examples
    --------
    >>> render_slides("notebooks/00_introduction.ipynb", "build/slides/00.html")  # doctest: +SKIP
    PosixPath('build/slides/00.html')
    """
    from nbconvert.exporters import SlidesExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    if not isinstance(notebook, nbformat.NotebookNode):
        try:
            notebook = nbformat.read(str(notebook), as_version=4)
        except (OSError, ValueError) as error:
            raise PrivlibError(f"`notebook` could not be read as a notebook: {error}") from error
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    assets = Path(assets) if assets is not None else target.parent / "assets"
    if fetch:
        fetch_assets(assets)
    elif not (assets / "reveal.js" / "dist" / "reveal.js").exists():
        raise PrivlibError(
            f"`assets` ({assets}) holds no reveal.js; call fetch_assets first or pass fetch=True."
        )
    notebook = _prepared(notebook)
    for cell, default in zip(notebook.cells, slide_types(notebook)):
        cell.metadata.setdefault("slideshow", {}).setdefault("slide_type", default)
    notebook = fit_to_slides(notebook)
    relative = Path(os.path.relpath(assets.resolve(), target.parent.resolve())).as_posix()
    exporter = SlidesExporter(
        reveal_url_prefix=f"{relative}/reveal.js",
        reveal_scroll=False,  # slides fit (fit_to_slides); large blocks scroll in their own box
        require_js_url=f"{relative}/require.js",
        jquery_url=f"{relative}/jquery.min.js",
        mathjax_url=f"{relative}/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe",
        mermaid_js_url=f"./{relative}/mermaid-stub.mjs",
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    hide = TagRemovePreprocessor(remove_input_tags=set(HIDE_INPUT_TAGS), enabled=True)
    exporter.register_preprocessor(hide, enabled=True)
    body, _ = exporter.from_notebook_node(notebook)
    body = body.replace("</head>", f"<style>{SLIDE_CSS}</style>\n</head>", 1)
    target.write_text(body, encoding="utf-8")
    return target
