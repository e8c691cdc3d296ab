"""Tests of the baseline synthesizers (privlib.synth).

Expected values come from the data themselves (the training table's own rows, shares and
correlations) or from a formula stated next to the assertion, never from the code's output.
"""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import privlib as pl
from privlib import synth
from privlib.errors import PrivlibError

NAMES = [
    "Copy",
    "AdditiveNoise",
    "IndependentMarginals",
    "GaussianCopula",
    "ParzenWindows",
    "SequentialTrees",
    "OutlierCopies",
]


@pytest.fixture(scope="module")
def adult_train():
    return pl.load_dataset("adult", part="train")


@pytest.fixture(scope="module")
def adult_small(adult_train):
    return adult_train.sample(1500, random_state=0).reset_index(drop=True)


@pytest.fixture(scope="module")
def mixed():
    """Every supported column type, with missing values and a declared but unused category."""
    rng = np.random.default_rng(0)
    n = 600
    x = rng.normal(50.0, 10.0, n)
    x[rng.random(n) < 0.2] = np.nan
    label = rng.choice(np.array(["red", "green", None], dtype=object), n, p=[0.5, 0.4, 0.1])
    return pd.DataFrame(
        {
            "float": x,
            "count": rng.integers(0, 1000, n),
            "code": rng.integers(1, 4, n),  # few distinct integers: read as categorical codes
            "level": pd.Categorical(
                rng.choice(["low", "high"], n), categories=["low", "mid", "high"], ordered=True
            ),
            "label": label,
            "flag": rng.random(n) < 0.3,
            "day": pd.Timestamp("2020-03-01") + pd.to_timedelta(rng.integers(0, 60, n), unit="D"),
        }
    )


def rows_in(frame: pd.DataFrame, reference: pd.DataFrame) -> np.ndarray:
    """Whether each row of ``frame`` equals some row of ``reference`` (missing equals missing)."""
    return (
        pd.util.hash_pandas_object(frame, index=False)
        .isin(pd.util.hash_pandas_object(reference, index=False))
        .to_numpy()
    )


def tvd(real: pd.Series, fake: pd.Series) -> float:
    """Total variation distance of two columns: category shares, or 20 fixed bins for numbers."""
    if isinstance(real.dtype, pd.CategoricalDtype):
        p = real.astype(object).value_counts(normalize=True, dropna=False)
        q = fake.astype(object).value_counts(normalize=True, dropna=False)
        return 0.5 * p.sub(q, fill_value=0.0).abs().sum()
    edges = np.linspace(real.min(), real.max(), 21)
    p = np.histogram(np.clip(real, edges[0], edges[-1]), edges)[0] / len(real)
    q = np.histogram(np.clip(fake, edges[0], edges[-1]), edges)[0] / len(fake)
    return 0.5 * np.abs(p - q).sum()


def rich_share_by_sex(frame: pd.DataFrame) -> pd.Series:
    """Share of Adult records earning more than 50K, for each sex."""
    return (frame["income"] == ">50K").groupby(frame["sex"], observed=True).mean()


# --------------------------------------------------------------------------------------------
# The registry
# --------------------------------------------------------------------------------------------
def test_registry_names_and_make():
    assert list(synth.SYNTHESIZERS) == NAMES
    model = synth.make("ParzenWindows", bandwidth=0.5)
    assert isinstance(model, synth.ParzenWindows) and model.bandwidth == 0.5


def test_synthesize_is_fit_then_sample(adult_small):
    one_call = synth.synthesize(adult_small, "GaussianCopula", n=50, random_state=3)
    two_calls = synth.GaussianCopula().fit(adult_small).sample(50, random_state=3)
    pd.testing.assert_frame_equal(one_call, two_calls)


# --------------------------------------------------------------------------------------------
# Determinism, shape and types
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_table_other_seed_other_table(name, adult_small):
    model = synth.make(name).fit(adult_small)
    first = model.sample(300, random_state=11)
    pd.testing.assert_frame_equal(first, model.sample(300, random_state=11))
    assert not first.equals(model.sample(300, random_state=12))


