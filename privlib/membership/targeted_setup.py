"""What the targeted attacks share: checking their tables, building the generator from its
name, fitting shadow tables and turning them into features, and choosing the target records.
"""

from __future__ import annotations

import copy
import importlib
import inspect

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from privlib.errors import DataError, ParameterError
from privlib.neighbors import nearest_distances
from privlib.schema import MISSING, NUMERIC, TableEncoder, check_comparable, check_frame
from privlib.validation import HasMethods, Instance, Integer, Table, validate_params

__all__ = ["resolve_synthesizer", "outlier_targets"]


def _check_tables(tables: dict) -> None:
    """Every table valid and with the columns and column kinds of the first.

    Categories one table holds and another does not are allowed (a population holds more than a
    training sample), and never printed.
    """
    (first_name, first), *others = tables.items()
    check_frame(first, first_name)
    for name, table in others:
        check_frame(table, name)
        check_comparable(first, table, (first_name, name), unseen="ignore")


@validate_params(
    {
        "spec": [
            Instance(str, type, description="a synthesizer's name, a 'module:Class' entry point or a class"),
            HasMethods("fit", "sample"),
        ]
    },
    skip_nested=True,
)
def resolve_synthesizer(spec, **params):
    """An unfitted synthesizer from a name, an entry point, a class or an instance.

    Parameters
    ----------
    spec : str, type or object
        A class name of :mod:`privlib.synth` (``"SequentialTrees"``, ``"MST"``, ...); an entry
        point ``"module:Class"`` naming a class whose instances have ``fit(df)`` and
        ``sample(n)`` (``sample`` may also take ``random_state``); such a class; or an unfitted
        instance (copied, never changed).
    **params
        Hyper-parameters passed to the class (not allowed with an instance).

    Returns
    -------
    object
        A fresh unfitted synthesizer.

    Raises
    ------
    PrivlibError
        When the name is unknown, the module or class cannot be imported, or the object lacks
        ``fit`` or ``sample``.

    Examples
    --------
    >>> resolve_synthesizer("Copy")
    Copy()
    >>> resolve_synthesizer("privlib.synth:ParzenWindows", bandwidth=0.2)
    ParzenWindows(bandwidth=0.2)
    """
    from privlib import synth

    if isinstance(spec, str) and ":" in spec:
        module_name, _, class_name = spec.partition(":")
        try:
            spec = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as exc:
            raise ParameterError(
                f"`synthesizer` entry point {module_name}:{class_name} cannot be imported "
                f"({type(exc).__name__}); give 'module:Class' with the module on the Python path."
            ) from None
    made: object  # checked for fit() and sample() below
    if isinstance(spec, str):
        made = synth.make(spec, **params)
    elif inspect.isclass(spec):
        try:
            made = spec(**params)
        except TypeError as exc:
            raise ParameterError(f"`synthesizer` {spec.__name__} rejects its parameters: {exc}.") from None
    else:
        if params:
            raise ParameterError("give `synthesizer` as a name or class to pass parameters to it.")
        made = copy.deepcopy(spec)
    for method in ("fit", "sample"):
        if not callable(getattr(made, method, None)):
            raise ParameterError(
                f"`synthesizer` {type(made).__name__} has no {method}() method; a generator needs "
                "fit(df) and sample(n)."
            )
    return made


