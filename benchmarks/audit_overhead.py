"""What a user waits for beyond the computation: the whole ``privlib audit`` of a small release
against ``privlib.audit.run`` on the same files, measured in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/audit_overhead.py            # 2,000 Adult records, 3 rounds
    .venv/bin/python benchmarks/audit_overhead.py --rounds 5

The files: the kit's Adult recipe (``reports/params/adult.yaml``) at 2,000 training and 2,000
holdout records, the synthetic data from its sequential-trees synthesizer (seed 2026), written
once to ``benchmarks/_work/audit_overhead/``. Each round runs, each in a fresh process and one
after the other:

1. ``privlib.audit.run`` on the three files, timed around the call only (imports and the
   process's start excluded): the computation a user cannot avoid;
2. ``python -m privlib audit`` on the same files (report.html, report.pdf, metrics.json and the
   executed notebook), timed from outside: what the user waits for;
3. ``import privlib.audit`` alone, timed from outside (the interpreter's start included).

The ratio of 2 to 1 is the overhead of the command (start-up, checks, the notebook, rendering);
a ratio, measured in the same run, holds on a faster or slower machine alike. The best round of
each is reported (the machine is shared; the best is the least disturbed), with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work" / "audit_overhead"
ENV = os.environ | {"OMP_WAIT_POLICY": "passive"}
N_RECORDS = 2000
SETTINGS: dict[str, Any] = dict(
    population_size=48842,
    keys=["age", "sex", "race", "marital-status", "native-country"],
    sensitive=["income"],
    seed=2026,
)

_IN_PROCESS = """
import json, sys, time
import privlib.audit
files = json.loads(sys.argv[1])
settings = json.loads(sys.argv[2])
start = time.perf_counter()
privlib.audit.run(train=files["train"], synthetic=files["synthetic"], holdout=files["holdout"], **settings)
print(time.perf_counter() - start)
"""


def make_files() -> dict:
    """The Adult recipe at 2,000 + 2,000 records, written once."""
    record = WORK / "files.json"
    if record.exists():
        return json.loads(record.read_text())
    from privlib.audit import materialise, read_params
    from privlib.resources import resource_path

    recipe = read_params(resource_path("reports", "params", "adult.yaml"))
    recipe = {k: recipe[k] for k in ("dataset", "synthesizers", "seed")} | {
        "n_train": N_RECORDS,
        "n_holdout": N_RECORDS,
    }
    WORK.mkdir(parents=True, exist_ok=True)
    made = materialise(recipe, WORK)
    files = {"train": made["train"], "synthetic": made["synthetic"], "holdout": made["holdout"]}
    record.write_text(json.dumps(files))
    return files


def _wall(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT, env=ENV, capture_output=True)
    return time.perf_counter() - start


def one_round(files: dict[str, Any], out: Path) -> dict:
    settings = json.dumps(SETTINGS)
    done = subprocess.run(
        [sys.executable, "-c", _IN_PROCESS, json.dumps(files), settings],
        check=True,
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
    )
    command = [
        sys.executable,
        "-m",
        "privlib",
        "audit",
        "--train",
        files["train"],
        "--synthetic",
        *files["synthetic"],
        "--holdout",
        files["holdout"],
        "--population-size",
        str(SETTINGS["population_size"]),
        "--keys",
        *SETTINGS["keys"],
        "--sensitive",
        *SETTINGS["sensitive"],
        "--seed",
        str(SETTINGS["seed"]),
        "--out",
        str(out),
        "--quiet",
    ]
    return dict(
        run=float(done.stdout.strip().splitlines()[-1]),
        cli=_wall(command),
        imports=_wall([sys.executable, "-c", "import privlib.audit"]),
        load=os.getloadavg()[0],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    files = make_files()
    rounds = []
    for _ in range(args.rounds):
        rounds.append(one_round(files, WORK / "audit"))
        print(json.dumps(rounds[-1]), flush=True)
    best = {key: min(r[key] for r in rounds) for key in ("run", "cli", "imports")}
    loads = [r["load"] for r in rounds]
    print(
        f"best of {args.rounds}: privlib.audit.run {best['run']:.1f} s, privlib audit "
        f"{best['cli']:.1f} s ({best['cli'] / best['run']:.2f}x), import privlib.audit "
        f"{best['imports']:.2f} s; load average {min(loads):.1f} to {max(loads):.1f}"
    )


if __name__ == "__main__":
    main()
