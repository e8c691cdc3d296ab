"""Linkability, the second criterion of Opinion 05/2014, as an attack (Giomi et al. 2023;
:func:`linkability`): does the synthetic data join two halves of a person's columns? With its
declaration; the shared machinery of the three criteria is in :mod:`privlib.criteria`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privlib.criteria import (
    _check_aux,
    _check_count,
    _check_tables,
    _finish,
    _nearest_synthetic,
    _TargetedRisk,
    _targets,
)
from privlib.declaration import MeasureSpec, Reference, every_record, with_settings
from privlib.errors import ParameterError
from privlib.rules import criterion_rule
from privlib.uncertainty import check_confidence
from privlib.validation import CONFIDENCE, Instance, Integer, RandomState, Table, validate_params

__all__ = ["LinkabilityRisk", "linkability"]

KEY = "linkability_risk"


@dataclass(frozen=True, kw_only=True)
class LinkabilityRisk(_TargetedRisk):
    """:func:`linkability`'s result.

    Attributes
    ----------
    aux_columns : tuple of two tuples of str
        The columns of the attacker's two datasets.
    n_neighbors : int
        Nearest synthetic records compared per half.
    targets, control_targets : numpy.ndarray of int
        Row positions of the attacked training and control records.
    """

    aux_columns: tuple
    n_neighbors: int

    @property
    def _attack_text(self):
        a, b = (", ".join(map(str, cols)) for cols in self.aux_columns)
        return (
            f"attempts to link a record's ({a}) to its ({b}) through the "
            f"{self.n_neighbors} nearest synthetic record(s)"
        )


@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table()],
        "aux_columns": [Instance(tuple, list, description="a pair of column lists")],
        "n_neighbors": [Integer(low=1)],
        "n_attacks": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    },
    renamed={"control": "holdout"},
)
def linkability(
    *,
    synthetic,
    train,
    holdout,
    aux_columns,
    n_neighbors=1,
    n_attacks=500,
    confidence=0.95,
    random_state=None,
) -> LinkabilityRisk:
    """Linkability risk: does the synthetic data join two datasets about the same people?

    The attacker holds two datasets about some people, one with the columns ``aux_columns[0]``,
    the other with ``aux_columns[1]``, and wants to know which record of one belongs with which of
    the other (Opinion 05/2014). Giomi et al. (2023) split each target record in two
    that way and look up each half's nearest synthetic records (Gower distance on that half's
    columns): the two halves are linked when they share one of their ``n_neighbors`` nearest
    synthetic records. The control attack does the same for control records; the baseline picks
    ``n_neighbors`` synthetic records at random for each half.

    Parameters
    ----------
    synthetic, train, holdout : pandas.DataFrame
        The synthetic data, the generator's training records and real records it never saw.
    aux_columns : tuple of two sequences of str
        The columns of the attacker's two datasets (each non-empty).
    n_neighbors : int, default 1
        Nearest synthetic records compared per half.
    n_attacks : int, default 500
        Target records; at most the size of ``train`` and of ``holdout`` (the smaller is used).
    confidence : float, default 0.95
    random_state : int, numpy.random.Generator or None
        Seed of the targets, the tie-breaking and the baseline.

    Returns
    -------
    LinkabilityRisk

    Notes
    -----
    Distances are the kit's Gower distance, with numeric ranges taken from the synthetic and
    the attacked records together; among equally near synthetic records each half takes one at random, independently
    of the other half (the engine alone would take the first of them in both halves, which links
    halves whose tied sets merely overlap).

    Raises
    ------
    PrivlibError
        If a table is empty or the columns differ, ``aux_columns`` is not two non-empty lists of
        columns, or ``n_neighbors`` or ``n_attacks`` is not a whole number in range.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"age": [23, 35, 47, 59], "sex": list("FMFM"),
    ...                       "zip": ["a", "b", "c", "d"]})
    >>> holdout = pd.DataFrame({"age": [30, 30, 50, 50], "sex": list("FFMM"),
    ...                         "zip": ["a", "b", "a", "b"]})
    >>> result = linkability(synthetic=train, train=train, holdout=holdout,
    ...                      aux_columns=(["age", "sex"], ["zip"]), random_state=0)
    >>> result.attack_successes, result.n_attacks
    (4, 4)
    """
    _check_tables(synthetic, train, holdout)
    if (
        not isinstance(aux_columns, (tuple, list))
        or len(aux_columns) != 2
        or any(isinstance(half, str) or not isinstance(half, (tuple, list, pd.Index)) for half in aux_columns)
    ):
        raise ParameterError(
            "`aux_columns` must be two lists of columns, the attacker's two datasets, e.g. "
            "(['age', 'sex'], ['zip'])."
        )
    halves = [_check_aux(cols, f"aux_columns[{i}]", train) for i, cols in enumerate(aux_columns)]
    n_neighbors = _check_count(n_neighbors, "n_neighbors", high=len(synthetic))
    n_requested = _check_count(n_attacks, "n_attacks")
    confidence = check_confidence(confidence)
    rng = np.random.default_rng(random_state)

    n, targets, control_targets = _targets(n_requested, train, holdout, rng)
    queries = [train.iloc[targets], holdout.iloc[control_targets]]
    (attack_a, control_a), (attack_b, control_b) = (
        _nearest_synthetic(queries, synthetic, cols, n_neighbors, rng) for cols in halves
    )
    links = {
        "attack": (attack_a, attack_b),
        "control": (control_a, control_b),
        "baseline": [_random_neighbours(len(synthetic), n, n_neighbors, rng) for _ in halves],
    }
    linked = {name: (a[:, :, None] == b[:, None, :]).any(axis=(1, 2)) for name, (a, b) in links.items()}
    return _finish(
        LinkabilityRisk,
        KEY,
        linked,
        n,
        confidence,
        aux_columns=tuple(tuple(cols) for cols in halves),
        n_neighbors=n_neighbors,
        targets=targets,
        control_targets=control_targets,
    )


def _random_neighbours(n_synthetic, n, k, rng) -> np.ndarray:
    """``k`` distinct random synthetic row positions for each of ``n`` attacks."""
    if k == 1:
        return rng.integers(0, n_synthetic, size=(n, 1))
    # the k smallest of k + a few random keys per row would still need n x n_synthetic draws:
    # draw with replacement and redraw the rows that repeat a record (rare unless k is large)
    picks = rng.integers(0, n_synthetic, size=(n, k))
    while True:
        ordered = np.sort(picks, axis=1)
        repeat = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not repeat.any():
            return picks
        picks[repeat] = rng.integers(0, n_synthetic, size=(int(repeat.sum()), k))


LINKABILITY_RISK = MeasureSpec(
    KEY,
    "Linkability",
    "identity",
    criterion_rule(
        "linkability",
        "asks whether the synthetic data joins two halves of a person's columns more often for "
        "training than for control records",
    ),
    Reference("privlib.identity.linkability:linkability"),
    with_settings(
        lambda c: {
            "synthetic": c.synthetic,
            "train": c.train,
            "holdout": c.holdout,
            "aux_columns": (c.keys, [k for k in c.train.columns if k not in c.keys]),
            "n_attacks": every_record(c),
        },
        random_state="seed",
    ),
    needs=("holdout", "keys"),
)
