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
two rates at one mix of the secret's values (:func:`privlib.attribute.inference`).

The three attacks (:func:`privlib.identity.singling_out`, :func:`privlib.identity.linkability`,
:func:`privlib.attribute.inference`, one module each) share what this module holds: their
results' base classes, the rates, risk and verdict, the checks and encoding of the tables, and the
nearest-synthetic-record search of the last two. They follow the paper and anonymeter 1.1.0,
the authors' implementation; they run on the kit's own nearest-neighbour engine
(:mod:`privlib.neighbors`) and predicate evaluator, and differ from anonymeter where the
docstrings say so:

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
from dataclasses import dataclass
from numbers import Integral
from typing import cast

import numpy as np
import pandas as pd
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
    numeric_values,
)
from privlib.uncertainty import WILSON, wilson_interval

__all__ = ["CriterionRisk"]


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
class _TargetedRisk(CriterionRisk):
    """A risk whose attacks aim at chosen records: which training and control rows they were.

    Attributes
    ----------
    targets, control_targets : numpy.ndarray of int
        Row positions of the attacked training and control records.
    """

    targets: np.ndarray = per_record(default=None)
    control_targets: np.ndarray = per_record(default=None)


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
    check_frame(control, "holdout", allow_missing_columns=True)
    check_comparable(train, synthetic, ("train", "synthetic"), unseen="ignore")
    check_comparable(train, control, ("train", "holdout"), unseen="ignore")


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


#: ``ci_method`` of the risk when its rates are means of tie-averaged chances (normal intervals).
NORMAL = "normal"

#: Draws of the random tie-break that :func:`privlib.attribute.inference` averages each attack over: a target's
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
