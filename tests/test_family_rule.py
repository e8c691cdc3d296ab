"""The family rule (privlib.audit.family_rule), tested against its statement written out by hand.

Every expected verdict, deciding measure, adjusted p-value and headline below is worked out from
the rule's five steps and Holm's weighted step-down formula (Holm 1979): sort the tests by
``p_i / w_i``; the j-th is adjusted to ``p_j`` times the total weight of the tests not yet passed
over ``w_j``, the running maximum carried forward and capped at 1. Each attack has weight 1,
split equally among its readings at several false-positive rates. The level is 0.05.
"""

from __future__ import annotations

import math

import pytest

from privlib.audit.family_rule import FamilyVerdict, Judged, family_verdict
from privlib.audit.report import NOT_ASSESSED
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK
from privlib.rules import corrected_verdict

MEMBERSHIP, IDENTITY = "Membership disclosure", "Identity disclosure"


def _exact(key, verdict, p, value, threshold, title=None, **more):
    return Judged(key, title or key, verdict, exact=True, p_value=p, value=value, threshold=threshold, **more)


def _interval(key, verdict, value, low, high, threshold, title=None, **more):
    return Judged(
        key, title or key, verdict, value=value, ci_low=low, ci_high=high, threshold=threshold, **more
    )


# (case, family title, measures, verdict, deciding, its adjusted p, every adjusted p, headline)
CASES = [
    (
        "one measure: a risk read by its interval, no exact test to adjust",
        MEMBERSHIP,
        [_interval("nn_mia_auc", RISK, 0.7, 0.65, 0.75, 0.55, title="Distance AUC")],
        RISK,
        "nn_mia_auc",
        None,
        {},
        "Membership disclosure: risk, decided by Distance AUC = 0.7 (95% interval 0.65 to 0.75), "
        "threshold 0.55.",
    ),
    (
        "one exact test: Holm leaves a single p-value as it is (0.01 <= 0.05)",
        MEMBERSHIP,
        [_exact("near_copy_test", RISK, 0.01, 0.03, 0.01, title="Near copies")],
        RISK,
        "near_copy_test",
        0.01,
        {"near_copy_test": 0.01},
        "Membership disclosure: risk, decided by Near copies = 0.03, threshold 0.01; read by its "
        "exact test: Holm-adjusted p = 0.01 against 0.05.",
    ),
    (
        "two exact tests: a risk alone (0.03) not surviving Holm (2 x 0.03 = 0.06): inconclusive",
        MEMBERSHIP,
        [
            _exact("near_copy_test", RISK, 0.03, 0.03, 0.02, title="Near copies"),
            _exact("attack_ensemble", NO_EVIDENCE, 0.4, 0.01, 0.02, title="Ensemble"),
        ],
        INCONCLUSIVE,
        "near_copy_test",
        0.06,
        {"near_copy_test": 0.06, "attack_ensemble": 0.4},  # 0.4 x 1 = 0.4 > 0.06
        "Membership disclosure: inconclusive: Near copies = 0.03 is a risk on its own, but not after "
        "Holm's adjustment across the 2 exact tests of this kind, each attack an equal share "
        "(adjusted p = 0.06 against 0.05).",
    ),
    (
        # weights: nn_mia's two rates 1/2 each, the near-copy test 1 (total 2); by p/w: 0.008,
        # 0.02, 0.4: 0.004 x 2 / 0.5 = 0.016; 0.02 x 1.5 / 1 = 0.03; 0.2 x 0.5 / 0.5 = 0.2
        "three exact tests, two rates of one attack: both risks survive; the furthest beyond decides",
        MEMBERSHIP,
        [
            _exact("nn_mia_tpr_at_0.1pct", RISK, 0.004, 0.02, 0.005, title="Distance at 0.1%"),
            _exact("nn_mia_tpr_at_1pct", NO_EVIDENCE, 0.2, 0.02, 0.03, title="Distance at 1%"),
            _exact("near_copy_test", RISK, 0.02, 0.03, 0.01, title="Near copies"),
        ],
        RISK,
        "near_copy_test",  # 0.03 - 0.01 = 0.02 beyond, against 0.02 - 0.005 = 0.015
        0.03,
        {"nn_mia_tpr_at_0.1pct": 0.016, "nn_mia_tpr_at_1pct": 0.2, "near_copy_test": 0.03},
        "Membership disclosure: risk, decided by Near copies = 0.03, threshold 0.01; read by its "
        "exact test: Holm-adjusted p = 0.03 against 0.05.",
    ),
    (
        # the interval-based measure's p-value stays out: Holm over 0.02 and 0.5 gives 0.04 (it
        # would give 3 x 0.02 = 0.06, no risk, were the 0.3 counted)
        "four measures: an interval measure's p-value does not enter Holm",
        IDENTITY,
        [
            _exact("copy_test", RISK, 0.02, 12.0, 8.0, title="Copies"),
            _exact("rare_copy_test", NO_EVIDENCE, 0.5, 1.0, 3.0, title="Rare copies"),
            Judged(
                "replicated_uniques",
                "Replicated uniques",
                INCONCLUSIVE,
                p_value=0.3,
                value=0.06,
                ci_low=0.01,
                ci_high=0.11,
                threshold=0.05,
            ),
            _interval("singling_out_univariate", NO_EVIDENCE, 0.0, -0.02, 0.02, 0.05, title="Singling out"),
        ],
        RISK,
        "copy_test",
        0.04,
        {"copy_test": 0.04, "rare_copy_test": 0.5},  # 0.02 x 2 = 0.04; max(0.04, 0.5 x 1)
        "Identity disclosure: risk, decided by Copies = 12, threshold 8; read by its exact test: "
        "Holm-adjusted p = 0.04 against 0.05.",
    ),
    (
        "an interval risk stands beside an exact risk that Holm demotes (0.04 x 2 = 0.08)",
        IDENTITY,
        [
            _exact("copy_test", RISK, 0.04, 40.0, 8.0, title="Copies"),
            _exact("rare_copy_test", NO_EVIDENCE, 0.9, 1.0, 3.0, title="Rare copies"),
            _interval("dcr_zero_share", RISK, 0.05, 0.03, 0.07, 0.02, title="DCR zero"),
        ],
        RISK,
        "dcr_zero_share",
        None,
        {"copy_test": 0.08, "rare_copy_test": 0.9},
        "Identity disclosure: risk, decided by DCR zero = 0.05 (95% interval 0.03 to 0.07), threshold 0.02.",
    ),
    (
        "a demoted risk and an interval inconclusive: the one furthest beyond decides (2 > 0.03)",
        IDENTITY,
        [
            _interval("dcr_zero_share", INCONCLUSIVE, 0.05, 0.01, 0.09, 0.02, title="DCR zero"),
            _exact("copy_test", RISK, 0.03, 10.0, 8.0, title="Copies"),
            _exact("rare_copy_test", NO_EVIDENCE, 0.2, 1.0, 3.0, title="Rare copies"),
        ],
        INCONCLUSIVE,
        "copy_test",
        0.06,  # 0.03 x 2
        {"copy_test": 0.06, "rare_copy_test": 0.2},
        "Identity disclosure: inconclusive: Copies = 10 is a risk on its own, but not after Holm's "
        "adjustment across the 2 exact tests of this kind, each attack an equal share (adjusted p = "
        "0.06 against 0.05).",
    ),
    (
        "a demoted risk and an interval inconclusive: here the interval lies further (0.03 > 0.01)",
        IDENTITY,
        [
            _exact("copy_test", RISK, 0.03, 8.01, 8.0, title="Copies"),
            _exact("rare_copy_test", NO_EVIDENCE, 0.2, 1.0, 3.0, title="Rare copies"),
            _interval("dcr_zero_share", INCONCLUSIVE, 0.05, 0.01, 0.09, 0.02, title="DCR zero"),
        ],
        INCONCLUSIVE,
        "dcr_zero_share",
        None,
        {"copy_test": 0.06, "rare_copy_test": 0.2},
        "Identity disclosure: inconclusive, decided by DCR zero = 0.05 (95% interval 0.01 to 0.09), "
        "threshold 0.02.",
    ),
    (
        # the ensemble significant alone but not after its own adjustment reads inconclusive
        # itself (privlib.thresholds.judge) and enters once, with its own adjusted p: 2 x 0.058
        "the ensemble's own inconclusive enters the family once, with its own adjusted p",
        MEMBERSHIP,
        [
            _exact("attack_ensemble", INCONCLUSIVE, 0.058, 0.03, 0.035, title="Ensemble"),
            _exact("near_copy_test", NO_EVIDENCE, 0.5, 0.0, 0.01, title="Near copies"),
        ],
        INCONCLUSIVE,
        "attack_ensemble",
        0.116,
        {"attack_ensemble": 0.116, "near_copy_test": 0.5},
        "Membership disclosure: inconclusive, decided by Ensemble = 0.03, threshold 0.035; read by "
        "its exact test: Holm-adjusted p = 0.12 against 0.05.",
    ),
    (
        "no evidence of risk: the measure nearest its threshold decides (-0.003 > -0.03)",
        MEMBERSHIP,
        [
            _interval("nn_mia_auc", NO_EVIDENCE, 0.52, 0.5, 0.54, 0.55, title="Distance AUC"),
            _exact("nn_mia_tpr_at_0.1pct", NO_EVIDENCE, 0.6, 0.001, 0.004, title="Distance at 0.1%"),
            Judged("partition_f1", "Partition", NOT_ASSESSABLE),
        ],
        NO_EVIDENCE,
        "nn_mia_tpr_at_0.1pct",
        0.6,
        {"nn_mia_tpr_at_0.1pct": 0.6},
        "Membership disclosure: no evidence of risk, decided by Distance at 0.1% = 0.001, threshold "
        "0.004; read by its exact test: Holm-adjusted p = 0.6 against 0.05.",
    ),
    (
        "lower values are the risk: 0.05 below its cut-off beats 0.02 above another's",
        MEMBERSHIP,
        [
            _interval("nn_mia_auc", RISK, 0.57, 0.56, 0.58, 0.55, title="Distance AUC"),
            _interval(
                "adversarial_accuracy",
                RISK,
                0.40,
                0.38,
                0.42,
                0.45,
                title="Adversarial accuracy",
                higher_is_riskier=False,
            ),
        ],
        RISK,
        "adversarial_accuracy",
        None,
        {},
        "Membership disclosure: risk, decided by Adversarial accuracy = 0.4 (95% interval 0.38 to "
        "0.42), threshold 0.45.",
    ),
    (
        "an exact test without a p-value keeps its verdict; a measure without threshold ranks last",
        MEMBERSHIP,
        [
            Judged("shadow_model_auc", "Shadow", RISK, value=0.9),
            _exact("near_copy_test", RISK, None, 0.03, 0.01, title="Near copies"),
        ],
        RISK,
        "near_copy_test",
        None,
        {},
        "Membership disclosure: risk, decided by Near copies = 0.03, threshold 0.01.",
    ),
    (
        "a deciding measure without a value or threshold is named as undefined, without them",
        MEMBERSHIP,
        [Judged("discriminator_excess_realness", "Realness", NO_EVIDENCE)],
        NO_EVIDENCE,
        "discriminator_excess_realness",
        None,
        {},
        "Membership disclosure: no evidence of risk, decided by Realness = undefined.",
    ),
    (
        "only measures not assessable: the family is not assessed",
        MEMBERSHIP,
        [Judged("nn_mia_auc", "Distance AUC", NOT_ASSESSABLE)],
        NOT_ASSESSED,
        None,
        None,
        {},
        "Membership disclosure: not assessed, because the data allow none.",
    ),
    (
        "no measure at all: not assessed",
        IDENTITY,
        [],
        NOT_ASSESSED,
        None,
        None,
        {},
        "Identity disclosure: not assessed, because the data allow none.",
    ),
]


