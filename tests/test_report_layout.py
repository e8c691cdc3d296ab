"""The printed report as a reader sees it, through the ``privlib audit`` command: the default ACS
and Adult audits laid out once per module (the pages :func:`privlib.render.pdf.render_pdf`
writes), and an Adult release whose only leak is its ``fnlwgt`` column.

Where a thing is drawn comes from WeasyPrint's layout of the report, the one the PDF is written
from; the text of a page comes from the PDF itself (pypdf).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.cli import main
from privlib.pipeline import params_file
from privlib.render.pdf import lay_out
from privlib.synth.baselines import GaussianCopula

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.slow]

#: Most of a body page's content box that may stay empty below its last line, but on the last
#: page of a section.
MOST_BLANK = 0.25


def _audit(out: Path, *arguments: str) -> Path:
    assert main(["--quiet", "audit", *arguments, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    """Per bundled audit: its folder, its pages as laid out, and the PDF written from them."""
    folder = tmp_path_factory.mktemp("layout")
    reports = {}
    for name in ("acs", "adult"):
        out = _audit(folder / name, "--params", str(params_file(name)), "--formats", "html")
        document = lay_out(out / "report.html")
        document.write_pdf(str(out / "report.pdf"))
        reports[name] = (out, document)
    return reports


def _page_text(pdf: Path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join(page.extract_text().split()) for page in PdfReader(pdf).pages]


def _drawn(page) -> tuple[float, float, float, tuple]:
    """A laid-out page's content box (top, bottom), the bottom of the lowest thing drawn in it
    (text or image; the page-number footer is in the margin, not in it) and the element names
    above the first thing drawn (``("html", "body", ..., "h2")``)."""
    from weasyprint.formatting_structure import boxes

    page_box = page._page_box
    top = page_box.content_box_y()
    lowest, first = top, None

    def walk(box, tags):
        nonlocal lowest, first
        if isinstance(box, boxes.MarginBox):
            return
        tag = getattr(box, "element_tag", None)
        tags = (*tags, tag) if tag and (not tags or tags[-1] != tag) else tags
        if isinstance(box, (boxes.TextBox, boxes.ReplacedBox)) and box.margin_height() > 0:
            lowest = max(lowest, box.position_y + box.margin_height())
            first = tags if first is None else first
        for child in getattr(box, "children", ()):
            walk(child, tags)

    walk(page_box, ())
    return top, top + page_box.height, lowest, first or ()


def blank_shares(document) -> list[tuple[float, bool]]:
    """Per page, the share of its content box left empty below the last thing drawn, and whether
    the page is the last of a section (the next page opens with a section's heading, ``h2``, or
    there is no next page)."""
    drawn = [_drawn(page) for page in document.pages]
    shares = []
    for number, (top, bottom, lowest, _) in enumerate(drawn):
        next_opens_section = number + 1 == len(drawn) or "h2" in drawn[number + 1][3]
        shares.append(((bottom - lowest) / (bottom - top), next_opens_section))
    return shares


@pytest.mark.parametrize("name", ["acs", "adult"])
def test_no_body_page_is_more_than_a_quarter_blank_but_a_sections_last(printed, name):
    out, document = printed[name]
    shares = blank_shares(document)
    assert len(shares) == len(_page_text(out / "report.pdf"))
    too_blank = {
        number: round(share, 2)
        for number, (share, last_of_section) in enumerate(shares, start=1)
        if share > MOST_BLANK and not last_of_section
    }
    assert too_blank == {}, f"pages more than {MOST_BLANK:.0%} blank: {too_blank}"


def test_the_blank_share_is_measured_from_the_layout():
    """A page of two short paragraphs then a forced break: the first page is almost all blank and
    not a section's last (the next page opens with a paragraph), the second ends the document."""
    from weasyprint import HTML

    page = (
        "<style>@page { size: 100mm 100mm; margin: 10mm } p { margin: 0; font-size: 10pt }</style>"
        "<p>one</p><p>two</p><p style='break-before: page'>three</p><h2>four</h2>"
    )
    shares = blank_shares(HTML(string=page).render())
    assert len(shares) == 2
    (first, first_last), (_, second_last) = shares
    # two lines of 10 pt text (about 12 pt each, 8.5 mm in all) in an 80 mm content box
    assert 0.85 < first < 0.95 and not first_last and second_last


