"""Side by side with Synth-MIA: its membership attacks and the kit's attack ensemble on the same files.

Synth-MIA (Ward et al. 2025, "Synth-MIA: a testbed for auditing privacy leakage in tabular data
synthesis", MIT licence) is a research testbed of membership inference attacks on synthetic
tabular data. It is *not* a dependency of the kit: this benchmark runs it from a checkout of its
public repository, in a separate virtual environment with PyTorch (its LOGAN attack trains a
network, and its density attacks import PyTorch for their optional flow estimator)::

    PYTHONPATH=/path/to/Synth-MIA nice -n 10 python benchmarks/synthmia_compare.py \\
        --markdown synthmia.md --rows synthmia.csv

After a change of the kit alone, ``--tools kit --reuse synthmia.csv`` reruns only the kit's
readings and takes Synth-MIA's rows of the same files from the earlier run (the files are made
again from their seeds, so they are the same files; check one Synth-MIA attack on one file before
trusting the reuse).

The files are those of ``benchmarks/calibration.py``: per draw, four disjoint samples of 2,000
records of Adult or ACS (training, holdout, a third sample for a null generator, reference), and
four releases of 2,000 records:

``null GaussianCopula``
    GaussianCopula fitted on the third sample (other people): no record can be found.
``1% near copies``
    that null release with 20 rows replaced by near copies of training records
    (:func:`calibration.leak`: one numeric value moved by 1 % to 3 % of its range; on ACS one
    categorical value changed).
``10 copied rare records``
    ``OutlierCopies(base="GaussianCopula", n_copies=10)`` fitted on the training records.
``over-fitted SequentialTrees``
    ``SequentialTrees(min_samples_leaf=1)`` fitted on the training records.

Synth-MIA's attacks run as its authors' experiment runner runs them: its ``TabularPreprocessor``
(fitted on the release, ordinal codes for categories, standardised numbers), GenLRA and DPI over
a grid of neighbour counts, the reference sample as the attacker's population data. Its
preprocessor cannot read missing values, so before it a missing category becomes a category of its
own and a missing number the release's median. The kit's :func:`privlib.attacks.attack_ensemble`
reads the raw tables (it calibrates on training and holdout records together, not on the reference
sample). Every attack's scores of the training (members) and holdout (non-members) records are then
read by the same code: the TPR at false-positive rates of at most 0.1 % and 1 % with the kit's exact
threshold rule (:func:`privlib.records.tpr_at_low_fpr`: no interpolation inside ties) and the AUC as
the Mann-Whitney statistic (ties count one half). Seconds are wall-clock and CPU time of each call.
"""

from __future__ import annotations

import argparse
import logging
import os
import time

import numpy as np
import pandas as pd
from scipy.stats import rankdata

import privlib as pl
from privlib.attacks import ATTACKS, attack_ensemble, near_copy_test
from privlib.records import tpr_at_low_fpr

logger = logging.getLogger("synthmia_compare")

DATASETS = ("adult", "acs")
SIZE = 2000
#: The releases of a draw ("null" alone would read back from CSV as a missing value).
RELEASES = ("null GaussianCopula", "1% near copies", "10 copied rare records", "over-fitted SequentialTrees")
FPRS = (0.001, 0.01)
NEAR_SHARE = 0.01
#: The neighbour counts of Synth-MIA's own experiment runner for GenLRA and DPI.
NEIGHBOUR_GRID = (1, 5, 10, 25, 50, 100)
MISSING = "(missing)"


def synthmia_attacks(genlra_grid=NEIGHBOUR_GRID) -> dict:
    """Synth-MIA's attacks, name -> a fresh attacker, as its experiment runner configures them.

    Synth-MIA is imported here, so that the module imports without it (ImportError with a
    one-line message otherwise)."""
    try:
        from synth_mia import attackers
    except ImportError as error:
        raise ImportError(
            f"Synth-MIA cannot be imported ({error}): put a checkout of its repository on PYTHONPATH "
            "and install PyTorch (benchmarks/README.md)"
        ) from None
    attacks = {f"GenLRA k={k}": attackers.GenLRA(k_nearest=k) for k in genlra_grid}
    attacks |= {f"DPI k={k}": attackers.DPI(k_nearest=k) for k in NEIGHBOUR_GRID}
    attacks |= {
        "DCR": attackers.DCR(),
        "DCRDiff": attackers.DCRDiff(),
        "DOMIAS": attackers.DOMIAS(),
        "MC": attackers.MC(),
        "LocalNeighborhood": attackers.LocalNeighborhood(),
        "Classifier": attackers.Classifier(),
        "DensityEstimate": attackers.DensityEstimate(),
        "LOGAN": attackers.LOGAN(),
    }
    return attacks


