"""Publication told truly: a signal while the report's files move into ``--out`` is acted on once
the last one has moved (never a new metrics.json beside an old report.html), the command's last
line says the new report was published, and the wait for another run's lock has a deadline.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from privlib import cli, publish
from privlib.errors import PrivlibError
from privlib.pipeline import AUDIT_FILES


def _report(folder: Path, text: str) -> Path:
    folder.mkdir()
    for name in AUDIT_FILES:
        (folder / name).write_text(f"{text} {name}")
    return folder


def _signal_after_first_rename(monkeypatch, signum: int) -> list[str]:
    """``os.replace`` into a folder (publication's renames) sends ``signum`` to this process once
    the first file has moved; returns the names moved, in order."""
    real, moved = os.replace, []

    def replace(source, target, **kwargs):
        real(source, target, **kwargs)
        if kwargs.get("dst_dir_fd") is not None:
            moved.append(str(target))
            if len(moved) == 1:
                signal.raise_signal(signum)

    monkeypatch.setattr(os, "replace", replace)
    return moved


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_between_renames_lets_the_publication_finish(tmp_path, monkeypatch, signum):
    out = _report(tmp_path / "out", "old")
    finished = _report(tmp_path / "new", "new")
    moved = _signal_after_first_rename(monkeypatch, signum)
    before = publish.publication_count()
    earlier = {s: signal.signal(s, cli._interrupt) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        with pytest.raises(KeyboardInterrupt):
            publish.publish(finished, out, set(AUDIT_FILES))
        handlers = {s: signal.getsignal(s) for s in earlier}
    finally:
        for s, handler in earlier.items():
            signal.signal(s, handler)
    assert sorted(moved) == sorted(AUDIT_FILES)  # every rename was made, then the interrupt acted
    assert {p.name: p.read_text() for p in out.iterdir()} == {name: f"new {name}" for name in AUDIT_FILES}
    assert publish.publications(after=before) == [(before + 1, out, tuple(sorted(AUDIT_FILES)))]
    assert all(handler is cli._interrupt for handler in handlers.values())  # put back


def test_a_failure_between_renames_names_the_new_files(tmp_path, monkeypatch):
    out = _report(tmp_path / "out", "old")
    finished = _report(tmp_path / "new", "new")
    real, calls = os.replace, []

    def replace(source, target, **kwargs):
        calls.append(target)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    before = publish.publication_count()
    with pytest.raises(PrivlibError) as raised:
        publish.publish(finished, out, set(AUDIT_FILES))
    first = sorted(AUDIT_FILES)[0]
    assert f"1 of its files were replaced ({first}), the rest are the earlier ones" in str(raised.value)
    assert (out / first).read_text() == f"new {first}"
    assert publish.publications(after=before) == []  # not published whole


@pytest.mark.notebook
@pytest.mark.slow
def test_an_audit_interrupted_while_publishing_publishes_whole_and_says_so(tmp_path, monkeypatch, capsys):
    params = tmp_path / "audit.yaml"
    params.write_text(
        "dataset: ce\nn_train: 200\nn_holdout: 200\nsynthesizers:\n  - method: IndependentMarginals\n"
        "keys: [Income, Race]\nsensitive: [Expenditure]\nrepeats: 1\nseed: 3\n"
    )
    out = _report(tmp_path / "out", "old")
    moved = _signal_after_first_rename(monkeypatch, signal.SIGINT)
    assert cli.main(["--quiet", "audit", "--params", str(params), "--out", str(out)]) == cli.EXIT_INTERRUPTED
    err = capsys.readouterr().err.strip()
    assert err == (
        f"privlib: interrupted; the new report was published whole in {str(out)!r} (every one of "
        "its files is new); every other file is as it was"
    )
    assert sorted(moved) == sorted(AUDIT_FILES)
    assert not any(p.read_text(errors="replace").startswith("old") for p in out.iterdir())
    metrics = (out / "metrics.json").read_text()
    assert '"seed": 3' in metrics and "Income" in (out / "report.html").read_text()


def test_the_interrupt_line_says_which_report_was_published():
    assert cli._left("audit", []) == "the earlier report is intact"
    said = cli._left("audit", [(1, Path("/data/out"), ("metrics.json", "report.html"))])
    assert "published whole in '/data/out'" in said and "intact" not in said


def test_the_wait_for_another_runs_lock_has_a_deadline_and_names_the_lock(tmp_path, monkeypatch):
    out = tmp_path / "out"
    lock = tmp_path / ".out.privlib-lock"
    held = publish._lock(lock, wait=False)  # another run's lock (flock: one per open file)
    assert held is not None
    monkeypatch.setattr(publish, "LOCK_WAIT_SECONDS", 0.3)
    try:
        with pytest.raises(PrivlibError) as raised:
            with publish.staging(out, "audit"):
                pytest.fail("the lock was taken while another run held it")
    finally:
        os.close(held)
    message = str(raised.value)
    assert repr(str(lock)) in message and "for over 0.005 minutes" in message
    with publish.staging(out, "audit") as folder:  # released: taken at once
        assert folder.is_dir()
