"""The simple baselines: :class:`Copy`, :class:`AdditiveNoise`, :class:`IndependentMarginals`,
:class:`GaussianCopula` and :class:`ParzenWindows`."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special, stats

from privlib.synth.base import MAX_NOISE, _pick_rows, _Synthesizer
from privlib.validation import Number


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

    Notes
    -----
    This is the kit's own near-copy foil: each released record is a training record perturbed,
    the noise-addition masking of statistical disclosure control applied to whole rows. It is not
    the Additive Noise Model of Yale et al. (2019), a generator they introduce (after the additive
    noise models of causal discovery, Hoyer et al. 2009) and compare with a copy of the training
    data; the lessons set the two side by side only as generators that stay close to their training
    records (their membership attack exposes theirs completely, AUC 1.0).

    References
    ----------
    Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of
    synthetic health data. AIDR 2019. doi:10.1145/3359115.3359124

    Hoyer PO, Janzing D, Mooij JM, Peters J, Schoelkopf B. Nonlinear causal discovery with additive
    noise models. NeurIPS 2009.
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
