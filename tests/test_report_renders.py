"""Three audits rendered end to end and read back as a privacy officer and a pipeline would:
the default ACS audit, a leaky Adult release (half its records copied from the
training data) compared with a second file, and an audit without a holdout.

The checks are about content and structure (the first page's words, a page bound, alt text on
every figure, the contents bar, the comparison agreeing with the verdict lines). The layout does
not depend on the machine's fonts (the PDF uses the DejaVu files that ship with matplotlib), and
a test prints the same page with the machine's fonts and with a font folder of DejaVu only.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.cli import main
from privlib.pipeline import params_file

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.slow]

FAMILIES = ("Identity disclosure", "Attribute disclosure", "Membership disclosure")


def _adult_tables(folder: Path, n: int = 800, seed: int = 3) -> dict:
    """Training and holdout samples of the bundled Adult data (disjoint), a leaky release (half
    its rows copied from the training data, half rows of independently shuffled columns) and a
    release of shuffled columns only."""
    adult = pl.load_dataset("adult")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(adult))
    train = adult.iloc[order[:n]].reset_index(drop=True)
    holdout = adult.iloc[order[n : 2 * n]].reset_index(drop=True)
    shuffled = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train.columns})
    copies = train.iloc[rng.choice(n, n // 2, replace=False)]
    leaky = pd.concat([copies, shuffled.iloc[: n - n // 2]], ignore_index=True)
    paths = {}
    for name, table in (("train", train), ("holdout", holdout), ("leaky", leaky), ("shuffled", shuffled)):
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    paths["population_size"] = len(adult)
    return paths


def _audit(out: Path, *arguments: str) -> Path:
    assert main(["--quiet", "audit", *arguments, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def renders(tmp_path_factory):
    folder = tmp_path_factory.mktemp("renders")
    paths = _adult_tables(folder)
    leaky = [
        "--train",
        str(paths["train"]),
        "--synthetic",
        str(paths["leaky"]),
        str(paths["shuffled"]),
        "--holdout",
        str(paths["holdout"]),
        "--keys",
        "age",
        "sex",
        "race",
        "--sensitive",
        "income",
        "--population-size",
        str(paths["population_size"]),
        "--seed",
        "5",
        "--title",
        "Leaky Adult release",
    ]
    # few inputs: no holdout, no keys or sensitive variables
    few = [
        "--train",
        str(paths["train"]),
        "--synthetic",
        str(paths["shuffled"]),
        "--seed",
        "5",
        "--title",
        "Adult release without a holdout",
    ]
    return {
        "acs": _audit(folder / "acs", "--params", str(params_file("acs"))),
        "leaky": _audit(folder / "leaky", *leaky),
        "no_holdout": _audit(folder / "no_holdout", *few),
    }


def _pdf_pages(out: Path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join(page.extract_text().split()) for page in PdfReader(out / "report.pdf").pages]


def _metrics(out: Path) -> dict:
    return json.loads((out / "metrics.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["acs", "leaky", "no_holdout"])
def test_page_one_states_the_decision_and_every_family(renders, name):
    pages = _pdf_pages(renders[name])
    # the default ACS report within 9 pages; the leaky report compares two files of 15 columns,
    # every column drawn, the why and the detection-limit blocks on page 1
    assert len(pages) <= (9 if name == "acs" else 11)
    metrics = _metrics(renders[name])
    first = pages[0]
    assert "--" not in first  # no command-line flag on the officer's page
    if metrics["files"]:  # several synthetic files: the headline names its file, then each file's
        label = metrics["synthetic_label"]
        assert f"DECISION ON {label.upper()} {metrics['decision']}" in first.replace("Decision", "DECISION")
        assert f"for the synthetic file {label}, the first of {len(metrics['files'])}" in first
        table = first.split("Decision on each synthetic file, from its own audit", 1)[1]
        for file in metrics["files"]:
            verdicts = " ".join(file["families"][f["family"]] for f in metrics["families"])
            assert f"{file['synthetic_label']} {file['decision']} {verdicts}" in table, file
    else:
        assert f"DECISION {metrics['decision']}" in first.replace("Decision", "DECISION")
    for family in metrics["families"]:
        # each family on page 1, with its verdict, and a reason when it was not assessed
        line = first.split(family["title"] + ":", 1)[1][:800]
        assert line.lstrip().startswith(family["verdict"]), (family["title"], line)
        if family["verdict"] == "not assessed":
            assert "To assess it" in line


def test_the_leaky_release_is_not_released_and_an_audit_with_few_inputs_says_what_is_missing(renders):
    assert _metrics(renders["leaky"])["decision"] == "do not release"
    no_holdout = _metrics(renders["no_holdout"])
    attribute = next(f for f in no_holdout["families"] if f["family"] == "attribute")
    assert attribute["verdict"] == "not assessed"
    assert no_holdout["decision"] != "no evidence of risk at the strength of these attacks"
    first = _pdf_pages(renders["no_holdout"])[0]
    # the membership measures that need a holdout are counted on page 1; their reason is in the
    # family's section
    not_run = sum(s["family"] == "membership" for s in no_holdout["skipped"])
    assert f"{not_run} measures not run (see its section)" in first


@pytest.mark.parametrize("name", ["acs", "leaky", "no_holdout"])
def test_every_figure_has_alt_text_and_the_page_has_contents(renders, name):
    page = (renders[name] / "report.html").read_text(encoding="utf-8")
    assert "No description has been provided" not in page
    images = re.findall(r"<img\b[^>]*>", page)
    figures = [i for i in images if "privlib-math" not in i]
    assert len(figures) >= 2  # the forest figure and the measures' figures
    for image in figures:
        alt = re.search(r'\balt="([^"]*)"', image)
        assert alt and len(html.unescape(alt.group(1)).split()) >= 5, image[:200]
    nav = re.search(r'<nav [^>]*class="privlib-toc".*?</nav>', page, re.S).group(0)
    for anchor in re.findall(r'href="#([^"]+)"', nav):
        assert f'id="{anchor}"' in page


def test_the_comparison_shows_the_verdict_lines_own_values(renders):
    page = (renders["leaky"] / "report.html").read_text(encoding="utf-8")
    assert "Nothing in this section applies" not in page
    lines = page.split('class="privlib-verdict-lines"')[1].split("</table>")[0]
    comparison = page.split('class="privlib-comparison"')[1].split("</table>")[0]
    verdict_rows = {
        re.search(r'privlib-key">([^<]+)<', row).group(1): re.findall(r"<td>([^<]*)</td>", row)[0:1]
        + re.findall(r'privlib-verdict-[a-z-]+">([^<]+)<', row)
        for row in re.findall(r"<tr>(.*?)</tr>", lines, re.S)
        if "privlib-key" in row
    }
    compared = 0
    for row in re.findall(r"<tr>(.*?)</tr>", comparison, re.S):
        key = re.search(r'privlib-key">([^<]+)<', row)
        if key is None or key.group(1) not in verdict_rows:
            continue
        first_file = re.findall(r"<td>(.*?)</td>", row, re.S)[1]
        value, verdict = verdict_rows[key.group(1)]
        assert first_file.startswith(value + " ") and f">{verdict}<" in first_file, key.group(1)
        compared += 1
    assert compared == len(verdict_rows)


def test_fidelity_is_shown_beside_privacy(renders):
    text = " ".join(_pdf_pages(renders["leaky"]))
    assert "Fidelity beside privacy" in text and "none of these figures changes a verdict" in text
    no_holdout = " ".join(_pdf_pages(renders["no_holdout"]))
    assert "tstr_ratio not computed" in no_holdout


def test_page_one_counts_only_records_at_risk_from_measures_that_decide(renders):
    """Each count on page 1 stands beside the verdict of the measure that counted it, and only
    risk or inconclusive measures' counts are there (the leaky release's no-evidence counts are not)."""
    for name in ("acs", "leaky"):
        metrics = _metrics(renders[name])
        verdicts = {m["key"]: (m["verdict"], m["target"]) for m in metrics["measures"]}
        first = _pdf_pages(renders[name])[0]
        for family in metrics["families"]:
            for item in family["at_risk"]:
                verdict, target = verdicts[item["key"]]
                shown = f"{item['key']}" in first
                assert shown == (verdict in ("risk", "inconclusive") and item["count"] > 0), (name, item)
                if shown and target:
                    assert f"{verdict} {target}: {item['count']:,} " in first, (name, item)


def test_the_forest_plot_draws_copy_test_and_the_tpr_measure(renders):
    from privlib.plots import FOREST_RANGE, plot_verdict_forest

    measures = {m["key"]: m for m in _metrics(renders["acs"])["measures"]}
    ax = plot_verdict_forest(list(measures.values()))
    points = sorted(round(float(c.get_offsets()[0][0]), 9) for c in ax.collections)
    for key in ("copy_test", "nn_mia_tpr_at_0.1pct"):
        m = measures[key]
        # an exact test: its threshold is its baseline, so the scale runs from 0 to the threshold
        assert m["baseline"] == m["threshold"] > 0
        position = 1 + (m["value"] - m["threshold"]) / m["threshold"]
        assert round(min(max(position, FOREST_RANGE[0]), FOREST_RANGE[1]), 9) in points, key
    placed = [m for m in measures.values() if m["value"] is not None and m["threshold"] is not None]
    assert len(points) == len(placed)
    alt = re.search(
        r'<img [^>]*alt="(Forest plot[^"]*)"', (renders["acs"] / "report.html").read_text()
    ).group(1)
    assert f"Forest plot of {len(placed)} measures" in html.unescape(alt)


def test_every_published_file_has_one_mode(renders):
    for name in ("acs", "no_holdout"):
        modes = {p.name: p.stat().st_mode & 0o777 for p in renders[name].iterdir()}
        assert len(set(modes.values())) == 1, modes
        assert modes["metrics.json"] == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _printed_pages(html_file: Path, pdf: Path, fontconfig: Path | None) -> tuple[int, set]:
    """Pages and font names of ``html_file`` printed in a new process, with the machine's fonts
    or with the fontconfig file ``fontconfig``."""
    env = dict(os.environ)
    if fontconfig is not None:
        env["FONTCONFIG_FILE"] = str(fontconfig)
    script = "import sys; from privlib.render import render_pdf; render_pdf(sys.argv[1], sys.argv[2])"
    subprocess.run([sys.executable, "-c", script, str(html_file), str(pdf)], env=env, check=True)
    from pypdf import PdfReader

    reader = PdfReader(pdf)
    fonts = {
        str(font.get_object()["/BaseFont"]).split("+", 1)[-1]
        for page in reader.pages
        for font in page["/Resources"].get("/Font", {}).values()
    }
    return len(reader.pages), fonts


def test_the_page_count_does_not_depend_on_the_machines_fonts(renders, tmp_path):
    import matplotlib

    only = tmp_path / "dejavu"
    only.mkdir()
    for font in (Path(matplotlib.get_data_path()) / "fonts" / "ttf").glob("DejaVuSans*.ttf"):
        shutil.copy(font, only)
    config = tmp_path / "fonts.conf"
    config.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
        f"<fontconfig><dir>{only}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n"
    )
    page = renders["acs"] / "report.html"
    machine, machine_fonts = _printed_pages(page, tmp_path / "machine.pdf", None)
    dejavu, dejavu_fonts = _printed_pages(page, tmp_path / "dejavu.pdf", config)
    assert machine == dejavu <= 9  # the default ACS report within 9 pages
    # every glyph is set in the kit's own faces, whatever fontconfig offers
    assert machine_fonts == dejavu_fonts and all(f.startswith("privlib-") for f in machine_fonts)


def test_the_appendix_names_every_measure_once_and_states_a_shared_rule_once(renders):
    """Measures run per sensitive variable under one rule (CAP for DIS and for HICOV) share one
    row of the appendix, which names both keys and prints their rule once; every other measure
    has a row of its own."""
    page = (renders["acs"] / "report.html").read_text(encoding="utf-8")
    table = page.split('class="privlib-rules-table"', 1)[1].split("</table>", 1)[0]
    rows = [html.unescape(row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
    measures = _metrics(renders["acs"])["measures"]
    for m in measures:
        named = [row for row in rows if f'privlib-key">{m["key"]}<' in row]
        assert len(named) == 1, m["key"]
        assert m["verdict_rule"].rstrip(". ") in named[0], m["key"]
    rules = {m["key"]: m["verdict_rule"] for m in measures}
    assert rules["cap[DIS]"] == rules["cap[HICOV]"]
    (shared,) = [row for row in rows if 'privlib-key">cap[DIS]<' in row]
    assert 'privlib-key">cap[HICOV]<' in shared
    assert shared.count(rules["cap[DIS]"].rstrip(". ")) == 1
