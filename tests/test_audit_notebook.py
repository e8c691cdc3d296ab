"""The audit notebook shows the pages ``privlib audit`` saved: every fragment in its
place and order, read back as data, so that a fragment holding code is shown, never run."""

import json

import nbformat
import pytest

from privlib import pipeline
from privlib.pipeline import execution

pytestmark = pytest.mark.notebook


def test_the_notebook_shows_the_saved_pages_in_order_and_as_data(tmp_path):
    pytest.importorskip("papermill")
    # text a template engine or a kernel would run if it ever became code
    hostile = '<p>{{ 7 * 7 }} "); open("ran", "w"); ("</p>'
    sections = {
        "decision": "<p>decision</p>",
        "fidelity": "<p>fidelity</p>",
        "variable_fidelity": "<p>per variable</p>",
        "forest": "<p>forest</p>",
        "verdicts": "<p>verdicts</p>",
        "families": [
            {
                "readings": "<p>identity</p>",
                "tables": ["<table>1</table>", "<table>2</table>"],
                "figures": "<figure/>",
            },
            {"readings": "<p>membership</p>", "tables": [], "figures": ""},
        ],
        "comparison": "",
        "appendix": hostile,
        "provenance": "<p>provenance</p>",
        "glossary": "<p>glossary</p>",
    }
    (tmp_path / "pages.json").write_text(json.dumps(sections), encoding="utf-8")
    executed = tmp_path / "executed.ipynb"
    execution._execute(
        pipeline.audit_notebook(), executed, {"sections_path": "pages.json"}, cwd=tmp_path, progress=False
    )
    shown = [
        output["data"]["text/html"]
        for cell in nbformat.read(str(executed), as_version=4).cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if "text/html" in output.get("data", {})
    ]
    assert shown == [
        "<p>decision</p>",
        "<p>fidelity</p>",
        "<p>per variable</p>",
        "<p>forest</p>",
        "<p>verdicts</p>",
        "<p>identity</p>",
        "<table>1</table>",
        "<table>2</table>",
        "<figure/>",
        "<p>membership</p>",
        hostile,
        "<p>provenance</p>",
        "<p>glossary</p>",
    ]
    assert not (tmp_path / "ran").exists()
