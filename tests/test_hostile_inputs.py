"""Hostile inputs: memory bounded in every format before a table is
read (Parquet by its footer's rows and columns, tar by its member's stated size, Zstandard read
or refused, ZIPs that cannot be read refused), and the inputs that quietly weakened an audit or
ended in a traceback (half floats, decimals, hidden characters in names, sdtype slips, keys that
are lists, duplicate keys, JSON that YAML misreads).

The bombs are built here, small on disk; the runs that would read one end to end are in
``tests/test_resource_limits.py``, under an address-space cap.
"""

from __future__ import annotations

import decimal
import io
import json
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from input_bombs import parquet_bomb, sparse_tar_bomb

import privlib as pl
from privlib import dp, synth
from privlib.audit import load_audit_inputs
from privlib.audit.checks import EXPANSION_FLOOR_MB, check_input_size
from privlib.audit.metadata import read_schema
from privlib.errors import ParameterError, PrivlibError
from privlib.schema import restore_numeric

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

LIMITS = dict(max_input_mb=2000, max_expansion=100)  # the defaults of `privlib audit`


def _rows(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(47)
    return pd.DataFrame(
        {"age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n), "pay": rng.normal(50, 10, n)}
    )


# --------------------------------------------------------------------------------------------
# Memory bounded in every format
# --------------------------------------------------------------------------------------------
def test_a_parquet_file_is_measured_by_its_rows_and_columns_whatever_its_encoding(tmp_path):
    bomb = parquet_bomb(tmp_path / "bomb.parquet")
    assert bomb.stat().st_size < 2_000_000  # stored in under 2 MB
    # 40 million rows x 4 integer columns x 16 bytes (pandas' 8 and Arrow's 8) = 2,560 MB
    with pytest.raises(PrivlibError) as refused:
        check_input_size(bomb, "train", **LIMITS)
    message = str(refused.value)
    assert "40,000,000 rows x 4 columns, about 2,560 MB once read" in message
    assert "--max-input-mb" in message and "\n" not in message
    check_input_size(bomb, "train", max_input_mb=2560, max_expansion=100)  # at the limit: read


def test_a_parquet_text_column_counts_its_string_objects(tmp_path):
    path = tmp_path / "t.parquet"
    # a million rows of one repeated text: 64 bytes a value (pointer and string object) = 64 MB
    pq.write_table(pa.table({"name": pa.array(["x"] * 1_000_000).dictionary_encode()}), path)
    with pytest.raises(PrivlibError, match="1,000,000 rows x 1 columns, about 64 MB"):
        check_input_size(path, "train", max_input_mb=63, max_expansion=100)
    check_input_size(path, "train", max_input_mb=64, max_expansion=100)


def test_a_sparse_tar_is_measured_by_its_members_stated_size(tmp_path):
    bomb = sparse_tar_bomb(tmp_path, gigabytes=4)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(PrivlibError, match="expands beyond the input limit of 2,000 MB") as refused:
        check_input_size(bomb, "train", **LIMITS)
    assert "--max-input-mb" in str(refused.value)


def test_a_tar_below_the_limit_is_held_to_the_expansion_ratio(tmp_path):
    bomb = sparse_tar_bomb(tmp_path, gigabytes=1)  # 1,074 MB in about 10 KB: a ratio near 10^5
    with pytest.raises(PrivlibError, match="expands more than 100 times"):
        check_input_size(bomb, "train", max_input_mb=5000, max_expansion=100)


def _tar(path: Path, members: dict[str, bytes]) -> Path:
    with tarfile.open(path, "w:gz" if path.name.endswith(".gz") else "w") as archive:
        for name, content in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(content)
            archive.addfile(info, io.BytesIO(content))
    return path


def test_a_tar_of_one_table_is_read_and_one_of_several_refused(tmp_path):
    table = _rows().to_csv(index=False).encode()
    one = _tar(tmp_path / "one.tar.gz", {"t.csv": table})
    check_input_size(one, "train", **LIMITS)
    assert pd.read_csv(one).shape == _rows().shape  # pandas reads it: the guard must measure it
    two = _tar(tmp_path / "two.tar", {"a.csv": table, "b.csv": table})
    with pytest.raises(PrivlibError, match="tar archive of several entries; it must hold one table"):
        check_input_size(two, "train", **LIMITS)


def _zst_missing(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)  # import zstandard then raises ImportError


def test_zstandard_without_its_package_is_refused_in_one_line(tmp_path, monkeypatch):
    _zst_missing(monkeypatch)
    path = tmp_path / "t.csv.zst"
    path.write_bytes(b"\x28\xb5\x2f\xfd" + bytes(60))  # the Zstandard magic number
    with pytest.raises(PrivlibError) as refused:
        check_input_size(path, "train", **LIMITS)
    assert "needs the zstandard package: pip install zstandard" in str(refused.value)


def test_zstandard_is_measured_as_a_stream(tmp_path):
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "t.csv.zst"
    content = b"a,b\n" + b"0,0\n" * ((EXPANSION_FLOOR_MB + 6) * 250_000)
    path.write_bytes(zstandard.ZstdCompressor().compress(content))
    with pytest.raises(PrivlibError, match="expands more than 100 times"):
        check_input_size(path, "train", **LIMITS)


def _patched_zip(path: Path, *, flags: int = 0, method: int | None = None) -> Path:
    """A ZIP of one small CSV whose headers claim ``flags`` (0x1: encrypted) or another
    compression ``method`` (99: AES), written by patching a plain archive's header fields."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("t.csv", _rows().to_csv(index=False))
    data = bytearray(path.read_bytes())
    # local header: flags at byte 6, method at 8; central directory entry: flags at 8, method at 10
    for signature, flag_at, method_at in ((b"PK\x03\x04", 6, 8), (b"PK\x01\x02", 8, 10)):
        start = data.index(signature)
        data[start + flag_at] |= flags
        if method is not None:
            data[start + method_at : start + method_at + 2] = method.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    "patch, words",
    [
        (dict(flags=0x1), "is an encrypted ZIP archive"),
        (dict(method=99), "compressed by method 99, which cannot be read"),
    ],
)
def test_zips_python_cannot_read_are_refused_in_one_line(patch, words, tmp_path):
    path = _patched_zip(tmp_path / "t.csv.zip", **patch)
    with pytest.raises(PrivlibError, match=words):
        check_input_size(path, "train", **LIMITS)
    with pytest.raises(PrivlibError, match=words):  # the same from the audit's reader
        load_audit_inputs(train=path, synthetic=path)


def test_running_out_of_memory_while_reading_names_the_limit(tmp_path, monkeypatch):
    import privlib.audit.inputs as inputs

    def exhausted(*args, **kwargs):
        raise MemoryError

    path = tmp_path / "t.csv"
    _rows().to_csv(path, index=False)
    monkeypatch.setattr(inputs, "read_table", exhausted)
    with pytest.raises(PrivlibError, match="does not fit in memory once read; lower --max-input-mb"):
        load_audit_inputs(train=path, synthetic=path)


# --------------------------------------------------------------------------------------------
# Columns read as what they are
# --------------------------------------------------------------------------------------------
def test_a_half_float_parquet_column_is_read_as_float64(tmp_path):
    table = _rows().assign(pay=lambda t: t["pay"].astype("float16"))
    path = tmp_path / "t.parquet"
    table.to_parquet(path)
    inputs = load_audit_inputs(train=path, synthetic=path)
    assert inputs.train["pay"].dtype == "float64"
    # widening is exact: every float16 is a float64
    assert inputs.train["pay"].tolist() == table["pay"].astype("float64").tolist()
    frames = load_audit_inputs(train=table, synthetic=table)  # from the Python API too
    assert frames.primary["pay"].dtype == "float64"


def test_a_column_of_decimals_is_read_as_numbers():
    train = _rows()
    synthetic = train.assign(pay=[decimal.Decimal(f"{v:.2f}") for v in train["pay"]])
    synthetic.loc[3, "pay"] = None
    inputs = load_audit_inputs(train=train, synthetic=synthetic)
    pay = inputs.primary["pay"]
    assert pay.dtype == "float64" and pay.isna().sum() == 1
    assert pay.iloc[0] == float(f"{train['pay'].iloc[0]:.2f}")


@pytest.mark.parametrize("hidden", ["\u202e", "\u2066", "\u200f", "\x00", "\x1b"])
def test_a_column_name_with_a_hidden_character_is_refused_without_showing_it(hidden, tmp_path):
    table = _rows().rename(columns={"pay": f"pay{hidden}gpj"})
    path = tmp_path / "t.csv"
    table.to_csv(path, index=False)
    for train in (path, table):
        with pytest.raises(PrivlibError) as refused:
            load_audit_inputs(train=train, synthetic=train)
        message = str(refused.value)
        assert (
            f"column 3 of `train` has a name holding the invisible character U+{ord(hidden):04X}" in message
        )
        assert hidden not in message and "gpj" not in message


# --------------------------------------------------------------------------------------------
# SDV metadata: slips refused, keys that are not one name refused
# --------------------------------------------------------------------------------------------
def _metadata(tmp_path, columns: dict, **table) -> Path:
    path = tmp_path / "metadata.json"
    document = {"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1", "columns": columns, **table}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "sdtype, suggestion",
    [("Numerical", "'numerical'"), ("categorical ", "'categorical'"), ("categorial", "'categorical'")],
)
def test_an_sdtype_slip_is_refused_with_the_close_match(sdtype, suggestion, tmp_path):
    path = _metadata(tmp_path, {"age": {"sdtype": "numerical"}, "sex": {"sdtype": sdtype}})
    with pytest.raises(PrivlibError) as refused:
        read_schema(path)
    message = str(refused.value)
    assert f"column 'sex': unknown sdtype {sdtype!r}; did you mean {suggestion}?" in message
    assert "'numerical', 'categorical', 'boolean', 'datetime', 'id', 'unknown'" in message


def test_a_key_with_a_wrong_sdtype_is_named_by_its_sdtype_not_as_missing(tmp_path):
    path = _metadata(tmp_path, {"age": {"sdtype": "numerical"}, "sex": {"sdtype": "Categorical"}})
    table = _rows()
    with pytest.raises(PrivlibError) as refused:
        load_audit_inputs(train=table, synthetic=table, keys=["age", "sex"], schema=path)
    assert "unknown sdtype 'Categorical'" in str(refused.value)
    assert "not a column" not in str(refused.value)


def test_a_key_the_schema_leaves_out_is_named_as_left_out(tmp_path):
    table = _rows().assign(email=[f"p{i}@x.invalid" for i in range(60)])
    columns = {"age": {"sdtype": "numerical"}, "sex": {"sdtype": "categorical"}}
    path = _metadata(tmp_path, {**columns, "pay": {"sdtype": "numerical"}, "email": {"sdtype": "email"}})
    with pytest.raises(PrivlibError) as refused:
        load_audit_inputs(train=table, synthetic=table, keys=["age", "email"], schema=path)
    message = str(refused.value)
    assert "`keys` names 'email', which the schema file leaves out of every measure" in message
    assert "not a column" not in message


@pytest.mark.parametrize(
    "table, words",
    [
        (dict(primary_key=["age", "sex"]), "`primary_key` must name one column (a text), got a list"),
        (dict(primary_key={"name": "age"}), "`primary_key` must name one column (a text), got a dict"),
        (dict(alternate_keys=[["age", "sex"]]), "`alternate_keys` must name one column (a text), got a list"),
        (dict(alternate_keys={"age": 1}), "`alternate_keys` must be a list of column names"),
        (dict(primary_key="record"), "`primary_key` names 'record', which is not in its `columns`"),
    ],
)
def test_keys_that_are_not_one_column_name_are_refused(table, words, tmp_path):
    path = _metadata(tmp_path, {"age": {"sdtype": "numerical"}, "sex": {"sdtype": "categorical"}}, **table)
    with pytest.raises(PrivlibError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_schema(path)


# --------------------------------------------------------------------------------------------
# JSON read as JSON, duplicate keys refused
# --------------------------------------------------------------------------------------------
def test_a_tab_indented_json_schema_with_escaped_surrogate_pairs_is_read_as_json(tmp_path):
    path = tmp_path / "schema.json"
    # written by hand: tabs, and U+1F600 escaped as the surrogate pair JSON uses
    path.write_text('{\n\t"columns": {\n\t\t"mood\\ud83d\\ude00": {"kind": "categorical"}\n\t}\n}\n')
    assert read_schema(path) == {"mood\U0001f600": {"kind": "categorical", "categories": None, "range": None}}
    table = pd.DataFrame({"mood\U0001f600": ["a", "b"] * 30, "pay": np.arange(60.0)})
    inputs = load_audit_inputs(train=table, synthetic=table, schema=path)
    assert isinstance(inputs.train["mood\U0001f600"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize(
    "name, text, words",
    [
        (
            "s.json",
            '{"columns": {"age": {"kind": "numeric"}, "age": {"kind": "date"}}}',
            "'age' is given twice",
        ),
        (
            "s.yaml",
            "columns:\n  age: {kind: numeric}\n  age: {kind: date}\n",
            "'age' is given twice (line 3)",
        ),
        ("s.yaml", "columns:\n  age: {kind: numeric, kind: date}\n", "'kind' is given twice (line 2)"),
        ("s.json", '{"columns": {"a\\ud83d": {"kind": "numeric"}}}', "half of a surrogate pair"),
        (
            "s.json",
            '{"columns": {"age": {"kind": "numeric", "range": [0, NaN]}}}',
            "NaN is not a JSON number",
        ),
    ],
)
def test_duplicate_keys_and_unwritable_texts_are_refused(name, text, words, tmp_path):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(PrivlibError, match=words.replace("(", r"\(").replace(")", r"\)")):
        read_schema(path)


def test_a_yaml_flow_mapping_is_still_yaml(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("{columns: {age: {kind: numeric, range: [0, 120]}}}\n", encoding="utf-8")
    assert read_schema(path) == {"age": {"kind": "numeric", "categories": None, "range": [0, 120]}}


# --------------------------------------------------------------------------------------------
# Synthesizer settings bounded where they overflow or stop giving a table of the input's kind
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, params",
    [
        ("SequentialTrees", {"min_samples_leaf": 10**29}),  # OverflowError in scikit-learn before
        ("MST", {"epsilon": 1e-300}),  # ZeroDivisionError: the budget rounded to zero
        ("MST", {"epsilon": 1e300}),  # OverflowError: e**epsilon
        ("AdditiveNoise", {"noise_scale": 1e300}),  # dates beyond the calendar, integers wrapped
        ("ParzenWindows", {"bandwidth": 1e300}),
    ],
)
def test_overflowing_settings_are_parameter_errors_before_any_fit(name, params):
    with pytest.raises(ParameterError, match=f"`{next(iter(params))}` must be"):
        synth.make(name, **params)


def test_the_settings_at_their_bounds_still_give_a_table_of_the_inputs_kind():
    table = _rows(200).assign(day=pd.to_datetime("2020-01-01") + pd.to_timedelta(np.arange(200), unit="D"))
    for name, params in [
        ("AdditiveNoise", {"noise_scale": synth.MAX_NOISE}),
        ("ParzenWindows", {"bandwidth": synth.MAX_NOISE}),
        ("MST", {"epsilon": dp.MIN_EPSILON, "random_state": 0}),
        ("MST", {"epsilon": dp.MAX_EPSILON, "random_state": 0}),
    ]:
        out = synth.make(name, **params).fit(table).sample(random_state=0)
        assert out.dtypes.tolist() == table.dtypes.tolist(), name
        assert np.isfinite(out["pay"]).all(), name


def test_sizes_no_float_or_array_holds_are_refused():
    table = _rows()
    # bins between -1e308 and 1e308 are wider than the largest float: their centres were inf
    with pytest.raises(PrivlibError, match=r"`bounds\['pay'\]` must have low < high, both within \+-1e\+100"):
        dp.MST(bounds={"pay": (-1e308, 1e308)}, random_state=0).fit(table)
    # numpy refused these with a ValueError ("Maximum allowed dimension exceeded")
    with pytest.raises(ParameterError, match="`n` must be a whole number >= 1 and <= 1000000000"):
        synth.Copy().fit(table).sample(10**30)


def test_values_beyond_a_columns_type_are_refused_not_wrapped():
    for like, values in [
        (pd.Series([], dtype="int64", name="n"), [1.0, 1e30]),  # beyond 2**63
        (pd.Series([], dtype="uint8", name="n"), [300.0]),
        (pd.Series([], dtype="datetime64[ns]", name="n"), [1e7]),  # 27,000 years after 1970
    ]:
        with pytest.raises(PrivlibError, match="lie beyond what its type"):
            restore_numeric(np.array(values), like)
    assert restore_numeric(np.array([1.4, np.nan]), pd.Series([], dtype="int64")).tolist() == [1, pd.NA]


def test_the_accounting_is_bounded_where_exp_overflows():
    # the bound of an (epsilon, delta) release is e^E / (1 + e^E) or more, E = records x epsilon;
    # past E = 40 that is 1.0 in floating point, and e^E itself overflows past 709
    assert dp.max_attack_auc(1.0, 1e-9, records=1000) == 1.0
    assert dp.max_attack_auc(50.0) == 1.0
    for call in (lambda: dp.cdp_rho(1e300, 1e-9), lambda: dp.cdp_delta(1e300, 1.0)):
        with pytest.raises(PrivlibError, match="must lie in"):
            call()


def test_running_out_of_memory_while_sampling_names_n(monkeypatch):
    model = synth.IndependentMarginals().fit(_rows())

    def exhausted(n, rng):
        raise MemoryError

    monkeypatch.setattr(model, "_sample", exhausted)
    with pytest.raises(
        PrivlibError, match="drawing 1,000 rows from IndependentMarginals ran out of memory; lower `n`"
    ):
        model.sample(1000)


@pytest.mark.slow
def test_an_audit_with_a_half_float_key_runs_every_measure(tmp_path):
    # pandas refuses float16 indexes, which a measure grouping by the key would build
    rng = np.random.default_rng(16)
    table = pd.DataFrame(
        {"age": rng.integers(18, 90, 600), "pay": rng.normal(50, 10, 600).astype("float16")}
    ).assign(sex=rng.choice(["F", "M"], 600))
    report = pl.audit.run(
        train=table.iloc[:300],
        synthetic=table.iloc[150:450],
        holdout=table.iloc[450:],
        keys=["age", "pay"],
        sensitive=["sex"],
        seed=0,
    )
    assert report.measures
