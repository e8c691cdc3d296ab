"""Singling out, linkability and inference: the three criteria of Opinion 05/2014, as attacks.

European data protection authorities ask three questions of an anonymised release (Article 29
Working Party, Opinion 05/2014 on Anonymisation Techniques): can an attacker still
**single out** a person, **link** two records about the same person, or **infer** one of their
attributes? Giomi et al. (2023) turn each question into an attack that uses only the synthetic
data, and read its success against two references:

* the **baseline**: a naive attacker who guesses at random. An attack that does not beat it says
  nothing about the synthetic data, and its risk is not assessable;
* the **control**: the same attack aimed at real records the generator never saw (the holdout).
  What the attack achieves there comes from what the synthetic data says about the population;
  only the excess on the training records is a privacy leak.

With success rates ``a`` on the training records and ``c`` on the control records the risk is

    risk = (a - c) / (1 - c),

the share of the control attack's failures that the training records turn into successes: 0 when
the synthetic data tells an attacker no more about the people it was trained on than about
anyone else, 1 when it tells everything. Each rate carries a Wilson interval (Wilson 1927); the
risk's interval propagates the two rates' half-widths to first order, as anonymeter does. The
inference attack averages each target over ``TIE_DRAWS`` draws of its random tie-break, so its
rates are means of per-target chances, with the normal interval of a mean; its risk compares the
two rates at one mix of the secret's values (:func:`inference`).

The three attacks (:func:`singling_out`, :func:`linkability`, :func:`inference`) follow the
paper and anonymeter 1.1.0, the authors' implementation; they run on the kit's own
nearest-neighbour engine (:mod:`privlib.neighbors`) and predicate evaluator, and differ from
anonymeter where the docstrings say so:

* **seeding**: every random step (targets, predicates, tie-breaking, baseline guesses) draws from
  one :class:`numpy.random.Generator` made from ``random_state``, so a seed reproduces the
  predicates and the risk; anonymeter draws part of them from an unseeded module-level generator;
* **missing values**: missing equals missing and differs from every value, in predicates (a
  missing value satisfies only "is missing" and "differs from v") and in distances (Gower term 0
  for two missing values, 1 against a value); anonymeter's Gower counts 1 for two missing
  numbers;
* **ties**: among equally near synthetic records the attacker takes one at random (seeded), and
  the two halves of the linkability attack break their ties independently; anonymeter takes
  whichever comes first in an unstable sort;
* **duplicates**: records are counted as they are; anonymeter drops duplicated rows first, so
  there a predicate that matches two identical people "singles out". Two identical people are
  not singled out by a predicate that matches both of them;
* **rates**: shares are successes over attacks made (point estimate ``k / n``); anonymeter
  reports the centre of the Wilson interval, ``(k + z^2/2) / (n + z^2)``, which differs by less
  than ``z^2 / (2n)`` (0.001 for 2,000 attacks), and clips the risk at 0. The kit keeps a
  negative risk (the control records are attacked *more* easily than the training records).

References
----------
Article 29 Data Protection Working Party. Opinion 05/2014 on Anonymisation Techniques
(WP216), 10 April 2014.

Giomi M, Boenisch F, Wehmeyer C, Tasnádi B. A unified framework for quantifying privacy risk in
synthetic data. Proceedings on Privacy Enhancing Technologies 2023(2):312-328.
doi:10.56553/popets-2023-0055

Cohen A, Nissim K. Towards formalizing the GDPR's notion of singling out. PNAS 117(15), 2020
(the probability that a predicate singles out, used for the control-size correction).

Wilson EB. Probable inference, the law of succession, and statistical inference. JASA 22, 1927.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from dataclasses import dataclass
from numbers import Integral, Real
from typing import cast

import numpy as np
import pandas as pd
from numba import njit, prange
from scipy.stats import norm

from privlib import neighbors
from privlib.errors import DataError, ParameterError
from privlib.results import NOT_ASSESSABLE, Result, per_record
from privlib.schema import (
    MISSING,
    NUMERIC,
    TableEncoder,
    check_columns,
    check_comparable,
    check_frame,
    infer_kinds,
    numeric_values,
)
from privlib.uncertainty import WILSON, check_confidence, wilson_interval
from privlib.validation import (
    CONFIDENCE,
    Instance,
    Integer,
    Names,
    Number,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = [
    "CriterionRisk",
    "SinglingOutRisk",
    "LinkabilityRisk",
    "InferenceRisk",
    "singling_out",
    "linkability",
    "inference",
    "singling_out_probability",
]

#: Predicate terms: equal, differs, below, above, at most, at least, is missing, is not missing.
EQ, NE, LT, GT, LE, GE, ISNA, NOTNA = range(8)

#: Synthetic records drawn per round of the multivariate predicate search.
_ROUND = 2_000


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CriterionRisk(Result):
    """Risk of one of the three criteria: the attack, its baseline and its control.

    Attributes
    ----------
    value : float
        The risk ``(attack_rate - control_rate) / (1 - control_rate)``; NaN when undefined.
    ci_low, ci_high : float
        Its interval: the Wilson half-widths of the two rates propagated to first order.
    baseline : float
        0.0, the risk of synthetic data that tells an attacker no more about the training records
        than about records the generator never saw.
    n_attacks : int
        Attacks made (each rate's number of trials).
    attack_successes, baseline_successes, control_successes : int
        Successful attacks on training records, by the random-guess baseline, and on control
        records (for singling out, after the control-size correction).
    attack_rate, baseline_rate, control_rate : float
        The three success shares, each with its Wilson interval ``*_ci_low``, ``*_ci_high``.
    attack_success, baseline_success, control_success : numpy.ndarray of bool
        Per attack: whether it succeeded.
    """

    n_attacks: int
    attack_successes: int
    baseline_successes: int
    control_successes: int
    attack_rate: float
    attack_ci_low: float
    attack_ci_high: float
    baseline_rate: float
    baseline_ci_low: float
    baseline_ci_high: float
    control_rate: float
    control_ci_low: float
    control_ci_high: float
    attack_success: np.ndarray = per_record(default=None)
    baseline_success: np.ndarray = per_record(default=None)
    control_success: np.ndarray = per_record(default=None)

    @property
    def _attack_text(self) -> str:
        """What one attack is, for the reading (said by each subclass)."""
        return "attacks"

    def beats_baseline(self) -> bool:
        """Whether the attack succeeds more often than random guessing (its risk means something)."""
        return bool(self.n_attacks) and self.attack_rate > self.baseline_rate

    def reading(self) -> str:
        if not self.n_attacks:
            return f"No attack could be made: {self.verdict_rule}."
        rates = (
            f"{self._attack_text} succeed on {_pct(self.attack_rate)} of the {self.n_attacks} "
            f"training targets, {_pct(self.control_rate)} of the control targets and "
            f"{_pct(self.baseline_rate)} for random guesses"
        )
        if not self.beats_baseline():
            return (
                f"The {rates}: the attack does not beat random guessing, so its risk "
                f"({_num(self.value)}) says nothing about the synthetic data."
            )
        if math.isnan(self.value):
            return f"The {rates}; the risk is undefined because every control attack succeeds."
        text = f"The {rates}. Risk {_num(self.value)}{self._interval_text()}"
        if self.value <= 0:
            return text + (
                ": the training records are attacked no more easily than records the generator never saw."
            )
        return text + (
            f": the synthetic data turns {_pct(self.value)} of the control attack's "
            f"failures into successes on the people it was trained on"
            f"{'' if self.verdict is None else f' (verdict: {self.verdict})'}."
        )


@dataclass(frozen=True, kw_only=True)
class SinglingOutRisk(CriterionRisk):
    """:func:`singling_out`'s result.

    Attributes
    ----------
    mode : str
        ``"univariate"`` or ``"multivariate"``.
    n_cols : int
        Columns per predicate (1 for univariate).
    n_requested : int
        Predicates asked for; ``n_attacks`` may be fewer when the synthetic data has fewer records
        that one predicate can single out.
    control_correction : float
        Factor applied to the control successes for the difference in size between the control
        and training sets (1.0 when they are the same size).
    predicate_rows : numpy.ndarray of int
        Per predicate, the synthetic record (row position) it was built from and singles out.
    predicate_columns : numpy.ndarray of int, shape (n_attacks, n_cols)
        Per predicate, the column positions it constrains (values are not kept).
    """

    mode: str
    n_cols: int
    n_requested: int
    control_correction: float = 1.0
    predicate_rows: np.ndarray = per_record(default=None)
    predicate_columns: np.ndarray = per_record(default=None)

    @property
    def _attack_text(self):
        return f"{self.mode} singling-out predicates (built from the synthetic data)"

    def reading(self) -> str:
        text = super().reading()
        if self.n_attacks and self.n_attacks < self.n_requested:
            text += (
                f" Only {self.n_attacks} of the {self.n_requested} predicates asked for "
                "could be built, so the intervals are wider."
            )
        return text


@dataclass(frozen=True, kw_only=True)
class _TargetedRisk(CriterionRisk):
    """A risk whose attacks aim at chosen records: which training and control rows they were.

    Attributes
    ----------
    targets, control_targets : numpy.ndarray of int
        Row positions of the attacked training and control records.
    """

    targets: np.ndarray = per_record(default=None)
    control_targets: np.ndarray = per_record(default=None)


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


def _pct(value: float) -> str:
    return "undefined" if value is None or math.isnan(value) else f"{100 * value:.1f}%"


def _num(value: float) -> str:
    return "undefined" if math.isnan(value) else f"{value:.3f}"


# --------------------------------------------------------------------------------------------
# Rates, risk and verdict
# --------------------------------------------------------------------------------------------
def _rate(successes: int, trials: int, confidence: float) -> tuple[float, float, float]:
    """Share ``successes / trials`` and its Wilson interval (NaN for no trials)."""
    low, high = wilson_interval(int(successes), int(trials), confidence=confidence)
    return (successes / trials if trials else math.nan), low, high


def _mean_rate(chances: np.ndarray, confidence: float) -> tuple[float, float, float]:
    """Mean of per-attack success chances in [0, 1] and its normal interval, from their spread.

    Averaging each attack over its tie-break draws leaves only the variation between targets,
    which is at most the ``p (1 - p)`` of whole successes; whole successes keep their Wilson
    interval."""
    n = len(chances)
    if not n or np.isin(chances, (0.0, 1.0)).all():
        return _rate(int(np.sum(chances)), n, confidence)
    mean = float(chances.mean())
    half = float(norm.ppf((1 + confidence) / 2)) * float(chances.std()) / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


#: Strata of a numeric secret's values: quantile bins of the training and control targets'
#: values together.
_NUMERIC_STRATA = 10

#: Fewest targets of each group a stratum of the secret's values needs to stand on its own;
#: values held by fewer are pooled into one stratum.
_STRATUM_MIN = 5


def _secret_strata(secrets: pd.Series, numeric: bool) -> np.ndarray:
    """A stratum code per target from its secret: the value itself (missing a value of its own),
    or for a number its quantile bin among all targets (missing a bin of its own)."""
    if numeric:
        values = numeric_values(secrets)
        missing = np.isnan(values)
        if missing.all():
            return np.full(len(values), -1, dtype=np.int64)
        # bins (a, b] between the inner quantiles; repeated quantiles (a frequent value) merge bins
        inner = np.linspace(0, 1, _NUMERIC_STRATA + 1)[1:-1]
        edges = np.unique(np.quantile(values[~missing], inner))
        return np.where(missing, -1, np.searchsorted(edges, values, side="left")).astype(np.int64)
    return pd.factorize(secrets.astype(object), use_na_sentinel=False)[0]


def _standardised_rates(attack: np.ndarray, control: np.ndarray, strata: np.ndarray, confidence: float):
    """The attack and control success rates at one mix of the secret's values, each
    ``(rate, low, high)``, and the number of strata.

    ``strata`` codes the training targets then the control targets. Each rate is
    ``sum_v w_v * mean(chances of the group's targets in stratum v)`` with ``w_v`` the stratum's
    share of all targets (post-stratification): a difference between the two groups' mixes of
    values, which sampling alone makes, then moves neither rate. Values held by fewer than
    ``_STRATUM_MIN`` targets of either group are pooled into one stratum (dropped when it still
    lacks one group). A stratum's variance is Agresti and Coull's (1998): its chances joined by
    ``z^2 / 2`` certain successes and as many failures, so that a stratum whose targets all
    succeed (or fail) still carries its binomial uncertainty; the rate's interval is normal,
    ``z * sqrt(sum_v w_v^2 var_v / (n_v + z^2))``, unclipped (the risk propagates it).
    """
    n_attack = len(attack)
    codes = np.unique(strata, return_inverse=True)[1].ravel()
    sizes = [np.bincount(part, minlength=codes.max() + 1) for part in (codes[:n_attack], codes[n_attack:])]
    # values too rare in either group share one stratum, the code past the last
    rare = (sizes[0] < _STRATUM_MIN) | (sizes[1] < _STRATUM_MIN)
    codes = np.where(rare[codes], len(rare), codes)
    parts = {"attack": (attack, codes[:n_attack]), "control": (control, codes[n_attack:])}
    sizes = [np.bincount(part, minlength=len(rare) + 1) for _, part in parts.values()]
    kept = (sizes[0] > 0) & (sizes[1] > 0)
    weights = np.where(kept, sizes[0] + sizes[1], 0) / (sizes[0] + sizes[1])[kept].sum()
    z = float(norm.ppf((1 + confidence) / 2))
    pseudo = z * z / 2
    rates = {}
    for (name, (chances, part)), size in zip(parts.items(), sizes):
        total = np.bincount(part, weights=chances, minlength=len(size))[kept]
        squares = np.bincount(part, weights=np.square(chances), minlength=len(size))[kept]
        n_stratum, weight = size[kept], weights[kept]
        augmented = n_stratum + 2 * pseudo
        shrunk = (total + pseudo) / augmented
        spread = (squares + pseudo) / augmented - shrunk**2
        rate = float(np.sum(weight * total / n_stratum))
        half = z * math.sqrt(float(np.sum(weight**2 * spread / augmented)))
        rates[name] = (rate, rate - half, rate + half)
    return rates["attack"], rates["control"], int(kept.sum())


def _risk(attack, control) -> tuple[float, float, float]:
    """``(a - c) / (1 - c)`` and its interval from the rates' Wilson half-widths.

    ``attack`` and ``control`` are ``(rate, low, high)``, each interval Wilson's, or for
    tie-averaged chances the normal interval of their mean. First-order error propagation: the
    risk's half-width is ``sqrt((e_a / (1 - c))^2 + (e_c (a - 1) / (1 - c)^2)^2)`` with ``e_a``,
    ``e_c`` half the width of each rate's interval (as anonymeter does). The
    upper end is capped at 1, the largest possible risk.
    """
    a, a_low, a_high = attack
    c, c_low, c_high = control
    if not (1 - c) > 0:  # every control attack succeeds (or no attack was made)
        return math.nan, math.nan, math.nan
    risk = (a - c) / (1 - c)
    e_a, e_c = (a_high - a_low) / 2, (c_high - c_low) / 2
    error = math.hypot(e_a / (1 - c), e_c * (a - 1) / (1 - c) ** 2)
    return risk, risk - error, min(1.0, risk + error)


def _finish(cls, measure, successes, trials, confidence, **fields):
    """Build the (unjudged) result from the per-attack successes.

    ``successes`` maps "attack", "baseline", "control" to boolean arrays, except that a
    corrected control count may be given as ``control_count``. With ``standardised`` (the attack
    and control rates as ``(rate, low, high)`` at one mix of the secret's values), the risk and its
    interval come from those rates rather than from the raw ones.
    """
    why_none = fields.pop("why_none", "no attack could be made")
    standardised = fields.pop("standardised", None)
    counts = {name: int(np.round(np.sum(hits))) for name, hits in successes.items()}
    rates = {
        name: _mean_rate(np.asarray(hits, dtype="float64"), confidence) for name, hits in successes.items()
    }
    if "control_count" in fields:  # singling out: the control count corrected for the control size
        counts["control"] = fields.pop("control_count")
        rates["control"] = _rate(counts["control"], trials, confidence)
    value, low, high = _risk(*(standardised or (rates["attack"], rates["control"])))
    flat = {}
    for name, (rate, r_low, r_high) in rates.items():
        flat.update(
            {
                f"{name}_rate": rate,
                f"{name}_ci_low": r_low,
                f"{name}_ci_high": r_high,
                f"{name}_successes": counts[name],
                f"{name}_success": successes[name],
            }
        )
    result = cls(
        measure=measure,
        value=value,
        ci_low=low,
        ci_high=high,
        ci_method=(
            WILSON
            if standardised is None and all(np.isin(hits, (0, 1)).all() for hits in successes.values())
            else NORMAL
        ),
        confidence=confidence,
        baseline=0.0,
        n_attacks=trials,
        **flat,
        **fields,
    )
    if not trials:
        return _not_assessable(result, why_none)
    if not result.beats_baseline():
        return _not_assessable(
            result,
            f"the attack succeeds on {_pct(result.attack_rate)} of its targets, no more than the "
            f"{_pct(result.baseline_rate)} of random guesses, so its success says nothing about "
            "the synthetic data (Giomi et al. 2023: the attack must beat the baseline)",
        )
    if math.isnan(value):
        return _not_assessable(result, "every control attack succeeds, so no excess can be measured")
    return result


def _not_assessable(result, why: str):
    return dataclasses.replace(result, verdict=NOT_ASSESSABLE, verdict_rule=why)


# --------------------------------------------------------------------------------------------
# Validation and encoding
# --------------------------------------------------------------------------------------------
def _check_tables(synthetic, train, control) -> None:
    check_frame(synthetic, "synthetic", allow_missing_columns=True)
    check_frame(train, "train", allow_missing_columns=True)
    check_frame(control, "control", allow_missing_columns=True)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    check_comparable(train, control, ("train", "control"), unseen="ignore")


def _check_count(value, name: str, *, low: int = 1, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral) or value < low:
        raise ParameterError(f"`{name}` must be a whole number >= {low}, got {value!r}.")
    # An Integral compares as an int does; typeshed's numbers.Integral declares only < and <=.
    if high is not None and cast(int, value) > high:
        raise DataError(f"`{name}` must be at most {high} here, got {value!r}.")
    return int(value)


def _encode(columns, synthetic, train, control) -> tuple[list[np.ndarray], list[bool]]:
    """The three tables on ``columns`` as float arrays with NaN for missing, and which columns
    are numeric.

    One :class:`~privlib.schema.TableEncoder` fitted on the three tables: categories become the
    same integer codes everywhere, numbers an increasing affine map of themselves (so order and
    equality, all a predicate asks, are kept).
    """
    encoder = TableEncoder(columns=list(columns)).fit(
        synthetic, train, control, names=["synthetic", "train", "control"]
    )
    arrays = []
    for frame, name in ((synthetic, "synthetic"), (train, "train"), (control, "control")):
        coded = encoder.transform(frame, name)
        coded[coded == MISSING] = np.nan
        arrays.append(coded)
    return arrays, [encoder.kinds_[c] == NUMERIC for c in encoder.columns_]


# --------------------------------------------------------------------------------------------
# Predicates
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class _Predicates:
    """Conjunctions of terms ``column op value``, one row per predicate (no Python objects)."""

    columns: np.ndarray  # (q, c) int: the column of each term
    ops: np.ndarray  # (q, c) int: EQ ... NOTNA
    values: np.ndarray  # (q, c) float: the compared value (NaN for ISNA / NOTNA)
    rows: np.ndarray  # (q,) int: synthetic record the predicate was built from (-1: random)

    def __len__(self):
        return len(self.rows)

    def take(self, index):
        return _Predicates(self.columns[index], self.ops[index], self.values[index], self.rows[index])


@njit(cache=True, nogil=True)
def _term_holds(cell: float, op: int, value: float) -> bool:
    """Whether ``cell op value`` holds.

    A missing cell (NaN) is equal to nothing and differs from every value: only ``ISNA`` and
    ``NE`` hold for it (NaN compares false with ``==``, ``<``, ``>``, ``<=`` and ``>=``).
    """
    if op == EQ:
        return cell == value
    if op == NE:
        return not cell == value
    if op == LT:
        return cell < value
    if op == GT:
        return cell > value
    if op == LE:
        return cell <= value
    if op == GE:
        return cell >= value
    if op == ISNA:
        return np.isnan(cell)
    return not np.isnan(cell)


@njit(cache=True, nogil=True)
def _holds(table, r, columns, ops, values, i) -> bool:
    """Whether record ``r`` of ``table`` satisfies every term of predicate ``i``."""
    for t in range(columns.shape[1]):
        if not _term_holds(table[r, columns[i, t]], ops[i, t], values[i, t]):
            return False
    return True


@njit(cache=True, nogil=True)
def _term_range(sorted_column, n_present, op, value):
    """Positions ``lo, hi`` in a column's sorted order (missing values last) that hold every
    record for which ``cell op value`` holds: a superset of the matches, exact except for ``!=``."""
    n = sorted_column.shape[0]
    if op == ISNA:
        return n_present, n
    if op == NOTNA:
        return 0, n_present
    if op == NE or np.isnan(value):  # != holds almost everywhere; a comparison with NaN nowhere
        return (0, n) if op == NE else (0, 0)
    present = sorted_column[:n_present]
    left = np.searchsorted(present, value, side="left")
    right = np.searchsorted(present, value, side="right")
    if op == EQ:
        return left, right
    if op == LT:
        return 0, left
    if op == LE:
        return 0, right
    if op == GT:
        return right, n_present
    return left, n_present  # GE


@njit(parallel=True, cache=True, nogil=True)
def _singles_out_kernel(columns, ops, values, table, order, sorted_columns, n_present, rows, chosen, out):
    q, n_terms = columns.shape
    for i in prange(q):
        # the term with the fewest candidates, found by binary search in its sorted column
        best, lo, hi = -1, 0, table.shape[0]
        for t in range(n_terms):
            c = columns[i, t]
            t_lo, t_hi = _term_range(sorted_columns[c], n_present[c], ops[i, t], values[i, t])
            if t_hi - t_lo < hi - lo:
                best, lo, hi = c, t_lo, t_hi
        matches = 0
        if best >= 0 and hi - lo <= rows.shape[0]:  # read that term's candidates
            for k in range(lo, hi):
                r = order[best, k]
                if chosen[r] and _holds(table, r, columns, ops, values, i):
                    matches += 1
                    if matches == 2:  # a second match settles it: not singled out
                        break
        else:  # the rows asked for are fewer than any term's candidates: read them
            for r in rows:
                if _holds(table, r, columns, ops, values, i):
                    matches += 1
                    if matches == 2:
                        break
        out[i] = matches == 1


@dataclass(frozen=True, eq=False)
class _Indexed:
    """A table of predicate values with, per column, its row order sorted by value (missing
    last), so that the records a term can hold for are one range found by binary search."""

    table: np.ndarray  # (n, p) float, NaN for missing
    order: np.ndarray  # (p, n) int: row positions in increasing order of each column
    sorted_columns: np.ndarray  # (p, n) float: each column's values in that order
    n_present: np.ndarray  # (p,) int: values that are not missing, per column

    @classmethod
    def of(cls, table: np.ndarray) -> _Indexed:
        table = np.ascontiguousarray(table, dtype=np.float64)
        order = np.ascontiguousarray(np.argsort(table, axis=0, kind="stable").T)  # NaN sorts last
        sorted_columns = np.ascontiguousarray(np.take_along_axis(table.T, order, axis=1))
        return cls(table, order, sorted_columns, np.count_nonzero(~np.isnan(table), axis=0))


def _singles_out(predicates: _Predicates, table, rows=None) -> np.ndarray:
    """Per predicate, whether exactly one record of ``table`` (or of its ``rows``) satisfies it.

    ``table`` is an array or its :class:`_Indexed` form (index a table once when it is asked
    several times). Compiled (numba) and parallel over predicates. A predicate reads only the
    records its most selective term can hold for (a range of that column's sorted order), and
    stops at its second match, since only "exactly one" matters; when ``rows`` are fewer than
    those candidates it reads ``rows`` instead. The cost is then far below predicates x records,
    for rare predicates (which would read the whole table to its end) as for common ones.
    """
    indexed = table if isinstance(table, _Indexed) else _Indexed.of(table)
    n = indexed.table.shape[0]
    if rows is None:
        rows, chosen = np.arange(n), np.ones(n, dtype=np.bool_)
    else:
        rows = np.asarray(rows, dtype=np.int64)
        chosen = np.zeros(n, dtype=np.bool_)
        chosen[rows] = True
    out = np.zeros(len(predicates), dtype=np.bool_)
    if len(predicates):
        _singles_out_kernel(
            np.ascontiguousarray(predicates.columns, dtype=np.int64),
            np.ascontiguousarray(predicates.ops, dtype=np.int64),
            np.ascontiguousarray(predicates.values, dtype=np.float64),
            indexed.table,
            indexed.order,
            indexed.sorted_columns,
            indexed.n_present,
            rows,
            chosen,
            out,
        )
    return out


def _univariate_predicates(synthetic: np.ndarray, numeric, n: int, rng) -> _Predicates:
    """Predicates on one column that single out one synthetic record (Giomi et al. 2023).

    The candidates are what makes a record stand out on one variable: a value held by exactly
    one synthetic record (``== v``), the smallest and largest value of a numeric column when one
    record holds it (``<= min``, ``>= max``), and a missing value when one record has it. Each
    singles out its record in the synthetic data by construction; ``n`` of them are drawn at
    random.
    """
    # per column: (column, ops, values, rows) of its candidates
    parts: list[tuple[int, list | np.ndarray, list | np.ndarray, list | np.ndarray]] = []
    for j in range(synthetic.shape[1]):
        cells = synthetic[:, j]
        missing = np.flatnonzero(np.isnan(cells))
        if len(missing) == 1:
            parts.append((j, [ISNA], [np.nan], missing))
        present = np.flatnonzero(~np.isnan(cells))
        if not len(present):
            continue
        distinct, first, counts = np.unique(cells[present], return_index=True, return_counts=True)
        if numeric[j]:
            for end, op in ((0, LE), (-1, GE)):
                if counts[end] == 1:
                    parts.append((j, [op], [distinct[end]], [present[first[end]]]))
        once = counts == 1
        parts.append((j, np.full(once.sum(), EQ), distinct[once], present[first[once]]))
    columns = np.concatenate([np.full(len(rows), j) for j, _, _, rows in parts]).astype(np.int64)
    ops, values, rows = (np.concatenate([part[k] for part in parts]) for k in (1, 2, 3))
    order = rng.permutation(len(rows))[:n]
    return _Predicates(
        columns[order, None],
        ops.astype(np.int64)[order, None],
        values.astype(float)[order, None],
        rows.astype(np.int64)[order],
    )


def _multivariate_predicates(synthetic, numeric, n, n_cols, max_attempts, rng) -> _Predicates:
    """Conjunctions over ``n_cols`` columns of a synthetic record that single it out.

    Following Giomi et al. (2023): draw a synthetic record and ``n_cols`` of its columns
    at random; a categorical value gives ``== v``, a numeric value ``>= v`` when it lies above the
    column's median and ``<= v`` otherwise (the side where fewer records are), a missing value
    "is missing". Keep the predicate when it matches exactly that one synthetic record and was
    not kept before; stop at ``n`` predicates or after ``max_attempts`` draws.
    """
    n_syn, p = synthetic.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column has no median
        medians = np.nanmedian(synthetic, axis=0)
    numeric = np.asarray(numeric)
    no_columns, no_ops, no_values = (np.empty((0, n_cols)) for _ in range(3))
    kept = _Predicates(no_columns, no_ops, no_values, np.empty(0, dtype=np.int64))
    indexed = _Indexed.of(synthetic)
    attempts = 0
    while len(kept) < n and attempts < max_attempts:
        size = min(_ROUND, max_attempts - attempts)
        attempts += size
        rows = rng.integers(0, n_syn, size=size)
        cols = np.sort(np.argsort(rng.random((size, p)), axis=1)[:, :n_cols], axis=1)
        values = synthetic[rows[:, None], cols]
        above = values > medians[cols]
        ops = np.where(numeric[cols], np.where(above, GE, LE), EQ)
        ops = np.where(np.isnan(values), ISNA, ops)
        candidates = _Predicates(cols, ops, values, rows)
        singles = _singles_out(candidates, indexed)
        pooled = _concat(kept, candidates.take(singles))
        # the same predicate drawn twice counts once: keep each first occurrence, in order
        key = np.column_stack([pooled.columns, pooled.ops, np.nan_to_num(pooled.values, nan=-MISSING)])
        _, first = np.unique(key, axis=0, return_index=True)
        kept = pooled.take(np.sort(first))
    return kept.take(slice(0, n))


def _concat(a: _Predicates, b: _Predicates) -> _Predicates:
    return _Predicates(
        *(
            np.concatenate([getattr(a, f), getattr(b, f)]).astype(getattr(b, f).dtype)
            for f in ("columns", "ops", "values", "rows")
        )
    )


def _random_predicates(synthetic, numeric, n, n_cols, rng) -> _Predicates:
    """The baseline: ``n`` predicates on ``n_cols`` random columns with random values and operators.

    Each term takes a value seen in that synthetic column (missing counts as one value) and an
    operator drawn among those that apply: ``==``, ``!=`` for a category; ``==``, ``!=``, ``<``,
    ``>``, ``<=``, ``>=`` for a number; "is missing", "is not missing" for a missing value
    (Giomi et al. 2023).
    """
    p = synthetic.shape[1]
    cols = np.sort(np.argsort(rng.random((n, p)), axis=1)[:, :n_cols], axis=1)
    values = np.empty(cols.shape)
    for j in range(p):
        here = cols == j
        distinct = np.unique(synthetic[:, j])  # missing counts once (numpy merges NaNs)
        values[here] = distinct[rng.integers(0, len(distinct), size=int(here.sum()))]
    draw = rng.integers(0, 6, size=cols.shape)
    ops = np.where(np.asarray(numeric)[cols], draw, draw % 2)  # EQ, NE for categories
    ops = np.where(np.isnan(values), ISNA + draw % 2, ops)
    return _Predicates(cols, ops, values, np.full(n, -1, dtype=np.int64))


def singling_out_probability(n: int, w_low: float, w_high: float) -> float:
    """Integral over ``w`` in ``[w_low, w_high]`` of ``n w (1 - w)^(n - 1)``.

    ``n w (1 - w)^(n - 1)`` is the probability that a predicate matching a share ``w`` of the
    population matches exactly one of ``n`` records drawn from it (Cohen & Nissim 2020); its
    integral, ``[(n a + 1)(1 - a)^n - (n b + 1)(1 - b)^n] / (n + 1)``, is the model Giomi et al.
    (2023) fit to correct the control successes for a control set of another size.

    Examples
    --------
    >>> round(singling_out_probability(1, 0.0, 1.0), 6)  # one record: the integral of w over [0, 1]
    0.5
    """
    return ((n * w_low + 1) * (1 - w_low) ** n - (n * w_high + 1) * (1 - w_high) ** n) / (n + 1)


def _control_correction(predicates, control, n_train, rng) -> float:
    """Factor turning singling-out successes on the control set into those expected at the
    training set's size.

    As anonymeter does: count the predicates' successes on random subsets of the control set of
    ten sizes from ``min(1000, m)`` to ``m`` (five subsets each), fit ``norm * P(size, 0,
    w_eff)`` (:func:`singling_out_probability`) by least squares, and return
    ``model(n_train) / model(m)``. The subsets are drawn from the measure's generator.
    ``control`` is the control table in its :class:`_Indexed` form.
    """
    from scipy.optimize import OptimizeWarning, curve_fit

    m = control.table.shape[0]
    sizes = np.repeat(np.linspace(min(1000, m), m, 10).astype(int), 5)
    subsets = [rng.choice(m, size=s, replace=False) for s in sizes]
    successes = np.array([_singles_out(predicates, control, subset).sum() for subset in subsets])

    def model(size, w_eff, norm):
        return norm * singling_out_probability(size, 0.0, w_eff)

    guess = 1 / sizes.max()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizeWarning)
            params, _ = curve_fit(
                model,
                sizes.astype(float),
                successes.astype(float),
                p0=(guess, 1 / singling_out_probability(sizes.max(), 0, guess)),
                bounds=(0, (1, np.inf)),
            )
    except (RuntimeError, ValueError):
        return 1.0  # the curve cannot be fitted (e.g. no success at any size): no correction
    at_control = model(m, *params)
    return float(model(n_train, *params) / at_control) if at_control > 0 else 1.0


# --------------------------------------------------------------------------------------------
# Public measures
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "control": [Table()],
        "mode": [Options("univariate", "multivariate")],
        "n_attacks": [Integer(low=1)],
        "n_cols": [Integer(low=1)],
        "max_attempts": [Integer(low=1), None],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    }
)
def singling_out(
    *,
    synthetic,
    train,
    control,
    mode="univariate",
    n_attacks=500,
    n_cols=3,
    max_attempts=None,
    confidence=0.95,
    random_state=None,
) -> SinglingOutRisk:
    """Singling-out risk: do predicates read off the synthetic data isolate one real person?

    A predicate such as ``age >= 90 and sex == F`` *singles out* a person when exactly one record
    of a table satisfies it (Opinion 05/2014; Cohen & Nissim 2020). The attacker builds
    predicates that single out one synthetic record and checks them against the training
    records; the control attack checks the same predicates against the control records, and the
    baseline tries random predicates (Giomi et al. 2023).

    Parameters
    ----------
    synthetic, train, control : pandas.DataFrame
        The synthetic data, the generator's training records and real records it never saw
        (e.g. the holdout), all with the same columns.
    mode : {"univariate", "multivariate"}, default "univariate"
        Univariate predicates constrain one column (a value only one synthetic record holds, a
        column's unique extreme, a unique missing value); multivariate predicates are
        conjunctions over ``n_cols`` columns of one synthetic record.
    n_attacks : int, default 500
        Predicates to build. Fewer may exist (``result.n_attacks`` says how many were made); the
        rates divide by the number made (anonymeter divides by the number asked for).
    n_cols : int, default 3
        Columns per multivariate predicate (ignored for univariate).
    max_attempts : int, optional
        Synthetic records drawn at most while searching multivariate predicates; by default
        ``100 * n_attacks``.
    confidence : float, default 0.95
        Level of the Wilson intervals.
    random_state : int, numpy.random.Generator or None
        Seed of every random step: the same seed gives the same predicates and risk.

    Returns
    -------
    SinglingOutRisk
        ``value`` (the risk) with its interval, the three rates with theirs, the verdict, and per
        predicate its synthetic source row and columns and whether it succeeded.

    Notes
    -----
    A predicate succeeds when it matches exactly one training record. When the control set has
    another size than the training set, its successes are rescaled to the training set's size by
    the model of Giomi et al. (2023), fitted on random subsets of the control set
    (``control_correction``). Differences from anonymeter are listed in the module docstring.

    Raises
    ------
    PrivlibError
        If a table is empty or not a DataFrame, the tables' columns differ, ``mode`` is unknown,
        or ``n_attacks``, ``n_cols`` or ``max_attempts`` is not a whole number in range.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"age": [23, 35, 35, 41, 58, 90], "sex": list("FMFMFF")})
    >>> control = pd.DataFrame({"age": [25, 35, 40, 41, 60, 70], "sex": list("MMFFMF")})
    >>> result = singling_out(synthetic=train, train=train, control=control, n_attacks=20,
    ...                       random_state=0)
    >>> result.n_attacks, result.attack_successes
    (6, 6)
    """
    _check_tables(synthetic, train, control)
    if mode not in ("univariate", "multivariate"):
        raise ParameterError(f"`mode` must be 'univariate' or 'multivariate', got {mode!r}.")
    n_requested = _check_count(n_attacks, "n_attacks")
    p = train.shape[1]
    n_cols = 1 if mode == "univariate" else _check_count(n_cols, "n_cols", high=p)
    max_attempts = 100 * n_requested if max_attempts is None else _check_count(max_attempts, "max_attempts")
    confidence = check_confidence(confidence)
    rng = np.random.default_rng(random_state)

    tr: np.ndarray | _Indexed
    ctl: np.ndarray | _Indexed
    (syn, tr, ctl), numeric = _encode(train.columns, synthetic, train, control)
    tr, ctl = _Indexed.of(tr), _Indexed.of(ctl)  # each is asked several times
    if mode == "univariate":
        predicates = _univariate_predicates(syn, numeric, n_requested, rng)
    else:
        predicates = _multivariate_predicates(syn, numeric, n_requested, n_cols, max_attempts, rng)
    made = len(predicates)
    random_predicates = _random_predicates(syn, numeric, made, n_cols, rng)
    attack = _singles_out(predicates, tr)
    control_hits = _singles_out(predicates, ctl)
    correction = 1.0
    if len(control) != len(train) and control_hits.any():
        correction = _control_correction(predicates, ctl, len(train), rng)
    control_count = min(made, int(round(control_hits.sum() * correction)))
    return _finish(
        SinglingOutRisk,
        f"singling_out_{mode}",
        {"attack": attack, "baseline": _singles_out(random_predicates, tr), "control": control_hits},
        made,
        confidence,
        control_count=control_count,
        mode=mode,
        n_cols=n_cols,
        n_requested=n_requested,
        control_correction=correction,
        predicate_rows=predicates.rows,
        predicate_columns=predicates.columns.astype(np.int64),
        why_none=(
            f"no {mode} predicate singles out one synthetic record"
            + ("" if mode == "univariate" else f" within {max_attempts} attempts")
        ),
    )


#: ``ci_method`` of the risk when its rates are means of tie-averaged chances (normal intervals).
NORMAL = "normal"

#: Draws of the random tie-break that :func:`inference` averages each attack over: a target's
#: success is then its chance over the tie-break rather than one coin flip among equally near
#: synthetic records, which on data with few distinct keys halves the interval of the risk
#: (the expected rates are those of one draw).
TIE_DRAWS = 16

#: Gower weight of the random tie-breaking variable of :func:`_nearest_synthetic`: small enough
#: to reorder only distances equal to within about ``1e-10``, large enough to be resolved in
#: float64 beside distances of order 1.
_TIE_WEIGHT = 1e-9


def _nearest_synthetic(queries, synthetic, columns, k, rng) -> list[np.ndarray]:
    """Row positions of the ``k`` synthetic records nearest (Gower, on ``columns``) to each record
    of each table in ``queries``; one search for all of them.

    Ties are broken at random, independently for each query record: every query and every
    synthetic record gets a uniform random number, added to the distance as a variable of
    weight ``_TIE_WEIGHT``, so among equally near synthetic records the query takes the one
    whose number is closest to its own (each of them with the same chance, over the draws). The
    engine alone would take the lowest row number, the same record for every query, which in
    linkability links two halves whose tied sets merely overlap. Numeric ranges come from the
    synthetic records and the attacked records together, as in anonymeter, so the attack on
    training records and the control attack measure distances alike.
    """
    tie = "__privlib_tie__"
    while tie in columns:
        tie += "_"
    reference = synthetic[columns].assign(**{tie: rng.random(len(synthetic))})
    pooled = pd.concat([q[columns] for q in queries], ignore_index=True)
    pooled[tie] = rng.random(len(pooled))
    encoder = TableEncoder(columns=[*columns, tie], weights={tie: _TIE_WEIGHT}).fit(
        reference, pooled, names=["synthetic", "targets"]
    )
    found = neighbors.kneighbors(pooled, reference, k=k, encoder=encoder).indices
    return np.split(found, np.cumsum([len(q) for q in queries])[:-1])


def _targets(n_attacks, train, control, rng):
    """``n`` training and ``n`` control row positions drawn without replacement, with
    ``n = min(n_attacks, len(train), len(control))`` so both attacks have as many trials."""
    n = min(n_attacks, len(train), len(control))
    return n, rng.choice(len(train), size=n, replace=False), rng.choice(len(control), size=n, replace=False)


def _check_aux(columns, parameter, train) -> list:
    columns = check_columns(train, columns, parameter, "train")
    duplicated = sorted({c for c in columns if columns.count(c) > 1}, key=str)
    if duplicated:
        raise ParameterError(f"`{parameter}` names {duplicated} more than once; name each column once.")
    return columns


@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "control": [Table()],
        "aux_columns": [Instance(tuple, list, description="a pair of column lists")],
        "n_neighbors": [Integer(low=1)],
        "n_attacks": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    }
)
def linkability(
    *,
    synthetic,
    train,
    control,
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
    synthetic, train, control : pandas.DataFrame
        The synthetic data, the generator's training records and real records it never saw.
    aux_columns : tuple of two sequences of str
        The columns of the attacker's two datasets (each non-empty).
    n_neighbors : int, default 1
        Nearest synthetic records compared per half.
    n_attacks : int, default 500
        Target records; at most the size of ``train`` and of ``control`` (the smaller is used).
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
    >>> control = pd.DataFrame({"age": [30, 30, 50, 50], "sex": list("FFMM"),
    ...                         "zip": ["a", "b", "a", "b"]})
    >>> result = linkability(synthetic=train, train=train, control=control,
    ...                      aux_columns=(["age", "sex"], ["zip"]), random_state=0)
    >>> result.attack_successes, result.n_attacks
    (4, 4)
    """
    _check_tables(synthetic, train, control)
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

    n, targets, control_targets = _targets(n_requested, train, control, rng)
    queries = [train.iloc[targets], control.iloc[control_targets]]
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
        "linkability_risk",
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
        "control": [Table()],
        "secret": [Names()],
        "aux_columns": [Names(), None],
        "n_attacks": [Integer(low=1)],
        "tolerance": [Number(low=0)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    }
)
def inference(
    *,
    synthetic,
    train,
    control,
    secret,
    aux_columns=None,
    n_attacks=500,
    tolerance=0.05,
    confidence=0.95,
    random_state=None,
) -> InferenceRisk:
    """Inference risk: does the synthetic data tell an attacker a person's secret?

    The attacker knows some columns of a target person (``aux_columns``) and guesses another one
    (``secret``) as the value of the nearest synthetic record on the known columns (Gower
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
    synthetic, train, control : pandas.DataFrame
        The synthetic data, the generator's training records and real records it never saw.
    secret : str
        The column to guess.
    aux_columns : sequence of str, optional
        The columns the attacker knows; by default every other column.
    n_attacks : int, default 500
        Target records of each group: this many training records and this many control records,
        or the whole table when it is smaller (the two groups may differ in size; ``n_attacks``
        of the result counts the training targets).
    tolerance : float, default 0.05
        For a numeric secret, a guess is right when ``|guess - secret| <= tolerance * |secret|``
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
        If a table is empty or the columns differ, ``secret`` is not one column or is among
        ``aux_columns``, an auxiliary column is unknown, or ``n_attacks`` or ``tolerance`` is out
        of range.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"age": [23, 35, 47, 59], "ill": ["no", "yes", "no", "yes"]})
    >>> control = pd.DataFrame({"age": [24, 36, 48, 60], "ill": ["yes", "no", "yes", "no"]})
    >>> result = inference(synthetic=train, train=train, control=control, secret="ill",
    ...                    random_state=0)
    >>> result.attack_rate, result.control_rate, result.value
    (1.0, 0.0, 1.0)
    """
    _check_tables(synthetic, train, control)
    if not isinstance(secret, str) or secret not in train.columns:
        raise ParameterError(
            f"`secret` must be the name of one column of `train`, got {secret!r}; the columns are "
            f"{list(train.columns)}."
        )
    if aux_columns is None:
        aux_columns = [c for c in train.columns if c != secret]
        if not aux_columns:
            raise DataError("`train` has no column besides `secret`; the attacker needs known columns.")
    aux_columns = _check_aux(aux_columns, "aux_columns", train)
    if secret in aux_columns:
        raise ParameterError(
            f"`secret` {secret!r} is also in `aux_columns`; the attacker cannot already know the "
            "column it guesses: remove it from `aux_columns`."
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

    numeric = infer_kinds(train[[secret]])[secret] == NUMERIC
    # each group its own number of targets: a control larger than the training data narrows
    # the control rate's interval, and the strata compare groups of any sizes
    n, n_control = min(n_requested, len(train)), min(n_requested, len(control))
    targets = rng.choice(len(train), size=n, replace=False)
    control_targets = rng.choice(len(control), size=n_control, replace=False)
    secrets_of = synthetic[secret].reset_index(drop=True)
    queries = [train.iloc[targets], control.iloc[control_targets]]
    right = {"attack": np.zeros(n), "control": np.zeros(n_control)}
    for _ in range(TIE_DRAWS):
        nearest = _nearest_synthetic(queries, synthetic, aux_columns, 1, rng)
        for name, found, query in zip(("attack", "control"), nearest, queries):
            right[name] += _guess_is_right(
                secrets_of.iloc[found[:, 0]], query[secret], numeric, cast(float, tolerance)
            )
    right = {name: hits / TIE_DRAWS for name, hits in right.items()}
    random_rows = rng.choice(len(synthetic), size=n, replace=n > len(synthetic))
    right["baseline"] = _guess_is_right(
        secrets_of.iloc[random_rows], train[secret].iloc[targets], numeric, cast(float, tolerance)
    )
    strata = _secret_strata(pd.concat([query[secret] for query in queries], ignore_index=True), numeric)
    attack_rate, control_rate, n_strata = _standardised_rates(
        right["attack"], right["control"], strata, confidence
    )
    return _finish(
        InferenceRisk,
        "inference_risk",
        right,
        n,
        confidence,
        secret=secret,
        aux_columns=tuple(aux_columns),
        tolerance=float(tolerance) if numeric else None,
        targets=targets,
        control_targets=control_targets,
        standardised=(attack_rate, control_rate),
        standardised_attack_rate=attack_rate[0],
        standardised_control_rate=control_rate[0],
        n_strata=n_strata,
    )
