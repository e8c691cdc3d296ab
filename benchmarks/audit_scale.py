"""How the whole privacy audit scales: n = 32,000, 200,000 and 1,000,000 Adult-like records.

Usage (from the repository root)::

    .venv/bin/python benchmarks/audit_scale.py                      # 32k, 200k and 1M
    .venv/bin/python benchmarks/audit_scale.py --sizes 32000 --write  # one size, table into README.md
    .venv/bin/python benchmarks/audit_scale.py --dask --write        # local engine vs LocalCluster

The data (documented generator, fixed seeds). The kit's ``SequentialTrees`` synthesizer
(``min_samples_leaf=5``, ``random_state=0``) is fitted on the 48,842 records of UCI Adult and
used as a pseudo-population: for size n it draws the training data (n records, seed n + 1), the
holdout (n / 2 records, seed n + 2) and the synthetic data (n records, seed n + 3) as three
independent samples, so the synthetic data stands for a generator that learnt the population
and copied no training record. The population size passed to the audit is N = 10 n. Keys are
age, sex, race, marital-status and native-country, the sensitive variable is income (as in
``reports/params/adult.yaml``). The CSV files are written once to
``benchmarks/_work/audit_scale/n<size>/``.

What is timed, each in a fresh process:

1. the whole audit through the command line, ``python -m privlib.cli audit ... --out DIR``
   (papermill run of ``reports/privacy_audit.ipynb``, then HTML and PDF): wall seconds, CPU
   seconds of the process tree and its peak resident memory (the sum over the process and its
   children, polled every 0.2 s);
   before it, the unit it is measured in: one whole-table neighbour search, the synthetic records
   against the training records (Gower, k = 1, the encoder the audit fits on the three tables),
   timed around the call in a fresh process after the inputs are read; the table gives the whole
   audit as a multiple of it, so the ratio holds on a faster or slower machine alike;
2. every measure of the audit alone, its ``privlib.audit.CATALOGUE`` entry's function called with
   the arguments the audit gives it (seed 2026, 5 repetitions), after the inputs are read with
   ``privlib.audit.load_audit_inputs``: wall and CPU seconds of the call and the process's
   peak resident memory (which includes the inputs). Alone, a measure makes every neighbour
   search it needs; inside the audit it shares those an earlier measure made.

Every timed process runs with ``OMP_WAIT_POLICY=passive`` (see ``ENV``).

``--peers`` puts the audit side by side with what a user would run instead on the same files
(issue 25), at n = 20,000, 100,000 and 200,000 by default (``--sizes``): anonymeter 1.1's three evaluators
(singling out in both modes, linkability, inference) with the audit's 2,000 attacks and the
audit's columns, and SDMetrics' ``DCROverfittingProtection`` on the whole tables, each in a fresh
process of a separate virtual environment (anonymeter pins numpy < 1.27; ``--peer-python``,
by default ``benchmarks/_work/venv-peers``, created with ``pip install anonymeter sdmetrics
psutil`` on first use), against the kit's matching measures and the whole ``privlib audit``.
A run that takes longer than ``--peer-timeout`` seconds (default 1,800) is stopped and
recorded as not finished. Every process is watched from outside the same way (wall, CPU of
its tree, peak RSS of its tree polled every 0.2 s).

``--dask`` times ``privlib.neighbors.kneighbors`` (Gower, k = 1) on Adult-like tables locally and
on a ``LocalCluster(n_workers=2, threads_per_worker=1)``, checks the two results are identical,
and turns the measured rate per worker into the time of a 10M x 10M search on 32 workers (a
calculation); then it runs the whole audit twice, locally and with ``--dask-scheduler`` on that
cluster, and compares the two metrics.json files value for value.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil  # also installed in the peers' environment, which runs this file as a worker

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work" / "audit_scale"
README = HERE / "README.md"
SIZES = (32_000, 200_000, 1_000_000)
KEYS = ["age", "sex", "race", "marital-status", "native-country"]
SENSITIVE = ["income"]
SEED = 2026
REPEATS = 5
ATTACKS = 2000  # as the audit's catalogue
N_COLS = 3  # columns of a multivariate singling-out predicate, as the audit's catalogue
PEER_SIZES = (20_000, 100_000, 200_000)
PEER_VENV = WORK.parent / "venv-peers"
#: The environment of every timed process. OpenMP threads (numba's threading layer here, and
#: scikit-learn's gradient boosting) wait for each other actively by default; on a machine shared
#: with other jobs a descheduled thread then holds the others up many times over. Passive
#: waiting is the setting for shared machines (and is recommended in the README).
ENV = os.environ | {"OMP_WAIT_POLICY": "passive"}
#: The audit's measures at these files, keys as in metrics.json, in the order the audit runs them
#: (a worker checks each against ``privlib.audit.CATALOGUE``; this script also runs in the peers'
#: environment, which has no privlib).
MEASURES = (
    "privacy_loss",
    "copy_test",
    "dcr_zero_share",
    "replicated_uniques",
    "singling_out_univariate",
    "singling_out_multivariate",
    "linkability_risk",
    "cap[income]",
    "knn_risk_accuracy[income]",
    "inference_risk[income]",
    "dcr_holdout_share",
    "threshold_attack_precision",
    "nn_mia_auc",
    "nn_mia_tpr_at_0.1pct",
    "adversarial_accuracy",
    "partition_f1",
    "discriminator_excess_realness",
    "rare_copy_test",
    "near_copy_test",
    "attack_ensemble",
)
#: The side-by-side: (what, the kit's measure, the peer's run) per row.
PEER_ROWS = (
    ("singling out, univariate", "singling_out_univariate", "anonymeter_singling_out_univariate"),
    ("singling out, multivariate", "singling_out_multivariate", "anonymeter_singling_out_multivariate"),
    ("linkability", "linkability_risk", "anonymeter_linkability"),
    ("inference (income)", "inference_risk[income]", "anonymeter_inference"),
    (
        "DCR: synthetic records closer to training than to holdout",
        "dcr_holdout_share",
        "sdmetrics_dcr_overfitting_protection",
    ),
)
PEERS = tuple(peer for _, _, peer in PEER_ROWS)


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------
def folder(size: int) -> Path:
    return WORK / f"n{size}"


def make_data(size: int) -> Path:
    """Write train.csv, holdout.csv and synthetic.csv for ``size`` (once) and return their folder."""
    out = folder(size)
    if (out / "synthetic.csv").exists():
        return out
    import privlib as pl

    out.mkdir(parents=True, exist_ok=True)
    population = pl.synth.SequentialTrees(min_samples_leaf=5).fit(pl.datasets.load_dataset("adult"))
    for name, n, seed in (
        ("train", size, size + 1),
        ("holdout", size // 2, size + 2),
        ("synthetic", size, size + 3),
    ):
        population.sample(n, random_state=seed).to_csv(out / f"{name}.csv", index=False)
    return out


# --------------------------------------------------------------------------------------------
# One measure, in its own process
# --------------------------------------------------------------------------------------------
def _measure_call(key: str, size: int, inputs):
    """The audit's measure ``key`` called as the audit calls it (its catalogue entry's function and
    arguments, built outside the timing), as a function of no argument."""
    from privlib.audit import CATALOGUE, Audit, AuditSpec

    data = folder(size)
    spec = AuditSpec.build(
        train=data / "train.csv",
        synthetic=data / "synthetic.csv",
        holdout=data / "holdout.csv",
        population_size=10 * size,
        keys=KEYS,
        sensitive=SENSITIVE,
        seed=SEED,
    )
    name, _, target = key.partition("[")
    entry = next(entry for entry in CATALOGUE if entry.key == name)
    arguments = entry.arguments(Audit(inputs, spec)._context(target.rstrip("]") or None))
    return lambda: entry.function(**arguments)


def search_worker(size: int) -> dict:
    """One whole-table search as the audit makes it: synthetic -> training, Gower, k = 1, with
    the encoder fitted on training, holdout and synthetic data together; wall and CPU seconds of
    the call (the inputs read and the engine compiled outside the timing)."""
    from privlib.matching import gower_setup
    from privlib.neighbors import kneighbors

    inputs = _inputs(size)
    train, holdout, synthetic = inputs.train, inputs.holdout, inputs.primary
    encoder = gower_setup(train, holdout, synthetic)  # the encoder the audit's distance measures share
    kneighbors(synthetic.iloc[:100], train.iloc[:100], encoder=encoder)  # compile outside the timing
    cpu, start = _cpu_seconds(), time.perf_counter()
    kneighbors(synthetic, train, k=1, encoder=encoder)
    wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    return dict(
        size=size, wall=wall, cpu=cpu, peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )


def _inputs(size: int):
    """The audit's inputs of the benchmark's files of ``size`` records, read and checked as the
    audit reads them."""
    import privlib as pl

    data = folder(size)
    return pl.audit.load_audit_inputs(
        train=str(data / "train.csv"),
        synthetic=[str(data / "synthetic.csv")],
        holdout=str(data / "holdout.csv"),
        population_size=10 * size,
        keys=KEYS,
        sensitive=SENSITIVE,
    )


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def measure_worker(name: str, size: int) -> dict:
    inputs = _inputs(size)
    call = _measure_call(name, size, inputs)
    loaded_mb = psutil.Process().memory_info().rss / 2**20
    cpu, start = _cpu_seconds(), time.perf_counter()
    result = call()
    wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return dict(
        measure=name,
        size=size,
        wall=wall,
        cpu=cpu,
        peak_mb=peak_mb,
        loaded_mb=loaded_mb,
        value=float(result.value),
    )


# --------------------------------------------------------------------------------------------
# A process tree, watched from outside
# --------------------------------------------------------------------------------------------
def run_watched(command: list[str], log: Path, timeout: float | None = None) -> dict:
    """Run ``command``; its wall seconds, CPU seconds and peak RSS summed over its process tree.

    After ``timeout`` seconds the process and its children are stopped (``finished`` is then
    false).
    """
    peak = [0.0]
    stopped = threading.Event()
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    with open(log, "w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=ENV)
        done = threading.Event()

        def poll():
            root = psutil.Process(process.pid)
            while not done.is_set():
                try:
                    tree = [root, *root.children(recursive=True)]
                    peak[0] = max(peak[0], sum(_rss(p) for p in tree))
                    if timeout is not None and time.perf_counter() - start > timeout:
                        stopped.set()
                        for member in reversed(tree):  # children first, then the process itself
                            member.kill()
                except psutil.NoSuchProcess:
                    pass
                done.wait(0.2)

        watcher = threading.Thread(target=poll, daemon=True)
        watcher.start()
        status = process.wait()
        done.set()
        watcher.join()
    wall = time.perf_counter() - start
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    return dict(status=status, wall=wall, cpu=cpu, peak_mb=peak[0] / 2**20, finished=not stopped.is_set())


def _rss(process) -> int:
    try:
        return process.memory_info().rss
    except psutil.NoSuchProcess:
        return 0


def run_size(size: int, measures, skip_cli: bool) -> dict:
    """Time the measures and the whole audit at ``size``; the record is saved after each step."""
    data = make_data(size)
    path = WORK / f"results_{size}.json"
    record = dict(size=size, load_start=os.getloadavg()[0], measures=[])
    for name in measures:
        log = data / f"measure_{name}.log"
        outcome = run_watched([sys.executable, __file__, "--worker", name, "--sizes", str(size)], log)
        line = log.read_text().strip().splitlines()[-1] if outcome["status"] == 0 else ""
        row = json.loads(line) if line.startswith("{") else dict(measure=name, failed=True)
        row["load"] = os.getloadavg()[0]
        print(json.dumps(row), flush=True)
        record["measures"].append(row)
        _save(path, record)
    if not skip_cli:
        log = data / "search.log"
        outcome = run_watched([sys.executable, __file__, "--search-worker", "--sizes", str(size)], log)
        line = log.read_text().strip().splitlines()[-1] if outcome["status"] == 0 else ""
        record["search"] = json.loads(line) | dict(load=os.getloadavg()[0]) if line.startswith("{") else None
        print(json.dumps(record["search"]), flush=True)
        command = audit_command(size, data / "audit")
        record["audit"] = run_watched(command, data / "audit.log") | dict(load=os.getloadavg()[0])
        print(json.dumps(record["audit"]), flush=True)
    record["load_end"] = os.getloadavg()[0]
    _save(path, record)
    return record


def audit_command(size: int, out: Path, *options: str) -> list[str]:
    """``privlib audit`` on the files of ``size`` into ``out``, with the benchmark's settings."""
    data = folder(size)
    return [
        sys.executable,
        "-m",
        "privlib.cli",
        "audit",
        "--train",
        str(data / "train.csv"),
        "--synthetic",
        str(data / "synthetic.csv"),
        "--holdout",
        str(data / "holdout.csv"),
        "--population-size",
        str(10 * size),
        "--keys",
        *KEYS,
        "--sensitive",
        *SENSITIVE,
        "--seed",
        str(SEED),
        "--out",
        str(out),
        *options,
    ]