def _fit_and_sample(template, data: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """Fit a fresh copy of ``template`` on ``data`` and draw ``n`` rows, seeded by ``seed``."""
    model = copy.deepcopy(template)
    fit_seed, sample_seed = np.random.SeedSequence(seed).generate_state(2)
    if "random_state" in inspect.signature(type(model)).parameters:
        model.random_state = int(fit_seed)  # e.g. the noise of MST's fit
    model.fit(data)
    if "random_state" in inspect.signature(model.sample).parameters:
        return model.sample(n, random_state=int(sample_seed))
    return model.sample(n)


def _category_slot(codes: np.ndarray, size: int) -> np.ndarray:
    """Encoder codes of a categorical column as slots ``0..size-1``.

    ``size`` is the number of known categories plus two: the second-last slot takes every
    category the encoder never saw, the last one missing values.
    """
    return np.where(codes == MISSING, size - 1, np.minimum(codes, size - 2)).astype(int)


class _Features:
    """Fixed-length features of any table with the population's columns.

    Fitted once on the population: the numeric ranges and bins and the categories, so that every
    shadow table maps to the same positions.
    """

    N_BINS = 10

    def __init__(self, population: pd.DataFrame):
        self.encoder = TableEncoder().fit(population, names=["population"])
        self.columns = list(self.encoder.columns_)
        self.numeric = [self.encoder.kinds_[c] == NUMERIC for c in self.columns]
        self.n_categories = [
            0 if num else len(self.encoder.categories_[c]) + 2 for c, num in zip(self.columns, self.numeric)
        ]
        self.n_encoded = sum(max(size, 1) for size in self.n_categories)

    def _one_hot(self, codes: np.ndarray) -> np.ndarray:
        """Numeric columns as scaled values, categorical ones as indicators (missing, unseen)."""
        parts = []
        for j, numeric in enumerate(self.numeric):
            x = codes[:, j]
            if numeric:
                parts.append(np.where(x == MISSING, np.nan, x)[:, None])
            else:
                parts.append(np.eye(self.n_categories[j])[_category_slot(x, self.n_categories[j])])
        return np.hstack(parts)

    def __call__(self, table: pd.DataFrame, kind: str) -> np.ndarray:
        # one BLAS thread: the shadow fits already run in parallel, and threads only fight
        with threadpool_limits(1):
            return self._features(self.encoder.transform(table, "synthetic"), kind)

    def _features(self, codes: np.ndarray, kind: str) -> np.ndarray:
        if kind == "correlation":
            encoded = np.nan_to_num(self._one_hot(codes), nan=0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                corr = np.atleast_2d(np.corrcoef(encoded, rowvar=False))
            return np.nan_to_num(corr[np.triu_indices_from(corr, k=1)], nan=0.0)
        out = []
        for j, numeric in enumerate(self.numeric):
            x = codes[:, j]
            if numeric:
                present = x[x != MISSING]
                if kind == "naive":
                    stats = (
                        [present.mean(), np.median(present), present.var(), present.min(), present.max()]
                        if present.size
                        else [0.0] * 5
                    )
                    out.extend(stats + [1 - present.size / len(x)])
                else:
                    bins = np.clip(np.floor(present * self.N_BINS), 0, self.N_BINS - 1)
                    hist = np.bincount(bins.astype(int), minlength=self.N_BINS) / len(x)
                    out.extend(list(hist) + [1 - present.size / len(x)])
            else:
                size = self.n_categories[j]
                freq = np.bincount(_category_slot(x, size), minlength=size) / len(x)
                if kind == "naive":
                    seen = np.flatnonzero(freq)
                    out.extend([seen.size, int(np.argmax(freq)), int(seen[np.argmin(freq[seen])])])
                else:
                    out.extend(freq)
        return np.asarray(out, dtype="float64")


def _shadow_features(
    template, without, target, swap, n_synthetic, seed, features, featurizer
) -> tuple[np.ndarray, np.ndarray]:
    """Features of the synthetic tables made from one shadow set without and with the target."""
    with_target = without.copy()
    with_target.iloc[swap] = target.iloc[0]
    seeds = np.random.SeedSequence(seed).generate_state(2)
    return (
        featurizer(_fit_and_sample(template, without, n_synthetic, int(seeds[0])), features),
        featurizer(_fit_and_sample(template, with_target, n_synthetic, int(seeds[1])), features),
    )


@validate_params(
    {"train": [Table(min_rows=2)], "n_targets": [Integer(low=1)]},
    formerly_positional=("train", "n_targets"),
    skip_nested=True,
)
def outlier_targets(*, train: pd.DataFrame, n_targets: int) -> tuple[np.ndarray, np.ndarray]:
    """Row positions of the ``n_targets`` training records farthest from their nearest other one.

    Returns the positions (ties broken by the lower position) and those Gower distances.

    Examples
    --------
    >>> df = pd.DataFrame({"age": [30.0, 31.0, 32.0, 90.0]})
    >>> outlier_targets(train=df, n_targets=1)[0].tolist()
    [3]
    """
    if n_targets > len(train) - 1:
        raise DataError(
            f"`n_targets` ({n_targets}) must be below the number of training records ({len(train)})."
        )
    distance = nearest_distances(train, train, exclude_self=True)
    order = np.lexsort((np.arange(len(train)), -distance))[:n_targets]
    return order, distance[order]
