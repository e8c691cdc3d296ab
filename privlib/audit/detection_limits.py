"""Detection limits: how many leaked records the audit's own tests would have caught.

A family that reads "no evidence of risk" is only as strong as its tests. This module plants
leaked records into the user's own release and re-runs the record-level tests that target them,
judged by the audit's decision rule (:func:`privlib.audit.family_rule.family_verdict`, Holm's step
included), to find the smallest number of planted records caught in at least 90 % of seeded draws.

The leaks
---------
``verbatim``
    copies of distinct training records drawn at random;
``rare copies``
    copies of distinct *rare* training records (the rare records of
    :func:`privlib.rare_copies.rare_copy_test`);
``near copies``
    copies of distinct training records with one value changed: one numeric variable moved by 1 %
    to 3 % of its training range (up, unless that leaves the range; rounded for whole numbers),
    just beyond the copy test's tolerance; with no numeric variable, one categorical value changed
    to another value of the training data;
``rare-key attributions``
    a synthetic record drawn from the release with the keys and every sensitive value of a
    training record unique on the keys (:func:`privlib.rare_attributions.rare_attribution_test`).

Planted records are *added* to the release. Within a draw the planted records of size ``M`` are
the first ``M`` of one seeded sequence, so a larger leak holds every smaller one of its draw and
the detection rate rises with ``M``; the smallest size caught in at least ``rate`` of ``draws``
draws is found by doubling from 1 and then bisecting (integers from 1 up to the release's size, or
to the records a leak can copy).

Which tests, and what they cost
-------------------------------
The copy leaks are judged by the identity family (:func:`privlib.records.copy_test`,
:func:`privlib.rare_copies.rare_copy_test`) and the membership family (the distance attack at
false-positive rates of 0.1 % and 1 %, :func:`privlib.records.nn_mia_low_fpr`, and
:func:`privlib.attacks.near_copy_test`); the attributions by the attribute family
(:func:`privlib.rare_attributions.rare_attribution_test`, one test per sensitive variable). A
family's other exact tests enter Holm's adjustment with the p-values the audit read (``held``):
the limit counts nothing they might add to the evidence, only the share of the error rate they
take. The attack ensemble (:func:`privlib.attacks.attack_ensemble`) is held this way: its
classifier attack would have to be refitted on every planted release, which is no incremental
update. Tests judged by an interval, and measures outside these families, are not re-run either.

Only the planted records need new work: the tests are re-read by updating the release's state,
computed once, with the records planted (:mod:`privlib.audit.planting`), so one draw costs a
comparison of the real records with ``M`` planted records, not an audit.

References
----------
Jagielski M, Ullman J, Oprea A. Auditing differentially private machine learning: how private is
private SGD? NeurIPS 2020 (planting canaries to measure what an audit can detect).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from privlib import formatting
from privlib.attacks import _check_release
from privlib.audit.family_rule import Judged, family_verdict
from privlib.audit.planting import LEAKS, prepared_leaks, seed_of
from privlib.errors import PrivlibError
from privlib.rare_copies import DEFAULT_RARE_SHARE
from privlib.records import DEFAULT_NUMERIC_TOLERANCE
from privlib.results import NO_EVIDENCE, RISK
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import (
    CONFIDENCE,
    Instance,
    Integer,
    Names,
    Number,
    RandomState,
    Subset,
    Table,
    validate_params,
)

__all__ = [
    "DEFAULT_DRAWS",
    "DEFAULT_RATE",
    "LEAKS",
    "JUDGING_FAMILIES",
    "TESTS_RERUN",
    "DetectionLimit",
    "detection_limits",
    "detection_rates",
    "family_caught",
    "smallest_caught",
]

logger = logging.getLogger(__name__)

#: Share of the draws that must be caught at the limit.
DEFAULT_RATE = 0.9
#: Seeded draws per size tried.
DEFAULT_DRAWS = 50
#: The families whose tests each leak is judged by.
FAMILIES = {
    "verbatim": ("identity", "membership"),
    "rare copies": ("identity", "membership"),
    "near copies": ("identity", "membership"),
    "rare-key attributions": ("attribute",),
}
#: The families whose exact tests the leaks are judged by.
JUDGING_FAMILIES = ("identity", "membership", "attribute")
#: What each leak plants, for the sentences.
_WHAT = {
    "verbatim": "copied training records",
    "rare copies": "copied rare training records",
    "near copies": "near copies of training records (one value changed)",
    "rare-key attributions": "records giving away the sensitive value of people unique on the keys",
}


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DetectionLimit:
    """The smallest leak of one kind that one family's tests catch (:func:`detection_limits`).

    ``limit`` is the fewest planted records caught in at least ``rate`` of ``draws`` seeded draws
    (``None`` when no size up to ``largest`` is), ``rate_at_limit`` the share caught there;
    ``below`` is the largest size tried under the limit (``None`` when the limit is 1) and
    ``rate_below`` its share caught. ``largest`` is the most records the leak could plant (the
    release's size, or fewer records of the kind), ``release_size`` the release's records.
    ``tests`` names the tests re-run on every draw, ``held`` those that entered Holm's adjustment
    at the audit's p-values. Counts and shares only: no record's value.
    """

    leak: str
    family: str
    limit: int | None
    release_size: int
    largest: int
    draws: int
    rate: float
    rate_at_limit: float | None
    below: int | None
    rate_below: float | None
    random_state: int
    tests: tuple = ()
    held: tuple = ()

    @property
    def share(self) -> float | None:
        """The limit as a share of the release's records."""
        return None if self.limit is None else self.limit / self.release_size

    def reading(self) -> str:
        """One sentence: the limit and what lies beyond it."""
        what = _WHAT[self.leak]
        tried = f"{self.draws} seeded draws per size"
        if self.limit is None:
            whole = (
                "the whole release"
                if self.largest == self.release_size
                else f"all {formatting.count(self.largest)}"
            )
            return (
                f"The {self.family} tests would not have caught {what} reliably at any size up to "
                f"{whole} ({formatting.count(self.largest)} records added): with {formatting.count(self.largest)} the leak is caught in "
                f"{self.rate_at_limit:.0%} of {tried}, below the {self.rate:.0%} asked; a leak of "
                "this kind is beyond what these files can show."
            )
        assert self.share is not None and self.rate_at_limit is not None
        below = (
            f"; {formatting.count(self.below)} are caught in {self.rate_below:.0%}, so smaller leaks of this kind are "
            "beyond what these files can show reliably"
            if self.below is not None
            else ""
        )
        return (
            f"The {self.family} tests would have caught {formatting.count(self.limit)} {what} added to the release "
            f"({formatting.share(self.share)} of its {formatting.count(self.release_size)} records) in {self.rate_at_limit:.0%} of "
            f"{tried} (at least {self.rate:.0%} asked){below}."
        )


# --------------------------------------------------------------------------------------------
# The search of a bisection
# --------------------------------------------------------------------------------------------
def smallest_caught(detect: Callable[[int], float], largest: int, rate: float) -> tuple:
    """The smallest size ``m`` in ``1..largest`` with ``detect(m) >= rate``, for a detection rate
    that rises with the size: doubling from 1, then bisecting between the last size missed and the
    first caught. Returns ``(limit, rate at limit, largest size tried below, its rate)``; the limit
    is ``None`` (and the rate that of ``largest``) when even ``largest`` is not caught.

    Examples
    --------
    >>> smallest_caught(lambda m: float(m >= 37), 2000, 0.9)
    (37, 1.0, 36, 0.0)
    >>> smallest_caught(lambda m: 0.5, 10, 0.9)
    (None, 0.5, None, None)
    """
    if largest < 1:
        raise PrivlibError("a detection limit needs at least one record to plant.")
    rates: dict[int, float] = {}

    def caught(size: int) -> bool:
        if size not in rates:
            rates[size] = detect(size)
        return rates[size] >= rate

    low, high = 0, 1  # low: the largest size missed (0: none tried), high: a size to try
    while not caught(high):
        if high == largest:
            return None, rates[high], None, None
        low, high = high, min(2 * high, largest)
    while high - low > 1:
        middle = (low + high) // 2
        if caught(middle):
            high = middle
        else:
            low = middle
    return high, rates[high], (low or None), (rates[low] if low else None)


# --------------------------------------------------------------------------------------------
# The audit's decision
# --------------------------------------------------------------------------------------------
def family_caught(p_values: Mapping[str, float], *, family: str, confidence: float) -> bool:
    """Whether the audit's family rule reads ``risk`` from these exact tests' p-values (each judged
    ``risk`` on its own when its p-value is at most ``1 - confidence``, then Holm's adjustment of
    :func:`privlib.audit.family_rule.family_verdict`).

    Examples
    --------
    >>> family_caught({"copy_test": 0.03, "rare_copy_test": 0.5}, family="identity", confidence=0.95)
    False
    >>> family_caught({"copy_test": 0.03}, family="identity", confidence=0.95)
    True
    """
    readings = tuple((key, float(p)) for key, p in p_values.items() if p is not None and not math.isnan(p))
    return _rule_reads_risk(readings, family, confidence)


@lru_cache(maxsize=65_536)
def _rule_reads_risk(readings: tuple, family: str, confidence: float) -> bool:
    """:func:`family_caught` on ``(key, p-value)`` pairs: the draws of a bisection read the same
    few p-values over and over (a copy count gives one p-value), so each set is judged once."""
    level = 1 - confidence
    judged = [
        Judged(key, key, RISK if p <= level else NO_EVIDENCE, exact=True, p_value=p, confidence=confidence)
        for key, p in readings
    ]
    return family_verdict(judged, title=family, confidence=confidence).verdict == RISK


# --------------------------------------------------------------------------------------------
# The limits
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "draws": [Integer(low=1, high=10_000)],
        "rate": [Number(low=0, high=1, closed="right")],
        "numeric_tolerance": [Number(low=0, high=1)],
        "rare_share": [Number(low=0, high=1, closed="right")],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
        "max_queries": [Integer(low=2), None],
        "keys": [Names(), None],
        "sensitive": [Names(), None],
        "held": [Instance(Mapping, description="a mapping of family to {test: p-value}"), None],
        "leaks": [Subset(*LEAKS)],
        "families": [Subset(*JUDGING_FAMILIES)],
    }
)
def detection_limits(
    *,
    train,
    holdout,
    synthetic,
    keys=None,
    sensitive=None,
    held=None,
    leaks=LEAKS,
    families=JUDGING_FAMILIES,
    draws=DEFAULT_DRAWS,
    rate=DEFAULT_RATE,
    numeric_tolerance=DEFAULT_NUMERIC_TOLERANCE,
    rare_share=DEFAULT_RARE_SHARE,
    confidence=DEFAULT_CONFIDENCE,
    random_state=None,
    max_queries=None,
) -> tuple[DetectionLimit, ...]:
    """The smallest leak of each kind that each family's tests catch in ``rate`` of ``draws`` draws.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    keys, sensitive : list of str, optional
        The key and sensitive variables; without both, the rare-key attributions are left out.
    held : mapping of str to mapping of str to float, optional
        Per family (``"identity"``, ``"membership"``, ``"attribute"``), the audit's p-values of
        its other exact tests (e.g. ``{"membership": {"attack_ensemble": 0.4}}``), which enter
        Holm's adjustment unchanged on every draw.
    leaks : sequence of str, default :data:`LEAKS`
    families : sequence of str, default :data:`JUDGING_FAMILIES`
        The families whose limits are sought; a leak no family of them judges is not planted.
    draws : int, default 50
        Seeded draws per size tried.
    rate : float, default 0.9
        Share of the draws that must be caught.
    numeric_tolerance, rare_share, confidence, max_queries
        As the audit's copy tests, near-copy test and distance attack read them.
    random_state : int, numpy.random.Generator or None
        Seed of the records read (as the audit's, for the same records) and of every draw: the
        order of the training records of draw ``d`` of leak ``l`` is seeded by
        ``(random_state, l, d)``, and the changes and hosts of its ``i``-th piece of records
        (:data:`FIRST_PIECE`) by ``(random_state, l, d, i)``. ``None``: a fresh seed, kept in the
        results.

    Returns
    -------
    tuple of DetectionLimit
        One per leak and family that judges it, in the order of :data:`LEAKS`.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(200)], "g": ["a", "b"] * 100})
    >>> holdout = pd.DataFrame({"x": [i + 200.5 for i in range(200)], "g": ["a", "b"] * 100})
    >>> synthetic = pd.DataFrame({"x": [i + 0.25 for i in range(0, 400, 2)], "g": ["a"] * 200})
    >>> (limit,) = detection_limits(train=train, holdout=holdout, synthetic=synthetic,
    ...                             leaks=["verbatim"], held={"membership": {}}, draws=5, random_state=0)[:1]
    >>> limit.family, limit.limit is not None and limit.limit < 20
    ('identity', True)
    """
    confidence = check_confidence(confidence)
    holdout, synthetic = _check_release(train, holdout, synthetic)
    train, holdout, synthetic = (t.reset_index(drop=True) for t in (train, holdout, synthetic))
    seed = seed_of(random_state)
    held = {family: dict(tests) for family, tests in (held or {}).items()}
    out: list[DetectionLimit] = []
    for leak, prepared, largest in prepared_leaks(
        train,
        holdout,
        synthetic,
        keys=keys,
        sensitive=sensitive,
        leaks=[leak for leak in leaks if set(FAMILIES[leak]) & set(families)],
        draws=draws,
        numeric_tolerance=numeric_tolerance,
        rare_share=rare_share,
        confidence=confidence,
        seed=seed,
        max_queries=max_queries,
    ):
        out += _leak_limits(
            leak,
            prepared,
            draws=draws,
            largest=largest,
            rate=rate,
            held=held,
            confidence=confidence,
            release_size=len(synthetic),
            seed=seed,
            families=families,
        )
    return tuple(out)


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "sizes": [Instance(Mapping, description="a mapping of leak to its sizes")],
        "keys": [Names(), None],
        "sensitive": [Names(), None],
        "held": [Instance(Mapping, description="a mapping of family to {test: p-value}"), None],
        "draws": [Integer(low=1, high=10_000)],
        "numeric_tolerance": [Number(low=0, high=1)],
        "rare_share": [Number(low=0, high=1, closed="right")],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
        "max_queries": [Integer(low=2), None],
    }
)
def detection_rates(
    *,
    train,
    holdout,
    synthetic,
    sizes,
    keys=None,
    sensitive=None,
    held=None,
    draws=DEFAULT_DRAWS,
    numeric_tolerance=DEFAULT_NUMERIC_TOLERANCE,
    rare_share=DEFAULT_RARE_SHARE,
    confidence=DEFAULT_CONFIDENCE,
    random_state=None,
    max_queries=None,
) -> dict:
    """The share of ``draws`` seeded draws each family catches, per leak and size asked: ``sizes``
    maps a leak to its sizes, the result ``(leak, size, family)`` to the share. With a seed other
    than that of :func:`detection_limits`, these are fresh draws, to check a limit's power.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(200)], "g": ["a", "b"] * 100})
    >>> holdout = pd.DataFrame({"x": [i + 200.5 for i in range(200)], "g": ["a", "b"] * 100})
    >>> synthetic = pd.DataFrame({"x": [i + 0.25 for i in range(0, 400, 2)], "g": ["a"] * 200})
    >>> rates = detection_rates(train=train, holdout=holdout, synthetic=synthetic,
    ...                         sizes={"verbatim": [1, 40]}, draws=5, random_state=1)
    >>> rates["verbatim", 40, "identity"]
    1.0
    """
    holdout, synthetic = _check_release(train, holdout, synthetic)
    train, holdout, synthetic = (t.reset_index(drop=True) for t in (train, holdout, synthetic))
    held = {family: dict(tests) for family, tests in (held or {}).items()}
    out = {}
    for leak, prepared, largest in prepared_leaks(
        train,
        holdout,
        synthetic,
        keys=keys,
        sensitive=sensitive,
        leaks=list(sizes),
        draws=draws,
        numeric_tolerance=numeric_tolerance,
        rare_share=rare_share,
        confidence=confidence,
        seed=seed_of(random_state),
        max_queries=max_queries,
    ):
        for size in sizes[leak]:
            found = [prepared.p_values(d, min(int(size), largest)) for d in range(draws)]
            for family in FAMILIES[leak]:
                out[leak, int(size), family] = _caught_share(found, family, held, confidence)
    return out


