"""Checks of an audit's tables against each other, before any measure runs.

Each check either refuses the inputs with a :class:`~privlib.errors.PrivlibError` (one line that
names the file, the column and a count, never a value of the data) or returns a note for the
report's first page. They catch inputs that would make a release look safer than it is:

* a file larger than the input limits, or a compressed file that expands beyond them (a
  decompression bomb), found by decompressing it as a stream before anything parses it;
* a header that names a column twice (pandas would silently rename one ``X.1``);
* column labels that are not distinct texts (a DataFrame's MultiIndex, NaN or number labels), and
  whole numbers beyond the 64-bit range that no measure can compute with;
* numbers that are infinite or so large that a range overflows (``1e308``), which would make every
  Gower distance 0 or undefined;
* a holdout that is the training data, or overlaps it beyond chance: the membership measures
  compare members with non-members and would see no difference;
* categories of the synthetic data or holdout that the training data lacks. A few are reported
  (with counts). A column whose categories look *recoded* (no category in common with the
  training data, or categories in common only after ignoring case and surrounding spaces) is
  refused unless the custodian says the new categories are real (``allow_new_categories``):
  with ``sex`` lowercased, CAP and replicated uniques would find nothing and read as safe.
"""

from __future__ import annotations

import bz2
import decimal
import gzip
import lzma
import math
import os
import re
import tarfile
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from privlib.datasets import header_names
from privlib.errors import PrivlibError
from privlib.schema import NUMERIC, infer_kinds

__all__ = [
    "ABSURD",
    "EXPANSION_FLOOR_MB",
    "OVERLAP_MARGIN",
    "check_header",
    "check_input_size",
    "check_labels",
    "check_names",
    "as_numbers",
    "check_numbers",
    "check_holdout",
    "new_categories",
    "thousands_separated",
]

#: Numbers at least this large in absolute value are refused: a range of two of them overflows.
ABSURD = 1e100

#: A holdout overlaps the training data when the share of its rows that equal a training row
#: exceeds the share of training rows that equal another training row (what chance gives in data
#: of this kind) by more than this margin and by more than three standard errors of the
#: difference. A kit rule, stated in the refusal.
OVERLAP_MARGIN = 0.05


#: Megabytes a compressed file may expand to whatever its ratio: a small table that compresses
#: very well (a column of zeros) is no threat below it.
EXPANSION_FLOOR_MB = 64

#: Bytes decompressed per step of the streamed size check (its memory stays near this).
_CHUNK = 1 << 20

_MB = 1_000_000

#: Bytes a value of a Parquet column is counted for when the table is estimated from its footer:
#: 16 for a number or date (pandas holds one 64-bit value per cell, and Arrow another while it
#: converts), 64 for a text or bytes value (a pointer plus a small Python string object, about
#: 50 bytes before its characters). Counted per row, not from the stored bytes, because a column
#: of one repeated value is stored in a few bytes (dictionary and run-length encoding) whatever
#: its length.
_PARQUET_CELL_BYTES = {"fixed": 16, "text": 64}

#: ZIP compression methods Python reads (stored, deflate, bzip2, lzma); others (AES, method 99;
#: deflate64; ...) are refused by name.
_ZIP_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA}

#: Name endings pandas reads as a tar archive holding one table (as ``pandas.read_csv`` infers).
_TAR_ENDINGS = (".tar", ".tar.gz", ".tar.bz2", ".tar.xz")

_FIX = (
    "if it is a real table, raise the limit (--max-input-mb, --max-expansion, or the same "
    "settings of a params file or AuditSpec)"
)


def _corrupt_errors() -> tuple[type[Exception], ...]:
    """What a stream that is not compressed as its name says raises, by format."""
    errors: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile)
    try:
        import zstandard
    except ImportError:
        return errors
    return (*errors, zstandard.ZstdError)


