"""The scores of the calibrated membership attacks, each record read against its real and
synthetic neighbours.

Every distance measure of :mod:`privlib.membership` reads one number per record, its distance to
the closest synthetic record. Yao et al. (2025, "The DCR delusion") show releases that pass such
tests while other attacks find members, and Synth-MIA (Ward et al. 2025) reports that no single
attack dominates, so that the honest estimate is the maximum over several. This module scores
five attacks of different kinds on the kit's own neighbour engine (:mod:`privlib.neighbors`,
bounded blocks) and reads each at a false-positive rate of 0.1 % and 1 % with the exact test of
:func:`privlib.records.tpr_at_low_fpr`:

``dcr``
    minus the distance to the closest synthetic record (DCR, the score of
    :func:`privlib.membership.nn_mia` and of Synth-MIA's DCR attack): the distance attack itself
    stays in the ensemble, since it finds near copies in dense regions that the differences and
    ratios below rank behind isolated holdout records.
``dcr_diff``
    distance to the nearest other real record minus distance to the nearest synthetic record
    (DCR-diff, Chen, Yu, Zhang & Fritz 2020, "GAN-Leaks", as Synth-MIA defines it): a synthetic
    record much nearer than the record's real neighbours gives it away.
``density_ratio``
    DOMIAS (van Breugel, Sun, Qian & van der Schaar 2023): the density of the synthetic data at
    the record over that of real data, here with k-nearest-neighbour densities
    (``p(x) ~ 1 / (n r_k(x)^d)``, Loftsgaarden & Quesenberry 1965), whose log ratio ranks records
    as ``log r_k,real(x) - log r_k,synthetic(x)`` whatever the dimension ``d``; kernel densities
    (:func:`privlib.membership.density_attack`) cost an ``n x n`` sum the audit cannot afford at
    scale.
``local_neighbourhood``
    how many of the record's nearest records are synthetic (Synth-MIA's local-neighbourhood
    attack counts synthetic records in a fixed sphere; here the sphere is the record's own
    neighbourhood of ``k`` records, real and synthetic together, so no radius has to be chosen
    on Gower distances, and nearer neighbours weigh more: ``1 / rank``).
``classifier``
    a classifier trained to tell synthetic from real records (Houssiau et al. 2022, TAPAS;
    Synth-MIA's classifier attack): its probability of "synthetic" at a record. It is
    cross-fitted, so no record is scored by a model that saw it.

:func:`~privlib.membership.near_copy_test` is the near-copy evidence on its own: the distance to the nearest
synthetic record relative to the distance to the nearest other real record,
``log((d_real + c) / (d_synthetic + c))`` with ``c`` a thousandth of one variable's range, read
at 0.1 % and 1 %. A copy moved a little stays far nearer to its synthetic twin than to any real
neighbour, which the plain distance misses for records in dense regions.

The adversary and the calibration
---------------------------------
The attacks are no-box (they see the release) and calibrated with real data of the population:
the real records are the training and holdout records together, each record scored against the
others, never itself. No score uses the membership labels, so when the release does not depend
on who was in the training data the training and holdout scores are exchangeable and the exact
test of :mod:`privlib.records` holds for every attack. Holm's adjustment across the attacks and
rates (:func:`privlib.records.family_tests`) then makes the maximum over the ensemble a valid
test: the verdict is read on the test with the smallest adjusted p-value, and the table of the
result says which attack found what.

References
----------
Chen D, Yu N, Zhang Y, Fritz M. GAN-Leaks: a taxonomy of membership inference attacks against
generative models. ACM CCS 2020.

van Breugel B, Sun H, Qian Z, van der Schaar M. Membership inference attacks against synthetic
data through overfitting detection. AISTATS 2023.

Houssiau F, Jordon J, Cohen SN, et al. TAPAS: a toolbox for adversarial privacy auditing of
synthetic data. NeurIPS 2022 workshop on synthetic data.

Loftsgaarden DO, Quesenberry CP. A nonparametric estimate of a multivariate density function.
Annals of Mathematical Statistics 36(3), 1965.

Ward J, et al. Synth-MIA: a testbed for auditing privacy leakage in tabular data synthesis, 2025.

Yao et al. The DCR delusion: measuring the privacy risk of synthetic data, 2025.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

from privlib.errors import DataError
from privlib.matching import sampled
from privlib.membership.discriminator import _check_threads, _coded_features
from privlib.neighbors import kneighbors
from privlib.schema import TableEncoder, check_comparable, check_frame, infer_kinds
from privlib.validation import CLIENT, Integer, RandomState, Table, validate_params

__all__ = [
    "ATTACKS",
    "N_NEIGHBOURS",
    "CLASSIFIER_FIT_ROWS",
    "ATTACK_RECORDS",
    "CLASSIFIER_FOLDS",
    "RealNeighbourhoods",
    "real_neighbourhoods",
    "ensemble_scores",
]

#: The attacks of :func:`~privlib.membership.attack_ensemble`, in the order of its table.
ATTACKS = ("dcr", "dcr_diff", "density_ratio", "local_neighbourhood", "classifier")


#: Neighbours of the density-ratio and local-neighbourhood attacks (the k of a k-NN density).
N_NEIGHBOURS = 5


#: Most records per class a fit of the classifier attack uses: beyond it, a seeded sample, so that
#: the attack's cost stays that of a few thousand rows at any size while every record is scored.
CLASSIFIER_FIT_ROWS = 20_000


#: Most training and most holdout records the ensemble attacks score (a seeded sample beyond it,
#: drawn without looking at any score, so the exact test stays exact): their neighbours are still
#: searched among every record, and the searches cost about a tenth at 200,000 records.
ATTACK_RECORDS = 20_000


#: Folds of the classifier attack's cross-fitting: each real record is scored by the model fitted
#: on the other fold.
CLASSIFIER_FOLDS = 2


@dataclass(frozen=True)
class RealNeighbourhoods:
    """Distances of every training, then every holdout record to its ``k`` nearest synthetic
    records (``to_synthetic``) and to its ``k`` nearest *other* real records, training and
    holdout together (``to_real``), each of shape ``(n_train + n_holdout, k)``, ascending.
    ``scale`` is a thousandth of one variable's range in Gower units (``0.001 / columns``), added to
    both distances of the scores' ratios so that a copy (distance 0) gets a finite score."""

    to_synthetic: np.ndarray
    to_real: np.ndarray
    n_train: int
    scale: float

    @property
    def is_member(self) -> np.ndarray:
        return np.arange(len(self.to_real)) < self.n_train