def _save(path: Path, record: dict) -> None:
    """Write ``record``, keeping what an earlier (or concurrent) run recorded for other measures."""
    if path.exists():
        earlier = json.loads(path.read_text())
        mine = {r["measure"] for r in record["measures"]}
        kept = [r for r in earlier["measures"] if r["measure"] not in mine]
        record = record | dict(measures=kept + record["measures"])
        for run in ("audit", "search"):
            if run in earlier and run not in record:
                record[run] = earlier[run]
    path.write_text(json.dumps(record, indent=1))


# --------------------------------------------------------------------------------------------
# The peers, side by side (run in their own environment)
# --------------------------------------------------------------------------------------------
def peer_worker(name: str, size: int) -> dict:
    """Run one peer on the files of ``size`` (in the peers' environment: pandas, anonymeter,
    sdmetrics); wall and CPU seconds of the call, the process's peak RSS, and its value."""
    import logging
    import warnings

    import numpy as np
    import pandas as pd

    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    np.random.seed(SEED)  # anonymeter's linkability and inference draw from numpy's global generator
    data = folder(size)
    train, holdout, synthetic = (pd.read_csv(data / f"{t}.csv") for t in ("train", "holdout", "synthetic"))
    categorical = [c for c in train.columns if not pd.api.types.is_numeric_dtype(train[c])]
    for frame in (train, holdout, synthetic):  # anonymeter's encoders take no missing category
        frame[categorical] = frame[categorical].fillna("?")
    rest = [c for c in train.columns if c not in KEYS]
    tables = dict(ori=train, syn=synthetic, control=holdout)

    def anonymeter(kind):
        from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

        if kind.startswith("singling_out"):
            mode = kind.rsplit("_", 1)[1]
            evaluator = SinglingOutEvaluator(**tables, n_attacks=ATTACKS, n_cols=N_COLS, seed=SEED)
            return evaluator.evaluate(mode=mode).risk().value
        if kind == "linkability":
            evaluator = LinkabilityEvaluator(
                **tables, n_attacks=ATTACKS, aux_cols=(KEYS, rest), n_neighbors=1
            )
            return evaluator.evaluate(n_jobs=-1).risk().value
        evaluator = InferenceEvaluator(**tables, n_attacks=ATTACKS, secret=SENSITIVE[0], aux_cols=KEYS)
        return evaluator.evaluate(n_jobs=-1).risk().value

    def sdmetrics():
        from sdmetrics.single_table import DCROverfittingProtection

        metadata = {
            "columns": {
                c: {"sdtype": "categorical" if c in categorical else "numerical"} for c in train.columns
            }
        }
        breakdown = DCROverfittingProtection.compute_breakdown(
            real_training_data=train,
            synthetic_data=synthetic,
            real_validation_data=holdout,
            metadata=metadata,
            table_name="adult",
        )
        # the share of synthetic records closer to training (a tie counts as closer to the
        # holdout there, one half in privlib's dcr_holdout_share)
        return breakdown["synthetic_data_percentages"]["closer_to_training"]

    call = sdmetrics if name.startswith("sdmetrics") else lambda: anonymeter(name.split("_", 1)[1])
    cpu, start = _cpu_seconds(), time.perf_counter()
    value = call()
    wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return dict(measure=name, size=size, wall=wall, cpu=cpu, peak_mb=peak_mb, value=float(value))


