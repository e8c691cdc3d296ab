"""Calibration of the record-level tests: false alarms on null releases, detection of partial leaks.

Each draw takes four disjoint samples of 2,000 records from a bundled population (Adult or ACS;
240 from the 994 records of CE):
training, holdout, a third sample that fits the null generator, and a reference sample for the
density attack. The **null** release comes from GaussianCopula or SequentialTrees fitted on the
third sample: the generator never saw a training record, so any "risk" is a false alarm. The
**leaks** are that same release with a share of its rows replaced by verbatim copies of distinct
training records (0.5 %, 1 %, 2 %, 5 %) or by near copies (1 %: one numeric variable of each copy,
chosen at random, moved by 1 % to 3 % of its range, just beyond the copy test's tolerance; on
all-categorical ACS one categorical value changed to another). Real generators fitted on the
training data itself close the table: SequentialTrees (it may memorise), MST at epsilon = 1
(differentially private, public bounds from the population) and ``OutlierCopies`` (GaussianCopula
plus its 10 most isolated training records, verbatim: copied rare records).

Every release is audited in process with the record-level measures of :mod:`privlib.records`:

* identity: :func:`~privlib.records.copy_test` (training vs holdout records with a synthetic copy,
  Fisher's exact test) and :func:`~privlib.rare_copies.rare_copy_test` (the same on the rare
  records);
* membership: the TPR at false-positive rates of 0.1 % and 1 % of the distance attack
  (:func:`privlib.membership.nn_mia`'s own distances) and of DOMIAS
  (:func:`privlib.targeted.density_attack`, kernel densities), each by its exact test, the
  near-copy test (:func:`privlib.attacks.near_copy_test`) and the attack ensemble
  (:func:`privlib.attacks.attack_ensemble`), each already Holm-adjusted over its readings, and
  the two attacks' AUCs judged by their interval rules;

and a family is a "risk" as the audit decides it: when the audit's adjustment
(:func:`privlib.audit.rulebook.family_decision`: Holm's weighted step-down, each attack an equal
share) of the exact tests its catalogue runs (copy and rare-copy tests; the distance attack at
0.1 %, the near-copy test and the ensemble) leaves one significant at 5 %, or nn_mia's AUC rule
says risk. The wider membership family adds DOMIAS and both attacks at 1 %, as a user with a
reference table would read them. Rates come with their 95 % Wilson intervals.

Run from the repository root::

    nice -n 10 python benchmarks/calibration.py [--small] [--n-jobs 2]

It prints a Markdown section to paste into benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import functools
import logging
import os
import time

import numpy as np
import pandas as pd

import privlib as pl
from privlib.attacks import attack_ensemble, near_copy_test
from privlib.audit.family_rule import Judged, family_verdict
from privlib.errors import PrivlibError
from privlib.rare_attributions import rare_attribution_test
from privlib.rare_copies import rare_copy_test
from privlib.results import RISK
from privlib.thresholds import REGISTRY, judge

logger = logging.getLogger("calibration")

SIZE = 2000
#: Records per sample on CE, whose 994 records allow four disjoint samples of this size.
CE_SIZE = 240
DATASETS = ("adult", "acs", "ce")
CONFIDENCE = 0.95
NULL_GENERATORS = ("GaussianCopula", "SequentialTrees")
#: Leak name -> (share of the release replaced, near copies or verbatim).
LEAKS = {
    "0.5% verbatim": (0.005, False),
    "1% verbatim": (0.01, False),
    "2% verbatim": (0.02, False),
    "5% verbatim": (0.05, False),
    "1% near copies": (0.01, True),
}
#: The leaks on ACS: few columns, so holdout records are copied as often as training records.
ACS_LEAKS = ("1% verbatim", "1% near copies")
NEAR_MOVE = (0.01, 0.03)  # share of the range a near copy's one numeric value moves by
#: Generators fitted on the training records themselves.
TRAINED = ("SequentialTrees on train", "MST on train", "OutlierCopies on train")
#: The small run: 5 null draws, one leak each: (dataset, generator, draw, leaks).
SMALL = (
    ("adult", "GaussianCopula", 0, ("1% verbatim",)),
    ("adult", "SequentialTrees", 0, ("0.5% verbatim",)),
    ("adult", "GaussianCopula", 1, ("1% near copies",)),
    ("adult", "SequentialTrees", 1, ("5% verbatim",)),
    ("acs", "SequentialTrees", 0, ("1% verbatim",)),
)


@functools.cache
def _population(dataset: str) -> pd.DataFrame:
    return pl.load_dataset(dataset)


def samples(dataset: str, rng: np.random.Generator, size: int = SIZE):
    """Four disjoint seeded samples of ``size`` records: train, holdout, fit, reference."""
    population = _population(dataset)
    order = rng.permutation(len(population))
    return [
        population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True) for i in range(4)
    ]


def leak(
    release: pd.DataFrame, train: pd.DataFrame, share: float, near: bool, rng: np.random.Generator
) -> pd.DataFrame:
    """``release`` with ``share`` of its rows replaced by copies of distinct training records,
    each near copy with one numeric variable moved by 1 % to 3 % of its range (rounded for whole
    numbers)."""
    count = round(share * len(release))
    rows = rng.choice(len(release), count, replace=False)
    copies = train.iloc[rng.choice(len(train), count, replace=False)].reset_index(drop=True)
    numeric = [c for c in copies.columns if pd.api.types.is_numeric_dtype(copies[c])]
    if near and not numeric:  # all categorical: one value of each copy changed to another
        chosen = rng.choice(copies.columns, count)
        for row, column in enumerate(chosen):
            others = [v for v in train[column].unique() if v != copies.at[row, column]]
            copies.at[row, column] = others[rng.integers(len(others))]
    elif near:
        chosen = rng.choice(numeric, count)
        for column in numeric:
            which = np.flatnonzero(chosen == column)
            low, high = float(train[column].min()), float(train[column].max())
            move = rng.uniform(*NEAR_MOVE, which.size) * (high - low)
            values = copies[column].to_numpy(dtype="float64")
            # up, unless that leaves the range: a near copy stays a plausible record
            values[which] += np.where(values[which] + move <= high, move, -move)
            if pd.api.types.is_integer_dtype(copies[column]):
                values = np.round(values)
            copies[column] = values.astype(copies[column].dtype)
    out = release.copy()
    for column in out.columns:  # column by column keeps each dtype (categories included)
        values = out[column].to_numpy(copy=True)
        values[rows] = copies[column].to_numpy()
        out[column] = pd.Series(values, dtype=release[column].dtype)
    return out


def audit(*, train, holdout, synthetic, reference, confidence=CONFIDENCE) -> dict:
    """The record-level measures and the two family verdicts of one release."""
    copies = pl.records.copy_test(train=train, holdout=holdout, synthetic=synthetic, confidence=confidence)
    distance = pl.membership.nn_mia(
        train=train, holdout=holdout, synthetic=synthetic, random_state=0, confidence=confidence
    )
    density = pl.targeted.density_attack(
        train=train,
        holdout=holdout,
        synthetic=synthetic,
        population=reference,
        random_state=0,
        confidence=confidence,
    )
    (nn_point, nn_point_1), (density_point, density_point_1) = (
        pl.records.low_fpr_points(a) for a in (distance, density)
    )
    rare = rare_copy_test(train=train, holdout=holdout, synthetic=synthetic, confidence=confidence)
    near = near_copy_test(train=train, holdout=holdout, synthetic=synthetic, confidence=confidence)
    ensemble = attack_ensemble(
        train=train, holdout=holdout, synthetic=synthetic, random_state=0, confidence=confidence
    )
    # the families as the audit decides them (privlib.audit.family_rule.family_verdict): Holm over
    # the exact tests its catalogue runs (the copy and rare-copy tests; the distance attack at
    # 0.1%, the near-copy test and the ensemble; the certain attributions through rare keys, one
    # per sensitive variable), nn_mia's AUC judged by its interval rule
    info = pl.dataset_info(_dataset_of(train))
    attributions = []
    for target in info.sensitive:
        try:
            attributions.append(
                rare_attribution_test(
                    train=train,
                    holdout=holdout,
                    synthetic=synthetic,
                    keys=info.keys,
                    target=target,
                    confidence=confidence,
                )
            )
        except PrivlibError:  # no rare record on these keys (ACS): not assessable, as the audit skips it
            pass
    identity = _family([copies, rare], confidence)
    exact = (nn_point, near, ensemble)
    membership = _family([*exact, distance], confidence)
    attribute = _family(attributions, confidence)
    # a wider family, as a user with a reference table would read it: DOMIAS and both attacks at 1%
    wide = _family([*exact, nn_point_1, density_point, density_point_1, distance, density], confidence)
    interval_risk = judge(distance).verdict == RISK
    deciding = membership.deciding if membership.adjusted_p is not None else ""
    return {
        "identity_risk": identity.verdict == RISK,
        "membership_risk": membership.verdict == RISK,
        "membership_exact_risk": any(membership.standing.get(t.measure) == RISK for t in exact),
        "membership_interval_risk": interval_risk,
        "membership_wide_risk": wide.verdict == RISK,
        "membership_deciding": deciding,
        "membership_p": membership.adjusted_p if membership.adjusted_p is not None else np.nan,
        "identity_p": min(identity.adjusted.values(), default=np.nan),
        "attribute_risk": attribute.verdict == RISK,
        "attribute_p": min(attribute.adjusted.values(), default=np.nan),
        "attributions_certain": sum(a.train_attributed for a in attributions),
        "copy_p": copies.p_value,
        "records_at_risk": copies.records_at_risk,
        "train_copied": copies.train_copied,
        "holdout_copied": copies.holdout_copied,
        "nn_p": nn_point.p_value,
        "nn_called": nn_point.members_called,
        "nn_1_p": nn_point_1.p_value,
        "density_p": density_point.p_value,
        "density_called": density_point.members_called,
        "density_1_p": density_point_1.p_value,
        "nn_auc": distance.auc,
        "density_auc": density.value,
        "rare_p": rare.p_value,
        "rare_copied": rare.train_copied,
        "near_p": near.p_value,
        "ensemble_p": ensemble.p_value,
        "ensemble_attack": f"{ensemble.deciding_attack} at {100 * ensemble.deciding_fpr:g}%",
        "old_identity_risk": pl.records.family_tests([copies], confidence=confidence).any_significant,
        "old_membership_risk": pl.records.family_tests(
            [nn_point, density_point], confidence=confidence
        ).any_significant,
    }


def _family(results, confidence: float):
    """The family verdict of judged results, by the audit's own rule (an exact test's p-value
    enters Holm; an interval rule's verdict stands as it is)."""
    judged = [judge(r) for r in results]
    return family_verdict(
        [
            Judged(
                key=r.measure,
                title=r.measure,
                verdict=r.verdict,
                exact=REGISTRY[r.measure].exact_test,
                p_value=getattr(r, "p_value", None),
                value=r.value,
                threshold=r.threshold,
                ci_low=r.ci_low,
                ci_high=r.ci_high,
                higher_is_riskier=r.higher_is_riskier,
                confidence=confidence,
            )
            for r in judged
        ],
        title="family",
        confidence=confidence,
    )


