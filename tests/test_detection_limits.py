"""Detection limits by planting: the incremental readings against the tests re-run on the planted
release, the bisection on hand-made detectors, the family rule's Holm step by hand, and the limits
of a release from other people on Adult (verbatim copies caught) and ACS (near copies not)."""

from __future__ import annotations

import math
from functools import partial

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.attacks import near_copy_test
from privlib.audit.detection_limits import (
    DetectionLimit,
    detection_limits,
    family_caught,
    smallest_caught,
)
from privlib.audit.planting import (
    LEAKS,
    _AttributionDraws,
    _CopyDraws,
    _leak_records,
    _release_state,
    _unique_on_keys,
    nearest_planted,
)
from privlib.matching import gower_setup
from privlib.neighbors import kneighbors
from privlib.rare_attributions import rare_attribution_test
from privlib.rare_copies import rare_copy_test
from privlib.records import copy_test, nn_mia_low_fpr


def _split(dataset: str, size: int, seed: int):
    """Three disjoint samples: training, holdout and the records a release is fitted on."""
    population = pl.load_dataset(dataset)
    order = np.random.default_rng(seed).permutation(len(population))
    return [
        population.iloc[np.sort(order[i * size : (i + 1) * size])].reset_index(drop=True) for i in range(3)
    ]


@pytest.fixture(scope="module")
def adult_small():
    train, holdout, other = _split("adult", 200, 11)
    return train, holdout, other


# -- the incremental readings equal the tests run on the planted release -------------------------
@pytest.mark.parametrize("leak", ["verbatim", "near copies", "rare copies"])
def test_incremental_readings_equal_the_tests_on_the_planted_release(adult_small, leak):
    train, holdout, synthetic = adult_small
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    pool = {"rare copies": state.rare_train}.get(leak, np.arange(len(train)))
    rngs = [np.random.default_rng(d) for d in range(2)]
    size = min(40, pool.size)
    sources = [r.choice(pool, size, replace=False) for r in rngs]
    plants = [_leak_records(leak, state, [s], None, None, [r]) for s, r in zip(sources, rngs)]
    # one piece holds them all; copies search only the records they can bring closer
    draws = _CopyDraws(
        state,
        lambda asked, piece: pd.concat([plants[d] for d in asked], ignore_index=True),
        2,
        0.95,
        None if leak == "near copies" else lambda draw, start, stop: sources[draw][start:stop],
    )
    for draw, size in ((0, 3), (1, min(40, pool.size)), (0, min(17, pool.size))):  # grown, another draw
        planted = pd.concat([synthetic, plants[draw].iloc[:size]], ignore_index=True)
        read = draws.p_values(draw, size)
        # the nearest synthetic distances: a brute-force search of the whole planted release
        encoder = gower_setup(train, holdout, planted)
        full = np.concatenate(
            [kneighbors(t, planted, k=1, encoder=encoder).distances[:, 0] for t in (train, holdout)]
        )
        np.testing.assert_array_equal(draws._grown(draw, size)[1], full)
        assert read["copy_test"] == copy_test(train=train, holdout=holdout, synthetic=planted).p_value
        rare = rare_copy_test(train=train, holdout=holdout, synthetic=planted, random_state=5)
        assert read["rare_copy_test"] == rare.p_value
        for rate in (0.001, 0.01):
            point = nn_mia_low_fpr(train=train, holdout=holdout, synthetic=planted, fpr=rate, random_state=5)
            # at 200 holdout records the 0.1% reading is not assessable: NaN on both sides
            np.testing.assert_equal(read[point.measure], point.p_value)
        assert (
            read["near_copy_test"] == near_copy_test(train=train, holdout=holdout, synthetic=planted).p_value
        )


def test_incremental_attributions_equal_the_test_on_the_planted_release(adult_small):
    train, holdout, synthetic = adult_small
    info = pl.dataset_info("adult")
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    pool = _unique_on_keys(train, holdout, info.keys)
    rng = np.random.default_rng(9)
    sources = rng.choice(pool, 30, replace=False)
    plants = [_leak_records("rare-key attributions", state, [sources], info.keys, info.sensitive, [rng])]
    draws = _AttributionDraws(state, plants[0], 1, info.keys, info.sensitive, 0.01, 0.95)
    for size in (1, 12, 30):
        planted = pd.concat([synthetic, plants[0].iloc[:size]], ignore_index=True)
        read = draws.p_values(0, size)
        for target in info.sensitive:
            test = rare_attribution_test(
                train=train, holdout=holdout, synthetic=planted, keys=info.keys, target=target
            )
            assert read[f"rare_attribution_test[{target}]"] == test.p_value
    # a planted record carries its source's keys and sensitive value, the rest from the release
    source = train.iloc[pool].set_index(info.keys)
    first = plants[0].iloc[0]
    assert first[info.sensitive[0]] == source.loc[tuple(first[info.keys]), info.sensitive[0]]


