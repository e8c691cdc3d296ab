"""The partitioning method of El Emam et al. (2022): the Hamming-threshold attack on attack sets
drawn from the training data and a holdout.
"""

from __future__ import annotations

import math

import numpy as np

from privlib.declaration import Context, MeasureSpec, Reference, release
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
    Integer,
    Number,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["KEY", "partition_risk", "PARTITION_F1"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "partition_f1"


def _partition_attack_size(attack_size, t, n_train, n_holdout) -> tuple[int, int]:
    """Attack-set size and how many of its records come from training, checked for feasibility."""
    if attack_size is None:
        limits = [DEFAULT_ATTACK_SIZE]
        if t > 0:
            limits.append(math.floor(n_train / t))
        if t < 1:
            limits.append(math.floor(n_holdout / (1 - t)))
        attack_size = min(limits)
        # rounding t * m can ask for one record too many from one side
        while attack_size > 1 and (
            round(t * attack_size) > n_train or attack_size - round(t * attack_size) > n_holdout
        ):
            attack_size -= 1
    else:
        attack_size = int(attack_size)
    from_train = round(t * attack_size)
    if from_train > n_train or attack_size - from_train > n_holdout:
        raise DataError(
            f"an attack set of {attack_size} records with a share t = {t:.4g} from training needs "
            f"{from_train} training and {attack_size - from_train} holdout records, but `train` has "
            f"{n_train} and `holdout` {n_holdout}; pass a smaller `attack_size`."
        )
    if attack_size < 1:
        raise DataError("the tables are too small to build an attack set; pass larger tables.")
    return attack_size, from_train


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "t": [Number(low=0, high=1), None],
        "attack_size": [Integer(low=1), None],
        "h": [Integer(low=0)],
        "random_state": [RandomState()],
        "population_size": [Integer(low=1), None],
        "n_repeats": [Integer(low=1)],
        "n_bins": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "client": [CLIENT, None],
    }
)
def partition_risk(
    *,
    train,
    holdout,
    synthetic,
    t=None,
    attack_size=None,
    h=5,
    random_state=None,
    population_size=None,
    n_repeats=1,
    n_bins=20,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
) -> MembershipRisk:
    """Membership attack by the partitioning method (El Emam, Mosquera & Fang 2022).

    The generator was trained on ``train``; ``holdout`` holds real records from the same
    population that it never saw. Each repetition builds an attack set of ``attack_size`` records,
    ``round(t * attack_size)`` drawn from ``train`` and the rest from ``holdout`` (both without
    replacement), and calls a record a member when a synthetic record lies within Hamming
    distance ``h`` of it.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data (n rows), holdout and synthetic data, with the same columns.
    t : float, optional
        Share of the attack set drawn from training. Defaults to n / N when ``population_size``
        is given, which is the choice that reproduces the ground-truth F1; t = 0.5, common in the
        literature, overstates the risk when n is small next to N.
    attack_size : int, optional
        Records per attack set; default 1000 (as in the paper) or as many as the tables allow.
    h : int, default 5
        Hamming threshold: number of variables that may differ (5 in the literature). When it
        calls at least :data:`~privlib.membership.BLIND_SHARE` of the attack set members (blind),
        the attack is also read at the largest smaller h that is not blind and at the h whose called
        share is closest to the member share (see :class:`MembershipRisk`).
    random_state : int, numpy.random.Generator or None
        Seed for drawing the attack sets.
    population_size : int, optional
        N, the size of the population the training data stands for; enables ``.m``.
    n_repeats : int, default 1
        Number of attack sets drawn (the paper uses 50).
    n_bins : int, default 20
        Equal-width bins per numeric variable, with edges taken from training and holdout together
        (the real data at hand standing in for the population).
    confidence : float, default 0.95
        Level of the F1 interval: a bootstrap over the attack set's records, members and
        non-members resampled separately, averaged over the repetitions.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster (:func:`privlib.neighbors.kneighbors`);
        the result is identical.

    Returns
    -------
    MembershipRisk
        ``.f1``, ``.precision``, ``.recall`` (means over repetitions at ``h``; precision 0 when
        nobody is called a member), ``.repeat_low``/``.repeat_high`` the F1 spread, ``.m`` (of
        n/N with ``population_size``, else of t: ``.m_from``), and ``value``, its interval and
        the verdict (M <= 0.2) at ``h_verdict``; when ``h`` is blind also ``h_not_blind`` and
        ``h_rule`` with their F1 and M.

    Raises
    ------
    PrivlibError
        If neither ``t`` nor ``population_size`` is given, if ``population_size`` is not larger
        than ``len(train)``, or if the tables cannot supply the requested attack set.

    Notes
    -----
    A blind h. With many variables, h = 5 puts a synthetic record near almost every real record,
    so the attack calls nearly everyone a member and its F1 sits at F_max whatever the generator
    did (El Emam et al.'s own published F1s lie close to F_max(n/N)). The attack's nearest
    Hamming distance per record answers every h at once, so when the asked h calls at least
    :data:`~privlib.membership.BLIND_SHARE` of the attack set, two more readings cost nothing: the
    largest h up to the asked one that is not blind (the closest to the literature's design), and
    the h whose called share is closest to t (a data-driven choice: an adversary who knows t calls
    about as many records as there are members; it uses no membership label). The verdict takes the
    riskier of the two, and the result says which h each number used.
    """
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    n = len(train)
    if population_size is not None:
        population_size = int(population_size)
        if population_size <= n:
            raise DataError(
                f"`population_size` (N = {population_size}) must be larger than the training data "
                f"(n = {n}); M is undefined when n = N and impossible when n > N."
            )
    if t is None:
        if population_size is None:
            raise ParameterError(
                "pass `t`, the share of the attack set drawn from training, or `population_size` "
                "so that t defaults to n / N (the choice that matches the ground truth)."
            )
        t = n / population_size
    t = float(t)
    attack_size, from_train = _partition_attack_size(attack_size, t, n, len(holdout))
    encoder = TableEncoder(metric="hamming", n_bins=int(n_bins)).fit(
        train, holdout, names=["train", "holdout"]
    )
    rng = np.random.default_rng(random_state)
    draws = [
        np.concatenate(
            [
                rng.choice(n, from_train, replace=False),
                n + rng.choice(len(holdout), attack_size - from_train, replace=False),
            ]
        )
        for _ in range(n_repeats)
    ]
    pools = [(train, np.ones(n, dtype=bool)), (holdout, np.zeros(len(holdout), dtype=bool))]
    return _hamming_attack(
        pools,
        draws,
        synthetic,
        encoder,
        h,
        t=t,
        n=n,
        population_size=population_size,
        measure=KEY,
        rng=rng,
        confidence=check_confidence(confidence),
        client=client,
    )


def _partition_arguments(context: Context) -> dict:
    # With N, the attack set holds the share t = n/N of members that reproduces the ground truth.
    known = context.population_size is not None
    return release(context) | {
        "t": None if known else context.settings["attack_share"],
        "h": context.settings["hamming_threshold"],
        "population_size": context.population_size,
        "random_state": context.settings["seed"],
        "n_repeats": context.settings["repeats"],
    }


PARTITION_F1 = MeasureSpec(
    KEY,
    "Partitioning attack of El Emam et al. (F1)",
    "membership",
    partition_rule(),
    Reference("privlib.membership:partition_risk"),
    _partition_arguments,
    needs=("holdout",),
)