@pytest.mark.parametrize(
    ("title", "measures", "verdict", "deciding", "adjusted_p", "adjusted", "headline"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_the_family_rule_gives_the_verdict_its_statement_gives(
    title, measures, verdict, deciding, adjusted_p, adjusted, headline
):
    found = family_verdict(measures, title=title, unassessed_reason="the data allow none")
    assert isinstance(found, FamilyVerdict)
    assert (found.verdict, found.deciding) == (verdict, deciding)
    assert found.adjusted_p == (None if adjusted_p is None else pytest.approx(adjusted_p, abs=1e-12))
    assert found.adjusted == pytest.approx(adjusted, abs=1e-12)
    assert found.headline == headline


def test_a_family_never_reads_risk_through_an_exact_test_whose_adjusted_p_exceeds_the_level():
    """The issue's 'done when': over a grid of p-values for three exact tests judged risk alone,
    the family reads risk exactly when some adjusted p-value (by hand: 3 p_(1), 2 p_(2), p_(3),
    running maximum) is at most 0.05."""
    grid = (0.001, 0.012, 0.02, 0.03, 0.049)
    for p in ((a, b, c) for a in grid for b in grid for c in grid):
        ordered = sorted(p)
        by_hand = [3 * ordered[0], 2 * ordered[1], ordered[2]]
        by_hand = [max(by_hand[: i + 1]) for i in range(3)]
        tests = [_exact(key, RISK, q, 1.0, 0.0) for key, q in zip(("copy_test", "rare_copy_test", "x"), p)]
        found = family_verdict(tests, title=IDENTITY)
        assert (found.verdict == RISK) == (min(by_hand) <= 0.05), p
        if found.verdict == RISK:
            assert found.adjusted_p is not None and found.adjusted_p <= 0.05 + 1e-12


@pytest.mark.parametrize(
    ("alone", "adjusted", "expected"),
    [
        (RISK, 0.05, RISK),  # at the level: significant
        (RISK, 0.0500001, INCONCLUSIVE),
        (RISK, None, RISK),  # nothing to adjust
        (NO_EVIDENCE, 0.9, NO_EVIDENCE),
        (INCONCLUSIVE, 0.9, INCONCLUSIVE),
        (RISK, math.nan, INCONCLUSIVE),  # an adjusted p that is undefined shows no risk
    ],
)
def test_significant_alone_not_after_correction_is_inconclusive(alone, adjusted, expected):
    assert corrected_verdict(alone, adjusted, level=0.05) == expected


@pytest.mark.slow  # a whole audit (about 30 s)
def test_the_issue_s_ce_release_reads_membership_inconclusive_not_risk():
    """CE, 500 training and the other 494 records as holdout (seed 5), independent
    marginals fitted on the training records. The attack ensemble is a risk on its own (its own
    adjusted p 0.049); with the near-copy test (0.092) the family's Holm gives it 2 x 0.049 = 0.097
    above 0.05: inconclusive, where the runner read "risk"."""
    import privlib as pl

    train, holdout = pl.datasets.sample_split(pl.load_dataset("ce"), 500, 494, random_state=5)
    synthetic = pl.synth.IndependentMarginals().fit(train).sample(random_state=5)
    report = pl.audit.run(train=train, synthetic=synthetic, holdout=holdout, seed=5)
    family = next(f for f in report.families if f.family == "membership")
    own = {
        m.key: m.details["p_value"] for m in report.measures if m.key in ("attack_ensemble", "near_copy_test")
    }
    assert own["attack_ensemble"] <= 0.05 < 2 * own["attack_ensemble"] and own["near_copy_test"] > 0.05
    assert (family.verdict, family.deciding) == (INCONCLUSIVE, "attack_ensemble")
    assert family.adjusted_p_values["attack_ensemble"] == pytest.approx(2 * own["attack_ensemble"])
    assert "is a risk on its own, but not after Holm's adjustment across the 2 exact tests" in family.headline
