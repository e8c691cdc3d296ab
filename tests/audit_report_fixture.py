"""A plain dict shaped like the audit's result model (``AuditReport.model_dump(mode="json")``):
a leaky release with one family at risk, one inconclusive and one not assessed."""

from __future__ import annotations


def measure(key, title, family, value, low, high, baseline, threshold, verdict, higher=True, **extra):
    return {
        "key": key,
        "measure": key.split("[")[0],
        "target": extra.pop("target", None),
        "family": family,
        "title": title,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "ci_method": "wilson",
        "confidence": 0.95,
        "baseline": baseline,
        "threshold": threshold,
        "higher_is_riskier": higher,
        "verdict": verdict,
        "verdict_rule": f"risk when the whole interval lies {'above' if higher else 'below'} the threshold "
        "(kit default)",
        "reading": f"Reading of {title}.",
        "seconds": 0.1,
        "details": extra,
    }


def leaky_report() -> dict:
    measures = [
        measure(
            "identical_match_share",
            "Exact copies of training records",
            "identity",
            0.2,
            0.17,
            0.23,
            0.001,
            0.011,
            "risk",
            n_copies=200,
        ),
        measure(
            "dcr_zero_share",
            "Synthetic records at distance 0",
            "identity",
            0.004,
            0.002,
            0.008,
            0.003,
            0.013,
            "no evidence of risk",
        ),
        measure(
            "cap[income]",
            "Correct attribution probability (income)",
            "attribute",
            0.62,
            0.58,
            0.66,
            0.5,
            0.63,
            "inconclusive",
            target="income",
        ),
        measure(
            "adversarial_accuracy",
            "Nearest-neighbour adversarial accuracy",
            "attribute",
            0.51,
            0.49,
            0.53,
            0.5,
            0.45,
            "no evidence of risk",
            higher=False,
        ),
    ]
    return {
        "schema_version": "1.0",
        "title": "Privacy audit of <leaky>.csv",
        "decision": "do not release",
        "decision_rule": "Do not release when any family's verdict is risk; release only with the listed "
        "caveats when one is inconclusive or not assessed.",
        "assessable": True,
        "problem": None,
        "notes": ["The holdout was not given."],
        "families": [
            {
                "family": "identity",
                "title": "Identity disclosure",
                "question": "Tied to a person?",
                "verdict": "risk",
                "deciding": "identical_match_share",
                "headline": "200 people's full records appear verbatim in the release",
                "reason": None,
                "how_to_assess": None,
                "counts": {"risk": 1, "no evidence of risk": 1},
                "at_risk": [
                    {"key": "identical_match_share", "count": 200, "what": "training records copied"}
                ],
            },
            {
                "family": "attribute",
                "title": "Attribute disclosure",
                "question": "Sensitive value learnt?",
                "verdict": "inconclusive",
                "deciding": "cap[income]",
                "headline": "the synthetic data may reveal income about as well as the original does",
                "reason": None,
                "how_to_assess": None,
                "counts": {"inconclusive": 1, "no evidence of risk": 1},
                "at_risk": [],
            },
            {
                "family": "membership",
                "title": "Membership disclosure",
                "question": "In the training data?",
                "verdict": "not assessed",
                "deciding": None,
                "headline": "",
                "reason": "no holdout was given",
                "how_to_assess": "a holdout: real records from the same population the generator never saw",
                "counts": {},
                "at_risk": [],
            },
        ],
        "measures": measures,
        "skipped": [
            {
                "key": "nn_mia_auc",
                "measure": "nn_mia_auc",
                "family": "membership",
                "title": "Nearest-neighbour attack AUC",
                "reason": "needs a holdout",
            }
        ],
        "tables": {},
        "fidelity": {
            "confidence": 0.95,
            "ci_method": "bootstrap",
            "measures": [
                {
                    "key": "pmse_ratio",
                    "title": "Propensity score MSE ratio",
                    "value": 1.8,
                    "ci_low": 1.6,
                    "ci_high": 2.0,
                    "ideal": 1.0,
                    "reading": "Tells synthetic from real 1.8 times as well.",
                    "details": {},
                },
                {
                    "key": "mean_tvd",
                    "title": "Mean distance between marginals",
                    "value": 0.021,
                    "ci_low": 0.015,
                    "ci_high": 0.027,
                    "ideal": 0.0,
                    "reading": "Marginals differ by 0.021.",
                    "details": {},
                },
            ],
            "skipped": [{"key": "tstr_ratio", "reason": "train on synthetic, test on real needs a holdout"}],
        },
        "provenance": {},
    }