@pytest.mark.parametrize("name", NAMES)
def test_global_random_state_is_neither_used_nor_changed(name, adult_small):
    model = synth.make(name).fit(adult_small)
    np.random.seed(1)
    before = np.random.get_state()[1].copy()
    first = model.sample(200, random_state=5)
    assert np.array_equal(np.random.get_state()[1], before)
    np.random.seed(2)
    pd.testing.assert_frame_equal(first, model.sample(200, random_state=5))


@pytest.mark.parametrize("dataset", ["adult", "ontario_covid19", "acs", "ce"])
@pytest.mark.parametrize("name", NAMES)
def test_columns_and_dtypes_preserved_on_bundled_data(name, dataset):
    real = pl.load_dataset(dataset)
    real = real.sample(min(len(real), 1500), random_state=1).reset_index(drop=True)
    fake = synth.make(name).fit(real).sample(400, random_state=0)
    assert list(fake.columns) == list(real.columns)
    assert fake.dtypes.to_dict() == real.dtypes.to_dict()
    assert fake.index.equals(pd.RangeIndex(400))
    for column in real.select_dtypes("category"):
        assert set(fake[column].dropna()) <= set(real[column].dropna()), column


@pytest.mark.parametrize("name", NAMES)
def test_every_column_type_round_trips(name, mixed):
    fake = synth.make(name).fit(mixed).sample(2000, random_state=4)
    assert fake.dtypes.to_dict() == mixed.dtypes.to_dict()
    # categories are only ever drawn from those observed: 'mid' is declared but unused
    assert "mid" not in set(fake["level"])
    assert list(fake["level"].cat.categories) == ["low", "mid", "high"]
    assert set(fake["code"]) <= {1, 2, 3}
    assert set(fake["label"].dropna()) <= {"red", "green"}
    # dates come back as whole days
    assert (fake["day"] == fake["day"].dt.normalize()).all()
    # every method carries missing values over (20% of 'float', 10% of 'label')
    assert 0.1 < fake["float"].isna().mean() < 0.3
    assert 0.04 < fake["label"].isna().mean() < 0.16


# --------------------------------------------------------------------------------------------
# Copy and additive noise
# --------------------------------------------------------------------------------------------
def test_copy_reproduces_its_input(adult_small):
    out = synth.Copy().fit(adult_small).sample(random_state=0)
    pd.testing.assert_frame_equal(out, adult_small)


def test_copy_subsets_and_oversamples_training_rows(adult_small):
    model = synth.Copy().fit(adult_small)
    fewer = model.sample(100, random_state=0)
    assert rows_in(fewer, adult_small).all()
    # without replacement: 100 distinct rows of the training data (which has no duplicates)
    assert not adult_small.duplicated().any()
    assert not fewer.duplicated().any()
    more = model.sample(3000, random_state=0)
    assert rows_in(more, adult_small).all() and more.duplicated().any()


def test_additive_noise_without_noise_is_a_copy(adult_small):
    model = synth.AdditiveNoise(noise_scale=0.0, flip_prob=0.0).fit(adult_small)
    out = model.sample(random_state=3)
    pd.testing.assert_frame_equal(out, adult_small)


def test_additive_noise_scale_and_flip_rate():
    rng = np.random.default_rng(0)
    n = 20000
    real = pd.DataFrame({"x": rng.normal(0.0, 2.0, n), "c": pd.Categorical(rng.choice(["a", "b"], n))})
    out = synth.AdditiveNoise(noise_scale=0.5, flip_prob=0.4).fit(real).sample(random_state=1)
    # noise sd = 0.5 x (sd of x, about 2) = about 1
    assert np.std(out["x"] - real["x"]) == pytest.approx(0.5 * real["x"].std(), rel=0.03)
    # a re-drawn value differs with probability 1 - sum p_c^2 = 1/2, so 0.4 x 0.5 = 0.2 change
    p = real["c"].value_counts(normalize=True)
    assert (out["c"] != real["c"]).mean() == pytest.approx(0.4 * (1 - (p**2).sum()), abs=0.01)


