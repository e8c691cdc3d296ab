"""A metadata file that fixes the kinds, categories and ranges of an audit's columns.

Without it the kit infers each column's kind from the training file (text and few-valued integer
codes are categories, ISO dates are dates, the rest numbers). With it (``privlib audit --schema
schema.yaml``) the custodian states them, and every table is checked against the statement
before any measure runs::

    columns:
      age: {kind: numeric, range: [17, 90]}
      sex: {kind: categorical, categories: [Female, Male]}
      income: {kind: categorical}
      episode_date: {kind: date}

A value that does not fit (text in a numeric column, a number outside its range, a category not
listed, a date that cannot be read) is refused with the column and a count, never the value.

SDV's single-table metadata (``--schema metadata.json``) is accepted too and read by
:mod:`privlib.sdv_metadata`: its identifier and personal-information columns are left out of
every table.
"""

from __future__ import annotations

import math

import pandas as pd

from privlib.audit.yamlfile import read_yaml
from privlib.errors import PrivlibError
from privlib.sdv_metadata import is_sdv_metadata, schema_from_sdv

__all__ = ["KINDS", "read_schema", "apply_schema"]

#: The kinds a column can be given.
KINDS = ("numeric", "categorical", "date")


def read_schema(path) -> dict:
    """Read and check a metadata file; returns ``{column: {"kind", "categories", "range"}}``
    (and ``left_out``, why a column takes no part, for SDV metadata)."""
    spec = read_yaml(path, "schema file", "--schema")
    if is_sdv_metadata(spec):
        return schema_from_sdv(spec, path)
    if set(spec) != {"columns"} or not isinstance(spec["columns"], dict) or not spec["columns"]:
        raise PrivlibError(
            f"schema file {str(path)!r} must hold one field, `columns`, mapping column names to "
            "{kind: numeric|categorical|date, categories: [...], range: [low, high]}."
        )
    out = {}
    for column, entry in spec["columns"].items():
        where = f"schema file {str(path)!r}, column {column!r}"
        if (
            not isinstance(entry, dict)
            or entry.get("kind") not in KINDS
            or set(entry) - {"kind", "categories", "range"}
        ):
            raise PrivlibError(
                f"{where}: give `kind` (one of {list(KINDS)}) and optionally "
                "`categories` (categorical) or `range` (numeric)."
            )
        kind, categories, bounds = entry["kind"], entry.get("categories"), entry.get("range")
        if categories is not None and (
            kind != "categorical" or not isinstance(categories, list) or not categories
        ):
            raise PrivlibError(f"{where}: `categories` is a non-empty list, for a categorical column.")
        if bounds is not None:
            valid = (
                kind == "numeric"
                and isinstance(bounds, list)
                and len(bounds) == 2
                and all(
                    isinstance(b, (int, float)) and not isinstance(b, bool) and math.isfinite(b)
                    for b in bounds
                )
                and bounds[0] <= bounds[1]
            )
            if not valid:
                raise PrivlibError(f"{where}: `range` is [low, high] with low <= high, for a numeric column.")
        out[column] = {"kind": kind, "categories": categories, "range": bounds}
    return out


def apply_schema(frame: pd.DataFrame, schema: dict, label: str) -> pd.DataFrame:
    """``frame`` with the schema's kinds, after checking every value against the schema, and
    without the columns the schema leaves out."""
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise PrivlibError(f"the schema names column(s) {missing} that `{label}` lacks.")
    left_out = [column for column, entry in schema.items() if entry.get("left_out")]
    out = frame.drop(columns=left_out)
    for column, entry in schema.items():
        if column in left_out:
            continue
        values = out[column]
        present = values.notna()
        if entry["kind"] == "numeric":
            converted = (
                pd.to_numeric(values, errors="coerce")
                if not pd.api.types.is_numeric_dtype(values)
                else values
            )
            _refuse(int((converted.isna() & present).sum()), column, label, "that are not numbers")
            if entry["range"] is not None:
                low, high = entry["range"]
                _refuse(
                    int(((converted < low) | (converted > high)).sum()),
                    column,
                    label,
                    f"outside the stated range [{low}, {high}]",
                )
            out[column] = (
                converted.astype("float64") if not pd.api.types.is_integer_dtype(converted) else converted
            )
        elif entry["kind"] == "date":
            converted = pd.to_datetime(values, errors="coerce")
            _refuse(int((converted.isna() & present).sum()), column, label, "that are not dates")
            out[column] = converted
        else:
            text = values.astype(object).where(present, None)
            if entry["categories"] is not None:
                allowed = {str(c) for c in entry["categories"]}
                _refuse(
                    int((present & ~text.map(str).isin(allowed)).sum()),
                    column,
                    label,
                    "that are not among the stated categories",
                )
                categories = [str(c) for c in entry["categories"]]
                out[column] = pd.Categorical(
                    text.map(lambda v: None if v is None else str(v)), categories=categories
                )
            else:
                out[column] = values.astype("category")
    return out


def _refuse(count: int, column, label: str, what: str) -> None:
    if count:
        raise PrivlibError(
            f"column {column!r} of `{label}` holds {count} value(s) {what} (see the schema file); "
            "correct the data or the schema."
        )