_CORRUPT = _corrupt_errors()
_CORRUPT_TAR: tuple[type[Exception], ...] = (*_CORRUPT, tarfile.TarError)


def _zip_member(path: Path):
    """The one member of a ZIP archive, opened, after refusing an archive of several files, an
    encrypted one, or one compressed by a method Python cannot read."""
    archive = zipfile.ZipFile(path)
    members = archive.infolist()
    refusal = None
    if len(members) != 1:
        refusal = f"is a ZIP archive of {len(members)} files; it must hold one table"
    elif members[0].flag_bits & 0x1:
        refusal = "is an encrypted ZIP archive; give the table unencrypted (and send it safely)"
    elif members[0].compress_type not in _ZIP_METHODS:
        refusal = (
            f"is a ZIP archive compressed by method {members[0].compress_type}, which cannot be "
            "read; compress it with plain zip (deflate), gzip or xz"
        )
    if refusal:
        archive.close()
        raise PrivlibError(f"file {str(path)!r} {refusal}.")
    return archive.open(members[0])


def _zstd(path: Path):
    """A stream of a Zstandard file's decompressed bytes, or a refusal when ``zstandard`` (which
    pandas needs to read it) is missing."""
    try:
        import zstandard
    except ImportError:
        raise PrivlibError(
            f"file {str(path)!r} is compressed with Zstandard, which needs the zstandard package: "
            "pip install zstandard, or decompress it (zstd -d) or compress it with gzip."
        ) from None
    return zstandard.ZstdDecompressor().stream_reader(open(path, "rb"), closefd=True)


def _decompressed(path: Path):
    """A binary stream of the file's decompressed bytes, by its name's ending (as pandas reads it),
    or None for a file that is not compressed."""
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rb")
    if suffix == ".bz2":
        return bz2.open(path, "rb")
    if suffix == ".xz":
        return lzma.open(path, "rb")
    if suffix == ".zip":
        return _zip_member(path)
    if suffix == ".zst":
        return _zstd(path)
    return None


