"""An executed notebook as one self-contained HTML file (nbconvert, the kit's template and CSS)."""

from __future__ import annotations

from pathlib import Path

from privlib.render.math import typeset_math
from privlib.render.pages import stylesheet

__all__ = ["render_html", "HIDDEN_IN_HANDOUTS"]

#: Cell tags whose source or whole cell a rendered page leaves out (handouts and reports).
HIDDEN_IN_HANDOUTS = {"remove_cell": ("parameters", "injected-parameters", "remove-cell"),
                      "remove_input": ("hide-input",), "remove_all_outputs": ("hide-output",)}


def render_html(
    notebook,
    target,
    *,
    show_code: bool = False,
    math: bool = False,
    title: str | None = None,
) -> Path:
    """Render an executed notebook to a self-contained HTML file.

    Figures are embedded as data URIs; no script or stylesheet is fetched from the network.
    With ``math=True`` the LaTeX formulas of markdown cells are typeset by
    :func:`~privlib.render.math.typeset_math` as embedded SVG images, so they show offline,
    without JavaScript and in the PDF (one that mathtext cannot read stays as its source, in
    ``<code>``). Left out: the papermill parameters cells, cells tagged ``remove-cell``, the
    source of cells tagged ``hide-input``, the outputs of cells tagged ``hide-output`` (progress
    lines), every stderr stream (warnings, progress bars) and nbval's ``# NBVAL_`` markers; with
    ``show_code=False`` every code cell's source.

    The HTML outputs are the kit's own escaped fragments (:mod:`privlib.render.pages`), so a
    user-supplied name is text there; nbconvert's ``sanitize_html`` is not used because it
    escapes the kit's own markup (headings, tables) along with anything else.
    """
    import nbformat
    from nbconvert import HTMLExporter
    from nbconvert.preprocessors import TagRemovePreprocessor

    nb = nbformat.read(str(notebook), as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = [o for o in cell.outputs if o.get("name") != "stderr"]
            cell.source = "\n".join(
                line for line in cell.source.splitlines() if not line.lstrip().startswith("# NBVAL_")
            )
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
    hidden = {f"{what}_tags": set(tags) for what, tags in HIDDEN_IN_HANDOUTS.items()}
    exporter.register_preprocessor(TagRemovePreprocessor(**hidden), enabled=True)
    body, _ = exporter.from_notebook_node(nb, resources={"privlib_css": stylesheet()})
    target = Path(target)
    target.write_text(body, encoding="utf-8")
    return target
