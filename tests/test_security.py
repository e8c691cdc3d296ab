"""A report made from hostile names: escaped everywhere, no script runs, no file gets into the PDF;
and an interrupted run leaves the earlier report and no temporary files behind."""

from __future__ import annotations

import json
import os
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

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"), pytest.mark.notebook]

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
    data = pl.load_dataset("acs").rename(
        columns={"SEX": SCRIPT, "RACE": IMAGE, "MAR": ATTACHMENT, "DIS": DOLLARS}
    )
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
    status = main(
        [
            "--quiet",
            "audit",
            "--train",
            str(paths["train"]),
            "--synthetic",
            str(paths["synthetic"]),
            "--holdout",
            str(paths["holdout"]),
            "--keys",
            SCRIPT,
            IMAGE,
            ATTACHMENT,
            "--sensitive",
            DOLLARS,
            "--title",
            TITLE,
            "--out",
            str(out),
        ]
    )
    assert status == 0
    return out


def test_every_name_is_text_in_the_html(hostile):
    page = (hostile / "report.html").read_text()
    assert "<script" not in page.lower()  # the kit writes no script, and no name became one
    for payload in PAYLOADS:
        assert payload not in page  # never raw ...
    assert "&lt;script&gt;document.body.setAttribute(" in page  # ... but shown, escaped
    # no element the page parses to carries a payload's attribute (the figures' alt texts quote
    # the names, escaped, so a search of the raw text would find them inside an attribute value)
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(page, features="html.parser")
    assert not [img for img in soup.find_all("img") if img.has_attr("onerror")]
    assert not soup.find_all("a", rel="attachment")
    assert any("onerror" in img.get("alt", "") for img in soup.find_all("img"))  # shown as text
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


@pytest.mark.skipif(
    shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
    reason="no headless Chromium on this machine (apt-get install chromium)",
)
def test_no_script_runs_in_a_real_browser(hostile):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    dom = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=3000",
            "--dump-dom",
            (hostile / "report.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
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
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
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


# --------------------------------------------------------------------------------------------
# Publication touches only the report's own files, under a lock, never through a link
# --------------------------------------------------------------------------------------------
OWN = ("report.html", "metrics.json", "report.pdf")

#: A process that publishes a three-file report into argv[1] argv[3] times, as the pipelines do.
PUBLISHER = f"""
import sys
from privlib.publish import checked_out, publish, staging
out, me, rounds = checked_out(sys.argv[1]), sys.argv[2], int(sys.argv[3])
for i in range(rounds):
    with staging(out, "audit") as stage:
        report = stage / "report"
        report.mkdir()
        for name in {OWN!r}:
            (report / name).write_text(f"{{me}}:{{i}}\\n" * 20000)
        publish(report, out, set({OWN!r}))
"""


def _publisher(out, me, rounds):
    return subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(out), str(me), str(rounds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _users_folder(tmp_path):
    """An output folder holding a user's own entries, and a file outside it that a link points to."""
    out = tmp_path / "out"
    (out / "course").mkdir(parents=True)
    (out / "course" / "index.html").write_text("the user's course")
    (out / "notes.txt").write_text("the user's notes")
    (out / ".hidden").write_text("the user's hidden file")
    (tmp_path / "outside.txt").write_text("outside")
    os.symlink(tmp_path / "outside.txt", out / "link")
    return out


def _snapshot(out):
    def content(p):
        return os.readlink(p) if p.is_symlink() else p.read_text() if p.is_file() else "a folder"

    return {str(p.relative_to(out)): content(p) for p in sorted(out.rglob("*")) if p.name not in OWN}


def _complete_reports(out):
    """The writer and round of each report file, after checking each is whole."""
    found = set()
    for name in OWN:
        lines = (out / name).read_text().splitlines()
        assert len(lines) == 20000 and len(set(lines)) == 1, name  # never a mix, never a part
        found.add(lines[0])
    return found


def test_concurrent_publications_queue_and_keep_the_users_entries(tmp_path):
    out = _users_folder(tmp_path)
    before = _snapshot(out)
    runs = [_publisher(out, me, 10) for me in range(4)]
    for run in runs:
        _, err = run.communicate(timeout=300)
        assert run.returncode == 0, err
    assert _snapshot(out) == before
    assert len(_complete_reports(out)) == 1  # the three files of one publication (the lock)
    assert (tmp_path / "outside.txt").read_text() == "outside"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.txt"]  # no staging, no lock


def test_a_publication_killed_at_any_moment_leaves_whole_files_and_the_next_run_cleans_up(tmp_path):
    out = _users_folder(tmp_path)
    before = _snapshot(out)
    first = _publisher(out, "first", 1)
    first.communicate(timeout=120)
    for delay in (0.5, 1.0, 1.5, 2.0, 3.0):  # from before the first file to mid-publication
        run = _publisher(out, f"killed{delay}", 1000)
        time.sleep(delay)
        run.kill()  # SIGKILL: no clean-up of any kind
        run.communicate(timeout=60)
        assert _snapshot(out) == before
        _complete_reports(out)  # each file is an earlier one or a new one, whole
    final = _publisher(out, "final", 1)
    _, err = final.communicate(timeout=120)
    assert final.returncode == 0, err
    assert _complete_reports(out) == {"final:0"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.txt"]  # stale staging removed


def test_a_link_at_a_reports_name_is_replaced_never_followed(tmp_path):
    from privlib.publish import checked_out, publish, staging

    out = _users_folder(tmp_path)
    os.symlink(tmp_path / "outside.txt", out / "report.html")
    with staging(checked_out(out), "audit") as stage:
        (stage / "report.html").write_text("new report")
        publish(stage, out, {"report.html"})
    assert not (out / "report.html").is_symlink() and (out / "report.html").read_text() == "new report"
    assert (tmp_path / "outside.txt").read_text() == "outside"


def test_a_folder_at_a_reports_name_stops_the_publication_before_any_file_moves(tmp_path):
    from privlib.errors import PrivlibError
    from privlib.publish import checked_out, publish, staging

    out = _users_folder(tmp_path)
    (out / "report.html").write_text("earlier report")
    (out / "report.pdf").mkdir()
    with pytest.raises(PrivlibError, match="holds 'report.pdf', which is not a file where the report writes"):
        with staging(checked_out(out), "audit") as stage:
            for name in OWN:
                (stage / name).write_text("new")
            publish(stage, out, set(OWN))
    assert (out / "report.html").read_text() == "earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.txt"]


def test_the_reports_index_is_published_like_a_report(tmp_path, monkeypatch):
    from privlib import pipeline
    from privlib.pipeline import course

    out = _users_folder(tmp_path)
    os.symlink(tmp_path / "outside.txt", out / "index.html")
    made = []
    monkeypatch.setattr(course, "run_audit", lambda **kw: made.append(kw["out"]))  # the index alone
    pipeline.run_all(out=out, datasets=["ce"], course=False, progress=False)
    assert made == [out / "ce"]
    assert "privlib reports" in (out / "index.html").read_text() and not (out / "index.html").is_symlink()
    assert (tmp_path / "outside.txt").read_text() == "outside"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "outside.txt"]


def _staged(tmp_path, what):
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        found = list(tmp_path.glob(f".out.audit-*/{what}"))
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"the run never made {what}")


