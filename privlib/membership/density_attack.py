"""The DOMIAS density attack: is the synthetic data denser around training records than around
unseen ones?

**Density attack**, DOMIAS (van Breugel, Sun, Qian & van der Schaar 2023),
:func:`density_attack`. A generator that over-fits puts more mass near its training records than
the population does. DOMIAS scores each record ``x`` by the density ratio
``p_S(x) / p_R(x)``: the density of the synthetic data over that of a reference sample of the
population, both estimated on the kit's encoding. A member should score higher than a
non-member; the AUC over training (members) and holdout (non-members) records measures it. The
ratio, rather than ``p_S`` alone, is what keeps a record in a dense region of the population from
looking like a member just because the region is dense.

Encoding for the densities: numeric variables divided by their range, categorical variables
one-hot times one half, the embedding in which L1 distance is Gower distance (Gower 1971) times
the number of variables, so that every variable weighs alike.

References
----------
van Breugel B, Sun H, Qian Z, van der Schaar M. Membership inference attacks against synthetic
data through overfitting detection. AISTATS 2023 (DOMIAS, Section 3, eq. 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import KernelDensity

from privlib.declaration import MeasureSpec
from privlib.membership.rank_sums import _auc_with_interval
from privlib.membership.targeted_setup import _category_slot, _check_tables
from privlib.results import Result, per_record
from privlib.rules import LOW_FPRS, Threshold, low_fpr_key, low_fpr_rule
from privlib.schema import MISSING, NUMERIC, TableEncoder
from privlib.uncertainty import BOOTSTRAP, check_confidence
from privlib.validation import (
    CONFIDENCE,
    Integer,
    Number,
    Options,
    RandomState,
    Table,
    validate_params,
)

__all__ = [
    "KEY",
    "LOW_FPR_ATTACK",
    "DensityAttack",
    "density_attack",
    "DENSITY_ATTACK_AUC",
    "DENSITY_ATTACK_LOW_FPR",
]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "density_attack_auc"

#: The attack's name in the keys of its readings at low false-positive rates.
LOW_FPR_ATTACK = "density_attack"


@dataclass(frozen=True, kw_only=True)
class DensityAttack(Result):
    """Result of :func:`density_attack`: the AUC of the DOMIAS density-ratio score.

    ``score`` holds the log density ratio of every training record, then every holdout record;
    ``is_member`` says which is which.
    """

    estimator: str = "kde"
    n_train: int = 0
    n_holdout: int = 0
    score: np.ndarray = per_record(default=None)
    is_member: np.ndarray = per_record(default=None)

    def reading(self) -> str:
        return (
            f"Scoring {self.n_train} training and {self.n_holdout} holdout records by the density "
            f"of the synthetic data over that of a reference sample ({self.estimator}), members "
            f"rank above non-members with AUC {self.value:.3f} ({self.ci_low:.3f} to "
            f"{self.ci_high:.3f}; chance {self.baseline:.1f})."
        )


def _embedding(encoder: TableEncoder, table: pd.DataFrame, name: str) -> np.ndarray:
    """Numeric values over their range, categories one-hot times 1/2 (missing a category)."""
    codes = encoder.transform(table, name)
    parts = []
    for j, column in enumerate(encoder.columns_):
        x = codes[:, j]
        if encoder.kinds_[column] == NUMERIC:
            # a missing number sits at the middle of the range: it must not pull a record away
            parts.append(np.where(x == MISSING, 0.5, x)[:, None])
        else:
            size = len(encoder.categories_[column]) + 2
            parts.append(0.5 * np.eye(size)[_category_slot(x, size)])
    return np.hstack(parts)


def _log_density(
    fit_on: np.ndarray, at: np.ndarray, estimator: str, bandwidth, n_components, rng
) -> np.ndarray:
    if estimator == "kde":
        if bandwidth is None:  # Scott's rule on the encoded data
            spread = float(np.mean(fit_on.std(axis=0)))
            bandwidth = max(spread, 1e-3) * len(fit_on) ** (-1.0 / (fit_on.shape[1] + 4))
        return KernelDensity(bandwidth=bandwidth).fit(fit_on).score_samples(at)
    mixture = GaussianMixture(
        n_components=min(n_components, len(fit_on)),
        covariance_type="diag",
        reg_covar=1e-4,
        random_state=int(rng.integers(2**31)),
    )
    return mixture.fit(fit_on).score_samples(at)


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "population": [Table()],
        "estimator": [Options("kde", "gmm")],
        "bandwidth": [Number(low=0, closed="neither"), None],
        "n_components": [Integer(low=1)],
        "confidence": [CONFIDENCE],
        "random_state": [RandomState()],
    },
    renamed={"reference": "population"},
)
def density_attack(
    *,
    train,
    holdout,
    synthetic,
    population,
    estimator="kde",
    bandwidth=None,
    n_components=10,
    confidence=0.95,
    random_state=None,
) -> DensityAttack:
    """DOMIAS: membership by the density ratio of synthetic to reference data (van Breugel 2023).

    Every training record (member) and holdout record (non-member) ``x`` is scored by
    ``log p_S(x) - log p_R(x)``, the densities of ``synthetic`` and of ``population`` estimated
    on the kit's encoding (see the module documentation); the AUC says how well the score ranks
    members above non-members.

    Parameters
    ----------
    train, holdout : pandas.DataFrame
        Members (the generator's training data) and non-members from the same population.
    synthetic : pandas.DataFrame
        The released data.
    population : pandas.DataFrame
        Population records the adversary holds, used by neither the generator nor as targets.
    estimator : {"kde", "gmm"}, default "kde"
        A Gaussian kernel density (scikit-learn ``KernelDensity``) or a Gaussian mixture with
        diagonal covariances (``GaussianMixture``), one fitted on each of ``synthetic`` and
        ``population``.
    bandwidth : float, optional
        Kernel width in encoded units (numeric ranges are 1, categories 1/2 apart per
        indicator). Default: Scott's rule, ``s * n**(-1/(d+4))`` with ``s`` the mean standard
        deviation of the encoded columns, computed for each of the two tables.
    n_components : int, default 10
        Mixture components for ``"gmm"``.
    confidence : float, default 0.95
        Level of the bootstrap interval (members and non-members resampled separately).
    random_state : int, numpy.random.Generator or None
        Seed of the mixture fits and the bootstrap.

    Returns
    -------
    DensityAttack
        ``value`` the AUC with its interval, baseline 0.5; per record ``score`` and
        ``is_member`` (training records first).

    Examples
    --------
    >>> import pandas as pd
    >>> members = pd.DataFrame({"x": [0.0, 10.0]})
    >>> others = pd.DataFrame({"x": [5.0, 5.5]})
    >>> population = pd.DataFrame({"x": [0.0, 2.5, 5.0, 7.5, 10.0]})
    >>> result = density_attack(train=members, holdout=others, synthetic=members,
    ...                         population=population, bandwidth=0.05, random_state=0)
    >>> result.value
    1.0
    """
    confidence = check_confidence(confidence)
    tables = {"train": train, "holdout": holdout, "synthetic": synthetic, "population": population}
    _check_tables(tables)
    n_components = int(n_components)
    rng = np.random.default_rng(random_state)
    columns = list(train.columns)
    tables = {name: t[columns] for name, t in tables.items()}
    encoder = TableEncoder().fit(*tables.values(), names=list(tables))
    embedded = {name: _embedding(encoder, t, name) for name, t in tables.items()}
    queries = np.vstack([embedded["train"], embedded["holdout"]])
    log_synthetic = _log_density(embedded["synthetic"], queries, estimator, bandwidth, n_components, rng)
    log_population = _log_density(embedded["population"], queries, estimator, bandwidth, n_components, rng)
    with np.errstate(invalid="ignore"):
        score = log_synthetic - log_population
    is_member = np.r_[np.ones(len(train), dtype=bool), np.zeros(len(holdout), dtype=bool)]
    # far from every record both densities can underflow to 0: the ratio says nothing (score 0);
    # one underflowing alone gives an infinite score, which still ranks right
    score = np.where(np.isnan(score), 0.0, score)
    auc, low, high = _auc_with_interval([score[~is_member], score[is_member]], rng, confidence)
    result = DensityAttack(
        measure=KEY,
        value=auc,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        baseline=0.5,
        estimator=estimator,
        n_train=len(train),
        n_holdout=len(holdout),
        score=score,
        is_member=is_member,
    )
    return result


#: The audit does not run it (kernel densities cost an ``n x n`` sum; the attack ensemble holds a
#: k-nearest-neighbour density ratio instead).
DENSITY_ATTACK_AUC = MeasureSpec(
    KEY,
    "Density membership attack, DOMIAS (AUC)",
    "membership",
    Threshold(
        0.05,
        from_baseline=True,
        source="kit default: an attack AUC more than 0.05 above chance (0.5), as for "
        "nn_mia_auc; van Breugel et al. (2023, DOMIAS) report AUCs against 0.5 without a "
        "cut-off",
        scope="ranks every record by how much denser the synthetic data is around it than a "
        "reference sample of real data: local over-fitting, as DOMIAS defines it",
        risk_words="the synthetic data is denser around training records than around unseen ones",
        safe_words="the synthetic data is no denser around training records than around "
        "unseen ones, within the margin",
    ),
)

#: The attack read at false-positive rates of 0.1% and 1% (:func:`privlib.records.tpr_at_low_fpr`).
DENSITY_ATTACK_LOW_FPR = tuple(
    MeasureSpec(
        low_fpr_key(LOW_FPR_ATTACK, rate),
        f"Density attack, DOMIAS, at a false-positive rate of {100 * rate:g}% (TPR)",
        "membership",
        low_fpr_rule("density-ratio", f"{100 * rate:g}%"),
    )
    for rate in LOW_FPRS
)
