"""A differential-privacy claim put to the test: empirical lower bounds on epsilon.

A release labelled "(epsilon, delta)-differentially private" promises that no membership test does
better than the bound of :func:`privlib.dp.max_attack_auc`. Turned around, membership evidence
gives a *lower* bound on the epsilon the generator actually spent: a bound above the claim
contradicts it (an implementation or accounting error, as Annamalai, Ganev and De Cristofaro 2024
found in released DP synthesizers); a bound below it does not prove the claim, since one release
and no-box attacks see little of what the guarantee covers.

One release: :func:`epsilon_lower_bound`
----------------------------------------
The one-run audit of Steinke, Nasr and Jagielski (2023). The pool (training and holdout records
together) is assumed to have been split at random, each record joining the training data
independently of the others with probability ``q`` (their setting has ``q = 1/2``). An attacker
looks at the release and, for ``r`` records of the pool, guesses "member" or "non-member",
abstaining on the rest. If the generator is ``epsilon``-DP, then, given the release and the labels
of the records guessed before, a "member" guess is right with probability at most
``p_in = q e**eps / (q e**eps + 1 - q)`` and a "non-member" guess with probability at most
``p_out = (1 - q) e**eps / ((1 - q) e**eps + q)`` (Bayes' rule: DP bounds the likelihood ratio of
the release by ``e**eps``). So the number of correct guesses is stochastically dominated by
``Binomial(k_in, p_in) + Binomial(k_out, p_out)`` (their main theorem for ``q = 1/2``, where both
are ``Binomial(r, e**eps / (1 + e**eps))``). The bound at confidence ``1 - alpha`` is the largest
``eps`` that the observed count ``c`` rejects: ``P[dominating count >= c] <= alpha``. This tail
grows with ``eps`` (each binomial is stochastically increasing in its probability), so the set of
rejected values is an interval ``[0, L)``, found by bisection, and
``P(L > true eps) <= P(reject the true eps) <= alpha``: the bound is valid.

With ``delta > 0`` the tail ``f(v)`` becomes ``f(v) + 2 m delta max_i (f(v - i) - f(v)) / i``
over ``i = 1..m`` for ``m`` randomised records (their theorem for ``delta > 0``), proved for a fair split only, so
a ``delta > 0`` claim needs training and holdout of equal size.

*Choosing the guesses without peeking.* Which attack, and where its "member" and "non-member"
thresholds lie (the score of the ``k``-th highest and lowest record, ``k`` a share of the records
from a fixed grid), are chosen on a seeded random quarter of the pool, with its labels; the
guesses are counted on the other three quarters (:data:`SELECTION_SHARE`). Why the bound stays
valid: the quarters are drawn without looking at any label, and every score of
:func:`privlib.attacks.ensemble_scores` is a function of the pool and the release, never of the
labels. Given the selection quarter's labels, the counting records' labels are still independent
coins with probability ``q``, and the choice is fixed; so the counting records face a guesser that
is a post-processing of the release. For ``delta = 0``: given the release ``Y`` and the labels of
the counting records taken before record ``i`` (in a fixed order), the likelihood ratio of ``Y``
between ``i`` in and ``i`` out is an average, over the other labels (independent of ``i``'s), of
ratios within ``[e**-eps, e**eps]``, so ``i``'s posterior odds are within ``e**eps`` of ``q / (1 -
q)``. Each guess, a function of ``Y``, is then right with probability at most ``p_in`` (or
``p_out``) given the earlier ones, and conditionally on ``Y`` the count of right guesses is
dominated by the binomial sum at the realised numbers of guesses, which may therefore depend on
``Y``: the counting records above the chosen threshold are guessed "member". For ``delta > 0``
the theorem needs a number of guesses fixed in advance, so the counting records guessed are the
``k`` highest (lowest) in number, ``k`` the chosen share of them, ties in a seeded random order.

*The assumption.* A custodian who kept a holdout usually drew a fixed number of records, not
independent coins; for a large pool the two differ by conditioning on the total, and the bound
treats them as the same. The audit states the assumption; with a split that was not random (e.g.
the holdout a later year) the bound means nothing.

Refits: :func:`refit_epsilon_bound`
-----------------------------------
When the generator is refitted with and without a target (the shadow models of
:func:`privlib.targeted.shadow_model_attack`), each refit is an independent trial of the test
"the target was in". DP bounds any test's rates by ``TPR <= e**eps FPR + delta`` (Kairouz, Oh and
Viswanath 2015), so with Clopper-Pearson limits ``eps >= ln((TPR_low - delta) / FPR_high)``
(Jagielski, Ullman and Oprea 2020). The two-sided intervals at ``confidence`` have a tail of
``(1 - confidence) / 2`` each, so both limits hold together with probability at least
``confidence`` (union bound).

References
----------
Steinke T, Nasr M, Jagielski M. Privacy auditing with one (1) training run. NeurIPS 2023.

Jagielski M, Ullman J, Oprea A. Auditing differentially private machine learning: how private is
private SGD? NeurIPS 2020.

Kairouz P, Oh S, Viswanath P. The composition theorem for differential privacy. ICML 2015.

Annamalai MSMS, Ganev G, De Cristofaro E. "What do you want from theory alone?" Experimenting
with tight auditing of differentially private synthetic data generation. USENIX Security 2024.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special

from privlib.attacks import ensemble_scores
from privlib.dp import MAX_EPSILON
from privlib.errors import PrivlibError
from privlib.records import clopper_pearson
from privlib.results import Result, _fmt
from privlib.uncertainty import DEFAULT_CONFIDENCE
from privlib.validation import CLIENT, CONFIDENCE, Integer, Number, RandomState, Table, validate_params

__all__ = [
    "GUESS_SHARES",
    "NON_MEMBER_SHARES",
    "SELECTION_SHARE",
    "EpsilonLowerBound",
    "binomial_epsilon_bound",
    "epsilon_lower_bound",
    "refit_epsilon_bound",
]

#: Shares of the records guessed "member" (the highest scores): the grid the selection chooses
#: the "member" threshold from.
GUESS_SHARES = (0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2)

#: Shares guessed "non-member" (the lowest scores); 0: the attacker guesses members only.
NON_MEMBER_SHARES = (0.0, 0.01, 0.05, 0.2)

#: Share of the pool's records that choose the attack and its thresholds; the rest are counted.
#: A quarter: the count keeps most of the records, whose number caps the bound (with ``r`` guesses
#: all right the bound is ``ln(p / (1 - p))`` for ``p = alpha**(1 / r)``).
SELECTION_SHARE = 0.25

#: Bisection steps on epsilon in [0, MAX_EPSILON]: 100 / 2**34 is below 1e-8.
_BISECTIONS = 34

#: The assumption every bound of one release rests on, as the reading names it.
RANDOM_SPLIT = "the training records are a random split of the pool (training and holdout)"


# --------------------------------------------------------------------------------------------
# The binomial bound (pure functions over counts)
# --------------------------------------------------------------------------------------------
def _dominating_tail(epsilon: float, k_in: int, k_out: int, share: float) -> np.ndarray:
    """``P[count >= v]`` for v = 0..k_in+k_out, the count ``Binomial(k_in, p_in) +
    Binomial(k_out, p_out)`` at ``epsilon`` (module documentation)."""
    logit = math.log(share) - math.log1p(-share)
    p_in, p_out = special.expit(epsilon + logit), special.expit(epsilon - logit)
    pmf = np.convolve(_binomial_pmf(k_in, p_in), _binomial_pmf(k_out, p_out))
    tail = np.clip(np.cumsum(pmf[::-1])[::-1], 0.0, 1.0)
    tail[0] = 1.0
    return np.append(tail, 0.0)  # P[count >= r + 1] = 0


def _binomial_pmf(trials: int, p: float) -> np.ndarray:
    """The probabilities of ``Binomial(trials, p)`` at 0..trials, exactly (in logs, as
    scipy.stats.binom.pmf computes them, without its per-call overhead)."""
    k = np.arange(trials + 1)
    log_pmf = (
        special.gammaln(trials + 1)
        - special.gammaln(k + 1)
        - special.gammaln(trials - k + 1)
        + special.xlogy(k, p)
        + special.xlog1py(trials - k, -p)
    )
    return np.exp(log_pmf)


def _tail_with_delta(tail: np.ndarray, correct: int, delta: float, randomised: int) -> float:
    """Steinke, Nasr and Jagielski's tail with ``delta``: ``f(c) + 2 m delta max_i (f(c - i) -
    f(c)) / i``."""
    f = float(tail[correct])
    if delta == 0:
        return f
    steps = np.arange(1, randomised + 1)
    earlier = tail[np.maximum(correct - steps, 0)]
    return f + 2 * randomised * delta * float(np.max((earlier - f) / steps))


@validate_params(
    {
        "correct": [Integer(low=0)],
        "guessed_members": [Integer(low=0)],
        "guessed_nonmembers": [Integer(low=0)],
        "member_share": [Number(low=0, high=1, closed="neither")],
        "delta": [Number(low=0, high=1, closed="left")],
        "randomised": [Integer(low=0), None],
        "confidence": [CONFIDENCE],
    }
)
def binomial_epsilon_bound(
    correct,
    guessed_members,
    guessed_nonmembers=0,
    *,
    member_share=0.5,
    delta=0.0,
    randomised=None,
    confidence=DEFAULT_CONFIDENCE,
) -> float:
    """The largest epsilon that ``correct`` right guesses out of ``guessed_members`` "member" and
    ``guessed_nonmembers`` "non-member" guesses reject at ``confidence`` (module documentation).

    ``member_share`` is the split's probability ``q`` that a record joined the training data;
    ``randomised`` the number ``m`` of records split at random (for ``delta``'s term; by default
    the guesses). 0 when no epsilon is rejected (no guesses, or too few right), at most
    :data:`privlib.dp.MAX_EPSILON`.

    Examples
    --------
    >>> round(binomial_epsilon_bound(10, 10), 3)  # 10 of 10 right: p**10 = 0.05 at p = 0.7411
    1.052
    >>> binomial_epsilon_bound(0, 0)
    0.0
    """
    guesses = guessed_members + guessed_nonmembers
    if correct > guesses:
        raise PrivlibError(f"`correct` ({correct}) cannot exceed the {guesses} guesses made.")
    randomised = guesses if randomised is None else randomised
    if randomised < guesses:
        raise PrivlibError(f"`randomised` ({randomised}) cannot be fewer than the {guesses} guesses.")
    if delta > 0 and member_share != 0.5:
        raise PrivlibError(
            "a delta > 0 claim is tested for a fair split only (training and holdout of equal size); "
            "test the claim with delta = 0 or give a holdout as large as the training data."
        )
    return _bound(correct, guessed_members, guessed_nonmembers, member_share, delta, randomised, confidence)


def _bound(correct, k_in, k_out, share, delta, randomised, confidence, floor=0.0) -> float:
    """:func:`binomial_epsilon_bound` on checked counts; 0 when ``floor`` is not rejected."""

    def rejected(epsilon: float) -> bool:
        tail = _dominating_tail(epsilon, k_in, k_out, share)
        return _tail_with_delta(tail, correct, delta, randomised) <= 1 - confidence

    if correct == 0 or not rejected(floor):
        return 0.0
    if rejected(MAX_EPSILON):
        return MAX_EPSILON
    return _bisect(rejected, floor, MAX_EPSILON)


def _bisect(rejected: Callable[[float], bool], low: float, high: float) -> float:
    """The boundary between ``low`` (rejected) and ``high`` (not), from below."""
    for _ in range(_BISECTIONS):
        middle = (low + high) / 2
        if rejected(middle):
            low = middle
        else:
            high = middle
    return low


@validate_params(
    {
        "true_positives": [Integer(low=0)],
        "positives": [Integer(low=1)],
        "false_positives": [Integer(low=0)],
        "negatives": [Integer(low=1)],
        "delta": [Number(low=0, high=1, closed="left")],
        "confidence": [CONFIDENCE],
    }
)
def refit_epsilon_bound(
    true_positives, positives, false_positives, negatives, *, delta=0.0, confidence=DEFAULT_CONFIDENCE
) -> float:
    """``ln((TPR_low - delta) / FPR_high)`` over independent refits, with Clopper-Pearson limits;
    0 when the numerator is not positive (Jagielski, Ullman and Oprea 2020; module documentation).

    Examples
    --------
    >>> round(refit_epsilon_bound(50, 50, 0, 50), 3)  # TPR_low 0.9289, FPR_high 0.0711
    2.57
    >>> refit_epsilon_bound(25, 50, 25, 50)
    0.0
    """
    if true_positives > positives or false_positives > negatives:
        raise PrivlibError("a count of called trials cannot exceed its number of trials.")
    tpr_low, _ = clopper_pearson(true_positives, positives, confidence=confidence)
    _, fpr_high = clopper_pearson(false_positives, negatives, confidence=confidence)
    if tpr_low - delta <= fpr_high:
        return 0.0
    return float(math.log((tpr_low - delta) / fpr_high))


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class EpsilonLowerBound(Result):
    """An empirical lower bound on epsilon, read against a claimed epsilon.

    ``value`` is the bound, valid at ``confidence`` under ``assumption``; ``baseline`` the claimed
    epsilon. ``attack``, ``member_guess_share`` and ``nonmember_guess_share`` are what the
    selection quarter chose; ``guesses`` and ``correct`` the counts on the ``records_counted``
    other records.
    """

    measure: str = "dp_epsilon_lower_bound"
    claimed_delta: float = 0.0
    assumption: str = RANDOM_SPLIT
    attack: str = ""
    member_guess_share: float = 0.0
    nonmember_guess_share: float = 0.0
    records_counted: int = 0
    guesses: int = 0
    correct: int = 0

    @property
    def contradicts_claim(self) -> bool:
        """Whether the bound lies above the claimed epsilon."""
        return self.baseline is not None and self.value > self.baseline

    def reading(self) -> str:
        claim = _fmt(self.baseline) if self.baseline is not None else "?"
        found = (
            f"{self.correct} of {self.guesses} guesses right on {self.records_counted} records "
            f"({self.attack})"
            if self.guesses
            else f"no guess made on {self.records_counted} records"
        )
        if self.contradicts_claim:
            verdict = f"contradicts the claim (lower bound {_fmt(self.value)} > {claim})"
        else:
            verdict = f"consistent with the claim (lower bound {_fmt(self.value)} <= {claim})"
        return self.with_judgement(
            f"Epsilon = {claim}, delta = {_fmt(self.claimed_delta)}: {verdict}, at "
            f"{self.confidence:.0%} confidence, from {found}; assumes {self.assumption}. "
            "One release and no-box attacks give a weak bound: a bound below the claim does "
            "not prove the claim."
        )


# --------------------------------------------------------------------------------------------
# One release
# --------------------------------------------------------------------------------------------
def _thresholds(scores: np.ndarray, share_in: float, share_out: float) -> tuple[float, float]:
    """The scores of the ``k``-th highest and ``k``-th lowest records, ``k`` the shares of the
    records (at least one "member" guess; no "non-member" guess when ``share_out`` is 0)."""
    ranked = np.sort(scores)
    k_in = max(1, round(share_in * scores.size))
    k_out = round(share_out * scores.size)
    return float(ranked[-k_in]), float(ranked[k_out - 1]) if k_out else -math.inf


def _called(scores: np.ndarray, high: float, low: float) -> tuple[np.ndarray, np.ndarray]:
    """Records guessed member (score at least ``high``) and non-member (at most ``low``, below
    ``high``)."""
    called_in = scores >= high
    return called_in, (scores <= low) & ~called_in


def _ranked(scores: np.ndarray, share_in: float, share_out: float, order: np.ndarray):
    """The ``k`` highest and ``k`` lowest records in number (``k`` the shares), ties broken by the
    seeded random ``order``: a number of guesses fixed in advance (``delta > 0``)."""
    size = scores.size
    k_in = max(1, round(share_in * size))
    k_out = min(round(share_out * size), size - k_in)
    ranked = order[np.argsort(-scores[order], kind="stable")]
    called_in, called_out = np.zeros(size, bool), np.zeros(size, bool)
    called_in[ranked[:k_in]] = True
    called_out[ranked[size - k_out :]] = True
    return called_in, called_out


def _tally(is_member: np.ndarray, called: tuple[np.ndarray, np.ndarray]) -> tuple[int, int, int]:
    """Guesses "member", guesses "non-member" and right guesses."""
    called_in, called_out = called
    correct = int((is_member & called_in).sum() + (~is_member & called_out).sum())
    return int(called_in.sum()), int(called_out.sum()), correct


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "claimed_epsilon": [Number(low=0, high=MAX_EPSILON)],
        "claimed_delta": [Number(low=0, high=1, closed="left")],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
        "client": [CLIENT, None],
    }
)
def epsilon_lower_bound(
    *,
    train,
    holdout,
    synthetic,
    claimed_epsilon,
    claimed_delta=0.0,
    confidence=DEFAULT_CONFIDENCE,
    random_state=None,
    client=None,
) -> EpsilonLowerBound:
    """An empirical lower bound on the epsilon of the generator of ``synthetic``, read against
    the claim ``(claimed_epsilon, claimed_delta)`` (the one-run audit of Steinke, Nasr and
    Jagielski 2023; module documentation).

    The scores are those of the attack ensemble (:func:`privlib.attacks.ensemble_scores`, seeded
    by ``random_state``): the attack and its thresholds are chosen on a seeded quarter of the
    training and holdout records, and the right guesses counted on the other records.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(400)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(400)]})
    >>> copied = epsilon_lower_bound(train=train, holdout=holdout, synthetic=train,
    ...                              claimed_epsilon=1.0, random_state=0)
    >>> copied.contradicts_claim
    True
    """
    n_train, n_holdout = len(train), len(holdout)
    q = n_train / (n_train + n_holdout)
    if claimed_delta > 0 and n_train != n_holdout:
        raise PrivlibError(
            "a delta > 0 claim is tested for a fair split only: give a holdout as large as the "
            f"training data (got {n_train} training and {n_holdout} holdout records), or test delta = 0."
        )
    rng = np.random.default_rng(random_state)
    scores = ensemble_scores(
        train=train, holdout=holdout, synthetic=synthetic, random_state=rng, client=client
    )
    members, others = next(iter(scores.values()))
    is_member = np.repeat([True, False], [members.size, others.size])
    shuffled = rng.permutation(is_member.size)
    cut = round(SELECTION_SHARE * is_member.size)
    selection, counting = shuffled[:cut], shuffled[cut:]
    pooled = {name: np.concatenate(pair) for name, pair in scores.items()}
    # each choice is scored by the bound its counts would give at the counting records' size, so
    # that a few sure guesses are not passed over for many weaker ones the count would not repeat
    scale = counting.size / max(selection.size, 1)
    best = (-1.0, "", 0.0, 0.0)
    for name, score in pooled.items():
        for share_in in GUESS_SHARES:
            for share_out in NON_MEMBER_SHARES:
                chosen = score[selection]
                called = _called(chosen, *_thresholds(chosen, share_in, share_out))
                k_in, k_out, correct = (
                    round(count * scale) for count in _tally(is_member[selection], called)
                )
                # a choice that cannot beat the best so far is not bisected
                bound = _bound(
                    min(correct, k_in + k_out),
                    k_in,
                    k_out,
                    q,
                    0.0,
                    k_in + k_out,
                    confidence,
                    floor=max(best[0], 0),
                )
                if bound > best[0]:
                    best = (bound, name, share_in, share_out)
    _, attack, share_in, share_out = best
    counted = pooled[attack][counting]
    if claimed_delta == 0:
        called = _called(counted, *_thresholds(pooled[attack][selection], share_in, share_out))
    else:
        called = _ranked(counted, share_in, share_out, rng.permutation(counting.size))
    k_in, k_out, correct = _tally(is_member[counting], called)
    bound = binomial_epsilon_bound(
        correct,
        k_in,
        k_out,
        member_share=q,
        delta=claimed_delta,
        randomised=counting.size,
        confidence=confidence,
    )
    return EpsilonLowerBound(
        value=bound,
        confidence=confidence,
        baseline=float(claimed_epsilon),
        claimed_delta=float(claimed_delta),
        attack=attack,
        member_guess_share=share_in,
        nonmember_guess_share=share_out,
        records_counted=int(counting.size),
        guesses=k_in + k_out,
        correct=correct,
    )
