"""Print an HTML report to PDF with WeasyPrint, fetching nothing the kit did not embed.

WeasyPrint follows every URL of the page it prints: images, stylesheets and ``<a
rel="attachment">`` links, whose targets it embeds into the PDF. A report shows user-supplied
strings (escaped, so they cannot add markup), but the printer is the last line of defence too: its
fetcher serves only the PNG figures and SVG formulas the kit embeds as base64 data URLs and the
font files below, and refuses every other ``file:``, the network and any other data.

The PDF's type is DejaVu, from the files matplotlib installs (so the figures and the text share
one family): the printer loads them as "privlib Sans" and "privlib Mono" (``@font-face`` rules it
is given beside the page, never written into the HTML, which names no folder of the machine), so
the layout and the page count do not depend on the fonts the machine has installed.
"""

from __future__ import annotations

import base64
import functools
import logging
import re
import warnings
from pathlib import Path

__all__ = ["render_pdf", "lay_out", "EMBEDDED_IMAGE", "font_faces_css"]

#: The only URLs the PDF printer opens: images the kit embedded (figures and formulas).
EMBEDDED_IMAGE = re.compile(r"^data:(image/png|image/svg\+xml);base64,([A-Za-z0-9+/=\s]*)$")


#: The report's fonts: family, weight, style and the DejaVu file matplotlib ships for it.
FONT_FACES = (
    ("privlib Sans", "normal", "normal", "DejaVuSans.ttf"),
    ("privlib Sans", "bold", "normal", "DejaVuSans-Bold.ttf"),
    ("privlib Sans", "normal", "italic", "DejaVuSans-Oblique.ttf"),
    ("privlib Sans", "bold", "italic", "DejaVuSans-BoldOblique.ttf"),
    ("privlib Mono", "normal", "normal", "DejaVuSansMono.ttf"),
    ("privlib Mono", "bold", "normal", "DejaVuSansMono-Bold.ttf"),
)


@functools.lru_cache(maxsize=1)
def _font_files() -> dict[str, Path]:
    """The ``file:`` URL of each font file of :data:`FONT_FACES`, with its path."""
    import matplotlib

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    return {(folder / name).resolve().as_uri(): folder / name for *_, name in FONT_FACES}


def font_faces_css() -> str:
    """The ``@font-face`` rules of the report's fonts (for the PDF printer only)."""
    urls = list(_font_files())
    return "\n".join(
        f'@font-face {{ font-family: "{family}"; font-weight: {weight}; font-style: {style}; '
        f'src: url("{urls[i]}"); }}'
        for i, (family, weight, style, _) in enumerate(FONT_FACES)
    )


def _fetcher():
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class KitAssetsOnly(URLFetcher):
        """Serves the kit's embedded images and its font files; every other URL is refused (and
        left out)."""

        def fetch(self, url, headers=None):
            font = _font_files().get(url)
            if font is not None:
                return URLFetcherResponse(url, font.read_bytes(), {"Content-Type": "font/ttf"})
            match = EMBEDDED_IMAGE.match(url)
            if match is None:
                raise ValueError("privlib prints only the images it embedded; this URL was refused")
            body = base64.b64decode(match.group(2))
            return URLFetcherResponse(url, body, {"Content-Type": match.group(1)})

    return KitAssetsOnly()


def lay_out(html_file):
    """The pages of ``html_file`` (from :func:`privlib.render.render_html`) as WeasyPrint lays
    them out for :func:`render_pdf` (a ``weasyprint.Document``: its boxes give where each thing
    is drawn on each page).

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
        from weasyprint import CSS, HTML
        from weasyprint.text.fonts import FontConfiguration

        page = Path(html_file).read_text(encoding="utf-8")
        fetcher, fonts = _fetcher(), FontConfiguration()
        faces = CSS(string=font_faces_css(), url_fetcher=fetcher, font_config=fonts)
        return HTML(string=page, base_url=None, url_fetcher=fetcher).render(
            stylesheets=[faces], font_config=fonts
        )


def render_pdf(html_file, target) -> Path:
    """Print ``html_file`` (from :func:`privlib.render.render_html`) to the PDF ``target``, as
    :func:`lay_out` lays it out."""
    lay_out(html_file).write_pdf(str(target))
    return Path(target)
