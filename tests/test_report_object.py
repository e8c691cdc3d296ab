"""The report object from Python: its notebook display carries its own scoped styles,
``save(folder)`` publishes into a folder by the command line's rules with one file mode, a path
that is not a folder is refused in one readable line, and ``dir(report)`` shows the report."""

from __future__ import annotations

import json
import os
import re

import pytest
from audit_report_fixture import leaky_report

import privlib.render.audit  # noqa: F401  (who renders registers the report's pages)
from privlib.audit import AuditReport
from privlib.audit.report import SCHEMA_VERSION
from privlib.errors import PrivlibError
from privlib.render.pages import scoped_stylesheet, stylesheet

PROVENANCE = {
    "privlib_version": "0",
    "python_version": "3",
    "pandas_version": "2",
    "created": "2026-01-02T03:04:05+00:00",
    "inputs": [
        {"role": "train", "file": "train.csv", "rows": 1000, "columns": 5, "sha256": "a" * 64},
        {"role": "synthetic", "file": "leaky.csv", "rows": 1000, "columns": 5, "sha256": "b" * 64},
    ],
    "spec": {"seed": 5, "keys": ["age", "sex"]},
}


@pytest.fixture()
def report() -> AuditReport:
    document = dict(
        leaky_report(), schema_version=SCHEMA_VERSION, synthetic_label="leaky", provenance=PROVENANCE
    )
    return AuditReport.model_validate(document)


def test_the_display_carries_the_kits_styles_scoped_to_it(report):
    shown = report._repr_html_()
    assert shown.startswith('<div class="privlib-report">') and "<style" in shown
    css = re.search(r"<style>(.*?)</style>", shown, re.S).group(1)
    selectors = [s.strip() for rule in re.findall(r"([^{}]+)\{[^{}]*\}", css) for s in rule.split(",")]
    assert selectors and all(s.startswith(".privlib-report") for s in selectors)
    # the chips' and cards' rules are there, and nothing for the page (body, @page, @media print)
    assert ".privlib-report .privlib-chip " in css and ".privlib-report .privlib-card " in css
    assert "@page" not in css and "@media" not in css and not re.search(r"\bbody\b", css)
    assert "do not release" in shown and "&lt;leaky&gt;" in shown


def test_a_scoped_stylesheet_keeps_every_rule_of_the_kits_stylesheet_outside_print():
    # the kit's rules outside @-blocks, counted independently: top-level "{" not inside an @-block
    css = re.sub(r"/\*.*?\*/", "", stylesheet(), flags=re.S)
    depth, top_rules, in_at = 0, 0, False
    for i, ch in enumerate(css):
        if ch == "{":
            if depth == 0:
                prelude = css[:i].rsplit("}", 1)[-1].strip()
                in_at = prelude.startswith("@")
                top_rules += not in_at and prelude != "main"
            depth += 1
        elif ch == "}":
            depth -= 1
    assert scoped_stylesheet(".x").count("{") == top_rules


