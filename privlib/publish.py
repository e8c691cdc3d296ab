"""Publishing a report into the output folder: only the kit's own files, each replaced whole.

A run of ``privlib audit``, ``privlib course`` or ``privlib reports`` writes into ``--out`` in
three steps, each with one promise:

* :func:`checked_out` refuses, before any work, an output folder that cannot or must not be
  written: empty, a symbolic link, a file, a mount point (the report is staged beside it, and a
  rename cannot cross file systems), not writable, or inside the kit's own folders (``reports/``,
  ``notebooks/``, ``data/``, the installed package), whose shipped files a report would replace.
  The git-ignored ``reports/out/`` of a checkout is the one place inside them meant for reports.
* :func:`staging` holds a lock beside ``--out`` for the whole run, so that runs into one folder
  queue instead of mixing their files, removes the staging folders that earlier runs killed
  before their clean-up left behind (their own lock is no longer held), and gives the run a
  private folder beside ``--out`` (one file system) that is removed on every exit.
* :func:`publish` moves each finished file into ``--out`` with ``os.replace``: a reader, or a
  run killed at any instant (SIGKILL included), sees for each file either the earlier version
  or the new one, never a part. Nothing else in ``--out`` is moved, renamed or deleted, and no
  symbolic link is followed: a link at one of the report's names is replaced itself (a rename
  acts on the name), and ``--out`` is opened with ``O_NOFOLLOW``. Every published file gets the
  mode the user's umask gives a new file (``0o644`` under the usual ``022``), whichever library
  wrote it in the staging folder, as for any tool. A signal that ends the run (Ctrl-C, SIGTERM,
  SIGHUP) while the files move in is acted on once the last one has moved: a reader and a
  ``--fail-on`` gate see either the earlier report or the new one, never files of two runs, and
  :func:`publications` tells the command which (so that its last line says so truly).
"""

from __future__ import annotations

import collections
import contextlib
import errno
import fcntl
import logging
import os
import re
import shutil
import signal
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from privlib.errors import PrivlibError

__all__ = [
    "LOCK_WAIT_SECONDS",
    "STAGING_MARK",
    "checked_out",
    "new_file_mode",
    "publication_count",
    "publications",
    "publish",
    "staging",
]

logger = logging.getLogger(__name__)

#: The file inside each staging folder that marks it as the kit's and is locked while its run lives.
STAGING_MARK = ".privlib-staging"

#: The longest wait for another run into the same output folder to finish (its lock file): runs
#: into one folder queue, but a stopped run must not hold the next one forever.
LOCK_WAIT_SECONDS = 4 * 3600.0

#: The kinds of staging folder: one per command, and ``report`` for :meth:`AuditReport.save`.
_STAGING_KINDS = ("audit", "course", "reports", "report")


def _shown(path) -> str:
    """A path for a message: quoted, so that a newline in it cannot start a line of its own."""
    return repr(str(path))


