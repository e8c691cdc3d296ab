"""The public API's shape: tables passed by role as keywords, randomness through one keyword.

Every public function of the measure modules is found by introspection (``__all__``), so a new
measure is checked without being listed here.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import privlib as pl

#: Parameter names that hold tables, by role.
ROLES = {
    "synthetic",
    "train",
    "holdout",
    "original",
    "reference",
    "population",
    "control",
    "test",
    "members",
    "target_table",
    "query",
}
#: Modules whose public functions are not measures: the command line, the pipeline and the
#: rendering run reports (their inputs are checked at the command line, by the spec), and the
#: audit package wires measures already checked here. Every other module of privlib is searched.
NOT_MEASURES = ("privlib.__main__", "privlib.cli", "privlib.pipeline", "privlib.render", "privlib.audit")


#: Public helpers of the measure modules that take no argument from a user directly: numerical
#: steps on arrays or results a checked measure already made, called once per target or test
#: inside one (a check there would repeat the measure's on every call). Listed by name so that
#: any other public function without constraints fails; each must exist and be a plain function.
HELPERS = {
    "criteria.singling_out_probability",
    "rare_attributions.certain_attributions",
    "rare_copies.rare_records",
    "records.attack_scores",
    "records.clopper_pearson",
    "records.family_tests",
    "records.low_fpr_key",
    "records.operating_points",
    "targeted.outlier_targets",
    "targeted.rank_sum_p_value",
    "targeted.resolve_synthesizer",
}


def _kit_modules():
    for info in pkgutil.walk_packages(pl.__path__, "privlib."):
        if not info.name.startswith(NOT_MEASURES):
            yield importlib.import_module(info.name)


def _public_functions():
    """Every public function of every module that declares constraints on any of its functions
    (the measure modules): there, a public function without constraints is a gap."""
    for module in _kit_modules():
        names = getattr(module, "__all__", None) or [
            name
            for name, member in vars(module).items()
            if not name.startswith("_") and getattr(member, "__module__", None) == module.__name__
        ]
        functions = {
            name: getattr(module, name) for name in names if inspect.isfunction(getattr(module, name))
        }
        if any(hasattr(function, "__privlib_constraints__") for function in functions.values()):
            short = module.__name__.removeprefix("privlib.")
            for name, function in functions.items():
                yield f"{short}.{name}", function


#: Every public function of the measure modules, the helpers included.
EVERY_FUNCTION = dict(_public_functions())


FUNCTIONS = {name: function for name, function in EVERY_FUNCTION.items() if name not in HELPERS}


def test_the_measure_modules_export_functions():
    assert len(FUNCTIONS) >= 20
    # modules that the hand list of four missed are searched too
    assert {
        "attacks.attack_ensemble",
        "rare_copies.rare_copy_test",
        "rare_attributions.rare_attribution_test",
    } < set(FUNCTIONS)


def test_the_helpers_left_out_are_public_functions_without_constraints():
    for name in sorted(HELPERS):
        assert name in EVERY_FUNCTION, f"{name} is no longer a public function; drop it from HELPERS"
        assert not hasattr(EVERY_FUNCTION[name], "__privlib_constraints__"), f"{name} is constrained; test it"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_tables_and_random_state_are_keyword_only(name):
    signature = inspect.signature(FUNCTIONS[name])
    for parameter in signature.parameters.values():
        if parameter.name in ROLES or parameter.name == "random_state":
            assert parameter.kind is inspect.Parameter.KEYWORD_ONLY, (name, parameter.name)


def test_adversarial_accuracys_table_is_named_by_role():
    # ``target`` is the real table there (Yale et al.'s "target" records), passed by keyword too.
    signature = inspect.signature(pl.membership.adversarial_accuracy)
    assert signature.parameters["target"].kind is inspect.Parameter.KEYWORD_ONLY


def test_every_measure_module_is_an_attribute_of_privlib():
    measure_modules = {name.split(".")[0] for name in EVERY_FUNCTION}
    assert {"attacks", "rare_copies"} <= measure_modules
    for name in sorted(measure_modules):
        assert name in pl.__all__, name
        assert getattr(pl, name).__name__ == f"privlib.{name}"