def _caught_share(found: list[dict], family: str, held: Mapping, confidence: float) -> float:
    """The share of draws (their tests' p-values) in which ``family`` reads risk."""
    fixed = held.get(family, {})
    return float(
        np.mean(
            [
                family_caught(_of_family(p, family) | fixed, family=family, confidence=confidence)
                for p in found
            ]
        )
    )


def _leak_limits(
    leak: str, prepared, *, draws, largest, rate, held, confidence, release_size, seed, families
) -> list:
    """The limits of one leak, one per family that judges it. Every draw's p-values at a size are
    read once and shared by the families; while searching, a size's draws are read only until its
    decision is certain (enough caught, or too many missed), and the rates stated at the limit and
    below it are read on every draw."""
    found: dict[int, list[dict]] = {}
    needed = math.ceil(rate * draws - 1e-9)  # draws caught that meet the rate

    def caught(size: int, draw: int, family: str) -> bool:
        read = found.setdefault(size, [])
        while len(read) <= draw:
            read.append(prepared.p_values(len(read), size))
        fixed = held.get(family, {})
        return family_caught(_of_family(read[draw], family) | fixed, family=family, confidence=confidence)

    def decided(size: int, family: str) -> float:
        """A share on the same side of ``rate`` as the share of every draw."""
        hits = 0
        for draw in range(draws):
            hits += caught(size, draw, family)
            if hits >= needed or draw + 1 - hits > draws - needed:
                break
        return hits / draws if hits >= needed else (draws - (draw + 1 - hits)) / draws

    def share(size: int, family: str) -> float:
        return float(np.mean([caught(size, draw, family) for draw in range(draws)]))

    out = []
    for family in (f for f in FAMILIES[leak] if f in families):
        limit, _, below, _ = smallest_caught(partial(decided, family=family), largest, rate)
        at_limit = share(largest if limit is None else limit, family)
        at_below = None if below is None else share(below, family)
        out.append(
            DetectionLimit(
                leak=leak,
                family=family,
                limit=limit,
                release_size=release_size,
                largest=largest,
                draws=draws,
                rate=float(rate),
                rate_at_limit=at_limit,
                below=below,
                rate_below=at_below,
                random_state=seed,
                tests=tuple(_of_family(found[largest if limit is None else limit][0], family)),
                held=tuple(held.get(family, {})),
            )
        )
        logger.info("detection limit, %s by the %s tests: %s", leak, family, limit)
    return out


def _of_family(p_values: dict, family: str) -> dict:
    return {key: p for key, p in p_values.items() if _FAMILY_OF[key.split("[", 1)[0]] == family}


#: The family of each test re-run.
_FAMILY_OF = {
    "copy_test": "identity",
    "rare_copy_test": "identity",
    "nn_mia_tpr_at_0.1pct": "membership",
    "nn_mia_tpr_at_1pct": "membership",
    "near_copy_test": "membership",
    "rare_attribution_test": "attribute",
}

#: The tests the planting re-runs; a family's other exact tests are held at the audit's p-values.
TESTS_RERUN = frozenset(_FAMILY_OF)