def releases(dataset: str, draw: int, seed: int):
    """The draw's training, holdout and reference samples and its four releases (seeded: every
    release of a draw comes from the same samples, whichever is asked for)."""
    from calibration import leak, samples

    rng = np.random.default_rng([seed, DATASETS.index(dataset), draw])
    train, holdout, fit, reference = samples(dataset, rng, SIZE)
    null_seed, rare_seed, trees_seed = (int(s) for s in rng.integers(2**31, size=3))
    null = pl.synth.make("GaussianCopula").fit(fit).sample(SIZE, random_state=null_seed)
    made = {
        "null GaussianCopula": lambda: null,
        "1% near copies": lambda: leak(
            null, train, NEAR_SHARE, True, np.random.default_rng([seed, DATASETS.index(dataset), draw, 1])
        ),
        "10 copied rare records": lambda: (
            pl.synth.OutlierCopies(base="GaussianCopula", n_copies=10)
            .fit(train)
            .sample(SIZE, random_state=rare_seed)
        ),
        "over-fitted SequentialTrees": lambda: (
            pl.synth.SequentialTrees(min_samples_leaf=1).fit(train).sample(SIZE, random_state=trees_seed)
        ),
    }
    return train, holdout, reference, made


def auc(members: np.ndarray, nonmembers: np.ndarray) -> float:
    """Mann-Whitney AUC: the chance that a member outscores a non-member, ties counting one half."""
    ranks = rankdata(np.concatenate([members, nonmembers]))
    m, n = members.size, nonmembers.size
    return float((ranks[:m].sum() - m * (m + 1) / 2) / (m * n))


def reading(members, nonmembers) -> dict:
    """TPR at each rate of :data:`FPRS` (with its exact one-sided p-value) and the AUC. A NaN score
    (an attack that failed on a record) counts as the least member-like."""
    members, nonmembers = (np.asarray(s, dtype=float) for s in (members, nonmembers))
    members, nonmembers = (np.where(np.isnan(s), -np.inf, s) for s in (members, nonmembers))
    out = {"auc": auc(members, nonmembers)}
    for rate in FPRS:
        point = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers, fpr=rate)
        out[f"tpr_{rate:g}"] = point.value
        out[f"p_{rate:g}"] = point.p_value
    return out


def _without_missing(table: pd.DataFrame, release: pd.DataFrame) -> pd.DataFrame:
    """``table`` with a missing category as a category of its own and a missing number as the
    release's median (Synth-MIA's preprocessor rejects missing values)."""
    out = table.copy()
    for column in out.columns:
        if pd.api.types.is_numeric_dtype(out[column]):
            out[column] = out[column].fillna(release[column].median())
        else:
            out[column] = out[column].astype(object).where(out[column].notna(), MISSING)
    return out


def run_synthmia(train, holdout, reference, synthetic, genlra_grid) -> list[dict]:
    import torch
    from synth_mia.utils import TabularPreprocessor

    start = time.perf_counter()
    tables = [_without_missing(t, synthetic) for t in (train, holdout, synthetic, reference)]
    preprocessor = TabularPreprocessor(
        fit_target="synth", categorical_encoding="ordinal", numeric_encoding="standard"
    )
    preprocessor.fit(*tables)
    mem, non_mem, synth, ref, _ = preprocessor.transform(*tables)
    logger.info("Synth-MIA preprocessing %.1f s", time.perf_counter() - start)
    rows = []
    for name, attacker in synthmia_attacks(genlra_grid).items():
        np.random.seed(0)  # LOGAN samples its batches from numpy's global generator
        torch.manual_seed(0)
        wall, cpu = time.perf_counter(), time.process_time()
        labels, scores = attacker.attack(mem, non_mem, synth, ref)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        scores = np.asarray(scores, float)
        rows.append(
            dict(
                tool="Synth-MIA",
                attack=name,
                seconds=wall,
                cpu_seconds=cpu,
                nan_scores=int(np.isnan(scores).sum()),
                **reading(scores[labels == 1], scores[labels == 0]),
            )
        )
        logger.info("  %s: %.1f s, AUC %.3f", name, wall, rows[-1]["auc"])
    return rows


