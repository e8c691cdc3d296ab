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

References
----------
reveal.js, https://revealjs.com (MIT licence); nbconvert's ``SlidesExporter``,
https://nbconvert.readthedocs.io.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

import nbformat

from privlib.errors import PrivlibError
from privlib.render.notebook import HIDE_INPUT_TAGS, REMOVE_CELL_TAGS, without_nbval_markers

__all__ = ["ASSET_PACKAGES", "fetch_assets", "render_slides", "slide_types"]

#: npm packages unpacked into ``assets/`` (version pinned to the one nbconvert's template targets)
ASSET_PACKAGES = {"reveal.js": "4.0.2", "requirejs": "2.3.6", "jquery": "2.2.4"}
_MERMAID_STUB = "export default { initialize() {} };\n"
# what each package contributes: (path inside the package, path inside assets/)
_PICKS = {
    "reveal.js": [("dist", "reveal.js/dist"), ("plugin", "reveal.js/plugin"), ("LICENSE", "reveal.js/LICENSE")],
    "requirejs": [("require.js", "require.js")],
    "jquery": [("dist/jquery.min.js", "jquery.min.js"), ("LICENSE.txt", "jquery.LICENSE.txt")],
}


def slide_types(notebook) -> list[str]:
    """Default ``slideshow.slide_type`` of every cell of a lesson.

    A markdown cell opening with ``#`` or ``##`` starts a slide, one opening with ``###`` a
    sub-slide; solutions (a code cell opening with ``# Solution``, markdown opening with
    ``**Solution`` or ``<details>``), cells tagged to be removed and the parameters are skipped;
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
        elif source.startswith(("# Solution", "**Solution", "<details>")):
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
    """A copy without the removed cells and without nbval markers."""
    kept = []
    for cell in notebook.cells:
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
        raise PrivlibError(f"`assets` ({assets}) holds no reveal.js; call fetch_assets first or pass fetch=True.")
    notebook = _prepared(notebook)
    for cell, default in zip(notebook.cells, slide_types(notebook)):
        cell.metadata.setdefault("slideshow", {}).setdefault("slide_type", default)
    relative = Path(os.path.relpath(assets.resolve(), target.parent.resolve())).as_posix()
    exporter = SlidesExporter(
        reveal_url_prefix=f"{relative}/reveal.js",
        reveal_scroll=True,
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
    target.write_text(body, encoding="utf-8")
    return target
