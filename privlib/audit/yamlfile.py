"""Reading the audit's YAML files (params, schema) strictly, with errors that name the file.

A params or schema file may come from someone other than the person running the audit, so it is
read as plain data and nothing more: UTF-8 text of at most :data:`MAX_BYTES`, without anchors
and aliases (a few hundred bytes of aliases expand to gigabytes), without tags (``!!binary``,
``!!set``, ``!!python/...``: every value is a plain scalar, list or mapping), and without
integers longer than :data:`MAX_DIGITS` digits (Python refuses to convert very long ones, and no
field of the kit needs them). Each refusal is one line.
"""

from __future__ import annotations

from privlib.errors import PrivlibError

__all__ = ["MAX_BYTES", "MAX_DIGITS", "read_yaml"]

#: Largest params or schema file read, in bytes.
MAX_BYTES = 1 << 20

#: Longest integer accepted in a params or schema file, in digits.
MAX_DIGITS = 30


def _strict_loader():
    """A :class:`yaml.SafeLoader` that refuses anchors, aliases, tags and overlong integers."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
                raise yaml.YAMLError(f"anchors and aliases (& and *) are not accepted{_where(event)}")
            if getattr(event, "tag", None) not in (None, "!"):
                tag = event.tag.split(":")[-1][:40]
                raise yaml.YAMLError(f"tags such as {tag!r} are not accepted{_where(event)}")
            return super().compose_node(parent, index)

        def construct_yaml_int(self, node):
            digits = sum(ch.isdigit() for ch in node.value)
            if digits > MAX_DIGITS:
                raise yaml.YAMLError(
                    f"an integer of {digits} digits is longer than the {MAX_DIGITS} accepted{_where(node)}"
                )
            return super().construct_yaml_int(node)

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
    return StrictLoader


def _where(event) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


def read_yaml(path, what: str, option: str):
    """The mapping held by the YAML file ``path`` (a ``what`` given with ``option``), or a
    :class:`~privlib.errors.PrivlibError` naming the file and the problem."""
    import yaml

    from privlib.datasets import check_regular_file

    path = check_regular_file(path, option, "YAML file")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise PrivlibError(
            f"{what} {str(path)!r} has {size:,} bytes, more than the {MAX_BYTES:,} accepted; is it "
            f"the right file for `{option}`?"
        )
    raw = path.read_bytes()[: MAX_BYTES + 1]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PrivlibError(
            f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start} cannot be read); save it as UTF-8."
        ) from None
    try:
        content = yaml.load(text, Loader=_strict_loader())  # noqa: S506 - a SafeLoader, made stricter
    except yaml.YAMLError as exc:
        raise PrivlibError(f"{what} {str(path)!r} is not accepted: {exc}".splitlines()[0]) from None
    except RecursionError:
        raise PrivlibError(f"{what} {str(path)!r} is nested too deeply; is it the right file?") from None
    if not isinstance(content, dict):
        raise PrivlibError(f"{what} {str(path)!r} must hold a mapping of names to values.")
    return content