def _kit_folders() -> list[tuple[Path, Path | None]]:
    """The kit's own folders, each with the folder inside it where reports may go (or None)."""
    from privlib.resources import RESOURCES, resource_path

    folders: list[tuple[Path, Path | None]] = [(Path(__file__).resolve().parent, None)]
    for kind in RESOURCES:
        with contextlib.suppress(PrivlibError):  # a folder that is missing holds nothing to overwrite
            folder = Path(os.path.realpath(resource_path(kind)))
            folders.append((folder, folder / "out" if kind == "reports" else None))
    return folders


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def checked_out(out, *, name: str = "--out") -> Path:
    """``out`` as an absolute path, after the checks that need no writing; messages call it
    ``name`` (the command line's flag, or a function's argument)."""
    what = f"`{name}`"
    if out is None or not str(out).strip():
        raise PrivlibError(f"{what} is empty; give the folder the report should be written to.")
    if any(ch in str(out) for ch in "\n\r\0"):
        raise PrivlibError(f"{what} holds a line break or a NUL character; give a plain folder name.")
    out = Path(os.path.abspath(os.path.expanduser(str(out))))
    if out.is_symlink():
        raise PrivlibError(f"{what} {_shown(out)} is a symbolic link; give a real folder.")
    if out.exists() and not out.is_dir():
        raise PrivlibError(
            f"{what} {_shown(out)} exists and is not a folder; give a folder (the report writes "
            "its files into it)."
        )
    if out.is_dir() and os.path.ismount(out):
        raise PrivlibError(
            f"{what} {_shown(out)} is a mount point; give a folder inside it (the report is "
            "staged beside it and moved in by rename, which cannot cross file systems)."
        )
    if out.is_dir() and not os.access(out, os.W_OK | os.X_OK):
        raise PrivlibError(f"{what} {_shown(out)} is not writable; choose a folder you can write to.")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise PrivlibError(
                    f"{what} {_shown(out)} cannot be made: {_shown(parent)} is a file, not a folder."
                )
            break
    real = Path(os.path.realpath(out))
    for folder, allowed in _kit_folders():
        if _inside(real, folder) and not (allowed is not None and _inside(real, allowed)):
            where = f"; reports may go to {_shown(allowed)}" if allowed is not None else ""
            raise PrivlibError(
                f"{what} {_shown(out)} is inside the kit's own folder {_shown(folder)}, whose "
                f"shipped files a report would replace; choose a folder outside it{where}."
            )
    return out


# --------------------------------------------------------------------------------------------
# Locks
# --------------------------------------------------------------------------------------------
def _lock(path: Path, *, wait: bool):
    """An open file descriptor holding an exclusive lock on ``path``, or None (``wait=False``)
    when another process holds it; with ``wait``, a :class:`PrivlibError` naming ``path`` when
    the lock is still held after :data:`LOCK_WAIT_SECONDS`.

    The lock file is removed by :func:`_unlock`; a run that opened it just before would then hold
    a lock on a removed file, so the lock is taken again until the file locked is the one at
    ``path``.
    """
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                os.close(fd)
                return None
            logger.info("another run is writing into the same folder; waiting for it to finish")
            try:
                _wait_for_lock(fd, path)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            os.close(fd)
            raise
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path, follow_symlinks=False).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)  # the file was removed (and maybe made anew) while we waited: lock that one


def _wait_for_lock(fd: int, path: Path) -> None:
    """Take the lock on ``fd`` once its holder lets go, polling (``flock`` itself has no
    deadline), at most :data:`LOCK_WAIT_SECONDS`."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    pause = 0.05
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PrivlibError(
                    f"another run has held the lock file {_shown(path)} for over "
                    f"{LOCK_WAIT_SECONDS / 60:g} minutes (it is still writing, stopped, or "
                    "another user's); let it finish, remove the lock file if no run writes into "
                    "that folder, or choose another --out."
                ) from None
            time.sleep(min(pause, left))
            pause = min(pause * 2, 2.0)


def _unlock(fd: int, path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
    os.close(fd)


def _remove_stale_staging(out: Path) -> None:
    """Remove the staging folders of earlier runs into ``out`` whose run is dead (lock not held)."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.({'|'.join(_STAGING_KINDS)})-[A-Za-z0-9_]{{8}}")
    try:
        names = os.listdir(out.parent)
    except OSError:
        return
    for name in names:
        folder = out.parent / name
        mark = folder / STAGING_MARK
        if not pattern.fullmatch(name) or folder.is_symlink() or not folder.is_dir() or mark.is_symlink():
            continue
        if not mark.exists():
            # a run killed between making its folder and marking it left it empty; no live run
            # can be there, since every run holds the lock on ``out`` that the caller holds now
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            continue
        try:
            fd = _lock(mark, wait=False) if mark.is_file() else None
        except OSError:
            continue
        if fd is None:
            continue  # a live run, or a folder that is not the kit's
        try:
            shutil.rmtree(folder, ignore_errors=True)
            logger.info("removed %s, left by an interrupted run", name)
        finally:
            os.close(fd)


