"""Baseline synthesizers: simple generators to measure, not to publish.

They are teaching foils. Each one sits at a known place on the privacy-utility line, so the
disclosure measures of the kit can be seen to rank them as expected (Yale et al. 2019):

=======================  =====================================================================
:class:`Copy`            releases the training rows themselves (maximal risk, perfect fidelity)
:class:`AdditiveNoise`   the training rows with numeric noise and a few re-drawn categories
:class:`ParzenWindows`   kernel density: a training row plus kernel noise (bandwidth tunes it)
:class:`SequentialTrees` synthpop-style CART, fully or partially synthetic
:class:`GaussianCopula`  rank correlations of a multivariate normal, marginals kept
:class:`IndependentMarginals`  every column on its own (no memory of any row, no relationships)
:class:`OutlierCopies`   a sound generator plus a few of its most isolated training rows, copied
=======================  =====================================================================

Every synthesizer has the same two calls::

    synthetic = pl.synth.SequentialTrees().fit(train).sample(n=None, random_state=0)

``fit(df)`` validates the table (no empty frame, no entirely missing or constant column) and
learns from it; ``sample(n, random_state)`` returns ``n`` rows (by default as many as the
training data) with the same columns in the same order and the same dtypes: a categorical keeps
its categories, integers stay integers (rounded), dates stay dates (rounded to whole days),
floats stay floats. Categorical values are only ever drawn from those seen in training, so a
category that the dtype declares but no row holds is kept in the dtype and never generated.
Missing values are treated as a value of their own, so their share is carried over. Randomness
enters only through ``random_state`` (turned into one :class:`numpy.random.Generator`): the same
seed gives the same table.

Column kinds follow :func:`privlib.schema.infer_kinds`: ordinal columns are treated as
categorical (their order is used where a method needs one, by :class:`GaussianCopula` and
:class:`SequentialTrees`), integer columns with few distinct values as categorical codes.

References
----------
Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of
synthetic health data. AIDR 2019. doi:10.1145/3359115.3359124

Reiter JP. Using CART to generate partially synthetic public use microdata. J Official
Statistics 21(3), 2005.

Nowok B, Raab GM, Dibben C. synthpop: bespoke creation of synthetic data in R. J Statistical
Software 74(11), 2016. doi:10.18637/jss.v074.i11

Patki N, Wedge R, Veeramachaneni K. The synthetic data vault. IEEE DSAA 2016.
"""

from __future__ import annotations

import importlib
import inspect
import numbers
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd
from scipy import special, stats
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from privlib.errors import DataError, PrivlibError
from privlib.schema import (
    NUMERIC,
    check_columns,
    check_frame,
    infer_kinds,
    numeric_values,
    restore_numeric,
)
from privlib.validation import Integer, Number, check_value

__all__ = [
    "Copy",
    "AdditiveNoise",
    "IndependentMarginals",
    "GaussianCopula",
    "ParzenWindows",
    "SequentialTrees",
    "OutlierCopies",
    "SYNTHESIZERS",
    "make",
    "synthesize",
]

#: Largest ``noise_scale`` of :class:`AdditiveNoise` and ``bandwidth`` of :class:`ParzenWindows`,
#: in standard deviations of each column: at ten the noise swamps every record (a categorical
#: one-hot of 1 under noise of 10 is redrawn almost at random), so a larger value makes no other
#: lesson, only values beyond the range of dates and integers, which are no table of the input's
#: kind.
MAX_NOISE = 10.0

#: Most rows :meth:`sample` draws: a billion rows of one column is 8 GB already; numpy itself
#: refuses arrays past 2**63 bytes with a ValueError.
MAX_SAMPLE_ROWS = 10**9

#: Largest ``min_samples_leaf`` of :class:`SequentialTrees`: a leaf of at least as many records as
#: the training data is one leaf (the column's own distribution), so a billion takes nothing away,
#: and scikit-learn keeps the value in a 64-bit integer that 1e29 overflows.
MAX_LEAF = 10**9