def _peer_python(path: str | None) -> Path:
    """The peers' interpreter: ``path``, or ``benchmarks/_work/venv-peers`` made on first use."""
    if path:
        return Path(path)
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {PEER_VENV} with anonymeter and sdmetrics (one time) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "anonymeter", "sdmetrics", "psutil"], check=True
        )
    return python


def _versions(python: Path) -> str:
    script = (
        "import importlib.metadata as m; print(', '.join(f'{p} {m.version(p)}' for p in "
        "('anonymeter', 'sdmetrics', 'numpy', 'pandas')))"
    )
    return subprocess.run([str(python), "-c", script], capture_output=True, text=True).stdout.strip()


def run_peers(size: int, peer_python: Path, timeout: float, skip_cli: bool, only=None) -> dict:
    """The kit's matching measures, the whole audit and the peers at ``size``, one process each
    (``only``: the names of the runs to do again, the others keep their recorded rows)."""
    data = make_data(size)
    path = WORK / f"peers_{size}.json"
    record = json.loads(path.read_text()) if path.exists() else dict(size=size, rows={})
    record["peer_versions"] = _versions(peer_python)

    def watched(name, command):
        if only and name not in only:
            return
        log = data / f"peer_{name}.log"
        outcome = run_watched(command, log, timeout=timeout)
        lines = log.read_text().strip().splitlines() if outcome["status"] == 0 else []
        inner = json.loads(lines[-1]) if lines and lines[-1].startswith("{") else {}
        row = outcome | dict(load=os.getloadavg()[0], inner=inner)
        print(name, json.dumps(row), flush=True)
        record["rows"][name] = row
        path.write_text(json.dumps(record, indent=1))

    for _, kit, peer in PEER_ROWS:
        watched(kit, [sys.executable, __file__, "--worker", kit, "--sizes", str(size)])
        watched(peer, [str(peer_python), __file__, "--peer-worker", peer, "--sizes", str(size)])
    if not skip_cli:
        watched("audit", audit_command(size, data / "audit"))
    return record


