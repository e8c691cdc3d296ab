"""A params file is data: it names only the kit's synthesizers and only files inside its own
folder (or the one ``--data-root`` gives), and nothing it says is imported or printed.

Every refusal is one line with exit status 2, before any work, and quotes no line of any file.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

import privlib as pl
from privlib.audit import read_params
from privlib.audit.params import MAX_SYNTHETIC_FILES
from privlib.audit.spec import AuditSpec
from privlib.cli import main
from privlib.errors import ParameterError, PrivlibError
from privlib.pipeline import params_file

#: A line of a confidential file outside the params file's folder: it must appear nowhere.
SECRET = "k47-confidential-line,7d3f"


def _tables(folder: Path) -> None:
    rows = pd.DataFrame({"a": range(40), "b": [i % 3 for i in range(40)]})
    for name in ("train", "synthetic"):
        rows.to_csv(folder / f"{name}.csv", index=False)


def _files_audit(folder: Path, *more) -> list[str]:
    """``privlib audit`` on the tables of :func:`_tables` in ``folder``, with ``more`` flags."""
    tables = ["--train", folder / "train.csv", "--synthetic", folder / "synthetic.csv"]
    return ["audit", *map(str, tables + list(more)), "--out", str(folder / "out")]


def _one_line_refusal(capsys, arguments: list) -> str:
    """Run the command; assert exit 2 with one error line, and on stdout nothing (or, under
    ``--json``, only the same error as one JSON object); return the line."""
    code = main(["--quiet", *map(str, arguments)])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("privlib: error:"), captured.err
    _assert_stdout_is_the_error_alone(captured.out, lines[0], "--json" in map(str, arguments))
    return lines[0]


def _assert_stdout_is_the_error_alone(out: str, line: str, as_json: bool) -> None:
    if as_json:
        assert json.loads(out) == {"error": line.removeprefix("privlib: error: "), "exit": 2}
    else:
        assert out == ""


# -- names: nothing imported -------------------------------------------------------------------
def test_a_module_beside_the_params_file_is_never_imported(tmp_path, capsys, monkeypatch):
    _tables(tmp_path)
    marker = tmp_path / "imported.txt"
    (tmp_path / "vendor_gen.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\nclass Anything: pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))  # importable, as from the folder one stands in
    params = tmp_path / "p.yaml"
    params.write_text("train: train.csv\nsynthetic: synthetic.csv\ntargeted_attack: 'vendor_gen:Anything'\n")
    line = _one_line_refusal(capsys, ["audit", "--params", params, "--json", "--out", tmp_path / "out"])
    assert "`targeted_attack` names a module" in line and "--targeted-attack" in line
    assert not marker.exists() and "vendor_gen" not in sys.modules
    assert not (tmp_path / "out").exists()


def test_a_standard_module_named_by_a_params_file_prints_nothing(tmp_path, capsys):
    _tables(tmp_path)
    params = tmp_path / "p.yaml"
    params.write_text("train: train.csv\nsynthetic: synthetic.csv\ntargeted_attack: 'this:x'\n")
    sys.modules.pop("this", None)
    _one_line_refusal(capsys, ["audit", "--params", params, "--json", "--out", tmp_path / "out"])
    assert "this" not in sys.modules  # the Zen of Python was not printed: `this` never loaded


@pytest.mark.parametrize(
    "name, accepted",
    [
        ("SequentialTrees", True),
        ("MST", True),
        ("Sequentialtrees", False),
        ("os:system", False),
        ("x", False),
    ],
)
def test_a_params_file_names_only_the_kits_synthesizers(tmp_path, name, accepted):
    _tables(tmp_path)
    params = tmp_path / "p.yaml"
    params.write_text(f"train: train.csv\nsynthetic: synthetic.csv\ntargeted_attack: '{name}'\n")
    if accepted:
        assert read_params(params)["targeted_attack"] == name
    else:
        with pytest.raises(PrivlibError, match="`targeted_attack`"):
            read_params(params)


def test_the_command_line_may_still_name_a_module_of_ones_own():
    # the user's own choice, on the command line or in the API, not a params file's
    spec = AuditSpec.build(train="t.csv", synthetic="s.csv", targeted_attack="mypackage.models:MyGenerator")
    assert spec.targeted_attack == "mypackage.models:MyGenerator"


# -- paths: inside the params file's folder ---------------------------------------------------
@pytest.fixture
def outside(tmp_path) -> tuple[Path, Path]:
    """``(folder, secret)``: a params folder and, outside it, a readable table holding SECRET."""
    folder, elsewhere = tmp_path / "params", tmp_path / "elsewhere"
    folder.mkdir()
    elsewhere.mkdir()
    _tables(folder)
    secret = elsewhere / "secret.csv"
    secret.write_text(f"{SECRET}\n1,2\n3,4\n")
    return folder, secret


def _escapes(folder: Path, secret: Path) -> dict[str, str]:
    """The ways a params file in ``folder`` may name ``secret``: absolute, by ``..``, by a link."""
    (folder / "link.csv").symlink_to(secret)
    return {
        "absolute": str(secret),
        "dot-dot": os.path.relpath(secret, folder),
        "symbolic link": "link.csv",
    }


@pytest.mark.parametrize("field", ["train", "synthetic", "holdout", "schema_file"])
def test_a_file_outside_the_params_folder_is_refused_and_never_read(outside, capsys, field):
    folder, secret = outside
    out = folder.parent / "out"
    for how, named in _escapes(folder, secret).items():
        values = {"train": "train.csv", "synthetic": "synthetic.csv"} | {field: named}
        params = folder / f"{how.replace(' ', '_')}.yaml"
        params.write_text("".join(f"{k}: {v!r}\n" for k, v in values.items()))
        for command in (["audit", "--json"], ["course"]):
            if command == ["course"] and field != "train":
                continue  # a course reads only the params file's train table
            line = _one_line_refusal(capsys, [*command, "--params", params, "--out", out])
            assert f"`{field}` names a file outside the params file's folder" in line, (how, line)
            assert SECRET not in line and "--data-root" in line
            assert not out.exists(), how


def test_data_root_admits_the_folder_it_names(outside):
    folder, secret = outside
    params = folder / "p.yaml"
    params.write_text(f"train: {str(secret)!r}\nsynthetic: synthetic.csv\n")
    with pytest.raises(PrivlibError, match="outside the params file's folder"):
        read_params(params)
    read = read_params(params, root=secret.parent.parent)  # holds both folders
    assert Path(read["train"]) == secret
    with pytest.raises(PrivlibError, match="outside the folder given with --data-root"):
        read_params(params, root=secret.parent)  # synthetic.csv lies outside it
    with pytest.raises(PrivlibError, match="is not a folder"):
        read_params(params, root=secret)


def test_data_root_only_with_a_params_file(tmp_path, capsys):
    _tables(tmp_path)
    line = _one_line_refusal(capsys, _files_audit(tmp_path, "--data-root", tmp_path))
    assert "--data-root" in line


def test_files_inside_the_folder_and_bundled_datasets_are_read(outside):
    folder, _ = outside
    (folder / "tables").mkdir()
    (folder / "tables" / "holdout.csv").write_text("a,b\n1,2\n")
    params = folder / "p.yaml"
    params.write_text(
        "train: ./train.csv\nsynthetic: [synthetic.csv]\nholdout: tables/../tables/holdout.csv\n"
    )
    read = read_params(params)
    assert Path(read["holdout"]).resolve() == (folder / "tables" / "holdout.csv").resolve()
    assert read_params(params_file("ce"))["dataset"] == "ce"


# -- bounds -----------------------------------------------------------------------------------
def test_the_synthetic_list_is_capped_like_the_synthesizers(tmp_path):
    _tables(tmp_path)
    params = tmp_path / "p.yaml"
    for count, accepted in ((MAX_SYNTHETIC_FILES, True), (MAX_SYNTHETIC_FILES + 1, False), (300, False)):
        params.write_text(f"train: train.csv\nsynthetic: {['synthetic.csv'] * count}\n")
        if accepted:
            assert len(read_params(params)["synthetic"]) == count
        else:
            with pytest.raises(PrivlibError, match=f"a list of at most {MAX_SYNTHETIC_FILES}"):
                read_params(params)
    assert MAX_SYNTHETIC_FILES == 10


@pytest.mark.parametrize(
    "character",
    ["\x00", "\n", "\x1b", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e"]
    + ["\u2066", "\u2067", "\u2068", "\u2069", "\u061c", "\u2028"],
)
def test_a_title_with_a_control_character_is_refused(character):
    with pytest.raises(PrivlibError, match="`title` holds a control character"):
        AuditSpec.build(train="t.csv", synthetic="s.csv", title=f"Audit{character}gpj.exe")


def test_a_plain_title_in_any_script_is_kept():
    title = "Audit: données de santé, 健康数据, بيانات"
    assert AuditSpec.build(train="t.csv", synthetic="s.csv", title=title).title == title


def test_a_params_file_title_with_a_bidi_control_is_one_line(tmp_path, capsys):
    _tables(tmp_path)
    params = tmp_path / "p.yaml"
    params.write_text('train: train.csv\nsynthetic: synthetic.csv\ntitle: "Audit \\u202Efdp.exe"\n')
    line = _one_line_refusal(capsys, ["audit", "--params", params, "--out", tmp_path / "out"])
    assert "`title` holds a control character" in line


# -- the Python API's progress ----------------------------------------------------------------
def test_progress_that_is_not_a_function_is_refused_before_any_work(monkeypatch):
    from privlib.audit import runner

    def no_work(spec):
        raise AssertionError("the tables were read")

    monkeypatch.setattr(runner, "inputs_of", no_work)
    frame = pd.DataFrame({"a": range(10)})
    for value in (True, "yes", 1, 0):
        with pytest.raises(ParameterError, match="`progress` must be a function progress"):
            pl.audit.run(train=frame, synthetic=frame, progress=value)


@pytest.mark.slow
def test_progress_false_runs_without_progress_calls():
    # False, like None, asks for no progress calls: the audit runs to its report
    adult = pl.load_dataset("adult").head(400)
    train, holdout = adult.iloc[:200], adult.iloc[200:]
    report = pl.audit.run(
        train=train,
        synthetic=train,
        holdout=holdout,
        keys=["age", "sex"],
        sensitive=["income"],
        progress=False,
    )
    assert report.decision == "do not release"


def test_a_module_named_on_the_command_line_prints_nothing_on_stdout(tmp_path, capsys, monkeypatch):
    # the user's own module may print as it loads: --json's stdout stays the summary's alone
    _tables(tmp_path)
    (tmp_path / "chatty_gen.py").write_text("print('hello from chatty_gen')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["--quiet", *_files_audit(tmp_path, "--targeted-attack", "chatty_gen:Missing", "--json")])
    captured = capsys.readouterr()
    error = next(line for line in captured.err.splitlines() if line.startswith("privlib: error:"))
    assert code == 2
    _assert_stdout_is_the_error_alone(captured.out, error, as_json=True)
    assert "hello from chatty_gen" in captured.err and "chatty_gen:Missing cannot be imported" in captured.err
    sys.modules.pop("chatty_gen", None)


def test_the_command_line_and_the_api_cap_the_synthetic_tables_too(tmp_path, capsys):
    frame = pd.DataFrame({"a": range(30)})
    assert len(AuditSpec.build(train=frame, synthetic=[frame] * 10).synthetic) == 10
    for many in ([frame] * 11, {f"g{i}": frame for i in range(11)}):
        with pytest.raises(PrivlibError, match="`synthetic` names 11 tables, more than the 10"):
            AuditSpec.build(train=frame, synthetic=many)
    _tables(tmp_path)
    more = [tmp_path / "synthetic.csv"] * 10  # 11 in all
    line = _one_line_refusal(capsys, _files_audit(tmp_path, *more))
    assert "`synthetic` names 11 tables" in line
