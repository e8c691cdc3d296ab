"""The distance measures on a bounded sample of records (``max_queries``): each reads the seeded
sample of :func:`privlib.matching.query_samples`, searched among every record, and gives what the
measure's definition gives on those records, with distances computed here by brute force; with one
seed every measure reads the same records, so inside an audit no table is searched whole."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import privlib.neighbors.search as search_module
from privlib.attacks import near_copy_test
from privlib.identity import dcr_summary
from privlib.matching import query_samples
from privlib.membership import dcr_holdout_share, nn_mia, privacy_loss, threshold_attack
from privlib.records import nn_mia_low_fpr
from privlib.search_reuse import reuse_searches

SEED, BOUND = 4, 20
SIZES = {"train": 60, "holdout": 40, "synthetic": 50}
ROLES = ("train", "synthetic", "holdout")


def stream_rows(seed: int, role: str, n: int, size: int) -> np.ndarray:
    """The documented draw: ``size`` positions without replacement, in increasing order, from the
    stream of the seed and the role's place among training, synthetic and holdout."""
    return np.sort(np.random.default_rng([seed, ROLES.index(role)]).choice(n, size, replace=False))


def table(rng, n):
    """An integer 0..4 and a category of three: every Gower distance is a multiple of 1/8, exact
    in floating point, so ties are ties in both computations."""
    x = rng.integers(0, 5, size=n).astype("float64")
    x[:2] = [0, 4]  # the range is 4 in every table
    return pd.DataFrame({"x": x, "c": rng.choice(list("abc"), size=n)})


