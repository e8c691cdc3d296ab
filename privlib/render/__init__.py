"""Rendering: executed notebooks to self-contained HTML and PDF, and the kit's own pages.

* :mod:`privlib.render.math` typesets LaTeX formulas as SVG images (offline, no JavaScript);
* :mod:`privlib.render.pages` renders every page and fragment the kit writes from jinja2
  templates with autoescape, so a user-supplied string (a column name, a category, a title, a
  file name) is always text, never markup;
* :mod:`privlib.render.audit_pages` renders an audit's report model as its pages: the decision,
  the forest figure, the verdict lines, the fidelity card, the readings, the comparison of
  several files and the appendix, every figure with alt text, every number by the one rule of
  :mod:`privlib.formatting`;
* :mod:`privlib.render.why` writes page 1's "why, and what to do" from the columns behind each
  finding (:mod:`privlib.audit.explain`) and names the two kinds of copy apart;
* :mod:`privlib.render.notebook` turns an executed notebook into one HTML file (nbconvert), with
  an optional table of contents and compact print layout;
* :mod:`privlib.render.pdf` prints that HTML to PDF with WeasyPrint, through a URL fetcher that
  serves only the images the kit embedded and refuses files, the network and everything else.
"""

from privlib.render.notebook import render_html
from privlib.render.pages import render_page
from privlib.render.pdf import render_pdf

__all__ = ["render_html", "render_pdf", "render_page"]
