"""Nothing runs from where the user stands: a module named after a dependency, planted in the
folder the command is started from and beside the params file, is never imported by the command
nor by any interpreter it starts (the per-variable figures' process, the notebooks' kernels).

A vendor's release folder is where a custodian runs the audit; a ``pandas.py`` there must not run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from privlib.background import isolated_python

pytestmark = [pytest.mark.notebook, pytest.mark.slow]

#: Modules every child imports (the kit's dependencies, the kernel's own).
PLANTED = ("pandas", "numpy", "matplotlib", "jinja2", "scipy", "yaml", "seaborn", "sklearn", "IPython")


def _plant(folder: Path, marker: Path) -> None:
    """A module of each name of :data:`PLANTED` in ``folder`` that, imported, notes its name in
    ``marker``."""
    for name in PLANTED:
        (folder / f"{name}.py").write_text(
            f"with open({str(marker)!r}, 'a') as noted:\n    noted.write({name!r} + ' ' + __file__ + '\\n')\n"
        )


def _privlib() -> list[str]:
    """The ``privlib`` command of this environment (its console script, as a user runs it)."""
    script = shutil.which("privlib", path=str(Path(sys.executable).parent))
    return [script] if script else [*isolated_python(), "-c", "from privlib.cli import command; command()"]


@pytest.fixture
def planted(tmp_path):
    """``(where, params, marker)``: the folder to start from and a params folder, each holding
    the planted modules; the file they note their import in (outside both)."""
    where, params, marker = tmp_path / "release", tmp_path / "params", tmp_path / "imported.txt"
    for folder in (where, params):
        folder.mkdir()
        _plant(folder, marker)
    (params / "audit.yaml").write_text(
        "dataset: ce\nn_train: 200\nn_holdout: 200\nsynthesizers:\n  - method: IndependentMarginals\n"
        "keys: [Income, Race]\nsensitive: [Expenditure]\nrepeats: 1\nseed: 3\n"
    )
    return where, params / "audit.yaml", marker


def _run(arguments: list, where: Path) -> subprocess.CompletedProcess:
    environment = os.environ | {"MPLBACKEND": "Agg"}
    return subprocess.run(
        [*_privlib(), "--quiet", *map(str, arguments)],
        cwd=where,
        capture_output=True,
        text=True,
        env=environment,
        timeout=900,
    )


def test_the_planted_modules_would_run_if_imported_from_there(planted):
    # the test's own check: a child started the old way, from that folder, imports them
    where, _, marker = planted
    done = subprocess.run([sys.executable, "-c", "import jinja2"], cwd=where, capture_output=True)
    assert done.returncode == 0 and "jinja2" in marker.read_text()


def test_the_audit_imports_nothing_from_the_current_or_the_params_folder(planted):
    where, params, marker = planted
    done = _run(["audit", "--params", params, "--out", "audit"], where)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (where / "audit" / "report.html").is_file()
    assert not marker.exists(), marker.read_text()


def test_the_course_imports_nothing_from_the_current_or_the_params_folder(planted):
    where, params, marker = planted
    done = _run(["course", "--params", params, "--lessons", "00", "--out", "course"], where)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (where / "course" / "00_introduction.html").is_file()
    assert not marker.exists(), marker.read_text()


def test_the_reports_import_nothing_from_the_current_folder(planted):
    where, _, marker = planted
    done = _run(["reports", "--datasets", "ce", "--no-course", "--out", "reports"], where)
    assert done.returncode == 0, done.stderr[-3000:]
    assert (where / "reports" / "ce" / "report.html").is_file()
    assert not marker.exists(), marker.read_text()
