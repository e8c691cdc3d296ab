"""Copies of rare people: the copy test restricted to the records a copy exposes most.

:func:`privlib.records.copy_test` counts every training record with a synthetic copy against the
holdout records with one. On data with few distinct records (all-categorical tables such as ACS)
a release matches thousands of common records by chance, and ten copied *unique* people vanish in
that noise, although they are exactly the people at risk (Stadler, Oprisanu & Troncoso 2022;
Meeus, Guepin, Cretu & de Montjoye 2023, "Achilles' heels"). :func:`rare_copy_test` runs the same
exact test on the rare records only.

Which records are rare
----------------------
A record is rare when it has no exact twin among the other real records and is among the
``rare_share`` most isolated of them: its mean Gower distance to its
:data:`~privlib.attacks.N_NEIGHBOURS` nearest other real records (training and holdout records
together, the record itself left out), a k-nearest-neighbour outlier score, is at least the
``1 - rare_share`` quantile of those means. On all-categorical data a record that is merely
unique in the sample has look-alikes one value away and a release draws its combination by
chance; a record whose whole neighbourhood is far is rare in the population, and a copy of it is
no accident. With continuous variables, where every record is unique, the rare records are the
outliers. The rule reads no membership label: it ranks training and holdout records alike, so
Fisher's exact test on the rare records stays exact when the release does not depend on who was
in the training data. Beyond :data:`~privlib.attacks.ATTACK_RECORDS` records per table a seeded
sample is ranked (the same as the attack ensemble's for the same seed, so their searches are
made once).

A rare record has a copy as in the copy test: equal in every categorical variable, every number
within ``numeric_tolerance`` of its range (exact and tolerance-near copies). The excess of copied
rare training records over the holdout's rate is the number of people at risk, with Newcombe's
interval (:mod:`privlib.records`).

References
----------
Stadler T, Oprisanu B, Troncoso C. Synthetic data - anonymisation groundhog day. USENIX Security
2022.

Meeus M, Guepin F, Cretu AM, de Montjoye YA. Achilles' heels: vulnerable record identification in
synthetic data publishing. ESORICS 2023.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privlib.attacks import N_NEIGHBOURS, _attack_rows, _check_release, _neighbourhoods
from privlib.declaration import MeasureSpec, Reference, release, with_settings
from privlib.errors import DataError
from privlib.matching import sample_size, sampled
from privlib.records import DEFAULT_NUMERIC_TOLERANCE, CopyTest, _copy_widths, _fisher_excess, _has_copy
from privlib.results import QuerySampled
from privlib.rules import Threshold
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import RELEASE, Instance, Number, RandomState, validate_params

__all__ = ["DEFAULT_RARE_SHARE", "RareCopyTest", "rare_copy_test", "rare_records"]

KEY = "rare_copy_test"

#: Share of the real records, the most isolated, that count as rare.
DEFAULT_RARE_SHARE = 0.02


@dataclass(frozen=True, kw_only=True)
class RareCopyTest(CopyTest, QuerySampled):
    """:class:`privlib.records.CopyTest` on the rare records (:func:`rare_copy_test`): ``n_train``
    and ``n_holdout`` count the rare training and holdout records, ``rare_share`` is the share asked
    for and ``isolation`` the mean distance to the nearest other records from which a record is rare.
    ``ci_low``/``ci_high`` is Newcombe's interval of the excess, in records, shown beside
    Fisher's exact test that decides."""

    rare_share: float
    isolation: float

    def reading(self) -> str:
        isolated = (
            f", among the {self.rare_share:.0%} most isolated real records: mean Gower distance "
            f"{self.isolation:.3g} or more to their nearest other real records"
            if self.isolation > 0
            else ""
        )
        return self.with_judgement(
            f"Among the rare records (no exact real twin{isolated}), {self.train_copied} of "
            f"{self.n_train} training records have a synthetic copy "
            f"against {self.holdout_copied} of {self.n_holdout} holdout records: "
            f"{self.value:+.1f} rare people beyond chance ({self.confidence:.0%} interval "
            f"{self.ci_low:.1f} to {self.ci_high:.1f}); chance alone copies "
            f"{self.critical_count} or more rare training records with probability at most "
            f"{1 - self.confidence:.0%} (Fisher's exact test, p = {self.p_value:.2g}).{self._sample_text()}"
        )


@validate_params(
    {
        "neighbours": [Instance(np.ndarray, description="a numpy array of distances, one row per record")],
        "rare_share": [Number(low=0, high=1, closed="right")],
    },
    skip_nested=True,
)
def rare_records(neighbours: np.ndarray, rare_share: float) -> tuple[np.ndarray, float]:
    """Which records are rare, from each record's distances to its nearest other real records
    (one row per record, ascending), and the mean distance from which a record is rare (module
    documentation).

    Examples
    --------
    >>> neighbours = np.array([[0.0, 0.5], [0.1, 0.3], [0.2, 0.2], [0.3, 0.9], [0.0, 0.0]])
    >>> rare, cut = rare_records(neighbours, 0.4)
    >>> rare.tolist(), round(cut, 3)
    ([False, False, False, True, False], 0.25)
    """
    isolation = neighbours.mean(axis=1)
    cut = float(np.quantile(isolation, 1 - rare_share, method="higher"))
    return (isolation >= cut) & (neighbours[:, 0] > 0), cut


