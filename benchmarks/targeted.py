"""The targeted shadow-model attack and the density attack on Adult (issue 15's numbers).

Adult is the population (48,842 rows); the generator's training file is 1,000 of its rows
(seeded); the targets are the 5 training records farthest (Gower) from their nearest other
training record. Each generator (Copy, SequentialTrees, MST at epsilon = 1 with the population's
numeric ranges as public bounds) is attacked with 40 shadow pairs per target to train the
classifier and 20 fresh pairs to measure the AUC. The density attack (DOMIAS, KDE) scores the
1,000 training records against 1,000 holdout records, with 5,000 reference records.

With ``--calibrate SEEDS`` it measures instead how often the per-target verdict reads "risk" on
releases that never saw a training record: per seed, three disjoint seeded samples of Adult
(training, holdout, and the people the generator is fitted on, as benchmarks/calibration.py builds
its nulls); the generator (``--null-base``, GaussianCopula by default) is fitted on the third
sample only, whatever the attack gives it, and draws fresh records at every shadow fit. The attack
runs as the audit runs it: the population is training and holdout, the 5 most isolated training
records are the targets, 40 + 20 shadow pairs per target. Every "risk" is a false alarm.

Run from the repository root::

    python benchmarks/targeted.py [--n-jobs 2] [--features correlation]
    nice python benchmarks/targeted.py --calibrate 40 [--size 1000]

It prints a Markdown section to paste into benchmarks/README.md.
"""

import argparse
import time

import numpy as np
import pandas as pd
from _timing import machine
from scipy.stats import binomtest

import privlib as pl
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, RISK
from privlib.targeted import density_attack, resolve_synthesizer, shadow_model_attack
from privlib.thresholds import judge
from privlib.uncertainty import wilson_interval


class FittedOnOthers:
    """A generator fitted on other people: ``fit`` ignores the records it is given and fits
    ``base`` on ``others`` (once: the fit is deterministic); every sample is a fresh seeded draw."""

    def __init__(self, base: str, others: pd.DataFrame):
        self.base, self.others = base, others
        self.model_ = resolve_synthesizer(base).fit(others)

    def fit(self, df):
        return self

    def sample(self, n, random_state=None):
        return self.model_.sample(n, random_state=random_state)


def calibrate(seeds: int, size: int, base: str, n_jobs: int) -> None:
    """False risk of the shadow-model verdict on ``seeds`` releases fitted on other people."""
    population = pl.load_dataset("adult")
    print(
        f"{machine()}; Adult, per seed three disjoint samples of {size:,} (training, holdout, the "
        f"null generator's {base} fit); 5 outlier targets, 40 + 20 shadow pairs, correlation "
        f"features, {n_jobs} processes\n"
    )
    print(
        "| seed | worst target's AUC | its own p | Holm-adjusted p | targets p <= 0.05 alone | verdict | s |"
    )
    print("|---:|---:|---:|---:|---:|---|---:|")
    verdicts, alone, started = [], [], time.perf_counter()
    for seed in range(seeds):
        order = np.random.default_rng(seed).permutation(len(population))
        train, holdout, others = (
            population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True)
            for i in range(3)
        )
        start = time.perf_counter()
        result = judge(
            shadow_model_attack(
                synthesizer=FittedOnOthers(base, others),
                train=train,
                population=pd.concat([train, holdout], ignore_index=True),
                n_targets=5,
                n_shadows=40,
                n_test=20,
                n_jobs=n_jobs,
                random_state=seed,
            )
        )
        verdicts.append(result.verdict)
        alone.append(result.n_significant_alone)
        print(
            f"| {seed} | {result.value:.3f} | {result.raw_p_value:.3g} | {result.p_value:.3g} | "
            f"{result.n_significant_alone} | {result.verdict} | {time.perf_counter() - start:.0f} |",
            flush=True,
        )
    risks = sum(v == RISK for v in verdicts)
    low, high = wilson_interval(risks, seeds)
    flagged_alone = sum(a > 0 for a in alone)
    print(
        f"\nFalse risk: {risks} of {seeds} ({risks / seeds:.1%}; 95% Wilson interval {low:.1%} to "
        f"{high:.1%}); some target significant on its own (p <= 0.05 before Holm): {flagged_alone} of "
        f"{seeds}; targets significant on their own: {sum(alone)} of {5 * seeds} "
        f"({sum(alone) / (5 * seeds):.1%}, exact binomial p of so many or more at 5%: "
        f"{binomtest(sum(alone), 5 * seeds, 0.05, alternative='greater').pvalue:.2g}). Verdicts: "
        + ", ".join(f"{v} {verdicts.count(v)}" for v in (RISK, INCONCLUSIVE, NO_EVIDENCE) if v in verdicts)
        + f". {time.perf_counter() - started:.0f} s in all."
    )
    print(f"Finished: {machine()}")