def _parquet_size(path: Path) -> tuple[int, int, int, int] | None:
    """From a Parquet file's footer: its rows, its columns, the bytes its table takes once read
    (rows times :data:`_PARQUET_CELL_BYTES` per column) and the bytes its pages take once
    decompressed; None when it cannot be told (no pyarrow, or not Parquet: the reader refuses it
    then)."""
    try:
        import pyarrow.parquet as pq
        import pyarrow.types as pt
    except ImportError:
        return None
    try:
        metadata = pq.read_metadata(path)
        schema = metadata.schema.to_arrow_schema()
    except (OSError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
        return None
    per_row = 0
    for column in schema:
        kind = column.type.value_type if pt.is_dictionary(column.type) else column.type
        fixed = pt.is_integer(kind) or pt.is_floating(kind) or pt.is_temporal(kind) or pt.is_boolean(kind)
        per_row += _PARQUET_CELL_BYTES["fixed" if fixed else "text"]
    pages = sum(metadata.row_group(i).total_byte_size for i in range(metadata.num_row_groups))
    return metadata.num_rows, len(schema), max(metadata.num_rows * per_row, pages), pages


def _tar_member_bytes(path: Path) -> int | None:
    """The size of the one table in a tar archive (as its header states it, which for a sparse
    file is the size it expands to), or None for a file that is not a tar archive; refuses an
    archive that holds anything but one regular file. Reads two headers at most: an archive of
    millions of empty entries costs no memory."""
    if not path.name.lower().endswith(_TAR_ENDINGS):
        return None
    try:
        with tarfile.open(path, "r:*") as archive:
            first = archive.next()
            second = archive.next() if first is not None else None
    except _CORRUPT_TAR:
        return None  # not a tar archive as its name says: the reader names that problem
    if first is None or second is not None or not first.isfile():
        held = "no file" if first is None else "several entries" if second is not None else "no regular file"
        raise PrivlibError(
            f"file {str(path)!r} is a tar archive of {held}; it must hold one table (one regular "
            "file): extract the table and give it, or compress it with gzip."
        )
    return first.size


def check_input_size(path, label: str, *, max_input_mb: int, max_expansion: int) -> None:
    """Refuse a file that holds more than ``max_input_mb`` megabytes once decompressed, or a
    compressed one that expands more than ``max_expansion`` times (beyond
    :data:`EXPANSION_FLOOR_MB`), before anything parses it.

    A compressed file (gzip, bz2, xz, ZIP, Zstandard) is decompressed as a stream, a megabyte at a
    time, and the count stops at the first limit passed: a decompression bomb is refused in the
    time and memory of reading its first hundred megabytes, never of its expansion. A tar archive
    is measured by the size its header gives its one member (a sparse file of gigabytes takes a
    few kilobytes of archive), a Parquet file by its rows and columns (from its footer), whatever
    its encoding."""
    path = Path(path)
    stored = os.stat(path).st_size
    if stored > max_input_mb * _MB:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) holds {stored / _MB:,.0f} MB, more than the input limit "
            f"of {max_input_mb:,} MB; {_FIX}."
        )
    if path.suffix.lower() in (".parquet", ".pq"):
        size = _parquet_size(path)
        if size is None:
            return
        rows, columns, read, pages = size
        # the ratio is the pages' decompression; the table read from them is held to the size
        # limit only, since a column of a few codes is encoded hundreds of times smaller than it
        # is read and is no bomb for that
        _check_expansion(path, label, stored, pages, max_input_mb, max_expansion)
        if read > max_input_mb * _MB:
            raise PrivlibError(
                f"file {str(path)!r} ({label}) holds {rows:,} rows x {columns:,} columns, about "
                f"{read / _MB:,.0f} MB once read, more than the input limit of {max_input_mb:,} MB; "
                f"{_FIX}."
            )
        return
    try:
        stream = _decompressed(path)
        if stream is not None:
            expanded = 0
            with stream:
                for block in iter(lambda: stream.read(_CHUNK), b""):
                    expanded += len(block)
                    _check_expansion(path, label, stored, expanded, max_input_mb, max_expansion)
    except _CORRUPT:
        return  # not compressed as its name says: the reader names that problem
    member = _tar_member_bytes(path)
    if member is not None:
        _check_expansion(path, label, stored, member, max_input_mb, max_expansion)


def _check_expansion(path, label, stored, expanded, max_input_mb, max_expansion) -> None:
    if expanded > max_input_mb * _MB:
        raise PrivlibError(
            f"file {str(path)!r} ({label}) expands beyond the input limit of {max_input_mb:,} MB "
            f"when decompressed; {_FIX}."
        )
    if expanded > EXPANSION_FLOOR_MB * _MB and expanded > max_expansion * max(stored, 1):
        raise PrivlibError(
            f"file {str(path)!r} ({label}) expands more than {max_expansion:,} times when "
            f"decompressed ({stored / _MB:,.1f} MB stored), as a decompression bomb does; {_FIX}."
        )


def check_header(path, label: str) -> None:
    """Refuse a file that is not a regular file, and a CSV file (compressed or not) whose header
    names a column twice."""
    names = header_names(path, label)
    seen, repeated = set(), []
    for name in (n.strip() for n in names):
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    if repeated:
        raise PrivlibError(
            f"the header of `{label}` names {len(repeated)} column(s) more than once (e.g. "
            f"{repeated[0]!r}); give every column a distinct name."
        )


