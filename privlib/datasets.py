"""The bundled real datasets, and reading a user's own tables.

Four person-level datasets ship in the repository's ``data/`` folder, each with a data card
(``data/<name>/README.md``): ``adult``, ``ontario_covid19``, ``acs`` and ``ce``.
:func:`load_dataset` returns one as a DataFrame with proper types; :func:`dataset_info` returns
what the course and the reports need to know about it (key and sensitive variables, population
size). :func:`read_table` reads a user's CSV or Parquet file with the same typing rules, and
:func:`load_for_notebook` is the one call a notebook's parameters cell leads to.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import lzma
import os
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privlib.errors import PrivlibError
from privlib.resources import resource_path
from privlib.schema import DEFAULT_MAX_CATEGORIES, check_frame, coerce_kinds, infer_kinds

ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
# Education levels in the order of Adult's own education-num (1 = Preschool ... 16 = Doctorate).
ADULT_EDUCATION_ORDER = [
    "Preschool",
    "1st-4th",
    "5th-6th",
    "7th-8th",
    "9th",
    "10th",
    "11th",
    "12th",
    "HS-grad",
    "Some-college",
    "Assoc-voc",
    "Assoc-acdm",
    "Bachelors",
    "Masters",
    "Prof-school",
    "Doctorate",
]
ONTARIO_AGE_ORDER = ["<20", "20s", "30s", "40s", "50s", "60s", "70s", "80s", "90s"]
ONTARIO_FILE = "conposcovidloc_2020-04-28.csv"
ONTARIO_DROPPED = [
    "Row_ID",
    "Reporting_PHU_Address",
    "Reporting_PHU_City",
    "Reporting_PHU_Postal_Code",
    "Reporting_PHU_Website",
    "Reporting_PHU_Latitude",
    "Reporting_PHU_Longitude",
]


@dataclass(frozen=True)
class DatasetInfo:
    """What the kit knows about a dataset.

    Attributes
    ----------
    name : str
        Short name used by :func:`load_dataset`.
    title : str
        Human-readable title.
    keys : list of str
        Quasi-identifiers an adversary plausibly knows (the course's default key variables).
    sensitive : list of str
        Variables an adversary wants to learn (the default targets).
    population_size : int or None
        Size N of the population the rows were drawn from, when known.
    synthesized : list of str
        Variables the course synthesizes for partially synthetic data (the rest are kept).
    source, licence : str
        Provenance and terms of use (see the data card).
    card : pathlib.Path or None
        Path to the data card.
    """

    name: str
    title: str
    keys: list = field(default_factory=list)
    sensitive: list = field(default_factory=list)
    population_size: int | None = None
    synthesized: list = field(default_factory=list)
    source: str = ""
    licence: str = ""
    card: Path | None = None


def data_dir() -> Path:
    """Folder of the bundled datasets: ``$PRIVLIB_DATA`` if set, else the one the kit ships."""
    return resource_path("data")


_INFO: dict[str, dict[str, Any]] = {
    "adult": dict(
        title="UCI Adult (1994 US Census extract)",
        keys=["age", "sex", "race", "marital-status", "native-country"],
        sensitive=["income"],
        population_size=48842,
        synthesized=["workclass", "occupation", "capital-gain", "capital-loss", "income"],
        source="UCI Machine Learning Repository, Adult (Becker & Kohavi 1996), doi:10.24432/C5XW20",
        licence="CC BY 4.0",
    ),
    "ontario_covid19": dict(
        title="Confirmed COVID-19 cases in Ontario (snapshot of 2020-04-28)",
        keys=["Age_Group", "Client_Gender", "Reporting_PHU"],
        sensitive=["Outcome1"],
        population_size=15381,
        synthesized=["Accurate_Episode_Date", "Case_AcquisitionInfo", "Outcome1"],
        source="Government of Ontario open data, Confirmed positive cases of COVID-19 in Ontario",
        licence="Open Government Licence - Ontario",
    ),
    "acs": dict(
        title="American Community Survey 2012 sample (Hu's Data Confidentiality course)",
        keys=["SEX", "RACE", "MAR"],
        sensitive=["DIS", "HICOV"],
        population_size=None,
        synthesized=["LANX", "WAOB", "DIS", "HICOV"],
        source="U.S. Census Bureau ACS 2012 public-use microdata, sample from J. Hu's course",
        licence="public domain (U.S. Census Bureau public-use data)",
    ),
    "ce": dict(
        title="Consumer Expenditure Survey 2017 Q1 sample (Hu's Data Confidentiality course)",
        keys=["Income", "UrbanRural", "Race"],
        sensitive=["Expenditure"],
        population_size=None,
        synthesized=["Expenditure"],
        source="U.S. BLS Consumer Expenditure Interview Survey public-use microdata, from J. Hu's course",
        licence="public domain (U.S. BLS public-use data)",
    ),
}

DATASETS = tuple(_INFO)


def _check_name(name: str) -> str:
    if name not in _INFO:
        raise PrivlibError(
            f"unknown dataset {name!r}; the bundled datasets are {list(DATASETS)}, "
            "or pass a path to your own CSV file."
        )
    return name


def dataset_info(name: str) -> DatasetInfo:
    """Metadata of a bundled dataset (keys, sensitive variables, population size, provenance)."""
    _check_name(name)
    card = data_dir() / name / "README.md"
    return DatasetInfo(name=name, card=card if card.exists() else None, **_INFO[name])


def _read_adult(path: Path, skip_first_line: bool) -> pd.DataFrame:
    df = pd.read_csv(
        path,
        header=None,
        names=ADULT_COLUMNS,
        sep=",",
        skipinitialspace=True,
        na_values=["?"],
        skiprows=1 if skip_first_line else 0,
        skip_blank_lines=True,
    )
    df["income"] = df["income"].str.rstrip(".")
    return df


def _load_adult(part: str) -> pd.DataFrame:
    folder = data_dir() / "adult"
    pieces = []
    if part in ("all", "train"):
        pieces.append(_read_adult(folder / "adult.data", skip_first_line=False))
    if part in ("all", "test"):
        pieces.append(_read_adult(folder / "adult.test", skip_first_line=True))
    df = pd.concat(pieces, ignore_index=True)
    for column in ADULT_COLUMNS:
        if column == "education":
            df[column] = pd.Categorical(df[column], categories=ADULT_EDUCATION_ORDER, ordered=True)
        elif df[column].dtype.kind in "iuf":
            df[column] = df[column].astype("int64")
        else:
            df[column] = df[column].astype("category")
    return df


def _load_ontario() -> pd.DataFrame:
    df = pd.read_csv(data_dir() / "ontario_covid19" / ONTARIO_FILE)
    df = df.drop(columns=ONTARIO_DROPPED)
    df["Accurate_Episode_Date"] = pd.to_datetime(df["Accurate_Episode_Date"], format="%Y-%m-%d")
    age = df["Age_Group"].where(df["Age_Group"] != "Unknown")
    df["Age_Group"] = pd.Categorical(age, categories=ONTARIO_AGE_ORDER, ordered=True)
    gender = df["Client_Gender"].where(~df["Client_Gender"].isin(["UNKNOWN", "(blank)"]))
    df["Client_Gender"] = gender.astype("category")
    for column in ["Case_AcquisitionInfo", "Outcome1", "Reporting_PHU"]:
        df[column] = df[column].astype("category")
    return df


def _load_codes(folder: str, file: str, categorical: list) -> pd.DataFrame:
    df = pd.read_csv(data_dir() / folder / file)
    for column in categorical:
        df[column] = df[column].astype("int64").astype("category")
    return df


def load_dataset(name: str, part: str = "all", *, with_info: bool = False):
    """Load a bundled dataset as a typed DataFrame.

    Parameters
    ----------
    name : {"adult", "ontario_covid19", "acs", "ce"}
        Which dataset.
    part : {"all", "train", "test"}, default "all"
        Adult only: UCI's ``adult.data`` ("train", 32,561 rows), ``adult.test`` ("test", 16,281
        rows), or both together ("all", 48,842 rows: the population of the membership lessons).
    with_info : bool, default False
        Also return the :class:`DatasetInfo`.

    Returns
    -------
    pandas.DataFrame, or (DataFrame, DatasetInfo) with ``with_info=True``
        Categorical variables are pandas categoricals (ordered where the levels have an order),
        numbers are int64 or float64, dates datetime64, missing values NaN.

    Examples
    --------
    >>> import privlib as pl
    >>> pl.load_dataset("ce").shape
    (994, 4)
    """
    _check_name(name)
    if part not in ("all", "train", "test"):
        raise PrivlibError(f"`part` must be 'all', 'train' or 'test', got {part!r}.")
    if part != "all" and name != "adult":
        raise PrivlibError(f"`part` applies to 'adult' only; {name!r} has a single file.")
    if name == "adult":
        df = _load_adult(part)
    elif name == "ontario_covid19":
        df = _load_ontario()
    elif name == "acs":
        df = _load_codes(
            "acs", "ACSdata.csv", ["SEX", "RACE", "MAR", "LANX", "WAOB", "DIS", "HICOV", "MIG", "SCH", "HISP"]
        )
    else:
        df = _load_codes("ce", "CEdata.csv", ["UrbanRural", "Race"])
        df["Income"] = df["Income"].astype("int64")
        df["Expenditure"] = df["Expenditure"].astype("float64")
    return (df, dataset_info(name)) if with_info else df


#: File name endings read as Parquet by :func:`read_table`; every other file is read as CSV.
PARQUET_SUFFIXES = (".parquet", ".pq")

#: Longest header line read (in characters): a file without a line break in its first megabyte
#: is not a table, and reading on would never end on ``/dev/zero``.
HEADER_LIMIT = 1 << 20

#: Errors of the decompressors, raised for a file whose name promises a compression it lacks.
_DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)


def check_regular_file(path, label: str, kind: str = "CSV file") -> Path:
    """``path`` after checking it is a regular file (a link to one is followed), without reading it.

    A folder, a named pipe (which would block the read forever), a device or a socket is refused
    with a :class:`~privlib.errors.PrivlibError` that says which of these it is.
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise PrivlibError(
            f"file {str(path)!r} does not exist; check the path passed as `{label}`."
        ) from None
    except OSError as exc:
        raise PrivlibError(
            f"file {str(path)!r} (`{label}`) cannot be read ({exc.strerror or exc}); check the path."
        ) from None
    if stat.S_ISREG(mode):
        return path
    if stat.S_ISDIR(mode):
        raise PrivlibError(f"{str(path)!r} (`{label}`) is a folder; give the path of a {kind} in it.")
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    raise PrivlibError(
        f"{str(path)!r} (`{label}`) is {what}, not a regular file; save the table to a file and "
        "give its path."
    )