@contextlib.contextmanager
def staging(out: Path, prefix: str):
    """A private folder beside ``out`` (made first, removed on every exit), under a lock on
    ``out`` that lasts until the folder is gone."""
    if prefix not in _STAGING_KINDS:
        raise ValueError(f"unknown staging kind {prefix!r}")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        lock_path = out.parent / f".{out.name}.privlib-lock"
        lock = _lock(lock_path, wait=True)
    except OSError as exc:
        raise PrivlibError(
            f"cannot write beside `--out` {_shown(out)} ({exc.strerror or exc}); choose a folder "
            "you can write to."
        ) from None
    folder = mark = None
    try:
        _remove_stale_staging(out)
        try:
            folder = Path(tempfile.mkdtemp(prefix=f".{out.name}.{prefix}-", dir=out.parent))
            mark = _lock(folder / STAGING_MARK, wait=False)
        except OSError as exc:
            raise PrivlibError(
                f"cannot write beside `--out` {_shown(out)} ({exc.strerror or exc}); choose a "
                "folder you can write to."
            ) from None
        yield folder
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        if mark is not None:
            os.close(mark)
        _unlock(lock, lock_path)


# --------------------------------------------------------------------------------------------
# Publishing
# --------------------------------------------------------------------------------------------
#: The signals that end a run (:mod:`privlib.cli` turns each into a KeyboardInterrupt).
_ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: The latest publications this process completed, in order: ``(number, output folder, files
#: moved in)``, numbered from 1; the oldest are let go (a command makes a dozen at most).
_PUBLISHED: collections.deque[tuple[int, Path, tuple[str, ...]]] = collections.deque(maxlen=100)


def publications(after: int = 0) -> list[tuple[int, Path, tuple[str, ...]]]:
    """The publications this process completed after the one numbered ``after`` (see
    :func:`publication_count`), oldest first: ``(number, output folder, files)``."""
    return [entry for entry in _PUBLISHED if entry[0] > after]


def publication_count() -> int:
    """How many publications this process has completed."""
    return _PUBLISHED[-1][0] if _PUBLISHED else 0


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Run the block whole: a signal of :data:`_ENDING_SIGNALS` that arrives in it is noted, and
    raised again under its earlier handler once the block is done.

    A handler that only notes the signal, not a blocked signal mask: the mask holds for one
    thread, and the kernel hands a process-wide signal to any thread that does not block it
    (Python then runs the handler in the main thread all the same). Only the main thread can
    set handlers, and only it receives Python's KeyboardInterrupt: elsewhere nothing is needed.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    earlier = {
        signum: signal.signal(signum, lambda signum, _: noted.append(signum)) for signum in _ENDING_SIGNALS
    }
    try:
        yield
    finally:
        for signum, handler in earlier.items():
            signal.signal(signum, handler)
    # after a failure in the block, its error ends the run and says what it left
    if noted:
        signal.raise_signal(noted[0])


def _staged_files(finished: Path, own: set[str]) -> list[Path]:
    """The files under ``finished`` to publish (relative paths), folders before their files."""
    found = []
    for name in sorted(os.listdir(finished)):
        if name not in own:
            continue
        path = finished / name
        if path.is_dir() and not path.is_symlink():
            found.append(Path(name))
            found += [Path(name) / p for p in sorted(_walk(path))]
        elif path.is_file() and not path.is_symlink():
            found.append(Path(name))
    return found


def _walk(folder: Path):
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            yield (Path(root) / name).relative_to(folder)


