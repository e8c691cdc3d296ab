"""The lessons follow notebooks/CONVENTIONS.md, and the capstone's student notebook holds no answers.

Read from the committed notebooks, without running them: the parameters cell, the cell tags, the
"Where this lesson differs from its sources" section, the `show_records` switch of lessons that
show rows of the data, and the student capstone's blank analysis cells.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TAGS = {"parameters", "remove-cell", "hide-input", "claims"}
# a lesson that displays rows of a dataset table (head, or a few rows picked for a worked example)
SHOWS_ROWS = re.compile(
    r"\b(?:data|train|original|partial|synthetic)\b[^\n]*\.head\(|\b(?:data|train)\.iloc\[:"
)


def _cells(path: Path):
    return nbformat.read(path, as_version=4).cells


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_follows_the_skeleton(lesson):
    cells = _cells(lesson)
    code = [c for c in cells if c.cell_type == "code"]
    assert "parameters" in code[0].metadata.get("tags", []), "the first code cell is the parameters cell"
    untagged = [i for i, c in enumerate(code) if not TAGS & set(c.metadata.get("tags", []))]
    assert not untagged, f"code cells without a display tag (hide-input, remove-cell, ...): {untagged}"
    assert cells[0].cell_type == "markdown" and cells[0].source.startswith(f"# {lesson.name[:2]}.")
    headings = [line for c in cells if c.cell_type == "markdown" for line in c.source.splitlines()]
    assert "## Where this lesson differs from its sources" in headings
    assert any(line.startswith("## Exercises") for line in headings)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_that_shows_rows_can_hide_them(lesson):
    cells = _cells(lesson)
    showing = [
        c for c in cells if c.cell_type == "code" and SHOWS_ROWS.search(c.source) and "toy" not in c.source
    ]
    if not showing:
        pytest.skip("this lesson shows no rows of the data")
    parameters = next(c for c in cells if "parameters" in c.metadata.get("tags", []))
    assert re.search(r"^show_records = True\b", parameters.source, re.MULTILINE)
    for cell in showing:
        assert "show_records" in cell.source, cell.source[:80]


def test_the_student_capstone_has_no_answers_and_no_outputs():
    cells = _cells(NOTEBOOKS / "capstone.ipynb")
    text = "\n".join(c.source for c in cells).lower()
    assert "answer key" not in text and "truth" not in text
    code = [c for c in cells if c.cell_type == "code"]
    assert all(not c.get("outputs") for c in code), "the student notebook is handed out unexecuted"
    analysis = [c for c in code if not {"parameters", "hide-input"} & set(c.metadata.get("tags", []))]
    assert len(analysis) >= 7 and all(
        c.source.startswith("# Your analysis") and len(c.source.splitlines()) == 1 for c in analysis
    )
    for task in ("singling_out", "density_attack", "copy_test", "low_fpr_points", "partition_risk"):
        assert task in text, f"the worksheet asks for {task}"


def test_the_key_is_a_separate_notebook_the_site_leaves_out():
    key = _cells(NOTEBOOKS / "capstone_key.ipynb")
    assert any("make_release" in c.source for c in key) and any("truth" in c.source for c in key)
    site = pytest.importorskip("privlib.site")
    assert "capstone_key.ipynb" not in [path.name for path in site._lessons(NOTEBOOKS)]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_stored_at_full_size_runs_quick_under_make_test(lesson):
    """A lesson stored with ``quick = False`` reads ``PRIVLIB_COURSE_QUICK`` in its setup, and
    ``make test`` sets it, so CI runs the lesson on its quick settings (notebooks/CONVENTIONS.md)."""
    cells = _cells(lesson)
    parameters = next(c for c in cells if "parameters" in c.metadata.get("tags", []))
    if not re.search(r"^quick = False\b", parameters.source, re.MULTILINE):
        pytest.skip("stored with the quick settings")
    setup = "\n".join(c.source for c in cells if c.cell_type == "code" and c is not parameters)
    assert 'quick = quick or os.environ.get("PRIVLIB_COURSE_QUICK") == "1"' in setup
    test_target = re.search(r"^test:.*?(?=^\S)", (ROOT / "Makefile").read_text(), re.MULTILINE | re.DOTALL)
    assert test_target and "PRIVLIB_COURSE_QUICK=1" in test_target.group()