# --------------------------------------------------------------------------------------------
# Encoding a table as one float matrix, and back
# --------------------------------------------------------------------------------------------
@dataclass
class _Column:
    """How one column is turned into floats and back.

    Numeric columns become float64 (dates in days); categorical columns become integer codes
    (positions in the categorical dtype's categories, or in the sorted distinct values for other
    dtypes). Missing is NaN in both.
    """

    name: object
    numeric: bool
    like: pd.Series  # an empty series with the original dtype and name
    labels: np.ndarray | None = None  # distinct values of a non-categorical dtype, by code

    @classmethod
    def fit(cls, series: pd.Series, kind: str) -> tuple[_Column, np.ndarray]:
        like = series.iloc[:0]
        if kind == NUMERIC:
            values = numeric_values(series)
            if np.isinf(values).any():
                raise DataError(
                    f"column {series.name!r} of `data` holds infinite values; replace them with "
                    "finite numbers or NaN before fitting."
                )
            return cls(series.name, True, like), values
        labels: np.ndarray | None
        if isinstance(series.dtype, pd.CategoricalDtype):
            codes, labels = series.cat.codes.to_numpy(), None
        else:
            codes, uniques = pd.factorize(series, sort=True)
            labels = np.asarray(uniques, dtype=object)
        coded = np.where(codes < 0, np.nan, codes).astype("float64")
        return cls(series.name, False, like, labels), coded

    def decode(self, values: np.ndarray) -> pd.Series:
        if self.numeric:
            return restore_numeric(values, self.like)
        codes = np.where(np.isnan(values), -1, values).astype("int64")
        dtype = self.like.dtype
        if isinstance(dtype, pd.CategoricalDtype):
            return pd.Series(pd.Categorical.from_codes(codes, dtype=dtype), name=self.name)
        assert self.labels is not None  # fit keeps the labels of a column that is not categorical
        out = pd.api.extensions.take(self.labels, codes, allow_fill=True)
        return pd.Series(out, name=self.name, dtype=object).astype(dtype)


@dataclass
class _Table:
    """A training table as a float matrix (one column per variable) plus its decoders."""

    columns: list
    matrix: np.ndarray

    @classmethod
    def fit(cls, df: pd.DataFrame) -> _Table:
        kinds = infer_kinds(df, name="data")
        fitted = [_Column.fit(df[c], kinds[c]) for c in df.columns]
        return cls([c for c, _ in fitted], np.column_stack([v for _, v in fitted]))

    @property
    def numeric(self) -> np.ndarray:
        return np.array([c.numeric for c in self.columns])

    def decode(self, matrix: np.ndarray) -> pd.DataFrame:
        return pd.concat([c.decode(matrix[:, j]) for j, c in enumerate(self.columns)], axis=1)


# --------------------------------------------------------------------------------------------
# Shared machinery
# --------------------------------------------------------------------------------------------
def _rng(random_state) -> np.random.Generator:
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise PrivlibError(
            f"`random_state` must be None, a non-negative integer or a numpy Generator, got {random_state!r}."
        ) from exc


def _check_number(value, parameter: str, *, low: float, high: float = np.inf, low_open=False):
    """Check that a real-valued hyper-parameter is a number within its range."""
    # A Real compares as a float does; typeshed's numbers.Real declares only < and <=.
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or np.isnan(cast(float, value)):
        raise PrivlibError(f"`{parameter}` must be a number, got {value!r}.")
    too_low = value <= low if low_open else value < low
    if too_low or cast(float, value) > high:
        bracket = "(" if low_open else "["
        raise PrivlibError(f"`{parameter}` must lie in {bracket}{low}, {high}], got {value!r}.")