def check_labels(frame: pd.DataFrame, label: str) -> None:
    """Refuse a table whose column labels are not distinct texts: a DataFrame from Python may have
    MultiIndex, missing (NaN) or number labels, which no file can hold and the measures do not
    take."""
    columns = frame.columns
    if isinstance(columns, pd.MultiIndex):
        raise PrivlibError(
            f"`{label}` has {columns.nlevels} levels of column labels (a MultiIndex); give one "
            "text label per column, e.g. frame.columns = ['_'.join(map(str, c)) for c in frame.columns]."
        )
    odd = [c for c in columns if not isinstance(c, str)]
    if odd:
        kinds = sorted({"missing (NaN)" if pd.isna(c) else type(c).__name__ for c in odd})
        raise PrivlibError(
            f"`{label}` has {len(odd)} column label(s) that are not texts ({', '.join(kinds)}); "
            "give every column a text label, e.g. frame.columns = frame.columns.map(str)."
        )
    repeated = columns[columns.duplicated()].unique()
    if len(repeated):
        raise PrivlibError(
            f"`{label}` has {len(repeated)} column label(s) used more than once (e.g. "
            f"{str(repeated[0])!r}); give every column a distinct label."
        )


#: Characters refused in a column name: control characters (NUL, line breaks, ...), the Unicode
#: line and paragraph separators, and the bidirectional controls, which make a name display as
#: another (U+202E turns "gpj.exe" around) in the report and the notebook.
_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def check_names(frame: pd.DataFrame, label: str) -> None:
    """Refuse a column name holding a control or bidirectional-control character (named by its
    code point and the column's position, never shown)."""
    for position, name in enumerate(frame.columns, 1):
        hidden = _HIDDEN.search(str(name))
        if hidden:
            raise PrivlibError(
                f"column {position} of `{label}` has a name holding the invisible character "
                f"U+{ord(hidden.group()):04X} (a control or text-direction mark); rename the column "
                "with visible characters only."
            )


