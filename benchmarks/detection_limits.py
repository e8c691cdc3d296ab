"""Detection limits on Adult and ACS at 2,000 records: the stated limit against fresh draws, and its cost.

Per dataset, three disjoint seeded samples of 2,000 records (as :mod:`calibration` draws them):
training, holdout, and the records a GaussianCopula release of 2,000 is fitted on, so the release
comes from other people. The audit's record-level tests run on it inside one
:func:`privlib.search_reuse.reuse_searches` block, as the audit runs them (the copy and rare-copy
tests, the distance attack at 0.1 % and 1 %, the near-copy test, the attack ensemble and the
rare-key attribution test of each sensitive variable), then
:func:`privlib.audit.detection_limits.detection_limits` in the same block (``--draws`` seeded draws per
size, the ensemble held at its p-value). What the limits add to ``privlib.audit.run``, which now
computes them, is measured by :mod:`audit_limits_cost`.

The power check: for every limit found, :func:`privlib.audit.detection_limits.detection_rates` plants
``--fresh`` new draws (another seed) at the limit and at half of it; the limit is honest when the
fresh rate at the limit is near 90 % (85 to 95 % asked) and the rate at half is lower.

Run from the repository root::

    nice -n 15 python benchmarks/detection_limits.py [--draws 50] [--fresh 40]

It prints a Markdown section to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

import numpy as np

import privlib as pl
from privlib.attacks import attack_ensemble, near_copy_test
from privlib.audit.detection_limits import detection_limits, detection_rates
from privlib.errors import PrivlibError
from privlib.rare_attributions import rare_attribution_test
from privlib.rare_copies import rare_copy_test
from privlib.records import nn_mia_low_fpr
from privlib.search_reuse import reuse_searches

logger = logging.getLogger("detection_limits")

SIZE = 2000
DATASETS = ("adult", "acs")


def tables(dataset: str, seed: int, size: int = SIZE):
    """Training, holdout and a GaussianCopula release fitted on a third, disjoint sample."""
    population = pl.load_dataset(dataset)
    order = np.random.default_rng([seed, DATASETS.index(dataset)]).permutation(len(population))
    train, holdout, other = (
        population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True) for i in range(3)
    )
    release = pl.synth.make("GaussianCopula").fit(other).sample(size, random_state=seed)
    return train, holdout, release


def record_tests(train, holdout, synthetic, info, seed: int) -> dict:
    """The audit's record-level tests: key -> p-value."""
    release = dict(train=train, holdout=holdout, synthetic=synthetic)
    found = {
        "copy_test": pl.records.copy_test(**release).p_value,
        "rare_copy_test": rare_copy_test(**release, random_state=seed).p_value,
        "near_copy_test": near_copy_test(**release, random_state=seed).p_value,
        "attack_ensemble": attack_ensemble(**release, random_state=seed).p_value,
    }
    for rate in (0.001, 0.01):
        point = nn_mia_low_fpr(**release, fpr=rate, random_state=seed)
        found[point.measure] = point.p_value
    for target in info.sensitive:
        try:
            test = rare_attribution_test(**release, keys=info.keys, target=target)
            found[f"rare_attribution_test[{target}]"] = test.p_value
        except PrivlibError:  # no rare record on these keys: the audit skips it
            pass
    return found


def _rate(share: float, draws: int) -> str:
    caught = round(share * draws)
    low, high = pl.uncertainty.wilson_interval(caught, draws, confidence=0.95)
    return f"{caught}/{draws} = {share:.0%} ({low:.0%} to {high:.0%})"


def run(dataset: str, *, draws: int, fresh: int, seed: int) -> list[str]:
    train, holdout, release = tables(dataset, seed)
    info = pl.dataset_info(dataset)
    settings = dict(keys=info.keys, sensitive=info.sensitive)
    with reuse_searches():
        start, cpu = time.perf_counter(), time.process_time()
        found = record_tests(train, holdout, release, info, seed)
        tests_wall, tests_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        limits = detection_limits(
            train=train,
            holdout=holdout,
            synthetic=release,
            **settings,
            held={"membership": {"attack_ensemble": found["attack_ensemble"]}},
            draws=draws,
            random_state=seed,
        )
        limits_wall, limits_cpu = time.perf_counter() - start, time.process_time() - cpu
    sizes: dict[str, set] = {}
    for limit in limits:
        if limit.limit is not None:
            sizes.setdefault(limit.leak, set()).update({limit.limit, max(1, limit.limit // 2)})
    rates = detection_rates(
        train=train,
        holdout=holdout,
        synthetic=release,
        **settings,
        sizes={leak: sorted(s) for leak, s in sizes.items()},
        held={"membership": {"attack_ensemble": found["attack_ensemble"]}},
        draws=fresh,
        random_state=seed + 1,
    )
    copied = {k: round(v, 3) for k, v in found.items()}
    lines = [
        f"**{dataset}** (release p-values: {copied}). Record-level tests {tests_wall:.1f} s wall "
        f"({tests_cpu:.1f} s CPU); the detection limits after them, in the same search block, "
        f"{limits_wall:.1f} s wall ({limits_cpu:.1f} s CPU): {limits_wall / tests_wall:.2f} times the "
        "tests.",
        "",
        "| leak | family | limit M (share of release) | caught at M, search draws | largest tried below "
        "(caught) | fresh draws at M | fresh draws at M/2 |",
        "|---|---|---|---|---|---|---|",
    ]
    for limit in limits:
        if limit.limit is None:
            lines.append(
                f"| {limit.leak} | {limit.family} | none up to {limit.largest} | "
                f"{_rate(limit.rate_at_limit or 0.0, draws)} at {limit.largest} | | | |"
            )
            continue
        half = max(1, limit.limit // 2)
        below = "" if limit.below is None else f"{limit.below} ({limit.rate_below:.0%})"
        lines.append(
            f"| {limit.leak} | {limit.family} | {limit.limit} ({limit.share:.2%}) | "
            f"{_rate(limit.rate_at_limit or 0.0, draws)} | {below} | "
            f"{_rate(rates[limit.leak, limit.limit, limit.family], fresh)} | "
            f"{half}: {_rate(rates[limit.leak, half, limit.family], fresh)} |"
        )
    lines += ["", *(f"- {limit.reading()}" for limit in limits), ""]
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=50, help="seeded draws per size of the search")
    parser.add_argument("--fresh", type=int, default=40, help="fresh draws at the limit and at half")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS), choices=DATASETS)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    from _timing import machine

    print(f"{machine()}; {args.draws} draws per size, {args.fresh} fresh draws, seed {args.seed}\n")
    for dataset in args.datasets:
        lines = run(dataset, draws=args.draws, fresh=args.fresh, seed=args.seed)
        print("\n".join(lines), flush=True)  # each dataset's section as it ends


if __name__ == "__main__":
    # one BLAS thread: the machine is shared (numba's threads are left to the audit, which sets them)
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    main()
