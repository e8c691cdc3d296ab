"""Reading the audit's YAML files (params, schema) strictly, with errors that name the file.

A params or schema file may come from someone other than the person running the audit, so it is
read as plain data and nothing more: UTF-8 text of at most :data:`MAX_BYTES`, without anchors
and aliases (a few hundred bytes of aliases expand to gigabytes), without tags (``!!binary``,
``!!set``, ``!!python/...``: every value is a plain scalar, list or mapping), and without
integers longer than :data:`MAX_DIGITS` digits (Python refuses to convert very long ones, and no
field of the kit needs them), and without a key given twice in one mapping (YAML and JSON readers
keep the last silently, so a reviewer reading the first would be misled). A file whose text starts
with ``{`` is JSON and is read by the JSON reader: YAML takes neither tab indentation nor the
surrogate pairs of ``\\u`` escapes (``\\ud83d\\ude00``) that JSON allows. Each refusal is one line.
"""

from __future__ import annotations

import json

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

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                if isinstance(key, (str, int, float, bool)) and key in seen:
                    raise yaml.YAMLError(f"the key {str(key)[:40]!r} is given twice{_where(key_node)}")
                if isinstance(key, (str, int, float, bool)):
                    seen.add(key)
            return super().construct_mapping(node, deep=deep)

    StrictLoader.add_constructor("tag:yaml.org,2002:int", StrictLoader.construct_yaml_int)
    return StrictLoader


class _Refused(ValueError):
    """A JSON document the strict reader refuses (its message says why)."""


def _unique_keys(pairs: list) -> dict:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise _Refused(f"the key {key[:40]!r} is given twice")
        seen.add(key)
    return dict(pairs)


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(
            f"an integer of {len(text.lstrip('-'))} digits is longer than the {MAX_DIGITS} accepted"
        )
    return int(text)


def _no_constant(name: str):
    raise _Refused(f"{name} is not a JSON number; give a number or leave the field out")


def _load_json(text: str):
    """The document held by JSON ``text``, read strictly (see the module's documentation)."""
    return json.loads(text, object_pairs_hook=_unique_keys, parse_int=_short_int, parse_constant=_no_constant)


def _unpaired_surrogate(value) -> bool:
    """Whether a text of ``value`` (a key or value, at any depth) holds half of a surrogate pair
    (``\\ud83d`` alone), which no UTF-8 output can write."""
    if isinstance(value, str):
        return any("\ud800" <= ch <= "\udfff" for ch in value)
    if isinstance(value, dict):
        return any(_unpaired_surrogate(k) or _unpaired_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_unpaired_surrogate(v) for v in value)
    return False


def _where(event) -> str:
    mark = getattr(event, "start_mark", None)
    return f" (line {mark.line + 1})" if mark is not None else ""


def _load(text: str):
    """The document of a file's text: JSON when it starts with ``{`` and parses as JSON (else
    YAML, whose flow mappings start with ``{`` too); YAML otherwise."""
    import yaml

    body = text.lstrip("\ufeff")
    if body.lstrip(" \t\r\n").startswith("{"):
        try:
            return _load_json(body)
        except json.JSONDecodeError as exc:
            try:
                return yaml.load(body, Loader=_strict_loader())  # noqa: S506 - a SafeLoader, made stricter
            except yaml.YAMLError:
                raise exc from None
    return yaml.load(body, Loader=_strict_loader())  # noqa: S506 - a SafeLoader, made stricter


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
        content = _load(text)
    except yaml.YAMLError as exc:
        raise PrivlibError(f"{what} {str(path)!r} is not accepted: {exc}".splitlines()[0]) from None
    except _Refused as exc:
        raise PrivlibError(f"{what} {str(path)!r} is not accepted: {exc}.") from None
    except json.JSONDecodeError as exc:
        raise PrivlibError(
            f"{what} {str(path)!r} is neither valid JSON ({exc.msg}, line {exc.lineno}, column "
            f"{exc.colno}) nor YAML; correct it."
        ) from None
    except RecursionError:
        raise PrivlibError(f"{what} {str(path)!r} is nested too deeply; is it the right file?") from None
    if _unpaired_surrogate(content):
        raise PrivlibError(
            f"{what} {str(path)!r} holds half of a surrogate pair (a lone \\ud800-\\udfff escape); "
            "write the character itself, or both halves of its pair."
        )
    if not isinstance(content, dict):
        raise PrivlibError(f"{what} {str(path)!r} must hold a mapping of names to values.")
    return content
