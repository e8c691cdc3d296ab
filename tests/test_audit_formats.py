"""``privlib audit --formats`` and ``--json``: a JSON-only audit does no
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
from privlib.pipeline import audit_report

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _no_rendering(monkeypatch) -> None:
    """Every step that makes the HTML, the PDF or the notebook fails the test if it runs."""

    def refuse(*args, **kwargs):
        raise AssertionError("a JSON-only audit rendered something")

    for name in ("render_html", "render_pdf", "_execute", "_early_kernel", "_report_sections"):
        monkeypatch.setattr(audit_report, name, refuse)


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


def _stub_rendering(monkeypatch) -> list[str]:
    """The notebook, the HTML and the PDF replaced by steps that write a line and note their
    name: the publication is tested without their cost."""
    import contextlib

    calls: list[str] = []

    @contextlib.contextmanager
    def kernel(folder):
        calls.append("kernel")
        yield None

    @contextlib.contextmanager
    def figures(spec, inputs, folder):
        yield str

    def execute(notebook, output, parameters, **kwargs):
        calls.append("notebook")
        output.write_text("executed")

    def html(executed, target, **kwargs):
        calls.append("html")
        target.write_text("page")

    def pdf(page, target):
        calls.append("pdf")
        target.write_text("pdf")

    monkeypatch.setattr(audit_report, "_early_kernel", kernel)
    monkeypatch.setattr(audit_report, "_variable_figures", figures)
    monkeypatch.setattr(audit_report, "_report_sections", lambda reports, variables, explanations=(): {})
    monkeypatch.setattr(audit_report, "_execute", execute)
    monkeypatch.setattr(audit_report, "render_html", html)
    monkeypatch.setattr(audit_report, "render_pdf", pdf)
    return calls


@pytest.mark.slow
def test_each_format_makes_and_publishes_only_its_files(tmp_path, monkeypatch):
    calls = _stub_rendering(monkeypatch)
    paths = _make_inputs(tmp_path)
    out = tmp_path / "out"
    settings = dict(
        out=out,
        train=str(paths["train"]),
        synthetic=[str(paths["synthetic"])],
        holdout=str(paths["holdout"]),
        keys=["Income", "UrbanRural", "Race"],
        progress=False,
    )
    pipeline.audit_and_publish(**settings)
    assert calls == ["kernel", "notebook", "html", "pdf"]
    assert sorted(p.name for p in out.iterdir()) == sorted(pipeline.AUDIT_FILES)
    calls.clear()
    # the PDF needs the HTML made, but only the PDF is published: the earlier page goes
    pipeline.audit_and_publish(**settings, formats=["pdf"])
    assert calls == ["kernel", "notebook", "html", "pdf"]
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json", "privacy_audit.ipynb", "report.pdf"]
    calls.clear()
    pipeline.audit_and_publish(**settings, formats=["json", "html"])
    assert calls == ["kernel", "notebook", "html"]
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json", "privacy_audit.ipynb", "report.html"]
    # one synthetic file: no decision per file
    assert json.loads((out / "metrics.json").read_text())["files"] == []


@pytest.mark.slow
def test_progress_lines_inside_the_discriminator_and_the_shadow_model(caplog):
    import numpy as np
    import pandas as pd

    from privlib.membership import discriminator_test
    from privlib.targeted import shadow_model_attack

    rng = np.random.default_rng(0)

    def table(n):
        return pd.DataFrame({"x": rng.normal(size=n), "g": rng.choice(["a", "b"], n)})

    with caplog.at_level("INFO", logger="privlib"):
        discriminator_test(
            train=table(200), holdout=table(200), synthetic=table(120), n_repeats=2, random_state=0
        )
        population = pd.DataFrame({"x": [float(i % 7) for i in range(200)] + [50.0]})
        train = population.iloc[[0, 1, 2, 3, 4, 5, 200]].reset_index(drop=True)
        shadow_model_attack(
            synthesizer="Copy",
            train=train,
            population=population,
            n_targets=1,
            n_shadows=2,
            n_test=2,
            features="histogram",
            n_jobs=1,
            random_state=0,
        )
    lines = [record.getMessage() for record in caplog.records]
    # 120 synthetic records: half (60) fit the classifier, the other half is scored
    assert (
        lines[0]
        == "discriminator: 2 fit(s) of HistGradientBoostingClassifier on 200 training and 60 synthetic records"
    )
    assert [line.split(" done")[0] for line in lines[1:3]] == [
        "discriminator: fit 1 of 2",
        "discriminator: fit 2 of 2",
    ]
    # 2 * (2 shadow + 2 test) pairs = 8 fits for the one target
    assert lines[3] == "shadow-model attack: refitting Copy 8 times for each of 1 target(s)"
    assert lines[4].startswith("shadow-model attack: target 1 of 1 done (")
    assert len(lines) == 5


def test_the_input_checks_say_so_before_and_after(tmp_path, caplog):
    paths = _make_inputs(tmp_path)
    spec, _ = pipeline.audit_spec(
        train=str(paths["train"]), synthetic=[str(paths["synthetic"]), str(paths["shuffled"])], holdout=None
    )
    with caplog.at_level("INFO", logger="privlib"):
        audit_report._audit_inputs(spec, progress=True, preload=False)
    lines = [record.getMessage() for record in caplog.records]
    assert lines[0] == "reading and checking the tables (training, 2 synthetic files) ..."
    assert lines[-1].startswith("tables checked in ") and lines[-1].endswith(" s")


def test_publication_retires_the_formats_left_out_first_and_follows_no_link(tmp_path, monkeypatch):
    import os

    from privlib import publish as publishing

    out, stage, elsewhere = tmp_path / "out", tmp_path / "stage", tmp_path / "elsewhere.pdf"
    out.mkdir()
    stage.mkdir()
    elsewhere.write_text("someone's file")
    (out / "report.html").write_text("an earlier run's page")
    os.symlink(elsewhere, out / "report.pdf")
    (out / "privacy_audit.ipynb").mkdir()  # a folder at a retired name is not the kit's file
    (stage / "metrics.json").write_text("{}")
    seen = []
    replace = os.replace

    def noting(source, target, **kwargs):
        seen.append(sorted(p.name for p in out.iterdir()))
        return replace(source, target, **kwargs)

    monkeypatch.setattr(publishing.os, "replace", noting)
    publishing.publish(
        stage, out, {"metrics.json"}, retire={"report.html", "report.pdf", "privacy_audit.ipynb"}
    )
    # when the new metrics.json moved in, the earlier page and the link were gone already
    assert seen == [["privacy_audit.ipynb"]]
    assert sorted(p.name for p in out.iterdir()) == ["metrics.json", "privacy_audit.ipynb"]
    assert elsewhere.read_text() == "someone's file"  # the link went, not what it pointed to
