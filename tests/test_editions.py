"""The student's edition: no solution, neither its code nor its output; the lecturer's keeps them.

notebooks/CONVENTIONS.md (item 7) says where a lesson's solutions are: a code cell headed
``# Solution``, a markdown cell opening with ``**Solution``, or a collapsed ``<details>`` block.
The tests below find them by that statement, not through the detector they check.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from privlib.errors import PrivlibError
from privlib.render.notebook import is_solution, render_html, student_edition

ROOT = Path(__file__).resolve().parents[1]
md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

#: (cell, is it a solution?): one row per branch of the detector
TABLE = [
    (code("# Solution 1\nprint(1)"), True),
    (code("\n# Solutions 1 and 2, computed on this run\nx = 1"), True),
    (code("x = 1  # Solution in a comment does not count"), False),
    (md("**Solution 2.**\n<details><summary>Show</summary>\n\nNo.\n</details>"), True),
    (md("**Solution 1 (reading).** The lines above give the change."), True),
    (md("<details><summary>Solution 3</summary>\n\nWith h large ...\n</details>"), True),
    (md("<details open><summary>Solution</summary>a</details>\n\n<details>b</details>\n"), True),
    (
        md("## Exercises\n\n1. Why?\n\n<details><summary>Solutions</summary>\n\n1. Because.\n</details>"),
        False,
    ),
    (md("<details><summary>Solution 3</summary>x</details>\n\n## Where this lesson differs"), False),
    (md("## Reading\n\nA plain paragraph."), False),
    (nbformat.v4.new_raw_cell("# Solution"), False),
]


@pytest.mark.parametrize(("cell", "expected"), TABLE, ids=[c.source[:30] for c, _ in TABLE])
def test_the_detector_reads_the_conventions_table(cell, expected):
    assert is_solution(cell) is expected


def test_the_student_edition_keeps_the_prompts_and_the_text_beside_a_fold():
    notebook = nbformat.v4.new_notebook(cells=[cell for cell, _ in TABLE])
    kept = student_edition(notebook)
    assert [c.source for c in kept.cells] == [
        "x = 1  # Solution in a comment does not count",
        "## Exercises\n\n1. Why?\n\n",
        "## Where this lesson differs",
        "## Reading\n\nA plain paragraph.",
        "# Solution",
    ]
    assert len(notebook.cells) == len(TABLE)  # the lecturer's notebook is left as it was


def _solutions(notebook):
    """The code and the printed output of every solution, and the text of every folded answer,
    found by the conventions' statement; and the exercise prompts (numbered items)."""
    codes, outputs, folded, prompts = [], [], [], []
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.lstrip().startswith("# Solution"):
            codes.append(cell.source)
            outputs += [o["text"] for o in cell.outputs if o.get("name") == "stdout"]
        elif cell.cell_type == "markdown":
            if cell.source.lstrip().startswith("**Solution"):
                folded.append(cell.source)
            folded += [
                re.sub(r"</?(?:details|summary)>", " ", block)
                for block in re.findall(r"<details>.*?</details>", cell.source, flags=re.DOTALL)
            ]
            if cell.source.lstrip().startswith("## Exercises"):
                unfolded = re.sub(r"<details>.*?</details>", "", cell.source, flags=re.DOTALL)
                prompts += re.findall(r"^\d+\. (.+)$", unfolded, flags=re.MULTILINE)
    return codes, outputs, folded, prompts


def _words(text: str) -> str:
    return " ".join(re.sub(r"[*`$\\]", " ", text).split())


def _long_lines(texts) -> list[str]:
    return [_words(line) for text in texts for line in text.splitlines() if len(_words(line)) > 40]


@pytest.mark.slow
@pytest.mark.parametrize("lesson", ["03_attribute_disclosure_knn", "08_targeted_attacks"])
def test_a_student_handout_holds_no_solution_and_the_lecturers_keeps_them(lesson, tmp_path):
    from bs4 import BeautifulSoup

    notebook = nbformat.read(ROOT / "notebooks" / f"{lesson}.ipynb", as_version=4)
    codes, outputs, folded, prompts = _solutions(notebook)
    assert codes and outputs and prompts, "the lesson has exercises with solutions"
    for cell in notebook.cells:  # the lessons fold a solution's code; unfolded, its absence is tested too
        if cell.source in codes:
            cell.metadata["tags"] = []
    path = tmp_path / f"{lesson}.ipynb"
    nbformat.write(notebook, path)
    pages = {}
    for edition in ("student", "lecturer"):
        target = render_html(path, tmp_path / f"{edition}.html", show_code=True, edition=edition)
        soup = BeautifulSoup(target.read_text(), "html.parser")
        # highlighted code is split into spans: read the page with and without a space between them
        pages[edition] = _words(soup.get_text(" ")) + "\n" + _words(soup.get_text(""))
    printed, code_lines, answers = _long_lines(outputs), _long_lines(codes), _long_lines(folded)
    assert printed and code_lines
    for line in printed + code_lines + answers:
        assert line not in pages["student"], line
    for prompt in prompts:
        assert _words(prompt)[:30] in pages["student"], prompt
    # the lecturer's handout keeps them (a line printed by a solution, its code, the folded text)
    assert all(line in pages["lecturer"] for line in printed)
    assert all(line in pages["lecturer"] for line in code_lines)
    assert sum(line in pages["lecturer"] for line in answers) >= len(answers) // 2


def test_a_bad_edition_is_refused_in_one_line(tmp_path):
    lesson = ROOT / "notebooks" / "00_introduction.ipynb"
    with pytest.raises(PrivlibError, match="`edition` must be one of") as refused:
        render_html(lesson, tmp_path / "x.html", edition="students")
    assert "\n" not in str(refused.value) and not (tmp_path / "x.html").exists()
