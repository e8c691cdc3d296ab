"""Planting leaked records into a release, and the record-level tests re-read on it.

The machinery of :mod:`privlib.audit.detection_limits`: the leaks' planted records (each draw one
seeded sequence, prepared in pieces), the release's state before planting (computed once), and the
copy, rare-copy, distance-attack, near-copy and rare-key attribution tests re-read on a planted
release by updating that state with the planted records only.

Adding records can only bring a real record's nearest synthetic record closer: its new distance
is the smaller of the old one, computed once, and its distance to the nearest planted record
(:func:`nearest_planted`, the engine's Gower terms in bounded blocks; a record already at distance
0 is not searched), and a draw's larger leak is updated from its smaller one by the records added
between them. A real record copied before stays copied, and one that was not is copied when a
planted record copies it. Planted values are training values, or moved within the training range,
so the variables' ranges, which scale the distances and the copy test's tolerance, do not change;
the rare records and the real records' distances to each other do not depend on the release at
all. So one draw costs a comparison of the real records with ``M`` planted records, not an audit;
``tests/test_detection_limits.py`` checks that every distance and p-value equals that of the test
run on the planted release, bit for bit.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np
import pandas as pd
from numba import njit
from scipy.stats import hypergeom, nhypergeom

from privlib.attacks import (
    N_NEIGHBOURS,
    _attack_rows,
    _log_ratio,
    _neighbourhoods,
)
from privlib.errors import PrivlibError
from privlib.matching import (
    comparable_values,
    count_matches,
    gower_setup,
    joint_codes,
    query_samples,
    sampled,
)
from privlib.rare_attributions import certain_attributions
from privlib.rare_copies import rare_records
from privlib.records import (
    LOW_FPRS,
    _copy_numbers,
    _copy_parts,
    _copy_widths,
    _has_copy,
    _upper_tail,
    family_tests,
    low_fpr_key,
)
from privlib.schema import NUMERIC, TableEncoder, check_columns, infer_kinds, numeric_values
from privlib.search_reuse import shared_searches

__all__ = ["LEAKS", "nearest_planted", "planted_distances", "prepared_leaks", "seed_of"]

logger = logging.getLogger(__name__)

#: The leak kinds, in the order of the results.
LEAKS = ("verbatim", "rare copies", "near copies", "rare-key attributions")
#: Share of its training range by which a near copy's numeric value moves.
NEAR_MOVE = (0.01, 0.03)


# --------------------------------------------------------------------------------------------
# Incremental distances and copies
# --------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _nearest_kernel(query, rows, planted, weights, is_code, bound, out):  # pragma: no cover - compiled
    """Per query row of ``rows`` (``out`` and ``bound`` in their order), the smallest weighted sum of Gower terms to a planted row, the terms added in
    column order as the engine adds them; a sum is abandoned once above ``bound`` (the terms are
    never negative, so it could only grow), leaving ``inf`` where no planted row comes within it."""
    # one thread: a call compares a few thousand records with a few planted ones, and starting
    # threads for it costs more than it saves on a shared machine
    for r in range(rows.size):
        i = rows[r]
        best = np.inf
        for j in range(planted.shape[0]):
            total = 0.0
            for f in range(query.shape[1]):
                if is_code[f]:
                    total += weights[f] if query[i, f] != planted[j, f] else 0.0
                else:
                    gap = abs(query[i, f] - planted[j, f])
                    total += weights[f] * (gap if gap < 1.0 else 1.0)
                if total > bound[r]:
                    break
            if total <= bound[r] and total < best:
                best = total
        out[r] = best


def nearest_planted(
    query: np.ndarray,
    planted: np.ndarray,
    encoder,
    within: np.ndarray | None = None,
    rows: np.ndarray | None = None,
) -> np.ndarray:
    """Gower distance from each encoded ``query`` record to its nearest encoded ``planted`` record,
    ``inf`` where there is none (or none within ``within``, one bound per query record). With
    ``rows``, only the query records at these positions, in their order (``within`` one bound per
    row), without copying them.

    The terms are those of :func:`privlib.neighbors.kneighbors`, added in the same order
    (``sum_k w_k min(|a_k - b_k|, 1)``, a category adding ``w_k`` when it differs, then divided by
    the total weight), so the distances are the engine's, bit for bit; no pairwise matrix is held.

    Examples
    --------
    >>> from privlib.matching import gower_setup
    >>> real = pd.DataFrame({"x": [0.0, 5.0, 10.0]})
    >>> encoder = gower_setup(real, real, real)
    >>> nearest_planted(encoder.transform(real), encoder.transform(real.iloc[[2]]), encoder).tolist()
    [1.0, 0.5, 0.0]
    """
    scale = encoder.scale
    rows = np.arange(len(query)) if rows is None else np.asarray(rows, dtype=np.int64)
    # the bound in the kernel's units, widened so that rounding never drops a sum within it
    bound = np.full(rows.size, np.inf) if within is None else np.asarray(within, float) * scale * (1 + 1e-9)
    out = np.empty(rows.size)
    is_code = np.array([encoder.kinds_[c] != NUMERIC for c in encoder.columns_])
    _nearest_kernel(
        np.ascontiguousarray(query, dtype="float64"),
        rows,
        np.ascontiguousarray(planted, dtype="float64"),
        encoder.feature_weights,
        is_code,
        bound,
        out,
    )
    return out / scale


def planted_distances(query: pd.DataFrame, planted: pd.DataFrame, old: np.ndarray, encoder) -> np.ndarray:
    """Each query record's distance to its nearest synthetic record once ``planted`` is added to the
    release: the smaller of its ``old`` distance and its distance to the nearest planted record (a
    record already at distance 0 is not searched).

    Examples
    --------
    >>> from privlib.matching import gower_setup
    >>> real = pd.DataFrame({"x": [0.0, 5.0, 10.0]})
    >>> encoder = gower_setup(real, real, real)
    >>> planted_distances(real, real.iloc[[2]], np.array([0.3, 0.2, 0.4]), encoder).tolist()
    [0.3, 0.2, 0.0]
    """
    return _closer(encoder.transform(query), encoder.transform(planted), old, encoder)


def _closer(
    query: np.ndarray, planted: np.ndarray, old: np.ndarray, encoder, reachable: np.ndarray | None = None
) -> np.ndarray:
    """``old`` lowered to each query record's distance to its nearest planted record where that is
    smaller; only the records at distance above 0 (and, given, ``reachable``) are searched.

    When every variable is a category of positive weight, a distance is a sum of the weights of
    the variables that differ, so no record lies nearer than one differing variable of the least
    weight, except a twin (every value the same, distance 0): a record already that near is only
    matched for a planted twin, without the kernel (a record holding a missing code goes to the
    kernel, which never reads a missing code as the same)."""
    new = np.array(old, dtype="float64", copy=True)
    searched = new > 0 if reachable is None else (new > 0) & reachable
    if not searched.any() or not len(planted):
        return new
    weights = encoder.feature_weights
    if all(encoder.kinds_[c] != NUMERIC for c in encoder.columns_) and weights.min() > 0:
        nearest_other = float(weights.min()) / encoder.scale  # one differing variable, as the kernel adds it
        twin_only = np.flatnonzero(searched & (new <= nearest_other))
        twin_only = twin_only[~np.isnan(query[twin_only]).any(axis=1)]
        if twin_only.size:
            new[twin_only[np.isin(_row_keys(query[twin_only]), _row_keys(planted))]] = 0.0
            searched[twin_only] = False
    open_ = np.flatnonzero(searched)
    if open_.size:
        new[open_] = np.minimum(
            new[open_], nearest_planted(query, planted, encoder, within=new[open_], rows=open_)
        )
    return new


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """Each row of codes as one value, equal exactly where every code is (-0.0 made 0.0, so that
    equal codes have equal bytes)."""
    rows = np.ascontiguousarray(np.asarray(rows, dtype="float64") + 0.0)
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


# --------------------------------------------------------------------------------------------
# What the release gives before planting, computed once
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Release:
    """The state of the release before planting that the tests update (module documentation)."""

    train: pd.DataFrame
    holdout: pd.DataFrame
    synthetic: pd.DataFrame
    real: pd.DataFrame  # every training, then every holdout record
    encoder: TableEncoder
    scored: np.ndarray  # encoded: the training, then the holdout records the distance tests read
    n_scored_train: int
    scored_of_train: np.ndarray  # per training record, its row among the scored ones (-1: not read)
    to_synthetic: np.ndarray  # their nearest synthetic distance
    to_real: np.ndarray  # their nearest other real distance
    scale: float
    widths: dict
    copied: np.ndarray  # every training, then holdout record: has a synthetic copy
    rare_train: np.ndarray  # positions of the rare training / holdout records
    rare_holdout: np.ndarray


def _row_of(rows: np.ndarray | None, size: int) -> np.ndarray:
    """Per record of a table of ``size``, its place among the records read at ``rows`` (all when
    None), -1 for a record not read."""
    if rows is None:
        return np.arange(size)
    out = np.full(size, -1)
    out[rows] = np.arange(len(rows))
    return out


def _release_state(train, holdout, synthetic, *, numeric_tolerance, rare_share, random_state, max_queries):
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    hoods = _neighbourhoods(train, holdout, synthetic, 1, None, (rows["train"], rows["holdout"]))
    encoder = gower_setup(train, holdout, synthetic)
    scored = [
        encoder.transform(sampled(t, rows[role])) for t, role in ((train, "train"), (holdout, "holdout"))
    ]
    # the rare records as rare_copy_test draws them (its own sample beyond ATTACK_RECORDS)
    rng = np.random.default_rng(random_state)
    rare_rows = (_attack_rows(len(train), rng), _attack_rows(len(holdout), rng))
    rare_hoods = _neighbourhoods(train, holdout, synthetic, N_NEIGHBOURS, None, rare_rows)
    rare, _ = rare_records(rare_hoods.to_real, rare_share)
    n_rare_train = rare_hoods.n_train
    positions = [np.arange(len(t)) if r is None else r for t, r in zip((train, holdout), rare_rows)]
    widths = _copy_widths(train, holdout, synthetic, numeric_tolerance)
    return _Release(
        train=train,
        holdout=holdout,
        synthetic=synthetic,
        real=pd.concat([train, holdout], ignore_index=True),
        encoder=encoder,
        scored=np.vstack(scored),
        n_scored_train=hoods.n_train,
        scored_of_train=_row_of(rows["train"], len(train)),
        to_synthetic=hoods.to_synthetic[:, 0],
        to_real=hoods.to_real[:, 0],
        scale=hoods.scale,
        widths=widths,
        copied=np.concatenate(_has_copy([train, holdout], synthetic, widths)),
        rare_train=positions[0][rare[:n_rare_train]],
        rare_holdout=positions[1][rare[n_rare_train:]],
    )


# --------------------------------------------------------------------------------------------
# Planting
# --------------------------------------------------------------------------------------------
def _unique_on_keys(train: pd.DataFrame, holdout: pd.DataFrame, keys: Sequence[str]) -> np.ndarray:
    """Positions of the training records no other real record shares the keys of (the rare records
    of :func:`privlib.rare_attributions.rare_attribution_test` at its default class size)."""
    kinds = infer_kinds(train)
    codes = np.concatenate(
        joint_codes([[comparable_values(t[k], kinds[k]) for k in keys] for t in (train, holdout)])
    )
    return np.flatnonzero(np.bincount(codes)[codes[: len(train)]] == 1)


def _with_rows(base: pd.DataFrame, values: pd.DataFrame, columns) -> pd.DataFrame:
    """``base`` (reindexed) with ``columns`` taken from ``values``, row for row, each column keeping
    ``base``'s dtype."""
    out = base.reset_index(drop=True).copy()
    for column in columns:
        out[column] = pd.Series(values[column].to_numpy(), dtype=base[column].dtype)
    return out