def _open_text(path: Path):
    """A text stream of the table in ``path``, decompressed as its name says (as pandas does)."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    if suffix == ".bz2":
        return bz2.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    if suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    if suffix == ".zip":
        archive = zipfile.ZipFile(path)
        members = archive.namelist()
        if len(members) != 1:
            archive.close()
            raise PrivlibError(
                f"file {str(path)!r} is a ZIP archive of {len(members)} files; it must hold one table."
            )
        return io.TextIOWrapper(archive.open(members[0]), encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def header_line(path, label: str) -> str:
    """The first line of the table in ``path`` (decompressed), read at most :data:`HEADER_LIMIT`
    characters far; a longer first line is refused."""
    path = check_regular_file(path, label)
    try:
        with _open_text(path) as fh:
            line = fh.readline(HEADER_LIMIT)
    except _DECOMPRESSION_ERRORS as exc:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) cannot be read as its name says ({type(exc).__name__}); "
            "check the file or its name's ending (.gz, .bz2, .xz, .zip)."
        ) from None
    if len(line) >= HEADER_LIMIT and not line.endswith("\n"):
        raise PrivlibError(
            f"file {str(path)!r} ({label}) has no line break in its first {HEADER_LIMIT:,} "
            "characters, so it is not a table; give a CSV file."
        )
    return line


def read_table(path, name: str | None = None, *, like: pd.DataFrame | None = None) -> pd.DataFrame:
    """Read a user's CSV or Parquet file with the kit's typing rules.

    A file whose name ends in ``.parquet`` or ``.pq`` is read as Parquet (needs ``pyarrow``:
    ``pip install privlib[parquet]``), any other as CSV.

    CSV: the delimiter (comma, semicolon, tab or vertical bar) is sniffed from the header line;
    text columns and integer columns with at most 10 distinct values (survey codes) become
    categoricals, and text columns written as ISO dates become datetimes (see
    :func:`privlib.schema.infer_kinds`). Parquet stores its types, so they are kept as they
    are (categorical, integer, float, datetime columns); only text columns become categoricals.
    With ``like``, columns take the kinds and categories of that table instead, so a synthetic
    file is read the same way as its training data.

    Raises
    ------
    PrivlibError
        If the file does not exist, is empty, or cannot be parsed (naming the file), or if it
        is Parquet and ``pyarrow`` is not installed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> table = pd.DataFrame({"code": [1, 2], "income": [30.5, 41.0], "sex": ["F", "M"]})
    >>> table.to_csv(folder / "t.csv", index=False)
    >>> read_table(folder / "t.csv").dtypes.astype(str).tolist()  # two integer codes: categorical
    ['category', 'float64', 'category']
    """
    path = Path(path)
    label = name or path.name
    check_regular_file(path, label)
    parquet = path.suffix.lower() in PARQUET_SUFFIXES
    df = _read_parquet(path, label) if parquet else _read_csv(path, label)
    if parquet:
        return frame_like(df, label, like=like)
    check_frame(df, label)
    if like is not None:
        return _typed_like(df, label, like)
    df = _parse_dates(df, label)
    return coerce_kinds(df, infer_kinds(df, max_categories=DEFAULT_MAX_CATEGORIES, name=label))


def frame_like(df: pd.DataFrame, name: str, *, like: pd.DataFrame | None = None) -> pd.DataFrame:
    """A table that stores its types (a Parquet file, a DataFrame) typed by the kit's rules: its
    types are kept, only text columns become categoricals; with ``like``, the columns take the
    kinds and categories of that table, as :func:`read_table` does."""
    check_frame(df, name)
    if like is not None:
        return _typed_like(df, name, like)
    text = [
        c for c in df.columns if pd.api.types.is_object_dtype(df[c]) or pd.api.types.is_string_dtype(df[c])
    ]
    return coerce_kinds(df, infer_kinds(df[text], name=name))


def _typed_like(df: pd.DataFrame, label: str, like: pd.DataFrame) -> pd.DataFrame:
    kinds = infer_kinds(like, name="reference")
    shared = {c: k for c, k in kinds.items() if c in df.columns}
    df = coerce_kinds(df, shared)
    for column in shared:
        reference_dtype = like[column].dtype
        if isinstance(reference_dtype, pd.CategoricalDtype):
            _check_booleans(df[column], reference_dtype, column, label)
            df[column] = _as_categories_of(df[column], reference_dtype)
        elif pd.api.types.is_datetime64_any_dtype(like[column].dtype):
            parsed = pd.to_datetime(df[column], errors="coerce")
            unreadable = int((parsed.isna() & df[column].notna()).sum())
            if unreadable:
                raise PrivlibError(
                    f"column {column!r} of `{label}` holds {unreadable} value(s) that are not "
                    "dates (the reference data has dates there); write them as YYYY-MM-DD or "
                    "leave them empty."
                )
            df[column] = parsed
    return df


def header_names(path, label: str) -> list[str]:
    """The column names in the header line of a CSV file (decompressed, delimiter sniffed), as
    written; ``[]`` for a Parquet file, whose names its schema holds."""
    if Path(path).suffix.lower() in PARQUET_SUFFIXES:
        check_regular_file(path, label)
        return []
    line = header_line(path, label)
    return next(csv.reader([line], delimiter=_delimiter(line)), [])


def _delimiter(header: str) -> str:
    """The delimiter of a text table, sniffed from its (decompressed) header line: comma (the
    default), semicolon (European CSV), tab (TSV) or vertical bar."""
    try:
        return csv.Sniffer().sniff(header, delimiters=",;\t|").delimiter
    except csv.Error:
        return ","


def _read_csv(path: Path, label: str) -> pd.DataFrame:
    try:
        df = pd.read_csv(path, sep=_delimiter(header_line(path, label)))
    except pd.errors.EmptyDataError:
        raise PrivlibError(f"file {str(path)!r} ({label}) is empty; it needs a header and rows.") from None
    except _DECOMPRESSION_ERRORS as exc:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) cannot be read as its name says ({type(exc).__name__}); "
            "check the file or its name's ending (.gz, .bz2, .xz, .zip)."
        ) from None
    except UnicodeDecodeError as exc:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) is not UTF-8 text ({exc.reason}); save it as UTF-8."
        ) from None
    except pd.errors.ParserError as exc:  # the tokenizer names lines and field counts, not values
        raise PrivlibError(f"file {str(path)!r} ({label}) is not a readable CSV: {exc}") from None
    unnamed = [c for c in df.columns if str(c).startswith("Unnamed: ")]
    if unnamed and unnamed == [df.columns[0]] and df[unnamed[0]].is_unique:
        df = df.drop(columns=unnamed)  # a row-name column written by R or pandas
    return df


def _read_parquet(path: Path, label: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401 - only to give a clear message when it is missing
    except ImportError:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) is Parquet, which needs pyarrow: pip install "
            "'privlib[parquet]' (or pyarrow), or save the table as CSV."
        ) from None
    import pyarrow.parquet

    try:
        schema = pyarrow.parquet.read_schema(path)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        raise PrivlibError(
            f"file {str(path)!r} ({label}) is not a readable Parquet file ({type(exc).__name__}); "
            "check the file, or give a CSV file a name that does not end in .parquet."
        ) from None
    decimals = _parquet_numbers(schema, label)
    try:
        df = pd.read_parquet(path, engine="pyarrow")
    except (OSError, ValueError) as exc:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) is not a readable Parquet file ({type(exc).__name__}); "
            "check the file, or give a CSV file a name that does not end in .parquet."
        ) from None
    for column in decimals:  # exact decimals (money) are numbers to every measure of the kit
        df[column] = df[column].astype("float64")
    return df


#: Parquet types the kit cannot compare (bytes, nested values, times of day); each is refused by name.
_PARQUET_REFUSED = (
    "binary",
    "large_binary",
    "fixed_size_binary",
    "binary_view",
    "list",
    "large_list",
    "fixed_size_list",
    "list_view",
    "large_list_view",
    "struct",
    "map",
    "union",
    "time",
    "interval",
)


def _parquet_numbers(schema, label: str) -> list[str]:
    """The decimal columns of a Parquet schema, after refusing the columns of a type the kit
    cannot compare (named by their type, never by a value)."""
    import pyarrow.types

    decimals = []
    for column in schema:
        kind = column.type.value_type if pyarrow.types.is_dictionary(column.type) else column.type
        if pyarrow.types.is_decimal(kind):
            decimals.append(column.name)
            continue
        refused = [
            name for name in _PARQUET_REFUSED if getattr(pyarrow.types, f"is_{name}", lambda _: False)(kind)
        ]
        if refused:
            raise PrivlibError(
                f"column {column.name!r} of `{label}` has Parquet type {refused[0]} ({str(kind)[:60]}), "
                "which the kit cannot compare; convert it to numbers, dates or labels, or drop it."
            )
    return decimals


def _parse_dates(df: pd.DataFrame, label: str) -> pd.DataFrame:
    """Turn text columns written as ISO dates (2020-04-28, optionally with a time) into datetimes;
    refuse a column of them holding dates that do not exist (2020-13-45), which would otherwise
    become missing without a word."""
    out = df.copy()
    for column in out.columns:
        values = out[column].dropna()
        if values.empty or not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        if values.astype(str).str.fullmatch(r"\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2})?)?").all():
            parsed = pd.to_datetime(out[column], errors="coerce", format="ISO8601")
            impossible = int((parsed.isna() & out[column].notna()).sum())
            if impossible:
                raise PrivlibError(
                    f"column {column!r} of `{label}` holds {impossible} value(s) written as dates that "
                    "do not exist (a month above 12 or a day past the month's end); correct them or "
                    "leave them empty."
                )
            out[column] = parsed
    return out


def _type_names(values) -> str:
    return "/".join(
        sorted(
            {
                "true/false"
                if isinstance(v, (bool, np.bool_))
                else "number"
                if isinstance(v, (int, float, np.number))
                else "text"
                for v in values
            }
        )
    )


def _is_boolean(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def _check_booleans(series: pd.Series, dtype: pd.CategoricalDtype, column, label: str) -> None:
    """Refuse true/false where the reference data holds other categories (0/1, say), or the
    reverse: True equals 1 to Python, so the values would fall between the categories and become
    missing without a word."""
    reference = all(_is_boolean(c) for c in dtype.categories)
    values = series.dropna()
    boolean = values.map(_is_boolean).astype(bool) if len(values) else pd.Series(dtype=bool)
    mismatched = int((~boolean).sum()) if reference else int(boolean.sum())
    if mismatched:
        raise PrivlibError(
            f"column {column!r} of `{label}` holds {mismatched} value(s) of type "
            f"{_type_names(values[~boolean if reference else boolean].unique())} where the reference "
            f"data holds {_type_names(dtype.categories)}; write the column the same way in both files "
            "(e.g. true/false in both, or 0/1 in both)."
        )


def _as_categories_of(series: pd.Series, dtype: pd.CategoricalDtype) -> pd.Series:
    """Cast to ``dtype``'s categories, matching labels by value or by their text."""
    cats = list(dtype.categories)
    by_text = {str(c): c for c in cats}
    values = series.astype(object).map(lambda v: v if v in cats or pd.isna(v) else by_text.get(str(v), v))
    extra = [v for v in pd.unique(values.dropna()) if v not in cats]
    full = pd.CategoricalDtype(cats + sorted(extra, key=str), ordered=dtype.ordered)
    return values.astype(full)