def _completed(row: dict | None) -> bool:
    return row is not None and row["finished"] and row["status"] == 0


def _timing(row: dict | None, key: str) -> str:
    """A run's wall or CPU seconds: of the call for a measure or a peer, of the process tree for
    the whole audit; or why there are none."""
    if row is None:
        return "not run"
    if not row["finished"]:
        return f"not finished in {row['wall'] / 60:.0f} min" if key == "wall" else f"> {row[key]:.0f}"
    if row["status"] != 0:
        return f"failed (exit {row['status']})"
    return f"{row['inner'].get(key, row[key]):.1f}"


def _ratio(mine: dict | None, theirs: dict | None, key: str) -> str:
    if not _completed(mine) or theirs is None:
        return ""
    own = mine["inner"].get(key, mine[key])
    if _completed(theirs):
        return f"{theirs['inner'].get(key, theirs[key]) / own:.0f}x"
    return f"> {theirs[key] / own:.0f}x" if not theirs["finished"] else ""


def _peer_line(what: str, mine: dict | None, theirs: dict | None, label: str) -> str:
    value = ""
    if _completed(mine) and _completed(theirs):
        value = f"{mine['inner']['value']:.3f} / {theirs['inner']['value']:.3f}"
    memory = [_gb(r["peak_mb"]) if r else "" for r in (mine, theirs)]
    loads = " / ".join(f"{r['load']:.1f}" for r in (mine, theirs) if r is not None)
    return (
        f"| {what} | {_timing(mine, 'wall')} | {_timing(mine, 'cpu')} | {memory[0]} | {label} | "
        f"{_timing(theirs, 'wall')} | {_timing(theirs, 'cpu')} | {memory[1]} | "
        f"{_ratio(mine, theirs, 'wall')} | {_ratio(mine, theirs, 'cpu')} | {value} | {loads} |"
    )