def _nudged(copies: pd.DataFrame, train: pd.DataFrame, rngs: list, lengths: list[int]) -> pd.DataFrame:
    """Near copies: one value of each record changed (module documentation). ``copies`` holds
    pieces of ``lengths`` records one after the other, each changed by its own ``rngs`` generator
    (the same values as each piece changed alone)."""
    out = copies.reset_index(drop=True).copy()
    numeric = [
        c
        for c in out.columns
        if pd.api.types.is_numeric_dtype(out[c]) and not pd.api.types.is_bool_dtype(out[c])
    ]
    choices = numeric or [c for c in out.columns if train[c].nunique() > 1]
    if not choices:
        raise PrivlibError("no variable of the training data takes two values: a near copy cannot differ.")
    picks = [rng.integers(len(choices), size=n) for rng, n in zip(rngs, lengths)]
    pick = np.concatenate(picks)

    def drawn(position: int, draw: Callable) -> np.ndarray:
        """Each piece's draws for its records changed in variable ``position``, one after the other."""
        return np.concatenate([draw(rng, np.count_nonzero(p == position)) for rng, p in zip(rngs, picks)])

    for position, column in enumerate(choices):
        chosen = np.flatnonzero(pick == position)
        if not numeric:  # every variable categorical: one value replaced by another the training data holds
            labels = pd.unique(train[column].dropna())
            # an index among the other labels: drawn among len - 1, then shifted past the record's own
            own = pd.Index(labels).get_indexer(pd.Index(out[column].iloc[chosen]))
            other = drawn(position, partial(_other_labels, labels.size - 1))
            other += (own >= 0) & (other >= own)
            values = out[column].to_numpy(dtype=object, copy=True)
            values[chosen] = labels[other]
            out[column] = pd.Series(values, dtype=out[column].dtype)
            continue
        values = out[column].to_numpy(dtype="float64", copy=True)
        low, high = float(np.nanmin(train[column])), float(np.nanmax(train[column]))
        step = drawn(position, lambda rng, size: rng.uniform(*NEAR_MOVE, size=size)) * (high - low)
        start = values[chosen]
        values[chosen] = np.where(start + step <= high, start + step, start - step)
        if pd.api.types.is_integer_dtype(out[column]):
            values = np.round(values)
        out[column] = pd.Series(values, dtype=out[column].dtype)
    return out


