"""Certain attributions through rare keys: CAP read person by person, tested against the holdout.

The correct attribution probability (:func:`privlib.attribute.cap`) and the inference attack
average over every record, so a release that tells anyone who knows 40 people's key variables
their sensitive value moves them by a few thousandths on 2,000 records. :func:`rare_attribution_test`
counts those people instead, with the exact test the copy tests use (:mod:`privlib.records`,
:mod:`privlib.rare_copies`).

A certain attribution
---------------------
An intruder who knows a person's keys looks up the synthetic records with the same keys (every
key equal, numbers included: the intruder knows them exactly). The release *gives* the person's
sensitive value when there is at least one such record and **every** one of them carries that
value (a number: every one lies within ``numeric_tolerance`` of the variable's range of it, the
range over the three tables, as in the copy test). This is a correct attribution probability of
1, the "certain" attribution whose share Taub, Elliot, Pampaka & Smith (2018) read beside the
average CAP, and the equivalence classes of one target value that Taub & Elliot's targeted CAP
(2019) counts; Raab, Nowok & Dibben (2024) call such a record "disclosive in synthetic, correct in
original" (DiSCO). Requiring every record, not some record, is what makes the attribution certain: a
synthetic class that holds the person's value beside others tells the intruder a list of
candidates, not the value, and counting it would reward large classes, which carry most values of
a variable by chance.

Which people
------------
A record is rare when at most ``max_class_size`` real records, training and holdout pooled, share
its keys (default 1: unique among the real records). Uniques are the people an intruder can
single out by their keys (synthpop's replicated uniques rest on the same idea), and the ones a
leak of a few records exposes while averages do not move. The rule reads no membership label: a
training and a holdout record of the same key class are rare together. So when the release does
not depend on who was in the training data, which rare records have a certain attribution is
independent of which are training records, and Fisher's exact test of the two counts is exact.

The test
--------
``a`` of the ``n1`` rare training records and ``b`` of the ``n2`` rare holdout records have a
certain attribution; Fisher's exact test, one-sided, asks whether training records have one more
often. The excess ``a - b n1 / n2`` is the number of people at risk, with Newcombe's hybrid score
interval of the difference of the two shares scaled to the ``n1`` records (Newcombe 1998), as the
copy test reads its copies. The holdout's count is what the release teaches about anyone in the
population (a generator that learns that a rare combination of keys goes with a value gives it to
training and holdout people alike); only the excess is a disclosure about the people in the data. A generator that reproduces the rare
key combinations of its training data more often than those of unseen people gives those training
people a certain attribution more often, even where the value is right only as often as it is
common: a small disclosure, and the test reads it as one (on the capstone's training sample of
Adult, releases of ``GaussianCopula`` show an excess of 3.6 people on average over 300 draws).

References
----------
Taub J, Elliot M, Pampaka M, Smith D. Differential correct attribution probability for synthetic
data: an exploration. Privacy in Statistical Databases (PSD) 2018, LNCS 11126.

Taub J, Elliot M. The synthetic data challenge. Joint UNECE/Eurostat Work Session on Statistical
Data Confidentiality, 2019.

Raab GM, Nowok B, Dibben C. Practical privacy metrics for synthetic data. arXiv:2406.16826, 2024.

Newcombe RG. Interval estimation for the difference between independent proportions: comparison
of eleven methods. Statistics in Medicine 17, 1998.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privlib.attacks import _check_release
from privlib.declaration import MeasureSpec, Reference, release
from privlib.errors import DataError, ParameterError
from privlib.matching import comparable_values, joint_codes
from privlib.records import DEFAULT_NUMERIC_TOLERANCE, _copy_widths, _fisher_excess
from privlib.results import Result
from privlib.rules import Threshold
from privlib.schema import check_columns, infer_kinds, numeric_values
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import CONFIDENCE, Instance, Integer, Names, Number, Table, validate_params

#: A column's values as floats, NaN for missing (one per record).
_VALUES = Instance(np.ndarray, description="a numpy array of numbers (NaN for missing)")
#: Each record's key as a whole-number code (one per record).
_KEYS = Instance(np.ndarray, description="a numpy array of key codes")

__all__ = ["DEFAULT_MAX_CLASS_SIZE", "RareAttributionTest", "certain_attributions", "rare_attribution_test"]

KEY = "rare_attribution_test"

#: Most real records (training and holdout pooled) that may share a rare record's keys.
DEFAULT_MAX_CLASS_SIZE = 1


@dataclass(frozen=True, kw_only=True)
class RareAttributionTest(Result):
    """Rare training records whose sensitive value the release gives with certainty, against rare
    holdout records (:func:`rare_attribution_test`).

    ``numeric_target`` says whether the target is a number (read within ``numeric_tolerance`` of its
    range). ``n_train`` and ``n_holdout`` count the rare records (at most ``max_class_size`` real records
    share their keys), ``train_attributed`` and ``holdout_attributed`` those of them with a certain
    attribution. ``value`` is the excess ``train_attributed - holdout_attributed * n_train /
    n_holdout``, the people at risk, with ``ci_low``/``ci_high`` Newcombe's interval in people
    (shown; the verdict is the exact test's); ``records_at_risk`` the excess rounded and at least 0.
    ``p_value`` is Fisher's exact test, one-sided; ``critical_count`` the fewest attributed training
    records (given the total) that make it significant, and ``baseline`` the excess they would give
    minus one person: the largest excess put down to chance.
    """

    keys: tuple
    target: str
    numeric_target: bool
    max_class_size: int
    numeric_tolerance: float
    n_train: int
    n_holdout: int
    train_attributed: int
    holdout_attributed: int
    records_at_risk: int = 0
    critical_count: int | None = None
    p_value: float = math.nan

    def reading(self) -> str:
        rare = "unique among" if self.max_class_size == 1 else f"shared by at most {self.max_class_size} of"
        numeric = self.numeric_target and self.numeric_tolerance > 0
        tolerance = f" within {self.numeric_tolerance:.0%} of its range" if numeric else ""
        return self.with_judgement(
            f"Of the people whose keys ({', '.join(map(str, self.keys))}) are {rare} the real records, "
            f"{self.train_attributed} of {self.n_train} training records and {self.holdout_attributed} "
            f"of {self.n_holdout} holdout records have their {self.target} given with certainty by the "
            f"release (every synthetic record with their keys carries it{tolerance}): "
            f"{self.value:+.1f} people beyond chance ({self.confidence:.0%} interval {self.ci_low:+.1f} "
            f"to {self.ci_high:+.1f}); chance alone gives {self.critical_count} or more rare training "
            f"records a certain attribution with probability at most {1 - self.confidence:.0%} "
            f"(Fisher's exact test, p = {self.p_value:.2g})."
        )


@validate_params(
    {
        "real_values": [_VALUES],
        "real_keys": [_KEYS],
        "synthetic_values": [_VALUES],
        "synthetic_keys": [_KEYS],
        "width": [Number(low=0)],
    },
    skip_nested=True,
)
def certain_attributions(
    real_values: np.ndarray,
    real_keys: np.ndarray,
    synthetic_values: np.ndarray,
    synthetic_keys: np.ndarray,
    width: float,
) -> np.ndarray:
    """Per real record: at least one synthetic record shares its key code and every such record's
    value lies within ``width`` of the record's (missing, NaN, counts only as missing).

    Examples
    --------
    >>> real = np.array([1.0, 2.0, 5.0, np.nan])
    >>> synthetic = np.array([1.0, 1.0, 2.0, 9.0, np.nan])
    >>> certain_attributions(real, np.array([0, 1, 2, 3]), synthetic, np.array([0, 0, 1, 1, 3]), 0.0).tolist()
    [True, False, False, True]
    """
    by_key = pd.DataFrame({"key": synthetic_keys, "value": synthetic_values}).groupby("key")["value"]
    classes = by_key.agg(["size", "count", "min", "max"]).reindex(real_keys)
    size, present = classes["size"].fillna(0).to_numpy(), classes["count"].fillna(0).to_numpy()
    missing = np.isnan(real_values)
    # widened by a relative 1e-9 so that a value exactly on the boundary is not lost to rounding
    reach = width * (1 + 1e-9)
    with np.errstate(invalid="ignore"):
        within = (classes["min"].to_numpy() >= real_values - reach) & (
            classes["max"].to_numpy() <= real_values + reach
        )
    return (size > 0) & np.where(missing, present == 0, (present == size) & within)


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "keys": [Names()],
        "target": [Names()],
        "max_class_size": [Integer(low=1)],
        "numeric_tolerance": [Number(low=0, high=1)],
        "confidence": [CONFIDENCE],
    }
)
def rare_attribution_test(
    *,
    train,
    holdout,
    synthetic,
    keys,
    target,
    max_class_size=DEFAULT_MAX_CLASS_SIZE,
    numeric_tolerance=DEFAULT_NUMERIC_TOLERANCE,
    confidence=DEFAULT_CONFIDENCE,
) -> RareAttributionTest:
    """Rare training records whose sensitive value the release gives with certainty, against rare
    holdout records (module documentation).

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    keys : str or list of str
        The variables the intruder knows, matched exactly.
    target : str
        The sensitive variable (one column).
    max_class_size : int, default 1
        A record is rare when at most this many real records (training and holdout pooled) share
        its keys; 1: unique.
    numeric_tolerance : float, default 0.01
        For a numeric target, the share of its range within which a synthetic value gives the
        person's value (0: exactly).
    confidence : float, default 0.95
        Fisher's test is one-sided at ``1 - confidence``; level of Newcombe's interval.

    Returns
    -------
    RareAttributionTest
        Key ``rare_attribution_test``; unjudged; ``value`` the excess of rare training records with a
        certain attribution, in people.

    Raises
    ------
    PrivlibError
        If the tables are not comparable, a key or the target is not a column, the target is a key,
        or no training or no holdout record is rare.

    Examples
    --------
    >>> import pandas as pd
    >>> common = pd.DataFrame({"k": ["a", "b"] * 45, "s": ["x", "y", "y"] * 30})
    >>> train = pd.concat([common, pd.DataFrame({"k": [f"t{i}" for i in range(10)], "s": "x"})])
    >>> holdout = pd.concat([common, pd.DataFrame({"k": [f"h{i}" for i in range(10)], "s": "x"})])
    >>> synthetic = pd.concat([common, train.iloc[90:]])   # the 10 rare training keys, with their value
    >>> result = rare_attribution_test(train=train, holdout=holdout, synthetic=synthetic, keys="k", target="s")
    >>> result.n_train, result.train_attributed, result.holdout_attributed, result.value > result.baseline
    (10, 10, 0, True)
    """
    confidence = check_confidence(confidence)
    holdout, synthetic = _check_release(train, holdout, synthetic)
    keys = check_columns(train, keys, "keys", "train")
    target = check_columns(train, target, "target", "train")
    if len(target) != 1:
        raise ParameterError(
            f"`target` must name one column, got {target}; test each sensitive variable alone."
        )
    if target[0] in keys:
        raise ParameterError(
            f"`target` {target[0]!r} is also among the `keys`; an intruder who already knows a variable "
            "cannot learn it. Remove it from `keys`."
        )
    (column,) = target
    kinds = infer_kinds(train)
    tables = (train, holdout, synthetic)
    codes = joint_codes([[comparable_values(t[k], kinds[k]) for k in keys] for t in tables])
    real_keys, synthetic_keys = np.concatenate(codes[:2]), codes[2]
    rare = np.bincount(real_keys)[real_keys] <= max_class_size
    widths = _copy_widths(train[[column]], holdout[[column]], synthetic[[column]], numeric_tolerance)
    if column in widths:  # a number, missing as NaN
        values = [numeric_values(t[column]) for t in tables]
    else:  # a category: its joint code, missing a value of its own
        values = [
            c.astype(float)
            for c in joint_codes([[comparable_values(t[column], kinds[column])] for t in tables])
        ]
    certain = certain_attributions(
        np.concatenate(values[:2]), real_keys, values[2], synthetic_keys, widths.get(column, 0.0)
    )
    n = len(train)
    rare_train, rare_holdout = rare[:n], rare[n:]
    if not rare_train.any() or not rare_holdout.any():
        raise DataError(
            f"no training or no holdout record is rare (at most {max_class_size} real records share its "
            "keys); give more key variables or raise `max_class_size`."
        )
    a, b = (
        int(np.count_nonzero(found[r]))
        for found, r in ((certain[:n], rare_train), (certain[n:], rare_holdout))
    )
    fields = _fisher_excess(a, int(rare_train.sum()), b, int(rare_holdout.sum()), confidence)
    return RareAttributionTest(
        measure=KEY,
        keys=tuple(keys),
        target=column,
        numeric_target=column in widths,
        max_class_size=int(max_class_size),
        numeric_tolerance=float(numeric_tolerance),
        train_attributed=fields.pop("train_copied"),
        holdout_attributed=fields.pop("holdout_copied"),
        **fields,
    )


RARE_ATTRIBUTION_TEST = MeasureSpec(
    KEY,
    "Certain attributions to people unique on the keys, beyond chance",
    "attribute",
    Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the training "
        "records unique on the keys whose sensitive value the release gives with certainty against the "
        "holdout records with one, no margin, since each is a disclosure about a person who can be "
        "singled out; a certain attribution is a correct attribution probability of 1 (Taub, Elliot, "
        "Pampaka & Smith 2018, PSD; Taub & Elliot's targeted CAP, 2019)",
        scope="looks only at people whose keys no other real record (training or holdout) shares, and "
        "counts those for whom every synthetic record with their keys carries their sensitive value "
        "(a number within 1% of its range), so a few people exposed are not averaged away",
        risk_words="the release gives the sensitive value of people unique on the keys more often for "
        "training records than for people it never saw",
        safe_words="the release gives the sensitive value of training records unique on the keys no "
        "more often than that of unique people it never saw, at this confidence",
    ),
    Reference("privlib.rare_attributions:rare_attribution_test"),
    lambda c: release(c) | {"keys": c.keys, "target": c.target},
    needs=("holdout", "keys", "sensitive"),
    per_target=True,
    at_risk=lambda r: (
        r.records_at_risk,
        "training records unique on the keys have their sensitive value on every synthetic record "
        "with their keys, beyond the holdout's rate",
    ),
)
