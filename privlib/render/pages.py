"""The kit's pages and HTML fragments, from jinja2 templates with autoescape.

Every string that reaches a template is escaped unless the template itself marks it safe, and
no template marks a user-supplied value safe: a column named ``<script>`` shows as that text.
"""

from __future__ import annotations

import functools
import re
from importlib import resources

import jinja2
from markupsafe import Markup

__all__ = ["render_page", "stylesheet", "scoped_stylesheet"]


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("privlib.render", "templates"),
        autoescape=True,  # every template, whatever its file name
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


@functools.lru_cache(maxsize=1)
def stylesheet() -> str:
    """The kit's screen and print stylesheet (inlined into every page and every report)."""
    return resources.files("privlib.render").joinpath("templates", "report.css").read_text("utf-8")


#: Selectors of the whole page, which stand for the scope itself in a scoped stylesheet.
_PAGE_SELECTORS = {"html", "body", ":root"}


def _rules(css: str):
    """``(prelude, body)`` of each top-level rule of ``css`` (comments removed)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    position = 0
    while (opening := css.find("{", position)) >= 0:
        depth, end = 1, opening + 1
        while depth:
            depth += {"{": 1, "}": -1}.get(css[end], 0)
            end += 1
        yield css[position:opening].strip(), css[opening + 1 : end - 1]
        position = end


@functools.lru_cache(maxsize=4)
def scoped_stylesheet(scope: str) -> Markup:
    """The kit's stylesheet for a fragment inside the element ``scope`` (a class selector) on a
    page whose styles are someone else's (JupyterLab): every selector is prefixed with ``scope``,
    so a rule applies inside the fragment only and outranks the page's own rules of the same form;
    the whole-page selectors (``html``, ``body``, ``:root``) become ``scope`` itself. The page
    layout (``main``) and the print rules (``@page``, ``@media``) are left out. It is the kit's
    own file rewritten with the kit's own ``scope``, never a user's value, so it is
    :class:`~markupsafe.Markup` by construction and a template inserts it as it is."""
    rules = []
    for prelude, body in _rules(stylesheet()):
        if prelude.startswith("@") or prelude == "main":
            continue
        selectors = []
        for selector in (part.strip() for part in prelude.split(",")):
            if selector in _PAGE_SELECTORS or selector.startswith(scope):
                selectors.append(scope if selector in _PAGE_SELECTORS else selector)
            else:
                selectors.append(f"{scope} {selector}")
        rules.append(f"{', '.join(dict.fromkeys(selectors))} {{{body}}}")
    return Markup("\n".join(rules))


def render_page(template: str, **context) -> Markup:
    """Render ``templates/<template>`` with ``context``, every value escaped; the result is
    :class:`~markupsafe.Markup`, so a page built from fragments inserts them as they are and
    escapes any plain string passed beside them."""
    return Markup(_environment().get_template(template).render(**context))