# --------------------------------------------------------------------------------------------
# Independent marginals and Gaussian copula
# --------------------------------------------------------------------------------------------
def test_independent_marginals_keep_shares_and_lose_links(adult_train):
    fake = synth.IndependentMarginals().fit(adult_train).sample(random_state=0)
    assert set(fake["age"]) <= set(adult_train["age"])  # observed values, no jitter
    for column in adult_train:
        assert tvd(adult_train[column], fake[column]) < 0.02, column
    # in the real data women earn >50K far less often (10.9% against 30.6%); independently
    # drawn columns give both sexes the overall share (24.1%)
    overall = (adult_train["income"] == ">50K").mean()
    assert np.allclose(rich_share_by_sex(fake), overall, atol=0.015)


def test_gaussian_copula_keeps_rank_correlation_and_shares():
    rng = np.random.default_rng(0)
    n = 20000
    z = rng.multivariate_normal([0, 0], [[1, 0.8], [0.8, 1]], size=n)
    x = np.exp(z[:, 0])  # skewed marginals; ranks do not care
    x[rng.random(n) < 0.25] = np.nan  # missing completely at random
    y = z[:, 1] ** 3
    c = np.select([z[:, 1] < -0.5, z[:, 1] < 0.8], ["low", "mid"], "top")
    real = pd.DataFrame(
        {"x": x, "y": y, "c": pd.Categorical(c, categories=["low", "mid", "top"], ordered=True)}
    )
    fake = synth.GaussianCopula().fit(real).sample(random_state=2)
    assert fake["x"].isna().mean() == pytest.approx(0.25, abs=0.015)
    shares = real["c"].value_counts(normalize=True)
    assert np.allclose(fake["c"].value_counts(normalize=True)[shares.index], shares, atol=0.015)
    assert stats.ks_2samp(real["x"].dropna(), fake["x"].dropna()).statistic < 0.03
    # Spearman correlation of a bivariate normal with rho = 0.8: (6 / pi) arcsin(rho / 2)
    both = fake.dropna()
    expected = 6 / np.pi * np.arcsin(0.4)
    assert stats.spearmanr(both["x"], both["y"]).statistic == pytest.approx(expected, abs=0.02)


# --------------------------------------------------------------------------------------------
# Parzen windows
# --------------------------------------------------------------------------------------------
def test_parzen_tiny_bandwidth_gives_near_copies(adult_small):
    fake = synth.ParzenWindows(bandwidth=1e-9).fit(adult_small).sample(random_state=0)
    # integers are rounded back, so a kernel of 1e-9 standard deviations returns training rows
    assert rows_in(fake, adult_small).all()


def test_parzen_large_bandwidth_blurs_by_the_kernel_formula():
    rng = np.random.default_rng(0)
    n, h = 40000, 3.0
    real = pd.DataFrame(
        {"x": rng.normal(10.0, 2.0, n), "c": pd.Categorical(np.where(rng.random(n) < 0.9, "a", "b"))}
    )
    fake = synth.ParzenWindows(bandwidth=h).fit(real).sample(random_state=1)
    # standardised x plus N(0, h^2) noise: the spread grows by sqrt(1 + h^2)
    assert fake["x"].std() == pytest.approx(real["x"].std(ddof=0) * np.sqrt(1 + h * h), rel=0.02)
    # a two-category one-hot keeps its category when 1 + e1 > e2, i.e. with
    # probability Phi(1 / (h sqrt 2)); so P(a) = 0.9 keep + 0.1 (1 - keep)
    keep = stats.norm.cdf(1 / (h * np.sqrt(2)))
    p_a = (real["c"] == "a").mean()
    expected = p_a * keep + (1 - p_a) * (1 - keep)
    assert (fake["c"] == "a").mean() == pytest.approx(expected, abs=0.01)


