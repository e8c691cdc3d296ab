"""A calibrated ensemble of membership attacks, and near copies read against their neighbourhood.

Every distance measure of :mod:`privlib.membership` reads one number per record, its distance to
the closest synthetic record. Yao et al. (2025, "The DCR delusion") show releases that pass such
tests while other attacks find members, and Synth-MIA (Ward et al. 2025) reports that no single
attack dominates, so that the honest estimate is the maximum over several. This module runs
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
    (:func:`privlib.targeted.density_attack`) cost an ``n x n`` sum the audit cannot afford at
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

:func:`near_copy_test` is the near-copy evidence on its own: the distance to the nearest
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

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from threadpoolctl import threadpool_limits

from privlib.errors import DataError
from privlib.matching import query_samples, sample_size, sampled
from privlib.neighbors import kneighbors
from privlib.records import LOW_FPRS, LowFprPoint, family_tests, tpr_at_low_fpr
from privlib.results import NOT_ASSESSABLE, QuerySampled, per_record
from privlib.schema import TableEncoder, check_comparable, check_frame
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import CLIENT, CONFIDENCE, Integer, RandomState, Table, validate_params

__all__ = [
    "ATTACKS",
    "N_NEIGHBOURS",
    "MaxOverTests",
    "RealNeighbourhoods",
    "attack_ensemble",
    "ensemble_scores",
    "near_copy_test",
    "real_neighbourhoods",
]

#: The attacks of :func:`attack_ensemble`, in the order of its table.
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


# --------------------------------------------------------------------------------------------
# The neighbourhoods every attack reads
# --------------------------------------------------------------------------------------------
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


# --------------------------------------------------------------------------------------------
# The attacks' scores (higher: more likely a member)
# --------------------------------------------------------------------------------------------
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
    from privlib.membership import _check_threads, _coded_features
    from privlib.schema import infer_kinds

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


# --------------------------------------------------------------------------------------------
# The maximum over tests
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class MaxOverTests(QuerySampled):
    """The strongest of several attacks read at low false-positive rates, corrected for the choice.

    Each attack is read at each rate of ``fprs`` by :func:`privlib.records.tpr_at_low_fpr`; Holm's
    adjustment runs over the ``n_tests`` assessable readings. The *deciding* reading is the one
    with the smallest adjusted p-value (the most members called among ties): ``value`` is its
    true-positive rate, ``p_value`` its adjusted p-value, ``raw_p_value`` its own, and
    ``baseline`` the largest TPR that its exact test at level ``(1 - confidence) / n_tests`` (where
    Holm's first step rejects) puts down to chance, so that "value above baseline" is the adjusted
    test. ``ci_low``/``ci_high`` is its Clopper-Pearson interval, shown beside the exact test that
    decides, ``excess_members`` the members it calls beyond the holdout rate (the records at risk)
    and ``excess_low``/``excess_high`` that interval in records. ``aucs`` gives each attack's AUC, ``found`` lists the readings
    significant after adjustment, and :meth:`per_attack` is the table of every reading.
    """

    attacks: tuple
    fprs: tuple
    deciding_attack: str = ""
    deciding_fpr: float = math.nan
    n_tests: int = 0
    n_members: int = 0
    n_nonmembers: int = 0
    members_called: int = 0
    nonmembers_called: int = 0
    critical_count: int | None = None
    excess_members: int = 0
    excess_low: float = math.nan
    excess_high: float = math.nan
    p_value: float = math.nan
    raw_p_value: float = math.nan
    aucs: dict | None = None
    found: tuple = ()
    points: dict = per_record(default=None)
    adjusted: dict = per_record(default=None)

    def per_attack(self) -> pd.DataFrame:
        """One row per attack: its AUC and, per rate, the members called, the TPR and the raw
        and Holm-adjusted p-values (aggregates only)."""
        rows = []
        for attack in self.attacks:
            row = {"attack": attack, "AUC": self.aucs[attack] if self.aucs else math.nan}
            for rate in self.fprs:
                point = self.points[(attack, rate)]
                label = f"{100 * rate:g}%"
                assessable = point.verdict != NOT_ASSESSABLE
                row[f"members called at {label}"] = point.members_called if assessable else None
                row[f"TPR at {label}"] = point.value
                row[f"p at {label}"] = point.p_value
                row[f"adjusted p at {label}"] = self.adjusted.get(_test_key(attack, rate), math.nan)
            rows.append(row)
        return pd.DataFrame(rows)

    def reading(self) -> str:
        if self.verdict == NOT_ASSESSABLE or math.isnan(self.value):
            text = "The attacks cannot be read at these false-positive rates"
            sample = self._sample_text()
            return (
                self.with_judgement(f"{text}.{sample}")
                if self.judgement
                else f"{text}: {self.verdict_rule}.{sample}"
            )
        found = "; ".join(self.found) if self.found else "none after the adjustment"
        assert self.ci_low is not None and self.ci_high is not None  # an assessed reading has one
        return self.with_judgement(
            f"Of {self.n_tests} readings ({', '.join(self.attacks)} at false-positive rates of at "
            f"most {', '.join(f'{100 * r:g}%' for r in self.fprs)}), the strongest is "
            f"{self.deciding_attack} at {100 * self.deciding_fpr:g}%: it calls {self.members_called} "
            f"of {self.n_members} training records and {self.nonmembers_called} of "
            f"{self.n_nonmembers} holdout records, TPR {100 * self.value:.2g}% "
            f"({self.confidence:.0%} interval {100 * self.ci_low:.2g}% to {100 * self.ci_high:.2g}%), "
            f"{self.excess_members} records beyond the holdout rate ({self.excess_low:.1f} to "
            f"{self.excess_high:.1f}); Holm-adjusted p = {self.p_value:.2g} (its own "
            f"{self.raw_p_value:.2g}). Found: {found}.{self._sample_text()}"
        )


def _test_key(attack: str, fpr: float) -> str:
    return f"{attack} at {100 * fpr:g}%"


def _auc(members: np.ndarray, nonmembers: np.ndarray) -> float:
    from privlib.targeted import _auc as mann_whitney_auc

    return mann_whitney_auc(nonmembers, members)


def _max_over_tests(
    scores: dict, fprs, confidence: float, *, measure: str, sample: int | None = None
) -> MaxOverTests:
    """:class:`MaxOverTests` of the attacks' ``scores`` (name -> (members, non-members)), read on
    a sample of at most ``sample`` records per table (``None``: every record)."""
    points = {
        (attack, rate): tpr_at_low_fpr(
            member_scores=members, nonmember_scores=others, fpr=rate, attack=attack, confidence=confidence
        )
        for attack, (members, others) in scores.items()
        for rate in fprs
    }
    holm = family_tests(
        {_test_key(*key): point.p_value for key, point in points.items()}, confidence=confidence
    )
    members, others = next(iter(scores.values()))
    common = dict(
        measure=measure,
        confidence=confidence,
        attacks=tuple(scores),
        fprs=tuple(fprs),
        n_members=members.size,
        n_nonmembers=others.size,
        aucs={attack: _auc(*pair) for attack, pair in scores.items()},
        points=points,
        adjusted=holm.adjusted,
        sample_size=sample,
    )
    assessable = [key for key in points if _test_key(*key) in holm.adjusted]
    if not assessable:
        return MaxOverTests(
            value=math.nan,
            verdict=NOT_ASSESSABLE,
            verdict_rule=f"{others.size} holdout records cannot show a false-positive rate of "
            f"{100 * max(fprs):g}% or below",
            **common,
        )
    deciding = min(assessable, key=lambda key: (holm.adjusted[_test_key(*key)], -points[key].members_called))
    point: LowFprPoint = points[deciding]
    level = (1 - confidence) / len(assessable)
    corrected = tpr_at_low_fpr(
        member_scores=point.member_scores,
        nonmember_scores=point.nonmember_scores,
        fpr=deciding[1],
        confidence=1 - level,
    )
    m, n = point.n_members, point.n_nonmembers
    expected = m * point.nonmembers_called / n  # members an attack blind to membership would call
    assert point.ci_low is not None and point.ci_high is not None  # an assessable reading has one
    return MaxOverTests(
        value=point.value,
        baseline=corrected.baseline,
        deciding_attack=deciding[0],
        deciding_fpr=deciding[1],
        n_tests=len(assessable),
        members_called=point.members_called,
        nonmembers_called=point.nonmembers_called,
        critical_count=corrected.critical_count,
        excess_members=point.excess_members,
        excess_low=max(0.0, m * point.ci_low - expected),
        excess_high=max(0.0, m * point.ci_high - expected),
        ci_low=point.ci_low,
        ci_high=point.ci_high,
        ci_method=point.ci_method,
        p_value=holm.adjusted[_test_key(*deciding)],
        raw_p_value=point.p_value,
        found=tuple(
            f"{_test_key(*key)}: {points[key].members_called} training records called "
            f"(adjusted p = {holm.adjusted[_test_key(*key)]:.2g})"
            for key in assessable
            if holm.significant[_test_key(*key)]
        ),
        **common,
    )


_RELEASE = {
    "train": [Table()],
    "holdout": [Table()],
    "synthetic": [Table()],
    "confidence": [CONFIDENCE],
    "client": [CLIENT, None],
}


@validate_params(_RELEASE | {"random_state": [RandomState()]})
def attack_ensemble(
    *, train, holdout, synthetic, random_state=None, confidence=DEFAULT_CONFIDENCE, client=None
) -> MaxOverTests:
    """The five attacks of :data:`ATTACKS`, each read at false-positive rates of 0.1 % and 1 %,
    judged on the strongest reading after Holm's adjustment over the ten.

    Judged (:func:`privlib.thresholds.judge`): risk when the strongest reading's adjusted p-value
    is at most ``1 - confidence``; inconclusive when it is significant on its own but not after
    the adjustment (as a family reads such a test: :mod:`privlib.audit.family_rule`); no evidence
    of risk otherwise. In an audit the ensemble enters its family's adjustment once, as one test
    with this adjusted p-value (``p_value``), never with its ten readings.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    random_state : int, numpy.random.Generator or None
        Seed of the classifier attack (its folds, samples and model).
    confidence : float, default 0.95
        The adjusted test is one-sided at ``1 - confidence``; level of the intervals.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster.

    Returns
    -------
    MaxOverTests
        Key ``attack_ensemble``; unjudged.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(1000)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(1000)]})
    >>> result = attack_ensemble(train=train, holdout=holdout, synthetic=train, random_state=0)
    >>> result.n_tests, result.members_called, result.value > result.baseline
    (10, 1000, True)
    """
    confidence = check_confidence(confidence)
    scores = ensemble_scores(
        train=train, holdout=holdout, synthetic=synthetic, random_state=random_state, client=client
    )
    sample = ATTACK_RECORDS if max(len(train), len(holdout)) > ATTACK_RECORDS else None
    return _max_over_tests(scores, LOW_FPRS, confidence, measure="attack_ensemble", sample=sample)


@validate_params(_RELEASE | {"random_state": [RandomState()], "max_queries": [Integer(low=2), None]})
def near_copy_test(
    *,
    train,
    holdout,
    synthetic,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
    random_state=None,
    max_queries=None,
) -> MaxOverTests:
    """Near copies: training records far nearer to a synthetic record than to any other real one,
    against holdout records, at false-positive rates of 0.1 % and 1 % (Holm over the two).

    The score is ``log((d_real + c) / (d_synthetic + c))``: the distance to the nearest other real
    record (training and holdout together) over the distance to the nearest synthetic record, with
    ``c`` a thousandth of one variable's range (module documentation). Inside an audit its one
    search beyond those of the other distance measures is the training records' nearest holdout
    records.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    confidence : float, default 0.95
        Holm's adjustment and the exact tests are one-sided at ``1 - confidence``.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster.
    random_state : int, numpy.random.Generator or None
        Seed of the samples of training and holdout records (only drawn beyond ``max_queries``).
    max_queries : int, optional
        Most training and most holdout records scored: beyond it a seeded sample of that many
        (:func:`privlib.matching.query_samples`, the records the other distance measures read
        with the same seed), each searched among every record. ``None``: every record.

    Returns
    -------
    MaxOverTests
        Key ``near_copy_test``; unjudged.

    Examples
    --------
    >>> import pandas as pd
    >>> train = pd.DataFrame({"x": [float(i) for i in range(1000)]})
    >>> holdout = pd.DataFrame({"x": [i + 0.5 for i in range(1000)]})
    >>> synthetic = train.iloc[:30] + 0.01   # 30 near copies: moved by 1/10,000 of the range
    >>> result = near_copy_test(train=train, holdout=holdout, synthetic=synthetic)
    >>> result.deciding_fpr, result.members_called, result.value > result.baseline
    (0.001, 30, True)
    """
    confidence = check_confidence(confidence)
    holdout, synthetic = _check_release(train, holdout, synthetic)
    rows = query_samples(random_state, max_queries, train=len(train), holdout=len(holdout))
    hoods = _neighbourhoods(train, holdout, synthetic, 1, client, (rows["train"], rows["holdout"]))
    score = _near_copy(hoods)
    member = hoods.is_member
    return _max_over_tests(
        {"near_copy": (score[member], score[~member])},
        LOW_FPRS,
        confidence,
        measure="near_copy_test",
        sample=sample_size(*rows.values()),
    )
