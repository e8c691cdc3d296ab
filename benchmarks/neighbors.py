"""Time privlib's nearest-neighbour engine against anonymeter on the same Adult samples.

Usage (from the repository root)::

    .venv/bin/python benchmarks/neighbors.py                 # 10k and 20k vs anonymeter, full self-join
    .venv/bin/python benchmarks/neighbors.py --write         # ... and record the table in README.md
    .venv/bin/python benchmarks/neighbors.py --sizes 2000 --skip-full   # a quick check

What it does, in one run:

1. Draws disjoint query and reference samples of Adult (``sample_split``, seed 0) for each size
   and writes them to CSV files in a temporary folder, so both engines read the same records.
2. Times ``privlib.neighbors.kneighbors`` (Gower, k = 1) in a fresh process per task (the
   median of three calls), reporting wall and CPU seconds and the peak resident memory of that
   process.
3. Times anonymeter's ``MixedTypeKNeighbors`` (n_neighbors = 1, n_jobs = -1) in a fresh process
   of a separate virtual environment (``benchmarks/_work/venv-anonymeter``, created on first use:
   anonymeter pins numpy < 1.27, which the main environment cannot hold).
4. Checks that both give the same nearest-neighbour distances. The two Gower variants are aligned
   as follows: anonymeter returns the *sum* of the per-variable terms, privlib their mean, so
   privlib's distance is multiplied by the number of variables; both take numeric ranges from
   query and reference together; anonymeter label-encodes categories, which makes a missing
   category a category of its own (missing equals missing, missing vs a value = 1, as in privlib),
   and the Adult sample has missing values in categorical columns only (anonymeter would count 1
   for two missing numbers and NaN for a missing number against a value).
5. Times the full 48,842 x 48,842 Adult self-join with each record left out of its own
   neighbours (privlib only), and measures the machine's limit for the engine's inner loop.

Each worker runs as ``python benchmarks/neighbors.py --worker <kind> ...``; the anonymeter
worker imports neither privlib nor anything outside that virtual environment.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / "_work" / "venv-anonymeter"
README = HERE / "README.md"
SEED = 0


# --------------------------------------------------------------------------------------------
# Workers (run in their own processes)
# --------------------------------------------------------------------------------------------
def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _timed(call):
    """Run ``call`` and return its result with wall and CPU seconds and memory figures."""
    before = _rss_mb()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    out = call()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime)
    peak = after.ru_maxrss / 1024  # kilobytes on Linux
    return out, {"seconds": wall, "cpu_seconds": cpu, "peak_mb": peak, "rss_before_mb": before}


def worker_kit(args) -> dict:
    import numpy as np
    import pandas as pd

    from privlib.neighbors import kneighbors

    reference = pd.read_csv(args.reference)
    query = reference if args.self_join else pd.read_csv(args.query)
    kneighbors(query.iloc[:50], reference.iloc[:60])  # load the compiled kernel from the cache
    nn, figures = _median_of_3(lambda: kneighbors(query, reference, k=1, exclude_self=args.self_join))
    np.savez(args.out, distances=nn.distances[:, 0], indices=nn.indices[:, 0])
    return figures


def _median_of_3(call):
    """The run with the median wall time of three (the kit is fast enough to repeat)."""
    runs = [_timed(call) for _ in range(3)]
    runs.sort(key=lambda run: run[1]["seconds"])
    out, figures = runs[1]
    figures["peak_mb"] = max(f["peak_mb"] for _, f in runs)
    return out, figures


def worker_scan(args) -> dict:
    """The engine where its bounds cannot help: L1 on standard-normal columns, no structure."""
    import numpy as np

    from privlib.neighbors import kneighbors

    rng = np.random.default_rng(SEED)
    query, reference = rng.normal(size=(2, args.rows, args.columns))
    kneighbors(query[:50], reference[:60], metric="l1")
    return _median_of_3(lambda: kneighbors(query, reference, k=1, metric="l1"))[1]


def worker_anonymeter(args) -> dict:
    # anonymeter's modules import each other in a cycle that resolves only from this end
    import anonymeter.evaluators  # noqa: F401
    import numpy as np
    import pandas as pd
    from anonymeter.neighbors.mixed_types_kneighbors import MixedTypeKNeighbors

    reference, query = pd.read_csv(args.reference), pd.read_csv(args.query)
    numeric = [c for c in reference.columns if pd.api.types.is_numeric_dtype(reference[c])]
    categorical = [c for c in reference.columns if c not in numeric]
    # A missing category becomes the label "?" of its own: equal to another missing one, unlike
    # any value, which is the rule privlib applies.
    for frame in (reference, query):
        frame[categorical] = frame[categorical].astype(object).fillna("?")
    ctypes = {"num": numeric, "cat": categorical}

    def search(q, r):
        nn = MixedTypeKNeighbors(n_neighbors=1, n_jobs=-1).fit(candidates=r, ctypes=ctypes)
        return nn.kneighbors(queries=q, return_distance=True)

    search(query.iloc[:20], reference.iloc[:30])  # numba compiles on the first call
    (distances, indices), figures = _timed(lambda: search(query, reference))
    np.savez(args.out, distances=distances[:, 0], indices=indices[:, 0])
    return figures


def worker_roofline(args) -> dict:
    """Feature comparisons per second of the engine's inner loop on data held in L1 cache.

    The loop is the engine's (one pass per feature over a reference tile, adding the capped
    difference or the code mismatch), run over the same tile again and again on every core, so
    it measures arithmetic throughput with no memory traffic or selection: an upper bound for
    the engine.
    """
    import numba
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, cache=False)
    def loop(tile, codes, repeats, acc):
        p, m = tile.shape
        for t in prange(acc.shape[0]):
            row = np.zeros(m)  # a local accumulator, as in the engine's kernel
            for r in range(repeats):
                for f in range(p):
                    a = tile[f, (r + t) % m]
                    y = tile[f]
                    if codes[f]:
                        for j in range(m):
                            row[j] += 1.0 if a != y[j] else 0.0
                    else:
                        for j in range(m):
                            diff = abs(a - y[j])
                            row[j] += diff if diff < 1.0 else 1.0
            acc[t] = row.sum()
        return acc.sum()

    rng = np.random.default_rng(0)
    codes = np.array(args.codes, dtype=bool)
    tile = np.where(codes[:, None], rng.integers(0, 5, (len(codes), 256)), rng.random((len(codes), 256)))
    threads = numba.get_num_threads()
    acc = np.zeros(threads)
    loop(tile, codes, 10, acc)
    repeats = 50_000
    # the best of several short runs: a limit is what the loop can do when nothing disturbs it
    runs = [_timed(lambda: loop(tile, codes, repeats, acc))[1] for _ in range(7)]
    figures = {
        "seconds": min(f["seconds"] for f in runs),
        "cpu_seconds": min(f["cpu_seconds"] for f in runs),
        "comparisons": threads * repeats * tile.size,
        "threads": threads,
    }
    return figures


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------
def _ensure_venv() -> Path:
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"creating {VENV} and installing anonymeter (one time) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "anonymeter>=1.0"], check=True)
    return python


def _run(python, kind, *, script=__file__, **options) -> dict:
    """Run ``script --worker kind`` with ``python`` and return the JSON of its last line."""
    command = [str(python), str(Path(script).resolve()), "--worker", kind]
    for key, value in options.items():
        if value is True:
            command.append(f"--{key.replace('_', '-')}")
        elif isinstance(value, list):
            command += [f"--{key}", *map(str, value)]
        elif value is not None:
            command += [f"--{key.replace('_', '-')}", str(value)]
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise SystemExit(f"worker {kind!r} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _machine() -> str:
    model = "unknown CPU"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{model}, {os.cpu_count()} cores, {memory:.0f} GB RAM, Linux {platform.release()}"


def drive(args) -> None:
    import numpy as np

    import privlib as pl
    from privlib.datasets import sample_split
    from privlib.schema import NUMERIC, TableEncoder

    adult = pl.load_dataset("adult")
    p = adult.shape[1]
    anonymeter = None if args.skip_anonymeter else _ensure_venv()
    versions = "anonymeter not run"
    if anonymeter is not None:
        versions = subprocess.run(
            [
                str(anonymeter),
                "-c",
                "import importlib.metadata as m; "
                "print(f\"anonymeter {m.version('anonymeter')} with numpy {m.version('numpy')}\")",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    rows, checks = [], []
    with tempfile.TemporaryDirectory(prefix="privlib-bench-") as folder:
        tmp = Path(folder)
        for n in args.sizes:
            reference, query = sample_split(adult, n, n, random_state=SEED)
            ref_csv, query_csv = tmp / f"reference_{n}.csv", tmp / f"query_{n}.csv"
            reference.to_csv(ref_csv, index=False)
            query.to_csv(query_csv, index=False)
            kit = _run(sys.executable, "kit", query=query_csv, reference=ref_csv, out=tmp / "kit.npz")
            kit_d = np.load(tmp / "kit.npz")
            row: dict[str, object] = {"task": f"{n:,} x {n:,}", "kit": kit}
            print(f"{n} x {n}: privlib {kit['seconds']:.2f} s", flush=True)
            if anonymeter is not None:
                other = _run(
                    anonymeter, "anonymeter", query=query_csv, reference=ref_csv, out=tmp / "anon.npz"
                )
                anon_d = np.load(tmp / "anon.npz")
                gap = float(np.abs(kit_d["distances"] * p - anon_d["distances"]).max())
                same = float((kit_d["indices"] == anon_d["indices"]).mean())
                row.update(anonymeter=other, gap=gap, same_index=same)
                checks.append(gap)
                print(
                    f"    anonymeter {other['seconds']:.2f} s, max |difference| {gap:.2e}, "
                    f"same neighbour index {same:.1%}",
                    flush=True,
                )
            rows.append(row)
        if not args.skip_full:
            full_csv = tmp / "adult.csv"
            adult.to_csv(full_csv, index=False)
            kit = _run(sys.executable, "kit", reference=full_csv, self_join=True, out=tmp / "kit.npz")
            rows.append({"task": f"{len(adult):,} x {len(adult):,} self-join, leave-one-out", "kit": kit})
            print(f"full self-join: privlib {kit['seconds']:.2f} s, peak {kit['peak_mb']:.0f} MB", flush=True)
    scan_rows, scan_columns = max(args.sizes), p
    scan = _run(sys.executable, "scan", rows=scan_rows, columns=scan_columns)
    rows.append(
        {
            "task": f"{scan_rows:,} x {scan_rows:,} L1 on {scan_columns} standard-normal "
            "columns, nothing to skip",
            "kit": scan,
        }
    )
    print(f"structureless scan: privlib {scan['seconds']:.2f} s", flush=True)
    kinds = TableEncoder().fit(adult).kinds_
    codes = [kinds[c] != NUMERIC for c in adult.columns]
    roof = _run(sys.executable, "roofline", codes=[int(c) for c in codes])
    roof_rate = roof["comparisons"] / roof["seconds"]
    print(f"inner-loop limit: {roof_rate / 1e9:.1f} G comparisons/s on {roof['threads']} threads")
    table = _table(rows, p, roof_rate, roof, sum(codes), versions)
    print(table)
    if checks and max(checks) > 1e-9:
        raise SystemExit(f"distances disagree with anonymeter by up to {max(checks):.2e}")
    if args.write:
        _write_readme(table)
        print(f"written to {README}")


def _table(rows, p, roof_rate, roof, n_codes, versions) -> str:
    import numba
    import numpy

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()[0]
    lines = [
        f"Recorded {stamp} on {_machine()};",
        f"Python {platform.python_version()}, numpy {numpy.__version__}, numba "
        f"{numba.__version__}; {versions}.",
        f"Load average {load:.1f} at the end of the run: other jobs shared the machine, so wall",
        "times are upper bounds; CPU seconds add up both cores.",
        "Gower distance, k = 1, Adult (15 variables, missing values in three categorical ones),",
        f"disjoint samples drawn with seed {SEED}.",
        "",
        "| task (query x reference) | privlib s | privlib CPU s | privlib peak MB | "
        "anonymeter s | anonymeter CPU s | anonymeter peak MB | speed-up | max abs difference |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        kit = row["kit"]
        cells = [row["task"], f"{kit['seconds']:.2f}", f"{kit['cpu_seconds']:.2f}", f"{kit['peak_mb']:.0f}"]
        other = row.get("anonymeter")
        if other:
            cells += [
                f"{other['seconds']:.1f}",
                f"{other['cpu_seconds']:.1f}",
                f"{other['peak_mb']:.0f}",
                f"{other['seconds'] / kit['seconds']:.0f}x",
                f"{row['gap']:.1e}",
            ]
        else:
            cells += ["-", "-", "-", "-", "-"]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [""]
    for row in rows:
        if "same_index" in row:
            lines.append(
                f"- {row['task']}: the same neighbour index for {row['same_index']:.2%} of the "
                "queries; the others are ties, which anonymeter breaks by an unstable sort and "
                "privlib by the lower index."
            )

    def comparisons(row):
        n_query, n_ref = (int(x.replace(",", "")) for x in re.findall(r"[\d,]+", row["task"])[:2])
        return n_query * n_ref * p

    limit = roof["comparisons"] / roof["cpu_seconds"]  # per CPU second, that is per core
    scan, largest = rows[-1], max(rows[:-1], key=comparisons)
    scan_rate = comparisons(scan) / scan["kit"]["cpu_seconds"]
    work = comparisons(largest)
    lines += [
        f"- Hardware limit: the engine's inner loop alone, on a tile held in L1 cache ({n_codes} "
        f"code and {p - n_codes} numeric features, as Adult), does {limit / 1e9:.1f} G feature "
        f"comparisons per CPU second, so at most about {2 * limit / 1e9:.0f} G per second on the "
        f"two cores ({roof_rate / 1e9:.1f} G/s of wall time in this run, cores shared). Where "
        f"nothing can be skipped (the standard-normal row) the engine does {scan_rate / 1e9:.1f} G "
        f"comparisons per CPU second, {scan_rate / limit:.0%} of the loop's limit. A plain scan "
        f"of {largest['task']} ({work / 1e9:.1f} G comparisons) cannot take less than "
        f"{work / (2 * limit):.1f} s here; the engine took {largest['kit']['seconds']:.2f} s "
        f"({largest['kit']['cpu_seconds']:.2f} CPU s, encoding included) because its bounds "
        "skip most of the reference.",
    ]
    return "\n".join(lines)


def _write_readme(table: str) -> None:
    """Replace the body of the '## Nearest neighbours' section, keeping every other section."""
    heading = "## Nearest neighbours"
    text = README.read_text() if README.exists() else "# Benchmarks\n"
    start_marker, end_marker = "<!-- neighbours-table-start -->", "<!-- neighbours-table-end -->"
    block = f"{start_marker}\n{table}\n{end_marker}"
    if start_marker in text:
        before, rest = text.split(start_marker, 1)
        after = rest.split(end_marker, 1)[1]
        text = before + block + after
    elif heading in text:
        text = text.replace(heading, f"{heading}\n\n{block}\n", 1)
    else:
        text = text.rstrip("\n") + f"\n\n{heading}\n\n{block}\n"
    README.write_text(text)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[10_000, 20_000],
        help="rows of each query and reference sample (default 10000 20000)",
    )
    parser.add_argument("--skip-anonymeter", action="store_true", help="time privlib only")
    parser.add_argument("--skip-full", action="store_true", help="skip the full self-join")
    parser.add_argument("--write", action="store_true", help="record the table in README.md")
    parser.add_argument("--worker", choices=["kit", "anonymeter", "roofline", "scan"], help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--columns", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--query", help=argparse.SUPPRESS)
    parser.add_argument("--reference", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--self-join", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--codes", type=int, nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker = {
            "kit": worker_kit,
            "anonymeter": worker_anonymeter,
            "roofline": worker_roofline,
            "scan": worker_scan,
        }
        print(json.dumps(worker[args.worker](args)))
    else:
        drive(args)


if __name__ == "__main__":
    main()
