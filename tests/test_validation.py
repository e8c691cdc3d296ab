"""One common test of bad input for every public measure: wrong types, empty tables, booleans
for counts, columns with no value; each must raise the error of its cause (a bad argument a
ParameterError, a table whose data cannot be used a DataError) naming the parameter.

Nothing is listed by hand: the functions are found by introspection, their valid arguments are
made from their own constraints (``test_public_functions.valid_arguments``), and the parameters to
spoil are read from the constraints too (a table, a count, a seed, a confidence). The checks run
before a function's body, so a spoiled argument is refused before any work.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_api import FUNCTIONS
from test_public_functions import constraints_of, valid_arguments

from privlib.errors import DataError, ParameterError, PrivlibError
from privlib.validation import CONFIDENCE, Integer, Number, Options, RandomState, Table, validate_params

T = pd.DataFrame(
    {
        "age": np.arange(40, dtype=float),
        "sex": pd.Categorical(["F", "M"] * 20),
        "ill": pd.Categorical(["y", "n"] * 20),
    }
)


def _kinds(accepted) -> set[type]:
    return {type(c) for c in accepted if c is not None}


def _spoiled_cases():
    for name, function in sorted(FUNCTIONS.items()):
        valid = valid_arguments(function)
        for parameter, accepted in constraints_of(function).items():
            kinds = _kinds(accepted)
            if Table in kinds:
                frame = valid[parameter]
                yield name, parameter, "a list", list(frame.itertuples(index=False)), ParameterError
                yield name, parameter, "no rows", frame.iloc[:0], DataError
                empty = frame.assign(sex=pd.Categorical([None] * len(frame)))
                yield name, parameter, "a column with no value", empty, DataError
            if Integer in kinds:
                yield name, parameter, "a boolean", True, ParameterError
            if RandomState in kinds:
                yield name, parameter, "a negative seed", -1, ParameterError
            if CONFIDENCE in accepted:
                yield name, parameter, "a confidence of 1", 1.0, ParameterError


CASES = list(_spoiled_cases())


def test_the_cases_cover_every_kind_of_spoiled_argument():
    # the cases are read from the constraints: each kind is found, in many functions
    for what in ("a list", "no rows", "a column with no value", "a boolean", "a negative seed"):
        assert len({name for name, _, w, _, _ in CASES if w == what}) >= 10, what
    assert {name for name, _, w, _, _ in CASES if w == "a confidence of 1"} >= {"membership.nn_mia"}


@pytest.mark.parametrize(
    "name, parameter, what, value, error", CASES, ids=[f"{n}-{p}-{w}" for n, p, w, _, _ in CASES]
)
def test_bad_input_names_the_parameter(name, parameter, what, value, error):
    arguments = valid_arguments(FUNCTIONS[name]) | {parameter: value}
    with pytest.raises(error, match=f"`{parameter}`"):
        FUNCTIONS[name](**arguments)


def test_constraints_describe_what_they_accept():
    @validate_params(
        {
            "n": [Integer(low=1)],
            "share": [Number(low=0, high=1, closed="neither"), None],
            "mode": [Options("a", "b")],
            "table": [Table()],
        }
    )
    def f(*, n, share=None, mode="a", table=None):
        return n

    assert f(n=3, table=T) == 3
    cases = [
        (dict(n=0, table=T), ParameterError, "`n` must be a whole number >= 1, got 0."),
        (
            dict(n=np.int64(2), share=1.0, table=T),
            ParameterError,
            "`share` must be a number > 0 and < 1, got 1.0.",
        ),
        (dict(n=1, mode="c", table=T), ParameterError, "`mode` must be one of 'a', 'b', got 'c'."),
        (dict(n=1, mode=True, table=T), ParameterError, "`mode` must be one of 'a', 'b', got True."),
        (dict(n=1, table=T.values), ParameterError, "`table` must be a pandas DataFrame, got "),
        (
            dict(n=1, table=T.assign(extra=np.nan)),
            DataError,
            "`table` has column(s) ['extra'] with no value at all",
        ),
        (
            dict(n=1, table=pd.concat([T, T["age"]], axis=1)),
            DataError,
            "`table` names column(s) ['age'] more than once",
        ),
    ]
    for arguments, kind, message in cases:
        with pytest.raises(PrivlibError) as error:
            f(**arguments)
        assert type(error.value) is kind and str(error.value).startswith(message), (str(error.value), message)


def test_a_subset_is_a_non_empty_list_of_distinct_options():
    from privlib.validation import Subset

    leaks = Subset("verbatim", "near copies")
    for accepted in (["verbatim"], ("near copies", "verbatim")):
        assert leaks.problem(accepted, "leaks") is None
    for refused in ([], "verbatim", ["verbatim", "verbatim"], ["exact"], [1], None):
        assert leaks.problem(refused, "leaks").startswith("`leaks` must be a non-empty list of some of")


@validate_params({"n": [Integer(low=1)]}, skip_nested=True)
def _per_target_helper(n):
    return n


@validate_params({"n": [Integer(low=1)]})
def _checked_measure(n, *, helper_argument):
    return _per_target_helper(helper_argument)


@validate_params({"n": [Integer(low=1)]})
def _checked_helper(n):
    return n


@validate_params({"n": [Integer(low=1)]})
def _measure_calling_a_checked_helper(n, *, helper_argument):
    return _checked_helper(helper_argument)


def test_a_helper_that_skips_nested_checks_checks_a_users_call():
    with pytest.raises(ParameterError, match="`n` must be a whole number >= 1"):
        _per_target_helper(0)


def test_a_helper_that_skips_nested_checks_trusts_a_checked_caller():
    # 0 breaks the helper's constraint; the measure made it, so the helper does not check it again
    assert _checked_measure(1, helper_argument=0) == 0


def test_the_measures_own_arguments_are_still_checked_before_its_helpers_run():
    with pytest.raises(ParameterError, match="`n` must be"):
        _checked_measure(0, helper_argument=1)


def test_a_helper_without_the_option_is_checked_inside_a_measure_too():
    with pytest.raises(ParameterError, match="`n` must be"):
        _measure_calling_a_checked_helper(1, helper_argument=0)


def test_the_check_resumes_after_a_measure_returns_or_fails():
    _checked_measure(1, helper_argument=0)
    with pytest.raises(ParameterError):
        _checked_measure(0, helper_argument=0)
    with pytest.raises(ParameterError):
        _per_target_helper(0)


@validate_params({"train": [Table()], "n": [Integer(low=1)]}, formerly_positional=("train", "n"))
def _keyword_only_now(*, train, n):
    return len(train), n


def test_a_formerly_positional_call_works_with_a_warning_naming_the_keywords():
    table = pd.DataFrame({"x": [1.0, 2.0]})
    with pytest.warns(DeprecationWarning, match="pass `train=`, `n=` by keyword"):
        assert _keyword_only_now(table, 3) == (2, 3)
    with pytest.warns(DeprecationWarning, match="pass `train=` by keyword"):
        assert _keyword_only_now(table, n=3) == (2, 3)


def test_a_formerly_positional_value_is_still_checked():
    with pytest.warns(DeprecationWarning), pytest.raises(ParameterError, match="`n` must be"):
        _keyword_only_now(pd.DataFrame({"x": [1.0]}), 0)


def test_a_keyword_call_of_a_formerly_positional_function_does_not_warn(recwarn):
    assert _keyword_only_now(train=pd.DataFrame({"x": [1.0]}), n=1) == (1, 1)
    assert not [w for w in recwarn if issubclass(w.category, DeprecationWarning)]
