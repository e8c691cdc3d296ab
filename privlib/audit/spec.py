"""`AuditSpec`: every setting of an audit, in one typed, validated object.

It is built once, from the command line, a params file or Python keyword arguments, and the
defaults live only here. A spec is saved as JSON (:meth:`AuditSpec.write`) and read back as data
(:meth:`AuditSpec.read`): no value of the user's ever becomes code. The report's provenance is the spec, with paths reduced to file names
and their SHA-256 (:meth:`AuditSpec.provenance`).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

import pandas as pd
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from privlib.errors import PrivlibError
from privlib.thresholds import check_overrides

__all__ = [
    "AuditSpec",
    "DEFAULT_SEED",
    "DEFAULT_TITLE",
    "KIT_FIELDS",
    "MAX_SEED",
    "MAX_SYNTHETIC",
    "TABLE_FIELDS",
    "user_settings",
    "wanted",
]

#: Seed of every random step of an audit, unless one is given.
DEFAULT_SEED = 2026
DEFAULT_TITLE = "Privacy audit of a synthetic dataset"

#: Largest seed: scikit-learn and numpy's legacy generator take seeds below 2**32.
MAX_SEED = 2**32 - 1

#: Largest population size N: above the world's population, so a real N is never refused.
MAX_POPULATION = 10**10

#: Most records a table of an audit is expected to hold; settings counting records stop here.
MAX_RECORDS = 10**9

#: Most synthetic tables an audit compares: each adds its own audit and a column to every
#: comparison of the report, which stops being readable well before this.
MAX_SYNTHETIC = 10

#: The settings that name the tables (paths, or DataFrames from Python).
TABLE_FIELDS = ("train", "synthetic", "holdout")

#: The fields the kit fills in itself (the recipe of a bundled-dataset params file): no command
#: line flag or params-file setting sets them.
KIT_FIELDS = ("recipe",)

#: Largest claimed epsilon: the bound is searched up to privlib.dp.MAX_EPSILON, the same 100.
MAX_CLAIMED_EPSILON = 100.0

#: Default input limits (see :mod:`privlib.audit.checks`): an input file, once decompressed, may
#: hold this many megabytes, and a compressed one may expand at most this many times beyond a
#: floor. Real tables compress 3 to 20 times; a decompression bomb, thousands of times.
DEFAULT_MAX_INPUT_MB = 2000
DEFAULT_MAX_EXPANSION = 100


def _table(value: Any) -> Path | pd.DataFrame:
    if isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, (str, os.PathLike)) and str(value).strip():
        return Path(value)
    raise ValueError("must be the path of a CSV or Parquet file, or a pandas DataFrame")


def _serialise_table(value: Path | pd.DataFrame) -> str:
    if isinstance(value, pd.DataFrame):
        raise PrivlibError("an audit spec holding DataFrames cannot be written to a file; give paths.")
    return str(value)


#: A table of the audit: a file path, or (from Python) a DataFrame held in memory.
Table = Annotated[
    Any,
    AfterValidator(_table),
    PlainSerializer(_serialise_table, return_type=str),
    WithJsonSchema({"type": "string", "description": "path of a CSV or Parquet file"}),
]


def _names(value: Any) -> list[str]:
    """Column names: a list, or one text of names separated by commas."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    if not all(isinstance(item, str) for item in items):
        raise ValueError("must be column names (texts)")
    return items


Names = Annotated[Any, AfterValidator(_names), WithJsonSchema({"type": "array", "items": {"type": "string"}})]

#: A synthesizer name, or an entry point ``package.module:Class`` of Python identifiers (so no
#: relative or path-like module name reaches the import machinery).
_ENTRY_POINT = re.compile(
    r"[A-Za-z_]\w*|[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", re.ASCII
)


