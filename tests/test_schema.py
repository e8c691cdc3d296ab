"""Validation messages and the shared encoding, checked on hand-made tables."""

import numpy as np
import pandas as pd
import pytest

from privlib.errors import PrivlibError
from privlib.schema import (
    MISSING,
    TableEncoder,
    check_columns,
    check_comparable,
    check_frame,
    harmonize,
    infer_kinds,
    restore_numeric,
)


@pytest.fixture
def table():
    return pd.DataFrame(
        {
            "age": [20.0, 30.0, 40.0],
            "sex": pd.Categorical(["F", "M", "F"]),
            "grade": pd.Categorical(["low", "high", "mid"], categories=["low", "mid", "high"], ordered=True),
            "code": [1, 2, 1],
            "when": pd.to_datetime(["2020-01-01", "2020-01-11", "2020-01-21"]),
        }
    )


def test_infer_kinds(table):
    assert infer_kinds(table) == {
        "age": "numeric",
        "sex": "categorical",
        "grade": "ordinal",
        "code": "numeric",
        "when": "numeric",
    }
    # survey codes: few distinct integers read as categories only when asked (reading a CSV)
    assert infer_kinds(table, max_categories=10)["code"] == "categorical"
    many = pd.DataFrame({"n": np.arange(50)})
    assert infer_kinds(many, max_categories=10) == {"n": "numeric"}


def test_privlib_error_is_a_value_error():
    assert issubclass(PrivlibError, ValueError)


@pytest.mark.parametrize(
    "frame, pattern",
    [
        (pd.DataFrame({"a": []}), "0 row"),
        (pd.DataFrame(index=range(3)), "no columns"),
        (pd.DataFrame({"a": [1, 2], "b": [np.nan, np.nan]}), "column 'b' .* entirely missing"),
        (pd.DataFrame({"a": [1, "x", 2.5]}), r"column 'a' .* mixes 2 number\(s\) with 1 other value"),
        ([[1, 2]], "must be a pandas DataFrame"),
    ],
)
def test_check_frame_rejects(frame, pattern):
    with pytest.raises(PrivlibError, match=pattern):
        check_frame(frame, "train")


def test_constant_column_only_rejected_when_asked():
    df = pd.DataFrame({"a": [1, 2, 3], "k": ["x", "x", "x"]})
    check_frame(df, "train")
    with pytest.raises(PrivlibError, match="column 'k' .* holds one value in every row"):
        check_frame(df, "train", reject_constant=True)


def test_check_columns_names_the_parameter(table):
    assert check_columns(table, "age", "keys") == ["age"]
    with pytest.raises(PrivlibError, match=r"`keys` names \['zip'\]"):
        check_columns(table, ["age", "zip"], "keys", "train")
    with pytest.raises(PrivlibError, match="`target` is empty"):
        check_columns(table, [], "target")


def test_check_comparable(table):
    check_comparable(table, table.copy())
    with pytest.raises(PrivlibError, match=r"\['code'\] only in `train`"):
        check_comparable(table, table.drop(columns="code"))
    other = table.assign(age=["a", "b", "c"])
    with pytest.raises(PrivlibError, match="column 'age' is numeric in `train` but categorical"):
        check_comparable(table, other)
    unseen = table.assign(sex=pd.Categorical(["F", "X", "F"]))
    with pytest.raises(
        PrivlibError,
        match=r"column 'sex' of `synthetic` holds 1 category never seen in `train` "
        r"\(1 row\(s\)\)",
    ) as refusal:
        check_comparable(table, unseen)
    assert "'X'" not in str(refusal.value)  # a category of the data is never quoted
    check_comparable(table, unseen, unseen="ignore")


def test_harmonize_shares_categories():
    a = pd.DataFrame({"c": pd.Categorical(["x", "y"])})
    b = pd.DataFrame({"c": pd.Categorical(["z", "x"])})
    out = harmonize({"a": a, "b": b})
    assert list(out["a"]["c"].cat.categories) == ["x", "y", "z"]
    assert out["a"]["c"].dtype == out["b"]["c"].dtype
    assert out["b"]["c"].tolist() == ["z", "x"]


