"""Time the identity-disclosure measures on 10,000-record files.

Run from the repository root::

    python benchmarks/identity.py [--repeats 5]

It prints a Markdown table (median seconds over the repeats, and the machine it ran on) to paste
into the "Identity" section of benchmarks/README.md. The match-based risk must take well under a
second on a 10,000-record partially synthetic file: it groups records instead of looping over them.
"""

import argparse

from _timing import machine, median_seconds

import privlib as pl
from privlib import identity


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per measure (median)")
    args = parser.parse_args()
    print(f"{machine()}\n")

    tasks = {}
    for name in ("acs", "adult"):
        data, info = pl.datasets.load_for_notebook(name)
        original, _ = pl.datasets.sample_split(data, 10_000, random_state=1)
        partial = pl.synth.SequentialTrees(synthesize=info.synthesized).fit(original).sample(random_state=1)
        # the keys are matched exactly; the synthesized numeric variables within the tolerance
        kinds = pl.schema.infer_kinds(original[info.synthesized])
        within = [c for c in kinds if kinds[c] == "numeric"]
        label = f"match_risk, {name}, 10,000 records ({len(within)} variables matched within a tolerance)"
        tasks[label] = lambda o=original, p=partial, i=info: identity.match_risk(
            train=o, synthetic=p, known=i.keys, synthesized=i.synthesized
        )
        train, holdout = pl.datasets.sample_split(data, 5_000, 5_000, random_state=1)
        synthetic = pl.synth.synthesize(train, "SequentialTrees", random_state=1)
        tasks[f"identical_match_share, {name}, 5,000 synthetic vs 5,000 + 5,000"] = (
            lambda s=synthetic, t=train, h=holdout: identity.identical_match_share(
                synthetic=s, train=t, holdout=h
            )
        )
        tasks[f"replicated_uniques, {name}, 5,000 vs 5,000 on the default keys"] = (
            lambda s=synthetic, t=train, k=info.keys: identity.replicated_uniques(
                train=t, synthetic=s, keys=k
            )
        )
        tasks[f"dcr_summary, {name}, 5,000 synthetic and 5,000 holdout vs 5,000"] = (
            lambda s=synthetic, t=train, h=holdout: identity.dcr_summary(synthetic=s, train=t, holdout=h)
        )
    print("| measure | median seconds |")
    print("|---|---|")
    for label, task in tasks.items():
        task()  # warm-up: numba compilation of the neighbour engine, first-call imports
        print(f"| {label} | {median_seconds(task, args.repeats):.3f} |")


if __name__ == "__main__":
    main()