def peers_markdown(size: int) -> str:
    """The side-by-side table of ``size``, from its record."""
    sys.path.insert(0, str(HERE))
    from _timing import machine

    path = WORK / f"peers_{size}.json"
    if not path.exists():
        return f"### n = {size:,}\n\nNot run yet: `python benchmarks/audit_scale.py --peers --sizes {size} --write`."
    record = json.loads(path.read_text())
    rows = record["rows"]
    lines = [
        f"### n = {size:,} (train {size:,}, synthetic {size:,}, holdout {size // 2:,})",
        "",
        f"Recorded on {machine(load=False)}; the load average after each run is in its row (privlib / peer).",
        f"Peers: {record['peer_versions']}.",
        "",
        "| what | privlib wall (s) | privlib CPU (s) | privlib peak RSS (GB) | peer | peer wall (s) | "
        "peer CPU (s) | peer peak RSS (GB) | peer / privlib, wall | peer / privlib, CPU | "
        "value privlib / peer | load average |",
        "|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---|---|",
    ]
    for what, kit, peer in PEER_ROWS:
        attacks = "" if peer.startswith("sdmetrics") else f", {ATTACKS:,} attacks"
        lines.append(_peer_line(what + attacks, rows.get(kit), rows.get(peer), PEER_LABELS[peer]))
    audit = rows.get("audit")
    peers = [rows[peer] for peer in PEERS if peer in rows]
    if _completed(audit) and peers:
        bound = "" if len(peers) == len(PEERS) and all(_completed(r) for r in peers) else "> "
        wall, cpu = (
            sum(r["inner"][key] if _completed(r) else r[key] for r in peers) for key in ("wall", "cpu")
        )
        lines.append(
            f"| **the whole `privlib audit`** (every measure, report in HTML and PDF) against "
            f"**the peers' rows together** | **{audit['wall']:.1f}** | {audit['cpu']:.1f} | "
            f"{_gb(audit['peak_mb'])} | anonymeter + SDMetrics | **{bound}{wall:.1f}** | "
            f"{bound}{cpu:.1f} | | **{bound}{wall / audit['wall']:.1f}x** | "
            f"{bound}{cpu / audit['cpu']:.1f}x | | {audit['load']:.1f} |"
        )
    return "\n".join(lines)