def load_for_notebook(dataset: str):
    """Resolve a notebook's ``dataset`` parameter: a bundled name or a path to a CSV file.

    Returns ``(frame, info)``. For a CSV file, ``info`` lists every column as a key and the last
    column as the sensitive variable unless the notebook's own parameters say otherwise.
    """
    if dataset in _INFO:
        return load_dataset(dataset, with_info=True)
    path = Path(dataset)
    frame = read_table(path, "dataset")
    columns = list(frame.columns)
    info = DatasetInfo(
        name=path.stem,
        title=path.name,
        keys=columns[:-1][:3],
        sensitive=columns[-1:],
        population_size=None,
        synthesized=columns[3:],
        source=str(path),
        licence="user data",
    )
    return frame, info


def sample_split(df: pd.DataFrame, n_train: int, n_holdout: int = 0, *, random_state=None):
    """Draw disjoint training and holdout samples without replacement, seeded.

    Returns ``(train, holdout)`` with fresh 0..n-1 indexes. Raises if the table is too small.
    """
    for name, value, least in (("n_train", n_train, 1), ("n_holdout", n_holdout, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
            raise PrivlibError(f"`{name}` must be a whole number >= {least}, got {value!r}.")
    if n_train + n_holdout > len(df):
        raise PrivlibError(
            f"cannot draw {n_train} training and {n_holdout} holdout rows from a table of "
            f"{len(df)} rows; ask for fewer."
        )
    rng = np.random.default_rng(random_state)
    order = rng.permutation(len(df))
    train = df.iloc[order[:n_train]].reset_index(drop=True)
    holdout = df.iloc[order[n_train : n_train + n_holdout]].reset_index(drop=True)
    return train, holdout
