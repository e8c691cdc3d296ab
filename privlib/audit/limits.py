"""What an audit could have seen: the detection limits of its clean verdicts, and a DP claim tested.

The runner calls these after the measures, inside its block of reused neighbour searches, so that
the release's state the planting starts from is read from the searches the measures already made.

* :func:`limits_of` plants leaks into the release for every kind of disclosure that reads "no
  evidence of risk" or "inconclusive" (:func:`privlib.audit.detection_limits.detection_limits`),
  the family's other exact tests held at the p-values the audit read;
* :func:`claim_of` puts a claimed epsilon to the test
  (:func:`privlib.epsilon_audit.epsilon_lower_bound`).

Both are context beside the verdicts: neither changes a verdict or the decision.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from privlib import declaration
from privlib.audit.detection_limits import (
    DEFAULT_DRAWS,
    DEFAULT_RATE,
    JUDGING_FAMILIES,
    TESTS_RERUN,
    detection_limits,
)
from privlib.audit.inputs import AuditInputs
from privlib.audit.report import (
    DetectionLimitRecord,
    DetectionLimits,
    EpsilonClaim,
    FamilyFinding,
    MeasureRecord,
)
from privlib.audit.spec import AuditSpec
from privlib.epsilon_audit import epsilon_lower_bound
from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE
from privlib.uncertainty import DEFAULT_CONFIDENCE

__all__ = ["check_claim", "claim_of", "limits_of"]

logger = logging.getLogger(__name__)

#: The verdicts whose strength a detection limit states.
_CLEAN = (NO_EVIDENCE, INCONCLUSIVE)


def check_claim(spec: AuditSpec, inputs: AuditInputs) -> None:
    """Refuse, before any measure, a claim the tables cannot test (one line)."""
    if spec.claimed_epsilon is None or not inputs.assessable:
        return
    if inputs.holdout is None:
        raise PrivlibError(
            "`claimed_epsilon` is tested on the membership evidence, which needs a holdout (real "
            "records of the same population the generator never saw, at least as many as the audit "
            "reads): give one, or leave the claim out."
        )
    if spec.claimed_delta > 0 and len(inputs.holdout) != len(inputs.train):
        raise PrivlibError(
            f"`claimed_delta` above 0 is tested for a fair split only: give a holdout as large as the "
            f"training data (got {len(inputs.train):,} training and {len(inputs.holdout):,} holdout "
            "records), or test the claim with delta 0."
        )


def limits_of(
    inputs: AuditInputs,
    families: Sequence[FamilyFinding],
    records: Sequence[MeasureRecord],
    *,
    exact: Callable[[str], bool],
    seed: int,
    redact: Callable[[str], str],
) -> DetectionLimits | None:
    """The detection limits of every family of :data:`JUDGING_FAMILIES` that reads "no evidence of
    risk" or "inconclusive"; ``None`` when none does. ``exact(measure)`` says whether a measure's
    verdict is an exact test: those the planting does not re-run enter Holm's step at the p-value
    the audit read."""
    clean = [f.family for f in families if f.family in JUDGING_FAMILIES and f.verdict in _CLEAN]
    if not clean or not inputs.assessable:
        return None
    not_computed: dict[str, str] = {}
    if inputs.holdout is None:
        not_computed = dict.fromkeys(clean, "the planted leaks are judged by tests that need a holdout")
        return _limits([], clean, not_computed, seed)
    attributes = bool(inputs.keys) and bool(inputs.sensitive)
    if "attribute" in clean and not attributes:
        not_computed["attribute"] = "rare-key attributions need the key and the sensitive variables"
    asked = [family for family in clean if family not in not_computed]
    held = {
        family: {
            m.key: m.details["p_value"]
            for m in records
            if m.family == family
            and exact(m.measure)
            and m.measure not in TESTS_RERUN
            and m.details.get("p_value") is not None
        }
        for family in asked
    }
    found: tuple = ()
    if asked:
        logger.info("detection limits: planting leaks for %s ...", ", ".join(asked))
        start = time.perf_counter()
        try:
            found = detection_limits(
                train=inputs.train,
                holdout=inputs.holdout,
                synthetic=inputs.primary,
                keys=list(inputs.keys) if attributes else None,
                sensitive=list(inputs.sensitive) if attributes else None,
                held=held,
                families=asked,
                random_state=seed,
                max_queries=declaration.MAX_DISTANCE_QUERIES,
            )
        except PrivlibError as exc:  # e.g. no variable a near copy could change: the data's property
            reason = redact(f"the data do not allow planting: {exc}")
            not_computed |= dict.fromkeys(asked, reason)
            logger.info("    detection limits not computed: the data do not allow planting")
        else:
            logger.info("    done in %.1f s", time.perf_counter() - start)
    for family in asked:
        if family not in not_computed and not any(limit.family == family for limit in found):
            not_computed[family] = (
                "no training record of the kinds these tests judge could be planted (e.g. none is "
                "unique on the keys)"
            )
    records_out = [
        DetectionLimitRecord(
            leak=limit.leak,
            family=limit.family,
            limit=limit.limit,
            share=limit.share,
            release_size=limit.release_size,
            largest=limit.largest,
            rate_at_limit=limit.rate_at_limit,
            below=limit.below,
            rate_below=limit.rate_below,
            tests=list(limit.tests),
            held=list(limit.held),
            reading=redact(limit.reading()),
        )
        for limit in found
    ]
    return _limits(records_out, clean, not_computed, seed)


def _limits(records: list, clean: list, not_computed: dict, seed: int) -> DetectionLimits:
    return DetectionLimits(
        draws=DEFAULT_DRAWS,
        rate=DEFAULT_RATE,
        random_state=seed,
        confidence=DEFAULT_CONFIDENCE,
        families=clean,
        limits=records,
        not_computed=not_computed,
    )


def claim_of(inputs: AuditInputs, spec: AuditSpec, *, client: Any = None) -> EpsilonClaim | None:
    """The claimed epsilon of ``spec`` read against the empirical lower bound of the release;
    ``None`` when no claim was given (:func:`check_claim` refused the claims the tables cannot
    test)."""
    if spec.claimed_epsilon is None or not inputs.assessable or inputs.holdout is None:
        return None
    logger.info("epsilon claim: the lower bound from the membership evidence ...")
    bound = epsilon_lower_bound(
        train=inputs.train,
        holdout=inputs.holdout,
        synthetic=inputs.primary,
        claimed_epsilon=spec.claimed_epsilon,
        claimed_delta=spec.claimed_delta,
        confidence=DEFAULT_CONFIDENCE,
        random_state=spec.seed,
        client=client,
    )
    return EpsilonClaim(
        claimed_epsilon=spec.claimed_epsilon,
        claimed_delta=spec.claimed_delta,
        lower_bound=bound.value,
        confidence=bound.confidence,
        contradicts_claim=bound.contradicts_claim,
        assumption=bound.assumption,
        attack=bound.attack,
        member_guess_share=bound.member_guess_share,
        nonmember_guess_share=bound.nonmember_guess_share,
        records_counted=bound.records_counted,
        guesses=bound.guesses,
        correct=bound.correct,
        reading=bound.reading(),
    )