def _dataset_of(train: pd.DataFrame) -> str:
    """The bundled dataset whose columns ``train`` has."""
    return next(d for d in DATASETS if list(_population(d).columns) == list(train.columns))


def run_draw(dataset: str, generator: str, draw: int, seed: int, leaks=(), size: int = SIZE) -> list[dict]:
    """Audit one draw's release (null, or a generator fitted on the training data) and its leaks."""
    rng = np.random.default_rng(
        [seed, DATASETS.index(dataset), (*NULL_GENERATORS, *TRAINED).index(generator), draw]
    )
    train, holdout, fit, reference = samples(dataset, rng, min(size, CE_SIZE) if dataset == "ce" else size)
    if generator in NULL_GENERATORS:
        release_name, fitted_on = "null", fit
        model = pl.synth.make(generator)
    else:  # a real generator, trained on the training records themselves
        release_name, fitted_on = "trained on train", train
        if generator == "SequentialTrees on train":
            model = pl.synth.make("SequentialTrees")
        elif generator == "OutlierCopies on train":
            model = pl.synth.OutlierCopies(base="GaussianCopula", n_copies=10)
        else:
            model = pl.dp.MST(
                epsilon=1.0,
                bounds=pl.dp.bounds_of(_population(dataset)),
                random_state=int(rng.integers(2**31)),
            )
    release = model.fit(fitted_on).sample(len(train), random_state=int(rng.integers(2**31)))
    tables = dict(train=train, holdout=holdout, reference=reference)
    rows = [dict(release=release_name, synthetic=release)]
    rows += [dict(release=name, synthetic=leak(release, train, *LEAKS[name], rng)) for name in leaks]
    out = []
    for row in rows:
        start = time.perf_counter()
        result = audit(synthetic=row["synthetic"], **tables)
        out.append(
            dict(
                dataset=dataset,
                generator=generator,
                draw=draw,
                release=row["release"],
                seconds=time.perf_counter() - start,
                **result,
            )
        )
    logger.info("%s %s draw %d: %d audits", dataset, generator, draw, len(out))
    return out


