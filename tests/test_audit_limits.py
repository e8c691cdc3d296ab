"""The audit's detection limits and DP claim, wired: the settings refused in one line before any
work, the limits in metrics.json (validated by the shipped JSON Schema) and on page 1, and a release
copying 1% of its training records read as contradicting an epsilon = 1 claim."""

from __future__ import annotations

import html
import json
import re

import jsonschema
import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.audit.report import metrics_schema
from privlib.cli import main
from privlib.render.audit_pages import decision_html


def _text(fragment) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", str(fragment))))


def _split(dataset: str, size: int, seed: int):
    population = pl.load_dataset(dataset)
    order = np.random.default_rng(seed).permutation(len(population))
    return [
        population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True) for i in range(3)
    ]


# -- settings ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "settings, words",
    [
        ({"claimed_epsilon": 0}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": -1.5}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": float("nan")}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": float("inf")}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": 1e9}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": "one"}, "`claimed_epsilon` must be a number > 0 and <= 100"),
        ({"claimed_epsilon": True}, "`claimed_epsilon` must be a number, not true or false"),
        ({"claimed_epsilon": 1, "claimed_delta": 1}, "`claimed_delta` must be a number >= 0 and < 1"),
        ({"claimed_epsilon": 1, "claimed_delta": -1e-9}, "`claimed_delta` must be a number >= 0 and < 1"),
        ({"claimed_delta": 1e-6}, "`claimed_delta` is part of a claim: give `claimed_epsilon` with it"),
    ],
)
def test_bad_claims_are_refused_by_the_spec_in_one_line(settings, words):
    with pytest.raises(pl.PrivlibError) as caught:
        pl.audit.AuditSpec.build(train="t.csv", synthetic="s.csv", holdout="h.csv", **settings)
    message = str(caught.value)
    assert words in message and "\n" not in message


def test_a_good_claim_reaches_the_spec_and_its_provenance():
    spec = pl.audit.AuditSpec.build(
        train="t.csv", synthetic="s.csv", holdout="h.csv", claimed_epsilon=2, claimed_delta=1e-6
    )
    assert (spec.claimed_epsilon, spec.claimed_delta) == (2.0, 1e-6)
    assert spec.provenance()["claimed_epsilon"] == 2.0
    assert pl.audit.AuditSpec.build(train="t.csv", synthetic="s.csv").claimed_delta == 0.0


@pytest.fixture(scope="module")
def small_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("claims")
    train, holdout, other = _split("adult", 120, 3)
    paths = {}
    for name, table in (("train", train), ("holdout", holdout.iloc[:100]), ("synthetic", other)):
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return folder, paths


def _status(argv, capsys):
    code = main(["--quiet", "audit", *argv])
    return code, capsys.readouterr().err.strip().splitlines()


@pytest.mark.slow
def test_cli_and_params_file_refuse_a_bad_claim_in_one_line_before_any_work(small_files, capsys):
    folder, paths = small_files
    files = ["--train", str(paths["train"]), "--synthetic", str(paths["synthetic"])]
    holdout = ["--holdout", str(paths["holdout"])]
    out = folder / "out"
    for argv, words in (
        ([*files, *holdout, "--claimed-epsilon", "-1"], "`claimed_epsilon` must be a number > 0"),
        ([*files, *holdout, "--claimed-epsilon", "abc"], "argument --claimed-epsilon: invalid float value"),
        ([*files, *holdout, "--claimed-epsilon", "1", "--claimed-delta", "1"], "`claimed_delta` must be"),
        ([*files, *holdout, "--claimed-delta", "0.001"], "give `claimed_epsilon` with it"),
        # no holdout to test the claim on: refused with the tables, before any measure
        ([*files, "--claimed-epsilon", "1"], "`claimed_epsilon` is tested on the membership evidence"),
        # delta > 0 is tested on a fair split only: 120 training against 100 holdout records
        ([*files, *holdout, "--claimed-epsilon", "1", "--claimed-delta", "1e-6"], "fair split only"),
    ):
        code, err = _status([*argv, "--out", str(out)], capsys)
        assert code == 2 and len(err) == 1 and words in err[0], (argv, err)
        assert not out.exists()
    params = folder / "p.yaml"
    params.write_text(
        "train: train.csv\nsynthetic: synthetic.csv\nholdout: holdout.csv\nclaimed_epsilon: lots\n"
    )
    code, err = _status(["--params", str(params), "--out", str(out)], capsys)
    assert code == 2 and len(err) == 1 and "`claimed_epsilon` must be a number > 0" in err[0], err
    assert not out.exists()


