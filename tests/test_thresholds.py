"""Tests of privlib.thresholds: the judging rules on hand-made results, the registry's coverage of
every measure, the verdict sentence, and the verdicts of a copy and of a generator that never saw
the training rows on Adult.
"""

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib import attribute, identity
from privlib import membership as mb
from privlib.audit.rulebook import attack_of, disagreements, family_decision, registry_frame
from privlib.catalogue import MEASURES
from privlib.declaration import FAMILIES
from privlib.errors import PrivlibError
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, VERDICTS, Result
from privlib.thresholds import (
    REGISTRY,
    Threshold,
    check_overrides,
    cutoff,
    judge,
    verdict_sentence,
)


def auc(value, low, high):
    return Result(measure="nn_mia_auc", value=value, ci_low=low, ci_high=high, baseline=0.5)


# --------------------------------------------------------------------------------------------
# judge() on hand-made results
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "low, high, expected",
    [
        (0.56, 0.60, RISK),  # whole interval above 0.5 + 0.05
        (0.45, 0.55, NO_EVIDENCE),  # the cut-off itself is on the safe side
        (0.53, 0.57, INCONCLUSIVE),  # straddles 0.55
    ],
)
def test_margin_over_the_baseline(low, high, expected):
    r = judge(auc((low + high) / 2, low, high))
    assert r.threshold == pytest.approx(0.55)
    assert r.verdict == expected
    assert "Yale et al." in r.verdict_rule


@pytest.mark.parametrize(
    "low, high, expected", [(0.30, 0.40, RISK), (0.46, 0.50, NO_EVIDENCE), (0.44, 0.47, INCONCLUSIVE)]
)
def test_lower_is_riskier(low, high, expected):
    # adversarial accuracy: cut-off = baseline - 0.05 = 0.45; below it is the risk
    r = judge(
        Result(measure="adversarial_accuracy", value=(low + high) / 2, ci_low=low, ci_high=high, baseline=0.5)
    )
    assert r.threshold == pytest.approx(0.45) and not r.higher_is_riskier
    assert r.verdict == expected


def test_share_of_the_gap_rules():
    # El Emam's M <= 0.2: F_max = 0.4 -> F1 cut-off 0.4 + 0.2 * 0.6 = 0.52
    f1 = judge(Result(measure="partition_f1", value=0.6, ci_low=0.55, ci_high=0.65, baseline=0.4))
    assert f1.threshold == pytest.approx(0.52) and f1.verdict == RISK
    # an F1 baseline that is already perfect leaves nothing to judge
    empty = judge(Result(measure="partition_f1", value=1.0, ci_low=1.0, ci_high=1.0, baseline=1.0))
    assert empty.verdict == NOT_ASSESSABLE and "nothing beyond guessing" in empty.verdict_rule


def test_attribute_rules_judge_the_training_excess_over_the_holdout():
    # CAP against its control: the excess (training minus holdout) above 0 + 0.05 is the risk
    cap = judge(attribute.CAPResult(value=0.08, ci_low=0.06, ci_high=0.10, baseline=0.0))
    assert cap.threshold == pytest.approx(0.05) and cap.verdict == RISK
    # the error excess is holdout minus training error: larger is riskier, like the accuracy's
    error = judge(
        attribute.KnnRiskResult(
            measure="knn_risk_relative_error", value=0.02, ci_low=-0.01, ci_high=0.04, baseline=0.0
        )
    )
    assert error.threshold == pytest.approx(0.05) and error.verdict == NO_EVIDENCE and error.higher_is_riskier
    accuracy = judge(
        attribute.KnnRiskResult(
            measure="knn_risk_accuracy", value=0.04, ci_low=0.02, ci_high=0.06, baseline=0.0
        )
    )
    assert accuracy.verdict == INCONCLUSIVE
    assert "risk when the interval lies above 0.05 (the baseline 0 plus 0.05)" in accuracy.verdict_rule


