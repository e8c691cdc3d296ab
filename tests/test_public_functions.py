"""Every public parameter of every public measure function has a constraint, and each constraint
refuses a bad value with :class:`~privlib.errors.ParameterError` (scikit-learn's
``sklearn/tests/test_public_functions.py`` for ``validate_params``, here for
:func:`privlib.validation.validate_params`).

Nothing here is listed by hand: the functions are found by introspection (``test_api.FUNCTIONS``),
the valid arguments are made from each parameter's own constraints (:func:`valid_arguments`) and
the bad values are the candidates that none of a parameter's constraints accepts. A new measure
is checked as soon as it is public; the test names the parameter that has no constraint, or the
constraint that lets a bad value through.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Mapping

import numpy as np
import pandas as pd
import pytest
from test_api import FUNCTIONS

from privlib.errors import DataError, ParameterError
from privlib.records import LowFprPoint, tpr_at_low_fpr
from privlib.results import Result
from privlib.validation import (
    Boolean,
    HasMethods,
    Instance,
    Integer,
    Names,
    Number,
    Numbers,
    Options,
    RandomState,
    Subset,
    Table,
    check_value,
)

#: A small table with a number and two categories, for every parameter that takes a table.
TABLE = pd.DataFrame(
    {
        "age": [float(20 + i % 50) for i in range(40)],
        "sex": pd.Categorical(["F", "M"] * 20),
        "ill": pd.Categorical(["y", "n", "n", "n"] * 10),
    }
)

#: Values a parameter may be given by mistake; those that none of its constraints accepts must be
#: refused with a ParameterError naming it.
CANDIDATES = (
    object(),
    "no such value",
    -1,
    1.5,
    True,
    math.nan,
    [],
    ["a", None],
    {"a": 1},
    pd.Series([1.0, math.nan]),
)


def _example_of_type(kind: type):
    """A value of ``kind``, for an :class:`Instance` constraint."""
    if kind is Result:
        return Result(measure="example", value=0.5)
    if kind is LowFprPoint:
        return tpr_at_low_fpr(member_scores=[1.0, 2.0], nonmember_scores=[0.0, 0.5])
    if kind is type:
        return dict
    if kind in (list, tuple, np.ndarray, pd.Index, pd.Series):
        return kind([0, 1]) if kind is not np.ndarray else np.array([0, 1])
    if kind is Mapping:
        return {}
    return kind()


def valid_value(constraint):
    """A value ``constraint`` accepts (for a table, :data:`TABLE`)."""
    if isinstance(constraint, Table):
        return TABLE
    if isinstance(constraint, Integer):
        low = 1 if constraint.low is None else max(constraint.low, 1)
        return low if constraint.high is None else min(low, constraint.high)
    if isinstance(constraint, (Number, Numbers)):
        bounds = constraint if isinstance(constraint, Number) else constraint.bounds
        low = 0.0 if bounds.low is None else bounds.low
        high = low + 2 if bounds.high is None else bounds.high
        middle = (low + high) / 2
        return middle if isinstance(constraint, Number) else [middle]
    if isinstance(constraint, Options):
        return constraint.options[0]
    if isinstance(constraint, Subset):
        return [constraint.options[0]]
    if isinstance(constraint, Names):
        return "sex"
    if isinstance(constraint, RandomState):
        return 0
    if isinstance(constraint, Boolean):
        return False
    if isinstance(constraint, HasMethods):
        return type("Example", (), {method: lambda self, *a, **k: None for method in constraint.methods})()
    if isinstance(constraint, Instance):
        return _example_of_type(constraint.types[0])
    raise AssertionError(f"no example for the constraint {type(constraint).__name__}; add one here")


def constraints_of(function) -> dict:
    return getattr(function, "__privlib_constraints__", {})


def valid_arguments(function) -> dict:
    """An argument for every parameter, each made from the first kind its constraints accept.

    They pass the checks, not necessarily the computation (``keys`` and ``target`` may name one
    column): what a test of the checks needs, since the checks run before the body.
    """
    return {
        name: valid_value(next(c for c in accepted if c is not None))
        for name, accepted in constraints_of(function).items()
    }


def invalid_values(accepted: list) -> list:
    """The candidates that none of the ``accepted`` kinds takes."""
    kinds = [c for c in accepted if c is not None]
    return [value for value in CANDIDATES if all(c.problem(value, "x") for c in kinds)]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_public_parameter_has_a_constraint(name):
    # **kwargs are passed on to what checks them (a synthesizer's own parameters), as in scikit-learn
    parameters = {
        parameter.name
        for parameter in inspect.signature(FUNCTIONS[name]).parameters.values()
        if parameter.kind is not inspect.Parameter.VAR_KEYWORD
    }
    missing = sorted(parameters - set(constraints_of(FUNCTIONS[name])))
    assert not missing, f"{name}: parameter(s) {missing} have no constraint in its @validate_params"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_valid_examples_pass_the_checks(name):
    function = FUNCTIONS[name]
    arguments = valid_arguments(function)
    for parameter, accepted in constraints_of(function).items():
        check_value(arguments[parameter], parameter, accepted)  # raises if the example is wrong


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_each_constraint_refuses_a_bad_value_with_a_parameter_error(name):
    function = FUNCTIONS[name]
    for parameter, accepted in constraints_of(function).items():
        bad = invalid_values(accepted)
        assert bad, f"{name}: the constraints of `{parameter}` accept every candidate value"
        for value in bad:
            arguments = valid_arguments(function) | {parameter: value}
            with pytest.raises(ParameterError) as raised:
                function(**arguments)
            assert str(raised.value).startswith(f"`{parameter}` must be"), (name, parameter, value)
            assert not isinstance(raised.value, DataError)


def test_a_table_of_the_right_kind_with_unusable_data_is_a_data_error():
    function = FUNCTIONS["membership.nn_mia"]
    arguments = valid_arguments(function)
    for table, message in (
        (TABLE.iloc[:0], "`holdout` has 0 row(s)"),
        (TABLE.assign(sex=pd.Categorical([None] * 40)), "`holdout` has column(s) ['sex'] with no value"),
    ):
        with pytest.raises(DataError) as raised:
            function(**arguments | {"holdout": table})
        assert str(raised.value).startswith(message)
    with pytest.raises(ParameterError, match="`holdout` must be a pandas DataFrame"):
        function(**arguments | {"holdout": TABLE.to_numpy()})


def test_one_refused_constraint_and_several_give_the_same_error_type():
    # one refused constraint and several answer with the same error type, ParameterError
    cap = FUNCTIONS["attribute.cap"]
    arguments = valid_arguments(cap)
    with pytest.raises(ParameterError, match="`keys` must be a column name or a list of column names"):
        cap(**arguments | {"keys": []})
    with pytest.raises(ParameterError, match="`random_state` must be None, a whole number >= 0"):
        cap(**arguments | {"random_state": -1})
    discretize = FUNCTIONS["attribute.discretize"]
    with pytest.raises(ParameterError, match="`columns` must be a column name or a list of column names or "):
        discretize(**valid_arguments(discretize) | {"columns": 1.5})