def _earlier_report(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").write_text("an earlier report")
    (out / "mine.txt").write_text("the user's")
    return out


def test_a_killed_audit_leaves_the_earlier_report_and_the_next_run_removes_its_tables(tmp_path):
    from privlib.publish import checked_out, staging

    out = _earlier_report(tmp_path)
    params = Path(pl.pipeline.params_file("ce"))
    process = subprocess.Popen(
        [sys.executable, "-m", "privlib", "--quiet", "audit", "--params", str(params), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _staged(tmp_path, "work/train.csv")
    process.kill()
    process.communicate(timeout=60)
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt", "report.html"]
    assert (out / "report.html").read_text() == "an earlier report"
    assert list(tmp_path.glob(".out.audit-*/work/train.csv"))  # a copy of the tables is left ...
    with staging(checked_out(out), "audit"):
        assert not list(tmp_path.glob(".out.audit-*/work"))  # ... until the next run starts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.parametrize("signum, to_group", [(signal.SIGINT, True), (signal.SIGHUP, False)])
def test_an_interrupt_ends_quietly_with_130(tmp_path, signum, to_group):
    out = _earlier_report(tmp_path)
    params = Path(pl.pipeline.params_file("ce"))
    process = subprocess.Popen(
        [sys.executable, "-m", "privlib", "audit", "--params", str(params), "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    progress = []
    for line in process.stderr:  # the progress lines: wait until the kernel runs the measures' cells
        progress.append(line)
        if re.match(r"privlib: \[\d+/\d+\] ", line):
            break
    time.sleep(1.0)
    if to_group:  # Ctrl-C in a terminal: the whole foreground process group
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    # after the progress lines, one line and nothing from the kernel (no ZMQ traceback)
    progress_line = re.compile(r"^privlib: (\[\d+/\d+\] |\s+(done|skipped)|.* \.\.\.$)")
    after = [line for line in err.splitlines() if line.strip() and not progress_line.match(line)]
    assert after == ["privlib: interrupted; the earlier report is intact"], (progress, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]
    assert (out / "report.html").read_text() == "an earlier report"


@pytest.fixture
def mounted(tmp_path):
    """A small tmpfs mounted at tmp_path/m (skips where this machine cannot mount)."""
    point = tmp_path / "m"
    point.mkdir()
    if (
        shutil.which("mount") is None
        or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=400k", "none", str(point)], capture_output=True
        ).returncode
        != 0
    ):
        pytest.skip("cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)")
    yield point
    subprocess.run(["umount", str(point)], check=True)


def test_an_out_on_a_mount_point_is_refused_in_one_line(mounted, capsys):
    status = main(["--quiet", "audit", "--params", str(pl.pipeline.params_file("ce")), "--out", str(mounted)])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "is a mount point; give a folder inside it" in err[0], err
    assert list(mounted.iterdir()) == []


def test_a_full_disk_is_one_line_and_leaves_the_earlier_report(mounted):
    out = mounted / "out"
    out.mkdir()
    (out / "report.html").write_text("an earlier report")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "privlib",
            "--quiet",
            "audit",
            "--params",
            str(pl.pipeline.params_file("ce")),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    err = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(err) == 1 and "No space left on device" in err[0], err
    assert sorted(p.name for p in mounted.iterdir()) == ["out"]
    assert [p.name for p in out.iterdir()] == ["report.html"]
    assert (out / "report.html").read_text() == "an earlier report"


# --------------------------------------------------------------------------------------------
# No confidential value in a refusal or a plot's axis
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["binary", "list", "struct", "map", "time"])
def test_parquet_columns_of_other_types_are_refused_by_type_never_by_value(tmp_path, kind):
    import datetime

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    from privlib.audit import load_audit_inputs
    from privlib.errors import PrivlibError

    n = 30
    column = {
        "binary": pa.array([b"MARKER%d" % i for i in range(n)]),
        "list": pa.array([[i, 424242] for i in range(n)]),
        "struct": pa.array([{"a": i, "b": "MARKER"} for i in range(n)]),
        "map": pa.array([[("MARKER", i)] for i in range(n)], type=pa.map_(pa.string(), pa.int64())),
        "time": pa.array([datetime.time(13, 37, i) for i in range(n)]),
    }[kind]
    table = pa.table({"age": pa.array(range(n)), "x": column})
    pq.write_table(table, tmp_path / "t.parquet")
    with pytest.raises(PrivlibError) as refusal:
        load_audit_inputs(train=tmp_path / "t.parquet", synthetic=tmp_path / "t.parquet")
    message = str(refusal.value)
    assert f"column 'x' of `train` has Parquet type {kind} (" in message
    assert "MARKER" not in message and "424242" not in message and "13:37" not in message


def test_type_refusals_of_a_table_name_types_and_counts_only():
    from privlib.errors import PrivlibError
    from privlib.schema import check_frame

    for values, words in (
        ([b"MARKER", b"x"], "holds values of type bytes"),
        ([1, "MARKER", 2.5, "x"], "mixes 2 number(s) with 2 other value(s)"),
        ([("MARKER", 1), "x"], "holds values of type tuple"),
    ):
        with pytest.raises(PrivlibError) as refusal:
            check_frame(pd.DataFrame({"c": values}), "train")
        assert words in str(refusal.value) and "MARKER" not in str(refusal.value)


def test_the_dcr_axis_ends_where_ten_records_lie_beyond_not_at_the_largest():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from privlib.plots import plot_dcr_histogram

    rng = np.random.default_rng(0)
    distances = rng.uniform(0, 0.2, 100)
    limits = []
    for outlier in (0.9, 0.35):
        fig, ax = plt.subplots()
        plot_dcr_histogram(np.append(distances, outlier), ax=ax, bins=10)
        limits.append(max(patch.get_xy()[:, 0].max() for patch in ax.patches))
        plt.close(fig)
    # 101 distances: the axis ends at the 91st smallest (10 records at or beyond it), wherever the outlier is
    assert limits[0] == limits[1] == pytest.approx(np.sort(distances)[90])


def test_a_folder_of_the_report_is_merged_file_by_file(tmp_path):
    """The course's ``assets/`` folder: its files replace their earlier versions, a file the user
    put beside them stays."""
    from privlib.publish import checked_out, publish, staging

    out = _users_folder(tmp_path)
    (out / "assets" / "js").mkdir(parents=True)
    (out / "assets" / "js" / "reveal.js").write_text("old")
    (out / "assets" / "mine.css").write_text("the user's")
    with staging(checked_out(out), "course") as stage:
        (stage / "assets" / "js").mkdir(parents=True)
        (stage / "assets" / "js" / "reveal.js").write_text("new")
        (stage / "assets" / "theme.css").write_text("new")
        (stage / "index.html").write_text("index")
        publish(stage, out, {"assets", "index.html"})
    assert (out / "assets" / "js" / "reveal.js").read_text() == "new"
    assert (out / "assets" / "theme.css").read_text() == "new"
    assert (out / "assets" / "mine.css").read_text() == "the user's"
    assert (out / "index.html").read_text() == "index"
