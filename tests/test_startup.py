"""What an import loads, seen in fresh interpreters. Start-up stays cheap: importing the kit, the
audit package or the CLI's pipeline loads none of the heavy libraries a measure, a figure or a
renderer needs (they load when a function does). Judging a result or reading the declarations
loads nothing above the measures.

A probe is one fresh interpreter that runs a chain of statements and reports the modules loaded
after each (one interpreter per chain, not per statement: each costs seconds of imports). An
import loads the same modules whatever ran before it, so a module absent after a chain's k-th
statement is absent after any one of the first k run alone; a module said to come with a
statement is checked among those that statement loaded itself, new after it.
"""

import functools
import subprocess
import sys

import pytest
from test_import_cycles import above

#: Libraries that take most of a cold start and that no import of the kit's entry points needs.
HEAVY = ("matplotlib", "sklearn", "numba", "distributed", "dask", "weasyprint", "nbclient", "papermill")

JUDGE = (
    "from privlib.results import Result\n"
    "from privlib.thresholds import judge\n"
    "judge(Result(measure='cap', value=0.4, ci_low=0.3, ci_high=0.5, baseline=0.2))"
)
MEASURES_AND_A_FIGURE = "import privlib.membership, privlib.plots\nprivlib.plots.plot_roc([0, 1], [0, 1])"

#: The chains, each run in one fresh interpreter. The entry points come first, before any model
#: library loads; judging loads the measures' declarations (and their modules), so it has its
#: own interpreter.
CHAINS = {
    "entry points": (
        "import privlib",
        "import privlib.thresholds",
        "import privlib as pl\npl.audit",  # before `import privlib.audit`, which sets the attribute
        "import privlib.audit",
        "from privlib.audit import AuditSpec, AuditReport, read_params, materialise",
        "import privlib.cli",
        "import privlib.pipeline",
        MEASURES_AND_A_FIGURE,
    ),
    "judging": (JUDGE, "import privlib.catalogue"),
}

_END = "-- end of statement --"


@functools.cache
def _chain_loads(chain: str) -> tuple[frozenset[str], ...]:
    """The modules in ``sys.modules`` after each statement of ``chain`` (and before the first)."""
    steps = "".join(
        f"exec(compile({statement!r}, '<statement {i}>', 'exec'), {{}})\nreport()\n"
        for i, statement in enumerate(CHAINS[chain])
    )
    probe = (
        f"import sys\ndef report():\n    print(*sorted(sys.modules), {_END!r}, sep='\\n')\nreport()\n{steps}"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    reports = done.stdout.split(_END)[:-1]
    assert len(reports) == len(CHAINS[chain]) + 1, done.stdout[-2000:]
    return tuple(frozenset(report.split()) for report in reports)


def loaded_after(statement: str) -> frozenset[str]:
    """Every module loaded after ``statement`` and the statements before it in its chain."""
    chain = next(name for name, statements in CHAINS.items() if statement in statements)
    return _chain_loads(chain)[CHAINS[chain].index(statement) + 1]


def loaded_by(statement: str) -> frozenset[str]:
    """The modules ``statement`` loaded itself: new after it in its chain."""
    chain = next(name for name, statements in CHAINS.items() if statement in statements)
    position = CHAINS[chain].index(statement)
    loads = _chain_loads(chain)
    return loads[position + 1] - loads[position]


def packages(modules: frozenset[str]) -> set[str]:
    return {module.split(".")[0] for module in modules}


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
    loaded = packages(loaded_after(statement))
    assert loaded.isdisjoint(HEAVY), sorted(loaded & set(HEAVY))


def test_the_probe_sees_a_heavy_library_when_the_measures_load():
    # the checks of the entry points and of judging can fail: a measure module and a figure drawn
    # load what they need
    assert {"sklearn", "numba", "matplotlib"} <= packages(loaded_by(MEASURES_AND_A_FIGURE))
    assert {"privlib.membership", "privlib.plots"} <= loaded_by(MEASURES_AND_A_FIGURE)


def test_importing_the_thresholds_loads_no_audit_render_or_template_engine():
    loaded = loaded_after("import privlib.thresholds")
    assert "privlib.thresholds" in loaded
    assert not {name for name in loaded if above(name) or name.split(".")[0] in ("jinja2", "pydantic")}


def test_the_audit_from_the_package_comes_with_its_report_pages():
    # the audit imports no rendering; ``pl.audit`` loads the pages that display its report
    assert "privlib.render.audit" in loaded_by("import privlib as pl\npl.audit")


#: What judging must not load: the layers above the measures, the plots and the libraries of
#: pages and settings.
NOT_FOR_JUDGING = {"matplotlib", "jinja2", "pydantic", "privlib.plots", "privlib.audit", "privlib.render"}


@pytest.mark.parametrize("statement", [JUDGE, "import privlib.catalogue"], ids=["judge", "declarations"])
def test_judging_and_the_declarations_import_no_audit_rendering_or_plotting(statement):
    # the rules are written in the measures' declarations, below the audit: judging a result or
    # reading the declarations loads no audit, page, figure or settings library
    loaded = loaded_after(statement)
    assert "privlib.catalogue" in loaded  # the rules are read from there
    assert sorted(NOT_FOR_JUDGING & loaded) == []


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
