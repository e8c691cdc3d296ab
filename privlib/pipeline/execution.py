"""Executing a notebook: papermill on a kernel over IPC sockets, started early while the measures
run, with the kernel's environment, progress and the checks of the optional extras it needs."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from privlib.background import isolated_python
from privlib.errors import PrivlibError, ReportError, blanked

# --------------------------------------------------------------------------------------------
# Executing a notebook
# --------------------------------------------------------------------------------------------
# one logger for the whole pipeline, whichever of its modules writes
logger = logging.getLogger("privlib.pipeline")


class _KernelProgress(io.TextIOBase):
    """Where the kernel's stderr goes while a notebook runs: the lines the kit's own loggers wrote
    there (``privlib...: message``, already redacted in the kernel) are logged here as progress;
    anything else (library warnings) stays in the notebook only."""

    def __init__(self) -> None:
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        *lines, self._pending = self._pending.split("\n")
        for line in lines:
            if line.startswith("privlib."):
                logger.info("%s", line.split(": ", 1)[-1])
        return len(text)


def _ipc_kernel_manager():
    """A kernel manager whose kernel listens on IPC sockets (files in the run's folder), so no
    code or output travels over TCP, and the kernel does not warn that it does.

    The kernel process writes nothing to the terminal: cell outputs come over its sockets, and
    what it prints itself is its own chatter, such as a ZMQ traceback when an interrupted run
    closes the sockets it was about to answer on."""
    import subprocess

    from jupyter_client.manager import AsyncKernelManager
    from traitlets import CaselessStrEnum

    class IPCKernelManager(AsyncKernelManager):
        transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            """This interpreter's ipykernel, whatever kernelspec named ``python3`` the machine
            holds, and isolated from the folder it starts in (:func:`isolated_python`):
            ipykernel otherwise puts its working folder on the import path, before the
            installed packages; ``ignore_cwd`` stops that where ``-P`` is not there."""
            return [
                *isolated_python(),
                "-m",
                "ipykernel_launcher",
                "-f",
                os.path.realpath(self.connection_file),
                "--IPKernelApp.ignore_cwd=True",
                *(extra_arguments or []),
            ]

        async def _async_pre_start_kernel(self, **kw):
            kw.setdefault("stdout", subprocess.DEVNULL)
            kw.setdefault("stderr", subprocess.DEVNULL)
            return await super()._async_pre_start_kernel(**kw)

        # jupyter_client types AsyncKernelManager.shutdown_kernel as a coroutine but its base's as
        # returning None (and silences the clash on its side).
        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:  # type: ignore[override]
            """Ask the kernel to shut down, without the SIGINT jupyter_client sends it first.

            papermill shuts the kernel down once the notebook has run. jupyter_client's own
            shutdown interrupts the kernel before asking, and when the signal lands while the
            kernel is still answering a message, ipykernel logs "KeyboardInterrupt caught in
            kernel." into the log of a run that succeeded. A kernel that does not stop when asked
            is still killed (``shutdown_wait_time``), and ``now`` kills it at once as before.
            """
            if now or not self.owns_kernel or not self.has_kernel:
                await super().shutdown_kernel(now=now, restart=restart)
                return
            self.shutting_down = True
            self.stop_restarter()
            await self.request_shutdown(restart=restart)
            await self.finish_shutdown(restart=restart)
            await self.cleanup_resources(restart=restart)

    return IPCKernelManager


def _require_report_extra() -> None:
    """Refuse, before any work, when a package of the ``report`` extra is missing."""
    import importlib.util

    missing = [
        name
        for name in ("papermill", "nbconvert", "nbformat", "ipykernel", "weasyprint")
        if importlib.util.find_spec(name) is None
    ]
    if missing:
        raise PrivlibError(
            f"rendering reports needs {', '.join(missing)}: install the report extra, "
            "pip install 'privlib[report]'."
        )


#: Seconds a Dask scheduler has to answer (connection and handshake) before an audit refuses to
#: start.
SCHEDULER_TIMEOUT = 10


def _require_dask(address: str) -> None:
    """Refuse, before any work, a Dask scheduler that the dask extra cannot reach, or that does
    not complete Dask's handshake within :data:`SCHEDULER_TIMEOUT` seconds.

    distributed's ``Client`` waits without limit for the handshake of a server that accepts the
    connection and never answers (an HTTP server, say), so the handshake is tried here with
    distributed's own ``connect``, on an event loop of its own thread, while this thread waits
    for it at most the deadline: a signal (Ctrl-C, SIGTERM) reaches this thread at once and
    never lands inside the loop's callbacks. No ``Client`` is made in this process, so none is
    left to time out after the exit."""
    import asyncio
    import importlib.util
    import threading

    if importlib.util.find_spec("distributed") is None:
        raise PrivlibError("--dask-scheduler needs the dask extra: pip install 'privlib[dask]'.")
    from distributed.comm import connect

    async def handshake() -> None:
        comm = await asyncio.wait_for(connect(address, timeout=SCHEDULER_TIMEOUT), SCHEDULER_TIMEOUT)
        await comm.close()

    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            asyncio.run(handshake())
            outcome.append(None)
        except BaseException as exc:  # handed to the waiting thread, which words it
            outcome.append(exc)

    shown = repr(address[:200])
    # distributed logs every failed attempt to connect; the refusal below says it once.
    quiet = logging.getLogger("distributed")
    level, quiet.level = quiet.level, logging.CRITICAL
    try:
        trying = threading.Thread(target=attempt, name="privlib-dask-handshake", daemon=True)
        trying.start()
        trying.join(SCHEDULER_TIMEOUT + 5)  # the loop's own deadline, and a margin for it to end
    finally:
        quiet.level = level
    error = outcome[0] if outcome else TimeoutError()
    if error is None:
        return
    if isinstance(error, TimeoutError):  # connected, but no Dask handshake came back in time
        raise PrivlibError(
            f"the Dask scheduler {shown} gave no answer within {SCHEDULER_TIMEOUT} s: it is not a "
            "Dask scheduler, or it is too busy to answer; check the address (tcp://HOST:PORT)."
        )
    if isinstance(error, (ValueError, TypeError)):  # an unknown scheme or a malformed address
        raise PrivlibError(
            f"--dask-scheduler {shown} is not an address the kit can connect to "
            f"({type(error).__name__}); give tcp://HOST:PORT (TLS needs credentials the kit does "
            "not take)."
        )
    if isinstance(error, OSError):  # refused, unreachable, or closed during the handshake
        raise PrivlibError(
            f"the Dask scheduler {shown} gave no answer ({type(error).__name__}): nothing listens "
            "there, or it is not a Dask scheduler; check the address and that the scheduler runs."
        )
    raise PrivlibError(  # an answer that is not Dask's handshake
        f"{shown} is not a Dask scheduler (its answer is not Dask's handshake: "
        f"{type(error).__name__}); check the address and port."
    )


def _check_report_names(out: Path, names) -> None:
    """Refuse, before any work, an output folder holding a folder at a name the report writes a
    file to: publishing would fail there after the whole run."""
    for name in names:
        target = out / name
        if target.is_dir() and not target.is_symlink():
            raise PrivlibError(
                f"`--out` {str(out)!r} holds a folder named {name!r}, where the report writes a "
                "file; move or rename that folder, or choose another --out."
            )


@contextlib.contextmanager
def _kernel_environment() -> Iterator[None]:
    """The environment a kernel started inside the block inherits."""
    # The kernel inherits this process's environment; MPLBACKEND=Agg (set for headless runs)
    # would stop figures from reaching the notebook, so the kernel gets the inline backend.
    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    _passive_openmp()
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("MPLBACKEND", None)
        else:
            os.environ["MPLBACKEND"] = previous


def _passive_openmp() -> None:
    """OpenMP threads that wait passively (numba, gradient boosting), for the processes started
    from here on and for this one if OpenMP has not loaded yet: actively waiting threads slow a
    run down many times over on a machine shared with other jobs."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")


