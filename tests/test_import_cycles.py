"""No import cycle between the modules of privlib, counting imports made inside functions.

Every module of the package is parsed (never imported) and each ``import`` and ``from ... import``
anywhere in it, at the top level, inside a function or under ``if TYPE_CHECKING``, relative or
absolute, becomes an edge to the privlib module it loads. ``from privlib.x import y`` is an edge
to ``privlib.x.y`` when ``y`` is a submodule, to ``privlib.x`` otherwise; ``import privlib.x.y`` to
``privlib.x.y`` (a parent package is not counted for its submodules, as every module would
otherwise import the package that imports it). A cycle means a module cannot be
understood, tested or imported without the other; the test prints the modules of each cycle in
order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import privlib

PACKAGE = Path(privlib.__file__).parent


def module_files(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name (a package by its own name)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    """The absolute name of the module a (possibly relative) ``from ... import`` reads from."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that the code ``source`` of ``module`` imports, anywhere in it."""
    found: set[str] = set()

    def add(name: str) -> None:
        # importing a.b.c loads a and a.b as well: the nearest known module stands for the rest
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name:
            found.add(name)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            for alias in node.names:
                # from privlib import identity: the submodule; from privlib.x import f: privlib.x
                add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    found.discard(module)
    return found


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    known = set(modules)
    return {
        name: imports_of(path.read_text(encoding="utf-8"), name, path.name == "__init__.py", known)
        for name, path in modules.items()
    }


