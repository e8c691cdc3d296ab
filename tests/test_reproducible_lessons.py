"""A lesson run twice with the same parameters prints, displays and draws the same thing.

Every random step of a lesson draws from its ``seed`` parameter, so two papermill
runs must agree on every output of every cell. Only what measures time is left out: papermill's
and the kernel's timing metadata, and the stderr stream (progress bars, warnings). The two runs
are separate processes started at once.
"""

from __future__ import annotations

import difflib
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ["08_targeted_attacks", "09_differential_privacy"]
DATASET = "acs"

pytestmark = pytest.mark.notebook


def _run(notebook: Path, target: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    command = [
        sys.executable,
        "-m",
        "papermill",
        str(notebook),
        str(target),
        "-k",
        "python3",
        "--cwd",
        str(notebook.parent),
        "-p",
        "dataset",
        DATASET,
        "-p",
        "quick",
        "True",
    ]
    return subprocess.run(command, check=False, capture_output=True, text=True, env=env)


def _joined(outputs: list) -> list:
    """Consecutive stdout chunks as one: how a cell's printing is split into chunks depends on
    when the kernel flushes (timing), not on what it printed."""
    joined: list = []
    for output in outputs:
        if output.get("name") == "stdout" and joined and joined[-1].get("name") == "stdout":
            joined[-1] = dict(joined[-1], text=joined[-1]["text"] + output["text"])
        else:
            joined.append(output)
    return joined


def _outputs(path: Path) -> list:
    """Each code cell's outputs without the stderr stream and without metadata, its printed
    chunks joined."""
    cells = nbformat.read(path, as_version=4).cells
    return [
        _joined(
            [
                {key: value for key, value in output.items() if key not in ("metadata", "execution_count")}
                for output in cell.get("outputs", [])
                if output.get("name") != "stderr"
            ]
        )
        for cell in cells
        if cell.cell_type == "code"
    ]


@pytest.mark.parametrize("stem", LESSONS)
def test_two_runs_of_a_lesson_give_the_same_outputs(stem, tmp_path):
    notebook = ROOT / "notebooks" / f"{stem}.ipynb"
    targets = [tmp_path / f"first_{stem}.ipynb", tmp_path / f"second_{stem}.ipynb"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda target: _run(notebook, target), targets))
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    first, second = (_outputs(target) for target in targets)
    assert any(first), "the lesson printed nothing"
    for index, (one, two) in enumerate(zip(first, second)):
        if one != two:
            lines = [
                list(difflib.unified_diff(str(a).splitlines(), str(b).splitlines(), lineterm="", n=0))
                for a, b in zip(map(_text, one), map(_text, two))
            ]
            pytest.fail(
                f"{stem} on {DATASET}: code cell {index} differs between two runs:\n"
                + "\n".join(line for diff in lines for line in diff[2:12])
            )


def _text(output: dict) -> str:
    """What an output shows as text (images compared by their bytes)."""
    data = output.get("data", {})
    return output.get("text") or data.get("text/plain") or str(data.get("image/png", ""))[:80]