@contextlib.contextmanager
def _early_kernel(folder: Path) -> Iterator[Any]:
    """A kernel started now, its connection file in ``folder``, so that it boots while this
    process computes; :func:`_execute` runs a notebook on it (``kernel=``). Leaving the block
    shuts it down: asked to after a run, stopped at once after a failure or Ctrl-C.

    Its sockets are files in a private folder of the system's temporary directory, not in
    ``folder``: a socket's path has at most about 100 characters, which a deep ``--out`` passes."""
    from jupyter_core.utils import run_sync

    sockets = Path(tempfile.mkdtemp(prefix="privlib-kernel-"))  # mode 0700: this user's only
    try:
        kernel = _ipc_kernel_manager()(
            kernel_name="python3", ip=str(sockets / "k"), connection_file=str(folder / "kernel.json")
        )
        with _kernel_environment():
            run_sync(kernel.start_kernel)(cwd=str(folder))
        finished = False
        try:
            yield kernel
            finished = True
        finally:
            run_sync(kernel.shutdown_kernel)(now=not finished)
    finally:
        shutil.rmtree(sockets, ignore_errors=True)


def _execute(notebook, output, parameters: dict, *, cwd, progress: bool, kernel: Any = None) -> None:
    """Run ``notebook`` with papermill into ``output``, in a kernel of its own or in ``kernel``
    (from :func:`_early_kernel`), which is left running."""
    import papermill

    started = {} if kernel is None else {"km": kernel}
    try:
        with _kernel_environment():
            papermill.execute_notebook(
                str(notebook),
                str(output),
                parameters=parameters,
                cwd=str(cwd),
                # The audit's own progress lines (its loggers, on the kernel's stderr) say where the
                # run is; papermill's cell bar on the same stream would interleave with them.
                kernel_name="python3",
                progress_bar=False,
                log_output=False,
                stderr_file=_KernelProgress() if progress else None,
                kernel_manager_class=_ipc_kernel_manager(),
                **started,
            )
    except papermill.PapermillExecutionError as exc:
        # The kernel's message may quote a value of the data: every quoted part is blanked out.
        detail = f"{exc.ename}: {blanked(str(exc.evalue or ''))}"
        raise ReportError(
            f"notebook {Path(notebook).name} failed in cell {exc.exec_count}: {detail}"
        ) from None
    except RuntimeError as exc:  # the kernel died or did not start
        raise ReportError(f"the notebook's kernel failed: {str(exc).splitlines()[0]}") from None
    _names_only(Path(output))


def _names_only(executed: Path) -> None:
    """The executed notebook with the paths papermill records (the kit's template, the staging
    folder) reduced to file names: a published notebook names no folder of this machine."""
    import nbformat

    notebook = nbformat.read(str(executed), as_version=4)
    record = notebook.metadata.get("papermill", {})
    for field in ("input_path", "output_path"):
        if record.get(field):
            record[field] = Path(record[field]).name
    nbformat.write(notebook, str(executed))


def _say(progress: bool, message: str) -> None:
    """A progress line (the CLI shows them on stderr; stdout may be a pipe the caller reads)."""
    if progress:
        logger.info("%s ...", message)