def _pick_rows(n_train: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Training rows to release: all in order, a subset in order, or a draw with replacement."""
    if n == n_train:
        return np.arange(n_train)
    if n < n_train:
        return np.sort(rng.choice(n_train, size=n, replace=False))
    return rng.integers(0, n_train, size=n)


class _Synthesizer:
    """Common ``fit`` / ``sample`` plumbing; subclasses implement ``_fit`` and ``_sample``."""

    def __repr__(self) -> str:
        params = inspect.signature(type(self)).parameters
        shown = ", ".join(f"{p}={getattr(self, p)!r}" for p in params)
        return f"{type(self).__name__}({shown})"

    def fit(self, df: pd.DataFrame):
        """Learn from the training table ``df``.

        Parameters
        ----------
        df : pandas.DataFrame
            The real records. No column may be entirely missing or hold a single value.

        Returns
        -------
        self

        Raises
        ------
        PrivlibError
            For an empty table, a constant or entirely missing column, an unsupported column
            type, infinite numbers, or a bad hyper-parameter.
        """
        # forget an earlier fit first, so a failed refit cannot leave a usable half-state
        vars(self).pop("n_train_", None)
        self._check_params()
        data = check_frame(df, "data", reject_constant=True).reset_index(drop=True)
        self.columns_ = list(data.columns)
        self.data_ = data
        try:
            self.table_ = _Table.fit(data)
            self._fit(data)
        except MemoryError:
            raise DataError(
                f"fitting {type(self).__name__} to {len(data):,} rows x {data.shape[1]} columns ran out "
                "of memory; fit it to fewer rows (n_train of a params file) or fewer columns."
            ) from None
        self.n_train_ = len(data)  # set last: its presence marks a fitted synthesizer
        return self

    def sample(self, n: int | None = None, random_state=None) -> pd.DataFrame:
        """Draw a synthetic table.

        Parameters
        ----------
        n : int, optional
            Number of rows; by default as many as the training table.
        random_state : int, numpy.random.Generator or None
            Seed of the one random generator used; the same seed gives the same table.

        Returns
        -------
        pandas.DataFrame
            ``n`` rows with the training columns, in the same order and with the same dtypes,
            indexed 0..n-1.
        """
        if not hasattr(self, "n_train_"):
            raise PrivlibError(
                f"this {type(self).__name__} is not fitted yet; call fit(train) before sample()."
            )
        if n is None:
            n = self.n_train_
        else:
            check_value(n, "n", [Integer(low=1, high=MAX_SAMPLE_ROWS)])
        try:
            out = self._sample(int(n), _rng(random_state))
        except MemoryError:
            raise DataError(
                f"drawing {int(n):,} rows from {type(self).__name__} ran out of memory; lower `n` "
                "(the synthesizer's number of rows)."
            ) from None
        out.index = pd.RangeIndex(int(n))
        return out

    #: The declared constraints of the hyper-parameters (:mod:`privlib.validation`), by name.
    _constraints: dict = {}

    def _check_params(self):
        """Validate the hyper-parameters (called by ``fit``, as scikit-learn does)."""
        for name, accepted in self._constraints.items():
            check_value(getattr(self, name), name, accepted)

    def _fit(self, data: pd.DataFrame):
        """Learn what the method needs beyond ``data_`` and its encoding ``table_``."""

    def _sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        raise NotImplementedError


# --------------------------------------------------------------------------------------------
# The baselines
# --------------------------------------------------------------------------------------------
class Copy(_Synthesizer):
    """Release the training records themselves: the worst case every measure should flag.

    With ``n`` equal to the training size (the default) the rows come back unchanged and in
    order; a smaller ``n`` gives a seeded subset without replacement (kept in training order),
    a larger ``n`` a seeded draw with replacement.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 40, 50], "sex": ["F", "M", "F"]})
    >>> Copy().fit(df).sample().equals(df)
    True
    """

    def _sample(self, n, rng):
        return self.data_.iloc[_pick_rows(self.n_train_, n, rng)].copy()


class AdditiveNoise(_Synthesizer):
    """The training records with noise added: close to copying, and meant to look it.

    The rows are chosen as by :class:`Copy` (all, in order, by default). Each numeric value gets
    Gaussian noise with standard deviation ``noise_scale`` times the column's standard deviation
    (integers and dates are rounded afterwards; values may leave the observed range, e.g. a
    negative amount). Each categorical value, missing included, is re-drawn with probability
    ``flip_prob`` from the column's training marginal (so it may come out unchanged). A missing
    numeric value stays missing.

    Parameters
    ----------
    noise_scale : float, default 0.1
        Noise standard deviation as a multiple of each numeric column's standard deviation,
        from 0 to :data:`MAX_NOISE`.
    flip_prob : float, default 0.05
        Probability that a categorical value is re-drawn, in [0, 1].

    References
    ----------
    Yale et al. 2019 use an additive noise model as a baseline that membership inference
    exposes almost completely.
    """

    _constraints = {"noise_scale": [Number(low=0, high=MAX_NOISE)], "flip_prob": [Number(low=0, high=1)]}

    def __init__(self, noise_scale: float = 0.1, flip_prob: float = 0.05):
        self.noise_scale = noise_scale
        self.flip_prob = flip_prob

    def _fit(self, data):
        self.sd_ = np.nanstd(self.table_.matrix, axis=0, ddof=1)

    def _sample(self, n, rng):
        train = self.table_.matrix
        out = train[_pick_rows(self.n_train_, n, rng)]
        for j, numeric in enumerate(self.table_.numeric):
            if numeric:
                out[:, j] += rng.normal(0.0, self.noise_scale * self.sd_[j], size=n)
            else:
                flip = rng.random(n) < self.flip_prob
                out[flip, j] = train[rng.integers(0, self.n_train_, size=flip.sum()), j]
        return self.table_.decode(out)


class IndependentMarginals(_Synthesizer):
    """Every column drawn on its own from its training values: marginals kept, links lost.

    Each value of each column is an independent draw, with replacement, from the observed
    values of that column (missing included, so the missing share is kept). Numeric values are
    not jittered: every synthetic value is one seen in training, only the combinations are new.
    """

    def _sample(self, n, rng):
        train = self.table_.matrix
        rows = rng.integers(0, self.n_train_, size=(n, train.shape[1]))
        return self.table_.decode(np.take_along_axis(train, rows, axis=0))


class GaussianCopula(_Synthesizer):
    """A multivariate normal on rank scores: marginals kept, pairwise rank correlation kept.

    Fit: the observed values of each column become normal scores ``z = Phi^-1((r - 1/2) / m)``,
    with ``r`` their average rank among the column's ``m`` observed values. A category therefore
    takes the normal score of the middle of its interval of cumulative shares (categories in the
    order of their codes: the declared order for ordinal columns, an arbitrary but fixed one for
    nominal columns). A column with missing values adds one more variable, its missing/present
    indicator, scored the same way, so missingness can correlate with the other variables. The
    model is the correlation matrix of all scores, each pair computed over the rows where both
    are observed (its negative eigenvalues, if any, are clipped to zero).

    Sample: draw normal vectors with that correlation and map each coordinate ``u = Phi(z)`` back
    through the column's empirical distribution of observed values: a categorical column takes
    the category whose cumulative-share interval holds ``u``; a numeric column takes the
    empirical quantile (linear interpolation between observed values, so values between the
    observed ones appear). A value is then set missing where the indicator's ``u`` falls below
    the column's missing share.

    With few categories the rank scores are coarse, so the correlations of a categorical column
    come out somewhat weaker in the sample than in the training data.

    References
    ----------
    Patki et al. 2016 (the Synthetic Data Vault) popularised the Gaussian copula synthesizer;
    Yale et al. 2019 found a Gaussian multivariate model close to the no-risk line.
    """

    def _fit(self, data):
        train = self.table_.matrix
        missing = np.isnan(train)
        self.with_missing_ = np.flatnonzero(missing.any(axis=0))
        self.missing_share_ = missing.mean(axis=0)
        # present = 1 ranks above missing = 0, so a low indicator score means "missing"
        variables = np.hstack([train, (~missing[:, self.with_missing_]).astype("float64")])
        ranks = stats.rankdata(variables, axis=0, nan_policy="omit")
        scores = special.ndtri((ranks - 0.5) / (~np.isnan(variables)).sum(axis=0))
        correlation = pd.DataFrame(scores).corr().fillna(0.0).to_numpy(copy=True)
        np.fill_diagonal(correlation, 1.0)
        self.correlation_ = correlation
        # A square root of the correlation that tolerates the near-singular matrices of
        # duplicated variables (e.g. Adult's education and education-num) and the slightly
        # indefinite ones that pairwise-complete correlations can give.
        eigval, eigvec = np.linalg.eigh(correlation)
        self.root_ = eigvec * np.sqrt(np.clip(eigval, 0.0, None))
        self.sorted_ = [np.sort(col[~np.isnan(col)]) for col in train.T]

    def _sample(self, n, rng):
        u = special.ndtr(rng.standard_normal((n, len(self.correlation_))) @ self.root_.T)
        out = np.empty((n, len(self.sorted_)))
        for j, (numeric, observed) in enumerate(zip(self.table_.numeric, self.sorted_)):
            if numeric:
                out[:, j] = np.quantile(observed, u[:, j])
            else:
                # inverse of the empirical CDF: the first value whose cumulative share exceeds u
                index = np.minimum(np.floor(u[:, j] * observed.size).astype(int), observed.size - 1)
                out[:, j] = observed[index]
        indicators = u[:, len(self.sorted_) :]
        for k, column in enumerate(self.with_missing_):
            out[indicators[:, k] < self.missing_share_[column], column] = np.nan
        return self.table_.decode(out)


class ParzenWindows(_Synthesizer):
    """Kernel density estimate: a random training record plus Gaussian kernel noise.

    The records are embedded with numeric columns standardised (mean 0, standard deviation 1)
    and categorical columns one-hot coded (missing as a category of its own). A synthetic record
    is a training record picked at random plus independent Gaussian noise of standard deviation
    ``bandwidth`` in every coordinate, decoded back: numeric values by undoing the
    standardisation (then rounding integers and dates), categorical values by the largest
    coordinate of the noisy one-hot block (the nearest category). A numeric column with missing
    values gets a two-way present/missing block decoded the same way; a value drawn as present
    for a record that was missing is centred on the column mean.

    A tiny bandwidth returns near-copies (over-fitting); a large one blurs the records until
    categories are nearly random (under-fitting).

    Parameters
    ----------
    bandwidth : float, default 0.1
        Kernel standard deviation in standardised units; positive, at most :data:`MAX_NOISE`.

    References
    ----------
    Parzen E. On estimation of a probability density function and mode. Ann Math Stat 33(3),
    1962. Yale et al. 2019 report a membership AUC near 0.8 for Parzen windows whether over- or
    under-fitted.
    """

    _constraints = {"bandwidth": [Number(low=0, high=MAX_NOISE, closed="right")]}

    def __init__(self, bandwidth: float = 0.1):
        self.bandwidth = bandwidth

    def _fit(self, data):
        train = self.table_.matrix
        self.mean_ = np.nanmean(train, axis=0)
        sd = np.nanstd(train, axis=0)
        self.sd_ = np.where(sd > 0, sd, 1.0)
        # the one-hot states of a categorical column: its observed codes, NaN (missing) last,
        # so a category the dtype declares but no record holds is never generated
        self.levels_ = [
            None if numeric else np.unique(col) for numeric, col in zip(self.table_.numeric, train.T)
        ]

    def _noisy_argmax(self, states: np.ndarray, n_states: int, rng) -> np.ndarray:
        """Add kernel noise to one-hot vectors and return the index of the largest coordinate."""
        onehot = rng.normal(0.0, self.bandwidth, size=(states.size, n_states))
        onehot[np.arange(states.size), states] += 1.0
        return onehot.argmax(axis=1)

    def _sample(self, n, rng):
        train = self.table_.matrix
        rows = rng.integers(0, self.n_train_, size=n)
        out = np.empty((n, train.shape[1]))
        for j, numeric in enumerate(self.table_.numeric):
            donor = train[rows, j]
            missing = np.isnan(donor)
            if numeric:
                centre = np.where(missing, 0.0, (donor - self.mean_[j]) / self.sd_[j])
                z = centre + rng.normal(0.0, self.bandwidth, size=n)
                out[:, j] = z * self.sd_[j] + self.mean_[j]
                if np.isnan(train[:, j]).any():
                    drawn_missing = self._noisy_argmax(missing.astype("int64"), 2, rng) == 1
                    out[drawn_missing, j] = np.nan
            else:
                levels = self.levels_[j]
                assert levels is not None  # a categorical column has its levels
                states = np.searchsorted(levels, donor)  # NaN sorts last, like in np.unique
                out[:, j] = levels[self._noisy_argmax(states, levels.size, rng)]
        return self.table_.decode(out)


@dataclass
class _LeafDonors:
    """Training values grouped by the leaf of a fitted tree, to draw donors from.

    ``tree=None`` means a single leaf holding the whole column (its marginal).
    """

    tree: DecisionTreeClassifier | DecisionTreeRegressor | None
    leaves: np.ndarray
    starts: np.ndarray
    counts: np.ndarray
    values: np.ndarray

    @classmethod
    def fit(cls, tree, X: np.ndarray | None, values: np.ndarray) -> _LeafDonors:
        leaf = tree.apply(X) if tree is not None else np.zeros(len(values), dtype="int64")
        order = np.argsort(leaf, kind="stable")
        leaves, starts, counts = np.unique(leaf[order], return_index=True, return_counts=True)
        return cls(tree, leaves, starts, counts, values[order])

    def draw(self, X: np.ndarray | None, n: int, rng: np.random.Generator) -> np.ndarray:
        """One donor value per row: uniform among the training values of the row's leaf."""
        leaf = self.tree.apply(X) if self.tree is not None else np.zeros(n, dtype="int64")
        at = np.searchsorted(self.leaves, leaf)
        offset = (rng.random(n) * self.counts[at]).astype("int64")
        return self.values[self.starts[at] + offset]