def test_an_exact_test_is_read_on_the_value_and_shows_its_interval():
    # copy test: the baseline is the largest excess chance gives; the interval does not decide
    test = judge(Result(measure="copy_test", value=12.0, ci_low=-3.0, ci_high=25.0, baseline=10.0))
    assert test.verdict == RISK and test.threshold == 10.0
    assert "risk when the value lies above 10, the largest value chance gives" in test.verdict_rule
    assert "the value 12 lies above the cut-off" in test.judgement
    safe = judge(Result(measure="copy_test", value=10.0, ci_low=-3.0, ci_high=25.0, baseline=10.0))
    assert safe.verdict == NO_EVIDENCE


def test_an_inconclusive_verdict_says_how_many_records_would_settle_it():
    # cut-off 0.55; the interval's upper half (0.56 - 0.54 = 0.02) is twice the distance to it
    # (0.01), and an interval narrows as 1 / sqrt(n): 2^2 = 4 times as many records
    r = judge(auc(0.54, 0.52, 0.56))
    assert r.verdict == INCONCLUSIVE and "about 4 times as many records would settle it" in r.judgement
    # below 0.005 of the cut-off at this width, more than 100 times as many
    assert "a hundred times as many records would not settle it" in judge(auc(0.548, 0.52, 0.576)).judgement


def test_a_cut_off_the_value_cannot_cross_is_not_assessable():
    # adversarial accuracy lies in [0, 1]; with a tie-aware baseline of 0.03 the cut-off 0.03 - 0.05
    # is below 0: no result could show a risk, so the verdict says so instead of "no evidence"
    ties = judge(Result(measure="adversarial_accuracy", value=0.02, ci_low=0.01, ci_high=0.03, baseline=0.03))
    assert ties.verdict == NOT_ASSESSABLE and "beyond every value the measure can take" in ties.verdict_rule
    assert REGISTRY["adversarial_accuracy"].describe() == (
        "risk when the whole interval lies below the baseline minus 0.05"
    )


def test_fallback_and_count_rules():
    # identical matches without a holdout: the fallback share 0.05
    r = judge(Result(measure="identical_match_share", value=0.2, ci_low=0.15, ci_high=0.25))
    assert r.threshold == 0.05 and r.verdict == RISK
    # expected match risk: 0.09 of the 1000 targets = 90 expected identifications
    m = judge(
        identity.MatchRisk(
            measure="expected_match_risk",
            value=50.0,
            ci_low=40.0,
            ci_high=60.0,
            baseline=400.0,
            expected_match_risk=50.0,
            true_match_rate=0.01,
            false_match_rate=0.5,
            unique_matches=20,
            n_records=1000,
            known=("a",),
            synthesized=("b",),
            numeric_tolerance=0.1,
            relative=True,
        )
    )
    assert m.threshold == pytest.approx(90.0) and m.verdict == NO_EVIDENCE


def test_undefined_values_and_kept_reasons():
    assert judge(auc(math.nan, math.nan, math.nan)).verdict == NOT_ASSESSABLE
    kept = Result(measure="nn_mia_auc", value=0.9, verdict=NOT_ASSESSABLE, verdict_rule="why not")
    assert judge(kept).verdict == NOT_ASSESSABLE and judge(kept).verdict_rule == "why not"
    # a result without an interval is judged on its value
    assert judge(Result(measure="privacy_loss", value=0.3, baseline=0.0)).verdict == RISK


def test_override_replaces_the_cut_off():
    r = judge(auc(0.58, 0.56, 0.60), override=0.7)
    assert r.threshold == 0.7 and r.verdict == NO_EVIDENCE
    assert "set for this audit" in r.verdict_rule
    assert check_overrides({"nn_mia_auc": 0.6}) == {"nn_mia_auc": 0.6}
    with pytest.raises(PrivlibError, match="unknown measure"):
        check_overrides({"auc": 0.6})
    with pytest.raises(PrivlibError, match="finite number"):
        check_overrides({"nn_mia_auc": math.inf})
    with pytest.raises(PrivlibError, match="no threshold is registered"):
        judge(Result(measure="nothing", value=1.0))


