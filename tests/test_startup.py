"""Start-up stays cheap: importing the kit, the audit package or the CLI's pipeline loads none of
the heavy libraries a measure, a figure or a renderer needs (they load when a function does)."""

import json
import subprocess
import sys

import pytest

#: Libraries that take most of a cold start and that no import of the kit's entry points needs.
HEAVY = ("matplotlib", "sklearn", "numba", "distributed", "dask", "weasyprint", "nbclient", "papermill")


def _loaded_after(statement: str) -> set[str]:
    """Top-level packages in ``sys.modules`` after ``statement`` runs in a fresh interpreter."""
    probe = (
        f"{statement}\nimport json, sys\nprint(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "statement",
    [
        "import privlib",
        "import privlib.audit",
        "from privlib.audit import AuditSpec, AuditReport, read_params, materialise",
        "import privlib.cli",
        "import privlib.pipeline",
    ],
)
def test_entry_points_load_no_heavy_library(statement):
    assert _loaded_after(statement).isdisjoint(HEAVY), sorted(_loaded_after(statement) & set(HEAVY))


def test_the_probe_sees_a_heavy_library_when_the_measures_load():
    # the check above can fail: a measure module and a figure drawn load what they need
    loaded = _loaded_after(
        "import privlib.audit\nimport privlib.membership, privlib.plots\nprivlib.plots.plot_roc([0, 1], [0, 1])"
    )
    assert {"sklearn", "numba", "matplotlib"} <= loaded


def test_lazy_names_are_the_modules_own():
    import privlib
    import privlib.audit
    from privlib.audit import runner, spec
    from privlib.datasets import DATASETS

    assert privlib.audit.run is runner.run and privlib.audit.AuditSpec is spec.AuditSpec
    assert privlib.DATASETS is DATASETS
    assert set(privlib.audit.__all__) <= set(dir(privlib.audit))
    assert all(getattr(privlib.audit, name) is not None for name in privlib.audit.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        privlib.audit.nothing_here  # noqa: B018
