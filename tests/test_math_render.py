"""privlib.render.math: LaTeX in markdown typeset as SVG images for the course pages."""

from __future__ import annotations

import base64
import re

import nbformat

from privlib.render import render_html
from privlib.render.math import math_html, math_svg, mathtext_source, typeset_math

MARKDOWN = r"""The share $a_i = \frac{n_*}{N}$ of *members*, with $M \le 0.2$:

$$\mathrm{pMSE} = \tfrac12 \sum_{i=1}^{N} (\hat p_i - c)^2 .$$

It costs $5 and $10 (or \$3); `code $x$` stays code."""


def _images(page: str) -> list[str]:
    return re.findall(r'<img [^>]*class="privlib-math"[^>]*>', page)


def test_inline_and_display_math_become_svg_images_and_dollar_amounts_stay_text():
    out = typeset_math(MARKDOWN)
    assert len(re.findall(r"<img ", out)) == 3
    assert out.count('<span class="privlib-math-display"><img') == 1  # the $$...$$ formula
    assert "costs $5 and $10 (or \\$3)" in out  # dollar amounts and an escaped dollar
    assert "`code $x$`" in out  # code spans are left alone
    text = re.sub(r"<[^>]*>", "", out)
    assert "$" not in text.replace("$5 and $10", "").replace("\\$3", "").replace("`code $x$`", "")
    svg = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", out).group(1)).decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "<path" in svg


def test_dollar_amount_rule():
    assert typeset_math("between $5-$10 a day") == "between $5-$10 a day"  # closing $ before a digit
    assert typeset_math("$ 5 and $") == "$ 5 and $"  # opening $ before a space
    assert "<img" in typeset_math("with $U = 1 - $ the distance")  # still math


def test_an_unparseable_formula_falls_back_to_its_source_in_code():
    out = typeset_math(r"so $x = \begin{cases} 1 & y \end{cases}$ here and $\frac{1}{$")
    assert out.startswith('so <code class="privlib-math-source privlib-math-inline">x = ')
    assert "&#92;begin&#123;cases&#125;" in out and "<img" not in out
    assert math_svg(r"\nosuchcommand{x}") is None
    assert math_html(r"\nosuchcommand", display=True).startswith(
        '<code class="privlib-math-source privlib-math-display">'
    )


def test_unsupported_commands_get_mathtext_equivalents():
    assert mathtext_source(r"\tfrac12 \le \big( x \Big]") == r"\frac{1}{2} \leq ( x ]"
    assert mathtext_source(r"\frac{a}{b}", display=True) == r"\dfrac{a}{b}"
    assert mathtext_source("a +\n  b") == "a + b"
    assert math_svg(r"\text{loss} = -\max\Big(\tfrac{1}{2}, M \le 0.2\Big)") is not None


def test_images_are_sized_in_em_with_the_baseline_aligned():
    svg, width, height, depth = math_svg("x_i^2")
    assert 0 < depth < height < 2 and width > 0
    assert math_svg("x_i^2") == (svg, width, height, depth)  # reproducible (and cached)
    image = math_html("x_i^2")
    assert f"vertical-align:{-depth:.3f}em" in image and f"height:{height:.3f}em" in image


def test_course_pages_show_formulas_without_mathjax_or_the_network(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Lesson\n\n" + MARKDOWN)])
    nbformat.write(nb, tmp_path / "lesson.ipynb")
    page = render_html(tmp_path / "lesson.ipynb", tmp_path / "lesson.html", math=True).read_text()
    body = page[page.index("<body") :]
    assert len(_images(body)) == 3
    assert "<em>members</em>" in body  # markdown around the formulas still rendered
    # the TeX in the alt text survived the markdown parser unchanged (no <em>, no lost backslash)
    assert 'alt="a_i = \\frac{n_*}{N}"' in body
    assert "privlib-math-display" in body and "costs $5 and $10" in body
    assert "mathjax" not in page.lower()
    assert not re.search(r"<script[^>]*\bsrc=|<link[^>]*\bhref=\"?https?:", page)
    plain = render_html(tmp_path / "lesson.ipynb", tmp_path / "plain.html").read_text()
    assert 'privlib-math"' not in plain and r"\frac{n_*}{N}" in plain  # the audit path is unchanged
