"""``privlib audit --formats`` and ``--json`` (issue 44 items 7 and 8): a JSON-only audit does no
rendering and leaves no file of an earlier run's other formats beside its metrics.json; the
decision on each synthetic file reaches ``--json`` and metrics.json; bad input under ``--json``
is one JSON object on stdout besides the line on stderr."""

from __future__ import annotations

import json

import pytest
from test_cli import _audit_args, _make_inputs

import privlib as pl
from privlib import pipeline
from privlib.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _no_rendering(monkeypatch) -> None:
    """Every step that makes the HTML, the PDF or the notebook fails the test if it runs."""

    def refuse(*args, **kwargs):
        raise AssertionError("a JSON-only audit rendered something")

    for name in ("render_html", "render_pdf", "_execute", "_early_kernel", "_report_sections"):
        monkeypatch.setattr(pipeline, name, refuse)


@pytest.mark.slow
def test_a_json_only_audit_renders_nothing_and_retires_the_earlier_pages(tmp_path, monkeypatch, capsys):
    _no_rendering(monkeypatch)
    paths = _make_inputs(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    for name in ("report.html", "report.pdf", "privacy_audit.ipynb", "metrics.json"):
        (out / name).write_text("an earlier run")
    (out / "notes.txt").write_text("mine")
    (out / "report.pdf.d").mkdir()  # not a name of the kit's: left alone
    assert main([*_audit_args(paths, out), "--formats", "json", "--json"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json", "notes.txt", "report.pdf.d"]
    assert (out / "notes.txt").read_text() == "mine"
    metrics = json.loads((out / "metrics.json").read_text())
    summary = json.loads(capsys.readouterr().out)
    assert summary["report"] == str(out / "metrics.json")
    # two synthetic files: the decision on each, the first the one the report assesses
    labels = [f["synthetic_label"] for f in metrics["files"]]
    assert labels == ["synthetic", "shuffled"] and summary["files"] == metrics["files"]
    assert metrics["files"][0]["decision"] == metrics["decision"] == "do not release"
    # the second file's decision is that of an audit of the file alone
    alone = pl.audit.run(
        train=paths["train"],
        synthetic=paths["shuffled"],
        holdout=paths["holdout"],
        keys=["Income", "UrbanRural", "Race"],
        sensitive=["Expenditure"],
        population_size=5000,
        seed=11,
        title="Test audit of CE",
    )
    assert metrics["files"][1]["decision"] == alone.decision
    assert metrics["files"][1]["families"] == {f.family: f.verdict for f in alone.families}


def test_bad_input_under_json_is_one_json_object_on_stdout(tmp_path, capsys):
    absent = str(tmp_path / "absent.csv")
    args = ["--quiet", "audit", "--train", absent, "--synthetic", absent, "--out", str(tmp_path / "o")]
    assert main([*args, "--json"]) == 2
    captured = capsys.readouterr()
    error = json.loads(captured.out)
    assert set(error) == {"error", "exit"} and error["exit"] == 2 and "absent.csv" in error["error"]
    line = captured.err.strip()
    assert line.count("\n") == 0 and line == f"privlib: error: {error['error']}"
    # without --json stdout stays empty
    assert main(args) == 2 and capsys.readouterr().out == ""
    # a usage error too (--out missing), and an unknown format, before any work
    assert main(["audit", "--json", "--train", absent]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["exit"] == 2 and "--out" in json.loads(captured.out)["error"]
    assert main([*args, "--json", "--formats", "json,docx"]) == 2
    error = json.loads(capsys.readouterr().out)
    assert "'docx'" in error["error"] and "json, html, pdf" in error["error"]
    assert not (tmp_path / "o").exists()


def test_formats_are_checked_and_json_is_always_written():
    assert pipeline.audit_formats(None) == {"json", "html", "pdf"}
    assert pipeline.audit_formats(["pdf"]) == {"json", "pdf"}
    with pytest.raises(pl.PrivlibError, match="`formats` 'docx'"):
        pipeline.audit_formats(["docx"])
    with pytest.raises(pl.PrivlibError, match="`formats` none"):
        pipeline.audit_formats([])