#: Leaks of the full run, per dataset: near copies on every null draw of Adult and ACS, verbatim
#: copies (caught in every draw on Adult, by chance alone on ACS) on the first
#: :data:`VERBATIM_DRAWS` draws per null generator.
FULL_LEAKS = {"adult": ("1% verbatim", "1% near copies"), "acs": ACS_LEAKS, "ce": ()}
VERBATIM_DRAWS = 5


#: Draws of OutlierCopies trained on the training data per Adult and ACS (the power row of the
#: copied rare records), and of each other generator trained on it.
OUTLIER_DRAWS, TRAINED_DRAWS = 20, 3


def _full_leaks(dataset: str, draw: int) -> tuple:
    return tuple(name for name in FULL_LEAKS[dataset] if draw < VERBATIM_DRAWS or "verbatim" not in name)


def tasks(small: bool, seed: int, draws: int = 15) -> list[tuple]:
    """(dataset, generator, draw, seed, leaks) of every draw. Full: ``6 draws`` nulls (``draws``
    per dataset and null generator; 90 by default, so that no false alarm in all of them puts
    the Wilson interval's upper end below 5 %), 1 % near copies on every Adult and ACS null and
    1 % verbatim copies on the first :data:`VERBATIM_DRAWS`, :data:`OUTLIER_DRAWS` releases of
    OutlierCopies trained on the training data and :data:`TRAINED_DRAWS` of each other trained
    generator per Adult and ACS. Ordered by draw, so that a run stopped early leaves every row
    with about as many draws. Small: :data:`SMALL`."""
    if small:
        return [(dataset, generator, draw, seed, leaks) for dataset, generator, draw, leaks in SMALL]
    out = []
    for draw in range(max(draws, OUTLIER_DRAWS, TRAINED_DRAWS)):
        if draw < draws:
            out += [
                (dataset, generator, draw, seed, _full_leaks(dataset, draw))
                for dataset in DATASETS
                for generator in NULL_GENERATORS
            ]
        for dataset in ("adult", "acs"):
            if draw < OUTLIER_DRAWS:
                out.append((dataset, "OutlierCopies on train", draw, seed, ()))
            if draw < TRAINED_DRAWS:
                out += [(dataset, generator, draw, seed, ()) for generator in TRAINED[:2]]
    return out