#: What a title may not hold: control characters (NUL and line breaks among them) and the Unicode
#: controls that reorder text (U+061C, U+200E/F, U+202A-U+202E, U+2066-U+2069), with which a
#: title could show a reader other words than it holds, and the Unicode line breaks U+2028/9.
_HIDDEN_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


class AuditSpec(BaseModel):
    """Everything an audit needs: its tables, variables and settings.

    Build it with keyword arguments (``AuditSpec(train="train.csv", synthetic=["s.csv"])``), or
    with :meth:`build`, which turns a validation error into one :class:`PrivlibError` line.
    ``train``, ``holdout`` and each synthetic table may be a path or a DataFrame; ``synthetic`` may
    also be a dict of named tables.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    train: Table = Field(
        description="CSV or Parquet file (or DataFrame) of the confidential data the generator was fitted on"
    )
    synthetic: Annotated[
        dict[str, Table] | list[Table],
        WithJsonSchema({"type": "array", "items": {"type": "string"}}),
    ] = Field(description="one or several CSV or Parquet files of synthetic data; several add a comparison")
    holdout: Table | None = Field(
        None, description="CSV or Parquet file of real records of the same population the generator never saw"
    )
    population_size: int | None = Field(
        None,
        gt=0,
        le=MAX_POPULATION,
        strict=True,
        description="size N of the population the training data was drawn from",
    )
    keys: Names = Field(
        default_factory=list,
        description="key variables an adversary knows (names, or one text of names and commas)",
    )
    sensitive: Names = Field(
        default_factory=list,
        description="variables an adversary wants to learn (names, or one text of names and commas)",
    )
    seed: int = Field(DEFAULT_SEED, ge=0, le=MAX_SEED, strict=True, description="seed of every random step")
    repeats: int = Field(
        5, ge=1, le=1000, strict=True, description="repetitions of the random membership measures"
    )
    hamming_threshold: int = Field(
        5, ge=0, le=10_000, strict=True, description="h of the partitioning attack (El Emam et al. 2022)"
    )
    attack_share: float = Field(
        0.5, gt=0, lt=1, description="t of the partitioning attack when N is not given"
    )
    cap_bins: int = Field(
        5, ge=2, le=1000, strict=True, description="quantile bins of numeric keys and targets for CAP"
    )
    fidelity_sample: int | Literal["all"] = Field(
        100_000,
        description="most records per table the fidelity figures use (a seeded sample beyond it; "
        "the privacy measures have bounds of their own, and each that reads a sample says so in its "
        "reading); 'all' for every record",
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict,
        description='measure key -> absolute cut-off replacing the registry\'s, e.g. {"nn_mia_auc": 0.6}',
    )
    schema_file: Path | None = Field(
        None, description="YAML file stating column kinds, categories and ranges (privlib.audit.metadata)"
    )
    allow_new_categories: bool = Field(
        False, description="accept categories that look recoded (they are still reported)"
    )
    targeted_attack: str | None = Field(
        None,
        description="generator refitted by the shadow-model "
        "attack (a privlib.synth name or module:Class); off when not given",
    )
    dask_scheduler: str | None = Field(
        None, description="address of a Dask scheduler for the neighbour searches, e.g. tcp://10.0.0.5:8786"
    )
    max_input_mb: int = Field(
        DEFAULT_MAX_INPUT_MB,
        ge=1,
        le=1_000_000,
        strict=True,
        description="most megabytes an input file may hold once decompressed; raise it for a "
        "real table that is larger",
    )
    max_expansion: int = Field(
        DEFAULT_MAX_EXPANSION,
        ge=2,
        le=1_000_000,
        strict=True,
        description="most times a compressed input file may expand when decompressed (a "
        "decompression bomb expands thousands of times); raise it for a real table that does",
    )
    claimed_epsilon: float | None = Field(
        None,
        gt=0,
        le=MAX_CLAIMED_EPSILON,
        description="epsilon of a differential-privacy claim made for the release, put to the test "
        "by an empirical lower bound from the membership evidence (needs a holdout); off when not given",
    )
    claimed_delta: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="delta of the differential-privacy claim (with --claimed-epsilon; above 0 it "
        "needs a holdout as large as the training data)",
    )
    title: str = Field(DEFAULT_TITLE, min_length=1, max_length=300, description="title of the report")
    recipe: dict[str, Any] | None = Field(
        None, description="how the tables were made from a bundled dataset (from a params file)"
    )

    @field_validator("thresholds", mode="before")
    @classmethod
    def _known_thresholds(cls, value: Any) -> dict[str, float]:
        return check_overrides(value)

    @field_validator("fidelity_sample", mode="before")
    @classmethod
    def _records_or_all(cls, value: Any) -> Any:
        if value == "all" or (
            isinstance(value, int) and not isinstance(value, bool) and 100 <= value <= MAX_RECORDS
        ):
            return value
        raise ValueError(
            f"`fidelity_sample` must be a number of records (from 100 to {MAX_RECORDS:,}) or 'all'"
        )

    @field_validator("targeted_attack")
    @classmethod
    def _synthesizer_name(cls, value: str | None) -> str | None:
        if value is None or _ENTRY_POINT.fullmatch(value):
            return value
        raise ValueError(
            "`targeted_attack` must be a privlib.synth name (such as SequentialTrees) or an entry "
            "point module:Class of Python names (such as mypackage.models:MyGenerator), got "
            f"{len(value)} character(s) that are neither"
        )

    @field_validator("claimed_epsilon", "claimed_delta", mode="before")
    @classmethod
    def _not_a_truth_value(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool):  # a YAML "yes" is no epsilon
            raise ValueError(f"`{info.field_name}` must be a number, not true or false")
        return value

    @model_validator(mode="after")
    def _delta_with_epsilon(self) -> AuditSpec:
        # a claim without a holdout to test it on is refused with the tables (audit.limits.check_claim)
        if self.claimed_epsilon is None and self.claimed_delta > 0:
            raise ValueError("`claimed_delta` is part of a claim: give `claimed_epsilon` with it")
        return self

    @field_validator("title")
    @classmethod
    def _plain_title(cls, value: str) -> str:
        if _HIDDEN_CHARACTERS.search(value):
            raise ValueError(
                "`title` holds a control character (a NUL, a line break, or a bidirectional "
                "control such as U+202E, which reorders the text a reader sees); give plain text"
            )
        return value

    @field_validator("synthetic", mode="before")
    @classmethod
    def _some_synthetic(cls, value: Any) -> Any:
        if isinstance(value, (str, os.PathLike, pd.DataFrame)):
            return [value]
        if not value:
            raise ValueError("give at least one synthetic table")
        if isinstance(value, (list, tuple, dict)) and len(value) > MAX_SYNTHETIC:
            raise ValueError(
                f"`synthetic` names {len(value):,} tables, more than the {MAX_SYNTHETIC} a report "
                "compares; audit them in several runs"
            )
        if isinstance(value, dict) and not all(isinstance(name, str) for name in value):
            odd = [name for name in value if not isinstance(name, str)]
            kinds = sorted({type(name).__name__ for name in odd})
            raise ValueError(
                f"`synthetic` must name its tables with texts; {len(odd)} of its keys are not "
                f"({', '.join(kinds)}), e.g. give {{'generator_a': frame}}"
            )
        return value

    # -- building -------------------------------------------------------------------------------
    @classmethod
    def build(cls, **values: Any) -> AuditSpec:
        """The spec of ``values``, names left at ``None`` taking their defaults; a problem is one
        :class:`PrivlibError` line naming the setting."""
        given = {name: value for name, value in values.items() if value is not None}
        try:
            return cls(**given)
        except ValidationError as exc:
            raise PrivlibError(_one_line(exc)) from None

    @classmethod
    def read(cls, path: str | os.PathLike) -> AuditSpec:
        """The spec the kit wrote to ``path`` (JSON)."""
        return cls.build(**json.loads(Path(path).read_text(encoding="utf-8")))

    def write(self, path: str | os.PathLike) -> Path:
        """Write the spec as JSON (paths only) to ``path``, for the audit notebook."""
        path = Path(path)
        path.write_text(self.model_dump_json(indent=2), encoding="utf-8")
        return path

    @classmethod
    def check_settings(cls, settings: dict[str, Any], source: str) -> None:
        """Check ``settings`` (no tables) as the spec would, before any table exists: a problem
        is one :class:`PrivlibError` line naming ``source`` and the setting."""
        placeholder = {"train": "stand-in.csv", "synthetic": ["stand-in.csv"]}  # never read
        try:
            cls(**placeholder | {name: value for name, value in settings.items() if value is not None})
        except ValidationError as exc:
            raise PrivlibError(f"{source}: {_one_line(exc)}") from None
        except PrivlibError as exc:  # a validator's own sentence (the thresholds')
            raise PrivlibError(f"{source}: {exc}") from None

    # -- views ----------------------------------------------------------------------------------
    def settings(self) -> dict[str, Any]:
        """The settings the measures' arguments are built from."""
        return {
            name: getattr(self, name)
            for name in (
                "seed",
                "repeats",
                "hamming_threshold",
                "attack_share",
                "cap_bins",
                "targeted_attack",
            )
        }

    def provenance(self) -> dict[str, Any]:
        """The spec as the report records it: tables reduced to file names (or "DataFrame"),
        the schema file to its name, everything else as given."""
        out = self.model_dump(exclude={"train", "synthetic", "holdout", "schema_file"})
        out["schema_file"] = self.schema_file.name if self.schema_file is not None else None
        return out


