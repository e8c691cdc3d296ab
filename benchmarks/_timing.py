"""Timing helpers shared by the benchmark scripts (imported as ``_timing``: the scripts run as
``python benchmarks/<name>.py``, which puts this folder on the import path)."""

import datetime
import os
import platform
import time

import numpy as np


def median_seconds(task, repeats: int) -> float:
    """Median wall-clock seconds of ``task()`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        task()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def machine(load: bool = True) -> str:
    """Date, machine, cores, current load average (unless ``load`` is false, for a table whose rows
    give their own) and Python and numpy versions, for a table's header."""
    now = f", load average {os.getloadavg()[0]:.1f}" if load else ""
    return (
        f"{datetime.date.today()}, {platform.machine()}, {os.cpu_count()} cores{now}, "
        f"Python {platform.python_version()}, numpy {np.__version__}"
    )