SCIENTIFIC = re.compile(r"\d(?:\.\d+)?\s?[eE][-+−]?\d+|×\s?10\^?[-−]?\d")


@pytest.mark.parametrize("name", ["acs", "adult"])
def test_pages_one_to_three_print_no_number_in_scientific_notation(printed, name):
    out, _ = printed[name]
    pages = _page_text(out / "report.pdf")[:3]
    assert all(pages)
    assert [SCIENTIFIC.findall(text) for text in pages] == [[], [], []]


def test_scientific_notation_is_recognised():
    assert SCIENTIFIC.findall("p = 1e-312, 1.55e+03 and 3.2E5 but not e5 or 2,707 or the 1990s") == [
        "1e-312",
        "1.55e+03",
        "3.2E5",
    ]


def test_the_default_acs_report_is_at_most_nine_pages(printed):
    out, document = printed["acs"]
    assert len(document.pages) == len(_page_text(out / "report.pdf")) <= 9


@pytest.fixture(scope="module")
def fnlwgt_leak(tmp_path_factory):
    """An Adult release from a Gaussian copula fitted on 3,000 training records, its ``fnlwgt``
    column replaced by the training records' own values (shuffled): exact training values of
    one column are its only leak. Audited through the command, with a holdout of 3,000."""
    folder = tmp_path_factory.mktemp("fnlwgt")
    adult = pl.load_dataset("adult")
    rng = np.random.default_rng(7)
    order = rng.permutation(len(adult))
    train = adult.iloc[order[:3000]].reset_index(drop=True)
    holdout = adult.iloc[order[3000:6000]].reset_index(drop=True)
    synthetic = GaussianCopula().fit(train).sample(3000, random_state=7)
    synthetic["fnlwgt"] = rng.permutation(train["fnlwgt"].to_numpy())
    files = {}
    for role, table in (("train", train), ("synthetic", synthetic), ("holdout", holdout)):
        files[role] = folder / f"{role}.csv"
        table.to_csv(files[role], index=False)
    # every synthetic fnlwgt is a training value; a copula draws between the training values
    assert pd.read_csv(files["synthetic"])["fnlwgt"].isin(set(train["fnlwgt"])).all()
    return _audit(
        folder / "out",
        *("--train", str(files["train"]), "--synthetic", str(files["synthetic"])),
        *("--holdout", str(files["holdout"]), "--population-size", str(len(adult))),
        *("--keys", "age", "sex", "race", "marital-status", "--sensitive", "income", "--seed", "1"),
    )


def test_page_one_names_fnlwgt_behind_singling_out_with_a_remedy(fnlwgt_leak):
    metrics = json.loads((fnlwgt_leak / "metrics.json").read_text(encoding="utf-8"))
    identity = next(f for f in metrics["families"] if f["family"] == "identity")
    assert identity["verdict"] == "risk" and identity["deciding"].startswith("singling_out")
    first_page = _page_text(fnlwgt_leak / "report.pdf")[0]
    why = first_page[first_page.index("Why, and what to do") :]
    finding = why[why.index("Singling out") :]
    # the column behind it, first and in nearly every predicate, then the remedy for it
    match = re.search(r"most used first: fnlwgt in ([\d,]+) of ([\d,]+) \(", finding)
    assert match, finding[:400]
    used, predicates = (int(n.replace(",", "")) for n in match.groups())
    assert used >= 0.9 * predicates
    assert "What to do: drop or coarsen the columns named" in finding
    # the same on the HTML page, before its fidelity section
    page = (fnlwgt_leak / "report.html").read_text(encoding="utf-8")
    decision = re.sub(r"<[^>]+>|\s+", " ", page[: page.index('id="fidelity"')])
    assert "most used first: fnlwgt in" in " ".join(decision.split())
