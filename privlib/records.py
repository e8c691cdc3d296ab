"""Record-level evidence: a few certain disclosures, found without crying wolf.

The membership measures of :mod:`privlib.membership` average over records (an AUC, a share, an
accuracy), so a release that copies 20 of 2,000 training records moves them too little to see.
Three tools look at records instead, each an exact one-sided test with no practical margin,
because every record it finds is a disclosure:

* :func:`tpr_at_low_fpr` and :func:`low_fpr_points` - the true-positive rate of a membership
  attack at a false-positive rate of at most 0.1 % (and 1 %), the threshold chosen on the
  non-members (holdout records) only, as Carlini et al. (2022) ask: an attack that identifies a
  few members with certainty is a privacy failure even when its AUC is 0.5. They take the
  per-record scores an attack already computed (the distances of :func:`privlib.membership.nn_mia`,
  the density ratios of :func:`privlib.targeted.density_attack`, the classifier scores of
  :func:`privlib.targeted.shadow_model_attack`); nothing is searched again.
  :func:`nn_mia_low_fpr` is the audit's form (tables in, ``nn_mia``'s distances reused),
  :func:`operating_points` its table and :func:`privlib.plots.plot_roc_loglog` its figure.
* :func:`copy_test` - how many training records have a synthetic copy, against how many holdout
  records have one by chance (Fisher's exact test); the excess is the number of records at risk.
* :func:`family_tests` - Holm's step-down adjustment across the tests of one family, so that a
  family of several tests raises a false alarm no more often than one test would.

The tests
---------
*Low false-positive rate.* The attack calls a record a member when its score is above a
threshold. With ``n`` holdout records and a target rate ``alpha``, at most ``K = floor(alpha n)``
holdout records may be called, so the threshold is the (K+1)-th highest holdout score and a
record is called when its score is strictly above it (holdout records tied with the threshold
stay uncalled: the achieved rate can be below ``alpha``, and the result says how many were tied).
The number ``X`` of the ``m`` members called is then tested against what an attack that cannot
tell members from non-members gives: if the ``m + n`` scores are exchangeable, the members above
the (K+1)-th highest of ``n`` holdout scores follow the negative hypergeometric distribution
``P(X = x) = C(x + K, K) C(m - x + n - K - 1, n - K - 1) / C(m + n, n)`` (the number of
members drawn before the (K+1)-th holdout record, in a random order). Ties only lower ``X``, so
the test stays valid with them. The binomial test of ``X / m`` against the achieved rate
``K / n`` would not be: at 0.1 % of 2,000 holdout records the threshold rests on 3 records, and
with a two-sided 95 % Clopper-Pearson interval that test calls about 1 null release in 7 a risk.
Fewer than ``1 / alpha`` holdout records cannot show a rate of ``alpha`` at all (one false
positive is already more): then the point is not assessable.

*Copies.* A real record has a copy when some synthetic record holds the same value in every
categorical variable (missing equal to missing) and, in every numeric variable, a value within
``numeric_tolerance`` times that variable's range (over the training, holdout and synthetic data
together, the range of the Gower distance; dates in days). The default tolerance, 1 % of the
range, makes an age of 37 match 37 only (range 73) and catches a record whose continuous weight
was nudged. The counts of training and holdout records with a copy form a 2 x 2 table, tested by
Fisher's exact test, one-sided; the excess ``a - b n_train / n_holdout`` is the number of
records at risk, with Newcombe's hybrid score interval for the difference of the two shares
(Newcombe 1998, method 10) scaled to the training records.

Each result's ``value`` is the number read (the TPR, the excess count), its ``baseline`` the
largest value that an exact test at the result's ``confidence`` still puts down to chance, and
its ``p_value`` the test's: the registry's rule "risk when the value lies above the baseline"
(no margin, no interval; :mod:`privlib.thresholds`) is then exactly the test. The results are not
judged here.

References
----------
Carlini N, Chien S, Nasr M, Song S, Terzis A, Tramer F. Membership inference attacks from first
principles. IEEE S&P 2022.

Holm S. A simple sequentially rejective multiple test procedure. Scandinavian Journal of
Statistics 6(2), 1979.

Newcombe RG. Interval estimation for the difference between independent proportions: comparison
of eleven methods. Statistics in Medicine 17, 1998.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
from scipy.stats import beta, nhypergeom

# the copy test and what it shares with the detection limits, importable from here as before
from privlib.copies import DEFAULT_NUMERIC_TOLERANCE as DEFAULT_NUMERIC_TOLERANCE
from privlib.copies import NEWCOMBE as NEWCOMBE
from privlib.copies import _copy_numbers as _copy_numbers
from privlib.copies import _copy_parts as _copy_parts
from privlib.copies import _copy_widths as _copy_widths
from privlib.copies import _critical, _upper_tail
from privlib.copies import _fisher_excess as _fisher_excess
from privlib.copies import _has_copy as _has_copy
from privlib.copies import _newcombe as _newcombe
from privlib.errors import DataError, ParameterError
from privlib.identity.copy_test import CopyTest as CopyTest
from privlib.identity.copy_test import copy_test as copy_test
from privlib.matching import attack_distances, check_tables, query_samples, sample_size
from privlib.results import NOT_ASSESSABLE, QuerySampled, Result, per_record
from privlib.rules import LOW_FPRS, low_fpr_key
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import (
    CONFIDENCE,
    QUERY_SAMPLE,
    RELEASE,
    Instance,
    Integer,
    Number,
    Numbers,
    validate_params,
)

__all__ = [
    "CLOPPER_PEARSON",
    "NEWCOMBE",
    "DEFAULT_NUMERIC_TOLERANCE",
    "LOW_FPRS",
    "CopyTest",
    "FamilyTests",
    "LowFprPoint",
    "attack_scores",
    "clopper_pearson",
    "copy_test",
    "family_tests",
    "low_fpr_key",
    "low_fpr_points",
    "nn_mia_low_fpr",
    "operating_points",
    "tpr_at_low_fpr",
]

logger = logging.getLogger(__name__)

#: ``ci_method`` name of the exact binomial interval.
CLOPPER_PEARSON = "clopper-pearson"

#: Attack name, per result class of the kit, and how to read its member and non-member scores
#: (higher means "more likely a member").
_ATTACK_SCORES = {
    "NNMia": ("nn_mia", lambda r: (-r.dcr[r.is_member], -r.dcr[~r.is_member])),
    "DensityAttack": ("density_attack", lambda r: (r.score[r.is_member], r.score[~r.is_member])),
    "ShadowModelAttack": ("shadow_model", lambda r: (r.scores_in, r.scores_out)),
}


@validate_params(
    {"successes": [Integer(low=0)], "trials": [Integer(low=0)], "confidence": [CONFIDENCE]}, skip_nested=True
)
def clopper_pearson(successes: int, trials: int, *, confidence=DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Exact (Clopper-Pearson) interval of a proportion ``successes / trials``.

    Examples
    --------
    >>> [round(x, 4) for x in clopper_pearson(0, 10)]
    [0.0, 0.3085]
    """
    if successes > trials:
        raise ParameterError(f"`successes` ({successes}) cannot exceed `trials` ({trials}).")
    if trials == 0:
        return math.nan, math.nan
    tail = (1 - confidence) / 2
    low = 0.0 if successes == 0 else float(beta.ppf(tail, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - tail, successes + 1, trials - successes))
    return low, high