def tangles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of more than one module that all reach each other (strongly connected
    components, Tarjan's algorithm), each sorted, in order of their first module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for after in sorted(graph.get(node, ())):
            if after not in index:
                visit(after)
                low[node] = min(low[node], low[after])
            elif after in on_stack:
                low[node] = min(low[node], index[after])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest cycle through the first module of each tangle, that module repeated at the
    end: ``[a, b, a]``."""
    return [_cycle_through(group, graph) for group in tangles(graph)]


def _cycle_through(group: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest cycle from the group's first module back to it, within the group."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for after in sorted(graph[node] & members):
                if after == start:
                    return paths[node] + [start]
                if after not in paths:
                    paths[after] = paths[node] + [after]
                    following.append(after)
        frontier = following
    raise AssertionError(f"{group} is not strongly connected")


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    """The import graph of the package, read once for the tests of this module (none changes it)."""
    return import_graph(module_files())


# -- the checker on code written for it ---------------------------------------------------------
def test_imports_are_found_wherever_they_are_written():
    source = (
        "import privlib.records\n"
        "from privlib import identity\n"
        "from . import catalogue\n"
        "from .render.pages import page\n"
        "def f():\n"
        "    from privlib.membership import nn_mia\n"
        "    import privlib.audit.report as report\n"
        "class C:\n"
        "    def g(self):\n"
        "        from ..results import Result\n"
        "if False:\n"
        "    import numpy, privlib.schema.unknown\n"
    )
    known = {
        "privlib",
        "privlib.records",
        "privlib.identity",
        "privlib.schema",
        "privlib.audit",
        "privlib.audit.catalogue",
        "privlib.audit.render.pages",
        "privlib.membership",
        "privlib.audit.report",
        "privlib.results",
        "privlib.audit.x",
    }
    found = imports_of(source, "privlib.audit.x", False, known)
    # a package counts when a name is read from it, not when only its submodules are
    assert found == known - {"privlib.audit.x", "privlib.audit", "privlib"}
    assert imports_of("from privlib import identity, VERSION", "privlib.audit.x", False, known) == {
        "privlib",
        "privlib.identity",
    }
    # within a package's __init__, one dot is the package itself
    assert imports_of("from .report import A", "privlib.audit", True, known) == {"privlib.audit.report"}
    assert imports_of("from .report import A", "privlib.audit.runner", False, known) == {
        "privlib.audit.report"
    }


def test_a_cycle_is_found_and_printed_in_order():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert tangles(graph) == [["a", "b", "c"]]
    assert cycles(graph) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    # two cycles through one module make one tangle; the shortest cycle is printed
    graph = {"a": {"b", "c"}, "b": {"a"}, "c": {"d"}, "d": {"a"}}
    assert tangles(graph) == [["a", "b", "c", "d"]] and cycles(graph) == [["a", "b", "a"]]


def test_the_graph_reads_every_module_of_the_package(graph):
    assert {"privlib", "privlib.audit.runner", "privlib.membership"} <= set(graph)
    # a known edge of each kind: top level, and inside a function
    assert "privlib.results" in graph["privlib.thresholds"]
    assert "privlib.attribute.discretize" in graph["privlib.audit.runner"]  # Audit.binned imports it late


# -- the package ---------------------------------------------------------------------------------
def test_no_import_cycle_between_privlib_modules(graph):
    found = tangles(graph)
    if found:
        pytest.fail(
            "import cycles between privlib modules (imports inside functions count):\n"
            + "\n".join(
                f"{' -> '.join(cycle)}  (modules that all import each other: {', '.join(group)})"
                for group, cycle in zip(found, cycles(graph))
            )
        )


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph with each subpackage of privlib (``privlib.audit``, ``privlib.render``)
    one node: an edge from a package to another when any of its modules imports any of theirs."""

    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    packages: dict[str, set[str]] = {}
    for module, imported in graph.items():
        packages.setdefault(unit(module), set()).update(unit(other) for other in imported)
    return {package: imported - {package} for package, imported in packages.items()}


def reached(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module that importing ``start`` can load, ``start`` excluded."""
    seen: set[str] = set()
    frontier = [start]
    while frontier:
        for after in graph[frontier.pop()] - seen:
            seen.add(after)
            frontier.append(after)
    return seen - {start}


#: The core: what the measures stand on, which nothing above may be imported by.
CORE = (
    "privlib.errors",
    "privlib.results",
    "privlib.uncertainty",
    "privlib.rules",
    "privlib.declaration",
    "privlib.catalogue",
    "privlib.thresholds",
    "privlib.validation",
    "privlib.schema",
    "privlib.neighbors",
)

#: The layers above the measures.
ABOVE = ("privlib.audit", "privlib.render", "privlib.pipeline", "privlib.cli")


def test_the_package_graph_joins_a_subpackages_modules():
    graph = {
        "privlib.audit.a": {"privlib.render.b"},
        "privlib.render.b": {"privlib.audit"},
        "privlib.x": set(),
    }
    assert package_graph(graph) == {
        "privlib.audit": {"privlib.render"},
        "privlib.render": {"privlib.audit"},
        "privlib.x": set(),
    }
    assert tangles(package_graph(graph)) == [["privlib.audit", "privlib.render"]]
    assert reached({"a": {"b"}, "b": {"c", "a"}, "c": set()}, "a") == {"b", "c"}


def test_no_import_cycle_between_privlib_packages(graph):
    packages = package_graph(graph)
    assert "privlib.audit" in packages and "privlib.render" in packages["privlib.pipeline"]
    found = tangles(packages)
    assert not found, (
        "import cycles between privlib's packages (imports inside functions count): "
        + "; ".join(" -> ".join(cycle) for cycle in cycles(packages))
    )


def above(name: str) -> bool:
    """Whether ``name`` is one of the layers above the measures or a module inside one."""
    return any(name == layer or name.startswith(layer + ".") for layer in ABOVE)


def reached_above(graph: dict[str, set[str]], module: str) -> list[str]:
    """The modules above the measures that importing ``module`` can load, sorted."""
    return sorted(name for name in reached(graph, module) if above(name))


def measure_modules() -> set[str]:
    """The module of every declared measure's function: each is core, like the catalogue."""
    from privlib.catalogue import MEASURES
    from privlib.declaration import Reference

    modules = set()
    for spec in MEASURES.values():
        if isinstance(spec.function, Reference):
            modules.add(spec.function.path.partition(":")[0])
        elif spec.function is not None:
            modules.add(spec.function.__module__)
    return modules


def test_a_core_module_reaching_a_layer_above_is_found():
    # planted: a core module whose function imports a module that imports the audit
    sources = {
        "privlib.schema": "def f():\n    from privlib import helper\n",
        "privlib.helper": "import privlib.audit.runner\n",
        "privlib.audit.runner": "",
        "privlib.auditing": "",
        "privlib.results": "from privlib import auditing\n",
    }
    known = set(sources)
    graph = {name: imports_of(code, name, False, known) for name, code in sources.items()}
    assert reached_above(graph, "privlib.schema") == ["privlib.audit.runner"]
    # a module whose name only begins like a layer's is not that layer
    assert reached_above(graph, "privlib.results") == []


@pytest.mark.parametrize("module", CORE)
def test_the_core_imports_nothing_above_it(module, graph):
    loaded = reached_above(graph, module)
    assert not loaded, f"{module} can load {loaded} (imports inside functions count)"


def test_no_measure_module_imports_anything_above_it(graph):
    modules = measure_modules()
    # every family's modules are among them (a package or a module of it)
    assert {"identity", "attribute", "membership", "utility"} <= {m.split(".")[1] for m in modules}
    assert modules <= set(graph), sorted(modules - set(graph))
    loading = {module: reached_above(graph, module) for module in sorted(modules)}
    assert not {module: above for module, above in loading.items() if above}, (
        "measure modules that can load the audit, the rendering, the pipeline or the CLI "
        "(imports inside functions count)"
    )
