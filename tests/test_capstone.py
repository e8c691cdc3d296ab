"""The capstone's releases: reproducible, their truth right, one variant per student."""

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib import capstone
from privlib.errors import PrivlibError


@pytest.fixture(scope="module")
def tables():
    return capstone.custodian_tables()


def test_custodian_tables_are_the_documented_split(tables):
    train, holdout, reference = tables
    adult = pl.load_dataset("adult")
    order = np.random.default_rng(16).permutation(len(adult))  # sample_split's draw, written out
    pd.testing.assert_frame_equal(train, adult.iloc[order[:2000]].reset_index(drop=True))
    pd.testing.assert_frame_equal(holdout, adult.iloc[order[2000:4000]].reset_index(drop=True))
    pd.testing.assert_frame_equal(reference, adult.iloc[order[4000:6000]].reset_index(drop=True))


def test_the_bundled_file_is_the_recipe_and_300_noisy_copies(tables):
    release, truth = capstone.make_release(None)
    bundled = pl.datasets.read_table(
        pl.datasets.data_dir() / "capstone" / "release.csv", like=pl.load_dataset("adult")
    )
    pd.testing.assert_frame_equal(bundled.astype(str), release.astype(str))
    assert (truth.leak, truth.n_leaked, len(release)) == ("noisy copies", 300, 2000)
    train = tables[0]
    # a noisy copy keeps most categorical values of its source (5% are re-drawn)
    leaked = release.iloc[list(truth.leaked_rows)].reset_index(drop=True)
    sources = train.iloc[list(truth.source_rows)].reset_index(drop=True)
    assert (leaked["sex"].astype(str) == sources["sex"].astype(str)).mean() > 0.9


def test_a_variant_of_exact_copies_releases_its_sources_as_they_are(tables):
    train = tables[0]
    keys = pl.dataset_info("adult").keys
    for student in ("ana", "bo", "cy", "di", "ed", "flo"):
        release, truth = capstone.make_release(capstone.variant_seed(student=student, secret="phrase"))
        if truth.leak != "exact copies of rare records":
            continue
        leaked = release.iloc[list(truth.leaked_rows)].reset_index(drop=True)
        sources = train.iloc[list(truth.source_rows)].reset_index(drop=True)
        pd.testing.assert_frame_equal(leaked, sources, check_dtype=False)
        unique = ~train.duplicated(keys, keep=False)
        assert unique.iloc[list(truth.source_rows)].all()
        assert 20 <= truth.n_leaked <= 60
        return
    pytest.fail("none of six students drew the exact-copy leak")


def test_the_same_student_gets_the_same_release_and_others_differ():
    seed = capstone.variant_seed(student="ana", secret="phrase")
    assert seed == capstone.variant_seed(student=" ana ", secret="phrase")
    assert seed != capstone.variant_seed(student="ana", secret="another phrase")
    assert seed != capstone.variant_seed(student="bo", secret="phrase")
    first, truth = capstone.make_release(seed)
    again, truth_again = capstone.make_release(seed)
    pd.testing.assert_frame_equal(first, again)
    assert truth == truth_again


def test_write_release_writes_the_release_only_and_never_overwrites(tmp_path):
    path = capstone.write_release(tmp_path, student="ana b.", secret="phrase")
    assert path.name == "release_ana_b_.csv" and [p.name for p in tmp_path.iterdir()] == [path.name]
    written = pl.datasets.read_table(path, like=pl.load_dataset("adult"))
    expected, _ = capstone.make_release(capstone.variant_seed(student="ana b.", secret="phrase"))
    pd.testing.assert_frame_equal(written.astype(str), expected.astype(str))
    with pytest.raises(PrivlibError, match="already exists"):
        capstone.write_release(tmp_path, student="ana b.", secret="phrase")


@pytest.mark.parametrize("bad", [{"student": "", "secret": "x"}, {"student": "a", "secret": None}])
def test_variant_seed_needs_a_name_and_a_phrase(bad):
    with pytest.raises(PrivlibError, match="non-empty string"):
        capstone.variant_seed(**bad)