# --------------------------------------------------------------------------------------------
# Low false-positive operating points
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class LowFprPoint(QuerySampled):
    """An attack read at a false-positive rate of at most ``fpr_target`` (:func:`tpr_at_low_fpr`).

    ``value`` is the true-positive rate ``members_called / n_members``; ``ci_low``/``ci_high``
    its Clopper-Pearson interval (shown; the verdict is the exact test's); ``fpr`` the rate achieved on the holdout records
    (``nonmembers_called / n_nonmembers``, at most ``fpr_target``) with its interval;
    ``allowed_false`` the holdout records the target rate allows to be called, and
    ``tied_nonmembers`` the holdout records tied with the threshold score, left uncalled.
    ``p_value`` is the exact test that the attack finds more members than chance
    (module documentation), ``critical_count`` the fewest members that make it significant at
    ``1 - confidence``, and ``baseline = (critical_count - 1) / n_members`` the largest TPR put
    down to chance. ``excess_members`` is the members called beyond the achieved rate, the
    records at risk. The threshold score and the scores themselves are kept for figures and
    :func:`operating_points` only (``score_threshold``, ``member_scores``, ``nonmember_scores``;
    never in tables or JSON).
    """

    attack: str
    fpr_target: float
    n_members: int
    n_nonmembers: int
    members_called: int = 0
    nonmembers_called: int = 0
    allowed_false: int = 0
    tied_nonmembers: int = 0
    fpr: float = math.nan
    fpr_low: float = math.nan
    fpr_high: float = math.nan
    critical_count: int | None = None
    p_value: float = math.nan
    excess_members: int = 0
    score_threshold: float = per_record(default=math.nan)
    member_scores: np.ndarray = per_record(default=None)
    nonmember_scores: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        target = f"{100 * self.fpr_target:g}%"
        if self.verdict == NOT_ASSESSABLE or math.isnan(self.value):
            text = f"The {self.attack} attack cannot be read at a false-positive rate of {target}"
            sample = self._sample_text()
            return (
                self.with_judgement(f"{text}.{sample}")
                if self.judgement
                else f"{text}: {self.verdict_rule}.{sample}"
            )
        assert self.ci_low is not None and self.ci_high is not None  # every readable point has one
        text = (
            f"Called a member when its score beats all but {self.allowed_false} of "
            f"{self.n_nonmembers} holdout records (false-positive rate at most {target}, achieved "
            f"{100 * self.fpr:.2g}%), the {self.attack} attack finds {self.members_called} of "
            f"{self.n_members} training records: TPR {100 * self.value:.2g}% "
            f"({self.confidence:.0%} Clopper-Pearson interval {100 * self.ci_low:.2g}% to "
            f"{100 * self.ci_high:.2g}%). An attack that cannot tell members from non-members "
            f"finds {self.critical_count} or more with probability at most "
            f"{1 - self.confidence:.0%} (exact test, p = {self.p_value:.2g})"
        )
        if self.nonmembers_called < self.allowed_false:
            text += (
                f"; {self.tied_nonmembers} holdout records tie at the threshold score, so calling "
                f"them would exceed the rate and the attack works at {self.nonmembers_called} "
                "false positives instead"
            )
        return self.with_judgement(text + "." + self._sample_text())


