"""SDV's single-table metadata as the audit's schema: sdtypes map to the kit's kinds,
identifier and personal-information columns take no part in the measures and are reported as left
out, and an audit given the metadata of files with a record number gives the measures of the same
files without it."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.audit.metadata import read_schema
from privlib.errors import PrivlibError
from privlib.sdv_metadata import IDENTIFIER, PERSONAL, left_out_notes

# The single-table example of SDV's metadata reference (SINGLE_TABLE_V1: a hotel's guests).
HOTEL_GUESTS = {
    "primary_key": "guest_email",
    "alternate_keys": ["credit_card_number"],
    "METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
    "columns": {
        "guest_email": {"sdtype": "email", "pii": True},
        "has_rewards": {"sdtype": "boolean"},
        "room_type": {"sdtype": "categorical"},
        "amenities_fee": {"sdtype": "numerical"},
        "checkin_date": {"sdtype": "datetime", "datetime_format": "%d %b %Y"},
        "checkout_date": {"sdtype": "datetime", "datetime_format": "%d %b %Y"},
        "room_rate": {"sdtype": "numerical"},
        "billing_address": {"sdtype": "address", "pii": True},
        "credit_card_number": {"sdtype": "credit_card_number", "pii": True},
    },
    "column_relationships": [],
}


def _write(path, document) -> str:
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_sdtypes_map_to_the_kits_kinds_and_keys_and_personal_columns_are_left_out(tmp_path):
    schema = read_schema(_write(tmp_path / "metadata.json", HOTEL_GUESTS))
    kinds = {column: entry["kind"] for column, entry in schema.items()}
    assert kinds == {
        "guest_email": None,
        "has_rewards": "categorical",
        "room_type": "categorical",
        "amenities_fee": "numeric",
        "checkin_date": "date",
        "checkout_date": "date",
        "room_rate": "numeric",
        "billing_address": None,
        "credit_card_number": None,
    }
    why = {column: entry["left_out"] for column, entry in schema.items() if entry["left_out"]}
    # the primary and alternate keys identify records; the address is personal information
    assert why == {"guest_email": IDENTIFIER, "credit_card_number": IDENTIFIER, "billing_address": PERSONAL}
    assert left_out_notes(schema) == [
        f"Columns 'guest_email', 'credit_card_number' left out of every measure: {IDENTIFIER}, as the "
        "schema file states.",
        f"Column 'billing_address' left out of every measure: {PERSONAL}, as the schema file states.",
    ]


def test_a_multi_table_file_with_one_table_is_read_and_one_with_two_refused(tmp_path):
    table = {key: HOTEL_GUESTS[key] for key in ("primary_key", "columns")}
    one = {"METADATA_SPEC_VERSION": "V1", "tables": {"guests": table}, "relationships": []}
    assert read_schema(_write(tmp_path / "one.json", one))["room_rate"]["kind"] == "numeric"
    two = dict(one, tables={"guests": table, "hotels": table})
    with pytest.raises(PrivlibError, match="describes 2 tables; the audit reads one table"):
        read_schema(_write(tmp_path / "two.json", two))
    broken = dict(HOTEL_GUESTS, columns={"room_rate": {"pii": True}})
    with pytest.raises(PrivlibError, match="column 'room_rate': give its `sdtype`"):
        read_schema(_write(tmp_path / "broken.json", broken))


def test_the_kits_own_yaml_schema_is_read_as_before(tmp_path):
    path = tmp_path / "schema.yaml"
    path.write_text("columns:\n  age: {kind: numeric, range: [0, 120]}\n", encoding="utf-8")
    assert read_schema(path) == {"age": {"kind": "numeric", "categories": None, "range": [0, 120]}}


def _tables(folder, with_id: bool) -> dict:
    """Adult samples (training, holdout, a release of half copies and half shuffled columns),
    with a record number and an e-mail column when ``with_id``."""
    adult = pl.load_dataset("adult")[["age", "sex", "race", "marital-status", "hours-per-week", "income"]]
    rng = np.random.default_rng(11)
    order = rng.permutation(len(adult))
    n = 300
    train = adult.iloc[order[:n]].reset_index(drop=True)
    holdout = adult.iloc[order[n : 2 * n]].reset_index(drop=True)
    shuffled = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train.columns})
    release = pd.concat([train.iloc[: n // 2], shuffled.iloc[n // 2 :]], ignore_index=True)
    paths = {}
    for name, table in (("train", train), ("holdout", holdout), ("synthetic", release)):
        if with_id:
            table = table.assign(
                record_id=np.arange(len(table)) + 1, email=[f"p{i}@x.invalid" for i in range(len(table))]
            )
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return paths


@pytest.mark.slow
def test_an_audit_with_an_id_column_in_sdv_metadata_gives_the_measures_of_the_files_without_it(tmp_path):
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    with_id, without = _tables(tmp_path / "with", True), _tables(tmp_path / "without", False)
    metadata = {
        "METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
        "primary_key": "record_id",
        "columns": {
            "record_id": {"sdtype": "id"},
            "email": {"sdtype": "email", "pii": True},
            "age": {"sdtype": "numerical"},
            "sex": {"sdtype": "categorical"},
            "race": {"sdtype": "categorical"},
            "marital-status": {"sdtype": "categorical"},
            "hours-per-week": {"sdtype": "numerical"},
            "income": {"sdtype": "categorical"},
        },
    }
    settings = dict(keys=["age", "sex", "race"], sensitive=["income"], seed=3)
    given = pl.audit.run(**with_id, schema_file=_write(tmp_path / "metadata.json", metadata), **settings)
    plain = pl.audit.run(**without, **settings)

    def measures(report):
        return [m.model_dump(exclude={"seconds"}) for m in report.measures]

    assert measures(given) == measures(plain)
    assert [s.key for s in given.skipped] == [s.key for s in plain.skipped]
    assert given.decision == plain.decision
    assert any("'record_id' left out of every measure" in note for note in given.notes)
    assert any("'email' left out of every measure" in note for note in given.notes)
    assert "p1@x.invalid" not in given.to_json()