def _check_release(train, holdout, synthetic) -> tuple[pd.DataFrame, pd.DataFrame]:
    check_frame(train, "train")
    for name, table in (("holdout", holdout), ("synthetic", synthetic)):
        check_frame(table, name)
        check_comparable(train, table, ("train", name), unseen="ignore")
    if len(train) + len(holdout) < 3:
        raise DataError("the attacks need at least 3 real records (training and holdout together).")
    columns = list(train.columns)
    return holdout[columns], synthetic[columns]


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "k": [Integer(low=1)],
        "client": [CLIENT, None],
    }
)
def real_neighbourhoods(*, train, holdout, synthetic, k=1, client=None) -> RealNeighbourhoods:
    """The ``k`` nearest synthetic and other real records of every training and holdout record.

    Gower distance with the encoder of :func:`privlib.membership.nn_mia` (ranges over the three
    tables), so that inside :func:`privlib.search_reuse.reuse_searches` the searches the distance
    measures made are reused: with ``k = 1`` the records' distances to the synthetic data (those of
    ``nn_mia``) and to their own table (those of the privacy loss) cost nothing more. The nearest
    other real record is the nearer of the nearest other record of the own table and the nearest
    record of the other table.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [0.0, 4.0]})
    >>> holdout = pd.DataFrame({"x": [1.0, 8.0]})
    >>> hoods = real_neighbourhoods(train=train, holdout=holdout, synthetic=train)
    >>> hoods.to_synthetic[:, 0].tolist(), hoods.to_real[:, 0].tolist()
    ([0.0, 0.0, 0.125, 0.5], [0.125, 0.375, 0.125, 0.5])
    """
    holdout, synthetic = _check_release(train, holdout, synthetic)
    return _neighbourhoods(train, holdout, synthetic, k, client, rows=(None, None))


def _own_neighbours(own: pd.DataFrame, rows: np.ndarray | None, k: int, options: dict) -> np.ndarray:
    """The ``k`` nearest other records of ``own`` for its records at ``rows`` (all when None)."""
    if rows is None:
        return kneighbors(own, own, k=k, exclude_self=True, **options).distances
    found = kneighbors(own.iloc[rows], own, k=k + 1, **options)
    # drop the record itself where it is listed, else the farthest (twins at distance 0 with lower
    # row numbers can push it out): k others remain either way
    keep = found.indices != rows[:, None]
    keep[keep.all(axis=1), -1] = False
    return found.distances[keep].reshape(len(rows), k)


def _neighbourhoods(train, holdout, synthetic, k, client, rows) -> RealNeighbourhoods:
    """:func:`real_neighbourhoods` of the training and holdout records at ``rows`` (a pair of row
    positions, ``None`` for a whole table), their neighbours searched among every record."""
    encoder = TableEncoder(metric="gower").fit(
        train, holdout, synthetic, names=["train", "holdout", "synthetic"]
    )
    options = dict(metric="gower", encoder=encoder, client=client)
    tables = (train, holdout)
    queries = [sampled(t, r) for t, r in zip(tables, rows)]
    k_synthetic = min(k, len(synthetic))
    to_synthetic = np.vstack([kneighbors(q, synthetic, k=k_synthetic, **options).distances for q in queries])
    k_real = min(k, len(train) + len(holdout) - 1)
    to_real = []
    for own, other, query, own_rows in (
        (train, holdout, queries[0], rows[0]),
        (holdout, train, queries[1], rows[1]),
    ):
        parts = [kneighbors(query, other, k=min(k, len(other)), **options).distances]
        if len(own) > 1:
            parts.append(_own_neighbours(own, own_rows, min(k, len(own) - 1), options))
        to_real.append(np.sort(np.hstack(parts), axis=1)[:, :k_real])
    return RealNeighbourhoods(
        to_synthetic=to_synthetic,
        to_real=np.vstack(to_real),
        n_train=len(queries[0]),
        scale=0.001 / max(len(train.columns), 1),
    )


