"""Singling out, the first criterion of Opinion 05/2014, as an attack (Giomi et al. 2023;
:func:`singling_out`): predicates read off the synthetic data, their evaluation on the real
tables, and the declarations of its two modes. The shared machinery of the three criteria (rates,
risk, results) is in :mod:`privlib.criteria`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from privlib.criteria import CriterionRisk, _check_count, _check_tables, _encode, _finish
from privlib.declaration import MeasureSpec, Reference, criterion
from privlib.errors import ParameterError
from privlib.results import per_record
from privlib.rules import criterion_rule
from privlib.schema import MISSING
from privlib.uncertainty import check_confidence
from privlib.validation import CONFIDENCE, Integer, Number, Options, RandomState, Table, validate_params

__all__ = ["SinglingOutRisk", "singling_out", "singling_out_probability"]

UNIVARIATE_KEY = "singling_out_univariate"
MULTIVARIATE_KEY = "singling_out_multivariate"

#: Predicate terms: equal, differs, below, above, at most, at least, is missing, is not missing.
EQ, NE, LT, GT, LE, GE, ISNA, NOTNA = range(8)

#: Synthetic records drawn per round of the multivariate predicate search.
_ROUND = 2_000


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


@validate_params(
    {"n": [Integer(low=1)], "w_low": [Number(low=0, high=1)], "w_high": [Number(low=0, high=1)]},
    skip_nested=True,
)
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
# The attack
# --------------------------------------------------------------------------------------------
@validate_params(
    {
        "synthetic": [Table()],
        "train": [Table()],
        "holdout": [Table()],
        "mode": [Options("univariate", "multivariate")],
        "n_attacks": [Integer(low=1)],
        "n_cols": [Integer(low=1)],
        "max_attempts": [Integer(low=1), None],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    },
    renamed={"control": "holdout"},
)
def singling_out(
    *,
    synthetic,
    train,
    holdout,
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
    synthetic, train, holdout : pandas.DataFrame
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
    >>> holdout = pd.DataFrame({"age": [25, 35, 40, 41, 60, 70], "sex": list("MMFFMF")})
    >>> result = singling_out(synthetic=train, train=train, holdout=holdout, n_attacks=20,
    ...                       random_state=0)
    >>> result.n_attacks, result.attack_successes
    (6, 6)
    """
    _check_tables(synthetic, train, holdout)
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
    (syn, tr, ctl), numeric = _encode(train.columns, synthetic, train, holdout)
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
    if len(holdout) != len(train) and control_hits.any():
        correction = _control_correction(predicates, ctl, len(train), rng)
    control_count = min(made, int(round(control_hits.sum() * correction)))
    return _finish(
        SinglingOutRisk,
        UNIVARIATE_KEY if mode == "univariate" else MULTIVARIATE_KEY,
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


SINGLING_OUT_UNIVARIATE = MeasureSpec(
    UNIVARIATE_KEY,
    "Singling out with one column",
    "identity",
    criterion_rule(
        "singling-out",
        "asks whether predicates on one column read off the synthetic data isolate exactly one "
        "training record more often than one control record; it targets rare values and "
        "outliers",
    ),
    Reference("privlib.identity.singling_out:singling_out"),
    criterion(mode="univariate"),
    needs=("holdout",),
    at_risk=lambda r: (
        r.attack_successes,
        "predicates read off the synthetic data single out exactly one training record",
    ),
)


SINGLING_OUT_MULTIVARIATE = MeasureSpec(
    MULTIVARIATE_KEY,
    "Singling out with several columns",
    "identity",
    criterion_rule(
        "singling-out",
        "asks whether predicates on several columns read off the synthetic data isolate "
        "exactly one training record more often than one control record",
    ),
    Reference("privlib.identity.singling_out:singling_out"),
    criterion(mode="multivariate", n_cols=3),
    needs=("holdout",),
)
