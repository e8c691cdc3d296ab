"""Every measure's threshold rule, keyed by ``Result.measure``: cut-off, direction, source and words.

Data below the measures: this module imports only :mod:`privlib.rules` (which builds the rules
shared by several measures), so that judging a result (:func:`privlib.thresholds.judge`) loads no
measure, no audit and no rendering. A measure's declaration
(listed in :mod:`privlib.catalogue`) takes its rule from :data:`RULES` under its own key;
``tests/test_measures.py`` checks that every declared rule is the one here.
"""

from __future__ import annotations

from privlib.rules import (
    CHANCE_COPIES,
    Threshold,
    control_rule,
    criterion_rule,
)

__all__ = ["RULES"]

#: The rule of each measure that has one (a measure compared by eye, such as
#: ``compare_synthesizers``, has none).
RULES: dict[str, Threshold] = {
    "identical_match_share": Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=CHANCE_COPIES,
        scope="counts exact copies only: a generator that moves every record a little makes "
        "none, so read it with the distance measures",
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data copies training records no more than chance copies "
        "unseen people, within the margin",
    ),
    "copy_test": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the "
        "training records with a synthetic copy against the holdout records with one; no "
        "margin, since every record copied beyond chance is a disclosure. It replaces the "
        "fixed margin of 1 in 100 of identical_match_share wherever a holdout exists",
        scope="counts real records, training and holdout, that have a synthetic copy (every "
        "categorical value equal, every number within 1% of its range); records at risk are "
        "the training records copied beyond the holdout's rate",
        risk_words="the release copies training records more often than it copies people it "
        "never saw: those records are published",
        safe_words="training records have a synthetic copy no more often than holdout records, "
        "at this confidence",
    ),
    "dcr_zero_share": Threshold(
        0.01,
        from_baseline=True,
        fallback=0.05,
        source=CHANCE_COPIES,
        scope="counts synthetic records at Gower distance 0 from a training record (exact "
        "copies); its median distance, reported beside it, shows near copies",
        risk_words="the generator reproduces its training records beyond chance",
        safe_words="the synthetic data copies training records exactly no more often than it "
        "matches unseen people, within the margin; near copies are read from the median "
        "distance and the distance measures",
    ),
    "replicated_uniques": Threshold(
        0.05,
        from_baseline=True,
        fallback=0.05,
        # 0.05, the margin of the kit's other training-against-holdout rules: a margin of 0.01 would
        # be under half the standard error of the difference between two groups of about 550
        # uniques (0.022 on Adult at 3,000 records), so no release of that size could clear it.
        source="kit default: training records unique on the keys carried as unique records more "
        "than 0.05 above the share for holdout records unique on the keys (Newcombe's interval; "
        "Fisher's one-sided p-value in the reading), the margin of the kit's other comparisons "
        "with the holdout; without a holdout, more than 5 in 100 replicated at all. synthpop "
        "(Nowok, Raab & Dibben 2016) reports the count without a cut-off",
        scope="looks only at people unique on the key variables, the ones an intruder can single out",
        risk_words="training records unique on the keys are carried into the synthetic data as unique "
        "records more often than unique people the generator never saw",
        safe_words="training records unique on the keys are carried over no more often than unique "
        "people the generator never saw, within the margin",
    ),
    "singling_out_univariate": criterion_rule(
        "singling-out",
        "asks whether predicates on one column read off the synthetic data isolate exactly one "
        "training record more often than one control record; it targets rare values and "
        "outliers",
    ),
    "singling_out_multivariate": criterion_rule(
        "singling-out",
        "asks whether predicates on several columns read off the synthetic data isolate "
        "exactly one training record more often than one control record",
    ),
    "linkability_risk": criterion_rule(
        "linkability",
        "asks whether the synthetic data joins two halves of a person's columns more often for "
        "training than for control records",
    ),
    "expected_match_risk": Threshold(
        0.09,
        per="n_records",
        published=True,
        source="Health Canada (2019), Guidance document on the public release of clinical "
        "information, and the EMA Policy 0070 guidance: an average re-identification "
        "probability of 0.09 for public release, applied here to the expected number of "
        "targets identified per target",
        scope="assumes an intruder who knows every target's original values and picks at "
        "random among the matching synthetic records",
        risk_words="an intruder would identify more targets than the public-release threshold allows",
        safe_words="an intruder would identify fewer targets than the public-release threshold allows",
    ),
    "cap": control_rule(
        "CAP",
        "average correct attribution probability",
        "Taub et al. 2018 compare CAP with the original data's without a cut-off",
        scope="averages, over the training records and over the holdout records, how often the "
        "synthetic records sharing a person's key carry that person's target value, and judges "
        "the difference",
    ),
    "knn_risk_accuracy": control_rule(
        "k-NN",
        "share of records whose category the model predicts right",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and counts the training and the holdout "
        "records whose target it predicts correctly, and judges the difference",
    ),
    "knn_risk_relative_error": control_rule(
        "k-NN",
        "mean error, in interquartile ranges of the target (each record's capped at one),",
        "Choi et al. 2017 compare the model with one fitted on the original data without a cut-off",
        scope="fits a model on the synthetic data and measures how much smaller its error is on "
        "the training records' target than on the holdout records', in interquartile ranges of "
        "the target, each record's error capped at one, so that no outlier can be read back",
        smaller_is_risk=True,
    ),
    "inference_risk": criterion_rule(
        "inference",
        "asks whether nearest synthetic records reveal a secret column more often for training "
        "than for control records",
    ),
    "rare_attribution_test": Threshold(
        0.0,
        from_baseline=True,
        exact_test=True,
        source="kit default: Fisher's exact test, one-sided at the audit's confidence, of the training "
        "records unique on the keys whose sensitive value the release gives with certainty against the "
        "holdout records with one, no margin, since each is a disclosure about a person who can be "
        "singled out; a certain attribution is a correct attribution probability of 1 (Taub, Elliot, "
        "Pampaka & Smith 2018, PSD; Taub & Elliot's targeted CAP, 2019)",
        scope="looks only at people whose keys no other real record (training or holdout) shares, and "
        "counts those for whom every synthetic record with their keys carries their sensitive value "
        "(a number within 1% of its range), so a few people exposed are not averaged away",
        risk_words="the release gives the sensitive value of people unique on the keys more often for "
        "training records than for people it never saw",
        safe_words="the release gives the sensitive value of training records unique on the keys no "
        "more often than that of unique people it never saw, at this confidence",
    ),
    "rare_copy_test": Threshold(
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
}