def user_settings() -> dict[str, Any]:
    """The fields of :class:`AuditSpec` a user sets (every one but :data:`KIT_FIELDS`), by name,
    in their order: what the command line's flags and a params file's settings are built from."""
    return {name: field for name, field in AuditSpec.model_fields.items() if name not in KIT_FIELDS}


#: How a message names what a setting of each type must be.
_KINDS = {int: "a whole number", float: "a number", str: "a text", bool: "true or false"}

#: The bounds of a field, as ``annotated_types`` states them, and how a message writes each.
_BOUNDS = (
    ("ge", ">= {:,}"),
    ("gt", "> {:,}"),
    ("le", "<= {:,}"),
    ("lt", "< {:,}"),
    ("min_length", "of at least {:,} character(s)"),
    ("max_length", "of at most {:,} characters"),
)


def wanted(name: str) -> str | None:
    """What the field ``name`` must be, from its declaration (its type and bounds), e.g. "a whole
    number >= 1 and <= 1,000"; None for a field of another kind."""
    field = AuditSpec.model_fields[name]
    kinds = [kind for kind in get_args(field.annotation) or (field.annotation,) if kind is not type(None)]
    if len(kinds) != 1 or kinds[0] not in _KINDS:
        return None
    bounds = [
        form.format(getattr(limit, attribute))
        for limit in field.metadata
        for attribute, form in _BOUNDS
        if getattr(limit, attribute, None) is not None
    ]
    return " ".join([_KINDS[kinds[0]], " and ".join(bounds)]).strip()


def _one_line(exc: ValidationError) -> str:
    """The first problem of a validation error, naming the setting but never echoing its value."""
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "spec"
    message = error["msg"].removeprefix("Value error, ")
    if message.startswith("`"):  # the kit's own sentence, which names the setting itself
        return message
    if error["type"] == "extra_forbidden":
        message = f"is not a setting of the audit; the settings are {sorted(AuditSpec.model_fields)}"
    elif len(error["loc"]) == 1 and where in AuditSpec.model_fields and wanted(where) is not None:
        message = f"must be {wanted(where)}"
    return f"`{where}` {message[0].lower()}{message[1:]}."
