"""A report made from hostile names: escaped everywhere, no script runs, no file gets into the PDF;
and an interrupted run leaves the earlier report and no temporary files behind."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

SCRIPT = "<script>document.body.setAttribute('data-pwned','script')</script>"
IMAGE = "<img src=x onerror=\"document.body.setAttribute('data-pwned','img')\">"
ATTACHMENT = '<a rel="attachment" href="file:///etc/hostname">attached</a>'
DOLLARS = "pay_$1k_$"
TITLE = "<script>document.body.setAttribute('data-pwned','title')</script> Audit"
PAYLOADS = (SCRIPT, IMAGE, ATTACHMENT)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """An audit of ACS samples whose column names and title are HTML and JavaScript payloads."""
    folder = tmp_path_factory.mktemp("hostile")
    data = pl.load_dataset("acs").rename(columns={"SEX": SCRIPT, "RACE": IMAGE, "MAR": ATTACHMENT, "DIS": DOLLARS})
    rng = np.random.default_rng(5)
    order = rng.permutation(len(data))
    train = data.iloc[order[:150]].reset_index(drop=True)
    holdout = data.iloc[order[150:300]].reset_index(drop=True)
    synthetic = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train.columns})
    paths = {}
    for name, table in (("train", train), ("holdout", holdout), ("synthetic", synthetic)):
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    out = folder / "report"
    status = main([
        "--quiet", "audit", "--train", str(paths["train"]), "--synthetic", str(paths["synthetic"]),
        "--holdout", str(paths["holdout"]), "--keys", SCRIPT, IMAGE, ATTACHMENT,
        "--sensitive", DOLLARS, "--title", TITLE, "--out", str(out),
    ])
    assert status == 0
    return out


def test_every_name_is_text_in_the_html(hostile):
    page = (hostile / "report.html").read_text()
    assert "<script" not in page.lower()  # the kit writes no script, and no name became one
    for payload in PAYLOADS:
        assert payload not in page  # never raw ...
    assert "&lt;script&gt;document.body.setAttribute(" in page  # ... but shown, escaped
    assert not re.search(r"<img[^>]+onerror", page)
    assert not re.search(r'<a[^>]+rel="attachment"', page)
    assert DOLLARS in page  # dollars are text, not math
    metrics = json.loads((hostile / "metrics.json").read_text())
    # JSON keeps names as they are: in the spec, and in the keys of the measures run per target
    assert metrics["provenance"]["spec"]["keys"] == [SCRIPT, IMAGE, ATTACHMENT]
    assert metrics["provenance"]["spec"]["sensitive"] == [DOLLARS]
    assert f"cap[{DOLLARS}]" in {m["key"] for m in metrics["measures"]}


def test_the_pdf_embeds_no_file(hostile):
    from pypdf import PdfReader

    reader = PdfReader(hostile / "report.pdf")
    assert reader.attachments == {}
    text = " ".join(page.extract_text() for page in reader.pages)
    assert "attached" in text  # the anchor's text, shown as a name, not followed


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="no headless Chromium on this machine (apt-get install chromium)")
def test_no_script_runs_in_a_real_browser(hostile):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    dom = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000",
         "--dump-dom", (hostile / "report.html").as_uri()],
        capture_output=True, text=True, timeout=120,
    ).stdout
    assert "<body" in dom
    assert not re.search(r"<body[^>]*data-pwned", dom)  # no payload ran


def test_an_interrupted_audit_leaves_the_earlier_report_and_no_temporary_files(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("an earlier report")
    params = Path(pl.pipeline.params_file("adult"))
    process = subprocess.Popen(
        [sys.executable, "-m", "privlib", "--quiet", "audit", "--params", str(params), "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".out.audit-*")) and time.monotonic() < deadline:
        time.sleep(0.1)  # wait until the run has staged its work (copies of the tables included)
    time.sleep(1.0)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert err.strip().splitlines()[-1] == "privlib: interrupted; the earlier report is intact"
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # staging and table copies removed
    assert [p.name for p in out.iterdir()] == ["report.html"]
    assert (out / "report.html").read_text() == "an earlier report"