#: How each peer appears in the table.
PEER_LABELS = {
    "anonymeter_singling_out_univariate": "anonymeter `SinglingOutEvaluator`, univariate",
    "anonymeter_singling_out_multivariate": f"anonymeter `SinglingOutEvaluator`, multivariate, {N_COLS} columns",
    "anonymeter_linkability": "anonymeter `LinkabilityEvaluator`",
    "anonymeter_inference": "anonymeter `InferenceEvaluator`",
    "sdmetrics_dcr_overfitting_protection": "SDMetrics `DCROverfittingProtection`",
}


# --------------------------------------------------------------------------------------------
# Dask: the engine on a LocalCluster
# --------------------------------------------------------------------------------------------
def dask_benchmark(size: int) -> dict:
    import numpy as np
    from distributed import Client, LocalCluster

    import privlib as pl
    from privlib.neighbors import kneighbors

    data = make_data(size)
    reference = pl.datasets.read_table(data / "train.csv", "train")
    query = pl.datasets.read_table(data / "synthetic.csv", "synthetic", like=reference)
    kneighbors(query.iloc[:100], reference.iloc[:100])  # compile outside the timing
    start = time.perf_counter()
    local = kneighbors(query, reference, n_jobs=2)
    local_seconds = time.perf_counter() - start
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        kneighbors(query.iloc[:100], reference.iloc[:100], client=client)  # warm the workers
        start = time.perf_counter()
        remote = kneighbors(query, reference, client=client)
        cluster_seconds = time.perf_counter() - start
        # the whole audit, its searches on the cluster, against the same audit run locally
        whole = {
            where: run_watched(
                audit_command(size, data / f"audit_{where}", *options), data / f"audit_{where}.log"
            )
            for where, options in (
                ("local", ()),
                ("cluster", ("--dask-scheduler", cluster.scheduler_address)),
            )
        }
    identical = bool(
        np.array_equal(local.distances, remote.distances) and np.array_equal(local.indices, remote.indices)
    )
    metrics = {where: _comparable(data / f"audit_{where}" / "metrics.json") for where in whole}
    # the pairs one worker settles per second (searched exactly, with the engine's pruning)
    per_worker = size * size / (cluster_seconds * 2)
    ten_million_on_32 = 1e7 * 1e7 / (per_worker * 32)
    record = dict(
        size=size,
        local=local_seconds,
        cluster=cluster_seconds,
        identical=identical,
        per_worker_pairs=per_worker,
        ten_million_on_32_hours=ten_million_on_32 / 3600,
        audit_local=whole["local"],
        audit_cluster=whole["cluster"],
        audit_identical=metrics["local"] is not None and metrics["local"] == metrics["cluster"],
        audit_fields=_count_fields(metrics["local"]),
        load=os.getloadavg()[0],
    )
    (WORK / "results_dask.json").write_text(json.dumps(record, indent=1))
    return record


def _comparable(path: Path) -> str | None:
    """The metrics of an audit as text, without run times, dates and the scheduler's address, or
    ``None`` when the audit wrote none."""
    from privlib.audit import comparable_metrics

    if not path.exists():
        return None
    metrics = comparable_metrics(json.loads(path.read_text()))
    metrics["provenance"]["spec"].pop("dask_scheduler")
    return json.dumps(metrics, sort_keys=True)


