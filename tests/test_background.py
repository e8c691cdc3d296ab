"""A function run in a process of its own (:mod:`privlib.background`): its value, its failures
(named, no value quoted), its deadline, and no process left behind."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import time

import psutil
import pytest

from privlib.background import in_background, isolated_python
from privlib.errors import ReportError


def _background_processes(folder) -> list[psutil.Process]:
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if str(folder) in " ".join(process.cmdline()):
                found.append(process)
        except psutil.NoSuchProcess:
            continue
    return found


def _started(folder, deadline: float = 60.0) -> bool:
    """Whether a process of ``folder`` shows up within ``deadline`` seconds (its command line can
    be unreadable for a moment after the start on a loaded machine)."""
    ends = time.monotonic() + deadline
    while not _background_processes(folder):
        if time.monotonic() > ends:
            return False
        time.sleep(0.05)
    return True


def test_the_value_comes_back(tmp_path):
    with in_background(math.comb, 10, 3, folder=tmp_path, what="counting") as value:
        assert value(120) == 120  # 10 * 9 * 8 / 3!
    assert not _background_processes(tmp_path)


def test_a_failure_is_named_and_quotes_no_value(tmp_path):
    with in_background(int, "4'confidential'", folder=tmp_path, what="parsing") as value:
        with pytest.raises(ReportError) as raised:
            value(120)
    message = str(raised.value)
    assert message.startswith("parsing failed: ValueError")
    assert "confidential" not in message


def test_a_process_that_dies_is_reported_with_its_exit_code(tmp_path):
    with in_background(os._exit, 3, folder=tmp_path, what="drawing") as value:
        with pytest.raises(ReportError, match="drawing failed: its process ended with code 3"):
            value(120)


def test_a_late_value_is_an_error_and_the_process_is_stopped(tmp_path):
    with pytest.raises(ReportError, match="sleeping took longer than 0 s"):
        with in_background(time.sleep, 600, folder=tmp_path, what="sleeping") as value:
            assert _started(tmp_path)
            value(0.2)
    assert not _background_processes(tmp_path)


def test_leaving_the_block_early_stops_the_process(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with in_background(time.sleep, 600, folder=tmp_path, what="sleeping"):
            raise KeyboardInterrupt
    assert not _background_processes(tmp_path)


@pytest.mark.slow
def test_the_audits_per_variable_figures_are_those_drawn_in_this_process(tmp_path):
    # privlib audit draws them in a second process from the sample it draws here
    from privlib.audit import AuditSpec
    from privlib.audit.runner import inputs_of
    from privlib.datasets import load_dataset
    from privlib.pipeline.audit_report import _variable_figures
    from privlib.render.audit import variable_fidelity_html

    adult = load_dataset("adult").head(900)
    spec = AuditSpec.build(
        train=adult.iloc[:300],
        synthetic=adult.iloc[300:600],
        holdout=adult.iloc[600:],
        seed=7,
        fidelity_sample=250,
    )
    inputs = inputs_of(spec)
    with _variable_figures(spec, inputs, tmp_path) as drawn:
        html = drawn()
    expected = variable_fidelity_html(adult.iloc[:300], adult.iloc[300:600], max_records=250, random_state=7)
    assert "<img" in expected
    assert html == expected


def test_the_process_imports_nothing_from_the_folder_it_starts_in(tmp_path):
    # a module named after a dependency, where the process starts: never imported
    marker = tmp_path / "imported.txt"
    (tmp_path / "json.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    started = subprocess.run([*isolated_python(), "-c", "import json"], cwd=tmp_path, capture_output=True)
    assert started.returncode == 0, started.stderr
    assert not marker.exists()
    # the check can fail: the same command without isolation imports it
    subprocess.run([sys.executable, "-c", "import json"], cwd=tmp_path, check=True)
    assert marker.read_text() == "ran"
