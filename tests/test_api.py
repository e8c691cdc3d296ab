"""The public API's shape: tables passed by role as keywords, randomness through one keyword.

Every public function of every module of privlib is found by walking the package (``pkgutil``)
and reading each module's ``__all__``, so a new measure is checked without being listed here; only
modules that hold no measure and helpers that take no user's argument are left out, each with its
reason.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import privlib as pl

#: Parameter names that hold tables, by role (the README's table of names; tests/test_names.py).
ROLES = {"synthetic", "train", "holdout", "population"}
#: Modules whose public functions are not measures, each with the reason its arguments are not
#: checked by declared constraints (a package stands for its modules). Every other module of
#: privlib is searched, and a module that is neither searched nor listed here fails
#: ``test_every_module_is_searched_or_left_out_with_a_reason``, so a new one is never missed.
NOT_MEASURES = {
    "privlib.__main__": "the command's entry point",
    "privlib.cli": "the command line: argparse and the audit spec check its arguments",
    "privlib.pipeline": "runs a report from an audit spec already checked",
    "privlib.render": "renders a report the audit already made",
    "privlib.audit": "wires the measures checked here; its settings are a checked pydantic model",
    "privlib.background": "runs the kit's own functions in a second process",
    "privlib.capstone": "the course's capstone exercise: builds its tables from fixed recipes",
    "privlib.catalogue": "declarations, no function",
    "privlib.datasets": "reads bundled data sets and files; refuses bad input with one line",
    "privlib.declaration": "the catalogue's argument builders, called by the audit on its context",
    "privlib.dp": "the MST synthesizer's class checks its own hyper-parameters",
    "privlib.errors": "the error types",
    "privlib.formatting": "writes numbers a measure already computed for people to read",
    "privlib.matching": "record matching steps the measures call on checked tables",
    "privlib.measure_figures": "draws a result already computed",
    "privlib.neighbors": "the neighbour search the measures call on checked tables",
    "privlib.plots": "draws results already computed",
    "privlib.publish": "publishes the kit's own output files",
    "privlib.resources": "finds the kit's own files",
    "privlib.results": "result types",
    "privlib.rules": "builds the threshold rules of the declarations",
    "privlib.schema": "the table checks the constraints themselves call",
    "privlib.sdv_metadata": "reads an SDV metadata file into the audit spec, which checks it",
    "privlib.search_reuse": "shares the neighbour searches of one audit",
    "privlib.site": "builds the course's web site",
    "privlib.slides": "renders the course's slides",
    "privlib.synth": "synthesizer classes check their own hyper-parameters",
    "privlib.thresholds": "judges a result already computed",
    "privlib.uncertainty": "interval formulas on numbers a measure already checked",
    "privlib.validation": "the constraints themselves",
}


def _refuse(name: str) -> None:
    raise ImportError(f"{name} cannot be imported, so its modules cannot be searched")


def _module_names() -> list[str]:
    # a package that fails to import would be skipped without a word (walk_packages' default)
    return [info.name for info in pkgutil.walk_packages(pl.__path__, "privlib.", onerror=_refuse)]


def _left_out(name: str) -> bool:
    return any(name == module or name.startswith(module + ".") for module in NOT_MEASURES)


def _exported_functions(module) -> dict:
    names = getattr(module, "__all__", None) or [
        name
        for name, member in vars(module).items()
        if not name.startswith("_") and getattr(member, "__module__", None) == module.__name__
    ]
    return {name: getattr(module, name) for name in names if inspect.isfunction(getattr(module, name))}


def _public_functions():
    """Every public function of every module not left out, once, under the shortest path that
    exports it (a package before the module it re-exports from: ``utility.tstr``)."""
    seen = set()
    for name in _module_names():
        if _left_out(name):
            continue
        short = name.removeprefix("privlib.")
        for function_name, function in _exported_functions(importlib.import_module(name)).items():
            if inspect.unwrap(function) not in seen:
                seen.add(inspect.unwrap(function))
                yield f"{short}.{function_name}", function


def _measure_modules() -> set[str]:
    """The module of every declared measure's function."""
    from privlib.catalogue import MEASURES
    from privlib.declaration import Reference

    return {
        spec.function.path.partition(":")[0]
        if isinstance(spec.function, Reference)
        else inspect.unwrap(spec.function).__module__
        for spec in MEASURES.values()
        if spec.function is not None
    }


#: Every public function of the measure modules, the helpers they call included.
FUNCTIONS = dict(_public_functions())


def test_the_measure_modules_export_functions():
    assert len(FUNCTIONS) >= 20
    # modules that the hand list of four missed are searched too
    assert {
        "attacks.attack_ensemble",
        "rare_copies.rare_copy_test",
        "rare_attributions.rare_attribution_test",
    } < set(FUNCTIONS)


def test_every_module_is_searched_or_left_out_with_a_reason():
    modules = _module_names()
    for name in NOT_MEASURES:
        assert name in modules, f"{name} is no module of privlib; drop it from NOT_MEASURES"
    # no module that holds a declared measure is left out
    measures = _measure_modules()
    assert {"privlib.membership", "privlib.attacks", "privlib.rare_copies"} <= measures
    assert not sorted(name for name in measures if _left_out(name))


def test_a_function_is_found_once_under_its_public_path():
    assert FUNCTIONS["utility.tstr"] is pl.utility.tstr
    assert "utility.tstr.tstr" not in FUNCTIONS
    assert len({id(inspect.unwrap(f)) for f in FUNCTIONS.values()}) == len(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tables_and_random_state_are_keyword_only(name):
    signature = inspect.signature(FUNCTIONS[name])
    for parameter in signature.parameters.values():
        if parameter.name in ROLES or parameter.name == "random_state":
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (name, parameter.name)


def test_adversarial_accuracys_table_is_named_by_role():
    # Yale et al.'s "target" records are the training data, passed as ``train=`` by keyword.
    signature = inspect.signature(pl.membership.adversarial_accuracy)
    assert signature.parameters["train"].kind is inspect.Parameter.KEYWORD_ONLY


def test_every_measure_module_is_an_attribute_of_privlib():
    measure_modules = {name.split(".")[0] for name in FUNCTIONS}
    assert {"attacks", "rare_copies"} <= measure_modules
    for name in sorted(measure_modules):
        assert name in pl.__all__, name
        assert getattr(pl, name).__name__ == f"privlib.{name}"
