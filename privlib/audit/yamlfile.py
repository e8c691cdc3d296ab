"""Reading the audit's YAML files (params, schema) with errors that name the file."""

from __future__ import annotations

from pathlib import Path

from privlib.errors import PrivlibError

__all__ = ["read_yaml"]


def read_yaml(path, what: str, option: str):
    """The mapping held by the YAML file ``path`` (a ``what`` given with ``option``), or a
    :class:`~privlib.errors.PrivlibError` naming the file and the problem."""
    import yaml

    path = Path(path)
    if not path.is_file():
        raise PrivlibError(f"{what} {str(path)!r} does not exist; check `{option}`.")
    try:
        content = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise PrivlibError(f"{what} {str(path)!r} is not valid YAML: {exc}".splitlines()[0]) from None
    if not isinstance(content, dict):
        raise PrivlibError(f"{what} {str(path)!r} must hold a mapping of names to values.")
    return content
