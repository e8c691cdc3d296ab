"""The public API's shape: tables passed by role as keywords, randomness through one keyword.

Every public function of the measure modules is found by introspection (``__all__``), so a new
measure is checked without being listed here.
"""

from __future__ import annotations

import inspect

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
MODULES = ("identity", "attribute", "membership", "utility")


def _public_functions():
    for module_name in MODULES:
        module = getattr(pl, module_name)
        names = getattr(module, "__all__", None) or [
            name
            for name, member in vars(module).items()
            if not name.startswith("_") and getattr(member, "__module__", None) == module.__name__
        ]
        for name in names:
            member = getattr(module, name)
            if inspect.isfunction(member):
                yield f"{module_name}.{name}", member


FUNCTIONS = dict(_public_functions())


def test_the_measure_modules_export_functions():
    assert len(FUNCTIONS) >= 20


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