def test_nearest_planted_by_hand():
    # Gower over x (range 0..10) and g: (|dx| / 10 + [g differs]) / 2
    real = pd.DataFrame({"x": [0.0, 10.0, 4.0], "g": ["a", "b", None]})
    planted = pd.DataFrame({"x": [5.0, 10.0], "g": ["a", "a"]})
    encoder = gower_setup(real, real, planted)
    found = nearest_planted(encoder.transform(real), encoder.transform(planted), encoder)
    # 0: to (5, a) 0.25; 1: to (10, a) 0.5; 2: missing g against a counts 1, to (5, a) (0.1 + 1) / 2
    np.testing.assert_allclose(found, [0.25, 0.5, 0.55], rtol=0, atol=1e-15)


# -- the bisection ------------------------------------------------------------------------------
def test_bisection_finds_the_smallest_size_meeting_the_rate():
    asked = []

    def detector(size):  # rises by 2% per record: 0.9 is first met at 45
        asked.append(size)
        return min(1.0, size / 50)

    assert smallest_caught(detector, 2000, 0.9) == (45, 0.9, 44, 0.88)
    assert len(asked) == len(set(asked)) <= 2 * math.ceil(math.log2(2000))
    # a step at 1: caught from the first record, nothing tried below it
    assert smallest_caught(lambda size: 1.0, 100, 0.9) == (1, 1.0, None, None)
    # caught only by the whole release
    assert smallest_caught(lambda size: float(size == 77), 77, 0.9) == (77, 1.0, 76, 0.0)
    # never caught: the rate at the largest size
    assert smallest_caught(lambda size: 0.5, 64, 0.9) == (None, 0.5, None, None)


@pytest.mark.parametrize(
    ("p_values", "caught"),
    [
        ({"copy_test": 0.049}, True),  # one test: significant alone
        ({"copy_test": 0.051}, False),
        ({"copy_test": 0.03, "rare_copy_test": 0.5}, False),  # Holm: 0.03 x 2 = 0.06
        ({"copy_test": 0.02, "rare_copy_test": 0.5}, True),  # 0.04
        ({"copy_test": math.nan, "rare_copy_test": 0.04}, True),  # a test not assessable is left out
        # one attack's two rates share its part: 0.004 x 2 (its half) x ... = 0.016 (rulebook example)
        ({"nn_mia_tpr_at_0.1pct": 0.004, "nn_mia_tpr_at_1pct": 0.2, "near_copy_test": 0.06}, True),
        ({"nn_mia_tpr_at_0.1pct": 0.2, "nn_mia_tpr_at_1pct": 0.2, "near_copy_test": 0.03}, False),
    ],
)
def test_family_caught_is_the_family_rule_with_holm(p_values, caught):
    assert family_caught(p_values, family="f", confidence=0.95) is caught


def test_reading_says_counts_and_shares_only():
    found = DetectionLimit(
        leak="verbatim", family="identity", limit=12, release_size=2000, largest=2000, draws=50,
        rate=0.9, rate_at_limit=0.92, below=11, rate_below=0.86, random_state=1,
    )  # fmt: skip
    assert found.share == 0.006
    assert (
        "12 copied training records" in found.reading() and "(0.6% of its 2,000 records)" in found.reading()
    )
    assert "11 are caught in 86%" in found.reading()
    none = DetectionLimit(
        leak="near copies", family="membership", limit=None, release_size=2000, largest=2000, draws=50,
        rate=0.9, rate_at_limit=0.1, below=None, rate_below=None, random_state=1,
    )  # fmt: skip
    assert none.share is None and "at any size up to the whole release" in none.reading()


def test_same_seed_same_limits(adult_small):
    train, holdout, synthetic = adult_small
    run = dict(train=train, holdout=holdout, synthetic=synthetic, leaks=["verbatim"], draws=4, random_state=8)
    assert detection_limits(**run) == detection_limits(**run)
    with pytest.raises(pl.PrivlibError, match="leaks"):
        detection_limits(**(run | {"leaks": ["copies"]}))


# -- real data ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_adult_verbatim_copies_have_a_finite_limit_far_below_the_release():
    train, holdout, other = _split("adult", 1000, 2026)
    release = pl.synth.make("GaussianCopula").fit(other).sample(1000, random_state=1)
    limits = detection_limits(
        train=train, holdout=holdout, synthetic=release, leaks=["verbatim"], draws=50, random_state=0
    )
    identity = next(x for x in limits if x.family == "identity")
    # on Adult a copied record is rarely matched by chance: a few copies in 1,000 are caught
    assert identity.limit is not None and identity.limit <= 20, identity
    assert identity.rate_at_limit >= 0.9 and (identity.below is None or identity.rate_below < 0.9)


@pytest.mark.slow
def test_acs_near_copies_at_one_percent_are_beyond_reach():
    train, holdout, other = _split("acs", 2000, 2026)
    release = pl.synth.make("GaussianCopula").fit(other).sample(2000, random_state=1)
    limits = detection_limits(
        train=train, holdout=holdout, synthetic=release, leaks=["near copies"], draws=50, random_state=0
    )
    # most ACS records already have a synthetic twin, so 20 near copies (1%) cannot be told apart
    for found in limits:
        assert found.limit is None or found.limit > 20, found
    assert LEAKS[2] == "near copies"


