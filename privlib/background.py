"""A function run in a process of its own while this one goes on computing.

``privlib audit`` draws the report's per-variable fidelity figures from the input tables alone;
drawn in a second process while the measures run, they cost the user no wait on a machine with a
second core.

The process is a fresh interpreter (``python -m privlib.background``), not a ``multiprocessing``
child: a spawned child would import the caller's script again, which runs a whole audit in a
script without a ``__main__`` guard, and a forked one would copy this process's threads and locks
mid-use. It runs in a session of its own, so a terminal's Ctrl-C reaches only this process, which
stops it; it is stopped on every exit of :func:`in_background`'s block. Like every interpreter the
kit starts (:func:`isolated_python`), it never imports from the folder the user stands in: a
``pandas.py`` there (a vendor's release folder, say) must not run. The function and its
arguments go to it, and its value comes back, as pickle files in a folder of the caller's (the
run's private staging folder): data the kit wrote and reads back.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from privlib.errors import ReportError, blanked

__all__ = ["in_background", "isolated_python"]

#: How long a stopped process may take to end before it is killed.
_STOP_SECONDS = 5.0


def isolated_python() -> list[str]:
    """The command that starts a Python interpreter of the kit: this one's executable, which
    puts no folder of its own choosing first on its import path.

    ``-P`` (Python 3.11 and later) leaves out the folder a ``-m`` module or ``-c`` command is
    run from, which Python otherwise puts first; ``-I`` would too, but would also drop
    ``PYTHONPATH``, which a checkout that is not installed needs. Python 3.10 has no ``-P``:
    there the first entry is the working folder, and every caller starts the process in a
    private folder of the run (``cwd=``), which holds only files the kit wrote.
    """
    return [sys.executable, "-P"] if sys.version_info >= (3, 11) else [sys.executable]


@contextlib.contextmanager
def in_background(
    function: Callable[..., Any], *args: Any, folder: Path, what: str
) -> Iterator[Callable[[float], Any]]:
    """Start ``function(*args)`` (picklable; the function importable by name) in a process of its
    own, its files in ``folder``; yield a function that returns its value, waiting at most
    ``timeout`` seconds for it.

    A failure there, a process that died, or a value late by more than ``timeout`` raises
    :class:`~privlib.errors.ReportError` naming ``what`` (the message quotes no value: the
    exception's type and its first line with every quoted part blanked out).
    """
    given, outcome = folder / "background-call.pickle", folder / "background-outcome.pickle"
    given.write_bytes(pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL))
    process = subprocess.Popen(
        [*isolated_python(), "-m", "privlib.background", str(given), str(outcome)],
        cwd=folder,  # the run's private folder, not the user's
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,  # library warnings; a failure comes back in the outcome
        start_new_session=True,
        env=os.environ | {"MPLBACKEND": "agg"},  # it draws into files, never on a screen
    )

    def result(timeout: float) -> Any:
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise ReportError(f"{what} took longer than {timeout:.0f} s") from None
        if not outcome.exists():  # killed, or out of memory
            raise ReportError(f"{what} failed: its process ended with code {process.returncode}")
        failed, value = pickle.loads(outcome.read_bytes())
        if failed:
            raise ReportError(f"{what} failed: {value}")
        return value

    try:
        yield result
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _call(given: Path, outcome: Path) -> None:
    """In the background process: the call in ``given`` made, ``(False, value)`` or
    ``(True, reason)`` written to ``outcome`` (whole or not at all)."""
    function, args = pickle.loads(given.read_bytes())
    try:
        result: tuple[bool, Any] = (False, function(*args))
    except Exception as exc:  # reported to the caller, which raises it as its own error
        result = (True, f"{type(exc).__name__}: {blanked(str(exc))}")
    partial = outcome.with_suffix(".partial")
    partial.write_bytes(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    partial.replace(outcome)


if __name__ == "__main__":
    _call(Path(sys.argv[1]), Path(sys.argv[2]))