class SequentialTrees(_Synthesizer):
    """synthpop-style CART: each variable drawn from the leaf of a tree on the ones before it.

    The synthesized variables are visited in turn (``visit_order``). For each, a scikit-learn
    decision tree (a classifier for categorical variables, a regressor for numeric ones, with
    ``min_samples_leaf``) is fitted on the training data to predict it from the variables that
    come before it: the kept variables and the synthesized variables already visited. To sample,
    the synthetic record is passed down the tree and the variable takes the value of a training
    record drawn at random from the leaf it lands in (Reiter 2005; Nowok et al. 2016). In full
    synthesis the first variable has no predecessors and is drawn from its marginal.

    Encoding for scikit-learn: categorical predictors enter as their integer codes (ordinal
    codes, so a nominal variable's splits follow an arbitrary but fixed order of its
    categories); a missing predictor value is coded below every observed value so a split can
    isolate it. Missing values of a categorical variable are a category of their own. For a
    numeric variable with missing values, missingness is modelled first (a tree on a missing
    indicator, donors drawn from its leaves) and the value second (a tree fitted on the records
    where it is observed), so the missing share is kept.

    The trees are grown in ``fit`` deterministically; randomness enters only when donors are
    drawn in ``sample``.

    Parameters
    ----------
    min_samples_leaf : int, default 5
        Fewest training records in a leaf (synthpop's ``minbucket``). Small leaves copy more
        of the training data; large leaves smooth it. From 1 to :data:`MAX_LEAF`.
    synthesize : list of str, optional
        Synthesize only these columns and keep the others unchanged (partially synthetic data):
        row i of the sample is then the synthetic version of training row i, and ``n`` must be
        None or the training size. By default (or when every column is named) every column is
        synthesized and ``n`` is free.
    visit_order : list of str, optional
        Order in which the synthesized columns are visited; it must name each of them once.
        By default they are visited in the order of the table.

    Attributes
    ----------
    kept_ : list of str
        Columns copied unchanged (empty for fully synthetic data).
    visit_order_ : list of str
        The synthesized columns in the order they are drawn.

    References
    ----------
    Reiter JP. Using CART to generate partially synthetic public use microdata. J Official
    Statistics 21(3), 2005. Nowok B, Raab GM, Dibben C. synthpop: bespoke creation of synthetic
    data in R. J Statistical Software 74(11), 2016.

    Examples
    --------
    >>> import privlib as pl
    >>> ce = pl.load_dataset("ce")
    >>> partial = SequentialTrees(synthesize=["Expenditure"]).fit(ce).sample(random_state=0)
    >>> partial["Income"].equals(ce["Income"])
    True
    """

    _constraints = {"min_samples_leaf": [Integer(low=1, high=MAX_LEAF)]}

    def __init__(self, min_samples_leaf: int = 5, synthesize=None, visit_order=None):
        self.min_samples_leaf = min_samples_leaf
        self.synthesize = synthesize
        self.visit_order = visit_order

    def _plan(self, data: pd.DataFrame) -> tuple[list, list]:
        """Return (kept columns, synthesized columns in visiting order) after checking both."""
        columns = list(data.columns)
        chosen = columns if self.synthesize is None else check_columns(data, self.synthesize, "synthesize")
        if len(set(chosen)) != len(chosen):
            raise PrivlibError(f"`synthesize` names a column twice: {chosen}; name each once.")
        if self.visit_order is None:
            order = [c for c in columns if c in chosen]
        else:
            order = check_columns(data, self.visit_order, "visit_order")
            left_out = [c for c in chosen if c not in order]
            foreign = [c for c in order if c not in chosen]
            repeated = sorted({c for c in order if order.count(c) > 1}, key=str)
            if left_out or foreign or repeated:
                raise PrivlibError(
                    "`visit_order` must name each synthesized column exactly once (left out: "
                    f"{left_out}; not synthesized: {foreign}; repeated: {repeated}). The "
                    f"synthesized columns are {chosen}."
                )
        return [c for c in columns if c not in chosen], order

    def _fit(self, data):
        kept, order = self._plan(data)
        self.kept_, self.visit_order_ = kept, order
        train = self.table_.matrix
        position = {c: j for j, c in enumerate(self.columns_)}
        # predictor code for a missing value: below every observed value of that column
        low, high = np.nanmin(train, axis=0), np.nanmax(train, axis=0)
        self.missing_code_ = low - np.maximum(1.0, high - low)
        # (column index, predictor indices, donors for missingness, donors)
        self.steps_: list[tuple[int, list[int], _LeafDonors | None, _LeafDonors]] = []
        before = [position[c] for c in kept]
        for column in order:
            j = position[column]
            y = train[:, j]
            if not before:
                self.steps_.append((j, [], None, _LeafDonors.fit(None, None, y)))
            else:
                X = self._predictors(train, before)
                gate, donors = self._grow(X, y, self.table_.columns[j].numeric)
                self.steps_.append((j, list(before), gate, donors))
            before.append(j)

    def _tree(self, classifier: bool):
        kind = DecisionTreeClassifier if classifier else DecisionTreeRegressor
        # a fixed seed only settles ties between equally good splits, so fit is deterministic
        return kind(min_samples_leaf=self.min_samples_leaf, random_state=0)

    def _grow(self, X, y, numeric):
        missing = np.isnan(y)
        if not numeric:
            labels = np.where(missing, -1, y).astype("int64")
            return None, _LeafDonors.fit(self._tree(True).fit(X, labels), X, y)
        if not missing.any():
            return None, _LeafDonors.fit(self._tree(False).fit(X, y), X, y)
        flags = missing.astype("int64")
        gate = _LeafDonors.fit(self._tree(True).fit(X, flags), X, missing)
        Xo, yo = X[~missing], y[~missing]
        return gate, _LeafDonors.fit(self._tree(False).fit(Xo, yo), Xo, yo)

    def _predictors(self, matrix: np.ndarray, columns: list) -> np.ndarray:
        X = matrix[:, columns]
        return np.where(np.isnan(X), self.missing_code_[columns], X)

    def _sample(self, n, rng):
        partial = bool(self.kept_)
        if partial and n != self.n_train_:
            raise PrivlibError(
                f"`n` must be None or {self.n_train_} (the training size) for partially "
                f"synthetic data, where row i is the synthetic version of training row i; got {n}."
            )
        out = np.full((n, len(self.columns_)), np.nan)
        if partial:
            out[:] = self.table_.matrix
        for j, before, gate, donors in self.steps_:
            X = self._predictors(out, before) if before else None
            out[:, j] = donors.draw(X, n, rng)
            if gate is not None:
                out[gate.draw(X, n, rng), j] = np.nan
        synthetic = self.table_.decode(out)
        for column in self.kept_:
            synthetic[column] = self.data_[column]  # same RangeIndex: copied row by row
        return synthetic


