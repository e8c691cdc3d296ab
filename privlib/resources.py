"""Where the files the kit ships are: the bundled datasets, the course notebooks, the audit
notebook and its params files.

A wheel installs them inside the package (``privlib/_data``, ``privlib/_notebooks``,
``privlib/_reports``; see ``[tool.setuptools.package-dir]`` in ``pyproject.toml``); a clone of
the repository has them at its top level (``data/``, ``notebooks/``, ``reports/``), where a
student edits them. :func:`resource_path` is the one place that knows both.
"""

from __future__ import annotations

import os
from pathlib import Path

from privlib.errors import PrivlibError

__all__ = ["RESOURCES", "resource_path"]

#: The folders the kit ships, by name.
RESOURCES = ("data", "notebooks", "reports")

_PACKAGE = Path(__file__).resolve().parent


def resource_path(kind: str, *parts: str) -> Path:
    """Path of a shipped folder (``kind``) or of a file in it.

    ``$PRIVLIB_DATA``, when set, replaces the ``data`` folder (datasets kept elsewhere).

    Examples
    --------
    >>> resource_path("reports", "params", "acs.yaml").name
    'acs.yaml'
    """
    if kind not in RESOURCES:
        raise PrivlibError(f"unknown resource {kind!r}; the kit ships {list(RESOURCES)}.")
    override = os.environ.get("PRIVLIB_DATA") if kind == "data" else None
    if override:
        folder = Path(override)
    else:
        installed, checkout = _PACKAGE / f"_{kind}", _PACKAGE.parent / kind
        folder = installed if installed.is_dir() else checkout
    if not folder.is_dir():
        raise PrivlibError(
            f"the kit's {kind} folder is missing ({folder}); reinstall privlib"
            + (" or set PRIVLIB_DATA to the folder of the datasets." if kind == "data" else ".")
        )
    return folder.joinpath(*parts)