def test_cutoff_helper():
    assert cutoff("privacy_loss", 0.0) == pytest.approx(0.1)
    assert cutoff("identical_match_share") == 0.05
    assert cutoff("partition_f1", 0.5, reference=1.0) == pytest.approx(0.6)


# --------------------------------------------------------------------------------------------
# The registry and the words
# --------------------------------------------------------------------------------------------
def test_every_declared_measure_has_a_title_family_and_sourced_rule():
    for key, spec in MEASURES.items():
        assert spec.key == key
        assert spec.title and spec.title[0].isupper(), key
        assert spec.family in FAMILIES, key
        if spec.rule is None:
            continue
        # a rule says where its cut-off comes from and what part of the data it looks at
        assert spec.rule.source and spec.rule.scope, key
        assert spec.rule.published or spec.rule.source.startswith("kit default"), key
        assert spec.family in ("identity", "attribute", "membership"), key


def test_the_registry_is_the_rules_of_the_declarations():
    assert dict(REGISTRY) == {key: spec.rule for key, spec in MEASURES.items() if spec.rule is not None}
    # a view, not a copy: nothing can register a rule beside the declarations
    assert not hasattr(REGISTRY, "__setitem__")
    # the threshold itself carries neither the measure's name nor its family: those are the spec's
    assert not {"measure", "family"} & {f.name for f in dataclasses.fields(Threshold)}


def test_registry_frame_describes_every_rule():
    frame = registry_frame()
    assert sorted(frame.index) == sorted(REGISTRY)
    assert (
        frame.loc["adversarial_accuracy", "rule"]
        == "risk when the whole interval lies below the baseline minus 0.05"
    )
    assert frame.loc["identical_match_share", "rule"].endswith("(0.05 when there is no baseline)")
    assert frame.loc["expected_match_risk", "rule"].endswith("0.09 times the result's n_records")
    assert frame.loc["partition_f1", "published"]
    assert frame.loc["nn_mia_auc", "family"] == "membership"
    assert frame.loc["cap", "title"] == "Correct attribution probability (CAP)"


def test_the_family_decision_gives_each_attack_an_equal_share_split_among_its_rates():
    # weights: nn_mia's two readings 1/2 each, density 1/2 each (its 1% reading not assessable:
    # the 0.1% one keeps the whole share), near copy 1, ensemble 1 -> total 4
    family = family_decision(
        {
            "nn_mia_tpr_at_0.1pct": 0.004,
            "nn_mia_tpr_at_1pct": 0.02,
            "density_attack_tpr_at_0.1pct": 0.3,
            "density_attack_tpr_at_1pct": None,
            "near_copy_test": 0.013,
            "attack_ensemble": 0.9,
        }
    )
    assert family.weights == {
        "nn_mia_tpr_at_0.1pct": 0.5,
        "nn_mia_tpr_at_1pct": 0.5,
        "density_attack_tpr_at_0.1pct": 1.0,
        "near_copy_test": 1.0,
        "attack_ensemble": 1.0,
    }
    # by p / w: nn 0.1% 0.008 -> 0.004 x 4 / 0.5 = 0.032; near 0.013 -> x 3.5 = 0.0455;
    # nn 1% 0.04 -> 0.02 x 2.5 / 0.5 = 0.1; density 0.3 x 2 = 0.6; ensemble 0.9
    assert family.adjusted == pytest.approx(
        {
            "nn_mia_tpr_at_0.1pct": 0.032,
            "near_copy_test": 0.0455,
            "nn_mia_tpr_at_1pct": 0.1,
            "density_attack_tpr_at_0.1pct": 0.6,
            "attack_ensemble": 0.9,
        }
    )
    assert family.skipped == ("density_attack_tpr_at_1pct",)
    # plain Holm over the five would miss the near copies: 0.004 x 5, then 0.013 x 4 = 0.052
    assert [k for k, v in family.significant.items() if v] == ["nn_mia_tpr_at_0.1pct", "near_copy_test"]
    assert attack_of("shadow_model_tpr_at_1pct") == "shadow_model" and attack_of("copy_test") == "copy_test"


