"""privlib.slides: reveal.js slides that need no network, honouring the course's cell tags."""

import re
import shutil
from pathlib import Path

import nbformat
import pytest

from privlib import slides
from privlib.errors import PrivlibError

ROOT = Path(__file__).resolve().parents[1]
ASSETS = ROOT / "build" / "slides-assets"  # git-ignored cache shared by test runs


def _lesson():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        md("# 99. A lesson\n\nThe loss is $-U$ when $M \\le 0.2$."),
        code('dataset = "acs"'),
        code("# NBVAL_CHECK_OUTPUT\nprint('kept output')"),
        md("## A section"),
        code(
            "secret_setup = 1",
        ),
        code("# Solution 1\nprint('solution')"),
        md("### A sub-section"),
        code("assert True  # a claim"),
    ]
    cells[1].metadata["tags"] = ["parameters"]
    cells[4].metadata["tags"] = ["hide-input"]
    cells[7].metadata["tags"] = ["claims"]
    cells[2].outputs = [nbformat.v4.new_output("stream", name="stdout", text="kept output\n")]
    cells[4].outputs = [nbformat.v4.new_output("stream", name="stdout", text="shown without its code\n")]
    return nbformat.v4.new_notebook(cells=cells)


def test_default_slide_types_follow_headings_and_skip_solutions():
    assert slides.slide_types(_lesson()) == ["slide", "skip", "-", "slide", "-", "skip", "subslide", "skip"]


@pytest.fixture(scope="module")
def assets():
    if not (ASSETS / "reveal.js" / "dist" / "reveal.js").exists() and shutil.which("npm") is None:
        pytest.skip("npm is needed once to fetch reveal.js")
    pytest.importorskip("jupyter_server_mathjax")
    return slides.fetch_assets(ASSETS)


def test_slides_open_without_network(assets, tmp_path):
    target = slides.render_slides(_lesson(), tmp_path / "lesson.html", assets=assets, fetch=False)
    html = target.read_text()
    referenced = re.findall(r"""(?:src|href)=["']([^"'#][^"']*)["']""", html)
    referenced += re.findall(r"""import \w+ from ['"]([^'"]+)['"]""", html)
    external = [url for url in referenced if re.match(r"(https?:)?//", url)]
    assert not external, f"the slides load {external} from the network"
    local = [url.split("?")[0] for url in referenced if not url.startswith("data:")]
    assert local, "the slides refer to no local asset"
    for url in local:
        assert (target.parent / url).resolve().exists(), f"{url} is missing beside the slides"
    assert "reveal.js/dist/reveal.js" in html and "mathjax/MathJax.js" in html
    mathjax = next(url for url in referenced if "MathJax.js?config=" in url)
    for config in mathjax.split("config=")[1].split(","):  # each named configuration is served too
        assert (target.parent / mathjax.split("MathJax.js")[0] / "config" / f"{config}.js").exists(), config


def test_tags_decide_what_the_slides_show(assets, tmp_path):
    html = slides.render_slides(_lesson(), tmp_path / "lesson.html", assets=assets, fetch=False).read_text()
    assert 'dataset = "acs"' not in html  # parameters removed
    assert "a claim" not in html  # claims removed
    assert "NBVAL_CHECK_OUTPUT" not in html and "kept output" in html
    assert "secret_setup" not in html and "shown without its code" in html  # hide-input
    assert html.count("<section") >= 3  # two slides and a sub-slide


def test_bad_inputs_name_the_parameter(tmp_path):
    with pytest.raises(PrivlibError, match="`notebook`"):
        slides.render_slides(tmp_path / "missing.ipynb", tmp_path / "x.html", fetch=False)
    with pytest.raises(PrivlibError, match="`assets`"):
        slides.render_slides(_lesson(), tmp_path / "x.html", assets=tmp_path / "empty", fetch=False)
