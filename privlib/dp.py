"""A differentially private synthesizer: MST (McKenna, Miklau & Sheldon 2021).

The baselines of :mod:`privlib.synth` come with no guarantee; MST comes with one that holds
whatever an attacker knows. It releases a table drawn from a tree-shaped model of the data built
only from noisy counts:

1. **Discretise.** Every column becomes a small set of codes that do not depend on which values
   the training data holds: a column of numbers or dates (in days), however few its distinct
   values, is cut into ``n_bins`` equal-width bins between its bounds (``bounds`` if given, else
   the training minimum and maximum); a categorical dtype keeps the categories it declares
   (all of them, seen or not); a column of text or booleans takes its sorted distinct values. A
   column with missing values gets one more code for "missing".
2. **Measure the one-way marginals** (the count of every code of every column) with Gaussian
   noise, spending a third of the budget.
3. **Compress**: the codes whose noisy count is below three noise standard deviations are pooled
   into one code, so that rare values do not drown the pairs measured next in noise.
4. **Select the tree**: the pair of columns whose true two-way counts the independent model
   (the product of the noisy one-way marginals) misses most, in L1 distance, is picked by the
   exponential mechanism, again and again, joining two parts of the forest each time (Kruskal's
   maximum spanning tree, made private): ``d - 1`` rounds for ``d`` columns, the second third of
   the budget.
5. **Measure the ``d - 1`` two-way marginals** of the tree with Gaussian noise: the last third.
6. **Estimate and sample**: the noisy counts are clipped at zero and normalised into a
   tree-shaped Bayesian network (the root column from its one-way counts, each other column
   given its parent from their two-way counts); rows are drawn from it, a pooled code becomes one
   of its values uniformly, and a bin becomes a number drawn uniformly inside it.

Privacy accounting is in zero-concentrated differential privacy (zCDP; Bun & Steinke 2016): the
Gaussian mechanism with L2 sensitivity ``Delta`` and noise ``sigma`` is
``Delta**2 / (2 sigma**2)``-zCDP; the exponential mechanism with ``epsilon0`` is
``epsilon0**2 / 8``-zCDP (Cesar & Rogers 2021); zCDP adds up over steps. The budget ``rho`` comes
from the requested ``(epsilon, delta)`` by the conversion of Canonne, Kamath & Steinke (2020,
Proposition 1.3 / their eq. 7), :func:`cdp_delta`, inverted by bisection in :func:`cdp_rho`.
Adding or removing one record changes one cell of each marginal by one, so a set of ``k``
marginals has L2 sensitivity ``sqrt(k)``, and the L1 score of a pair has sensitivity 1.

The neighbouring notion is add/remove: two tables differ by one person present in one and absent
from the other. Under it the number of rows is itself private, so ``sample()`` draws as many
rows as the *noisy* total of the one-way measurement (the mean over columns of the noisy counts'
sums), as McKenna's reference implementation does with the total of its estimated model: a
post-processing of measurements already paid for, which spends no further budget. A table of
exactly the training size would tell D from D plus one record by its length alone. A caller who
asks for a size of their own choosing (``sample(n)``) releases that choice outside the guarantee.

What the guarantee covers, and what it does not. Steps 2-6 are differentially private with
respect to the records *given the domain*: the categories, the numeric bounds and which columns
have missing values. As in McKenna's reference implementation, the domain is taken as public
knowledge; when ``bounds`` is not given it is read from the training data, which is outside the
guarantee, and so are the labels of a text column (a custodian who needs the full guarantee
passes public ``bounds`` and categorical dtypes). This is no formality: an outlier is often the
minimum or maximum of some variable, and notebook 08's shadow-model attack detects it through the
range of the released numbers when ``bounds`` is left out. For the same reason numbers are binned
even when :func:`privlib.schema.infer_kinds` would read them as codes: their distinct values
would otherwise be released as labels. A released number can be any value inside its bin, so
the bins (and ``n_bins``) set the numeric resolution of the release.

Why the kit implements MST itself. McKenna's library is on PyPI as ``mbi`` (2.0, the successor
of private-pgm), and it installs with numpy 2; but it compiles a new JAX program for every new set
of measured marginals, 13-30 s on this course's two-core machines, and every fit of MST selects a
new tree. The targeted attacks of :mod:`privlib.targeted` refit the generator hundreds of times,
so the kit's MST uses its own estimation step (step 6 above, a post-processing of the noisy
measurements, which spends no budget) in place of Private-PGM's iterative fit. The measurement
and selection steps, and the accounting, follow the paper. ``smartnoise-synth`` wraps the same
private-pgm code and brings the same cost. Utility is somewhat below Private-PGM's, which also
pools the one-way measurements into the two-way estimates; the privacy guarantee is the same.

References
----------
McKenna R, Miklau G, Sheldon D. Winning the NIST contest: a scalable and general approach to
differentially private synthetic data. J Privacy and Confidentiality 11(3), 2021.

Bun M, Steinke T. Concentrated differential privacy: simplifications, extensions, and lower
bounds. TCC 2016.

Canonne C, Kamath G, Steinke T. The discrete Gaussian for differential privacy. NeurIPS 2020.

Cesar M, Rogers R. Bounding, concentrating, and truncating: unifying privacy loss composition
for data analytics. ALT 2021.

McSherry F, Talwar K. Mechanism design via differential privacy. FOCS 2007.

Kairouz P, Oh S, Viswanath P. The composition theorem for differential privacy. ICML 2015.

Dwork C, Roth A. The algorithmic foundations of differential privacy. Foundations and Trends in
Theoretical Computer Science 9(3-4), 2014 (group privacy, Theorem 2.2).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
from scipy import optimize

from privlib.errors import PrivlibError
from privlib.schema import check_frame, numeric_values, restore_numeric
from privlib.synth.base import _check_number, _rng, _Synthesizer
from privlib.validation import Integer, Number

__all__ = ["MST", "bounds_of", "cdp_delta", "cdp_rho", "max_attack_auc"]


# --------------------------------------------------------------------------------------------
# Privacy accounting
# --------------------------------------------------------------------------------------------
#: Largest epsilon the kit accounts for: at 100 an attack may be e**100 times surer of a record's
#: presence, a guarantee that bounds nothing (the US Census Bureau's 2020 redistricting data spent
#: about 20 in all), and the accounting's exponentials overflow a little further (e**710).
MAX_EPSILON = 100.0

#: Largest zCDP budget rho: past the rho of epsilon = 100, and small enough for the accounting.
MAX_RHO = 10_000.0

#: Smallest epsilon :class:`MST` spends: at 1e-4 (delta 1e-9) the noise on a single count already
#: has a standard deviation near 68,000, so the release is noise for any table the kit reads, and
#: near 1e-150 the budget rounds to zero.
MIN_EPSILON = 1e-4

#: Past this group budget (records times epsilon) ``e**epsilon`` overflows, and the AUC bound is 1
#: to float precision well before (1 / (1 + e**-40) is already 1.0).
_SATURATED = 700.0


def _check_epsilon_delta(epsilon, delta):
    _check_number(epsilon, "epsilon", low=0.0, high=MAX_EPSILON, low_open=True)
    _check_number(delta, "delta", low=0.0, high=1.0, low_open=True)
    if delta >= 1:
        raise PrivlibError(f"`delta` must lie strictly between 0 and 1, got {delta!r}.")


def cdp_delta(rho: float, epsilon: float) -> float:
    """The smallest ``delta`` for which ``rho``-zCDP implies ``(epsilon, delta)``-DP.

    Canonne, Kamath & Steinke (2020, Proposition 1.3):
    ``delta = inf over alpha > 1 of exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1)
    * (1 - 1/alpha)**alpha``, minimised numerically over ``alpha``.

    Parameters
    ----------
    rho : float
        The zCDP parameter, ``>= 0``.
    epsilon : float
        The target epsilon, ``> 0``.

    Returns
    -------
    float
        ``delta`` in [0, 1].

    Examples
    --------
    >>> cdp_delta(0.0, 1.0)
    0.0
    >>> round(cdp_delta(0.1, 1.0), 5)
    0.00893
    """
    _check_number(rho, "rho", low=0.0, high=MAX_RHO)
    _check_number(epsilon, "epsilon", low=0.0, high=MAX_EPSILON, low_open=True)
    if rho == 0:
        return 0.0

    def log_delta(alpha):
        return (alpha - 1) * (alpha * rho - epsilon) - math.log(alpha - 1) + alpha * math.log1p(-1 / alpha)

    # the minimiser lies near (epsilon + rho) / (2 rho) + 1; search well beyond it on both sides
    high = max(2.0, 4 * (epsilon + rho) / (2 * rho) + 4)
    best = optimize.minimize_scalar(
        log_delta, bounds=(1 + 1e-9, high), method="bounded", options={"xatol": 1e-10}
    )
    return float(min(1.0, math.exp(best.fun)))


def cdp_rho(epsilon: float, delta: float) -> float:
    """The largest zCDP budget ``rho`` that still gives ``(epsilon, delta)``-DP.

    Inverts :func:`cdp_delta` (which grows with ``rho``) by bisection to a relative precision of
    about 1e-12.

    Parameters
    ----------
    epsilon : float
        ``> 0``.
    delta : float
        Strictly between 0 and 1.

    Returns
    -------
    float

    Examples
    --------
    >>> rho = cdp_rho(1.0, 1e-9)
    >>> round(rho, 5)
    0.01497
    >>> abs(cdp_delta(rho, 1.0) - 1e-9) < 1e-12
    True
    """
    _check_epsilon_delta(epsilon, delta)
    low, high = 0.0, epsilon + 1.0
    while cdp_delta(high, epsilon) < delta:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if cdp_delta(middle, epsilon) <= delta:
            low = middle
        else:
            high = middle
        if high - low <= 1e-13 * high:
            break
    return low


def max_attack_auc(epsilon: float, delta: float = 0.0, records: int = 1) -> float:
    """The largest AUC any membership test can reach against an ``(epsilon, delta)``-DP release.

    DP bounds every test of "the record was in" against "it was not" (Kairouz, Oh & Viswanath
    2015, Theorem 2.1): at false positive rate ``f`` the true positive rate is at most
    ``min(1, e**epsilon f + delta, 1 - e**-epsilon (1 - delta - f))``. The area under that curve
    is the bound; with ``delta = 0`` it is ``e**epsilon / (1 + e**epsilon)``.

    The guarantee of :class:`MST` is for tables that differ by adding or removing one record. Two
    tables that differ in ``records`` such steps are compared at the group budget
    ``(records * epsilon, delta * (1 + e**epsilon + ... + e**((records - 1) epsilon)))``: group
    privacy (Dwork & Roth 2014, Theorem 2.2, for ``delta = 0``), the ``delta`` term by applying
    the definition once per step. ``records=2`` when one record *replaces* another, as in the
    shadow pairs of :func:`privlib.targeted.shadow_model_attack`.

    Examples
    --------
    >>> round(max_attack_auc(1.0), 4)
    0.7311
    >>> max_attack_auc(0.0)
    0.5
    >>> round(max_attack_auc(1.0, records=2), 4)  # e**2 / (1 + e**2)
    0.8808
    """
    _check_number(epsilon, "epsilon", low=0.0, high=MAX_EPSILON)
    _check_number(delta, "delta", low=0.0, high=1.0)
    if isinstance(records, bool) or not isinstance(records, numbers.Integral) or records < 1:
        raise PrivlibError(f"`records` must be a whole number >= 1, got {records!r}.")
    if records * epsilon > _SATURATED:
        return 1.0
    delta = min(1.0, delta * sum(math.exp(step * epsilon) for step in range(records)))
    epsilon = records * epsilon
    if delta == 0:
        return float(1 / (1 + math.exp(-epsilon)))
    fpr = np.linspace(0.0, 1.0, 200001)
    tpr = np.minimum.reduce(
        [np.ones_like(fpr), math.exp(epsilon) * fpr + delta, 1 - math.exp(-epsilon) * (1 - delta - fpr)]
    )
    return float(np.trapezoid(np.clip(tpr, 0, 1), fpr))


def gaussian_sigma(rho: float, n_marginals: int) -> float:
    """Noise standard deviation that measures ``n_marginals`` marginals together at ``rho``-zCDP.

    One record changes one cell of each marginal by 1: L2 sensitivity ``sqrt(n_marginals)``, so
    ``rho = n_marginals / (2 sigma**2)``.
    """
    return math.sqrt(n_marginals / (2.0 * rho))


def exponential_mechanism(
    scores: np.ndarray, epsilon: float, rng: np.random.Generator, sensitivity: float = 1.0
) -> int:
    """Index drawn with probability proportional to ``exp(epsilon * score / (2 sensitivity))``.

    ``epsilon``-DP (McSherry & Talwar 2007) and ``epsilon**2 / 8``-zCDP (Cesar & Rogers 2021).
    """
    logits = epsilon * (scores - scores.max()) / (2.0 * sensitivity)
    weights = np.exp(logits)
    return int(rng.choice(len(scores), p=weights / weights.sum()))


# --------------------------------------------------------------------------------------------
# Discretisation
# --------------------------------------------------------------------------------------------
def _is_number(series: pd.Series) -> bool:
    """Numbers and dates are binned, whatever their count of distinct values."""
    dtype = series.dtype
    return pd.api.types.is_datetime64_any_dtype(dtype) or (
        pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
    )


@dataclass
class _Discrete:
    """How one column becomes codes ``0..size-1`` and back.

    The codes depend on the column's type and on ``bounds``, never on which values the training
    data holds (but for the ranges and labels the module documentation lists): numbers and dates
    fall into ``n_values`` equal-width bins on ``[low, high]``; a categorical dtype gives the
    positions of its declared categories; another type (text, booleans) the sorted distinct
    values (``labels``). ``has_missing`` adds a last code for missing values.
    """

    like: pd.Series
    n_values: int
    has_missing: bool
    numeric: bool = False
    low: float = 0.0
    high: float = 0.0
    labels: np.ndarray | None = None

    @classmethod
    def fit(cls, series: pd.Series, bounds: dict, n_bins: int) -> tuple[_Discrete, np.ndarray]:
        like = series.iloc[:0]
        missing = series.isna().to_numpy()
        has_missing = bool(missing.any())
        if _is_number(series):
            values = numeric_values(series)
            low, high = bounds.get(series.name, (np.nanmin(values), np.nanmax(values)))
            made = cls(like, n_bins, has_missing, numeric=True, low=float(low), high=float(high))
            if made.high <= made.low:  # a constant column (only possible with given bounds)
                made.high = made.low + 1.0
            width = (made.high - made.low) / n_bins
            codes = np.clip(np.floor((np.where(missing, made.low, values) - made.low) / width), 0, n_bins - 1)
        elif isinstance(series.dtype, pd.CategoricalDtype):
            made = cls(like, len(series.dtype.categories), has_missing)
            codes = series.cat.codes.to_numpy()
        else:
            codes, labels = pd.factorize(series, sort=True)
            made = cls(like, len(labels), has_missing, labels=np.asarray(labels, dtype=object))
        codes = np.where(missing, made.n_values, codes).astype(np.int64)
        return made, codes

    @property
    def size(self) -> int:
        return self.n_values + int(self.has_missing)

    def decode(self, codes: np.ndarray, rng: np.random.Generator) -> pd.Series:
        missing = codes == self.n_values
        if self.numeric:
            width = (self.high - self.low) / self.n_values
            values = self.low + (codes + rng.random(len(codes))) * width
            return restore_numeric(np.where(missing, np.nan, values), self.like)
        codes = np.where(missing, -1, codes)
        dtype = self.like.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), name=self.like.name)
        assert self.labels is not None  # fit keeps the labels of a column that is not categorical
        out = pd.api.extensions.take(self.labels, codes, allow_fill=True)
        return pd.Series(out, name=self.like.name, dtype=object).astype(dtype)


def bounds_of(public: pd.DataFrame) -> dict:
    """``{column: (minimum, maximum)}`` of the number and date columns of a public table.

    Meant for ``MST(bounds=...)``.

    Take them from data that is not private (a census table, a published codebook, the
    population an adversary is assumed to know), never from the training data itself.

    Examples
    --------
    >>> bounds_of(pd.DataFrame({"age": [17, 90], "sex": ["F", "M"]}))
    {'age': (17.0, 90.0)}
    """
    data = check_frame(public, "public")
    out = {}
    for column in data.columns:
        if _is_number(data[column]):
            values = numeric_values(data[column])
            out[column] = (float(np.nanmin(values)), float(np.nanmax(values)))
    return out


#: Largest public bound of a numeric column in absolute value: the audit refuses data of this size
#: too, and bins between -1e308 and 1e308 are wider than any float (their centres are infinite).
MAX_BOUND = 1e100


def _check_bounds(bounds, data: pd.DataFrame) -> dict:
    if bounds is None:
        return {}
    if not isinstance(bounds, dict):
        raise PrivlibError(
            f"`bounds` must map numeric column names to (low, high) pairs, got {type(bounds).__name__}."
        )
    out = {}
    for column, pair in bounds.items():
        if column not in data.columns:
            raise PrivlibError(f"`bounds` names column {column!r}, which is not in the data.")
        # one column, a Series: check_frame refuses duplicated column names
        if not _is_number(cast(pd.Series, data[column])):
            raise PrivlibError(f"`bounds` names column {column!r}, which is not numeric.")
        try:
            low, high = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise PrivlibError(f"`bounds[{column!r}]` must be a (low, high) pair of numbers.") from None
        if not (-MAX_BOUND < low < high < MAX_BOUND):
            raise PrivlibError(
                f"`bounds[{column!r}]` must have low < high, both within +-{MAX_BOUND:.0e} (a bin "
                "wider than the largest float holds no number)."
            )
        out[column] = (low, high)
    return out


# --------------------------------------------------------------------------------------------
# The synthesizer
# --------------------------------------------------------------------------------------------
#: Most bins of a numeric column: a two-way marginal of two such columns then has a million cells
#: (8 MB), while the noise of each cell grows with their number and finer bins inform no more.
MAX_BINS = 1000


class MST(_Synthesizer):
    """Differentially private synthetic data by MST (McKenna, Miklau & Sheldon 2021).

    See the module documentation for the steps, the accounting and what the guarantee covers.
    ``fit`` spends the whole budget; ``sample`` only post-processes, so any number of samples
    may be drawn without further privacy cost.

    Parameters
    ----------
    epsilon : float, default 1.0
        The DP epsilon, from :data:`MIN_EPSILON` to :data:`MAX_EPSILON`; smaller is more private.
    delta : float, default 1e-9
        The DP delta, strictly between 0 and 1 (private-pgm's default for MST); it should be far
        below one over the number of records.
    n_bins : int, default 16
        Equal-width bins per numeric column, from 2 to :data:`MAX_BINS`.
    bounds : dict, optional
        Public ``{column: (low, high)}`` for numeric columns (dates in days since 1970-01-01),
        e.g. :func:`bounds_of` a public table; values outside are clipped into the end bins.
        Columns not named take the training minimum and maximum (outside the guarantee).
    random_state : int, numpy.random.Generator or None
        Seed of the noise that ``fit`` draws (``fit`` of the synthesizer protocol takes no seed).
        ``None``, the right choice for a real release, draws fresh unpredictable noise; set it
        for teaching and tests. ``sample`` takes its own seed.

    Attributes
    ----------
    rho_ : float
        The zCDP budget spent by ``fit``.
    n_records_ : int
        The noisy number of records, from the one-way measurement (at least 1): the size of a
        sample drawn with ``n=None``.
    tree_ : list of (str, str)
        The selected pairs of columns (parent, child), in sampling order.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [23, 35, 47, 51, 62, 38] * 20,
    ...                    "sex": pd.Categorical(["F", "M"] * 60)})
    >>> synthetic = MST(epsilon=1.0).fit(df).sample(5, random_state=0)
    >>> list(synthetic.columns), synthetic.dtypes.astype(str).tolist()
    (['age', 'sex'], ['int64', 'category'])
    """

    _constraints = {
        "epsilon": [Number(low=MIN_EPSILON, high=MAX_EPSILON)],
        "delta": [Number(low=0, high=1, closed="neither")],
        "n_bins": [Integer(low=2, high=MAX_BINS)],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-9,
        n_bins: int = 16,
        bounds: dict | None = None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.n_bins = n_bins
        self.bounds = bounds
        self.random_state = random_state

    def _fit(self, data):
        rng = _rng(self.random_state)
        bounds = _check_bounds(self.bounds, data)
        fitted = [_Discrete.fit(data[column], bounds, int(self.n_bins)) for column in data.columns]
        self.discrete_ = [d for d, _ in fitted]
        codes = np.column_stack([c for _, c in fitted])
        self.rho_ = cdp_rho(float(self.epsilon), float(self.delta))
        n_columns = codes.shape[1]
        one_way, groups, codes = self._measure_one_way(
            codes, [d.size for d in self.discrete_], self.rho_ / 3, rng
        )
        self.groups_ = groups
        # the released size: the noisy total of the one-way counts, post-processing only
        self.n_records_ = max(1, round(float(np.mean([counts.sum() for counts in one_way]))))
        sizes = [len(g) for g in groups]
        edges = self._select(codes, sizes, one_way, self.rho_ / 3, rng) if n_columns > 1 else []
        sigma = gaussian_sigma(self.rho_ / 3, max(len(edges), 1))
        two_way = {}
        for a, b in edges:
            counts = _counts(codes[:, [a, b]], (sizes[a], sizes[b]))
            two_way[a, b] = counts + rng.normal(0.0, sigma, size=counts.shape)
        self._build_network(one_way, two_way, edges, n_columns)
        names = list(data.columns)
        # after the root, every column has a parent
        self.tree_ = [(names[p], names[c]) for p, c in cast(list[tuple[int, int]], self.order_[1:])]

    @staticmethod
    def _measure_one_way(codes, sizes, rho, rng):
        """Noisy one-way counts, then pool the codes measured below 3 sigma into one."""
        sigma = gaussian_sigma(rho, codes.shape[1])
        one_way, groups, compressed = [], [], np.empty_like(codes)
        for j in range(codes.shape[1]):
            size = sizes[j]
            noisy = _counts(codes[:, [j]], (size,)) + rng.normal(0.0, sigma, size=size)
            kept = np.flatnonzero(noisy >= 3 * sigma)
            rare = np.flatnonzero(noisy < 3 * sigma)
            group_of = np.empty(size, dtype=np.int64)
            group_of[kept] = np.arange(len(kept))
            members = [np.array([k]) for k in kept]
            pooled = noisy[kept]
            if len(rare):
                group_of[rare] = len(kept)
                members.append(rare)
                pooled = np.append(pooled, noisy[rare].sum())
            compressed[:, j] = group_of[codes[:, j]]
            one_way.append(pooled)
            groups.append(members)
        return one_way, groups, compressed

    @staticmethod
    def _select(codes, sizes, one_way, rho, rng) -> list[tuple[int, int]]:
        """Private maximum spanning tree: ``d - 1`` exponential-mechanism picks (Kruskal)."""
        n_columns = codes.shape[1]
        total = max(float(np.mean([y.sum() for y in one_way])), 1.0)
        shares = [np.clip(y, 0, None) / max(np.clip(y, 0, None).sum(), 1e-12) for y in one_way]
        pairs = [(a, b) for a in range(n_columns) for b in range(a + 1, n_columns)]
        scores = np.array(
            [
                np.abs(
                    _counts(codes[:, [a, b]], (sizes[a], sizes[b])) - total * np.outer(shares[a], shares[b])
                ).sum()
                for a, b in pairs
            ]
        )
        component = list(range(n_columns))
        epsilon_round = math.sqrt(8 * rho / (n_columns - 1))
        chosen = []
        for _ in range(n_columns - 1):
            open_pairs = [i for i, (a, b) in enumerate(pairs) if component[a] != component[b]]
            pick = open_pairs[exponential_mechanism(scores[open_pairs], epsilon_round, rng)]
            a, b = pairs[pick]
            old, new = component[b], component[a]
            component = [new if c == old else c for c in component]
            chosen.append((a, b))
        return chosen

    def _build_network(self, one_way, two_way, edges, n_columns):
        """Root column 0; each other column given its parent, from clipped noisy counts."""
        neighbours: dict[int, list[int]] = {j: [] for j in range(n_columns)}
        for a, b in edges:
            neighbours[a].append(b)
            neighbours[b].append(a)
        root_counts = np.clip(one_way[0], 0, None)
        self.root_ = _normalise(root_counts, len(root_counts))
        self.order_: list[tuple[int | None, int]] = [(None, 0)]  # (parent, child), the root first
        self.conditionals_: dict[int, np.ndarray] = {}
        seen, queue = {0}, [0]
        while queue:
            parent = queue.pop(0)
            for child in sorted(neighbours[parent]):
                if child in seen:
                    continue
                table = two_way[(parent, child)] if (parent, child) in two_way else two_way[(child, parent)].T
                table = np.clip(table, 0, None)
                fallback = _normalise(np.clip(one_way[child], 0, None), table.shape[1])
                rows = table.sum(axis=1, keepdims=True)
                self.conditionals_[child] = np.where(rows > 0, table / np.where(rows > 0, rows, 1), fallback)
                self.order_.append((parent, child))
                seen.add(child)
                queue.append(child)

    def sample(self, n: int | None = None, random_state=None) -> pd.DataFrame:
        """Draw a synthetic table of ``n`` rows, by default the noisy number of records
        ``n_records_`` (not the training size, which add/remove neighbours would reveal)."""
        if n is None and hasattr(self, "n_train_"):
            n = self.n_records_
        return super().sample(n, random_state)

    def _sample(self, n, rng):
        n_columns = len(self.discrete_)
        groups = np.empty((n, n_columns), dtype=np.int64)
        groups[:, 0] = rng.choice(len(self.root_), size=n, p=self.root_)
        for parent, child in self.order_[1:]:
            cumulative = np.cumsum(self.conditionals_[child][groups[:, parent]], axis=1)
            draws = rng.random((n, 1)) * cumulative[:, -1:]
            groups[:, child] = np.minimum((cumulative < draws).sum(axis=1), cumulative.shape[1] - 1)
        columns = []
        for j, discrete in enumerate(self.discrete_):
            members = self.groups_[j]
            codes = np.empty(n, dtype=np.int64)
            for g, values in enumerate(members):
                rows = np.flatnonzero(groups[:, j] == g)
                codes[rows] = values[rng.integers(0, len(values), size=len(rows))]
            columns.append(discrete.decode(codes, rng))
        return pd.concat(columns, axis=1)


def _counts(codes: np.ndarray, shape: tuple) -> np.ndarray:
    """Contingency table of the code columns ``codes`` over a domain of ``shape``."""
    flat = np.ravel_multi_index(tuple(codes.T), shape)
    return np.bincount(flat, minlength=int(np.prod(shape))).reshape(shape).astype("float64")


def _normalise(counts: np.ndarray, size: int) -> np.ndarray:
    """Counts as probabilities; uniform when nothing is left after clipping."""
    total = counts.sum()
    return counts / total if total > 0 else np.full(size, 1.0 / size)
