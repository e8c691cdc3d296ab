"""The targeted shadow-model attack and the density attack on Adult (issue 15's numbers).

Adult is the population (48,842 rows); the generator's training file is 1,000 of its rows
(seeded); the targets are the 5 training records farthest (Gower) from their nearest other
training record. Each generator (Copy, SequentialTrees, MST at epsilon = 1 with the population's
numeric ranges as public bounds) is attacked with 40 shadow pairs per target to train the
classifier and 20 fresh pairs to measure the AUC. The density attack (DOMIAS, KDE) scores the
1,000 training records against 1,000 holdout records, with 5,000 reference records.

Run from the repository root::

    python benchmarks/targeted.py [--n-jobs 2] [--features correlation]

It prints a Markdown section to paste into benchmarks/README.md.
"""

import argparse
import time

from _timing import machine

import privlib as pl
from privlib.targeted import density_attack, resolve_synthesizer, shadow_model_attack


def _interval(result) -> str:
    return f"{result.value:.3f} ({result.ci_low:.3f} to {result.ci_high:.3f})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2, help="processes for the shadow fits")
    parser.add_argument("--features", default="correlation", help="feature set of the attack")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

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
        "| generator | shadow-model mean AUC (95% CI) | per-target AUC | verdict | time (s) "
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
            train=train, holdout=holdout, synthetic=synthetic, reference=reference, random_state=args.seed
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