def _check_targets(finished: Path, out_fd: int, files: list[Path], out: Path) -> None:
    """Refuse, before any file moves, a report name in ``out`` held by an entry of another kind
    (a folder where a file goes, a link or file where a folder goes) or by a mount point."""
    for relative in files:
        staged_dir = (finished / relative).is_dir()
        try:
            target = os.stat(str(relative), dir_fd=out_fd, follow_symlinks=False)
        except FileNotFoundError:
            continue
        except NotADirectoryError:
            target = None
        if target is None or staged_dir != stat.S_ISDIR(target.st_mode):
            raise PrivlibError(
                f"`--out` {_shown(out)} holds {_shown(relative)}, which is not a "
                f"{'folder' if staged_dir else 'file'} where the report writes one; move it "
                "away and run again. Nothing was written."
            )
        if os.path.ismount(out / relative):
            raise PrivlibError(
                f"`--out` {_shown(out)} holds {_shown(relative)}, a mount point; unmount it or "
                "choose another folder. Nothing was written."
            )


def _umask() -> int:
    """The process's umask (read by setting it and putting it back: the only portable way)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode the umask gives a new file (``0o644`` under the usual ``022``)."""
    return 0o666 & ~_umask()


def publish(
    finished: Path, out: Path, own: set[str], *, retire: set[str] | frozenset[str] = frozenset()
) -> None:
    """Move the files of ``finished`` named in ``own`` (folders among them with their contents)
    into ``out``, one ``os.replace`` each; ``out`` is made if it does not exist.

    Entries of ``out`` with other names are left as they are. A file at a report's name is
    replaced (a symbolic link there is replaced itself, never followed). Each file gets the mode
    of a new file under the umask, so that all of them share one (a temporary file is made
    ``0o600`` whatever the umask).

    ``retire``: names of the kit's own files that this publication does not write (a format left
    out) and that an earlier one may have: a file or link at such a name is removed first, in
    the same uninterrupted step, so that ``out`` never holds files of two runs side by side (a
    folder at such a name is not the kit's and stays).
    """
    file_mode = new_file_mode()
    try:
        out.mkdir(exist_ok=True)
        out_fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        changed = exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EEXIST)
        why = "changed while the report was made" if changed else f"cannot be opened ({exc.strerror or exc})"
        raise PrivlibError(f"`--out` {_shown(out)} {why}; nothing was written.") from None
    try:
        files = _staged_files(finished, own)
        _check_targets(finished, out_fd, files, out)
        published: list[str] = []
        with _signals_deferred():
            _retire(out_fd, sorted(retire - own), out)
            _move_in(finished, out_fd, files, out, file_mode, published)
            _PUBLISHED.append((publication_count() + 1, out, tuple(published)))
    finally:
        os.close(out_fd)


def _retire(out_fd: int, names: list[str], out: Path) -> None:
    """Remove the files (or links, never followed) at ``names`` in the folder ``out_fd``."""
    for name in names:
        try:
            found = os.stat(name, dir_fd=out_fd, follow_symlinks=False)
            if not stat.S_ISDIR(found.st_mode):
                os.unlink(name, dir_fd=out_fd)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise PrivlibError(
                f"could not remove the earlier {_shown(name)} from `--out` {_shown(out)} "
                f"({exc.strerror or exc}); the earlier report's other files are intact."
            ) from None


def _move_in(
    finished: Path, out_fd: int, files: list[Path], out: Path, file_mode: int, published: list[str]
) -> None:
    """Move ``files`` from ``finished`` into the folder ``out_fd`` (``out``), noting each file
    moved in ``published``."""
    for relative in files:
        source = finished / relative
        try:
            if source.is_dir():
                with contextlib.suppress(FileExistsError):
                    os.mkdir(str(relative), dir_fd=out_fd)
            else:
                os.chmod(source, file_mode)
                os.replace(source, str(relative), dst_dir_fd=out_fd)
                published.append(str(relative))
        except OSError as exc:
            done = (
                f"{len(published)} of its files were replaced ({', '.join(published[:5])}"
                f"{', ...' if len(published) > 5 else ''}), the rest are the earlier ones"
                if published
                else "the earlier output is intact"
            )
            raise PrivlibError(
                f"could not publish {_shown(relative)} into `--out` {_shown(out)} "
                f"({exc.strerror or exc}); {done}."
            ) from None
