"""DP claims put to the test: the one-run lower bound on epsilon against releases of known epsilon.

Each draw takes disjoint seeded samples of 2,000 Adult records (``calibration.samples``): training,
holdout and a third sample of other people.

* **MST** (:class:`privlib.dp.MST`, public bounds from the population by
  :func:`privlib.dp.bounds_of`, delta 1e-9) fitted on the training records at epsilon 1, 10 and
  100, sampled at its noisy size: :func:`privlib.epsilon_audit.epsilon_lower_bound`, read against
  the true ``(epsilon, 1e-9)``, must never exceed epsilon (at 95 % confidence, a bound above the
  truth has probability at most 5 % per draw).
* **A 1 % leak**: GaussianCopula fitted on the third sample, 20 of its 2,000 rows replaced by
  verbatim training records (``calibration.leak``), read against an epsilon = 1 claim (delta 0):
  in how many draws is the claim contradicted?

Run from the repository root::

    nice -n 15 python benchmarks/epsilon_audit.py [--draws 20]

It prints a Markdown section for benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np
import pandas as pd
from _timing import machine
from calibration import _population, leak, samples

import privlib as pl
from privlib.epsilon_audit import epsilon_lower_bound

logger = logging.getLogger("epsilon_audit")

DATASET = "adult"
EPSILONS = (1.0, 10.0, 100.0)
MST_DELTA = 1e-9
LEAK_SHARE = 0.01
LEAK_CLAIM = 1.0
CONFIDENCE = 0.95


def one_draw(kind: str, epsilon: float, draw: int) -> dict:
    """The bound of one release: ``kind`` is "MST" (at ``epsilon``) or "leak"."""
    rng = np.random.default_rng([43, EPSILONS.index(epsilon) if kind == "MST" else len(EPSILONS), draw])
    train, holdout, others, _ = samples(DATASET, rng)
    if kind == "MST":
        model = pl.dp.MST(
            epsilon=epsilon,
            delta=MST_DELTA,
            bounds=pl.dp.bounds_of(_population(DATASET)),
            random_state=int(rng.integers(2**31)),
        )
        release = model.fit(train).sample(random_state=int(rng.integers(2**31)))
        claim = dict(claimed_epsilon=epsilon, claimed_delta=MST_DELTA)
    else:
        release = (
            pl.synth.make("GaussianCopula")
            .fit(others)
            .sample(len(train), random_state=int(rng.integers(2**31)))
        )
        release = leak(release, train, LEAK_SHARE, False, rng)
        claim = dict(claimed_epsilon=epsilon, claimed_delta=0.0)
    start = time.process_time()
    result = epsilon_lower_bound(
        train=train,
        holdout=holdout,
        synthetic=release,
        confidence=CONFIDENCE,
        random_state=int(rng.integers(2**31)),
        **claim,
    )
    row = dict(
        kind=kind,
        epsilon=epsilon,
        draw=draw,
        bound=result.value,
        contradicts=result.contradicts_claim,
        attack=result.attack,
        guesses=result.guesses,
        correct=result.correct,
        cpu_seconds=time.process_time() - start,
    )
    logger.info("%s", row)
    return row


def report(rows: pd.DataFrame, draws: int, cpu_total: float) -> str:
    lines = [
        "## DP claims put to the test (`benchmarks/epsilon_audit.py`)",
        "",
        f"Recorded {machine()}; {draws} draws per row, Adult, 2,000 training and 2,000 holdout "
        f"records, confidence {CONFIDENCE:.0%}; {cpu_total / 60:.1f} CPU minutes in all.",
        "",
        "| release | claim | draws | max bound | median bound | claim contradicted | "
        "median guesses (right) | attacks chosen | CPU s per bound (median) |",
        "|---|---|---:|---:|---:|---:|---|---|---:|",
    ]
    for (kind, epsilon), group in rows.groupby(["kind", "epsilon"], sort=False):
        name = (
            f"MST at epsilon {epsilon:g}" if kind == "MST" else "GaussianCopula, 1% verbatim training records"
        )
        claim = (
            f"epsilon {epsilon:g}, delta {MST_DELTA:g}" if kind == "MST" else f"epsilon {epsilon:g}, delta 0"
        )
        attacks = ", ".join(f"{a} {n}" for a, n in group["attack"].value_counts().items())
        lines.append(
            f"| {name} | {claim} | {len(group)} | {group['bound'].max():.3f} | "
            f"{group['bound'].median():.3f} | {int(group['contradicts'].sum())} of {len(group)} | "
            f"{group['guesses'].median():g} ({group['correct'].median():g}) | {attacks} | "
            f"{group['cpu_seconds'].median():.1f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=20)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    start = time.process_time()
    rows = [one_draw("MST", epsilon, draw) for epsilon in EPSILONS for draw in range(args.draws)]
    rows += [one_draw("leak", LEAK_CLAIM, draw) for draw in range(args.draws)]
    frame = pd.DataFrame(rows)
    print(report(frame, args.draws, time.process_time() - start))


if __name__ == "__main__":
    main()
