"""Loaders: shapes and types checked against the raw files and the data cards."""

from pathlib import Path

import pandas as pd
import pytest

import privlib as pl
from privlib.errors import PrivlibError

DATA = Path(__file__).resolve().parents[1] / "data"


def _data_lines(path, skip=0):
    lines = path.read_text().splitlines()[skip:]
    return [line for line in lines if line.strip()]


def test_adult_population_is_both_files():
    train_rows = len(_data_lines(DATA / "adult" / "adult.data"))
    test_rows = len(_data_lines(DATA / "adult" / "adult.test", skip=1))
    assert (train_rows, test_rows) == (32561, 16281)
    assert pl.load_dataset("adult").shape == (48842, 15)
    assert pl.load_dataset("adult", part="train").shape == (32561, 15)
    assert pl.load_dataset("adult", part="test").shape == (16281, 15)


def test_adult_types_and_cleaning():
    df = pl.load_dataset("adult")
    for column in ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]:
        assert df[column].dtype == "int64", column
    for column in [
        "workclass",
        "marital-status",
        "occupation",
        "relationship",
        "race",
        "sex",
        "native-country",
        "income",
    ]:
        assert isinstance(df[column].dtype, pd.CategoricalDtype), column
    assert df["education"].dtype.ordered
    assert list(df["education"].cat.categories[[0, -1]]) == ["Preschool", "Doctorate"]
    # "?" marks a missing value in the raw files; the test file's labels lose their final "."
    raw = (DATA / "adult" / "adult.data").read_text() + (DATA / "adult" / "adult.test").read_text()
    assert df.isna().sum().sum() == raw.count(", ?")
    assert set(df["income"].cat.categories) == {"<=50K", ">50K"}
    # education and education-num describe the same thing in the same order
    codes = df["education"].cat.codes + 1
    assert (codes == df["education-num"]).all()


def test_acs_and_ce_shapes_and_types():
    acs = pl.load_dataset("acs")
    assert acs.shape == (10000, 10)
    assert all(isinstance(t, pd.CategoricalDtype) for t in acs.dtypes)
    assert list(acs["SEX"].cat.categories) == [1, 2]
    ce = pl.load_dataset("ce")
    assert ce.shape == (994, 4)
    assert ce["Income"].dtype == "int64" and ce["Expenditure"].dtype == "float64"
    assert isinstance(ce["Race"].dtype, pd.CategoricalDtype)
    assert isinstance(ce["UrbanRural"].dtype, pd.CategoricalDtype)


def test_ontario_drops_identifier_and_health_unit_columns():
    df = pl.load_dataset("ontario_covid19")
    assert (
        len(df) == len(_data_lines(DATA / "ontario_covid19" / "conposcovidloc_2020-04-28.csv")) - 1 == 15381
    )
    assert list(df.columns) == [
        "Accurate_Episode_Date",
        "Age_Group",
        "Client_Gender",
        "Case_AcquisitionInfo",
        "Outcome1",
        "Reporting_PHU",
    ]
    assert pd.api.types.is_datetime64_any_dtype(df["Accurate_Episode_Date"])
    assert df["Accurate_Episode_Date"].nunique() == 80
    assert df["Age_Group"].dtype.ordered
    # "Unknown" ages (7) and "UNKNOWN"/"(blank)" genders (135 + 1) become missing
    assert df["Age_Group"].isna().sum() == 7
    assert df["Client_Gender"].isna().sum() == 136
    assert df["Reporting_PHU"].nunique() == 34


def test_info_matches_the_data():
    for name in pl.DATASETS:
        df, info = pl.load_dataset(name, with_info=True)
        assert set(info.keys) <= set(df.columns)
        assert set(info.sensitive) <= set(df.columns)
        assert set(info.synthesized) <= set(df.columns)
        assert info.card is not None and info.card.exists()
        if info.population_size is not None:
            assert info.population_size >= len(df)


def test_unknown_dataset_and_part():
    with pytest.raises(PrivlibError, match="unknown dataset 'iris'"):
        pl.load_dataset("iris")
    with pytest.raises(PrivlibError, match="part"):
        pl.load_dataset("acs", part="train")