# --------------------------------------------------------------------------------------------
# Sequential trees
# --------------------------------------------------------------------------------------------
def test_sequential_trees_keep_marginals_without_copying(adult_train):
    fake = synth.SequentialTrees().fit(adult_train).sample(random_state=0)
    distances = {c: tvd(adult_train[c], fake[c]) for c in adult_train}
    assert max(distances.values()) < 0.05, distances
    # fnlwgt is almost unique per person, so whole records recur only if trees copy them;
    # measured about 2% with min_samples_leaf=5
    assert rows_in(fake, adult_train).mean() < 0.10
    # unlike independent marginals, the sex-income link survives (real: 10.9% vs 30.6%)
    assert np.allclose(rich_share_by_sex(fake), rich_share_by_sex(adult_train), atol=0.02)


def test_sequential_trees_model_missing_numbers():
    rng = np.random.default_rng(0)
    n = 4000
    group = rng.choice(["x", "y"], n)
    value = rng.normal(100.0, 15.0, n)
    value[(group == "y") & (rng.random(n) < 0.5)] = np.nan  # missing only in group y, half of it
    real = pd.DataFrame({"group": pd.Categorical(group), "value": value})
    fake = synth.SequentialTrees().fit(real).sample(random_state=0)
    missing = fake["value"].isna().groupby(fake["group"], observed=True).mean()
    assert missing["x"] == 0.0
    assert missing["y"] == pytest.approx(0.5, abs=0.04)


def test_partially_synthetic_keeps_other_columns_row_by_row():
    real = pl.load_dataset("acs")
    info = pl.dataset_info("acs")
    model = synth.SequentialTrees(synthesize=info.synthesized).fit(real)
    fake = model.sample(random_state=0)
    kept = [c for c in real if c not in info.synthesized]
    pd.testing.assert_frame_equal(fake[kept], real[kept])
    assert fake.dtypes.to_dict() == real.dtypes.to_dict()
    changed = (fake[info.synthesized] != real[info.synthesized]).any(axis=1).mean()
    assert changed > 0.05
    with pytest.raises(PrivlibError, match="training size"):
        model.sample(100)


def test_visit_order_is_the_order_columns_are_drawn_in(adult_small):
    # Visiting the columns in a given order is the same as fitting, with the default order (the
    # columns' own), on the table with its columns in that order: same trees, same draws.
    order = list(adult_small.columns)[::-1]
    visited = synth.SequentialTrees(visit_order=order).fit(adult_small).sample(random_state=0)
    reordered = synth.SequentialTrees().fit(adult_small[order]).sample(random_state=0)
    pd.testing.assert_frame_equal(visited, reordered[list(adult_small.columns)])
    # and it is a different table from the default order's, for the same seed: the first column
    # visited is drawn anew. Two independent draws of a share p disagree on 2p(1-p) of the rows.
    default = synth.SequentialTrees().fit(adult_small).sample(random_state=0)
    first = order[0]
    p = (adult_small[first] == adult_small[first].mode()[0]).mean()
    disagree = (visited[first].to_numpy() != default[first].to_numpy()).mean()
    assert disagree > 2 * p * (1 - p) / 2


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda df: df.iloc[:0], "0 row"),
        (lambda df: df.assign(region="north"), "'region'"),
        (lambda df: df.assign(score=np.nan), "'score'"),
        (lambda df: df.assign(amount=np.r_[np.inf, np.ones(len(df) - 1)]), "'amount'"),
    ],
    ids=["empty", "constant", "all-missing", "infinite"],
)
def test_bad_tables_are_rejected_naming_the_column(name, change, fragment, adult_small):
    with pytest.raises(PrivlibError, match=fragment):
        synth.make(name).fit(change(adult_small))