def _interval(result) -> str:
    return f"{result.value:.3f} ({result.ci_low:.3f} to {result.ci_high:.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2, help="processes for the shadow fits")
    parser.add_argument("--features", default="correlation", help="feature set of the attack")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--calibrate", type=int, metavar="SEEDS", help="false risk on this many null releases"
    )
    parser.add_argument("--size", type=int, default=1000, help="records per sample of the calibration")
    parser.add_argument("--null-base", default="GaussianCopula", help="the null generator's class")
    args = parser.parse_args()
    if args.calibrate:
        calibrate(args.calibrate, args.size, args.null_base, args.n_jobs)
        return

    population = pl.load_dataset("adult")
    train, rest = pl.datasets.sample_split(population, 1000, 6000, random_state=args.seed)
    holdout, reference = rest.iloc[:1000], rest.iloc[1000:]
    generators = {
        "Copy": pl.synth.Copy(),
        "SequentialTrees": pl.synth.SequentialTrees(),
        # the seed fixes the noise of the release the density attack scores; the shadow attack
        # draws fresh noise for every one of its fits
        "MST, epsilon = 1": pl.synth.MST(
            epsilon=1.0, bounds=pl.dp.bounds_of(population), random_state=args.seed
        ),
    }
    print(
        f"{machine()}; population {len(population):,}, training {len(train):,}, "
        f"5 outlier targets, 40 + 20 shadow pairs per target, features {args.features!r}, "
        f"{args.n_jobs} processes\n"
    )
    print(
        "| generator | shadow-model worst target's AUC (95% CI) | per-target AUC | verdict | time (s) "
        "| density attack AUC (95% CI) | time (s) |"
    )
    print("|---|---|---|---|---:|---|---:|")
    for name, generator in generators.items():
        start = time.perf_counter()
        attack = shadow_model_attack(
            synthesizer=generator,
            train=train,
            population=population,
            n_targets=5,
            n_shadows=40,
            n_test=20,
            features=args.features,
            n_jobs=args.n_jobs,
            random_state=args.seed,
        )
        attack_seconds = time.perf_counter() - start
        start = time.perf_counter()
        synthetic = resolve_synthesizer(generator).fit(train).sample(random_state=args.seed)
        density = density_attack(
            train=train, holdout=holdout, synthetic=synthetic, population=reference, random_state=args.seed
        )
        density_seconds = time.perf_counter() - start
        per_target = ", ".join(f"{auc:.2f}" for auc in attack.target_auc)
        print(
            f"| {name} | {_interval(attack)} | {per_target} | {attack.verdict} | "
            f"{attack_seconds:.0f} | {_interval(density)} | {density_seconds:.1f} |",
            flush=True,
        )
    print(
        "\nTargets (training row: distance to the nearest other record): "
        + ", ".join(f"{i}: {d:.3f}" for i, d in zip(attack.target_index, attack.target_distance))
    )
    print(f"Finished: {machine()}")


if __name__ == "__main__":
    main()