def _other_labels(count: int, rng: np.random.Generator, size: int) -> np.ndarray:
    return rng.integers(count, size=size)


def _leak_records(leak: str, state: _Release, sources: list[np.ndarray], keys, sensitive, rngs: list):
    """The records ``leak`` plants from the training records at positions ``sources`` (pieces, one
    after the other), each piece drawing from its own of ``rngs``."""
    copies = state.train.iloc[np.concatenate(sources)]
    if leak == "near copies":
        return _nudged(copies, state.train, rngs, [len(s) for s in sources])
    if leak == "rare-key attributions":
        hosts = np.concatenate(
            [rng.integers(len(state.synthetic), size=len(s)) for rng, s in zip(rngs, sources)]
        )
        return _with_rows(state.synthetic.iloc[hosts], copies, [*keys, *sensitive])
    return copies.reset_index(drop=True)


#: Records of the first piece of a draw's planted sequence prepared at once; each next piece is
#: twice as long, so a draw asked only small sizes prepares few records and a large one few pieces.
FIRST_PIECE = 64


def _pieces(largest: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of the pieces of a sequence of ``largest`` records.

    Examples
    --------
    >>> _pieces(300)
    [(0, 64), (64, 192), (192, 300)]
    """
    out, start, length = [], 0, FIRST_PIECE
    while start < largest:
        out.append((start, min(start + length, largest)))
        start, length = start + length, 2 * length
    return out


# --------------------------------------------------------------------------------------------
# The tests on a planted release
# --------------------------------------------------------------------------------------------
#: Per (training, holdout, copied) counts, the lowest training count read so far and the raw sums
#: of Fisher's null probabilities from it up to all copied (:func:`_fisher_p`).
_FISHER_SUMS: dict[tuple[int, int, int], tuple[int, np.ndarray]] = {}
#: Most counts kept: a bisection reads a few hundred.
_MOST_FISHER_SUMS = 4096


def _fisher_p(a: int, n1: int, b: int, n2: int) -> float:
    """Fisher's one-sided p-value of ``a`` of ``n1`` training against ``b`` of ``n2`` holdout
    records, as the copy tests compute it (:func:`privlib.records.copy_test`: the probabilities of
    ``copied + 1`` counts summed from the top, in that order, clipped to [0, 1], 1 at 0).

    Only the counts from ``a`` up are needed, so they are computed from the top down as far as a
    call asks, and the sum carried on from there for a later, lower ``a`` with the same totals:
    the same additions in the same order, so the same value, bit for bit."""
    copied = a + b
    if a == 0:
        return 1.0
    low, sums = _FISHER_SUMS.get((n1, n2, copied), (copied + 1, np.empty(0)))
    if a < low:
        more = hypergeom.pmf(np.arange(low - 1, a - 1, -1), n1 + n2, n1, copied)
        carried = np.cumsum(np.concatenate([sums[:1], more]))[min(sums.size, 1) :]
        low, sums = a, np.concatenate([carried[::-1], sums])
        if len(_FISHER_SUMS) >= _MOST_FISHER_SUMS:
            _FISHER_SUMS.clear()
        _FISHER_SUMS[n1, n2, copied] = (low, sums)
    return float(np.clip(sums[a - low], 0.0, 1.0))


@lru_cache(maxsize=256)
def _called_tail(m: int, n: int, allowed: int) -> np.ndarray:
    """``P(X >= x)`` of the members an attack blind to membership calls, as
    :func:`privlib.records.tpr_at_low_fpr` computes it."""
    return _upper_tail(nhypergeom.pmf(np.arange(m + 1), m + n, m, allowed + 1))


def _low_fpr_p(members: np.ndarray, nonmembers: np.ndarray, fpr: float) -> float:
    """The p-value of :func:`privlib.records.tpr_at_low_fpr` (NaN when not assessable)."""
    allowed = math.floor(fpr * nonmembers.size + 1e-9)
    if allowed < 1:
        return math.nan
    threshold = np.partition(nonmembers, nonmembers.size - 1 - allowed)[nonmembers.size - 1 - allowed]
    called = int(np.count_nonzero(members > threshold))
    return float(_called_tail(members.size, nonmembers.size, allowed)[called])


@lru_cache(maxsize=4096)
def _near_copy_p(readings: tuple, confidence: float) -> float:
    """The near-copy test's p-value from its readings at :data:`LOW_FPRS`: Holm over them, the
    smallest adjusted p (discrete readings repeat from draw to draw, so each pair is adjusted once)."""
    adjusted = family_tests(dict(zip(LOW_FPRS, readings)), confidence=confidence).adjusted
    return min(adjusted.values(), default=math.nan)


class _CopyDraws:
    """The copy leaks' planted records of every draw, prepared once, and each draw's copied records
    and nearest synthetic distances per size tried, each size updated from the largest smaller one."""

    def __init__(
        self,
        state: _Release,
        plant: Callable,
        draws: int,
        confidence: float,
        copies_of: Callable | None = None,
    ):
        """``plant(draws, piece)`` gives the records of one piece (:func:`_pieces`) of the sequence of
        each of ``draws``, one draw after the other."""
        self.state, self.confidence, self.plant, self.copies_of = state, confidence, plant, copies_of
        self.real_parts = _copy_parts(state.real, state.widths)
        self.real_numbers = _copy_numbers(state.real, state.widths)
        # widened by a relative 1e-9 as the copy test widens it, so that a boundary value is not lost
        self.width = np.array(list(state.widths.values())) * (1 + 1e-9)
        self.known: list[dict] = [{0: (state.copied, state.to_synthetic)} for _ in range(draws)]
        self.prepared: list[list] = [[] for _ in range(draws)]  # per draw: (encoded, groups, numbers) pieces

    def _planted(self, draw: int, start: int, stop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Records ``start`` to ``stop`` of a draw, encoded, their exact-match groups (coded with the
        real records, so a group a real record holds is the same number) and their numbers."""
        pieces = self.prepared[draw]
        while sum(len(piece[0]) for piece in pieces) < stop:
            self._prepare(len(pieces))
        return tuple(np.concatenate([piece[i] for piece in pieces])[start:stop] for i in range(3))  # type: ignore[return-value]

    def _prepare(self, piece: int) -> None:
        """Piece ``piece`` of every draw that has not prepared it, encoded and coded at once: the
        search reads the draws one after the other at each size, so all of them soon need it."""
        waiting = [draw for draw, pieces in enumerate(self.prepared) if len(pieces) == piece]
        records = self.plant(waiting, piece)
        real_groups, groups = joint_codes([self.real_parts, _copy_parts(records, self.state.widths)])
        self.real_groups = real_groups  # the same on every call: the real records come first
        prepared = (self.state.encoder.transform(records), groups, _copy_numbers(records, self.state.widths))
        # every draw's piece holds as many records
        for draw, *arrays in zip(waiting, *(np.split(array, len(waiting)) for array in prepared)):
            self.prepared[draw].append(tuple(arrays))

    def _grown(self, draw: int, size: int) -> tuple[np.ndarray, np.ndarray]:
        """Copied records and nearest distances of draw ``draw`` with its first ``size`` records."""
        known = self.known[draw]
        if size not in known:
            start = max(s for s in known if s < size)
            copied, nearest = known[start]
            encoded, groups, numbers = self._planted(draw, start, size)
            copied = copied.copy()
            # a record not copied yet is copied only by a planted record of its exact-match group
            open_ = np.flatnonzero(~copied & np.isin(self.real_groups, groups))
            if self.width.size:
                x = self.real_numbers[open_]
                found = count_matches(
                    self.real_groups[open_], groups, x - self.width, x + self.width, numbers
                )
                copied[open_] = found > 0
            else:
                copied[open_] = True
            nearest = _closer(
                self.state.scored,
                encoded,
                nearest,
                self.state.encoder,
                self._reachable(draw, start, size, nearest),
            )
            known[size] = (copied, nearest)
        return known[size]

    def _reachable(self, draw: int, start: int, stop: int, nearest: np.ndarray) -> np.ndarray | None:
        """The scored records that planted records ``start`` to ``stop`` can bring closer to the
        release, when these are verbatim copies of training records (``copies_of(draw, start,
        stop)`` their positions): a copy of another real record lies at least as far as the
        record's nearest other real record (``to_real``, the engine's distance, which the kernel's
        equals bit for bit), so only a record nearer to another real record than to the release,
        or copied itself, can move. ``None`` (every record) for other leaks."""
        if self.copies_of is None:
            return None
        reachable = self.state.to_real < nearest
        own = self.state.scored_of_train[self.copies_of(draw, start, stop)]
        reachable[own[own >= 0]] = True
        return reachable

    def p_values(self, draw: int, size: int) -> dict:
        """The copy, rare-copy, distance-attack and near-copy tests' p-values at this size."""
        state, confidence = self.state, self.confidence
        copied, nearest = self._grown(draw, size)
        n = len(state.train)
        train_copied, holdout_copied = copied[:n], copied[n:]
        out = {
            "copy_test": _fisher_p(int(train_copied.sum()), n, int(holdout_copied.sum()), len(state.holdout))
        }
        if state.rare_train.size and state.rare_holdout.size:
            out["rare_copy_test"] = _fisher_p(
                int(train_copied[state.rare_train].sum()),
                state.rare_train.size,
                int(holdout_copied[state.rare_holdout].sum()),
                state.rare_holdout.size,
            )
        member = np.arange(nearest.size) < state.n_scored_train
        for rate in LOW_FPRS:
            out[low_fpr_key("nn_mia", rate)] = _low_fpr_p(-nearest[member], -nearest[~member], rate)
        score = _log_ratio(state.to_real, nearest, state.scale)
        # the near-copy test: Holm over its readings at the two rates, the smallest adjusted p
        readings = tuple(_low_fpr_p(score[member], score[~member], rate) for rate in LOW_FPRS)
        out["near_copy_test"] = _near_copy_p(readings, confidence)
        return out


class _AttributionDraws:
    """The rare-key attributions' planted records of every draw, coded once with the real and
    synthetic records; the attribution test of each sensitive variable re-read per size.

    A planted record carries the keys of a training record no other real record shares, so it
    changes the attribution of that record alone (its *owner*), and the same way at every size:
    the synthetic records sharing those keys, and it. So each planted record's attribution is read
    once, every draw's at once (:func:`privlib.rare_attributions.certain_attributions` over keys
    told apart by draw), and a size's test counts the first records' owners with it."""

    def __init__(
        self,
        state: _Release,
        plants: pd.DataFrame,
        draws: int,
        keys,
        sensitive,
        numeric_tolerance,
        confidence,
    ):
        """``plants`` holds each of ``draws`` draws' planted records, one draw after the other."""
        self.confidence = confidence
        tables = (state.train, state.holdout, state.synthetic, plants)
        kinds = infer_kinds(state.train)
        codes = joint_codes([[comparable_values(t[k], kinds[k]) for k in keys] for t in tables])
        real_keys = np.concatenate(codes[:2])
        synthetic_keys, plant_keys = codes[2], codes[3]
        counts = np.bincount(real_keys, minlength=int(max(real_keys.max(), plant_keys.max(initial=0))) + 1)
        rare = counts[real_keys] <= 1
        n = len(state.train)
        self.rare = (rare[:n], rare[n:])
        owner_of = np.full(counts.size, -1)
        owner_of[real_keys[counts[real_keys] == 1]] = np.flatnonzero(counts[real_keys] == 1)
        owners = owner_of[plant_keys]
        if (owners < 0).any():
            raise PrivlibError("a planted attribution must carry the keys of one real record alone.")
        self.owners = np.split(owners, draws)
        # every draw's planted records and the synthetic records sharing their keys, keys told
        # apart by draw so that no draw's records meet another's
        draw_of = np.repeat(np.arange(draws), len(plants) // draws)
        hosts = [np.flatnonzero(np.isin(synthetic_keys, keys_d)) for keys_d in np.split(plant_keys, draws)]
        host_rows = np.concatenate(hosts)
        host_draw = np.repeat(np.arange(draws), [h.size for h in hosts])
        told_apart = np.concatenate(
            [synthetic_keys[host_rows] + host_draw * counts.size, plant_keys + draw_of * counts.size]
        )
        self.targets: dict[str, tuple] = {}
        for column in sensitive:
            alone = [t[[column]] for t in tables[:3]]
            widths = _copy_widths(alone[0], alone[1], alone[2], numeric_tolerance)
            if column in widths:
                values = [numeric_values(t[column]) for t in tables]
            else:
                values = [
                    c.astype(float)
                    for c in joint_codes([[comparable_values(t[column], kinds[column])] for t in tables])
                ]
            real = np.concatenate(values[:2])
            width = widths.get(column, 0.0)
            before = certain_attributions(real, real_keys, values[2], synthetic_keys, width)
            after = certain_attributions(
                real[owners],
                real_keys[owners] + draw_of * counts.size,
                np.concatenate([values[2][host_rows], values[3]]),
                told_apart,
                width,
            )
            self.targets[column] = (before, np.split(after, draws))

    def p_values(self, draw: int, size: int) -> dict:
        """Each sensitive variable's rare-key attribution test at this size."""
        n = self.rare[0].size
        out: dict[str, float] = {}
        if not (self.rare[0].any() and self.rare[1].any()):
            return out
        owners = self.owners[draw][:size]
        for column, (before, after) in self.targets.items():
            certain = before.copy()
            certain[owners] = after[draw][:size]
            out[f"rare_attribution_test[{column}]"] = _fisher_p(
                int(certain[:n][self.rare[0]].sum()),
                int(self.rare[0].sum()),
                int(certain[n:][self.rare[1]].sum()),
                int(self.rare[1].sum()),
            )
        return out


# --------------------------------------------------------------------------------------------
# The draws of every leak
# --------------------------------------------------------------------------------------------
def seed_of(random_state) -> int:
    """An integer seed from ``random_state`` (a fresh one for ``None``), kept in the results."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        # None: a fresh seed, as every stochastic function of the kit reads it
        return int(np.random.default_rng(random_state).integers(2**31 - 1))
    return int(random_state)


def _piece(leak, state, orders, pieces, keys, sensitive, seed, draws: list[int], piece: int) -> pd.DataFrame:
    """Piece ``piece`` of the planted sequence of each of ``draws``, one draw after the other."""
    start, stop = pieces[piece]
    rngs = [np.random.default_rng([seed, LEAKS.index(leak), draw, piece]) for draw in draws]
    sources = [orders[draw][start:stop] for draw in draws]
    return _leak_records(leak, state, sources, keys, sensitive, rngs)


def _copied_sources(orders: list[np.ndarray], draw: int, start: int, stop: int) -> np.ndarray:
    """The training records that records ``start`` to ``stop`` of a draw copy."""
    return orders[draw][start:stop]


def _by_draw(pieces: list[pd.DataFrame], draws: int) -> pd.DataFrame:
    """Every draw's planted records, one draw after the other, from ``pieces``, each holding every
    draw's records of it one draw after the other."""
    lengths = [len(piece) // draws for piece in pieces]
    starts = np.cumsum([0, *(len(piece) for piece in pieces)])[:-1]
    rows = [
        start + d * length + np.arange(length) for d in range(draws) for start, length in zip(starts, lengths)
    ]
    return pd.concat(pieces, ignore_index=True).iloc[np.concatenate(rows)].reset_index(drop=True)


def prepared_leaks(
    train,
    holdout,
    synthetic,
    *,
    keys,
    sensitive,
    leaks,
    draws,
    numeric_tolerance,
    rare_share,
    confidence,
    seed,
    max_queries,
):
    """Per leak that has records to plant: ``(leak, its draws prepared, the most records it can
    plant)``, the release's state computed once for all."""
    unknown = [leak for leak in leaks if leak not in LEAKS]
    if unknown:
        raise PrivlibError(f"`leaks` must be among {list(LEAKS)}, got {unknown}.")
    attributes = bool(keys) and bool(sensitive)
    if attributes:
        keys = check_columns(train, keys, "keys", "train")
        sensitive = check_columns(train, sensitive, "sensitive", "train")
    with shared_searches():
        state = _release_state(
            train,
            holdout,
            synthetic,
            numeric_tolerance=numeric_tolerance,
            rare_share=rare_share,
            random_state=seed,
            max_queries=max_queries,
        )
    pools = {
        "verbatim": np.arange(len(train)),
        "near copies": np.arange(len(train)),
        "rare copies": state.rare_train,
        "rare-key attributions": _unique_on_keys(train, holdout, keys) if attributes else np.array([], int),
    }
    for leak in leaks:
        largest = min(len(synthetic), pools[leak].size)
        if largest < 1:
            logger.info("detection limits: no record to plant for %s", leak)
            continue
        # each draw's order of training records, then each piece's records from a seed of its own,
        # so that the records planted never depend on which sizes are asked
        orders = [
            np.random.default_rng([seed, LEAKS.index(leak), d]).choice(pools[leak], largest, replace=False)
            for d in range(draws)
        ]
        plant = partial(_piece, leak, state, orders, _pieces(largest), keys, sensitive, seed)
        prepared: _CopyDraws | _AttributionDraws = (
            _AttributionDraws(
                state,
                _by_draw([plant(list(range(draws)), i) for i in range(len(_pieces(largest)))], draws),
                draws,
                keys,
                sensitive,
                numeric_tolerance,
                confidence,
            )
            if leak == "rare-key attributions"
            else _CopyDraws(
                state,
                plant,
                draws,
                confidence,
                None if leak == "near copies" else partial(_copied_sources, orders),
            )
        )
        yield leak, prepared, largest
