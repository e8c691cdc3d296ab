"""Print an HTML report to PDF with WeasyPrint, fetching nothing the kit did not embed.

WeasyPrint follows every URL of the page it prints: images, stylesheets and ``<a
rel="attachment">`` links, whose targets it embeds into the PDF. A report shows user-supplied
strings (escaped, so they cannot add markup), but the printer is the last line of defence too: its
fetcher serves only the PNG figures and SVG formulas the kit embeds as base64 data URLs and
refuses ``file:``, the network and any other data.
"""

from __future__ import annotations

import base64
import logging
import re
import warnings
from pathlib import Path

__all__ = ["render_pdf", "EMBEDDED_IMAGE"]

#: The only URLs the PDF printer opens: images the kit embedded (figures and formulas).
EMBEDDED_IMAGE = re.compile(r"^data:(image/png|image/svg\+xml);base64,([A-Za-z0-9+/=\s]*)$")


def _fetcher():
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class KitAssetsOnly(URLFetcher):
        """Serves the kit's embedded images; every other URL is refused (and left out)."""

        def fetch(self, url, headers=None):
            match = EMBEDDED_IMAGE.match(url)
            if match is None:
                raise ValueError("privlib prints only the images it embedded; this URL was refused")
            body = base64.b64decode(match.group(2))
            return URLFetcherResponse(url, body, {"Content-Type": match.group(1)})

    return KitAssetsOnly()


def render_pdf(html_file, target) -> Path:
    """Print ``html_file`` (from :func:`privlib.render.render_html`) to the PDF ``target``.

    The page is read as a string with no base URL, so relative links resolve to nothing; the
    print stylesheet of the kit applies.
    """
    # WeasyPrint reports every CSS property it does not support and every refused URL; the
    # stylesheet of JupyterLab has many, and a refused URL is the point.
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        # WeasyPrint announces future system-library requirements when loaded; not the user's concern.
        warnings.simplefilter("ignore", DeprecationWarning)
        from weasyprint import HTML

        page = Path(html_file).read_text(encoding="utf-8")
        HTML(string=page, base_url=None, url_fetcher=_fetcher()).write_pdf(str(target))
    return Path(target)