def test_pieces_prepared_one_by_one_read_as_the_whole_sequence(adult_small, monkeypatch):
    import privlib.audit.planting as limits

    train, holdout, synthetic = adult_small
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    monkeypatch.setattr(limits, "FIRST_PIECE", 4)  # pieces of 4, 8, 16 and 12 records
    pieces = limits._pieces(40)
    assert pieces == [(0, 4), (4, 12), (12, 28), (28, 40)]
    order = [np.random.default_rng(1).permutation(len(train))[:40]]
    plant = partial(limits._piece, "near copies", state, order, pieces, None, None, 3)
    whole = pd.concat([plant([0], i) for i in range(len(pieces))], ignore_index=True)
    lazy = _CopyDraws(state, plant, 1, 0.95)
    eager = _CopyDraws(state, lambda asked, piece: whole, 1, 0.95)
    for size in (3, 30, 13, 40):
        np.testing.assert_equal(lazy.p_values(0, size), eager.p_values(0, size))  # NaN equal to NaN
        np.testing.assert_array_equal(lazy._grown(0, size)[1], eager._grown(0, size)[1])


@pytest.mark.parametrize("leak", ["near copies", "rare-key attributions"])
def test_a_piece_planted_for_several_draws_at_once_is_each_draw_planted_alone(adult_small, leak):
    import privlib.audit.planting as planting

    train, holdout, synthetic = adult_small
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    info = pl.dataset_info("adult")
    orders = [np.random.default_rng(d).permutation(len(train))[:30] for d in range(3)]
    plant = partial(planting._piece, leak, state, orders, [(0, 10), (10, 30)], info.keys, info.sensitive, 7)
    for piece in (0, 1):
        together = plant([0, 1, 2], piece)
        alone = pd.concat([plant([d], piece) for d in range(3)], ignore_index=True)
        pd.testing.assert_frame_equal(together, alone)
        assert not together.equals(pd.concat([state.train.iloc[o[:10]] for o in orders], ignore_index=True))


def test_attributions_of_several_draws_read_at_once_are_each_draw_read_alone(adult_small):
    import privlib.audit.planting as planting

    train, holdout, synthetic = adult_small
    info = pl.dataset_info("adult")
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    pool = _unique_on_keys(train, holdout, info.keys)
    orders = [np.random.default_rng(d).choice(pool, 25, replace=False) for d in range(3)]
    plant = partial(
        planting._piece, "rare-key attributions", state, orders, [(0, 25)], info.keys, info.sensitive, 4
    )
    together = _AttributionDraws(state, plant([0, 1, 2], 0), 3, info.keys, info.sensitive, 0.01, 0.95)
    for draw in range(3):
        alone = _AttributionDraws(state, plant([draw], 0), 1, info.keys, info.sensitive, 0.01, 0.95)
        for size in (1, 9, 25):
            assert together.p_values(draw, size) == alone.p_values(0, size)


def test_fisher_p_values_carried_from_the_top_equal_the_copy_tests_bit_for_bit():
    from scipy.stats import hypergeom

    import privlib.audit.planting as planting
    from privlib.records import _upper_tail

    rng = np.random.default_rng(0)
    for n1, n2 in ((300, 250), (2000, 2000), (7, 900)):
        for copied in rng.integers(1, n1 + n2, size=6):
            copied = int(copied)
            tail = _upper_tail(hypergeom.pmf(np.arange(copied + 1), n1 + n2, n1, copied))  # the copy test's
            # training counts asked in a random order: each lower one carries the sums on
            for a in rng.permutation(np.arange(max(0, copied - n2), min(copied, n1) + 1))[:40]:
                assert planting._fisher_p(int(a), n1, copied - int(a), n2) == tail[a]


@pytest.mark.parametrize("leak", ["verbatim", "near copies"])
def test_categorical_releases_match_twins_without_the_kernel_and_read_as_a_full_search(leak):
    # ACS: every variable a category, so records one value away from the release are only matched
    # for planted twins; the distances must still be those of a search of the whole planted release
    train, holdout, synthetic = _split("acs", 200, 12)
    state = _release_state(
        train, holdout, synthetic, numeric_tolerance=0.01, rare_share=0.02, random_state=5, max_queries=None
    )
    rng = np.random.default_rng(3)
    sources = rng.choice(len(train), 60, replace=False)
    plants = _leak_records(leak, state, [sources], None, None, [rng])
    draws = _CopyDraws(
        state,
        lambda asked, piece: plants,
        1,
        0.95,
        None if leak == "near copies" else lambda draw, start, stop: sources[start:stop],
    )
    weights = state.encoder.feature_weights
    single = weights.min() / state.encoder.scale
    assert np.isclose(state.to_synthetic, single).sum() > 20  # many records one value away
    for size in (5, 60, 30):
        planted = pd.concat([synthetic, plants.iloc[:size]], ignore_index=True)
        encoder = gower_setup(train, holdout, planted)
        full = np.concatenate(
            [kneighbors(t, planted, k=1, encoder=encoder).distances[:, 0] for t in (train, holdout)]
        )
        np.testing.assert_array_equal(draws._grown(0, size)[1], full)