def as_numbers(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its half-precision columns widened to float64 (no measure computes in
    float16) and its columns of ``decimal.Decimal`` (exact decimals from a database or Parquet's
    decimal type) as float64 numbers; the same frame when there are none."""
    widened = {}
    for column in frame.columns:
        values = frame[column]
        if values.dtype == np.float16:
            widened[column] = values.astype("float64")
        elif pd.api.types.is_object_dtype(values.dtype):
            present = values.dropna()
            if len(present) and all(isinstance(v, decimal.Decimal) for v in present):
                widened[column] = values.map(float, na_action="ignore").astype("float64")
    if not widened:
        return frame
    out = frame.copy()
    for column, values in widened.items():
        out[column] = values
    return out


#: The range of a 64-bit integer, the widest whole number the measures compute with.
_INT64 = np.iinfo(np.int64)


def check_whole_numbers(frame: pd.DataFrame, label: str) -> None:
    """Refuse whole numbers beyond the 64-bit range (Python integers in a column of objects, as
    pandas leaves them): they are neither numbers the measures can compute with nor categories."""
    for column in frame.columns:
        values = frame[column]
        if not pd.api.types.is_object_dtype(values):
            continue
        beyond = sum(
            1
            for v in values.dropna()
            if isinstance(v, int) and not isinstance(v, bool) and not _INT64.min <= v <= _INT64.max
        )
        if beyond:
            raise PrivlibError(
                f"column {column!r} of `{label}` holds {beyond} whole number(s) beyond the 64-bit "
                "range (|x| >= 2**63); store them as decimals (floats) or as text codes."
            )


def check_numbers(frame: pd.DataFrame, label: str) -> None:
    """Refuse infinite or absurdly large numbers in the numeric columns of ``frame``."""
    for column, kind in infer_kinds(frame, name=label).items():
        if kind != NUMERIC or not pd.api.types.is_numeric_dtype(frame[column]):
            continue
        values = frame[column].to_numpy(dtype="float64", na_value=np.nan)
        infinite = int(np.isinf(values).sum())
        absurd = int((np.abs(values[np.isfinite(values)]) >= ABSURD).sum())
        if infinite or absurd:
            what = f"{infinite} infinite" if infinite else f"{absurd} absurdly large (|x| >= {ABSURD:.0e})"
            raise PrivlibError(
                f"column {column!r} of `{label}` holds {what} value(s); replace them with real "
                "numbers or leave them missing."
            )


def _row_keys(frame: pd.DataFrame) -> pd.Series:
    """One hashable key per row (missing values equal to each other)."""
    return pd.util.hash_pandas_object(frame.astype(object).where(frame.notna(), None), index=False)


def check_holdout(train: pd.DataFrame, holdout: pd.DataFrame, *, same_file: bool) -> None:
    """Refuse a holdout that is the training data or overlaps it beyond chance."""
    if same_file:
        raise PrivlibError(
            "`holdout` is the same file as `train`; the holdout must be real records the generator never saw."
        )
    train_keys, holdout_keys = _row_keys(train), _row_keys(holdout)
    in_train = float(holdout_keys.isin(set(train_keys)).mean())
    chance = float(train_keys.duplicated(keep=False).mean())
    pooled = (in_train * len(holdout) + chance * len(train)) / (len(holdout) + len(train))
    error = math.sqrt(pooled * (1 - pooled) * (1 / len(holdout) + 1 / len(train)))
    if in_train - chance > max(OVERLAP_MARGIN, 3 * error):
        raise PrivlibError(
            f"{in_train:.0%} of the `holdout` rows equal a `train` row, against {chance:.0%} of "
            "`train` rows that equal another `train` row (what chance gives in these data): the "
            "holdout seems to contain training records; give records the generator never saw."
        )


#: A number written with thousands separators: 1,234 or 1 234 or 1'234 (with decimals or not).
_GROUPED = re.compile(r"[+-]?\d{1,3}([,'\u00a0\u202f ]\d{3})+([.]\d+)?")


def thousands_separated(values) -> int:
    """How many of ``values`` are numbers written with thousands separators (``1,234``), which a
    CSV reader takes for text."""
    return sum(1 for v in values if isinstance(v, str) and _GROUPED.fullmatch(v.strip()))


def _separators_note(values) -> str:
    """The cause, when some values are numbers with thousands separators: a clause to add."""
    grouped = thousands_separated(values)
    if not grouped:
        return ""
    return (
        f"; {grouped} of them are numbers written with thousands separators (such as 1,234): "
        "write the numbers without separators"
    )


def _percent(share: float) -> str:
    return "under 0.1%" if 0 < share < 0.001 else f"{share:.1%}"


def _normalised(values) -> set:
    return {str(v).strip().casefold() for v in values}


def new_categories(train: pd.DataFrame, frame: pd.DataFrame, label: str, *, allow: bool) -> list[str]:
    """Notes on categories of ``frame`` that ``train`` lacks; refuse recoded columns.

    Returns one note per column with new categories (counts only). Raises when a column looks
    recoded and ``allow`` is false.
    """
    notes = []
    for column in train.columns:
        if not isinstance(train[column].dtype, pd.CategoricalDtype):
            continue
        known = set(train[column].dropna().unique())
        present = frame[column].dropna()
        if present.empty:
            continue
        values = set(present.unique())
        new = values - known
        if not new:
            continue
        rows = int(present.isin(new).sum())
        overlap = values & known
        recoded = not overlap or (_normalised(new) & _normalised(known))
        if recoded and not allow:
            how = "shares no category with" if not overlap else "has categories that match"
            tail = "" if not overlap else " only when case and surrounding spaces are ignored"
            raise PrivlibError(
                f"column {column!r} of `{label}` {how} `train`{tail} ({len(new)} new "
                f"categor{'y' if len(new) == 1 else 'ies'} in {rows} row(s){_separators_note(new)}): "
                "it looks recoded. Code it as in the training data, or pass --allow-new-categories "
                "if the new categories are real."
            )
        notes.append(
            f"column {column!r} of {label}: {len(new)} categor{'y' if len(new) == 1 else 'ies'} "
            f"the training data lacks, in {rows} row(s) ({_percent(rows / len(frame))})."
        )
    return notes
