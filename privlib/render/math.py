"""Formulas: the course's LaTeX math typeset as SVG images, offline and without JavaScript.

Math in a markdown cell is ``$$...$$`` (display) or ``$...$`` (inline, within a paragraph).
Dollar amounts stay text by a rule close to Pandoc's: an inline span opens with a ``$``
followed by a non-space and closes with a ``$`` not followed by a digit, and ``\\$`` is a
literal dollar; so "costs $5 and $10" and "$5-$10" are text, "$U = 1 - $" is math. Code
spans and fenced code blocks are left alone.
"""

from __future__ import annotations

import functools
import html
import re

__all__ = ["mathtext_source", "math_svg", "math_html", "typeset_math"]

_CODE = re.compile(r"(^```.*?^```[ \t]*$|^~~~.*?^~~~[ \t]*$|`+[^`]*?`+)", re.S | re.M)
_MATH = re.compile(
    r"(?<!\\)\$\$(?P<display>.+?)\$\$"
    r"|(?<![\\$])\$(?=[^\s$])(?P<inline>(?:[^$\\\n]|\\.|\n(?![ \t]*\n))+?)\$(?![\d$])",
    re.S,
)
# TeX commands mathtext lacks, each with a supported equivalent (``\big(`` -> ``(``, ...).
_TEX_SUBSTITUTES = [
    (re.compile(r"\\[bB]ig{1,2}[lmr]?(?![a-zA-Z])\s*"), ""),
    (re.compile(r"\\tfrac(?![a-zA-Z])"), r"\\frac"),
    (re.compile(r"\\(d?frac)\s*([0-9a-zA-Z])\s*([0-9a-zA-Z])"), r"\\\1{\2}{\3}"),
    (re.compile(r"\\le(?![a-zA-Z])"), r"\\leq"),
    (re.compile(r"\\ge(?![a-zA-Z])"), r"\\geq"),
    (re.compile(r"\\(?:textrm|textup)(?![a-zA-Z])"), r"\\text"),
    (re.compile(r"\\textbf(?![a-zA-Z])"), r"\\mathbf"),
    (re.compile(r"\\textit(?![a-zA-Z])"), r"\\mathit"),
    (re.compile(r"\\[lr]vert(?![a-zA-Z])"), "|"),
    (re.compile(r"\s+"), " "),  # mathtext reads one line
]
_MATH_SIZE = 12.0  # points at 72 dpi; the image is sized in em of the surrounding text


def mathtext_source(tex: str, *, display: bool = False) -> str:
    """LaTeX ``tex`` rewritten for matplotlib's mathtext: supported equivalents of common
    commands it lacks (``\\tfrac``, ``\\big(``, ``\\le``, ``\\frac12``, ...) and one line.
    In ``display`` math ``\\frac`` becomes ``\\dfrac`` (full-size, as TeX sets it)."""
    if display:
        tex = re.sub(r"\\frac(?![a-zA-Z])", r"\\dfrac", tex)
    for pattern, replacement in _TEX_SUBSTITUTES:
        tex = pattern.sub(replacement, tex)
    return tex.strip()


@functools.lru_cache(maxsize=1024)
def math_svg(tex: str, display: bool = False) -> tuple[str, float, float, float] | None:
    """Typeset ``tex`` (LaTeX, without dollars) with mathtext as an SVG document (``display``:
    see :func:`mathtext_source`).

    Returns ``(svg, width, height, depth)``, the sizes in em (height: the whole image's; depth:
    the part below the baseline), or ``None`` when mathtext cannot parse the formula. Glyphs
    are drawn as paths, so the SVG needs no font; it is reproducible (no date, fixed ids).
    """
    import io

    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    source = f"${mathtext_source(tex, display=display)}$"
    # DejaVu, the report's text font, so that formulas and text look alike.
    prop = FontProperties(family="DejaVu Sans", size=_MATH_SIZE, math_fontfamily="dejavusans")
    with matplotlib.rc_context({"svg.hashsalt": "privlib", "svg.fonttype": "path"}):
        try:
            # Measured at 4 x 72 dpi: mathtext rounds the box up to whole pixels.
            width, height, depth = (
                size / 4 for size in MathTextParser("path").parse(source, dpi=288, prop=prop)[:3]
            )
        except Exception:  # pyparsing's errors, and mathtext's ValueError for odd input
            return None
        if not (width > 0 and height > 0):
            return None
        fig = Figure(figsize=(width / 72, height / 72))
        fig.text(0, depth / height, source, fontproperties=prop)
        buffer = io.StringIO()
        try:
            fig.savefig(buffer, dpi=72, format="svg", transparent=True, metadata={"Date": None})
        except Exception:
            return None
    return buffer.getvalue(), width / _MATH_SIZE, height / _MATH_SIZE, depth / _MATH_SIZE


def _html_attribute(text: str) -> str:
    """``text`` escaped for an HTML attribute, markdown's special characters as entities too,
    so that the markdown parser leaves it (and the TeX in it) as it is."""
    text = html.escape(text, quote=True)
    for char in "\\_*$`~[]{}|<>":
        text = text.replace(char, f"&#{ord(char)};")
    return text


def math_html(tex: str, *, display: bool = False) -> str:
    """One formula as inline HTML that survives markdown: an ``<img>`` of the SVG from
    :func:`math_svg` (base64 data URI, baseline on the text's baseline), centred on its own
    line when ``display``; the LaTeX source in ``<code>`` if mathtext cannot parse it."""
    import base64

    rendered = math_svg(tex.strip(), display)
    kind = "display" if display else "inline"
    if rendered is None:
        source = _html_attribute(tex.strip())
        return f'<code class="privlib-math-source privlib-math-{kind}">{source}</code>'
    svg, width, height, depth = rendered
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    image = (
        f'<img class="privlib-math" alt="{_html_attribute(tex.strip())}" '
        f'style="width:{width:.3f}em !important;height:{height:.3f}em !important;'
        f'vertical-align:{-depth:.3f}em" src="data:image/svg+xml;base64,{data}">'
    )
    return f'<span class="privlib-math-display">{image}</span>' if display else image


def typeset_math(markdown: str) -> str:
    """Replace every formula of a markdown text by :func:`math_html` (see the rule above)."""

    def formulas(text: str) -> str:
        def one(match: re.Match) -> str:
            if match.group("display") is not None:
                return math_html(match.group("display"), display=True)
            return math_html(match.group("inline"))

        return _MATH.sub(one, text)

    parts = _CODE.split(markdown)
    return "".join(part if i % 2 else formulas(part) for i, part in enumerate(parts))