def test_a_claim_from_the_params_file_reaches_the_spec(small_files):
    from privlib.pipeline import audit_spec

    folder, _ = small_files
    params = folder / "good.yaml"
    params.write_text(
        "train: train.csv\nsynthetic: synthetic.csv\nholdout: holdout.csv\nclaimed_epsilon: 3\n"
    )
    spec, _ = audit_spec(params=params)
    assert spec.claimed_epsilon == 3.0 and spec.claimed_delta == 0.0


# -- a tiny audit, end to end --------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_report():
    train, holdout, other = _split("adult", 150, 5)
    info = pl.dataset_info("adult")
    return pl.audit.run(
        train=train,
        synthetic=other,
        holdout=holdout,
        keys=info.keys,
        sensitive=info.sensitive,
        claimed_epsilon=4.0,
        progress=False,
    )


@pytest.mark.slow
def test_tiny_audit_states_limits_and_claim_in_metrics_json_and_on_page_one(tiny_report):
    report = tiny_report
    metrics = json.loads(report.to_json())
    jsonschema.validate(metrics, metrics_schema())
    assert metrics["schema_version"] == "2.2"
    limits = metrics["detection_limits"]
    clean = [
        f["family"] for f in metrics["families"] if f["verdict"] in ("no evidence of risk", "inconclusive")
    ]
    assert clean and limits["families"] == [f for f in clean if f in ("identity", "membership", "attribute")]
    assert limits["draws"] == 50 and limits["rate"] == 0.9
    for family in limits["families"]:
        found = [x for x in limits["limits"] if x["family"] == family]
        assert found or family in limits["not_computed"], family
        for limit in found:
            assert limit["release_size"] == 150
            if limit["limit"] is None:
                assert limit["rate_at_limit"] < 0.9
            else:
                assert limit["rate_at_limit"] >= 0.9 and limit["share"] == pytest.approx(limit["limit"] / 150)
                assert limit["below"] is None or (
                    limit["below"] < limit["limit"] and limit["rate_below"] < 0.9
                )
    claim = metrics["epsilon_claim"]
    assert claim["claimed_epsilon"] == 4.0 and claim["contradicts_claim"] == (claim["lower_bound"] > 4.0)
    page = _text(decision_html(report))
    block = page[page.index("What this audit could have seen") : page.index("What this audit cannot show")]
    assert "Context, not a verdict" in block and "50 seeded draws" in block
    first = next(x for x in limits["limits"] if x["limit"] is not None)
    assert f"would have caught {first['limit']:,} (" in block
    assert "Claimed differential privacy (epsilon = 4, delta = 0)" in block
    assert "random split" in block and "a bound below the claim does not prove the claim" in block
    assert ("contradicts the claim" in block) == claim["contradicts_claim"]


@pytest.mark.slow
def test_no_claim_no_claim_sentence_and_a_risk_family_has_no_limit():
    train, holdout, _ = _split("adult", 150, 6)
    report = pl.audit.run(train=train, synthetic=train, holdout=holdout, progress=False)
    assert report.epsilon_claim is None
    limits = report.detection_limits
    risky = {f.family for f in report.families if f.verdict == "risk"}
    assert "identity" in risky
    assert limits is None or not risky & set(limits.families)
    assert "Claimed differential privacy" not in _text(decision_html(report))


