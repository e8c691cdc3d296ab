"""The course's own texts state the true number of lessons, and the site covers every module.

The count comes from ``notebooks/`` (every ``NN_*.ipynb``); TEACHING.md states it in words
("Nine lessons ..."), the README's layout as a range of lesson numbers ("the course (00-08)").
Each lesson's minutes in TEACHING.md add up to the range the plan states.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
NUMBERS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen".split()
    )
}


def test_teaching_plan_states_the_number_of_lessons():
    text = (ROOT / "notebooks" / "TEACHING.md").read_text()
    stated = re.search(r"\b(\w+) lessons\b", text, flags=re.IGNORECASE)
    assert stated, "TEACHING.md does not say how many lessons there are"
    word = stated.group(1).lower()
    assert (int(word) if word.isdigit() else NUMBERS.get(word)) == len(LESSONS), stated.group(0)


def test_each_lessons_planned_minutes_lie_in_the_stated_range():
    """The minutes in brackets of a lesson's "show" and "do" columns add up to the range the plan states."""
    text = (ROOT / "notebooks" / "TEACHING.md").read_text()
    stated = re.search(r"planned below at (\d+) to (\d+) minutes", text)
    assert stated, "TEACHING.md does not state the range of minutes a lesson is planned at"
    low, high = int(stated.group(1)), int(stated.group(2))
    rows = [line.split("|") for line in text.splitlines() if re.match(r"\| \d\d ", line)]
    assert len(rows) == len(LESSONS)
    for row in rows:
        minutes = sum(int(m) for column in row[3:5] for m in re.findall(r"\((\d+)(?=[;)])", column))
        assert low <= minutes <= high, f"{row[1].strip()}: {minutes} minutes planned, not {low} to {high}"


def test_readme_layout_names_the_range_of_lessons():
    text = (ROOT / "README.md").read_text()
    stated = re.search(r"the course \((\d\d)\s*[-\u2013]\s*(\d\d)", text)
    assert stated, "the README's layout does not give the range of lessons"
    numbers = [path.name[:2] for path in LESSONS]
    assert (stated.group(1), stated.group(2)) == (numbers[0], numbers[-1])


def test_the_reference_covers_every_public_module():
    site = pytest.importorskip("privlib.site")
    public = {
        f"privlib.{path.stem}" for path in (ROOT / "privlib").glob("*.py") if not path.stem.startswith("_")
    }
    public |= {
        f"privlib.{path.parent.name}"
        for path in (ROOT / "privlib").glob("*/__init__.py")
        if not path.parent.name.startswith("_")
    }
    assert public - set(site.REFERENCE_MODULES) == set()
    for needed in ("privlib.audit", "privlib.pipeline", "privlib.criteria", "privlib.targeted", "privlib.dp"):
        assert needed in site.REFERENCE_MODULES