@validate_params(
    {
        "fpr": [Number(low=0, high=1, closed="neither")],
        "confidence": [CONFIDENCE],
        "member_scores": [Numbers(scalar=False, finite=False)],
        "nonmember_scores": [Numbers(scalar=False, finite=False)],
        "attack": [Instance(str)],
    }
)
def tpr_at_low_fpr(
    *,
    member_scores,
    nonmember_scores,
    fpr=0.001,
    attack="attack",
    confidence=DEFAULT_CONFIDENCE,
) -> LowFprPoint:
    """True-positive rate of a membership attack at a false-positive rate of at most ``fpr``.

    The threshold is chosen on the non-members only (see the module documentation for the
    threshold, the ties and the exact test).

    Parameters
    ----------
    member_scores, nonmember_scores : array-like of float
        The attack's score of every member (training record) and non-member (holdout record);
        higher means "more likely a member" (for a distance, pass minus the distance).
        Infinite scores are allowed, NaN is not.
    fpr : float, default 0.001
        The false-positive rate not to exceed.
    attack : str, default "attack"
        Name of the attack, for the measure key (:func:`low_fpr_key`) and the reading.
    confidence : float, default 0.95
        Level of the Clopper-Pearson intervals; the test is one-sided at ``1 - confidence``.

    Returns
    -------
    LowFprPoint
        Unjudged; ``verdict`` is ``"not assessable"`` when there are fewer than ``1 / fpr``
        non-members.

    Examples
    --------
    >>> import numpy as np
    >>> holdout = np.arange(2000) / 2000.0           # scores of 2,000 non-members
    >>> members = np.r_[np.full(20, 5.0), holdout[:1980]]  # 20 members far above them all
    >>> point = tpr_at_low_fpr(member_scores=members, nonmember_scores=holdout, attack="demo")
    >>> point.measure, point.members_called, point.nonmembers_called, point.value > point.baseline
    ('demo_tpr_at_0.1pct', 20, 2, True)
    """
    confidence = check_confidence(confidence)
    members, nonmembers = (
        np.asarray(scores, dtype="float64").ravel() for scores in (member_scores, nonmember_scores)
    )
    m, n = members.size, nonmembers.size
    allowed = math.floor(fpr * n + 1e-9)
    rate = f"{100 * fpr:g}"  # as low_fpr_key writes it
    common = dict(
        measure=f"{attack}_tpr_at_{rate}pct",
        attack=attack,
        fpr_target=float(fpr),
        n_members=m,
        n_nonmembers=n,
        confidence=confidence,
        allowed_false=allowed,
        member_scores=members,
        nonmember_scores=nonmembers,
    )
    if allowed < 1:
        return LowFprPoint(
            value=math.nan,
            verdict=NOT_ASSESSABLE,
            **common,
            verdict_rule=f"{n} holdout records cannot show a false-positive rate of "
            f"{100 * fpr:g}%: it takes at least {math.ceil(1 / fpr - 1e-9)}, since one false "
            "positive among fewer is already a higher rate",
        )
    if allowed >= n:
        raise DataError(f"`fpr` = {fpr} allows calling every holdout record; ask for a low rate.")
    threshold = float(np.sort(nonmembers)[::-1][allowed])  # the (K+1)-th highest holdout score
    called = int(np.count_nonzero(members > threshold))
    false = int(np.count_nonzero(nonmembers > threshold))
    # Null distribution of the members called: negative hypergeometric (module documentation).
    tail = _upper_tail(nhypergeom.pmf(np.arange(m + 1), m + n, m, allowed + 1))
    critical = _critical(tail, 1 - confidence)
    tpr_low, tpr_high = clopper_pearson(called, m, confidence=confidence)
    fpr_low, fpr_high = clopper_pearson(false, n, confidence=confidence)
    return LowFprPoint(
        value=called / m,
        baseline=(critical - 1) / m,
        members_called=called,
        nonmembers_called=false,
        tied_nonmembers=int(np.count_nonzero(nonmembers == threshold)),
        ci_low=tpr_low,
        ci_high=tpr_high,
        ci_method=CLOPPER_PEARSON,
        fpr=false / n,
        fpr_low=fpr_low,
        fpr_high=fpr_high,
        critical_count=critical,
        p_value=float(tail[called]),
        excess_members=max(0, round(called - m * false / n)),
        score_threshold=threshold,
        **common,
    )