def test_gower_encoding_by_hand():
    a = pd.DataFrame({"age": [20.0, 60.0, np.nan], "sex": ["F", "M", None]})
    enc = TableEncoder().fit(a)
    x = enc.transform(a)
    # age range 40 from 20 to 60; categories coded in order of appearance
    assert x[0].tolist() == [0.0, 0.0]
    assert x[1].tolist() == [1.0, 1.0]
    assert x[2].tolist() == [MISSING, MISSING]
    assert enc.scale == 2.0

    def gower(u, v):
        return float(np.minimum(np.abs(u - v), enc.cap).sum() / enc.scale)

    b = pd.DataFrame({"age": [30.0], "sex": ["M"]})
    y = enc.transform(b)[0]
    # |20 - 30| / 40 = 0.25 and F != M: (0.25 + 1) / 2
    assert gower(x[0], y) == pytest.approx(0.625)
    # missing vs a value counts 1 per variable; missing vs missing 0
    assert gower(x[2], y) == pytest.approx(1.0)
    assert gower(x[2], x[2]) == 0.0


def test_hamming_bins_by_hand():
    fit_on = pd.DataFrame({"v": [0.0, 100.0]})
    enc = TableEncoder(metric="hamming", n_bins=20).fit(fit_on)
    codes = enc.transform(pd.DataFrame({"v": [0.0, 4.9, 5.0, 99.0, 100.0, 150.0, -3.0]}))[:, 0]
    # width 5: [0,5) -> 0, [5,10) -> 1, ..., the maximum in the last bin, out-of-range clipped
    assert codes.tolist() == [0, 0, 1, 19, 19, 19, 0]
    assert enc.scale == 1.0


def test_encoder_errors():
    enc = TableEncoder()
    with pytest.raises(PrivlibError, match="not fitted"):
        enc.transform(pd.DataFrame({"a": [1.0]}))
    enc.fit(pd.DataFrame({"a": [1.0, 2.0]}))
    with pytest.raises(PrivlibError, match="column 'a' of `data` is not numeric"):
        enc.transform(pd.DataFrame({"a": ["x"]}))
    with pytest.raises(PrivlibError, match="`metric`"):
        TableEncoder(metric="cosine").fit(pd.DataFrame({"a": [1.0]}))


def test_encoder_can_be_refitted_on_other_tables():
    encoder = TableEncoder()
    encoder.fit(pd.DataFrame({"a": [1.0, 2.0], "b": ["x", "y"]}))
    assert encoder.columns is None and encoder.columns_ == ["a", "b"]
    encoder.fit(pd.DataFrame({"c": [1.0, 3.0]}))  # the constructor's `columns` was not overwritten
    assert encoder.columns_ == ["c"] and list(encoder.kinds_) == ["c"]
    assert encoder.transform(pd.DataFrame({"c": [3.0]})).tolist() == [[1.0]]


def test_a_column_constant_in_fit_still_tells_different_values_apart():
    from privlib.neighbors import kneighbors

    encoder = TableEncoder().fit(pd.DataFrame({"a": [5.0, 5.0], "b": ["x", "x"]}))
    query = pd.DataFrame({"a": [5.0, 7.0], "b": ["x", "x"]})
    reference = pd.DataFrame({"a": [5.0], "b": ["x"]})
    result = kneighbors(query, reference, encoder=encoder)
    # Gower by hand: equal to the constant -> 0; 7 vs 5 differs -> the cap 1, over 2 columns.
    assert result.distances[:, 0].tolist() == [0.0, 0.5]


def test_unseen_categories_differ_from_each_other_and_keep_their_code_across_tables():
    from privlib.neighbors import kneighbors

    encoder = TableEncoder().fit(pd.DataFrame({"b": ["x", "y"]}))
    query = pd.DataFrame({"b": ["new", "other"]})
    reference = pd.DataFrame({"b": ["new"]})
    result = kneighbors(query, reference, encoder=encoder)
    # "new" equals "new" (distance 0); "other" differs from "new" (distance 1), though neither was seen.
    assert result.distances[:, 0].tolist() == [0.0, 1.0]


@pytest.mark.parametrize("dtype", ["int64", "Int64", "UInt8"])
def test_restore_numeric_rounds_back_into_the_integer_dtype(dtype):
    # 1.4 rounds to 1 and 2.6 to 3, in the column's own dtype, nullable ones included.
    restored = restore_numeric(np.array([1.4, 2.6]), pd.Series([], dtype=dtype, name="count"))
    assert restored.dtype == dtype
    assert restored.name == "count"
    assert restored.tolist() == [1, 3]