# -- the claim contradicted ----------------------------------------------------------------------
@pytest.mark.slow
def test_a_release_copying_one_percent_of_its_training_records_contradicts_epsilon_one():
    train, holdout, other = _split("adult", 2000, 0)
    release = pl.synth.make("GaussianCopula").fit(other).sample(2000, random_state=1)
    copying = pd.concat([release.iloc[:1980], train.sample(20, random_state=2)], ignore_index=True)
    info = pl.dataset_info("adult")
    report = pl.audit.run(
        train=train,
        synthetic=copying,
        holdout=holdout,
        keys=info.keys,
        sensitive=info.sensitive,
        claimed_epsilon=1.0,
        progress=False,
    )
    claim = report.epsilon_claim
    assert claim is not None and claim.contradicts_claim and claim.lower_bound > 1.0
    block = _text(decision_html(report))
    assert f"contradicts the claim (lower bound {claim.lower_bound:.3g} > 1)" in block


def test_page_one_block_states_each_case_in_words_true_of_its_fields():
    from privlib.render.audit_limits import evidence_limits_html

    def limit(family, leak, value, largest=2000, rate=0.96, below=None, rate_below=None):
        share = None if value is None else value / 2000
        return dict(
            leak=leak, family=family, limit=value, share=share, release_size=2000, largest=largest,
            rate_at_limit=rate, below=below, rate_below=rate_below, tests=[], held=[], reading="",
        )  # fmt: skip

    report = {
        "families": [
            {"family": "identity", "title": "Identity disclosure", "verdict": "no evidence of risk"},
            {"family": "membership", "title": "Membership disclosure", "verdict": "inconclusive"},
            {"family": "attribute", "title": "Attribute disclosure", "verdict": "no evidence of risk"},
        ],
        "detection_limits": {
            "draws": 50,
            "rate": 0.9,
            "random_state": 1,
            "confidence": 0.95,
            "families": ["identity", "membership", "attribute"],
            "limits": [
                limit("identity", "verbatim", 278, below=277, rate_below=0.88),
                limit("membership", "near copies", None, rate=0.02),
            ],
            "not_computed": {"attribute": "rare-key attributions need the key and the sensitive variables"},
        },  # fmt: skip
        "epsilon_claim": {
            "claimed_epsilon": 10.0,
            "claimed_delta": 1e-6,
            "lower_bound": 0.56,
            "confidence": 0.95,
            "contradicts_claim": False,
            "assumption": "the training records are a random split of the pool",
            "attack": "dcr",
            "member_guess_share": 0.01,
            "nonmember_guess_share": 0.0,
            "records_counted": 3000,
            "guesses": 15,
            "correct": 13,
            "reading": "",
        },  # fmt: skip
    }
    text = _text(evidence_limits_html(report))
    assert (
        "Identity disclosure (no evidence of risk): copied training records: this audit would have caught "
        "278 (13.9% of the release's 2,000 records) in 96% of 50 seeded draws (at least 90% asked); 277 "
        "are caught in 88%, so fewer are beyond what these files can show reliably." in text
    )
    assert (
        "Membership disclosure (inconclusive): near copies of training records (one value changed): not "
        "caught reliably at any size up to the whole release (2,000 added; caught in 2% of 50 draws "
        "there): a leak of this kind is beyond what these files can show." in text
    )
    assert (
        "Attribute disclosure (no evidence of risk): limits not computed: rare-key attributions need" in text
    )
    assert (
        "Claimed differential privacy (epsilon = 10, delta = 1e-06): consistent with the claim (lower "
        "bound 0.56 <= 10)" in text
    )
    assert "13 of 15 membership guesses right on 3,000 records (dcr attack)" in text
    assert "a bound below the claim does not prove the claim" in text
    # nothing to state: no block at all
    assert str(evidence_limits_html({"families": [], "detection_limits": None, "epsilon_claim": None})) == ""
