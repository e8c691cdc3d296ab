"""SDV's single-table metadata as the audit's schema (``privlib audit --schema metadata.json``).

SDV (the Synthetic Data Vault) describes a table in a JSON file: ``METADATA_SPEC_VERSION``
(``"SINGLE_TABLE_V1"``), a ``columns`` mapping of each column to its ``sdtype`` (``numerical``,
``categorical``, ``boolean``, ``datetime``, ``id``, or a personal-information type such as
``email`` or ``address``, possibly flagged ``"pii": true``), and optionally ``primary_key`` and
``alternate_keys``. A multi-table file (``"V1"``, ``tables``) holding exactly one table is read
as that table.

The sdtypes map to the kit's kinds (:data:`SDTYPE_KINDS`). A column that identifies a record
rather than describing a person (an ``id``, a primary or alternate key) or that holds personal
information (any other sdtype, or ``pii``) takes no part in the measures: the audit leaves it out
of every table and says so in the report's notes, naming the column and why, never a value. A
record number that entered the distances as a number would make every record unique and every
distance meaningless.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping

from privlib.errors import PrivlibError

__all__ = [
    "SDTYPE_KINDS",
    "BASIC_SDTYPES",
    "IDENTIFIER",
    "check_sdtype",
    "PERSONAL",
    "is_sdv_metadata",
    "schema_from_sdv",
    "left_out_notes",
]

#: The kit's kind for each SDV sdtype that describes a variable.
SDTYPE_KINDS = {
    "numerical": "numeric",
    "categorical": "categorical",
    "boolean": "categorical",
    "datetime": "date",
}

#: SDV's sdtypes that are not personal information: the kit's kinds, an identifier, and a column
#: SDV could not type (``unknown``, left out as personal information, as SDV anonymises it).
BASIC_SDTYPES = (*SDTYPE_KINDS, "id", "unknown")

#: How a personal-information sdtype is written: the name of a Faker function, such as ``email``,
#: ``phone_number`` or ``ssn`` (SDV accepts any; lowercase letters, digits and underscores).
_PII_SDTYPE = re.compile(r"[a-z][a-z0-9_]*")

#: Why a column is left out: it identifies a record (sdtype ``id``, primary or alternate key).
IDENTIFIER = "an identifier (SDV sdtype id or key)"
#: Why a column is left out: it holds personal information (a PII sdtype, or ``pii: true``).
PERSONAL = "personal information (SDV PII sdtype)"


def is_sdv_metadata(document) -> bool:
    """Whether a parsed schema file is SDV metadata (it names a spec version or column sdtypes)."""
    if not isinstance(document, Mapping):
        return False
    if "METADATA_SPEC_VERSION" in document:
        return True
    columns = document.get("columns")
    return isinstance(columns, Mapping) and any(
        isinstance(entry, Mapping) and "sdtype" in entry for entry in columns.values()
    )


def _single_table(document: Mapping, where: str) -> Mapping:
    tables = document.get("tables")
    if tables is None:
        return document
    if not isinstance(tables, Mapping) or len(tables) != 1:
        raise PrivlibError(
            f"{where} describes {len(tables) if isinstance(tables, Mapping) else 'no'} tables; the audit "
            "reads one table: give SDV single-table metadata (SINGLE_TABLE_V1) for the training file."
        )
    return next(iter(tables.values()))


def _why_left_out(column: str, entry: Mapping, keys: set) -> str | None:
    if entry["sdtype"] == "id" or column in keys:
        return IDENTIFIER
    if entry.get("pii") or entry["sdtype"] not in SDTYPE_KINDS:
        return PERSONAL
    return None


def check_sdtype(sdtype: str, where: str) -> None:
    """Refuse an sdtype that is a slip for one of :data:`BASIC_SDTYPES` (``"Numerical"``,
    ``"categorical "``, ``"categorial"``) or cannot be a Faker function's name: read as personal
    information, the column would leave every measure without a word."""
    if sdtype in BASIC_SDTYPES:
        return
    written = sdtype.strip().lower()
    close = difflib.get_close_matches(written, BASIC_SDTYPES, n=2, cutoff=0.8)
    if not close and written != sdtype and _PII_SDTYPE.fullmatch(written):
        close = [written]  # "Email": a personal-information sdtype, written in lowercase
    if close or not _PII_SDTYPE.fullmatch(sdtype):
        suggestion = f"did you mean {' or '.join(map(repr, close))}? " if close else ""
        raise PrivlibError(
            f"{where}: unknown sdtype {sdtype[:40]!r}; {suggestion}give one of {list(BASIC_SDTYPES)} "
            "or a personal-information sdtype (a Faker name such as 'email')."
        )


def _keys(table: Mapping, columns: Mapping, where: str) -> set:
    """The primary and alternate keys, after checking each is the name of a column."""
    primary = table.get("primary_key")
    alternate = table.get("alternate_keys")
    alternate = [] if alternate is None else [alternate] if isinstance(alternate, str) else alternate
    named = [("primary_key", primary)] if primary is not None else []
    if not isinstance(alternate, list):
        raise PrivlibError(f"{where}: `alternate_keys` must be a list of column names.")
    named += [("alternate_keys", key) for key in alternate]
    for field, key in named:
        if not isinstance(key, str):
            raise PrivlibError(
                f"{where}: `{field}` must name one column (a text), got a {type(key).__name__}; "
                "the audit reads single-column keys."
            )
        if key not in columns:
            raise PrivlibError(f"{where}: `{field}` names {key[:60]!r}, which is not in its `columns`.")
    return {key for _, key in named}


def schema_from_sdv(document, path) -> dict:
    """The audit's schema (:func:`privlib.audit.metadata.read_schema`'s form) from SDV metadata:
    ``{column: {"kind", "categories", "range", "left_out"}}``, where ``left_out`` says why a
    column takes no part in the measures (``None`` for the others)."""
    where = f"schema file {str(path)!r} (SDV metadata)"
    table = _single_table(document, where)
    columns = table.get("columns") if isinstance(table, Mapping) else None
    if not isinstance(columns, Mapping) or not columns:
        raise PrivlibError(f'{where} has no `columns`; map each column to {{"sdtype": ...}}.')
    for column, entry in columns.items():
        if not isinstance(entry, Mapping) or not isinstance(entry.get("sdtype"), str):
            raise PrivlibError(
                f"{where}, column {column!r}: give its `sdtype` (numerical, categorical, ...)."
            )
        check_sdtype(entry["sdtype"], f"{where}, column {column!r}")
    keys = _keys(table, columns, where)
    out = {}
    for column, entry in columns.items():
        left_out = _why_left_out(str(column), entry, keys)
        out[str(column)] = {
            "kind": None if left_out else SDTYPE_KINDS[entry["sdtype"]],
            "categories": None,
            "range": None,
            "left_out": left_out,
        }
    if all(entry["left_out"] for entry in out.values()):
        raise PrivlibError(
            f"{where} leaves every column out (identifiers or personal information); nothing to audit."
        )
    return out


def left_out_notes(schema: Mapping | None) -> list[str]:
    """One note per reason, naming the columns the schema leaves out of the measures."""
    reasons: dict[str, list[str]] = {}
    for column, entry in (schema or {}).items():
        if entry.get("left_out"):
            reasons.setdefault(entry["left_out"], []).append(column)
    return [
        f"Column{'s' if len(columns) > 1 else ''} {', '.join(repr(c) for c in columns)} left out of every "
        f"measure: {why}, as the schema file states."
        for why, columns in reasons.items()
    ]