#: The result of one of the three attacks that keep per-record scores.
_ATTACK_RESULT = Instance(Result, description="the result of nn_mia, density_attack or shadow_model_attack")


@validate_params({"attack_result": [_ATTACK_RESULT]}, skip_nested=True)
def attack_scores(attack_result) -> tuple[str, np.ndarray, np.ndarray]:
    """The attack's name and its per-record scores of members and non-members (higher: more
    likely a member), read from the result of :func:`privlib.membership.nn_mia`,
    :func:`privlib.targeted.density_attack` or :func:`privlib.targeted.shadow_model_attack`.

    Examples
    --------
    >>> import pandas as pd
    >>> from privlib.membership import nn_mia
    >>> train, holdout = pd.DataFrame({"x": [0.0, 1.0]}), pd.DataFrame({"x": [0.5, 2.0]})
    >>> name, members, others = attack_scores(nn_mia(train=train, holdout=holdout, synthetic=train))
    >>> name, members.tolist(), others.tolist()
    ('nn_mia', [-0.0, -0.0], [-0.25, -0.5])
    """
    kind = type(attack_result).__name__
    if kind not in _ATTACK_SCORES:
        raise ParameterError(
            f"`attack_result` must be the result of nn_mia, density_attack or shadow_model_attack, "
            f"got {kind}; for other scores call tpr_at_low_fpr."
        )
    attack, read = _ATTACK_SCORES[kind]
    try:
        members, nonmembers = read(attack_result)
    except TypeError:  # a per-record array left out (None)
        raise ParameterError(f"this {kind} kept no per-record scores; run the attack again.") from None
    if members is None or nonmembers is None:
        raise ParameterError(f"this {kind} kept no per-record scores; run the attack again.")
    return attack, np.asarray(members, dtype="float64"), np.asarray(nonmembers, dtype="float64")