def _timed(call):
    wall, cpu = time.perf_counter(), time.process_time()
    result = call()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def run_kit(train, holdout, synthetic) -> list[dict]:
    """The ensemble's five attacks (one row each, and one row for the ensemble's own verdict and
    seconds), then the kit's two other membership readings of an audit: the near-copy test and
    the distance attack (:func:`privlib.membership.nn_mia`)."""
    tables = dict(train=train, holdout=holdout, synthetic=synthetic)
    ensemble, wall, cpu = _timed(lambda: attack_ensemble(**tables, random_state=0))
    rows = [
        dict(tool="privlib", attack=attack, **reading(*_scores(ensemble.points[(attack, FPRS[0])])))
        for attack in ATTACKS
    ]
    rows.append(
        dict(
            tool="privlib",
            attack="attack_ensemble",
            seconds=wall,
            cpu_seconds=cpu,
            ensemble_p=ensemble.p_value,
            ensemble_deciding=f"{ensemble.deciding_attack} at {100 * ensemble.deciding_fpr:g}%",
        )
    )
    logger.info("  privlib attack_ensemble: %.1f s, Holm-adjusted p %.2g", wall, ensemble.p_value)
    near, wall, cpu = _timed(lambda: near_copy_test(**tables))
    rows.append(
        dict(
            tool="privlib",
            attack="near_copy_test",
            seconds=wall,
            cpu_seconds=cpu,
            **reading(*_scores(near.points[("near_copy", FPRS[0])])),
        )
    )
    distance, wall, cpu = _timed(lambda: pl.membership.nn_mia(**tables, random_state=0))
    point, *_ = pl.records.low_fpr_points(distance, fprs=FPRS[:1])
    rows.append(
        dict(tool="privlib", attack="nn_mia", seconds=wall, cpu_seconds=cpu, **reading(*_scores(point)))
    )
    return rows


def _scores(point) -> tuple[np.ndarray, np.ndarray]:
    return point.member_scores, point.nonmember_scores


