"""The Hamming-threshold attack of El Emam et al. (2022) against the ground truth: attack sets
drawn from the whole population.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlib.declaration import MeasureSpec
from privlib.errors import DataError, ParameterError
from privlib.matching import (
    check_tables,
)
from privlib.membership.hamming import DEFAULT_ATTACK_SIZE, MembershipRisk, _hamming_attack
from privlib.rules import partition_rule
from privlib.schema import TableEncoder
from privlib.uncertainty import (
    DEFAULT_CONFIDENCE,
    check_confidence,
)
from privlib.validation import (
    CLIENT,
    CONFIDENCE,
    Instance,
    Integer,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KEY", "ground_truth_risk", "GROUND_TRUTH_F1"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "ground_truth_f1"


@validate_params(
    {
        "population": [Table()],
        "synthetic": [Table()],
        "attack_size": [Integer(low=1), None],
        "h": [Integer(low=0)],
        "random_state": [RandomState()],
        "n_bins": [Integer(low=1)],
        "n_repeats": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
        "train_rows": [
            Instance(
                list,
                tuple,
                np.ndarray,
                pd.Series,
                pd.Index,
                description="an array of booleans or row positions",
            )
        ],
    },
    renamed={"members": "train_rows"},
)
def ground_truth_risk(
    *,
    population,
    train_rows,
    synthetic,
    attack_size=None,
    h=5,
    random_state=None,
    n_bins=20,
    n_repeats=1,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
) -> MembershipRisk:
    """Membership attack with the whole population at hand (El Emam, Mosquera & Fang 2022).

    Each repetition draws an attack set of ``attack_size`` records from the population, without
    replacement and independently of who is a member; a record is called a member when its
    Hamming distance to the nearest synthetic record is at most ``h``.

    Parameters
    ----------
    population : pandas.DataFrame
        The population P (N rows) the training data was drawn from.
    train_rows : array-like of bool or of int
        Who is in the training data, which is how the truth is known: a boolean mask with one
        entry per population row, or the row positions (0-based, as in ``population.iloc``) of
        the training records.
    synthetic : pandas.DataFrame
        The released synthetic data, with the population's columns.
    attack_size : int, optional
        Records per attack set; default 1000 (as in the paper), or N when the population is smaller.
    h : int, default 5
        Hamming threshold: number of variables that may differ (5 in the literature). When it
        calls at least :data:`~privlib.membership.BLIND_SHARE` of the attack set members (blind),
        the attack is also read at the largest smaller h that is not blind and at the h whose called
        share is closest to the member share (see :class:`MembershipRisk`).
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    n_bins : int, default 20
        Equal-width bins per numeric (or date) variable, with edges taken from the population.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).
    confidence : float, default 0.95
        Level of the F1 interval: a bootstrap over the attack set's records, members and
        non-members resampled separately, averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions at ``h``; precision is 0 for
        an attack set where nobody is called a member), ``.m`` the relative risk with n = number
        of members, ``.repeat_low``/``.repeat_high`` the spread of F1 over repetitions; ``value``,
        ``ci_low``/``ci_high`` and the verdict at ``h_verdict`` (see :class:`MembershipRisk`).

    Examples
    --------
    >>> import pandas as pd
    >>> population = pd.DataFrame({"a": list("xxyyzzww"), "b": list("pqpqpqpq")})
    >>> r = ground_truth_risk(population=population, train_rows=[0, 2, 4], synthetic=population.iloc[[0, 2, 4]],
    ...                       h=0, random_state=0)
    >>> from privlib.thresholds import judge
    >>> r.f1, judge(r).verdict
    (1.0, 'risk')
    """
    check_tables(population=population, synthetic=synthetic)
    size = len(population)
    is_member = _member_mask(train_rows, size)
    n = int(is_member.sum())
    if n == size:
        raise DataError(
            "`train_rows` covers every row of `population`, so membership reveals nothing and the "
            "relative risk is undefined; pass the larger population the training data came from."
        )
    if attack_size is None:
        attack_size = min(DEFAULT_ATTACK_SIZE, size)
    attack_size = int(attack_size)
    if attack_size > size:
        raise DataError(f"`attack_size` = {attack_size} exceeds the population's {size} rows; ask for fewer.")
    encoder = TableEncoder(metric="hamming", n_bins=int(n_bins)).fit(population, names=["population"])
    rng = np.random.default_rng(random_state)
    draws = [rng.choice(size, attack_size, replace=False) for _ in range(n_repeats)]
    return _hamming_attack(
        [(population, is_member)],
        draws,
        synthetic,
        encoder,
        h,
        t=n / size,
        n=n,
        population_size=size,
        measure=KEY,
        rng=rng,
        confidence=check_confidence(confidence),
        client=client,
    )


def _member_mask(members, size: int) -> np.ndarray:
    try:
        values = np.asarray(members)
    except Exception:  # noqa: BLE001 - anything that is not array-like
        values = np.array(None)
    if values.ndim != 1 or values.size == 0:
        raise ParameterError(
            "`train_rows` must be a non-empty boolean mask over the population's rows or a list of "
            "row positions."
        )
    if values.dtype == bool:
        if values.size != size:
            raise ParameterError(
                f"`train_rows` is a boolean mask of length {values.size}, but `population` has "
                f"{size} rows; give one entry per population row."
            )
        if not values.any():
            raise ParameterError("`train_rows` marks no population row as a member; mark the training rows.")
        return values
    if values.dtype.kind not in "iu":
        raise ParameterError(
            f"`train_rows` must be booleans or integer row positions, got values of type {values.dtype}."
        )
    if values.min() < 0 or values.max() >= size:
        raise ParameterError(
            f"`train_rows` holds positions outside 0..{size - 1}; give 0-based row positions into "
            "`population` (as for .iloc), not index labels."
        )
    if np.unique(values).size != values.size:
        raise ParameterError("`train_rows` lists some row positions more than once; list each member once.")
    mask = np.zeros(size, dtype=bool)
    mask[values] = True
    return mask


#: Judged as the partitioning attack is; the audit does not run it (it needs the population).
GROUND_TRUTH_F1 = MeasureSpec(
    KEY,
    "Partitioning attack against the ground truth (F1)",
    "membership",
    partition_rule(),
)
