"""The attack ensemble: five calibrated membership attacks read at low false-positive rates,
judged on the strongest after Holm's adjustment.
"""

from __future__ import annotations

from privlib.declaration import MeasureSpec, Reference, release, with_settings
from privlib.membership import attack_scores
from privlib.membership.attack_scores import ensemble_scores
from privlib.membership.low_fpr_tests import MaxOverTests, _max_over_tests
from privlib.records import LOW_FPRS
from privlib.rules import CARLINI_HOLM, exact_share_rule
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import RELEASE, RandomState, validate_params

__all__ = ["KEY", "attack_ensemble", "ATTACK_ENSEMBLE"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "attack_ensemble"


@validate_params(RELEASE | {"random_state": [RandomState()]})
def attack_ensemble(
    *, train, holdout, synthetic, random_state=None, confidence=DEFAULT_CONFIDENCE, client=None
) -> MaxOverTests:
    """The five attacks of :data:`~privlib.attacks.ATTACKS`, each read at false-positive rates of
    0.1 % and 1 %, judged on the strongest reading after Holm's adjustment over the ten.

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
    sample = (
        attack_scores.ATTACK_RECORDS if max(len(train), len(holdout)) > attack_scores.ATTACK_RECORDS else None
    )
    return _max_over_tests(scores, LOW_FPRS, confidence, measure=KEY, sample=sample)


ATTACK_ENSEMBLE = MeasureSpec(
    KEY,
    "Strongest of five calibrated membership attacks at a low false-positive rate",
    "membership",
    exact_share_rule(
        source=CARLINI_HOLM,
        scope="reads five no-box attacks calibrated on real data (the distance to the closest synthetic "
        "record, DCR-diff, a k-NN density ratio as in DOMIAS, a local-neighbourhood count and a "
        "classifier of synthetic against real records) at "
        "false-positive rates of 0.1% and 1%, thresholds chosen on the holdout alone, and judges the "
        "strongest after correcting for the choice",
        risk_words="one of the attacks identifies training records at a low false-positive rate, more "
        "than chance allows even after correcting for trying several attacks",
        safe_words="none of the attacks finds more training records at a low false-positive rate than "
        "chance gives it, after correcting for trying several",
    ),
    Reference("privlib.attacks:attack_ensemble"),
    with_settings(release, random_state="seed"),
    needs=("holdout",),
    # per attack: its AUC, and per rate the members called and the raw and adjusted p-values
    table=lambda r: r.per_attack(),
    at_risk=lambda r: (
        r.excess_members,
        f"training records are called members by the {r.deciding_attack or 'strongest'} attack "
        "at a low false-positive rate, beyond the holdout rate",
    ),
)