def _rate(flags) -> str:
    flags = np.asarray(flags, dtype=bool)
    low, high = pl.uncertainty.wilson_interval(int(flags.sum()), flags.size, confidence=0.95)
    return f"{flags.sum()}/{flags.size} = {flags.mean():.0%} ({low:.0%} to {high:.0%})"


def tables(rows: pd.DataFrame) -> str:
    """The Markdown tables: false risk on nulls, detection per leak, generators on train."""
    lines = [
        "| null releases | audits | identity false risk (95% CI) | membership false risk (95% CI) | "
        "attribute (rare keys) false risk (95% CI) | either of the first two |",
        "|---|---:|---|---|---|---|",
    ]
    nulls = rows[rows.release == "null"]
    for (dataset, generator), group in [
        *nulls.groupby(["dataset", "generator"], sort=False),
        (("**all**", ""), nulls),
    ]:
        name = f"{dataset}, {generator}" if generator else dataset
        lines.append(
            f"| {name} | {len(group)} | {_rate(group.identity_risk)} | {_rate(group.membership_risk)} | "
            f"{_rate(group.attribute_risk)} | {_rate(group.identity_risk | group.membership_risk)} |"
        )
    lines += [
        "",
        f"Membership false risks on the nulls from the adjusted exact tests: "
        f"{_rate(nulls.membership_exact_risk)}; from the AUC's interval rule: "
        f"{_rate(nulls.membership_interval_risk)}; in the wider family (DOMIAS and both attacks at "
        f"1% added): {_rate(nulls.membership_wide_risk)}.",
        "",
        "| release | draws | identity risk (95% CI) | membership risk (95% CI) | either | "
        "either, issue-22 measures only | membership, wider family | mean records at risk | "
        "mean NN-MIA AUC | training / holdout records newly copied |",
        "|---|---:|---|---|---|---|---|---:|---:|---:|",
    ]
    # what a leak adds to the copy test's counts, against the null release of the same draw
    draw = ["dataset", "generator", "draw"]
    null_counts = nulls.set_index(draw)[["train_copied", "holdout_copied"]]
    moved = rows.merge(null_counts.add_suffix("_null"), left_on=draw, right_index=True, how="left")
    order = ["null", *LEAKS, "trained on train"]
    for (dataset, release, generator), group in sorted(
        moved.assign(generator=np.where(moved.release == "trained on train", moved.generator, "")).groupby(
            ["dataset", "release", "generator"]
        ),
        key=lambda item: (item[0][0], order.index(item[0][1]), item[0][2]),
    ):
        name = f"{dataset}, {generator}" if generator else f"{dataset}, {release}"
        newly = (
            f"{(group.train_copied - group.train_copied_null).mean():+.1f} / "
            f"{(group.holdout_copied - group.holdout_copied_null).mean():+.1f}"
            if release in LEAKS
            else ""
        )
        lines.append(
            f"| {name} | {len(group)} | {_rate(group.identity_risk)} | {_rate(group.membership_risk)} | "
            f"{_rate(group.identity_risk | group.membership_risk)} | "
            f"{_rate(group.old_identity_risk | group.old_membership_risk)} | "
            f"{_rate(group.membership_wide_risk)} | {group.records_at_risk.mean():.1f} | "
            f"{group.nn_auc.mean():.3f} | {newly} |"
        )
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="5 nulls and 5 leaks")
    parser.add_argument("--n-jobs", type=int, default=2, help="processes, one draw each")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--draws", type=int, default=15, help="null draws per dataset and generator")
    parser.add_argument("--rows", help="also write one row per audit to this CSV file, draw by draw")
    parser.add_argument("--tables-from", help="only print the tables of the rows in this CSV file")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    if args.tables_from:  # "null" is a release's name, not a missing value
        print(tables(pd.read_csv(args.tables_from, keep_default_na=False, na_values=[""])))
        return
    from _timing import machine

    # the workers import this file as a module: a function of __main__ would travel by value
    from calibration import run_draw
    from joblib import Parallel, delayed

    header = machine()
    start = time.perf_counter()
    done = Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_draw)(*task) for task in tasks(args.small, args.seed, args.draws)
    )
    parts = []
    for draw in done:  # each draw's rows written as it ends, so a run stopped early keeps them
        parts.append(pd.DataFrame(draw))
        if args.rows:
            parts[-1].to_csv(
                args.rows, mode="a" if len(parts) > 1 else "w", header=len(parts) == 1, index=False
            )
        logger.info("%d draws done", len(parts))
    rows = pd.concat(parts, ignore_index=True)
    seconds = time.perf_counter() - start
    print(
        f"{header}; {len(rows)} audits in {seconds:.0f} s with {args.n_jobs} processes "
        f"(load average at the end {os.getloadavg()[0]:.1f}); mean {rows.seconds.mean():.1f} s per "
        "audit\n"
    )
    print(tables(rows))


if __name__ == "__main__":
    # one thread per process: the processes share the cores
    for variable in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    main()
