"""The synthesizers by name (:data:`SYNTHESIZERS`, :func:`make`, :func:`synthesize`), and
:class:`OutlierCopies`, which wraps another synthesizer chosen by name."""

from __future__ import annotations

import importlib
import inspect
import numbers

import numpy as np
import pandas as pd

from privlib.errors import DataError, PrivlibError
from privlib.synth.base import _Synthesizer
from privlib.synth.baselines import AdditiveNoise, Copy, GaussianCopula, IndependentMarginals, ParzenWindows
from privlib.synth.trees import SequentialTrees


class OutlierCopies(_Synthesizer):
    """A leaky foil: a fitted generator whose release also holds its most isolated training records.

    A teaching foil for the worst case (notebook 08): ``base`` (by default
    :class:`SequentialTrees`) draws the release, then ``n_copies`` of its rows are replaced by
    the training records farthest (in Gower distance) from their nearest other training record,
    and the rows are shuffled. The average-case measures of :mod:`privlib.membership` barely
    move, since a handful of copies among hundreds of records shifts a mean over records by a
    few per cent; those few persons are nevertheless exposed, and an attack that targets them
    (:func:`privlib.targeted.shadow_model_attack`) finds them. Generators that memorise rare
    records behave this way (Stadler, Oprisanu & Troncoso 2022).

    Parameters
    ----------
    base : str, default "SequentialTrees"
        Name of the generator that draws the rest of the release (a key of
        :data:`SYNTHESIZERS`).
    n_copies : int, default 5
        How many of the most isolated training records are released (at most the sample size
        and fewer than the training records).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 31, 32, 33, 34, 35, 90] * 3,
    ...                    "sex": ["F", "M", "F", "M", "F", "M", "F"] * 3})
    >>> df.loc[20, "age"] = 200
    >>> fake = OutlierCopies(n_copies=1).fit(df).sample(random_state=0)
    >>> int((fake["age"] == 200).sum())
    1
    """

    def __init__(self, base: str = "SequentialTrees", n_copies: int = 5):
        self.base = base
        self.n_copies = n_copies

    def _check_params(self):
        if self.base not in SYNTHESIZERS or self.base == "OutlierCopies":
            raise PrivlibError(
                f"`base` must be one of {[n for n in SYNTHESIZERS if n != 'OutlierCopies']}, "
                f"got {self.base!r}."
            )
        if (
            isinstance(self.n_copies, bool)
            or not isinstance(self.n_copies, numbers.Integral)
            or self.n_copies < 0
        ):
            raise PrivlibError(f"`n_copies` must be a whole number >= 0, got {self.n_copies!r}.")

    def _fit(self, data):
        from privlib.neighbors import nearest_distances  # numba: loaded only when needed

        if self.n_copies >= len(data):
            raise DataError(
                f"`n_copies` ({self.n_copies}) must be below the number of training records ({len(data)})."
            )
        self.model_ = make(self.base).fit(data)
        distance = nearest_distances(data, data, exclude_self=True)
        # the most isolated first, ties broken by the lower row position
        self.copied_ = np.lexsort((np.arange(len(data)), -distance))[: self.n_copies]

    def _sample(self, n, rng):
        if self.n_copies > n:
            raise PrivlibError(f"`n` ({n}) must be at least `n_copies` ({self.n_copies}).")
        drawn = (
            self.model_.sample(n - self.n_copies, random_state=rng)
            if n > self.n_copies
            else self.data_.iloc[:0]
        )
        released = pd.concat([drawn, self.data_.iloc[self.copied_]], ignore_index=True)
        return released.iloc[rng.permutation(n)].reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------
SYNTHESIZERS = {
    cls.__name__: cls
    for cls in (
        Copy,
        AdditiveNoise,
        IndependentMarginals,
        GaussianCopula,
        ParzenWindows,
        SequentialTrees,
        OutlierCopies,
    )
}


#: Synthesizers that live in their own module, imported on first use.
_LAZY = {"MST": "privlib.dp"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privlib.synth' has no attribute {name!r}")


def make(name: str, **params) -> _Synthesizer:
    """Build a synthesizer from its class name and hyper-parameters.

    Parameters
    ----------
    name : str
        One of the keys of :data:`SYNTHESIZERS` (``"Copy"``, ``"AdditiveNoise"``,
        ``"IndependentMarginals"``, ``"GaussianCopula"``, ``"ParzenWindows"``,
        ``"SequentialTrees"``, ``"OutlierCopies"``), or ``"MST"`` (:class:`privlib.dp.MST`,
        differentially private).
    **params
        Hyper-parameters of that class.

    Raises
    ------
    PrivlibError
        For an unknown name, a hyper-parameter the class does not take, or a value outside the
        class's own constraints (checked now, before any table is made, by the same
        ``_check_params`` that ``fit`` calls).
    """
    if not isinstance(name, str):
        raise PrivlibError(f"the synthesizer's name must be a text, got {type(name).__name__}.")
    if name not in SYNTHESIZERS and name not in _LAZY:
        raise PrivlibError(f"unknown synthesizer {name!r}; choose one of {list(SYNTHESIZERS) + list(_LAZY)}.")
    cls = SYNTHESIZERS[name] if name in SYNTHESIZERS else __getattr__(name)
    accepted = list(inspect.signature(cls).parameters)
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise PrivlibError(f"{name} takes no parameter {unknown}; its parameters are {accepted or 'none'}.")
    model = cls(**params)
    model._check_params()
    return model


def synthesize(
    df: pd.DataFrame, method: str = "SequentialTrees", n: int | None = None, random_state=None, **params
) -> pd.DataFrame:
    """Fit the synthesizer ``method`` on ``df`` and return one sample, in one call.

    Parameters
    ----------
    df : pandas.DataFrame
        The training table.
    method : str, default "SequentialTrees"
        Name of the synthesizer (see :func:`make`).
    n : int, optional
        Number of synthetic rows (default: as many as ``df``).
    random_state : int, numpy.random.Generator or None
        Seed for the sample.
    **params
        Hyper-parameters of the synthesizer.

    Returns
    -------
    pandas.DataFrame
        The synthetic table, with the columns and dtypes of ``df``.
    """
    return make(method, **params).fit(df).sample(n, random_state=random_state)