def _count_fields(text: str | None) -> int:
    """Values (leaves) of a JSON text."""
    if text is None:
        return 0

    def leaves(value) -> int:
        if isinstance(value, dict):
            return sum(leaves(v) for v in value.values())
        if isinstance(value, list):
            return sum(leaves(v) for v in value)
        return 1

    return leaves(json.loads(text))


# --------------------------------------------------------------------------------------------
# README
# --------------------------------------------------------------------------------------------
def _gb(mb: float) -> str:
    return f"{mb / 1024:.2f}"


def table_markdown() -> str:
    sys.path.insert(0, str(HERE))
    from _timing import machine

    lines = [f"Recorded on {machine()} (the load average of each run is in its row)."]
    for size in SIZES:
        path = WORK / f"results_{size}.json"
        if not path.exists():
            lines += ["", f"### n = {size:,}", "", "Not run yet."]
            continue
        record = json.loads(path.read_text())
        lines += [
            "",
            f"### n = {size:,} (train {size:,}, synthetic {size:,}, holdout {size // 2:,})",
            "",
            "| measure | wall (s) | CPU (s) | peak RSS (GB, with the inputs) | load average |",
            "|---|---:|---:|---:|---:|",
        ]
        total = total_cpu = 0.0
        for row in sorted(record["measures"], key=lambda r: MEASURES.index(r["measure"])):
            if row.get("failed"):
                lines.append(f"| {row['measure']} | failed | | | {row['load']:.1f} |")
                continue
            total += row["wall"]
            total_cpu += row["cpu"]
            lines.append(
                f"| {row['measure']} | {row['wall']:.1f} | {row['cpu']:.1f} | "
                f"{_gb(row['peak_mb'])} | {row['load']:.1f} |"
            )
        lines.append(f"| **sum of the measures** | **{total:.1f}** | **{total_cpu:.1f}** | | |")
        audit = record.get("audit")
        if audit:
            state = "" if audit["status"] == 0 else f" (exit status {audit['status']})"
            lines.append(
                f"| **whole `privlib audit`{state}** | **{audit['wall']:.1f}** | "
                f"{audit['cpu']:.1f} | {_gb(audit['peak_mb'])} (process tree) | "
                f"{audit['load']:.1f} |"
            )
        search = record.get("search")
        if audit and audit["status"] == 0 and search:
            lines.append(
                f"| one whole-table search (synthetic -> training, Gower, k = 1), in the same run | "
                f"{search['wall']:.1f} | {search['cpu']:.1f} | {_gb(search['peak_mb'])} | {search['load']:.1f} |"
            )
            lines += [
                "",
                f"**The whole audit costs {audit['wall'] / search['wall']:.1f} whole-table searches "
                f"(wall; {audit['cpu'] / search['cpu']:.1f} by CPU seconds)**, with a peak of "
                f"{_gb(audit['peak_mb'])} GB for the process tree.",
            ]
        missing = [m for m in MEASURES if m not in {r["measure"] for r in record["measures"]}]
        if missing:
            lines += ["", f"Not timed at this size: {', '.join(missing)}."]
        if not audit:
            lines += ["", "The whole `privlib audit` was not run at this size."]
        cpu = audit["cpu"] if audit else total_cpu
        what = "the whole audit" if audit else "these measures"
        inside = _audit_steps(folder(size) / "audit.log") if audit else ""
        if inside:
            lines += ["", f"Wall seconds of each step inside the whole audit (from its log): {inside}."]
        loads = record["load_start"], record.get("load_end", record["load_start"])
        if max(loads) > 2.5:  # more than the benchmark's own two threads
            lines += [
                "",
                (
                    f"The machine was shared with other jobs (load average {loads[0]:.1f} to "
                    f"{loads[1]:.1f} on 2 cores). *Estimate, not a measurement:* {what} used "
                    f"{cpu:.0f} CPU seconds, so on an idle machine with these 2 cores it would take "
                    f"between {cpu / 2:.0f} s (both cores busy) and {cpu:.0f} s (one core busy)."
                ),
            ]
    return "\n".join(lines)


def _audit_steps(log: Path) -> str:
    """``name s, ...`` from the "[i] Section: name ..." / "done in s" lines of an audit's log."""
    if not log.exists():
        return ""
    text = log.read_text(errors="replace")
    steps = re.findall(
        r"\[\d+(?:/\d+)?\] [^:\n]+: ([^\n]+?) \.\.\.\s+(?:privlib:\s+)?done in ([\d.]+) s", text
    )
    return ", ".join(f"{name} {float(seconds):.0f}" for name, seconds in steps)


