"""Declarative checks of the parameters of the kit's public functions.

Modelled on scikit-learn's ``validate_params``: a function declares, per parameter, the kinds of
value it accepts, and :func:`validate_params` checks them before the body runs. A value that fits
none raises :class:`~privlib.errors.ParameterError` (whether one kind or several are accepted) with
one message that names the parameter, says what it must be and what it got:

>>> @validate_params({"n": [Integer(low=1)], "share": [Number(low=0, high=1), None]})
... def f(*, n, share=None):
...     return n
>>> f(n=True)
Traceback (most recent call last):
...
privlib.errors.ParameterError: `n` must be a whole number >= 1, got True.

Tables (:class:`Table`) are checked for what breaks every measure: not a DataFrame (a bad
argument, :class:`~privlib.errors.ParameterError`), and, for a DataFrame, no rows, a column name
used twice, a column with no value (properties of the data, :class:`~privlib.errors.DataError`).
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Mapping
from contextvars import ContextVar
from numbers import Integral, Real
from typing import cast

import numpy as np
import pandas as pd

from privlib.errors import DataError, ParameterError

__all__ = [
    "validate_params",
    "Table",
    "Integer",
    "Number",
    "Options",
    "Names",
    "RandomState",
    "Boolean",
    "HasMethods",
    "Instance",
    "Numbers",
    "CONFIDENCE",
    "CLIENT",
    "TOLERANCES",
]


def _short(value) -> str:
    """A short description of a value for an error message (tables by shape, not content)."""
    if isinstance(value, pd.DataFrame):
        return f"a DataFrame of {value.shape[0]} rows x {value.shape[1]} columns"
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


class _Constraint:
    """One kind of accepted value: :meth:`problem` says why ``value`` is not one, or ``None``;
    :meth:`data_problem`, for a value of this kind, why the data it holds cannot be used."""

    description = ""

    def problem(self, value, name: str) -> str | None:
        raise NotImplementedError

    def data_problem(self, value, name: str) -> str | None:
        return None


class Table(_Constraint):
    """A pandas DataFrame; its data must have at least ``min_rows`` rows, distinct column names
    and, when it has several rows, no column that is entirely missing (one record with a missing
    value is a record, a column with no value in a table is a mistake)."""

    def __init__(self, min_rows: int = 1):
        self.min_rows = min_rows
        self.description = "a pandas DataFrame"

    def problem(self, value, name):
        if not isinstance(value, pd.DataFrame):
            return f"`{name}` must be a pandas DataFrame, got {_short(value)}."
        return None

    def data_problem(self, value, name):
        if len(value) < self.min_rows:
            return f"`{name}` has {len(value)} row(s); it needs at least {self.min_rows}."
        repeated = sorted({str(c) for c in value.columns[value.columns.duplicated()]})
        if repeated:
            return f"`{name}` names column(s) {repeated} more than once; give each column one name."
        empty = [str(c) for c in value.columns if value[c].isna().all()]
        if empty and len(value) > 1:
            return f"`{name}` has column(s) {empty} with no value at all; drop them or fill them in."
        return None


class Integer(_Constraint):
    """A whole number (not a bool) within ``[low, high]``."""

    def __init__(self, low=None, high=None):
        self.low, self.high = low, high
        bounds = [f">= {low}" if low is not None else "", f"<= {high}" if high is not None else ""]
        self.description = "a whole number" + (
            " " + " and ".join(b for b in bounds if b) if any(bounds) else ""
        )

    def problem(self, value, name):
        ok = (
            isinstance(value, (Integral, np.integer))
            and not isinstance(value, (bool, np.bool_))
            and (self.low is None or value >= self.low)
            and (self.high is None or value <= self.high)
        )
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Number(_Constraint):
    """A finite real number (not a bool) within the interval given by ``low``, ``high`` and
    ``closed`` (``"both"``, ``"left"``, ``"right"`` or ``"neither"``)."""

    def __init__(self, low=None, high=None, closed="both"):
        self.low, self.high, self.closed = low, high, closed
        left = ">=" if closed in ("both", "left") else ">"
        right = "<=" if closed in ("both", "right") else "<"
        bounds = [f"{left} {low}" if low is not None else "", f"{right} {high}" if high is not None else ""]
        self.description = "a number" + (" " + " and ".join(b for b in bounds if b) if any(bounds) else "")

    def problem(self, value, name):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (Real, np.floating, np.integer)):
            return f"`{name}` must be {self.description}, got {_short(value)}."
        value = float(value)
        ok = math.isfinite(value)
        if ok and self.low is not None:
            ok = value >= self.low if self.closed in ("both", "left") else value > self.low
        if ok and self.high is not None:
            ok = value <= self.high if self.closed in ("both", "right") else value < self.high
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Numbers(_Constraint):
    """Real numbers within bounds (as :class:`Number`, without NaN): one number, when ``scalar``,
    or a non-empty list, tuple, array or Series of them. ``finite=False`` allows infinities (a
    score), never NaN."""

    def __init__(self, low=None, high=None, closed="both", *, scalar=True, finite=True):
        self.bounds = Number(low=low, high=high, closed=closed)
        self.scalar, self.finite = scalar, finite
        within = self.bounds.description.removeprefix("a number")  # " >= 0 and <= 1", or ""
        self.description = (
            ("a number or " if scalar else "")
            + f"a non-empty array of numbers{within}"
            + ("" if finite else " (infinities allowed)")
        )

    def problem(self, value, name):
        wrong = f"`{name}` must be {self.description}, got {_short(value)}."
        if isinstance(value, (list, tuple, np.ndarray, pd.Series, pd.Index)):
            array = np.asarray(value)
        elif self.scalar and isinstance(value, (Real, np.floating, np.integer)):
            array = np.asarray([value])
        else:
            return wrong
        # whole arrays at once: a score per record may come by the million
        if array.size == 0 or array.dtype.kind not in "iuf":  # no bool, text or mixed objects
            return wrong
        numbers = array.astype("float64", copy=False)
        if np.isnan(numbers).any() or (self.finite and np.isinf(numbers).any()):
            return wrong
        finite = numbers[np.isfinite(numbers)]
        if finite.size and (
            self.bounds.problem(finite.min(), name) or self.bounds.problem(finite.max(), name)
        ):
            return wrong
        return None


class Options(_Constraint):
    """One of a fixed set of values."""

    def __init__(self, *options):
        self.options = options
        self.description = "one of " + ", ".join(repr(o) for o in options)

    def problem(self, value, name):
        # Same type and equal: 1 is not True, "1" is not 1.
        ok = any(value is o or (type(value) is type(o) and value == o) for o in self.options)
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Subset(_Constraint):
    """A non-empty list or tuple of distinct values, each one of a fixed set."""

    def __init__(self, *options):
        self.options = options
        self.description = "a non-empty list of some of " + ", ".join(repr(o) for o in options)

    def problem(self, value, name):
        ok = (
            isinstance(value, (list, tuple))
            and len(value) > 0
            and len(set(map(repr, value))) == len(value)
            and all(Options(*self.options).problem(v, name) is None for v in value)
        )
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Names(_Constraint):
    """A column name or a non-empty list of them (names are strings or numbers)."""

    description = "a column name or a list of column names"

    def problem(self, value, name):
        single = lambda v: isinstance(v, (str, Integral)) and not isinstance(v, bool) and v != ""  # noqa: E731
        ok = single(value) or (
            isinstance(value, (list, tuple, pd.Index)) and len(value) > 0 and all(single(v) for v in value)
        )
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class RandomState(_Constraint):
    """A seed: ``None``, a whole number >= 0, or a :class:`numpy.random.Generator`."""

    description = "None, a whole number >= 0 or a numpy Generator"

    def problem(self, value, name):
        ok = (
            value is None
            or isinstance(value, np.random.Generator)
            # an Integral compares as an int does; typeshed's numbers.Integral declares only < and <=
            or (
                isinstance(value, (Integral, np.integer))
                and not isinstance(value, bool)
                and cast(int, value) >= 0
            )
        )
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Boolean(_Constraint):
    """``True`` or ``False``."""

    description = "True or False"

    def problem(self, value, name):
        return (
            None
            if isinstance(value, (bool, np.bool_))
            else f"`{name}` must be True or False, got {_short(value)}."
        )


class HasMethods(_Constraint):
    """An object with all the given methods (e.g. a scikit-learn estimator: ``fit``, ``predict``)."""

    def __init__(self, *methods, description: str | None = None):
        self.methods = methods
        self.description = description or "an object with " + " and ".join(f"{m}()" for m in methods)

    def problem(self, value, name):
        ok = all(callable(getattr(value, m, None)) for m in self.methods)
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


class Instance(_Constraint):
    """An instance of one of the given types."""

    def __init__(self, *types, description: str | None = None):
        self.types = types
        self.description = description or "a " + " or ".join(t.__name__ for t in types)

    def problem(self, value, name):
        ok = isinstance(value, self.types) and not (isinstance(value, bool) and bool not in self.types)
        return None if ok else f"`{name}` must be {self.description}, got {_short(value)}."


def check_value(value, name: str, accepted: list) -> None:
    """Raise :class:`~privlib.errors.ParameterError` when ``value`` is of none of the ``accepted``
    kinds (constraints, or ``None`` for the value ``None``), and
    :class:`~privlib.errors.DataError` when the kind that accepts it finds its data unusable."""
    if value is None and None in accepted:
        return
    kinds = [c for c in accepted if c is not None]
    problems = [c.problem(value, name) for c in kinds]
    fitting = [c for c, problem in zip(kinds, problems) if problem is None]
    if not fitting:
        if len(problems) == 1:
            raise ParameterError(problems[0])
        descriptions = [c.description for c in kinds] + (["None"] if None in accepted else [])
        raise ParameterError(f"`{name}` must be {' or '.join(descriptions)}, got {_short(value)}.")
    data_problem = fitting[0].data_problem(value, name)
    if data_problem is not None:
        raise DataError(data_problem)


def _renamed_keywords(function_name: str, renamed: Mapping[str, str], kwargs: dict) -> dict:
    """``kwargs`` with each old keyword of ``renamed`` (old name to new) under its new name, with a
    :class:`DeprecationWarning` naming the new one; both names given is a
    :class:`~privlib.errors.ParameterError`."""
    for old, new in renamed.items():
        if old not in kwargs:
            continue
        if new in kwargs:
            raise ParameterError(f"{function_name}(): `{old}` is the old name of `{new}`; pass `{new}` only.")
        warnings.warn(
            f"{function_name}(): `{old}` is renamed `{new}`; the old name goes in the next release.",
            DeprecationWarning,
            stacklevel=3,
        )
        kwargs = {(new if name == old else name): value for name, value in kwargs.items()}
    return kwargs


#: True while the body of a checked function runs. A helper declared with ``skip_nested=True``
#: skips its checks then: its arguments were made by kit code whose own arguments were checked, and
#: it may run once per target (scikit-learn's ``prefer_skip_nested_validation``).
_INSIDE_CHECKED: ContextVar[bool] = ContextVar("privlib_inside_checked", default=False)


def _positional_keywords(function_name: str, formerly_positional: tuple[str, ...], args: tuple, kwargs: dict):
    """``args`` given by position to parameters that are now keyword-only, moved into ``kwargs``
    with a :class:`DeprecationWarning` naming the keywords."""
    moved = dict(zip(formerly_positional, args))
    if moved:
        warnings.warn(
            f"{function_name}(): pass {', '.join(f'`{name}=`' for name in moved)} by keyword; "
            "passing by position goes in the next release.",
            DeprecationWarning,
            stacklevel=3,
        )
    return args[len(moved) :], {**moved, **kwargs}


def validate_params(
    constraints: dict,
    *,
    renamed: Mapping[str, str] | None = None,
    formerly_positional: tuple[str, ...] = (),
    skip_nested: bool = False,
):
    """Decorate a function so its parameters are checked against ``constraints`` first.

    ``constraints`` maps a parameter name to a list of accepted kinds: constraint objects of this
    module, or ``None`` (the value ``None`` is accepted). A parameter left at its default is
    checked too, so a wrong default shows up in the tests. The first problem found raises
    :class:`~privlib.errors.ParameterError` when the value is of no accepted kind, and
    :class:`~privlib.errors.DataError` when it is (a DataFrame) but its data cannot be used.

    ``renamed`` maps a keyword's old name to its new one for one release: the old name still
    works, with a :class:`DeprecationWarning`, and is checked under the new name's constraints.

    ``formerly_positional`` names, in order, keyword-only parameters that the last release took by
    position: a call by position still works for one release, with a :class:`DeprecationWarning`.

    ``skip_nested=True`` is for helpers that checked functions call with values they made: called
    from inside another checked function, the helper runs without its checks; called by a user,
    it checks its arguments like any other.
    """
    renamed = dict(renamed or {})

    def decorate(function):
        signature = inspect.signature(function)
        unknown = set(constraints) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{function.__name__} has no parameter(s) {sorted(unknown)} to constrain")
        stale = {
            old
            for old, new in renamed.items()
            if old in signature.parameters or new not in signature.parameters
        }
        if stale:
            raise TypeError(f"{function.__name__}: {sorted(stale)} cannot be renamed to a parameter it has")

        @functools.wraps(function)
        def checked(*args, **kwargs):
            kwargs = _renamed_keywords(function.__name__, renamed, kwargs)
            if formerly_positional and args:
                args, kwargs = _positional_keywords(function.__name__, formerly_positional, args, kwargs)
            if skip_nested and _INSIDE_CHECKED.get():
                return function(*args, **kwargs)
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise ParameterError(f"{function.__name__}(): {exc}; pass the tables by name.") from None
            bound.apply_defaults()
            for name, accepted in constraints.items():
                check_value(bound.arguments[name], name, accepted)
            inside = _INSIDE_CHECKED.set(True)
            try:
                return function(*args, **kwargs)
            finally:
                _INSIDE_CHECKED.reset(inside)

        # typeshed's functools._Wrapped omits the attributes every function object accepts.
        checked.__privlib_constraints__ = constraints  # type: ignore[attr-defined]
        checked.__privlib_renamed__ = renamed  # type: ignore[attr-defined]
        checked.__privlib_skip_nested__ = skip_nested  # type: ignore[attr-defined]
        return checked

    return decorate


#: The level of a confidence interval: strictly between 0 and 1.
CONFIDENCE = Number(low=0, high=1, closed="neither")

#: A Dask client (``dask.distributed.Client``): what the neighbour engine calls on it.
CLIENT = HasMethods("scatter", "submit", "gather", description="a dask.distributed.Client")

#: Tolerances per column: a mapping of column names to numbers, checked by the function that knows
#: the columns.
TOLERANCES = Instance(Mapping, description="a mapping of column names to numbers")

#: The tables and settings of a measure that reads training and holdout records against a release.
RELEASE = {
    "train": [Table()],
    "holdout": [Table()],
    "synthetic": [Table()],
    "confidence": [CONFIDENCE],
    "client": [CLIENT, None],
}

#: A measure that samples its queries: the sample's seed and its largest size.
QUERY_SAMPLE = {"random_state": [RandomState()], "max_queries": [Integer(low=2), None]}
