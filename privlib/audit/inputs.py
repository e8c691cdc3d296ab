"""The inputs of an audit: read, checked against each other, and fingerprinted.

Everything is checked here, before any measure runs: a problem is a
:class:`~privlib.errors.PrivlibError` whose message names the file or parameter and what to do.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from privlib.audit.checks import (
    as_numbers,
    check_header,
    check_holdout,
    check_input_size,
    check_labels,
    check_names,
    check_numbers,
    check_whole_numbers,
    new_categories,
    thousands_separated,
)
from privlib.audit.metadata import apply_schema, read_schema
from privlib.audit.spec import DEFAULT_MAX_EXPANSION, DEFAULT_MAX_INPUT_MB
from privlib.datasets import check_regular_file, frame_like, read_table
from privlib.errors import PrivlibError
from privlib.schema import NUMERIC, check_columns, check_same_columns, infer_kinds
from privlib.sdv_metadata import left_out_notes

__all__ = ["MIN_ROWS", "AuditInputs", "load_audit_inputs", "sha256", "file_labels"]

#: Fewest rows of training or synthetic data for which the audit computes anything.
MIN_ROWS = 20


@dataclass(frozen=True)
class AuditInputs:
    """The validated tables of an audit.

    Attributes
    ----------
    train : pandas.DataFrame
        The confidential training data.
    synthetic : dict of str to pandas.DataFrame
        The synthetic tables, labelled by file name (without extension); the first is the one the
        identity, attribute and membership sections assess.
    holdout : pandas.DataFrame or None
        Real records the generator never saw; ``None`` when absent or too small.
    population_size : int or None
        Size N of the population the training data was drawn from.
    keys, sensitive : list of str
        Key (quasi-identifying) and sensitive variables.
    files : dict of str to list of pathlib.Path
        The files each role was read from (for a DataFrame, a path-like name: its label).
    digests : dict of str to list of str
        SHA-256 of each file's bytes (for a DataFrame, of its rows' hashes).
    problem : str or None
        Why the inputs are too small to assess, or ``None`` when they can be assessed.
    notes : list of str
        Remarks about the inputs (e.g. a holdout set aside because it was too small).
    """

    train: pd.DataFrame
    synthetic: dict
    holdout: pd.DataFrame | None
    population_size: int | None
    keys: list
    sensitive: list
    files: dict
    digests: dict = field(default_factory=dict)
    problem: str | None = None
    notes: list = field(default_factory=list)

    @property
    def assessable(self) -> bool:
        """Whether the tables are large enough to compute any measure."""
        return self.problem is None

    @property
    def primary(self) -> pd.DataFrame:
        """The first synthetic table: the one the disclosure sections assess."""
        return next(iter(self.synthetic.values()))

    @property
    def primary_label(self) -> str:
        return next(iter(self.synthetic))


Source = Path | pd.DataFrame


def _as_sources(value, parameter: str) -> list[tuple[str, Source]]:
    """``(label, source)`` pairs: paths labelled by file name (numbered when repeated), DataFrames
    by their key in a dict, or by the parameter's name."""
    if value is None or (isinstance(value, (list, tuple, dict)) and not value):
        raise PrivlibError(f"`{parameter}` is required; give the path of a CSV file or a DataFrame.")
    if isinstance(value, dict):
        named: list[tuple[str | None, object]] = [(str(label), table) for label, table in value.items()]
    else:
        values = [value] if isinstance(value, (str, os.PathLike, pd.DataFrame)) else list(value)
        named = [(None, v) for v in values]
    sources: list[tuple[str, Source]] = []
    for i, (label, v) in enumerate(named):
        if isinstance(v, pd.DataFrame):
            sources.append((label or (parameter if len(named) == 1 else f"{parameter}_{i + 1}"), v))
        elif isinstance(v, (str, os.PathLike)) and str(v).strip():
            sources.append((label or "", Path(v)))
        else:
            raise PrivlibError(
                f"`{parameter}` must be a path to a CSV file or a DataFrame, got {type(v).__name__}."
            )
    stems = file_labels([Path(s.stem) if isinstance(s, Path) else Path(label) for label, s in sources])
    return [(label or stem, s) for (label, s), stem in zip(sources, stems)]


def file_labels(paths: list[Path]) -> list[str]:
    """One distinct label per synthetic file: its name, with a number added for repeats."""
    labels = []
    for path in paths:
        label, i = path.stem, 2
        while label in labels:
            label, i = f"{path.stem}_{i}", i + 1
        labels.append(label)
    return labels