def test_save_publishes_into_an_existing_folder_and_leaves_other_files_alone(report, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    assert report.save(tmp_path, formats=("json", "html")) == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json", "notes.txt", "report.html"]
    assert (tmp_path / "notes.txt").read_text() == "mine"
    assert json.loads((tmp_path / "metrics.json").read_text())["decision"] == "do not release"
    page = (tmp_path / "report.html").read_text()
    assert "<style>" in page and 'id="glossary"' in page
    # nothing of the staging is left beside the folder
    assert [p.name for p in tmp_path.parent.iterdir() if p.name.startswith(f".{tmp_path.name}")] == []


def test_save_makes_a_new_folder_and_gives_every_file_the_umasks_mode(report, tmp_path):
    previous = os.umask(0o027)
    try:
        out = report.save(f"{tmp_path}/new/", formats=("json", "html"))
    finally:
        os.umask(previous)
    assert out.is_dir() and out.name == "new"
    modes = {p.name: p.stat().st_mode & 0o777 for p in out.iterdir()}
    # a new file under umask 027 is 0o666 & ~0o027 = 0o640, whichever library wrote it
    assert modes == {"metrics.json": 0o640, "report.html": 0o640}


def test_save_refuses_a_file_and_unknown_formats_in_one_line(report, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("{}")
    with pytest.raises(
        PrivlibError, match=r"^`folder` .* exists and is not a folder; give a folder"
    ) as caught:
        report.save(target)
    assert "\n" not in str(caught.value) and target.read_text() == "{}"
    with pytest.raises(PrivlibError, match=r"`formats` \['docx'\]"):
        report.save(tmp_path, formats=("json", "docx"))
    with pytest.raises(PrivlibError, match="`formats` is empty"):
        report.save(tmp_path, formats=())


def test_save_to_a_json_path_writes_that_file_alone(report, tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / "metrics.json").write_text("earlier")
    assert report.save(tmp_path / "metrics.json") == tmp_path / "metrics.json"
    assert (tmp_path / "metrics.json").is_file()
    assert json.loads((tmp_path / "metrics.json").read_text()) == json.loads(report.to_json())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json", "notes.txt"]
    # a new folder is made for it; a folder at the file's name is refused, and left as it is
    assert report.save(tmp_path / "new" / "Audit.JSON").is_file()
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(PrivlibError, match="exists and is not a plain file"):
        report.save(tmp_path / "folder.json")
    assert list((tmp_path / "folder.json").iterdir()) == []


def test_save_with_fewer_formats_removes_the_earlier_reports_other_files(report, tmp_path):
    report.save(tmp_path, formats=("json", "html"))
    (tmp_path / "report.pdf").write_text("an earlier run's PDF")
    (tmp_path / "mine.html").write_text("mine")
    report.save(tmp_path, formats=("json",))
    # report.html and report.pdf were another report's: gone with the same publication
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json", "mine.html"]


def test_to_frame_has_one_row_per_measure_with_the_records_fields(report):
    frame = report.to_frame()
    # the fixture's four measures, in order, by key
    assert list(frame.index) == [
        "identical_match_share",
        "dcr_zero_share",
        "cap[income]",
        "adversarial_accuracy",
    ]
    assert {"value", "ci_low", "ci_high", "baseline", "threshold", "verdict", "family", "title"} <= set(frame)
    assert frame.loc["cap[income]", "value"] == 0.62 and frame.loc["cap[income]", "target"] == "income"
    assert list(frame["verdict"]) == ["risk", "no evidence of risk", "inconclusive", "no evidence of risk"]
    assert frame.loc["identical_match_share", "details"] == {"n_copies": 200}


def test_a_measure_record_as_a_dict_and_the_short_reprs(report):
    record = report.measures[0]
    as_dict = record.to_dict()
    assert as_dict["key"] == "identical_match_share" and as_dict["value"] == 0.2
    assert as_dict["details"] == {"n_copies": 200} and as_dict["verdict"] == "risk"
    assert repr(record) == (
        "MeasureRecord(key='identical_match_share', family='identity', value=0.2, verdict='risk')"
    )
    shown = repr(report)
    # the fixture: 3 families (risk, inconclusive, not assessed), 4 measures (1 risk, 2 no
    # evidence, 1 inconclusive), 1 skipped
    assert shown == (
        "AuditReport(decision='do not release', synthetic='leaky', families=3 (1 risk, "
        "1 inconclusive, 1 not assessed), measures=4 (1 risk, 2 no evidence of risk, "
        "1 inconclusive), skipped=1)"
    )
    assert "\n" not in shown and len(shown) < 300 and str(report) == shown and str(record) == repr(record)


def test_the_decision_on_each_file_reaches_the_json_and_the_summary(report):
    other = report.model_copy(update={"synthetic_label": "careful", "decision": "not assessable"})
    report._results["identical_match_share"] = "the full result"
    both = report.with_files([report, other])
    # the per-record results stay with the copy: its figures are drawn from them
    assert both.result("identical_match_share") == "the full result"
    assert [f.synthetic_label for f in both.files] == ["leaky", "careful"]
    assert [f.decision for f in both.files] == ["do not release", "not assessable"]
    assert both.files[0].families == {
        "identity": "risk",
        "attribute": "inconclusive",
        "membership": "not assessed",
    }
    document = json.loads(both.to_json())
    assert document["files"][1] == {
        "synthetic_label": "careful",
        "decision": "not assessable",
        "families": {"identity": "risk", "attribute": "inconclusive", "membership": "not assessed"},
    }
    assert both.summary()["files"] == document["files"] and both.summary()["synthetic_label"] == "leaky"
    assert report.summary()["files"] == []


def test_dir_shows_the_reports_fields_and_methods_not_pydantics(report):
    names = dir(report)
    assert {"decision", "families", "measures", "save", "to_json", "summary", "result"} <= set(names)
    assert not {"model_validate", "model_construct", "parse_obj", "schema_json", "copy"} & set(names)
    assert len(names) < 30