@validate_params(
    {
        "confidence": [CONFIDENCE, None],
        "attack_result": [_ATTACK_RESULT],
        "fprs": [Numbers(low=0, high=1, closed="neither", scalar=False)],
    }
)
def low_fpr_points(attack_result, *, fprs=LOW_FPRS, confidence=None) -> tuple[LowFprPoint, ...]:
    """The low false-positive operating points of a membership attack the kit has run.

    The per-record scores the attack kept are read again; no neighbour or density is computed.

    Parameters
    ----------
    attack_result : NNMia, DensityAttack or ShadowModelAttack
        The result of :func:`privlib.membership.nn_mia` (score: minus the distance to the nearest
        synthetic record, which is also the threshold attack's), of
        :func:`privlib.targeted.density_attack` (the log density ratio), or of
        :func:`privlib.targeted.shadow_model_attack` (the classifier's scores of the fresh
        shadow tables with and without a target, pooled over the targets: few, so its 0.1 % point
        is usually not assessable).
    fprs : sequence of float, default (0.001, 0.01)
        The false-positive rates to read.
    confidence : float, optional
        Level of the intervals and of the test; default the attack result's.

    Returns
    -------
    tuple of LowFprPoint
        One per rate, keys such as ``nn_mia_tpr_at_0.1pct`` (:func:`low_fpr_key`).

    Examples
    --------
    >>> import pandas as pd
    >>> from privlib.membership import nn_mia
    >>> train = pd.DataFrame({"x": [float(i) for i in range(1000)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(1000)]})
    >>> attack = nn_mia(train=train, holdout=holdout, synthetic=train, random_state=0)
    >>> [(p.measure, p.members_called) for p in low_fpr_points(attack)]
    [('nn_mia_tpr_at_0.1pct', 1000), ('nn_mia_tpr_at_1pct', 1000)]
    """
    attack, members, nonmembers = attack_scores(attack_result)
    confidence = attack_result.confidence if confidence is None else confidence
    return tuple(
        tpr_at_low_fpr(
            member_scores=members, nonmember_scores=nonmembers, fpr=rate, attack=attack, confidence=confidence
        )
        for rate in fprs
    )


@validate_params(
    {
        "point": [Instance(LowFprPoint, description="the result of tpr_at_low_fpr")],
        "fprs": [Numbers(low=0, high=1, closed="neither", scalar=False)],
    },
    skip_nested=True,
)
def operating_points(point: LowFprPoint, *, fprs=LOW_FPRS) -> pd.DataFrame:
    """The attack of ``point`` read at each rate of ``fprs``, as a table of counts and rates.

    One row per rate: holdout records allowed and called, members called, the TPR and its
    Clopper-Pearson interval, and the exact test's p-value (aggregates only, for a report).

    Examples
    --------
    >>> import numpy as np
    >>> point = tpr_at_low_fpr(member_scores=np.r_[np.full(20, 9.0), np.zeros(1980)],
    ...                        nonmember_scores=np.linspace(-1, 1, 2000))
    >>> operating_points(point)["members called"].tolist()
    [20, 20]
    """
    if point.member_scores is None or point.nonmember_scores is None:
        raise ParameterError("this result kept no scores; compute it with tpr_at_low_fpr.")
    rows = []
    for rate in fprs:
        other = tpr_at_low_fpr(
            member_scores=point.member_scores,
            nonmember_scores=point.nonmember_scores,
            fpr=rate,
            attack=point.attack,
            confidence=point.confidence,
        )
        rows.append(
            {
                "false-positive rate at most": f"{100 * rate:g}%",
                "holdout records allowed": other.allowed_false,
                "holdout records called": other.nonmembers_called
                if other.verdict != NOT_ASSESSABLE
                else None,
                "members called": other.members_called if other.verdict != NOT_ASSESSABLE else None,
                "TPR": other.value,
                "TPR low": other.ci_low,
                "TPR high": other.ci_high,
                "p-value": other.p_value,
            }
        )
    return pd.DataFrame(rows)