@pytest.mark.parametrize(
    "model, fragment",
    [
        (synth.SequentialTrees(synthesize=["salary"]), "'salary'"),
        (synth.SequentialTrees(synthesize=[]), "synthesize"),
        (synth.SequentialTrees(visit_order=["age", "sex"]), "left out"),
        (synth.SequentialTrees(synthesize=["age"], visit_order=["sex"]), "not synthesized"),
        (synth.SequentialTrees(min_samples_leaf=0), "min_samples_leaf"),
        (synth.AdditiveNoise(noise_scale=-1), "noise_scale"),
        (synth.AdditiveNoise(flip_prob=1.5), "flip_prob"),
        (synth.ParzenWindows(bandwidth=0), "bandwidth"),
    ],
)
def test_bad_parameters_are_rejected_by_name(model, fragment, adult_small):
    with pytest.raises(PrivlibError, match=fragment):
        model.fit(adult_small)


@pytest.mark.parametrize("n", [0, -5, 2.5, True, "10"])
def test_bad_n_is_rejected(n, adult_small):
    with pytest.raises(PrivlibError, match="`n`"):
        synth.IndependentMarginals().fit(adult_small).sample(n)


def test_misuse_is_rejected(adult_small):
    with pytest.raises(PrivlibError, match="not fitted"):
        synth.GaussianCopula().sample(10)
    with pytest.raises(PrivlibError, match="random_state"):
        synth.Copy().fit(adult_small).sample(random_state="seed")
    with pytest.raises(PrivlibError, match="DataFrame"):
        synth.Copy().fit(adult_small.to_numpy())
    with pytest.raises(PrivlibError, match="'CTGAN'"):
        synth.make("CTGAN")
    with pytest.raises(PrivlibError, match="bandwidth"):
        synth.make("Copy", bandwidth=1.0)


def test_outlier_copies_release_the_most_isolated_records_and_only_them():
    # 60 records on a grid of 20 values, each value held three times (nearest other record at
    # distance 0), and three records alone far away: those three are the most isolated
    rng = np.random.default_rng(3)
    ordinary = pd.DataFrame(
        {"x": np.repeat(np.arange(20.0), 3), "group": np.repeat(rng.choice(["a", "b"], 20), 3)}
    )
    lonely = pd.DataFrame({"x": [500.0, 700.0, 900.0], "group": ["c", "d", "e"]})
    train = pd.concat([ordinary, lonely], ignore_index=True)
    model = synth.OutlierCopies(base="IndependentMarginals", n_copies=3).fit(train)
    fake = model.sample(40, random_state=0)
    assert sorted(model.copied_.tolist()) == [60, 61, 62]
    released = set(zip(fake["x"], fake["group"]))
    assert {(500.0, "c"), (700.0, "d"), (900.0, "e")} <= released
    assert len(fake) == 40 and fake.dtypes.to_dict() == train.dtypes.to_dict()
    # without copies the release is the base generator's sample, rows shuffled
    none = synth.OutlierCopies(base="IndependentMarginals", n_copies=0).fit(train).sample(40, random_state=0)
    base = synth.IndependentMarginals().fit(train).sample(40, random_state=0)
    pd.testing.assert_frame_equal(
        none.sort_values(["x", "group"]).reset_index(drop=True),
        base.sort_values(["x", "group"]).reset_index(drop=True),
    )


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"base": "OutlierCopies"}, "`base`"),
        ({"base": "CTGAN"}, "`base`"),
        ({"n_copies": -1}, "`n_copies`"),
        ({"n_copies": 1.5}, "`n_copies`"),
        ({"n_copies": 2000}, "`n_copies`"),
    ],
)
def test_outlier_copies_bad_parameters_name_themselves(params, fragment, adult_small):
    with pytest.raises(PrivlibError, match=fragment):
        synth.OutlierCopies(**params).fit(adult_small)
