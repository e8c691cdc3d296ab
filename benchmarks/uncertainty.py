"""Time the confidence intervals on a 200,000-record audit.

Run from the repository root::

    python benchmarks/uncertainty.py [--repeats 3]

It prints a Markdown table (median seconds over the repeats, and the machine it ran on) to paste
into the "Uncertainty" section of benchmarks/README.md. The intervals must not slow a large audit
noticeably: the bootstrap of the attack AUC over 200,000 members and 100,000 non-members must add
well under 2 seconds, and the intervals of shares, CAP and the adversarial accuracy far less.
"""

import argparse

import numpy as np
from _timing import machine, median_seconds

from privlib.uncertainty import auc_interval, percentile_interval, resampled_means, wilson_interval


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per interval (median)")
    args = parser.parse_args()
    print(f"{machine()}\n")
    rng = np.random.default_rng(0)
    members, others = rng.normal(0.1, 1, 200_000), rng.normal(0, 1, 100_000)
    # Gower distances of mixed data repeat: scores on a grid of 0.001
    members_grid, others_grid = np.round(np.abs(members) / 4, 3), np.round(np.abs(others) / 4, 3)
    cap_values = rng.choice(np.linspace(0, 1, 500), 200_000)
    indicators = rng.random(200_000) < 0.3
    tasks = {
        "AUC, 200,000 + 100,000 scores, all distinct": lambda: auc_interval(members, others, rng=rng),
        "AUC, 200,000 + 100,000 scores on a 0.001 grid": lambda: auc_interval(
            members_grid, others_grid, rng=rng
        ),
        "mean CAP, 200,000 records, 500 distinct values": lambda: percentile_interval(
            resampled_means(cap_values, rng=rng)
        ),
        "mean of 200,000 distinct values (worst case of a mean)": lambda: percentile_interval(
            resampled_means(members, rng=rng)
        ),
        "indicator mean (AA, privacy loss, F1 counts), 200,000 records": lambda: percentile_interval(
            resampled_means(indicators, rng=rng)
        ),
        "Wilson, any share": lambda: wilson_interval(61_234, 200_000),
    }
    print("| interval (200 resamples) | median seconds |\n|---|---|")
    for label, task in tasks.items():
        print(f"| {label} | {median_seconds(task, args.repeats):.3f} |")


if __name__ == "__main__":
    main()
