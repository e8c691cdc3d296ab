"""Inference, the third criterion of Opinion 05/2014, as an attack (Giomi et al. 2023;
:func:`inference`): do the nearest synthetic records reveal a secret column? With its
declaration; the shared machinery of the three criteria is in :mod:`privlib.criteria`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import cast

import numpy as np
import pandas as pd

from privlib.criteria import (
    TIE_DRAWS,
    _check_aux,
    _check_count,
    _check_tables,
    _finish,
    _nearest_synthetic,
    _pct,
    _secret_strata,
    _standardised_rates,
    _TargetedRisk,
)
from privlib.declaration import MeasureSpec, Reference, every_record_of_both, with_settings
from privlib.errors import DataError, ParameterError
from privlib.rules import criterion_rule
from privlib.schema import NUMERIC, infer_kinds, numeric_values
from privlib.uncertainty import check_confidence
from privlib.validation import CONFIDENCE, Integer, Names, Number, RandomState, Table, validate_params

__all__ = ["InferenceRisk", "inference"]

KEY = "inference_risk"


@dataclass(frozen=True, kw_only=True)
class InferenceRisk(_TargetedRisk):
    """:func:`inference`'s result.

    ``value`` is the risk of the two success rates *standardised* to one mix of the secret's
    values (see :func:`inference`), not of the raw ``attack_rate`` and ``control_rate``.

    Attributes
    ----------
    secret : str
        The column the attacker guesses.
    aux_columns : tuple of str
        The columns the attacker knows.
    tolerance : float or None
        For a numeric secret, the relative error within which a guess counts as right; ``None``
        for a categorical secret (exact match).
    standardised_attack_rate, standardised_control_rate : float
        The success rates on training and control targets, each the mean over the strata of the
        secret's values weighted by the stratum's share of all targets.
    n_strata : int
        Strata of the secret's values compared (values held by too few targets of one group are
        pooled into one stratum).
    targets, control_targets : numpy.ndarray of int
        Row positions of the attacked training and control records.
    """

    secret: str
    aux_columns: tuple
    tolerance: float | None
    standardised_attack_rate: float = math.nan
    standardised_control_rate: float = math.nan
    n_strata: int = 1

    @property
    def _attack_text(self):
        how = "exactly" if self.tolerance is None else f"within {self.tolerance:.0%}"
        return (
            f"guesses of {self.secret} ({how}) from the nearest synthetic record on "
            f"{len(self.aux_columns)} known column(s)"
        )

    def reading(self) -> str:
        text = super().reading()
        if not self.beats_baseline() or math.isnan(self.value):
            return text
        return (
            f"{text} At one mix of {self.secret}'s values ({self.n_strata} group(s), each weighted "
            f"by its share of all targets), the rates are {_pct(self.standardised_attack_rate)} on "
            f"training and {_pct(self.standardised_control_rate)} on control targets: a chance "
            "difference in the groups' mix of values says nothing about any person."
        )


def _guess_is_right(guesses: pd.Series, secrets: pd.Series, numeric: bool, tolerance: float) -> np.ndarray:
    """Whether each guess of the secret is right: equal for a category, within ``tolerance``
    times the true value for a number; a missing secret is guessed right only by a missing guess."""
    g_missing, s_missing = guesses.isna().to_numpy(), secrets.isna().to_numpy()
    if numeric:
        g, s = numeric_values(guesses), numeric_values(secrets)
        with np.errstate(invalid="ignore"):
            right = np.abs(g - s) <= tolerance * np.abs(s)
    else:
        right = guesses.to_numpy(dtype=object) == secrets.to_numpy(dtype=object)
    return np.where(g_missing | s_missing, g_missing & s_missing, right).astype(bool)


@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table()],
        "target": [Names()],
        "keys": [Names(), None],
        "n_attacks": [Integer(low=1)],
        "tolerance": [Number(low=0)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    },
    renamed={"secret": "target", "control": "holdout", "aux_columns": "keys"},
)
def inference(
    *,
    synthetic,
    train,
    holdout,
    target,
    keys=None,
    n_attacks=500,
    tolerance=0.05,
    confidence=0.95,
    random_state=None,
) -> InferenceRisk:
    """Inference risk: does the synthetic data tell an attacker a person's secret?

    The attacker knows some columns of a target person (``keys``) and guesses another one
    (``target``) as the value of the nearest synthetic record on the known columns (Gower
    distance; Giomi et al. 2023). The control attack guesses the secrets of control
    records the same way; the baseline guesses the secret of a random synthetic record.

    The risk compares the two groups at one mix of the secret's values: each rate is the mean,
    over the strata of the secret (its values; for a number, deciles of the targets' values),
    of the group's success in the stratum, weighted by the stratum's share of all targets. How
    often a guess is right depends mostly on the true value (a common value is guessed right far
    more often than a rare one), so the raw rates of two samples differ by chance with their mix
    of values, which tells nothing about any person; within a stratum, members and non-members
    with the same secret are compared, which is the disclosure. This post-stratification narrows
    the interval of the risk by about a half on ACS and a tenth on Adult (``benchmarks/README.md``). The
    known columns are not stratified on: on categorical keys the guess depends on the keys and the
    secret only, so that would compare people guessed alike by construction.

    Parameters
    ----------
    synthetic, train, holdout : pandas.DataFrame
        The synthetic data, the generator's training records and real records it never saw.
    target : str
        The column to guess.
    keys : sequence of str, optional
        The columns the attacker knows; by default every other column.
    n_attacks : int, default 500
        Target records of each group: this many training records and this many control records,
        or the whole table when it is smaller (the two groups may differ in size; ``n_attacks``
        of the result counts the training targets).
    tolerance : float, default 0.05
        For a numeric target, a guess is right when ``|guess - value| <= tolerance * |value|``
        (relative to the true value; anonymeter divides by the guess instead). A categorical
        secret must be guessed exactly.
    confidence : float, default 0.95
    random_state : int, numpy.random.Generator or None
        Seed of the targets, the tie-breaking and the baseline.

    Returns
    -------
    InferenceRisk

    Raises
    ------
    PrivlibError
        If a table is empty or the columns differ, ``target`` is not one column or is among
        ``keys``, an auxiliary column is unknown, or ``n_attacks`` or ``tolerance`` is out
        of range.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"age": [23, 35, 47, 59], "ill": ["no", "yes", "no", "yes"]})
    >>> holdout = pd.DataFrame({"age": [24, 36, 48, 60], "ill": ["yes", "no", "yes", "no"]})
    >>> result = inference(synthetic=train, train=train, holdout=holdout, target="ill",
    ...                    random_state=0)
    >>> result.attack_rate, result.control_rate, result.value
    (1.0, 0.0, 1.0)
    """
    _check_tables(synthetic, train, holdout)
    if not isinstance(target, str) or target not in train.columns:
        raise ParameterError(
            f"`target` must be the name of one column of `train`, got {target!r}; the columns are "
            f"{list(train.columns)}."
        )
    if keys is None:
        keys = [c for c in train.columns if c != target]
        if not keys:
            raise DataError("`train` has no column besides `target`; the attacker needs known columns.")
    keys = _check_aux(keys, "keys", train)
    if target in keys:
        raise ParameterError(
            f"`target` {target!r} is also in `keys`; the attacker cannot already know the "
            "column it guesses: remove it from `keys`."
        )
    n_requested = _check_count(n_attacks, "n_attacks")
    # A Real compares and multiplies as a float does; typeshed's numbers.Real declares only < and <=.
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, Real)
        or not 0 <= cast(float, tolerance) < math.inf
    ):
        raise ParameterError(f"`tolerance` must be a number >= 0, got {tolerance!r}.")
    confidence = check_confidence(confidence)
    rng = np.random.default_rng(random_state)

    numeric = infer_kinds(train[[target]])[target] == NUMERIC
    # each group its own number of targets: a control larger than the training data narrows
    # the control rate's interval, and the strata compare groups of any sizes
    n, n_control = min(n_requested, len(train)), min(n_requested, len(holdout))
    targets = rng.choice(len(train), size=n, replace=False)
    control_targets = rng.choice(len(holdout), size=n_control, replace=False)
    secrets_of = synthetic[target].reset_index(drop=True)
    queries = [train.iloc[targets], holdout.iloc[control_targets]]
    right = {"attack": np.zeros(n), "control": np.zeros(n_control)}
    for _ in range(TIE_DRAWS):
        nearest = _nearest_synthetic(queries, synthetic, keys, 1, rng)
        for name, found, query in zip(("attack", "control"), nearest, queries):
            right[name] += _guess_is_right(
                secrets_of.iloc[found[:, 0]], query[target], numeric, cast(float, tolerance)
            )
    right = {name: hits / TIE_DRAWS for name, hits in right.items()}
    random_rows = rng.choice(len(synthetic), size=n, replace=n > len(synthetic))
    right["baseline"] = _guess_is_right(
        secrets_of.iloc[random_rows], train[target].iloc[targets], numeric, cast(float, tolerance)
    )
    strata = _secret_strata(pd.concat([query[target] for query in queries], ignore_index=True), numeric)
    attack_rate, control_rate, n_strata = _standardised_rates(
        right["attack"], right["control"], strata, confidence
    )
    return _finish(
        InferenceRisk,
        KEY,
        right,
        n,
        confidence,
        secret=target,
        aux_columns=tuple(keys),
        tolerance=float(tolerance) if numeric else None,
        targets=targets,
        control_targets=control_targets,
        standardised=(attack_rate, control_rate),
        standardised_attack_rate=attack_rate[0],
        standardised_control_rate=control_rate[0],
        n_strata=n_strata,
    )


INFERENCE_RISK = MeasureSpec(
    KEY,
    "Inference of a sensitive value",
    "attribute",
    criterion_rule(
        "inference",
        "asks whether nearest synthetic records reveal a secret column more often for training "
        "than for control records",
    ),
    Reference("privlib.attribute.inference:inference"),
    with_settings(
        lambda c: {
            "synthetic": c.synthetic,
            "train": c.train,
            "holdout": c.holdout,
            "target": c.target,
            "keys": list(c.keys),
            "n_attacks": every_record_of_both(c),
        },
        random_state="seed",
    ),
    needs=("holdout", "keys", "sensitive"),
    per_target=True,
)
