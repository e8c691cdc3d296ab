"""Near copies: training records far nearer to a synthetic record than to any real neighbour,
against holdout records.
"""

from __future__ import annotations

from privlib.declaration import SAMPLED_RELEASE, MeasureSpec, Reference
from privlib.matching import query_samples, sample_size
from privlib.membership.attack_scores import _check_release, _near_copy, _neighbourhoods
from privlib.membership.low_fpr_tests import MaxOverTests, _max_over_tests
from privlib.records import LOW_FPRS
from privlib.rules import CARLINI_HOLM, exact_share_rule
from privlib.uncertainty import DEFAULT_CONFIDENCE, check_confidence
from privlib.validation import QUERY_SAMPLE, RELEASE, validate_params

__all__ = ["KEY", "near_copy_test", "NEAR_COPY_TEST"]

#: The key of its results (``Result.measure``) and of its declaration.
KEY = "near_copy_test"


@validate_params(RELEASE | QUERY_SAMPLE)
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
        measure=KEY,
        sample=sample_size(*rows.values()),
    )


NEAR_COPY_TEST = MeasureSpec(
    KEY,
    "Near copies: synthetic records far nearer than real neighbours",
    "membership",
    exact_share_rule(
        source=CARLINI_HOLM,
        scope="scores each real record by its distance to the nearest other real record over its "
        "distance to the nearest synthetic record, so a copy moved a little stands out even in a dense "
        "region, and reads the score at false-positive rates of 0.1% and 1% (Holm over the two)",
        risk_words="more training records than holdout records have a synthetic record far nearer "
        "than any real neighbour, as near copies do",
        safe_words="training records have a synthetic record far nearer than their real neighbours no "
        "more often than holdout records, at this confidence",
    ),
    Reference("privlib.attacks:near_copy_test"),
    SAMPLED_RELEASE,
    needs=("holdout",),
    table=lambda r: r.per_attack(),
    at_risk=lambda r: (
        r.excess_members,
        "training records have a synthetic record far nearer than any real neighbour, beyond "
        "the holdout rate",
    ),
)