class OutlierCopies(_Synthesizer):
    """A leaky foil: a fitted generator whose release also holds its most isolated training records.

    A teaching foil for the worst case (notebook 08): ``base`` (by default
    :class:`SequentialTrees`) draws the release, then ``n_copies`` of its rows are replaced by
    the training records farthest (in Gower distance) from their nearest other training record,
    and the rows are shuffled. The average-case measures of :mod:`privlib.membership` barely
    move, since a handful of copies among hundreds of records shifts a mean over records by a
    few per cent; those few persons are nevertheless exposed, and an attack that targets them
    (:func:`privlib.targeted.shadow_model_attack`) finds them. Generators that memorise rare
    records behave this way (Stadler, Oprisanu & Troncoso 2022).

    Parameters
    ----------
    base : str, default "SequentialTrees"
        Name of the generator that draws the rest of the release (a key of
        :data:`SYNTHESIZERS`).
    n_copies : int, default 5
        How many of the most isolated training records are released (at most the sample size
        and fewer than the training records).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"age": [30, 31, 32, 33, 34, 35, 90] * 3,
    ...                    "sex": ["F", "M", "F", "M", "F", "M", "F"] * 3})
    >>> df.loc[20, "age"] = 200
    >>> fake = OutlierCopies(n_copies=1).fit(df).sample(random_state=0)
    >>> int((fake["age"] == 200).sum())
    1
    """

    def __init__(self, base: str = "SequentialTrees", n_copies: int = 5):
        self.base = base
        self.n_copies = n_copies

    def _check_params(self):
        if self.base not in SYNTHESIZERS or self.base == "OutlierCopies":
            raise PrivlibError(
                f"`base` must be one of {[n for n in SYNTHESIZERS if n != 'OutlierCopies']}, "
                f"got {self.base!r}."
            )
        if (
            isinstance(self.n_copies, bool)
            or not isinstance(self.n_copies, numbers.Integral)
            or self.n_copies < 0
        ):
            raise PrivlibError(f"`n_copies` must be a whole number >= 0, got {self.n_copies!r}.")

    def _fit(self, data):
        from privlib.neighbors import nearest_distances  # numba: loaded only when needed

        if self.n_copies >= len(data):
            raise DataError(
                f"`n_copies` ({self.n_copies}) must be below the number of training records ({len(data)})."
            )
        self.model_ = make(self.base).fit(data)
        distance = nearest_distances(data, data, exclude_self=True)
        # the most isolated first, ties broken by the lower row position
        self.copied_ = np.lexsort((np.arange(len(data)), -distance))[: self.n_copies]

    def _sample(self, n, rng):
        if self.n_copies > n:
            raise PrivlibError(f"`n` ({n}) must be at least `n_copies` ({self.n_copies}).")
        drawn = (
            self.model_.sample(n - self.n_copies, random_state=rng)
            if n > self.n_copies
            else self.data_.iloc[:0]
        )
        released = pd.concat([drawn, self.data_.iloc[self.copied_]], ignore_index=True)
        return released.iloc[rng.permutation(n)].reset_index(drop=True)