def test_verdict_sentence_carries_the_interval_and_the_rule():
    r = judge(auc(0.6, 0.57, 0.63))
    sentence = verdict_sentence(r)
    assert sentence.startswith("Risk:")
    assert "0.57 to 0.63" in sentence and "0.55" in sentence
    assert REGISTRY["nn_mia_auc"].risk_words in sentence
    assert verdict_sentence(Result(measure="nn_mia_auc", value=0.6)) == ""
    reason = Result(measure="nn_mia_auc", value=0.6, verdict=NOT_ASSESSABLE, verdict_rule="too few records")
    assert verdict_sentence(reason) == "Not assessable: too few records."


def test_disagreements_name_both_scopes():
    loss = judge(Result(measure="privacy_loss", value=0.0, ci_low=-0.02, ci_high=0.02, baseline=0.0))
    cap = judge(attribute.CAPResult(value=0.9, ci_low=0.85, ci_high=0.95, baseline=0.3, original_cap=0.9))
    (sentence,) = disagreements([judge(auc(0.6, 0.57, 0.63)), loss, cap])  # cap: another family
    assert REGISTRY["nn_mia_auc"].scope in sentence and REGISTRY["privacy_loss"].scope in sentence


# --------------------------------------------------------------------------------------------
# Every measure returns an unjudged result whose measure is registered, and judge() gives it a verdict
# --------------------------------------------------------------------------------------------
def test_every_measure_returns_an_unjudged_result_that_judge_gives_a_registered_verdict():
    rng = np.random.default_rng(0)
    real = pd.DataFrame(
        {"a": rng.choice(list("xyz"), 60), "b": rng.choice(list("pq"), 60), "c": rng.normal(size=60)}
    )
    train, holdout = real.iloc[:30].reset_index(drop=True), real.iloc[30:].reset_index(drop=True)
    synthetic = train.sample(frac=1.0, random_state=1).reset_index(drop=True)
    binned_train, binned_synthetic = attribute.discretize(train=train, synthetic=synthetic, columns=["c"])
    binned_holdout = attribute.discretize(train=train, synthetic=holdout, columns=["c"])[1]
    computed = [
        identity.identical_match_share(synthetic=synthetic, train=train, holdout=holdout),
        identity.dcr_summary(synthetic=synthetic, train=train, holdout=holdout),
        identity.replicated_uniques(train=train, synthetic=synthetic, keys=["a", "b"], holdout=holdout),
        identity.match_risk(train=train, synthetic=synthetic, known=["a"], synthesized=["b"], random_state=0),
        attribute.cap(
            train=binned_train,
            synthetic=binned_synthetic,
            holdout=binned_holdout,
            keys=["a", "c"],
            target="b",
            random_state=0,
        ),
        attribute.knn_risk(train=train, synthetic=synthetic, holdout=holdout, keys=["a", "c"], target="b"),
        mb.ground_truth_risk(
            population=real, train_rows=np.arange(30), synthetic=synthetic, h=1, random_state=0
        ),
        mb.partition_risk(train=train, holdout=holdout, synthetic=synthetic, t=0.5, h=1, random_state=0),
        mb.dcr_holdout_share(synthetic=synthetic, train=train, holdout=holdout),
        mb.threshold_attack(train=train, holdout=holdout, synthetic=synthetic, random_state=0),
        mb.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=0),
        mb.adversarial_accuracy(train=train, synthetic=synthetic, random_state=0),
        mb.privacy_loss(train=train, holdout=holdout, synthetic=synthetic, random_state=0),
    ]
    for r in computed:
        # unjudged: no cut-off and no verdict, unless the measure itself says it cannot be read
        assert r.threshold is None and r.judgement is None, r.measure
        assert r.verdict is None or (r.verdict == NOT_ASSESSABLE and r.verdict_rule), r.measure
    results = [judge(r) for r in computed]
    for r in results:
        assert r.measure in REGISTRY, r.measure
        assert r.verdict in VERDICTS, r.measure
        assert r.verdict_rule, r.measure
        if r.verdict != NOT_ASSESSABLE:
            assert r.ci_low <= r.value <= r.ci_high, r.measure
            assert r.ci_method in ("wilson", "bootstrap"), r.measure
            assert r.threshold is not None, r.measure
        assert r.reading().endswith(".")
    # the synthetic data is a shuffled copy of the training data: every copy measure sees it
    assert [r.verdict for r in results[:2]] == [RISK, RISK]