def test_read_table_types_and_errors(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("SEX,Income,Label,Day\n1,100.5,a,2020-04-01\n2,250,b,2020-04-03\n1,300,a,\n")
    df = pl.read_table(path)
    assert isinstance(df["SEX"].dtype, pd.CategoricalDtype)  # few integer codes: categorical
    assert isinstance(df["Label"].dtype, pd.CategoricalDtype)
    assert df["Income"].dtype == "float64"
    assert pd.api.types.is_datetime64_any_dtype(df["Day"]) and df["Day"].isna().sum() == 1
    with pytest.raises(PrivlibError, match="does not exist"):
        pl.read_table(tmp_path / "missing.csv")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(PrivlibError, match="empty"):
        pl.read_table(empty)
    header_only = tmp_path / "header.csv"
    header_only.write_text("a,b\n")
    with pytest.raises(PrivlibError, match="0 row"):
        pl.read_table(header_only)


def test_read_table_like_takes_the_reference_categories(tmp_path):
    acs = pl.load_dataset("acs").head(50)
    path = tmp_path / "syn.csv"
    acs.to_csv(path, index=False)
    back = pl.read_table(path, like=acs)
    assert back["RACE"].dtype == acs["RACE"].dtype
    assert back.equals(acs)


def test_sample_split_is_disjoint_and_seeded():
    df = pl.load_dataset("ce").reset_index()
    a1, b1 = pl.datasets.sample_split(df, 100, 50, random_state=3)
    a2, b2 = pl.datasets.sample_split(df, 100, 50, random_state=3)
    assert a1.equals(a2) and b1.equals(b2)
    assert not set(a1["index"]) & set(b1["index"])
    with pytest.raises(PrivlibError, match="cannot draw"):
        pl.datasets.sample_split(df, 900, 200)


# --------------------------------------------------------------------------------------------
# Parquet
# --------------------------------------------------------------------------------------------
def _typed_table():
    return pd.DataFrame(
        {
            "sex": pd.Categorical(["F", "M", None, "F"]),
            "grade": pd.Categorical(
                ["low", "high", "low", "mid"], categories=["low", "mid", "high"], ordered=True
            ),
            "code": [1, 2, 1, 2],  # few integer codes: categorical from CSV, kept as integers from Parquet
            "day": pd.to_datetime(["2020-04-01", "2020-04-03", None, "2021-01-31"]),
            "income": [100.5, None, 300.0, 12.0],
            "label": ["a", "b", "a", None],
        }
    )


@pytest.mark.parametrize("suffix", [".parquet", ".pq"])
def test_read_table_parquet_keeps_the_stored_types(tmp_path, suffix):
    pytest.importorskip("pyarrow", reason="the `parquet` extra is not installed")
    table = _typed_table()
    path = tmp_path / f"t{suffix}"
    table.to_parquet(path)
    back = pl.read_table(path)
    # categorical (with order and categories), integer, datetime and float columns as written;
    # only the text column becomes a categorical, as from CSV
    for column in ["sex", "grade", "code", "day", "income"]:
        assert back[column].dtype == table[column].dtype, column
    assert back["grade"].dtype.ordered and list(back["grade"].cat.categories) == ["low", "mid", "high"]
    assert isinstance(back["label"].dtype, pd.CategoricalDtype)
    pd.testing.assert_frame_equal(back.drop(columns="label"), table.drop(columns="label"))
    # ``like`` gives a second file the first one's categories, as for CSV
    table.iloc[:2].to_parquet(tmp_path / f"s{suffix}")
    like = pl.read_table(tmp_path / f"s{suffix}", like=back)
    assert like["label"].dtype == back["label"].dtype and like["sex"].dtype == back["sex"].dtype


def test_read_table_parquet_errors_name_the_file(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow", reason="the `parquet` extra is not installed")
    not_parquet = tmp_path / "train.parquet"
    not_parquet.write_text("a,b\n1,2\n")
    with pytest.raises(PrivlibError, match=r"train\.parquet.*not a readable Parquet"):
        pl.read_table(not_parquet)
    _typed_table().iloc[:0].to_parquet(tmp_path / "empty.parquet")
    with pytest.raises(PrivlibError, match="0 row"):
        pl.read_table(tmp_path / "empty.parquet")
    monkeypatch.setitem(__import__("sys").modules, "pyarrow", None)  # as if it were not installed
    with pytest.raises(PrivlibError, match=r"train\.parquet.*needs pyarrow"):
        pl.read_table(not_parquet)


def test_audit_inputs_read_parquet_files(tmp_path):
    # privlib audit reads its files with load_audit_inputs; Parquet and CSV inputs may be mixed
    pytest.importorskip("pyarrow", reason="the `parquet` extra is not installed")
    adult = pl.load_dataset("adult").head(300)
    adult.iloc[:150].to_parquet(tmp_path / "train.parquet")
    adult.iloc[150:250].to_parquet(tmp_path / "synthetic.parquet")
    adult.iloc[250:].to_csv(tmp_path / "holdout.csv", index=False)
    inputs = pl.audit.load_audit_inputs(
        train=str(tmp_path / "train.parquet"),
        synthetic=[str(tmp_path / "synthetic.parquet")],
        holdout=str(tmp_path / "holdout.csv"),
        keys=["age", "sex"],
        sensitive=["income"],
    )
    assert inputs.train.dtypes.equals(adult.dtypes)
    pd.testing.assert_frame_equal(inputs.train, adult.iloc[:150])
    assert len(inputs.primary) == 100 and inputs.holdout.dtypes.equals(adult.dtypes)
