"""What the detection limits add to an audit: `privlib.audit.run` with them and without, one run.

Per dataset, the tables of :mod:`detection_limits` (three disjoint seeded samples of ``--size``
records: training, holdout, and the records a GaussianCopula release is fitted on, so every family
reads "no evidence of risk" or "inconclusive" and every family's limits are computed). The audit
runs ``--repeats`` times with its limits and as often without them (the runner's
``limits_of`` replaced by one that computes nothing), alternating, after one warm-up run that loads
the modules and compiles the kernels. Each run's wall and CPU seconds are taken; the ratio is that
of the medians. CPU seconds are the fairer reading on a machine shared with other jobs: the audit
and the limits run on one core each step, so a busy neighbour stretches wall time, not CPU time.

Run from the repository root::

    nice -n 15 python benchmarks/audit_limits_cost.py [--size 2000] [--repeats 3]

It prints a Markdown table to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
from unittest import mock

import numpy as np

import privlib as pl
import privlib.audit.runner as runner

DATASETS = ("adult", "acs")


def _timed(task) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    task()
    return time.perf_counter() - wall, time.process_time() - cpu


def measure(dataset: str, *, size: int, repeats: int, seed: int) -> str:
    from detection_limits import tables

    train, holdout, release = tables(dataset, seed, size)
    info = pl.dataset_info(dataset)
    settings = dict(
        train=train, synthetic=release, holdout=holdout, keys=info.keys, sensitive=info.sensitive, seed=seed
    )
    spent: list[float] = []
    computed = runner.limits_of

    def limits_timed(*args, **kwargs):
        start = time.process_time()
        out = computed(*args, **kwargs)
        spent.append(time.process_time() - start)
        return out

    report = pl.audit.run(**settings)  # warm-up: imports and compiled kernels
    with_limits, without = [], []
    for _ in range(repeats):
        with mock.patch.object(runner, "limits_of", limits_timed):
            with_limits.append(_timed(lambda: pl.audit.run(**settings)))
        with mock.patch.object(runner, "limits_of", lambda *args, **kwargs: None):
            without.append(_timed(lambda: pl.audit.run(**settings)))
    wall = [float(np.median([run[0] for run in runs])) for runs in (with_limits, without)]
    cpu = [float(np.median([run[1] for run in runs])) for runs in (with_limits, without)]
    limits = report.detection_limits
    found = ", ".join(
        f"{x.leak}/{x.family} {x.limit if x.limit is not None else 'none'}"
        for x in (limits.limits if limits else [])
    )
    return (
        f"| {dataset} | {size:,} | {cpu[1]:.2f} | {cpu[0]:.2f} | **{cpu[0] / cpu[1]:.2f}** | "
        f"{float(np.median(spent)):.2f} | {wall[1]:.2f} | {wall[0]:.2f} | {wall[0] / wall[1]:.2f} | {found} |"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    from _timing import machine

    print(f"{machine()}; median of {args.repeats} runs each, seed {args.seed}\n")
    print(
        "| dataset | records | audit CPU s, without | with limits | ratio (CPU) | limits CPU s | "
        "audit wall s, without | with limits | ratio (wall) | limits found |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for dataset in args.datasets:
        print(measure(dataset, size=args.size, repeats=args.repeats, seed=args.seed), flush=True)


if __name__ == "__main__":
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    main()