@validate_params(RELEASE | QUERY_SAMPLE | {"fpr": [Number(low=0, high=1, closed="neither")]})
def nn_mia_low_fpr(
    *,
    train,
    holdout,
    synthetic,
    fpr=0.001,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
    random_state=None,
    max_queries=None,
) -> LowFprPoint:
    """The distance attack of :func:`privlib.membership.nn_mia` read at a false-positive rate of at
    most ``fpr`` (:func:`tpr_at_low_fpr`), for the audit, which passes tables.

    The score is minus each record's Gower distance to the nearest synthetic record, the score of
    ``nn_mia`` and of the distance-threshold attack. Inside
    :func:`privlib.search_reuse.reuse_searches`, as in an audit, the searches of an earlier
    ``nn_mia`` or threshold attack on the same tables are reused, so no neighbour is searched
    again.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        Training data, real records the generator never saw, synthetic data.
    fpr : float, default 0.001
    confidence : float, default 0.95
    client : dask.distributed.Client, optional
        Run a neighbour search that is needed on this Dask cluster.
    random_state : int, numpy.random.Generator or None
        Seed of the samples of training and holdout records (only drawn beyond ``max_queries``);
        with the seed of ``nn_mia`` the same records are read.
    max_queries : int, optional
        Most training and most holdout records scored: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`), each searched among every synthetic record.
        ``None``: every record.

    Returns
    -------
    LowFprPoint
        Key ``nn_mia_tpr_at_0.1pct`` for the default rate; unjudged.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(1000)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(1000)]})
    >>> point = nn_mia_low_fpr(train=train, holdout=holdout, synthetic=train)
    >>> point.measure, point.members_called, point.nonmembers_called
    ('nn_mia_tpr_at_0.1pct', 1000, 0)
    """
    check_tables(train=train, holdout=holdout, synthetic=synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    dcr, is_member = attack_distances(
        train, holdout, synthetic, client=client, rows=(rows["train"], rows["holdout"])
    )
    point = tpr_at_low_fpr(
        member_scores=-dcr[is_member],
        nonmember_scores=-dcr[~is_member],
        fpr=fpr,
        attack="nn_mia",
        confidence=confidence,
    )
    return replace(point, sample_size=sample_size(*rows.values()))


# --------------------------------------------------------------------------------------------
# Multiple testing
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class FamilyTests:
    """Holm's adjustment of one family's tests (:func:`family_tests`).

    ``p_values`` and ``adjusted`` map each test's key to its p-value and Holm-adjusted p-value;
    ``significant`` says which are below ``1 - confidence`` after adjustment; ``skipped`` lists the
    keys without a p-value (not assessable), left out of the count of tests; ``weights`` each
    test's share of the family's error rate (equal unless weights were given).
    """

    confidence: float
    p_values: dict = field(default_factory=dict)
    adjusted: dict = field(default_factory=dict)
    significant: dict = field(default_factory=dict)
    skipped: tuple = ()
    weights: dict = field(default_factory=dict)

    @property
    def any_significant(self) -> bool:
        return any(self.significant.values())

    def rule(self) -> str:
        """The rule in words, for a report's rules section."""
        shares = set(self.weights.values())
        weighted = "" if len(shares) <= 1 else ", weighted by each test's share of the error rate"
        return (
            f"Holm's step-down adjustment across the family's {len(self.p_values)} exact tests"
            f"{weighted}: "
            f"a test counts as a risk when its adjusted p-value is at most {1 - self.confidence:.3g}, "
            f"so the family raises a false alarm with probability at most "
            f"{1 - self.confidence:.0%} whatever the tests' dependence (Holm 1979)."
        )


@validate_params(
    {
        "tests": [
            Instance(Mapping, list, tuple, description="a mapping of keys to p-values or a list of results")
        ],
        "confidence": [CONFIDENCE],
        "weights": [Instance(Mapping, description="a mapping of keys to weights"), None],
    },
    skip_nested=True,
)
def family_tests(tests, *, confidence=DEFAULT_CONFIDENCE, weights=None) -> FamilyTests:
    """Holm's step-down adjustment of the p-values of one family's tests.

    Holm (1979): sort the ``k`` p-values, multiply the i-th smallest by ``k - i + 1``, carry the
    running maximum forward and cap at 1; a test is significant when its adjusted p-value is at
    most ``1 - confidence``. The family-wise false-positive rate is at most ``1 - confidence``
    under any dependence between the tests, and each test's own p-value stays visible.

    With ``weights`` (Holm's weighted version, same paper), test ``i`` gets the share ``w_i`` of
    the error rate: at each step the remaining test with the smallest ``p_i / w_i`` is adjusted to
    ``p_i`` times the remaining tests' total weight over ``w_i``. Equal weights give the plain
    procedure; the guarantee is the same for any weights fixed before the data are seen.

    Parameters
    ----------
    tests : mapping of str to float, or iterable of results
        Key to p-value, or results with a ``p_value`` (keyed by their ``measure``). A missing or
        NaN p-value (a test not assessable) is skipped.
    confidence : float, default 0.95
    weights : mapping of str to float, optional
        Each test's positive weight (its share of the error rate, up to a common factor); a test
        missing from it weighs 1.

    Returns
    -------
    FamilyTests

    Examples
    --------
    >>> family = family_tests({"a": 0.01, "b": 0.04, "c": 0.03})
    >>> family.adjusted, family.significant
    ({'a': 0.03, 'b': 0.06, 'c': 0.06}, {'a': True, 'b': False, 'c': False})
    >>> family_tests({"a": 0.01, "b": 0.04, "c": 0.03}, weights={"a": 2}).adjusted
    {'a': 0.02, 'b': 0.06, 'c': 0.06}
    """
    confidence = float(confidence)
    if isinstance(tests, Mapping):
        items = list(tests.items())
    else:
        items = [(r.measure, getattr(r, "p_value", None)) for r in tests]
    keys = [k for k, _ in items]
    if len(set(keys)) < len(keys):
        raise ParameterError("`tests` names a test more than once; give each test one key.")
    present = {k: float(p) for k, p in items if p is not None and not math.isnan(float(p))}
    for key, p in present.items():
        if not 0 <= p <= 1:
            raise ParameterError(f"the p-value of {key!r} must lie between 0 and 1, got {p!r}.")
    weight = {k: float((weights or {}).get(k, 1.0)) for k in present}
    if not all(math.isfinite(w) and w > 0 for w in weight.values()):
        raise ParameterError("every weight of `weights` must be a positive number.")
    order = sorted(present, key=lambda k: present[k] / weight[k])
    remaining = math.fsum(weight.values())
    adjusted, running = {}, 0.0
    for key in order:
        running = max(running, min(1.0, present[key] * remaining / weight[key]))
        adjusted[key] = running
        remaining -= weight[key]
    level = 1 - confidence
    return FamilyTests(
        confidence=confidence,
        p_values=present,
        adjusted={k: adjusted[k] for k in present},
        significant={k: adjusted[k] <= level + 1e-12 for k in present},
        skipped=tuple(k for k in keys if k not in present),
        weights=weight,
    )
