"""The wheel runs what a clone runs: built, installed into a fresh environment outside the
repository, then ``privlib audit --params`` and ``privlib course`` from an empty folder.

Quick settings: the fresh environment takes its third-party packages from the test's own
environment (a ``.pth`` file), so only privlib itself comes from the wheel; the course renders
two lessons.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


# builds and installs the wheel, then runs the audit and course notebooks from it
pytestmark = pytest.mark.notebook


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(python, privlib command)`` of a fresh venv holding only the built wheel."""
    folder = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [
            sys.executable,
            "-P",
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            "-w",
            str(folder / "dist"),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
        env=_clean_environment(),
    )
    if built.returncode != 0:
        pytest.fail(f"the wheel did not build: {built.stderr[-2000:]}")
    wheel = next((folder / "dist").glob("privlib-*.whl"))
    env = folder / "venv"
    subprocess.run(
        [sys.executable, "-P", "-m", "venv", "--without-pip", str(env)], check=True, env=_clean_environment()
    )
    python = env / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-P",
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--quiet",
            str(wheel),
        ],
        check=True,
        capture_output=True,
        env=_clean_environment(),
    )
    purelib = subprocess.run(
        [str(python), "-P", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
        env=_clean_environment(),
    ).stdout.strip()
    # Third-party packages from this environment; privlib itself only from the wheel.
    dependencies = sysconfig.get_paths()["purelib"]
    Path(purelib, "_privlib_test_dependencies.pth").write_text(dependencies + "\n")
    return python, env / "bin" / "privlib", Path(purelib), wheel


def _clean_environment() -> dict:
    """This process's environment without an import path or a virtual environment of its own: a
    checkout on PYTHONPATH would otherwise pass for the installed package (its egg-info too)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


def _run(command, cwd):
    environment = _clean_environment()
    environment["MPLBACKEND"] = "Agg"
    # nbconvert's templates are data files of this environment's packages (share/jupyter).
    environment["JUPYTER_PATH"] = str(Path(sys.prefix, "share", "jupyter"))
    return subprocess.run(
        [str(c) for c in command], cwd=cwd, capture_output=True, text=True, env=environment, timeout=900
    )


def test_the_wheel_ships_the_notebooks_params_data_and_templates(installed):
    *_, wheel = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "privlib/_reports/privacy_audit.ipynb",
        "privlib/_reports/params/acs.yaml",
        "privlib/_notebooks/00_introduction.ipynb",
        "privlib/_data/ce/CEdata.csv",
        "privlib/render/templates/audit_verdicts.html.j2",
        "privlib/render/templates/report.css",
        "privlib/audit/metrics.schema.json",
        "privlib/_notebooks/capstone_key.ipynb",
    ):
        assert needed in names


def test_installed_privlib_is_the_wheel_not_the_clone(installed, tmp_path):
    python, _, purelib, _ = installed
    where = _run(
        [
            python,
            "-P",  # the current folder is not put first on the import path
            "-c",
            "import privlib, privlib.resources as r; print(privlib.__file__); "
            "print(r.resource_path('reports'))",
        ],
        tmp_path,
    )
    assert where.returncode == 0, where.stderr
    module, reports = where.stdout.split()
    assert Path(module).is_relative_to(purelib) and Path(reports).is_relative_to(purelib)


def test_audit_and_course_run_from_an_empty_folder(installed, tmp_path):
    python, command, purelib, _ = installed
    params = purelib / "privlib" / "_reports" / "params" / "acs.yaml"
    audit = _run([command, "--quiet", "audit", "--params", params, "--out", "audit"], tmp_path)
    assert audit.returncode == 0, audit.stderr[-3000:]
    metrics = json.loads((tmp_path / "audit" / "metrics.json").read_text())
    assert metrics["assessable"] and len(metrics["measures"]) >= 10
    course = _run(
        [command, "--quiet", "course", "--dataset", "ce", "--lessons", "00", "01", "--out", "course"],
        tmp_path,
    )
    assert course.returncode == 0, course.stderr[-3000:]
    assert sorted(p.name for p in (tmp_path / "course").iterdir() if p.suffix == ".pdf") == [
        "00_introduction.pdf",
        "01_identity_disclosure.pdf",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit", "course"]  # nothing else written
