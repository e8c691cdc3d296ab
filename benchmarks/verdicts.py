"""Verdicts of the audit on releases that never saw a training record (issue 31's "done when").

Run: ``python benchmarks/verdicts.py [n_seeds] [dataset ...]`` (default 5 seeds, ACS and Adult). For ACS and Adult, with the
params files' keys, sensitive variables and sizes (2,000 and 3,000 training records, as many
holdout records), each seed draws training, holdout and *other* records of the same population,
fits SequentialTrees and MST (epsilon 1) on the other records and runs the whole audit on the
release against the training and holdout records. Such a release can disclose nothing about the
training records, so every "risk" is a false alarm and every "inconclusive" a lack of power.

Printed per dataset: how many releases get an attribute-family risk, how many get the decision
"no evidence of risk at the strength of these attacks", the measures that made the others
inconclusive (per audit, each inconclusive or risky measure with its value, interval and
cut-off), the widest
inference-risk interval; and the TSTR share of the real data's gain
over chance of independent marginals on Adult.
"""

from __future__ import annotations

import collections
import logging
import sys
import tempfile
from pathlib import Path

import privlib as pl
from privlib.audit import run
from privlib.pipeline import audit_spec, params_file
from privlib.utility import tstr

GENERATORS: dict[str, dict[str, float]] = {
    "SequentialTrees": {"min_samples_leaf": 5},
    "MST": {"epsilon": 1.0},
}


def releases_of_other_people(name: str, seeds: range):
    spec, recipe = audit_spec(params=params_file(name))
    assert recipe is not None, f"{name} is a bundled dataset, so its params file has a recipe"
    n_train, n_holdout = recipe["n_train"], recipe["n_holdout"]
    data = pl.load_dataset(name)
    for seed in seeds:
        train, rest = pl.datasets.sample_split(data, n_train, n_holdout + n_train, random_state=seed)
        holdout, other = rest.iloc[:n_holdout], rest.iloc[n_holdout:].reset_index(drop=True)
        for generator, params in GENERATORS.items():
            if generator == "MST":
                params = params | {"random_state": seed}
            release = pl.synth.make(generator, **params).fit(other).sample(n_train, random_state=seed)
            yield spec, f"{generator} seed {seed}", train, holdout.reset_index(drop=True), release


def audit(spec, train, holdout, release):
    with tempfile.TemporaryDirectory() as folder:
        paths = {role: Path(folder) / f"{role}.csv" for role in ("train", "holdout", "release")}
        for role, table in zip(paths, (train, holdout, release)):
            table.to_csv(paths[role], index=False)
        return run(
            spec.model_copy(
                update={"train": paths["train"], "holdout": paths["holdout"], "synthetic": [paths["release"]]}
            )
        )


def main(n_seeds: int = 5, datasets=("acs", "adult")) -> None:
    logging.disable(logging.INFO)
    for name in datasets:
        attribute_risks, clean, audits = 0, 0, 0
        inconclusive: collections.Counter[str] = collections.Counter()
        widest_inference = 0.0
        for spec, label, train, holdout, release in releases_of_other_people(name, range(n_seeds)):
            report = audit(spec, train, holdout, release)
            audits += 1
            families = {f.family: f.verdict for f in report.families}
            attribute_risks += families.get("attribute") == "risk"
            clean += report.decision == "no evidence of risk at the strength of these attacks"
            readings: dict[str, list[str]] = {"inconclusive": [], "risk": []}
            for measure in report.measures:
                if measure.verdict == "inconclusive":
                    inconclusive[measure.key.split("[")[0]] += 1
                if measure.verdict in readings:
                    readings[measure.verdict].append(
                        f"{measure.key} {measure.value:+.3f} ({measure.ci_low:+.3f} to {measure.ci_high:+.3f}) "
                        f"against {measure.threshold:.3g}"
                    )
                if measure.key.startswith("inference_risk") and measure.ci_low is not None:
                    widest_inference = max(widest_inference, (measure.ci_high - measure.ci_low) / 2)
            print(f"{name} {label}: {report.decision}; " + ", ".join(f"{k} {v}" for k, v in families.items()))
            for verdict, measures in readings.items():
                if measures:
                    print(f"    {verdict}: " + "; ".join(measures))
        print(
            f"== {name}: {attribute_risks} of {audits} releases fitted on other people are an attribute risk; "
            f"{clean} of {audits} get 'no evidence of risk'; inconclusive measures: {dict(inconclusive)}; "
            f"widest inference interval +-{widest_inference:.3f}"
        )
    if "adult" not in datasets:
        return
    adult = pl.load_dataset("adult")
    train, rest = pl.datasets.sample_split(adult, 3000, 3000, random_state=0)
    shares = [
        tstr(
            train=train,
            synthetic=pl.synth.IndependentMarginals().fit(train).sample(random_state=seed),
            holdout=rest,
            target="income",
        ).ratio
        for seed in range(n_seeds)
    ]
    print(
        f"== adult: independent marginals keep {', '.join(f'{s:.2f}' for s in shares)} of the gain over chance"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5, tuple(sys.argv[2:]) or ("acs", "adult"))
