"""``privlib course --keep-going`` and ``--show-records``, and ``privlib notebooks DIR``."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest

from privlib.cli import main
from privlib.errors import PrivlibError
from privlib.pipeline import ReportError, copy_notebooks, run_course
from privlib.resources import resource_path

KIT_NOTEBOOKS = resource_path("notebooks")


def _lesson(folder: Path, stem: str, code: str, parameters: str = 'dataset = "acs"\nseed = 1\nquick = False'):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# {stem}"),
            nbformat.v4.new_code_cell(parameters, metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell(code),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, folder / f"{stem}.ipynb")


@pytest.fixture
def lessons(tmp_path):
    folder = tmp_path / "lessons"
    folder.mkdir()
    _lesson(
        folder,
        "00_rows",
        'print(f"show_records={show_records}")',
        parameters='dataset = "acs"\nseed = 1\nquick = False\nshow_records = True',
    )
    _lesson(folder, "01_broken", 'raise ValueError("a lesson that fails")')
    _lesson(folder, "02_plain", 'print("no show_records here:", "show_records" in globals())')
    _lesson(folder, "capstone", 'raise RuntimeError("the capstone is for students: never run")')
    return folder


@pytest.mark.notebook
def test_keep_going_publishes_the_lessons_that_finished_and_fails(lessons, tmp_path, caplog):
    out = tmp_path / "course"
    with pytest.raises(ReportError, match="1 of 3 lessons failed"):
        run_course(out=out, dataset="ce", notebooks=lessons, keep_going=True, progress=False)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        ["index.html", "capstone.ipynb"]
        + [f"{s}.{e}" for s in ("00_rows", "02_plain") for e in ("ipynb", "html", "pdf")]
    )
    index = (out / "index.html").read_text()
    assert "00_rows" in index and "02_plain" in index and "01_broken" not in index
    assert 'Capstone: <a href="capstone.ipynb">capstone</a>' in index  # listed, copied, not run
    assert (out / "capstone.ipynb").read_bytes() == (lessons / "capstone.ipynb").read_bytes()
    failures = [r.getMessage() for r in caplog.records if "01_broken" in r.getMessage()]
    assert len(failures) == 1 and "\n" not in failures[0] and "ValueError" in failures[0]
    # off by default: the dataset may be a user's file; a lesson without the parameter gets none
    assert "show_records=False" in (out / "00_rows.html").read_text()
    assert "no show_records here: False" in (out / "02_plain.html").read_text()


@pytest.mark.notebook
def test_without_keep_going_a_failed_lesson_publishes_nothing(lessons, tmp_path):
    out = tmp_path / "course"
    with pytest.raises(ReportError, match="01_broken"):
        run_course(out=out, dataset="ce", notebooks=lessons, progress=False)
    assert not out.exists()


@pytest.mark.notebook
def test_show_records_reaches_the_lessons_that_declare_it(lessons, tmp_path):
    (lessons / "01_broken.ipynb").unlink()
    out = tmp_path / "course"
    run_course(out=out, dataset="ce", notebooks=lessons, lessons=["00"], show_records=True, progress=False)
    assert "show_records=True" in (out / "00_rows.html").read_text()


def test_notebooks_copies_the_lessons_capstone_and_notes(tmp_path):
    written = copy_notebooks(tmp_path / "mine")
    names = sorted(p.name for p in written)
    lessons = sorted(p.name for p in KIT_NOTEBOOKS.glob("0*.ipynb"))
    assert lessons and set(lessons) <= set(names)
    for needed in ("capstone.ipynb", "GLOSSARY.md", "TEACHING.md", "CONVENTIONS.md"):
        assert needed in names
    assert sorted(p.name for p in (tmp_path / "mine").iterdir()) == names  # no temporary left
    first = tmp_path / "mine" / lessons[0]
    assert first.read_bytes() == (KIT_NOTEBOOKS / lessons[0]).read_bytes()


def test_notebooks_never_overwrites_without_force_and_never_follows_a_link(tmp_path):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "TEACHING.md").write_text("my own notes")
    outside = tmp_path / "outside.md"
    outside.write_text("not the kit's")
    os.symlink(outside, target / "GLOSSARY.md")
    with pytest.raises(PrivlibError, match="--force"):
        copy_notebooks(target)
    assert sorted(p.name for p in target.iterdir()) == ["GLOSSARY.md", "TEACHING.md"]  # nothing written
    assert (target / "TEACHING.md").read_text() == "my own notes"
    copy_notebooks(target, force=True)
    assert (target / "TEACHING.md").read_bytes() == (KIT_NOTEBOOKS / "TEACHING.md").read_bytes()
    assert not (target / "GLOSSARY.md").is_symlink() and outside.read_text() == "not the kit's"


def test_notebooks_refuses_a_folder_inside_the_kit_or_a_file(tmp_path):
    with pytest.raises(PrivlibError, match="inside the kit"):
        copy_notebooks(KIT_NOTEBOOKS / "copies")
    assert not (KIT_NOTEBOOKS / "copies").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(PrivlibError, match="is a file"):
        copy_notebooks(tmp_path / "file")


def test_notebooks_command_exit_status_and_one_line(tmp_path, capsys):
    assert main(["notebooks", str(tmp_path / "mine")]) == 0
    assert "files copied to" in capsys.readouterr().err
    assert main(["--quiet", "notebooks", str(tmp_path / "mine")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("privlib: error:") and "--force" in error[0]
    assert main(["--quiet", "notebooks", "--force", str(tmp_path / "mine")]) == 0


def test_course_options_reach_run_course(monkeypatch, tmp_path):
    from privlib import pipeline

    seen = {}
    monkeypatch.setattr(pipeline, "run_course", lambda **kwargs: seen.update(kwargs))
    assert (
        main(
            [
                "--quiet",
                "course",
                "--dataset",
                "ce",
                "--keep-going",
                "--show-records",
                "--out",
                str(tmp_path / "c"),
            ]
        )
        == 0
    )
    assert seen["keep_going"] is True and seen["show_records"] is True
    assert main(["--quiet", "course", "--dataset", "ce", "--out", str(tmp_path / "c")]) == 0
    assert seen["keep_going"] is False and seen["show_records"] is False  # both off by default
    assert seen["edition"] == "lecturer"  # the default keeps the solutions
    assert (
        main(["--quiet", "course", "--dataset", "ce", "--edition", "student", "--out", str(tmp_path / "c")])
        == 0
    )
    assert seen["edition"] == "student"


def test_course_refuses_an_unknown_edition_in_one_line(tmp_path, capsys):
    assert main(["course", "--dataset", "ce", "--edition", "students", "--out", str(tmp_path / "c")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "--edition" in error[0] and "'lecturer'" in error[0]
    assert not (tmp_path / "c").exists()
    with pytest.raises(PrivlibError, match="`edition` must be one of"):
        run_course(out=tmp_path / "c", dataset="ce", edition="students", progress=False)
    assert not (tmp_path / "c").exists()


@pytest.mark.notebook
def test_a_student_course_publishes_no_solution(lessons, tmp_path):
    nb = nbformat.read(lessons / "02_plain.ipynb", as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell('# Solution 1\nprint("the answer is " + "42")'))
    nbformat.write(nb, lessons / "02_plain.ipynb")
    (lessons / "01_broken.ipynb").unlink()
    _lesson(lessons, "capstone_key", 'raise RuntimeError("the key is the lecturer\'s: never run")')
    for edition, shown in (("student", False), ("lecturer", True)):
        out = tmp_path / edition
        run_course(out=out, dataset="ce", notebooks=lessons, edition=edition, progress=False)
        assert ("the answer is 42" in (out / "02_plain.html").read_text()) is shown
        assert (
            "the answer is" in (out / "02_plain.ipynb").read_text()
        ) is shown  # the notebook beside it too
        assert [p.name for p in out.iterdir() if "capstone" in p.name] == ["capstone.ipynb"]  # never the key