@validate_params(
    RELEASE
    | {
        "rare_share": [Number(low=0, high=1, closed="right")],
        "numeric_tolerance": [Number(low=0, high=1)],
        "random_state": [RandomState()],
    }
)
def rare_copy_test(
    *,
    train,
    holdout,
    synthetic,
    rare_share=DEFAULT_RARE_SHARE,
    numeric_tolerance=DEFAULT_NUMERIC_TOLERANCE,
    random_state=None,
    confidence=DEFAULT_CONFIDENCE,
    client=None,
) -> RareCopyTest:
    """Rare training records with a synthetic copy, against rare holdout records with one.

    Parameters
    ----------
    train, holdout, synthetic : pandas.DataFrame
        The generator's training data, real records it never saw, the release.
    rare_share : float, default 0.02
        Share of the real records, the most isolated, that count as rare.
    numeric_tolerance : float, default 0.01
        Share of each numeric variable's range within which two values count as equal.
    random_state : int, numpy.random.Generator or None
        Seed of the sample of records ranked beyond :data:`~privlib.attacks.ATTACK_RECORDS` per
        table (unused below).
    confidence : float, default 0.95
        Fisher's test is one-sided at ``1 - confidence``; level of the interval.
    client : dask.distributed.Client, optional
        Run the neighbour searches on this Dask cluster.

    Returns
    -------
    RareCopyTest
        Key ``rare_copy_test``; unjudged; ``value`` the excess of copied rare training records.

    Raises
    ------
    PrivlibError
        If the tables are not comparable, or no training or no holdout record is rare (every real
        record has an exact twin).

    Examples
    --------
    >>> import pandas as pd
    >>> common = pd.DataFrame({"g": ["a"] * 90})
    >>> train = pd.concat([common, pd.DataFrame({"g": [f"t{i}" for i in range(10)]})])
    >>> holdout = pd.concat([common, pd.DataFrame({"g": [f"h{i}" for i in range(10)]})])
    >>> synthetic = train.iloc[85:]            # 5 common records and the 10 unique ones
    >>> result = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic)
    >>> result.n_train, result.train_copied, result.holdout_copied, result.value > result.baseline
    (10, 10, 0, True)
    """
    confidence = check_confidence(confidence)
    holdout, synthetic = _check_release(train, holdout, synthetic)
    rng = np.random.default_rng(random_state)
    rows = (_attack_rows(len(train), rng), _attack_rows(len(holdout), rng))
    hoods = _neighbourhoods(train, holdout, synthetic, N_NEIGHBOURS, client, rows)
    rare, cut = rare_records(hoods.to_real, rare_share)
    train, holdout = (sampled(t, r) for t, r in zip((train, holdout), rows))
    rare_train, rare_holdout = rare[: len(train)], rare[len(train) :]
    if not rare_train.any() or not rare_holdout.any():
        raise DataError(
            "no training or no holdout record is rare (every one has an exact twin among the real "
            "records); read the copy test instead."
        )
    widths = _copy_widths(train, holdout, synthetic, numeric_tolerance)
    a, b = (
        int(np.count_nonzero(found))
        for found in _has_copy([train[rare_train], holdout[rare_holdout]], synthetic, widths)
    )
    return RareCopyTest(
        measure=KEY,
        numeric_tolerance=float(numeric_tolerance),
        rare_share=float(rare_share),
        isolation=cut,
        sample_size=sample_size(*rows),
        **_fisher_excess(a, int(rare_train.sum()), b, int(rare_holdout.sum()), confidence),
    )


RARE_COPY_TEST = MeasureSpec(
    KEY,
    "Rare training records with a close copy, beyond chance",
    "identity",
    Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the rare "
        "training records with a synthetic copy against the rare holdout records with one, no margin, "
        "since every rare record copied is a disclosure of a person who can be singled out (Stadler, "
        "Oprisanu & Troncoso 2022, USENIX Security; Meeus et al. 2023, 'Achilles' heels', ESORICS)",
        scope="counts copies (every categorical value equal, every number within 1% of its range) of "
        "the rare real records only: no exact real twin and among the 2% most isolated by mean distance "
        "to their 5 nearest other real records, so the chance copies of common records do not drown "
        "them",
        risk_words="the release copies rare training records, people who stand out, more often than "
        "rare people it never saw",
        safe_words="rare training records have a synthetic copy no more often than rare holdout "
        "records, at this confidence",
    ),
    Reference("privlib.rare_copies:rare_copy_test"),
    with_settings(release, random_state="seed"),
    needs=("holdout",),
    at_risk=lambda r: (
        r.records_at_risk,
        "rare training records (no real twin, among the most isolated) have a synthetic copy "
        "beyond the copies chance gives rare holdout records",
    ),
)