def run_file(
    dataset: str, draw: int, release: str, seed: int, genlra_grid=NEIGHBOUR_GRID, tools: str = "all"
) -> list[dict]:
    """Every attack of both tools (``tools="kit"``: of the kit alone) on one release: one row per
    attack."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(message)s")  # in a worker too
    train, holdout, reference, made = releases(dataset, draw, seed)
    synthetic = made[release]()
    logger.info("%s draw %d, %s", dataset, draw, release)
    rows = run_kit(train, holdout, synthetic)
    if tools == "all":
        rows += run_synthmia(train, holdout, reference, synthetic, genlra_grid)
    return [dict(dataset=dataset, draw=draw, release=release, **row) for row in rows]


#: The readings compared: Synth-MIA's attacks, the kit's ensemble, and the ensemble with the kit's
#: two other membership readings (its membership family as an audit runs it).
GROUPS = {
    "Synth-MIA": lambda rows: rows[rows.tool == "Synth-MIA"],
    "ensemble": lambda rows: rows[rows.attack.isin(ATTACKS)],
    "kit family": lambda rows: rows[rows.attack.isin((*ATTACKS, "near_copy_test", "nn_mia"))],
}
#: Operating points: column of the rows, label, column of its p-value.
POINTS = (("tpr_0.001", "TPR at 0.1%", "p_0.001"), ("tpr_0.01", "TPR at 1%", "p_0.01"), ("auc", "AUC", None))


def _best(rows: pd.DataFrame, column: str, p_column: str | None) -> tuple[float, str]:
    """The highest reading and its cell: value, a star when its exact test is significant at 5 %,
    the attack."""
    top = rows.iloc[int(np.argmax(rows[column].to_numpy()))]
    star = "\\*" if p_column and top[p_column] < 0.05 else ""  # escaped: two stars in a cell would be italics
    shown = f"{top[column]:.3f}" if column == "auc" else f"{100 * top[column]:.2f}%"
    return float(top[column]), f"{shown}{star} {top.attack}"


def _holm_min_p(rows: pd.DataFrame) -> str:
    """The smallest Holm-adjusted p-value over the readings of ``rows`` at both rates (the
    smallest p-value times their number): below 5 %, the group finds members after correction
    for choosing its best attack."""
    p_values = rows[[p for _, _, p in POINTS if p]].to_numpy().ravel()
    p_values = p_values[~np.isnan(p_values)]
    return f"{min(1.0, p_values.min() * p_values.size):.2g} ({p_values.size})"


def tables(rows: pd.DataFrame) -> str:
    """Markdown: per file the best reading of each group at each operating point, then every
    attack's readings per dataset and release (mean over draws)."""
    rows = rows.sort_values(
        ["dataset", "release", "draw"],
        key=lambda column: (
            column.map({**{d: i for i, d in enumerate(DATASETS)}, **{r: i for i, r in enumerate(RELEASES)}})
            if column.name != "draw"
            else column
        ),
        kind="stable",
    )
    lines = [
        "| file | draw | "
        + " | ".join(f"{label}: Synth-MIA best / ensemble best / kit family best" for _, label, _ in POINTS)
        + " | at or above Synth-MIA's best | smallest Holm-adjusted p (readings): Synth-MIA / ensemble / kit family |"
        " seconds, wall (CPU): Synth-MIA, all attacks / ensemble |",
        "|---|---:|---|---|---|---|---|---:|",
    ]
    for (dataset, release, draw), file_rows in rows.groupby(["dataset", "release", "draw"], sort=False):
        cells: list[str] = []
        above: dict[str, list[str]] = {"ensemble": [], "kit family": []}
        for column, label, p_column in POINTS:
            best = {name: _best(select(file_rows), column, p_column) for name, select in GROUPS.items()}
            cells.append(" / ".join(cell for _, cell in best.values()))
            for name, labels in above.items():
                if best[name][0] >= best["Synth-MIA"][0]:
                    labels.append(label)
        ensemble = file_rows[file_rows.attack == "attack_ensemble"].iloc[0]  # its seconds
        synthmia = file_rows[file_rows.tool == "Synth-MIA"]
        reached = "; ".join(f"{name}: {', '.join(labels) or 'none'}" for name, labels in above.items())
        holm = " / ".join(_holm_min_p(select(file_rows)) for select in GROUPS.values())
        lines.append(
            f"| {dataset}, {release} | {draw} | {' | '.join(cells)} | {reached} | {holm} | "
            f"{synthmia.seconds.sum():.0f} ({synthmia.cpu_seconds.sum():.0f}) / "
            f"{ensemble.seconds:.1f} ({ensemble.cpu_seconds:.1f}) |"
        )
    scored = rows[rows.attack != "attack_ensemble"]
    means = (
        scored.groupby(["dataset", "tool", "attack", "release"], sort=False)[["tpr_0.001", "tpr_0.01", "auc"]]
        .mean()
        .to_dict("index")
    )
    seconds = (
        rows.groupby(["dataset", "tool", "attack"], sort=False)[["seconds", "cpu_seconds"]]
        .mean()
        .to_dict("index")
    )
    lines += [
        "",
        "Every reading, mean over draws: TPR at 0.1% / TPR at 1% (percent) / AUC; mean seconds per file "
        "(the ensemble's five attacks: the whole ensemble's), wall (CPU).",
        "",
    ]
    for dataset in rows.dataset.unique():
        present = [r for r in RELEASES if r in set(rows[rows.dataset == dataset].release)]
        lines += [
            f"| {dataset} | " + " | ".join(present) + " | seconds |",
            "|---|" + "---|" * len(present) + "---:|",
        ]
        for (tool, attack), _ in scored[scored.dataset == dataset].groupby(["tool", "attack"], sort=False):
            cells = []
            for release in present:
                mean = means[(dataset, tool, attack, release)]
                cells.append(
                    f"{100 * mean['tpr_0.001']:.2f} / {100 * mean['tpr_0.01']:.2f} / {mean['auc']:.3f}"
                )
            spent = seconds[(dataset, tool, "attack_ensemble" if attack in ATTACKS else attack)]
            lines.append(
                f"| {tool} {attack} | "
                + " | ".join(cells)
                + f" | {spent['seconds']:.1f} ({spent['cpu_seconds']:.1f}) |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1, help="draws per dataset")
    parser.add_argument(
        "--first-draw", type=int, default=0, help="number of the first draw (its seeds follow)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated, of adult and acs")
    parser.add_argument("--n-jobs", type=int, default=2, help="processes, one file each")
    parser.add_argument(
        "--genlra", default=",".join(map(str, NEIGHBOUR_GRID)), help="GenLRA neighbour counts"
    )
    parser.add_argument(
        "--rows",
        required=True,
        help="CSV file of one row per attack and file (with --tables-only: files, comma-separated)",
    )
    parser.add_argument("--markdown", required=True, help="write the Markdown tables here")
    parser.add_argument("--tables-only", action="store_true", help="only write the tables of the --rows file")
    parser.add_argument(
        "--tools",
        choices=("all", "kit"),
        default="all",
        help="kit: rerun only the kit's readings and take Synth-MIA's rows from --reuse",
    )
    parser.add_argument("--reuse", help="with --tools kit: CSV files of an earlier run, comma-separated")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(process)d %(message)s")
    if args.tables_only:
        with open(args.markdown, "w") as out:
            out.write(tables(pd.concat(pd.read_csv(path) for path in args.rows.split(","))) + "\n")
        return
    if args.tools == "kit":
        if not args.reuse:
            parser.error("--tools kit needs --reuse: the CSV files whose Synth-MIA rows are kept")
        earlier = pd.concat(pd.read_csv(path) for path in args.reuse.split(","))
        reused = earlier[earlier.tool == "Synth-MIA"]
    else:
        try:
            synthmia_attacks()
        except ImportError as error:
            parser.error(str(error))
    genlra_grid = tuple(int(k) for k in args.genlra.split(","))
    if unknown := set(args.datasets.split(",")) - set(DATASETS):
        parser.error(f"--datasets: {', '.join(sorted(unknown))} unknown; choose among {', '.join(DATASETS)}")
    from _timing import machine
    from joblib import Parallel, delayed

    # the workers import this file as a module: a function of __main__ would travel by value
    from synthmia_compare import run_file

    header = machine()
    tasks = [
        (d, draw, r, args.seed, genlra_grid, args.tools)
        for draw in range(args.first_draw, args.first_draw + args.draws)
        for d in args.datasets.split(",")
        for r in RELEASES
    ]
    if args.tools == "kit":
        wanted = {t[:3] for t in tasks}
        keys = list(zip(reused.dataset, reused.draw, reused.release))
        if missing := wanted - set(keys):
            parser.error(f"--reuse has no Synth-MIA rows of {sorted(missing)}: run --tools all for those")
        done = reused[[key in wanted for key in keys]].to_dict("records")
    else:
        done = []
    start = time.perf_counter()
    for rows in Parallel(n_jobs=args.n_jobs, return_as="generator_unordered")(
        delayed(run_file)(*t) for t in tasks
    ):
        done += rows
        pd.DataFrame(done).to_csv(
            args.rows, index=False
        )  # rewritten after each file: a partial run keeps its rows
    rows = pd.DataFrame(done)
    with open(args.markdown, "w") as out:
        out.write(
            f"{header}; {len(tasks)} files in {time.perf_counter() - start:.0f} s with {args.n_jobs} processes "
            f"(load average at the end {os.getloadavg()[0]:.1f})\n\n{tables(rows)}\n"
        )
    logger.info("tables written to %s", args.markdown)


if __name__ == "__main__":
    # one thread per process: the processes share the cores
    for variable in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # GenLRA's progress bar, one line per record
    main()