def _attack_rows(n: int, rng: np.random.Generator) -> np.ndarray | None:
    """Row positions of the records the attacks score: all (None) up to :data:`ATTACK_RECORDS`."""
    return None if n <= ATTACK_RECORDS else np.sort(rng.choice(n, ATTACK_RECORDS, replace=False))


def _dcr_diff(hoods: RealNeighbourhoods) -> np.ndarray:
    return hoods.to_real[:, 0] - hoods.to_synthetic[:, 0]


def _log_ratio(real: np.ndarray, synthetic: np.ndarray, scale: float) -> np.ndarray:
    return np.log(real + scale) - np.log(synthetic + scale)


def _near_copy(hoods: RealNeighbourhoods) -> np.ndarray:
    return _log_ratio(hoods.to_real[:, 0], hoods.to_synthetic[:, 0], hoods.scale)


def _density_ratio(hoods: RealNeighbourhoods) -> np.ndarray:
    return _log_ratio(hoods.to_real[:, -1], hoods.to_synthetic[:, -1], hoods.scale)


def _local_neighbourhood(hoods: RealNeighbourhoods) -> np.ndarray:
    """Weighted count of synthetic records among the record's k nearest (real and synthetic
    merged; a tie goes to the real record, so a record with a real twin is not called on it)."""
    k = hoods.to_real.shape[1]
    merged = np.hstack([hoods.to_real, hoods.to_synthetic])
    is_synthetic = np.hstack([np.zeros_like(hoods.to_real, bool), np.ones_like(hoods.to_synthetic, bool)])
    order = np.argsort(merged, axis=1, kind="stable")[:, :k]
    weights = 1.0 / np.arange(1, k + 1)
    return np.take_along_axis(is_synthetic, order, axis=1) @ weights


def _classifier(train, holdout, synthetic, rng: np.random.Generator) -> np.ndarray:
    """Cross-fitted probability of "synthetic" of every training, then holdout record."""
    (x_train, x_holdout, x_synthetic), categorical = _coded_features(
        (train, holdout, synthetic), infer_kinds(train, name="train")
    )
    real = np.vstack([x_train, x_holdout])
    folds = rng.permutation(len(real)) % CLASSIFIER_FOLDS
    scores = np.empty(len(real))
    for fold in range(CLASSIFIER_FOLDS):
        fit_real = np.flatnonzero(folds != fold)
        fit_real = rng.choice(fit_real, min(fit_real.size, CLASSIFIER_FIT_ROWS), replace=False)
        fit_synthetic = rng.choice(
            len(x_synthetic), min(len(x_synthetic), CLASSIFIER_FIT_ROWS), replace=False
        )
        features = np.vstack([real[np.sort(fit_real)], x_synthetic[np.sort(fit_synthetic)]])
        labels = np.repeat([0, 1], [fit_real.size, fit_synthetic.size])
        model = HistGradientBoostingClassifier(
            categorical_features=categorical,
            class_weight="balanced",
            random_state=int(rng.integers(2**31 - 1)),
        )
        with threadpool_limits(limits=_check_threads(None, labels.size), user_api="openmp"):
            model.fit(features, labels)
            scored = folds == fold
            scores[scored] = model.predict_proba(real[scored])[:, list(model.classes_).index(1)]
    return scores


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Table()],
        "random_state": [RandomState()],
        "client": [CLIENT, None],
    }
)
def ensemble_scores(*, train, holdout, synthetic, random_state=None, client=None) -> dict:
    """Every attack's scores: attack name -> (member scores, non-member scores), higher meaning
    "more likely a member" (module documentation).

    Beyond :data:`ATTACK_RECORDS` training (holdout) records, the attacks score a seeded sample of
    that many, whose neighbours are still searched among every record.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(40)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(40)]})
    >>> members, others = ensemble_scores(train=train, holdout=holdout, synthetic=train,
    ...                                   random_state=0)["dcr_diff"]
    >>> bool(members.min() > others.max())
    True
    """
    holdout, synthetic = _check_release(train, holdout, synthetic)
    rng = np.random.default_rng(random_state)
    rows = (_attack_rows(len(train), rng), _attack_rows(len(holdout), rng))
    hoods = _neighbourhoods(train, holdout, synthetic, N_NEIGHBOURS, client, rows)
    scored = [sampled(t, r) for t, r in zip((train, holdout), rows)]
    scores = {
        # the first of the k nearest: the nearest synthetic and other real records
        "dcr": -hoods.to_synthetic[:, 0],
        "dcr_diff": _dcr_diff(hoods),
        "density_ratio": _density_ratio(hoods),
        "local_neighbourhood": _local_neighbourhood(hoods),
        "classifier": _classifier(scored[0], scored[1], synthetic, rng),
    }
    member = hoods.is_member
    return {name: (score[member], score[~member]) for name, score in scores.items()}