def dask_markdown() -> str:
    path = WORK / "results_dask.json"
    if not path.exists():
        return "Not run yet: `python benchmarks/audit_scale.py --dask --write`."
    r = json.loads(path.read_text())
    return (
        f"Gower 1-NN of {r['size']:,} synthetic records among {r['size']:,} training records "
        f"(load average {r['load']:.1f}): local engine on 2 threads {r['local']:.1f} s; "
        f"`LocalCluster(n_workers=2, threads_per_worker=1)` {r['cluster']:.1f} s "
        f"(including scattering the reference and gathering); identical distances and indices: "
        f"{r['identical']}.\n\n"
        f"*Calculation, not a measurement:* one worker settled {r['per_worker_pairs']:.3g} "
        f"query-reference pairs per second. If the work grows with n_query x n_reference (the "
        f"share of tiles the pruning skips staying the same), a 10M x 10M Gower 1-NN on 32 such "
        f"workers takes 1e14 / ({r['per_worker_pairs']:.3g} x 32) s = "
        f"{r['ten_million_on_32_hours']:.1f} hours, plus scattering the encoded reference "
        f"(10M x 15 float64 = 1.2 GB) to each worker once.\n\n"
        f"The whole audit at n = {r['size']:,} (`privlib audit`, report included), run locally and "
        f"with `--dask-scheduler` pointing at the same cluster: {_run_seconds(r['audit_local'])} "
        f"locally, {_run_seconds(r['audit_cluster'])} with the neighbour searches on the cluster; "
        f"the {r['audit_fields']:,} values of the two metrics.json files (all but run times, the "
        f"date and the scheduler's address) identical: {r['audit_identical']}."
    )


def _run_seconds(run: dict) -> str:
    return f"{run['wall']:.1f} s" if _completed(run) else "failed (see its log)"


def write_readme(marker: str, markdown: str) -> None:
    """Rewrite README.md's block ``marker`` with ``markdown`` (the other blocks keep what they recorded)."""
    text = README.read_text()
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {start} ... {end} block")
    block = f"{start}\n{markdown}\n{end}"
    README.write_text(pattern.sub(lambda _: block, text))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument(
        "--measures", nargs="*", default=list(MEASURES), choices=MEASURES, help="none: the whole audit only"
    )
    parser.add_argument("--skip-cli", action="store_true", help="time the measures only")
    parser.add_argument("--dask", action="store_true", help="local engine vs LocalCluster")
    parser.add_argument("--peers", action="store_true", help="side by side with anonymeter and SDMetrics")
    parser.add_argument("--peer-python", help="interpreter of the peers' environment")
    parser.add_argument("--peer-timeout", type=float, default=1800.0, help="seconds before a run is stopped")
    parser.add_argument(
        "--peer-runs",
        nargs="+",
        choices=[*MEASURES, *PEERS, "audit"],
        help="with --peers: only these runs (the others keep their recorded rows)",
    )
    parser.add_argument("--peer-worker", help=argparse.SUPPRESS)
    parser.add_argument("--write", action="store_true", help="record the tables in README.md")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--search-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = args.sizes or list(PEER_SIZES if args.peers else SIZES)
    if args.worker:
        print(json.dumps(measure_worker(args.worker, sizes[0])))
        return
    if args.search_worker:
        print(json.dumps(search_worker(sizes[0])))
        return
    if args.peer_worker:
        print(json.dumps(peer_worker(args.peer_worker, sizes[0])))
        return
    if args.dask:
        print(json.dumps(dask_benchmark(sizes[0])))
    elif args.peers:
        python = _peer_python(args.peer_python)
        for size in sizes:
            run_peers(size, python, args.peer_timeout, args.skip_cli, args.peer_runs)
    else:
        for size in sizes:
            run_size(size, args.measures, args.skip_cli)
    if not args.write:
        return
    if args.dask:
        write_readme("audit_scale_dask", dask_markdown())
    elif args.peers:  # a block per size, so that a size run in another session keeps its record
        for size in sizes:
            write_readme(f"audit_scale_peers_{size}", peers_markdown(size))
    else:
        write_readme("audit_scale", table_markdown())


if __name__ == "__main__":
    main()