def _check_like(train: pd.DataFrame, frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """Check ``frame`` has the training data's columns, numbers where it has numbers.

    :func:`privlib.datasets.read_table` with ``like=train`` already gave the categorical columns
    the training data's categories, so only the numeric columns are left to check (with a
    message about files rather than tables).
    """
    check_same_columns(train, frame, ("train", name))
    for column, kind in infer_kinds(train, name="train").items():
        values = frame[column]
        if kind == NUMERIC and not (
            pd.api.types.is_numeric_dtype(values) or pd.api.types.is_datetime64_any_dtype(values)
        ):
            present = values.dropna().astype(object)
            other = int(pd.to_numeric(present.astype(str), errors="coerce").isna().sum())
            grouped = thousands_separated(present)
            cause = (
                f" ({grouped} written with thousands separators, such as 1,234: write them without)"
                if grouped
                else ""
            )
            raise PrivlibError(
                f"column {column!r} holds numbers in `train` but {other} of its {len(present)} value(s) "
                f"in `{name}` are not numbers{cause}; give it the same type in both files."
            )
    return frame[list(train.columns)]


def _column_list(value, parameter: str, train: pd.DataFrame, schema=None) -> list:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return []
    names = []
    for name in [value] if isinstance(value, str) else list(value):
        if isinstance(name, str) and name not in train.columns and "," in name:
            names += [part.strip() for part in name.split(",") if part.strip()]  # "age,sex": two names
        else:
            names.append(name)
    for name in names:
        left_out = isinstance(name, str) and (schema or {}).get(name, {}).get("left_out")
        if left_out:  # a column of the file, which the schema takes out of the measures
            raise PrivlibError(
                f"`{parameter}` names {name!r}, which the schema file leaves out of every measure as "
                f"{left_out}; drop it from `{parameter}`, or give it a describing sdtype in the schema."
            )
    columns = check_columns(train, names, parameter, "train")
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise PrivlibError(f"`{parameter}` names {repeated} more than once; give each variable once.")
    return columns


def _too_small(*frames: pd.DataFrame) -> bool:
    """Whether a table has too few rows to judge whether its categories were recoded: a handful
    of rows shares no category with the training data by chance (the audit then says the
    tables are too small, see :data:`MIN_ROWS`)."""
    return any(len(frame) < MIN_ROWS for frame in frames)


@dataclass(frozen=True)
class _Limits:
    """The input limits of :func:`~privlib.audit.checks.check_input_size`."""

    max_input_mb: int = DEFAULT_MAX_INPUT_MB
    max_expansion: int = DEFAULT_MAX_EXPANSION


def _read(source: Source, label: str, limits: _Limits, like=None, schema=None) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        check_labels(source, label)
        check_names(source, label)
        check_whole_numbers(source, label)
        frame = frame_like(as_numbers(source), label, like=like)
    else:
        check_regular_file(source, label)
        # measured before the header is read: a header is read through the compression too
        check_input_size(source, label, max_input_mb=limits.max_input_mb, max_expansion=limits.max_expansion)
        check_header(source, label)
        try:
            frame = as_numbers(read_table(source, label, like=like))
        except MemoryError:
            raise PrivlibError(
                f"file {str(source)!r} ({label}) does not fit in memory once read; lower "
                f"--max-input-mb (max_input_mb, now {limits.max_input_mb:,}) so such files are refused "
                "before they are read, or audit a sample of the table."
            ) from None
        check_names(frame, label)
        check_whole_numbers(frame, label)
    if schema:
        frame = apply_schema(frame, schema, label)
    check_numbers(frame, label)
    return frame


def load_audit_inputs(
    *,
    train,
    synthetic,
    holdout=None,
    population_size=None,
    keys=None,
    sensitive=None,
    allow_new_categories: bool = False,
    schema=None,
    max_input_mb: int = DEFAULT_MAX_INPUT_MB,
    max_expansion: int = DEFAULT_MAX_EXPANSION,
) -> AuditInputs:
    """Read and check the files of an audit (see :mod:`privlib.audit.checks`).

    Parameters
    ----------
    train : str or path
        CSV file of the training data.
    synthetic : str, path or list of them
        One or several CSV files of synthetic data, with the training data's columns.
    holdout : str or path, optional
        CSV file of real records from the same population that the generator never saw.
    population_size : int, optional
        Size N of the population the training data was drawn from; at least the number of
        training rows.
    keys, sensitive : list of str, optional
        Key and sensitive variables (columns of the training data); the measures that need them
        are skipped when they are not given.
    allow_new_categories : bool, default False
        Accept a column whose categories look recoded (see
        :func:`privlib.audit.checks.new_categories`); new categories are reported either way.
    schema : str or path, optional
        A metadata file (:mod:`privlib.audit.metadata`) stating the kinds, categories and ranges
        of columns; every table is checked against it.
    max_input_mb, max_expansion : int, optional
        Input limits: most megabytes a file may hold once decompressed, and most times a
        compressed file may expand (:func:`privlib.audit.checks.check_input_size`).

    Returns
    -------
    AuditInputs
        With ``problem`` set (and nothing computed later) when the training data or a synthetic
        table has fewer than :data:`MIN_ROWS` rows.

    Raises
    ------
    PrivlibError
        For a missing or empty file, tables with different columns or column types, a key or
        sensitive variable that is not a column, a variable that is both, or a population size
        that is not an integer at least as large as the training data.
    """
    train_source = _as_sources(train, "train")
    if len(train_source) != 1:
        raise PrivlibError("`train` must be one CSV file or DataFrame, got several.")
    synthetic_sources = _as_sources(synthetic, "synthetic")
    holdout_source = _as_sources(holdout, "holdout") if holdout is not None else []
    if len(holdout_source) > 1:
        raise PrivlibError("`holdout` must be one CSV file or DataFrame, got several.")

    schema = read_schema(schema) if schema is not None else None
    limits = _Limits(max_input_mb, max_expansion)
    train_df = _read(train_source[0][1], "train", limits, schema=schema)
    synthetic_dfs, notes = {}, left_out_notes(schema)
    for label, source in synthetic_sources:
        name = f"synthetic ({_name_of(label, source)})"
        synthetic_dfs[label] = _check_like(
            train_df, _read(source, name, limits, like=train_df, schema=schema), name
        )
        notes += new_categories(
            train_df,
            synthetic_dfs[label],
            name,
            allow=allow_new_categories or _too_small(train_df, synthetic_dfs[label]),
        )
    digests = {
        "train": [_digest(train_source[0][1])],
        "synthetic": [_digest(source) for _, source in synthetic_sources],
        "holdout": [_digest(source) for _, source in holdout_source],
    }
    holdout_df = None
    if holdout_source:
        holdout_df = _check_like(
            train_df, _read(holdout_source[0][1], "holdout", limits, like=train_df, schema=schema), "holdout"
        )
        same = digests["holdout"][0] == digests["train"][0] or _same_file(
            holdout_source[0][1], train_source[0][1]
        )
        check_holdout(train_df, holdout_df, same_file=same)
        notes += new_categories(
            train_df, holdout_df, "holdout", allow=allow_new_categories or _too_small(train_df, holdout_df)
        )

    keys = _column_list(keys, "keys", train_df, schema)
    sensitive = _column_list(sensitive, "sensitive", train_df, schema)
    both = [c for c in sensitive if c in keys]
    if both:
        raise PrivlibError(
            f"{both} {'is' if len(both) == 1 else 'are'} given both as `keys` and as `sensitive`; "
            "a variable the adversary already knows cannot be the one they want to learn."
        )
    if population_size is not None:
        if isinstance(population_size, bool) or not float(population_size).is_integer():
            raise PrivlibError(
                f"`population_size` must be a whole number of people, got {population_size!r}."
            )
        population_size = int(population_size)
        if population_size <= len(train_df):
            raise PrivlibError(
                f"`population_size` ({population_size}) is not larger than the training data "
                f"({len(train_df)} rows); N is the size of the population the training data was "
                "drawn from, and the relative risk M needs N > n (at N = n everyone is a member)."
            )

    problem = None
    small = [("training data", len(train_df))] + [
        (f"synthetic data {label!r}", len(frame)) for label, frame in synthetic_dfs.items()
    ]
    too_small = [f"the {what} has {n} row(s)" for what, n in small if n < MIN_ROWS]
    if too_small:
        problem = "; ".join(too_small) + f" (at least {MIN_ROWS} are needed)"
    if holdout_df is not None and len(holdout_df) < MIN_ROWS:
        notes.append(f"The holdout has {len(holdout_df)} row(s), fewer than {MIN_ROWS}; it was set aside.")
        holdout_df = None

    files = {
        role: [Path(_name_of(label, source)) for label, source in sources]
        for role, sources in (
            ("train", train_source),
            ("synthetic", synthetic_sources),
            ("holdout", holdout_source),
        )
    }
    return AuditInputs(
        train=train_df,
        synthetic=synthetic_dfs,
        holdout=holdout_df,
        population_size=population_size,
        keys=keys,
        sensitive=sensitive,
        files=files,
        digests=digests,
        problem=problem,
        notes=notes,
    )


def _name_of(label: str, source: Source) -> str:
    return source.name if isinstance(source, Path) else label


def _same_file(a: Source, b: Source) -> bool:
    return isinstance(a, Path) and isinstance(b, Path) and a.resolve() == b.resolve()


def _digest(source: Source) -> str:
    """SHA-256 of a file's bytes, or of a DataFrame's column names and row hashes."""
    if isinstance(source, Path):
        return sha256(source)
    digest = hashlib.sha256("\x1f".join(map(str, source.columns)).encode("utf-8"))
    digest.update(pd.util.hash_pandas_object(source, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def sha256(path) -> str:
    """SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