def test_confidence_is_checked_and_changes_the_width():
    train = pd.DataFrame({"x": np.arange(40.0)})
    holdout = pd.DataFrame({"x": np.arange(40.0) + 0.5})
    synthetic = pd.DataFrame({"x": np.arange(40.0) + 0.1})
    with pytest.raises(PrivlibError, match="`confidence`"):
        mb.nn_mia(train=train, holdout=holdout, synthetic=synthetic, confidence=1.5)
    with pytest.raises(PrivlibError, match="`confidence`"):
        identity.identical_match_share(synthetic=synthetic, train=train, confidence=0)
    wide = mb.dcr_holdout_share(synthetic=synthetic, train=train, holdout=holdout, confidence=0.99)
    narrow = mb.dcr_holdout_share(synthetic=synthetic, train=train, holdout=holdout, confidence=0.8)
    assert wide.ci_high - wide.ci_low > narrow.ci_high - narrow.ci_low
    assert (wide.confidence, narrow.confidence) == (0.99, 0.8)
    # seeded bootstrap: same seed, same interval
    a = mb.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=3)
    b = mb.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=3)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)


# --------------------------------------------------------------------------------------------
# Adult, 3000 training records: a copy and a generator that never saw the training rows
# --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def adult_release():
    adult = pl.load_dataset("adult")
    train, rest = pl.datasets.sample_split(adult, 3000, 6000, random_state=12)
    holdout, elsewhere = rest.iloc[:3000].reset_index(drop=True), rest.iloc[3000:].reset_index(drop=True)
    return train, holdout, elsewhere


def membership_results(train, holdout, synthetic):
    """Three membership measures of ``synthetic``, judged."""
    return [
        judge(r)
        for r in (
            mb.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=0),
            mb.dcr_holdout_share(synthetic=synthetic, train=train, holdout=holdout, random_state=0),
            mb.privacy_loss(train=train, holdout=holdout, synthetic=synthetic, random_state=0),
        )
    ]


def test_a_copy_is_a_risk_in_identity_and_membership(adult_release):
    train, holdout, _ = adult_release
    copy = pl.synth.Copy().fit(train).sample(random_state=0)
    results = [
        judge(identity.identical_match_share(synthetic=copy, train=train, holdout=holdout)),
        judge(identity.identical_match_share(synthetic=copy, train=train)),
        *membership_results(train, holdout, copy),
    ]
    assert [r.verdict for r in results] == [RISK] * len(results)


def test_a_generator_that_never_saw_the_rows_is_no_membership_risk(adult_release):
    # fitted on other Adult people: its output cannot depend on who is in the training data
    train, holdout, elsewhere = adult_release
    synthetic = pl.synth.SequentialTrees().fit(elsewhere).sample(n=3000, random_state=1)
    for r in membership_results(train, holdout, synthetic):
        assert r.verdict in VERDICTS and r.verdict != RISK, (r.measure, r.value, r.ci_low, r.ci_high)
        assert r.ci_low <= r.value <= r.ci_high


