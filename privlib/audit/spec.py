"""`AuditSpec`: every setting of an audit, in one typed, validated object.

It is built once, from the command line, a params file or Python keyword arguments, and the
defaults live only here. A spec is saved as JSON (:meth:`AuditSpec.write`) and read back as data
(:meth:`AuditSpec.read`): no value of the user's ever becomes code. The report's provenance is the spec, with paths reduced to file names
and their SHA-256 (:meth:`AuditSpec.provenance`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

import pandas as pd
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    ValidationError,
    WithJsonSchema,
    field_validator,
)

from privlib.errors import PrivlibError
from privlib.thresholds import check_overrides

__all__ = ["AuditSpec", "DEFAULT_SEED", "DEFAULT_TITLE"]

#: Seed of every random step of an audit, unless one is given.
DEFAULT_SEED = 2026
DEFAULT_TITLE = "Privacy audit of a synthetic dataset"


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


class AuditSpec(BaseModel):
    """Everything an audit needs: its tables, variables and settings.

    Build it with keyword arguments (``AuditSpec(train="train.csv", synthetic=["s.csv"])``), or
    with :meth:`build`, which turns a validation error into one :class:`PrivlibError` line.
    ``train``, ``holdout`` and each synthetic table may be a path or a DataFrame; ``synthetic`` may
    also be a dict of named tables.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    train: Table = Field(description="the confidential data the generator was fitted on")
    synthetic: Annotated[
        dict[str, Table] | list[Table],
        WithJsonSchema({"type": "array", "items": {"type": "string"}}),
    ] = Field(description="one or several synthetic tables; several add a comparison")
    holdout: Table | None = Field(
        None, description="real records of the same population the generator never saw"
    )
    population_size: int | None = Field(
        None, gt=0, strict=True, description="size N of the population the training data was drawn from"
    )
    keys: Names = Field(default_factory=list, description="key variables an adversary knows")
    sensitive: Names = Field(default_factory=list, description="variables an adversary wants to learn")
    seed: int = Field(DEFAULT_SEED, ge=0, strict=True, description="seed of every random step")
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
        "the privacy measures use every record, but the discriminator a bounded sample); 'all' for "
        "every record",
    )
    thresholds: dict[str, float] = Field(
        default_factory=dict, description="measure key -> absolute cut-off replacing the registry's"
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
        "attack (a privlib.synth name or module:Class); off when None",
    )
    dask_scheduler: str | None = Field(
        None, description="address of a Dask scheduler for the neighbour searches"
    )
    title: str = Field(DEFAULT_TITLE, min_length=1, max_length=300)
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
        if value == "all" or (isinstance(value, int) and not isinstance(value, bool) and value >= 100):
            return value
        raise ValueError("`fidelity_sample` must be a number of records (at least 100) or 'all'")

    @field_validator("synthetic", mode="before")
    @classmethod
    def _some_synthetic(cls, value: Any) -> Any:
        if isinstance(value, (str, os.PathLike, pd.DataFrame)):
            return [value]
        if not value:
            raise ValueError("give at least one synthetic table")
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


def _one_line(exc: ValidationError) -> str:
    """The first problem of a validation error, naming the setting but never echoing its value."""
    error = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in error["loc"]) or "spec"
    message = error["msg"].removeprefix("Value error, ")
    if message.startswith("`"):  # the kit's own sentence, which names the setting itself
        return message
    if error["type"] == "extra_forbidden":
        message = f"is not a setting of the audit; the settings are {sorted(AuditSpec.model_fields)}"
    return f"`{where}` {message[0].lower()}{message[1:]}."