# --------------------------------------------------------------------------------------------
# Registry
# --------------------------------------------------------------------------------------------
SYNTHESIZERS = {
    cls.__name__: cls
    for cls in (
        Copy,
        AdditiveNoise,
        IndependentMarginals,
        GaussianCopula,
        ParzenWindows,
        SequentialTrees,
        OutlierCopies,
    )
}


#: Synthesizers that live in their own module, imported on first use.
_LAZY = {"MST": "privlib.dp"}


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'privlib.synth' has no attribute {name!r}")


def make(name: str, **params) -> _Synthesizer:
    """Build a synthesizer from its class name and hyper-parameters.

    Parameters
    ----------
    name : str
        One of the keys of :data:`SYNTHESIZERS` (``"Copy"``, ``"AdditiveNoise"``,
        ``"IndependentMarginals"``, ``"GaussianCopula"``, ``"ParzenWindows"``,
        ``"SequentialTrees"``, ``"OutlierCopies"``), or ``"MST"`` (:class:`privlib.dp.MST`,
        differentially private).
    **params
        Hyper-parameters of that class.

    Raises
    ------
    PrivlibError
        For an unknown name, a hyper-parameter the class does not take, or a value outside the
        class's own constraints (checked now, before any table is made, by the same
        ``_check_params`` that ``fit`` calls).
    """
    if not isinstance(name, str):
        raise PrivlibError(f"the synthesizer's name must be a text, got {type(name).__name__}.")
    if name not in SYNTHESIZERS and name not in _LAZY:
        raise PrivlibError(f"unknown synthesizer {name!r}; choose one of {list(SYNTHESIZERS) + list(_LAZY)}.")
    cls = SYNTHESIZERS[name] if name in SYNTHESIZERS else __getattr__(name)
    accepted = list(inspect.signature(cls).parameters)
    unknown = [p for p in params if p not in accepted]
    if unknown:
        raise PrivlibError(f"{name} takes no parameter {unknown}; its parameters are {accepted or 'none'}.")
    model = cls(**params)
    model._check_params()
    return model


def synthesize(
    df: pd.DataFrame, method: str = "SequentialTrees", n: int | None = None, random_state=None, **params
) -> pd.DataFrame:
    """Fit the synthesizer ``method`` on ``df`` and return one sample, in one call.

    Parameters
    ----------
    df : pandas.DataFrame
        The training table.
    method : str, default "SequentialTrees"
        Name of the synthesizer (see :func:`make`).
    n : int, optional
        Number of synthetic rows (default: as many as ``df``).
    random_state : int, numpy.random.Generator or None
        Seed for the sample.
    **params
        Hyper-parameters of the synthesizer.

    Returns
    -------
    pandas.DataFrame
        The synthetic table, with the columns and dtypes of ``df``.
    """
    return make(method, **params).fit(df).sample(n, random_state=random_state)
