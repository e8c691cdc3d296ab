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

from privlib.audit.checks import check_header, check_holdout, check_numbers, new_categories
from privlib.audit.metadata import apply_schema, read_schema
from privlib.datasets import read_table
from privlib.errors import PrivlibError
from privlib.schema import NUMERIC, check_columns, check_same_columns, infer_kinds

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
        The files each role was read from.
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


def _as_paths(value, parameter: str) -> list[Path]:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        raise PrivlibError(f"`{parameter}` is required; give the path of a CSV file.")
    values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
    for v in values:
        if not isinstance(v, (str, os.PathLike)) or not str(v).strip():
            raise PrivlibError(f"`{parameter}` must be a path to a CSV file, got {v!r}.")
    return [Path(v) for v in values]


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
            raise PrivlibError(
                f"column {column!r} holds numbers in `train` but {other} of its {len(present)} value(s) "
                f"in `{name}` are not numbers; give it the same type in both files."
            )
    return frame[list(train.columns)]


def _column_list(value, parameter: str, train: pd.DataFrame) -> list:
    if value is None or (isinstance(value, (list, tuple)) and not value):
        return []
    names = []
    for name in [value] if isinstance(value, str) else list(value):
        if isinstance(name, str) and name not in train.columns and "," in name:
            names += [part.strip() for part in name.split(",") if part.strip()]  # "age,sex": two names
        else:
            names.append(name)
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


def _read(path: Path, label: str, like=None, schema=None) -> pd.DataFrame:
    check_header(path, label)
    frame = read_table(path, label, like=like)
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
    train_path = _as_paths(train, "train")
    if len(train_path) != 1:
        raise PrivlibError("`train` must be one CSV file, got several.")
    synthetic_paths = _as_paths(synthetic, "synthetic")
    holdout_path = _as_paths(holdout, "holdout") if holdout is not None else []
    if len(holdout_path) > 1:
        raise PrivlibError("`holdout` must be one CSV file, got several.")

    schema = read_schema(schema) if schema is not None else None
    train_df = _read(train_path[0], "train", schema=schema)
    synthetic_dfs, notes = {}, []
    for label, path in zip(file_labels(synthetic_paths), synthetic_paths):
        name = f"synthetic ({path.name})"
        synthetic_dfs[label] = _check_like(train_df, _read(path, name, like=train_df, schema=schema), name)
        notes += new_categories(train_df, synthetic_dfs[label], name,
                                allow=allow_new_categories or _too_small(train_df, synthetic_dfs[label]))
    holdout_df = None
    if holdout_path:
        holdout_df = _check_like(train_df, _read(holdout_path[0], "holdout", like=train_df, schema=schema), "holdout")
        same = holdout_path[0].resolve() == train_path[0].resolve() or sha256(holdout_path[0]) == sha256(train_path[0])
        check_holdout(train_df, holdout_df, same_file=same)
        notes += new_categories(train_df, holdout_df, "holdout",
                                allow=allow_new_categories or _too_small(train_df, holdout_df))

    keys = _column_list(keys, "keys", train_df)
    sensitive = _column_list(sensitive, "sensitive", train_df)
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
        notes.append(
            f"The holdout has {len(holdout_df)} row(s), fewer than {MIN_ROWS}; it was set aside."
        )
        holdout_df = None

    files = {"train": train_path, "synthetic": synthetic_paths, "holdout": holdout_path}
    return AuditInputs(
        train=train_df,
        synthetic=synthetic_dfs,
        holdout=holdout_df,
        population_size=population_size,
        keys=keys,
        sensitive=sensitive,
        files=files,
        problem=problem,
        notes=notes,
    )


def sha256(path) -> str:
    """SHA-256 of a file's bytes, as hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