def gower(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """Every Gower distance between the records of ``a`` and ``b`` (range of x is 4)."""
    dx = np.abs(a["x"].to_numpy()[:, None] - b["x"].to_numpy()[None, :]) / 4
    dc = a["c"].to_numpy()[:, None] != b["c"].to_numpy()[None, :]
    return (dx + dc) / 2


@pytest.fixture
def release():
    rng = np.random.default_rng(17)
    tables = {role: table(rng, n) for role, n in SIZES.items()}
    rows = {role: stream_rows(SEED, role, n, BOUND) for role, n in SIZES.items()}
    return tables, rows, dict(**tables, random_state=SEED, max_queries=BOUND)


def test_each_table_is_sampled_from_a_stream_of_its_own():
    alone = query_samples(SEED, BOUND, train=60)
    together = query_samples(SEED, BOUND, train=60, synthetic=50, holdout=15)
    assert np.array_equal(alone["train"], together["train"])
    assert np.array_equal(together["train"], stream_rows(SEED, "train", 60, BOUND))
    assert np.array_equal(together["synthetic"], stream_rows(SEED, "synthetic", 50, BOUND))
    assert together["holdout"] is None  # no more records than the bound: every record
    assert query_samples(SEED, None, train=60) == {"train": None}
    # a generator in the same state draws the same sample
    first, second = (query_samples(np.random.default_rng(9), BOUND, train=60)["train"] for _ in range(2))
    assert np.array_equal(first, second) and first.size == BOUND and np.all(np.diff(first) > 0)


def test_dcr_summary_reads_the_sampled_synthetic_and_holdout_records(release):
    tables, rows, arguments = release
    train, holdout, synthetic = tables["train"], tables["holdout"], tables["synthetic"]
    result = dcr_summary(**arguments)
    expected = gower(synthetic.iloc[rows["synthetic"]], train).min(axis=1)
    expected_holdout = gower(holdout.iloc[rows["holdout"]], train).min(axis=1)
    assert np.array_equal(result.distances, expected)
    assert np.array_equal(result.holdout_distances, expected_holdout)
    assert result.value == np.mean(expected == 0) and result.baseline == np.mean(expected_holdout == 0)
    assert result.sample_size == BOUND
    assert f"sample of at most {BOUND} records per table" in result.reading()


def test_dcr_holdout_share_reads_the_sampled_synthetic_records(release):
    tables, rows, arguments = release
    train, holdout, synthetic = tables["train"], tables["holdout"], tables["synthetic"]
    result = dcr_holdout_share(**arguments)
    # training subsampled to the holdout's 40 records, drawn from the measure's own seed
    drawn = np.sort(np.random.default_rng(SEED).choice(60, 40, replace=False))
    queries = synthetic.iloc[rows["synthetic"]]
    to_train, to_holdout = gower(queries, train.iloc[drawn]).min(axis=1), gower(queries, holdout).min(axis=1)
    assert np.array_equal(result.dcr_train, to_train) and np.array_equal(result.dcr_holdout, to_holdout)
    closer, tied = np.sum(to_train < to_holdout), np.sum(to_train == to_holdout)
    assert result.value == pytest.approx((closer + 0.5 * tied) / BOUND, abs=1e-15)
    assert (result.n_synthetic, result.sample_size) == (BOUND, BOUND)


def member_distances(tables, rows):
    """Distance to the nearest synthetic record of the sampled training, then holdout records."""
    return [
        gower(tables[role].iloc[rows[role]], tables["synthetic"]).min(axis=1) for role in ("train", "holdout")
    ]


def test_the_distance_attacks_read_the_sampled_training_and_holdout_records(release):
    tables, rows, arguments = release
    members, others = member_distances(tables, rows)
    dcr = np.concatenate([members, others])
    # nn_mia: the AUC of minus the distance, by counting pairs (a tie counts one half)
    auc = (np.sum(members[:, None] < others[None, :]) + 0.5 * np.sum(members[:, None] == others[None, :])) / (
        BOUND * BOUND
    )
    mia = nn_mia(**arguments)
    assert mia.auc == pytest.approx(auc, abs=1e-12)
    assert (mia.n_train, mia.n_holdout, mia.sample_size) == (BOUND, BOUND, BOUND)
    # the threshold attack calls the records at most the median distance away
    called = dcr <= np.median(dcr)
    attack = threshold_attack(**arguments)
    assert attack.value == pytest.approx(np.sum(called[:BOUND]) / np.sum(called), abs=1e-12)
    assert attack.n_attack == 2 * BOUND
    # the low false-positive reading scores the same records
    point = nn_mia_low_fpr(**arguments)
    assert np.array_equal(np.sort(point.member_scores), np.sort(-members))
    assert np.array_equal(np.sort(point.nonmember_scores), np.sort(-others))
    for result in (mia, attack, point):
        assert f"sample of at most {BOUND} records per table" in result.reading()


def test_near_copy_test_scores_the_sampled_records_against_every_record(release):
    tables, rows, arguments = release
    train, holdout, synthetic = tables["train"], tables["holdout"], tables["synthetic"]
    result = near_copy_test(**arguments)
    c = 0.001 / 2  # a thousandth of one variable's range, in Gower units of two variables

    def scores(own, other, at):
        to_own = gower(own.iloc[at], own)
        to_own[np.arange(at.size), at] = np.inf  # the record itself is not its neighbour
        real = np.minimum(to_own.min(axis=1), gower(own.iloc[at], other).min(axis=1))
        near = gower(own.iloc[at], synthetic).min(axis=1)
        return np.log(real + c) - np.log(near + c)

    point = result.points[("near_copy", 0.001)]
    assert np.allclose(point.member_scores, scores(train, holdout, rows["train"]), rtol=0, atol=1e-12)
    assert np.allclose(point.nonmember_scores, scores(holdout, train, rows["holdout"]), rtol=0, atol=1e-12)
    assert (result.n_members, result.n_nonmembers, result.sample_size) == (BOUND, BOUND, BOUND)


def test_with_one_seed_no_distance_measure_searches_more_than_the_bound(release, monkeypatch):
    """Inside one reuse block, as in an audit: every search queries at most the bound's records,
    and the attacks read the searches of the privacy loss instead of searching again."""
    tables, _, arguments = release
    queried = []
    search = search_module._search

    def counting(sources, k, *args, **kwargs):
        queried.append(sources.n_query)
        return search(sources, k, *args, **kwargs)

    monkeypatch.setattr(search_module, "_search", counting)
    with reuse_searches():
        privacy_loss(
            train=tables["train"],
            holdout=tables["holdout"],
            synthetic=tables["synthetic"],
            random_state=SEED,
            n_repeats=3,
            max_queries=BOUND,
        )
        after_loss = len(queried)
        for measure in (threshold_attack, nn_mia, nn_mia_low_fpr):
            measure(**arguments)
        assert len(queried) == after_loss  # training and holdout -> synthetic: the loss's searches
        for measure in (dcr_summary, dcr_holdout_share, near_copy_test):
            measure(**arguments)
    assert queried and max(queried) <= BOUND


#: The measures of the audit that read distances of sampled records beyond the bound.
DISTANCE_MEASURES = (
    "dcr_zero_share",
    "dcr_holdout_share",
    "threshold_attack_precision",
    "nn_mia_auc",
    "nn_mia_tpr_at_0.1pct",
    "adversarial_accuracy",
    "privacy_loss",
    "near_copy_test",
)


def test_the_audit_gives_every_distance_measure_the_bound_and_its_seed():
    """50,000 records per table, well above the 2,000 of the pinned audits, and the audit's seed,
    so that the measures read the same records and the audit searches each question once."""
    from privlib.audit import CATALOGUE
    from privlib.declaration import MAX_DISTANCE_QUERIES, Context

    assert MAX_DISTANCE_QUERIES == 50_000
    table = pd.DataFrame({"a": np.zeros(4)})
    context = Context(
        train=table,
        synthetic=table,
        holdout=table,
        synthetics={},
        keys=["a"],
        sensitive=[],
        population_size=None,
        settings={"seed": 1, "repeats": 2},
        binned=lambda table: table,
        kinds={},
    )
    arguments = {e.key: e.arguments(context) for e in CATALOGUE if e.key in DISTANCE_MEASURES}
    assert {key: (a["max_queries"], a["random_state"]) for key, a in arguments.items()} == {
        key: (50_000, 1) for key in DISTANCE_MEASURES
    }


@pytest.mark.slow
def test_an_audit_of_tables_beyond_the_bound_states_its_samples(monkeypatch):
    """The audit passes the bound to every distance measure; each names the sample in its details
    and reading, and the first page says what a sample cannot show."""
    import privlib as pl
    import privlib.declaration as declaration
    from privlib.render.audit_pages import decision_html

    adult = pl.datasets.load_dataset("adult")
    settings = dict(
        train=adult.iloc[:400],
        holdout=adult.iloc[400:700],
        synthetic=adult.iloc[700:1100],
        keys=["age", "sex", "race"],
        sensitive=["income"],
        seed=3,
    )
    whole = pl.audit.run(**settings)
    monkeypatch.setattr(declaration, "MAX_DISTANCE_QUERIES", 150)
    bounded = pl.audit.run(**settings)
    sampled = {m.key for m in bounded.measures if m.details.get("sample_size") == 150}
    assert sampled == set(DISTANCE_MEASURES)
    assert all(
        "sample of at most 150 records per table" in m.reading for m in bounded.measures if m.key in sampled
    )
    assert not any(m.details.get("sample_size") for m in whole.measures)
    limit = "some measures read a seeded sample of at most 150 records per table"
    assert limit in str(decision_html(bounded)) and "seeded sample" not in str(decision_html(whole))