# --------------------------------------------------------------------------------------------
# The words of a rule follow its direction, and state the cut-off itself
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "measure, value, low, high, baseline, words",
    [
        # higher is the risk (cut-off 0.5 + 0.05 = 0.55)
        ("nn_mia_auc", 0.6, 0.58, 0.62, 0.5, "the 95% interval 0.58 to 0.62 lies above the cut-off"),
        ("nn_mia_auc", 0.5, 0.45, 0.53, 0.5, "the 95% interval 0.45 to 0.53 does not reach the cut-off"),
        (
            "nn_mia_auc",
            0.5,
            0.45,
            0.55,
            0.5,
            "the 95% interval 0.45 to 0.55 ends at the cut-off, which is judged safe (a risk lies "
            "strictly above it)",
        ),
        (
            "nn_mia_auc",
            0.6,
            0.55,
            0.65,
            0.5,
            "the 95% interval 0.55 to 0.65 runs from the cut-off, which is judged safe (a risk lies "
            "strictly above it), to beyond it",
        ),
        ("nn_mia_auc", 0.56, 0.53, 0.59, 0.5, "the 95% interval 0.53 to 0.59 straddles the cut-off"),
        # lower is the risk (adversarial accuracy: cut-off 0.5 - 0.05 = 0.45)
        (
            "adversarial_accuracy",
            0.4,
            0.38,
            0.42,
            0.5,
            "the 95% interval 0.38 to 0.42 lies below the cut-off",
        ),
        (
            "adversarial_accuracy",
            0.5,
            0.45,
            0.55,
            0.5,
            "the 95% interval 0.45 to 0.55 ends at the cut-off, which is judged safe (a risk lies "
            "strictly below it)",
        ),
        (
            "adversarial_accuracy",
            0.4,
            0.35,
            0.45,
            0.5,
            "the 95% interval 0.35 to 0.45 runs from the cut-off, which is judged safe (a risk lies "
            "strictly below it), to beyond it",
        ),
        # an exact test read on its value: at equality the value is judged safe
        (
            "copy_test",
            10.0,
            2.0,
            18.0,
            10.0,
            "the value 10 equals the cut-off, which is judged safe (a risk lies strictly above it)",
        ),
        ("copy_test", 9.0, 2.0, 18.0, 10.0, "the value 9 does not reach the cut-off"),
    ],
)
def test_a_reading_words_where_it_lies_in_its_rule_s_direction_and_at_equality(
    measure, value, low, high, baseline, words
):
    judged = judge(Result(measure=measure, value=value, ci_low=low, ci_high=high, baseline=baseline))
    side = "above" if REGISTRY[measure].higher_is_riskier else "below"
    assert f"{words} (rule: risk when" in judged.judgement
    what = "the value" if REGISTRY[measure].exact_test else "the interval"
    assert f"(rule: risk when {what} lies {side} " in judged.judgement


def test_an_error_measure_s_control_rule_says_the_training_error_lies_below_the_holdout_s():
    """The k-NN error's excess is the holdout's error minus the training records' (above the
    cut-off is the risk), so the rule's source words the errors the other way round."""
    error, accuracy = REGISTRY["knn_risk_relative_error"], REGISTRY["knn_risk_accuracy"]
    assert error.higher_is_riskier and accuracy.higher_is_riskier
    assert "of training records more than 0.05 below that of holdout records" in error.source
    assert "more than 0.05 above" not in error.source
    assert "of training records more than 0.05 above that of holdout records" in accuracy.source


def test_a_custodian_s_cut_off_decides_an_own_adjusted_test_alone():
    """With an override the custodian's cut-off decides; without, the strongest reading significant
    alone but not after the ensemble's own adjustment is inconclusive."""
    from privlib.attacks import MaxOverTests

    reading = MaxOverTests(
        measure="attack_ensemble",
        value=0.01,
        baseline=0.02,
        p_value=0.058,
        raw_p_value=0.0058,
        n_tests=10,
        attacks=("a",),
        fprs=(0.001,),
    )
    assert judge(reading).verdict == INCONCLUSIVE
    assert judge(reading, override=0.02).verdict == NO_EVIDENCE
    assert judge(dataclasses.replace(reading, raw_p_value=0.09, p_value=0.9)).verdict == NO_EVIDENCE
