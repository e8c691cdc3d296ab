"""The kit's pages and HTML fragments, from jinja2 templates with autoescape.

Every string that reaches a template is escaped unless the template itself marks it safe, and
no template marks a user-supplied value safe: a column named ``<script>`` shows as that text.
"""

from __future__ import annotations

import functools
from importlib import resources

import jinja2
from markupsafe import Markup

__all__ = ["render_page", "stylesheet"]


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


def render_page(template: str, **context) -> Markup:
    """Render ``templates/<template>`` with ``context``, every value escaped; the result is
    :class:`~markupsafe.Markup`, so a page built from fragments inserts them as they are and
    escapes any plain string passed beside them."""
    return Markup(_environment().get_template(template).render(**context))
