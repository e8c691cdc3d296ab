"""privlib.site: the course site builds offline with lessons, glossary, slides and reference.

The default run builds a small site (two lessons, no slides) so that ``make test`` stays quick;
``make site-test`` sets ``PRIVLIB_SITE_FULL=1`` and builds the whole course with its slides.
"""

import os
import re
import shutil
from pathlib import Path

import pytest

from privlib.errors import PrivlibError

# an end-to-end audit, a cluster, a site or many draws: `make unit` leaves it out (`make test` runs it)
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
FULL = os.environ.get("PRIVLIB_SITE_FULL") == "1"
SMALL = ["00_introduction.ipynb", "02_attribute_disclosure_cap.ipynb"]

site = pytest.importorskip("privlib.site")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    pytest.importorskip("jupyter_book")
    pytest.importorskip("jupyter_server_mathjax")
    if FULL and shutil.which("npm") is None and not (ROOT / "build" / "slides-assets").exists():
        pytest.skip("npm is needed once to fetch the slides' reveal.js")
    out = tmp_path_factory.mktemp("site")
    return site.build_site(ROOT, out, slides=FULL, lessons=None if FULL else SMALL)


def test_site_has_lessons_glossary_teaching_plan_and_reference(built):
    assert (built / "index.html").exists()
    for page in ["glossary.html", "teaching.html", "reference/privlib.membership.html"]:
        assert (built / page).exists(), page
    lessons = sorted(p.name for p in (built / "lessons").glob("*.html"))
    expected = sorted(Path(n).stem + ".html" for n in SMALL) if not FULL else None
    assert lessons == expected if expected else len(lessons) >= 8
    reference = (built / "reference" / "privlib.membership.html").read_text()
    assert "partition_risk" in reference and "relative_risk" in reference  # from the docstrings


def test_lessons_hide_parameters_and_claims_and_serve_mathjax_locally(built):
    page = (built / "lessons" / "02_attribute_disclosure_cap.html").read_text()
    assert "# claims:" not in page and "NBVAL_CHECK_OUTPUT" not in page
    assert "quick_records = 5000" not in page  # the parameters cell
    scripts = re.findall(r'<script[^>]+src="([^"]+)"', page)
    assert not [s for s in scripts if s.startswith(("http:", "https:", "//"))], scripts
    assert any("mathjax/MathJax.js" in s for s in scripts)
    assert (built / "_static" / "mathjax" / "MathJax.js").exists()


@pytest.mark.skipif(not FULL, reason="slides are built by `make site-test` (PRIVLIB_SITE_FULL=1)")
def test_full_site_links_every_lesson_slides(built):
    for lesson in sorted((ROOT / "notebooks").glob("0*.ipynb")):
        assert (built / "slides" / f"{lesson.stem}.html").exists(), lesson.stem


def test_stage_refuses_a_root_without_lessons(tmp_path):
    with pytest.raises(PrivlibError, match="`root`"):
        site.stage_site(tmp_path, tmp_path / "staging", slides=False)


def test_intro_lists_the_capstone_and_titles_the_slide_links(tmp_path):
    if (
        not (ROOT / "build" / "slides-assets" / "reveal.js" / "dist" / "reveal.js").exists()
        and shutil.which("npm") is None
    ):
        pytest.skip("npm is needed once to fetch the slides' reveal.js")
    pytest.importorskip("jupyter_server_mathjax")
    staging = site.stage_site(
        ROOT, tmp_path / "src", slides=True, lessons=["00_introduction.ipynb", "capstone.ipynb"]
    )
    intro = (staging / "intro.md").read_text()
    import nbformat

    first = nbformat.read(ROOT / "notebooks" / "00_introduction.ipynb", as_version=4).cells[0].source
    title = first.splitlines()[0].removeprefix("# ").strip()
    assert f"[{title}](slides/00_introduction.html)" in intro  # the lesson's own title, not its file
    assert "(slides/00_introduction.html)" in intro and "[00_introduction]" not in intro
    assert "## Capstone" in intro and "(lessons/capstone)" in intro
    toc = (staging / "_toc.yml").read_text()
    for module in ("privlib.audit", "privlib.pipeline", "privlib.criteria", "privlib.targeted", "privlib.dp"):
        assert f"reference/{module}" in toc and (staging / "reference" / f"{module}.md").exists()


def test_a_student_site_leaves_out_the_solutions_the_teaching_plan_and_the_key(tmp_path):
    pytest.importorskip("jupyter_server_mathjax")
    import nbformat

    chosen = ["03_attribute_disclosure_knn.ipynb", "capstone.ipynb"]
    student = site.stage_site(ROOT, tmp_path / "student", slides=False, lessons=chosen, edition="student")
    lecturer = site.stage_site(ROOT, tmp_path / "lecturer", slides=False, lessons=chosen)
    for staging, solutions in ((student, 0), (lecturer, 4)):
        lesson = nbformat.read(staging / "lessons" / chosen[0], as_version=4)
        headed = [c for c in lesson.cells if c.cell_type == "code" and c.source.startswith("# Solution")]
        assert len(headed) == solutions  # lesson 03 has four code cells headed "# Solution"
        assert sorted(p.name for p in (staging / "lessons").iterdir()) == sorted(chosen)  # never the key
    assert not (student / "teaching.md").exists() and (lecturer / "teaching.md").exists()
    assert "teaching" not in (student / "_toc.yml").read_text() and (student / "glossary.md").exists()
    with pytest.raises(PrivlibError, match="`edition` must be one of"):
        site.stage_site(ROOT, tmp_path / "x", slides=False, edition="teacher")
    assert not (tmp_path / "x").exists()
