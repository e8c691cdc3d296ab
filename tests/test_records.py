"""Record-level evidence (privlib.records): every expected value comes from somewhere else: scipy's
binomtest and fisher_exact, sklearn's roc_curve, an enumeration of every ordering, exact fractions,
Newcombe's published table, or a hand count."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest, fisher_exact
from sklearn.metrics import roc_curve

import privlib as pl
from privlib.errors import PrivlibError
from privlib.records import (
    clopper_pearson,
    copy_test,
    family_tests,
    low_fpr_key,
    low_fpr_points,
    tpr_at_low_fpr,
)
from privlib.results import NO_EVIDENCE, NOT_ASSESSABLE, RISK
from privlib.thresholds import judge

matplotlib.use("Agg")


def _judged(result):
    """The verdict the registry's rule gives (its declaration holds it)."""
    return judge(result).verdict


# --------------------------------------------------------------------------------------------
# Clopper-Pearson
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, n", [(0, 10), (3, 2000), (20, 2000), (7, 7), (1, 1)])
@pytest.mark.parametrize("confidence", [0.9, 0.95])
def test_clopper_pearson_is_scipys_exact_interval(k, n, confidence):
    expected = binomtest(k, n).proportion_ci(confidence_level=confidence, method="exact")
    assert clopper_pearson(k, n, confidence=confidence) == pytest.approx(
        (expected.low, expected.high), abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# TPR at a low false-positive rate
# --------------------------------------------------------------------------------------------
def _p_by_enumeration(m, n, allowed, observed):
    """P(X >= observed) when every order of m member and n holdout scores (all distinct) is
    equally likely and X counts the members above the (allowed + 1)-th highest holdout score."""
    hits = total = 0
    for members in itertools.combinations(range(m + n), m):  # positions, 0 = highest score
        chosen = set(members)
        holdout_seen = x = 0
        for position in range(m + n):
            if position in chosen:
                x += 1
            else:
                holdout_seen += 1
                if holdout_seen == allowed + 1:
                    break
        total += 1
        hits += x >= observed
    return hits / total


@pytest.mark.parametrize("observed", [0, 1, 2, 3, 4])
def test_the_exact_test_is_the_distribution_of_every_ordering(observed):
    m, n, fpr = 4, 6, 1 / 6  # one holdout record may be called
    members = np.r_[np.arange(observed) + 100.0, -np.arange(1, m - observed + 1) - 100.0]
    nonmembers = np.r_[50.0, -np.arange(n - 1.0)]
    point = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers, fpr=fpr)
    assert (point.allowed_false, point.nonmembers_called, point.members_called) == (1, 1, observed)
    assert point.p_value == pytest.approx(_p_by_enumeration(m, n, 1, observed), abs=1e-12)


def test_the_exact_test_at_2000_records_matches_the_closed_form():
    # P(X = x) = C(x + K, K) C(m - x + n - K - 1, n - K - 1) / C(m + n, n), in exact fractions
    m = n = 2000
    allowed = 2

    def tail(x):  # one minus the exact probabilities below x (they sum to one)
        return float(
            1
            - sum(
                Fraction(
                    math.comb(j + allowed, allowed) * math.comb(m - j + n - allowed - 1, n - allowed - 1),
                    math.comb(m + n, n),
                )
                for j in range(x)
            )
        )

    holdout = np.linspace(0, 1, n)
    for called in (0, 3, 8, 9, 20):
        members = np.r_[np.full(called, 2.0), np.full(m - called, -1.0)]
        point = tpr_at_low_fpr(member_scores=members, nonmember_scores=holdout, fpr=0.001)
        assert point.p_value == pytest.approx(tail(called), rel=1e-9, abs=1e-300)
    # the fewest members found that are significant at 5%: 9 (P(X >= 8) > 0.05 >= P(X >= 9))
    assert tail(8) > 0.05 >= tail(9)
    assert point.critical_count == 9
    assert point.baseline == 8 / 2000


def test_the_binomial_test_against_the_achieved_rate_would_cry_wolf():
    # Why the kit does not test X against K/n: under the null, P(X >= 6) is about 1 in 7 at
    # 0.1% of 2,000 holdout records, and X = 6 already puts the rate's 95% interval above K/n.
    m = n = 2000
    p_null = 1 - sum(
        Fraction(math.comb(j + 2, 2) * math.comb(m - j + n - 3, n - 3), math.comb(m + n, n)) for j in range(6)
    )
    assert 0.13 < float(p_null) < 0.16
    assert binomtest(6, m).proportion_ci(method="exact").low > 2 / n


def test_the_operating_point_is_rocs_best_tpr_within_the_rate():
    rng = np.random.default_rng(3)
    members = np.round(rng.normal(0.3, 1, 3000), 1)  # rounded: many ties
    nonmembers = np.round(rng.normal(0.0, 1, 2500), 1)
    labels = np.r_[np.ones(members.size), np.zeros(nonmembers.size)]
    fpr, tpr, _ = roc_curve(labels, np.r_[members, nonmembers], drop_intermediate=False)
    for rate in (0.001, 0.01, 0.05):
        point = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers, fpr=rate)
        within = fpr <= rate
        assert point.value == pytest.approx(tpr[within].max())
        assert point.fpr == pytest.approx(fpr[within][np.argmax(tpr[within])])
        assert point.fpr <= rate
        low, high = binomtest(point.members_called, members.size).proportion_ci(method="exact")
        assert (point.ci_low, point.ci_high) == pytest.approx((low, high))
        assert point.ci_method == "clopper-pearson" and point.ci_low <= point.value <= point.ci_high


def test_the_threshold_is_chosen_on_the_holdout_only():
    rng = np.random.default_rng(0)
    nonmembers = rng.normal(size=2000)
    first = tpr_at_low_fpr(member_scores=rng.normal(size=2000), nonmember_scores=nonmembers)
    second = tpr_at_low_fpr(member_scores=rng.normal(size=500) + 3, nonmember_scores=nonmembers)
    assert first.score_threshold == second.score_threshold == np.sort(nonmembers)[-3]
    assert first.nonmembers_called == second.nonmembers_called == 2


def test_ties_at_the_threshold_are_left_uncalled_and_stated():
    # 40 holdout records share the top score: calling any would be 40 of 1000, above 0.1%
    nonmembers = np.r_[np.zeros(40), -np.arange(1, 961.0)]
    members = np.r_[np.zeros(100), -np.arange(1, 901.0)]
    point = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers, fpr=0.001, attack="nn_mia")
    assert (point.members_called, point.nonmembers_called, point.tied_nonmembers) == (0, 0, 40)
    assert point.p_value == 1.0 and _judged(point) == NO_EVIDENCE
    assert "40 holdout records tie at the threshold score" in point.reading()


def test_fewer_holdout_records_than_one_over_the_rate_are_not_assessable():
    point = tpr_at_low_fpr(member_scores=np.ones(999), nonmember_scores=np.zeros(999), fpr=0.001)
    assert point.verdict == NOT_ASSESSABLE and math.isnan(point.value)
    assert "at least 1000" in point.verdict_rule
    # the report's table and figure still read it: 999 records show a rate of 1% (9 of them)
    table = pl.records.operating_points(point)
    assert pd.isna(table.iloc[0]["members called"]) and table.iloc[1]["holdout records allowed"] == 9
    assert pl.thresholds.judge  # the runner's judge keeps a not-assessable verdict as it is
    reachable = tpr_at_low_fpr(member_scores=np.ones(1000), nonmember_scores=np.zeros(1000), fpr=0.001)
    assert reachable.verdict is None and reachable.allowed_false == 1


@pytest.mark.parametrize("seed", range(6))
def test_the_registered_rule_is_exactly_the_test(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1000, 3000))
    members = np.r_[np.full(int(rng.integers(0, 25)), 10.0), rng.normal(size=2000)]
    point = tpr_at_low_fpr(
        member_scores=members, nonmember_scores=rng.normal(size=n), fpr=0.001, attack="density_attack"
    )
    # unjudged; judged by its exact test, the Clopper-Pearson interval shown beside it
    assert point.verdict is None and point.ci_low <= point.value <= point.ci_high
    assert (_judged(point) == RISK) == (point.p_value <= 0.05)
    assert (point.members_called >= point.critical_count) == (point.p_value <= 0.05)


def test_bad_scores_and_rates_are_refused():
    with pytest.raises(PrivlibError, match="`member_scores`"):
        tpr_at_low_fpr(member_scores=[np.nan, 1.0], nonmember_scores=np.zeros(2000))
    with pytest.raises(PrivlibError, match="`fpr`"):
        tpr_at_low_fpr(member_scores=[1.0], nonmember_scores=np.zeros(2000), fpr=0.0)
    with pytest.raises(PrivlibError, match="`attack_result`"):
        low_fpr_points(pl.results.Result(measure="x", value=1.0))


def test_keys():
    assert low_fpr_key("nn_mia", 0.001) == "nn_mia_tpr_at_0.1pct"
    assert low_fpr_key("shadow_model", 0.01) == "shadow_model_tpr_at_1pct"
    for rate in pl.records.LOW_FPRS:
        point = tpr_at_low_fpr(member_scores=[1.0], nonmember_scores=np.zeros(1000), fpr=rate, attack="x")
        assert point.measure == low_fpr_key("x", rate)


# --------------------------------------------------------------------------------------------
# Reading the kit's attacks
# --------------------------------------------------------------------------------------------
def _tables(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(float),
            "weight": rng.normal(70, 12, n),  # continuous: no copy by chance
            "sex": pd.Categorical(rng.choice(["F", "M"], n)),
        }
    )


def test_the_distance_attack_is_read_from_nn_mias_own_distances():
    train, holdout, synthetic = _tables(1200, 0), _tables(1200, 1), _tables(1200, 2)
    synthetic = pd.concat([train.iloc[:15], synthetic.iloc[15:]], ignore_index=True)
    attack = pl.membership.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=0)
    strict, loose = low_fpr_points(attack)
    # by hand from the attack's distances: the holdout's 2nd (K + 1 = 2) smallest distance
    holdout_dcr = np.sort(attack.dcr[~attack.is_member])
    assert strict.members_called == np.count_nonzero(attack.dcr[attack.is_member] < holdout_dcr[1])
    assert strict.members_called >= 15 and strict.measure == "nn_mia_tpr_at_0.1pct"
    assert _judged(strict) == RISK
    assert loose.measure == "nn_mia_tpr_at_1pct" and loose.allowed_false == 12


def test_density_and_shadow_attacks_are_read_from_their_scores():
    train, holdout, reference = _tables(1000, 0), _tables(1000, 1), _tables(1000, 3)
    density = pl.targeted.density_attack(
        train=train, holdout=holdout, synthetic=_tables(1000, 2), population=reference, random_state=0
    )
    strict, _ = low_fpr_points(density)
    assert strict.measure == "density_attack_tpr_at_0.1pct"
    expected = np.count_nonzero(density.score[:1000] > np.sort(density.score[1000:])[-2])
    assert strict.members_called == expected
    shadow = pl.targeted.shadow_model_attack(
        synthesizer="IndependentMarginals",
        train=train.iloc[:40],
        population=reference,
        n_targets=2,
        n_shadows=4,
        n_test=3,
        shadow_size=30,
        features="naive",
        n_jobs=1,
        random_state=0,
    )
    assert shadow.scores_in.size == shadow.scores_out.size == 6  # 3 fresh pairs, 2 targets
    points = low_fpr_points(shadow)
    assert [p.verdict for p in points] == [NOT_ASSESSABLE, NOT_ASSESSABLE]  # 6 pairs < 100


def test_roc_on_log_axes():
    rng = np.random.default_rng(0)
    ax = pl.plots.plot_roc_loglog(
        {"copies": (np.r_[np.full(20, 9.0), rng.normal(size=1980)], rng.normal(size=2000))}, title="ROC"
    )
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_xlim()[0] == pytest.approx(1 / 4000)
    line = ax.get_lines()[0]
    assert line.get_ydata()[0] == pytest.approx(0.01)  # the 20 copies come first, at FPR 1/2000
    matplotlib.pyplot.close(ax.figure)


# --------------------------------------------------------------------------------------------
# Copies
# --------------------------------------------------------------------------------------------
def test_copies_are_counted_within_the_tolerance_by_hand():
    train = pd.DataFrame({"age": [30.0, 40.0, 50.0, 60.0], "g": ["a", "b", "a", "b"]})
    holdout = pd.DataFrame({"age": [35.0, 45.0, 55.0, 130.0], "g": ["a", "b", "a", "b"]})
    # the range over the three tables is 130 - 30 = 100: a tolerance of 1% is 1 year
    synthetic = pd.DataFrame({"age": [30.0, 41.0, 52.0, 60.0, 35.0], "g": ["a", "b", "a", "a", "b"]})
    test = copy_test(train=train, holdout=holdout, synthetic=synthetic)
    # 30/a exact, 40/b within 1, 50/a is 2 off, 60/b has no b at 60; 35/a has only 35/b
    assert (test.train_copied, test.holdout_copied) == (2, 0)
    exact = copy_test(train=train, holdout=holdout, synthetic=synthetic, numeric_tolerance=0)
    assert (exact.train_copied, exact.holdout_copied) == (1, 0)


def test_missing_values_copy_only_missing_values():
    train = pd.DataFrame({"age": [30.0, np.nan], "g": ["a", None]})
    synthetic = pd.DataFrame({"age": [np.nan, 30.0], "g": [None, "a"]})
    holdout = pd.DataFrame({"age": [np.nan, 31.0], "g": ["a", "a"]})
    test = copy_test(train=train, holdout=holdout, synthetic=synthetic, numeric_tolerance=0)
    assert (test.train_copied, test.holdout_copied) == (2, 0)


#: Values drawn for the brute-force copy test: pairs exactly one tolerance apart (1% of the
#: range, which the first two training rows fix at 100, 50 and 200 days) and pairs two apart.
_LEVELS = [0, 49, 50, 51, 100]
_HALVES = [0.0, 24.5, 25.0, 25.5, 50.0, np.nan]
_DAYS = [0, 99, 101, 103, 200]
_DAY_ZERO = pd.Timestamp("2020-01-01")


def _copy_tables(rng):
    """Training, holdout and synthetic tables with copies, copies at exactly the tolerance, ties,
    missing labels and numbers, dates, and labels as categoricals in different category orders or
    as plain objects. Two training records of their own labels have their only synthetic match
    one tolerance away (``d``) or two (``e``) in every number."""

    def table(n, label_shares, labels_as):
        labels = rng.choice(np.array(["a", "b", "c", None], dtype=object), n, p=label_shares)
        frame = pd.DataFrame(
            {
                "group": labels,
                "level": rng.choice(_LEVELS, n),
                "half": rng.choice(_HALVES, n),
                "day": _DAY_ZERO + pd.to_timedelta(rng.choice(_DAYS, n), unit="D"),
            }
        )
        return frame.assign(group=labels_as(frame.group))

    def rows(*values):
        return pd.DataFrame(
            [(g, level, half, _DAY_ZERO + pd.Timedelta(days=day)) for g, level, half, day in values],
            columns=["group", "level", "half", "day"],
        )

    shares = (0.4, 0.3, 0.2, 0.1)
    train = pd.concat(
        [
            rows(("a", 0, 0.0, 0), ("b", 100, 50.0, 200), ("d", 49, 24.5, 99), ("e", 49, 24.5, 99)),
            table(300, shares, lambda g: g),
        ],
        ignore_index=True,
    )
    train["group"] = pd.Categorical(train.group, categories=["c", "e", "a", "d", "b"])
    holdout = table(200, shares, lambda g: g.astype(object))
    # no synthetic "c": a real "c" has no copy, whatever its numbers
    synthetic = pd.concat(
        [rows(("d", 50, 25.0, 101), ("e", 51, 25.5, 103)), table(40, (0.5, 0.4, 0.0, 0.1), lambda g: g)],
        ignore_index=True,
    )
    synthetic["group"] = pd.Categorical(synthetic.group, categories=["b", "a", "d", "e", "c"])
    return train, holdout, synthetic


def _brute_force_copies(real, synthetic, numbers, within):
    """Records of ``real`` with a synthetic copy, pair by pair in Python: labels equal (missing
    equal to missing), each number's gap (whole days for dates) ``within(gap, range)``."""
    ranges = {"level": 100, "half": 50, "day": 200}

    def same(column, a, b):
        if pd.isna(a) or pd.isna(b):
            return pd.isna(a) and pd.isna(b)
        if column not in numbers:
            return a == b
        return within(abs((a - b).days) if column == "day" else abs(a - b), ranges[column])

    columns = ["group", *numbers]
    rows = list(synthetic[columns].itertuples(index=False))
    return [
        sum(
            any(all(same(c, a, b) for c, a, b in zip(columns, record, row)) for row in rows)
            for record in table[columns].itertuples(index=False)
        )
        for table in real
    ]


@pytest.mark.parametrize("numbers", [[], ["level"], ["level", "half"], ["level", "half", "day"]])
def test_copies_equal_a_pair_by_pair_search(numbers):
    train, holdout, synthetic = _copy_tables(np.random.default_rng(7))
    train, holdout, synthetic = (t[["group", *numbers]] for t in (train, holdout, synthetic))

    def copied(**options):
        test = copy_test(train=train, holdout=holdout, synthetic=synthetic, **options)
        return [test.train_copied, test.holdout_copied]

    def brute_force(within):
        return _brute_force_copies([train, holdout], synthetic, numbers, within)

    one_percent = brute_force(lambda gap, spread: 100 * gap <= spread)
    assert copied() == one_percent
    assert copied(numeric_tolerance=0) == brute_force(lambda gap, spread: gap == 0)
    assert copied(numeric_tolerance=0.02) == brute_force(lambda gap, spread: 50 * gap <= spread)
    if numbers:
        # the cases are there: records one tolerance off ("d" among them) are copies, two off
        # ("e" among them) are not
        assert brute_force(lambda gap, spread: 100 * gap < spread)[0] < one_percent[0]
        assert copied(numeric_tolerance=0.02)[0] > one_percent[0]
    assert 0 < one_percent[0] < len(train) and 0 < one_percent[1] < len(holdout)


@pytest.mark.parametrize(
    "a, b, n1, n2",
    [(20, 0, 2000, 2000), (21, 2, 2000, 2000), (5, 3, 300, 500), (0, 0, 100, 100), (1757, 1749, 2000, 2000)],
)
def test_the_copy_test_is_fishers(a, b, n1, n2):
    from scipy.stats import hypergeom

    from privlib.records import _critical, _newcombe, _upper_tail  # the pieces, on given counts

    _, p = fisher_exact([[a, n1 - a], [b, n2 - b]], alternative="greater")
    tail = _upper_tail(hypergeom.pmf(np.arange(a + b + 1), n1 + n2, n1, a + b))
    assert tail[a] == pytest.approx(p, rel=1e-9)
    critical = _critical(tail, 0.05)
    if critical <= a + b:
        assert (
            fisher_exact(
                [[critical, n1 - critical], [a + b - critical, n2 - a - b + critical]], alternative="greater"
            )[1]
            <= 0.05
        )
    if critical >= 1:
        previous = critical - 1
        assert (
            fisher_exact(
                [[previous, n1 - previous], [a + b - previous, n2 - a - b + previous]], alternative="greater"
            )[1]
            > 0.05
        )
    assert _newcombe(a, n1, b, n2, 0.95)[0] <= a / n1 - b / n2


def test_the_interval_is_newcombes_published_method_10():
    from privlib.records import _newcombe

    # Newcombe (1998), Statistics in Medicine 17, Table II, method 10 (hybrid score)
    published = {
        (56, 70, 48, 80): (0.0524, 0.3339),
        (9, 10, 3, 10): (0.1705, 0.8090),
        (6, 7, 2, 7): (0.0582, 0.8062),
        (5, 56, 0, 29): (-0.0381, 0.1926),
        (0, 10, 0, 20): (-0.1611, 0.2775),
        (0, 10, 0, 10): (-0.2775, 0.2775),
        (10, 10, 0, 20): (0.6791, 1.0),
        (10, 10, 0, 10): (0.6075, 1.0),
    }
    for counts, interval in published.items():
        assert _newcombe(*counts, 0.95) == pytest.approx(interval, abs=5e-5)


def test_twenty_copies_in_two_thousand_are_records_at_risk():
    train, holdout, other = _tables(2000, 0), _tables(2000, 1), _tables(2000, 2)
    synthetic = pd.concat([train.iloc[:20], other.iloc[20:]], ignore_index=True)
    test = copy_test(train=train, holdout=holdout, synthetic=synthetic, numeric_tolerance=0)
    _, p = fisher_exact(
        [[test.train_copied, 2000 - test.train_copied], [test.holdout_copied, 2000 - test.holdout_copied]],
        alternative="greater",
    )
    assert test.p_value == pytest.approx(p) and p < 1e-4
    assert (test.train_copied, test.holdout_copied) == (20, 0) and _judged(test) == RISK
    assert test.value == test.train_copied - test.holdout_copied
    assert test.ci_low < test.value < test.ci_high and test.ci_method == "newcombe"
    assert test.records_at_risk == round(test.value)


def test_acs_copies_holdout_records_as_often_and_finds_nothing():
    population = pl.load_dataset("acs")
    train, rest = pl.datasets.sample_split(population, 2000, 4000, random_state=7)
    holdout, fit = rest.iloc[:2000].reset_index(drop=True), rest.iloc[2000:].reset_index(drop=True)
    release = pl.synth.make("SequentialTrees").fit(fit).sample(2000, random_state=7)
    leaked = pd.concat([train.iloc[:20], release.iloc[20:]], ignore_index=True)
    for synthetic in (release, leaked):
        test = copy_test(train=train, holdout=holdout, synthetic=synthetic)
        assert test.holdout_copied > 1000  # few columns: most real people have a synthetic twin
        assert test.p_value > 0.05 and _judged(test) == NO_EVIDENCE


# --------------------------------------------------------------------------------------------
# Holm
# --------------------------------------------------------------------------------------------
def test_holm_by_hand():
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06
    family = family_tests({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005, "e": math.nan, "f": None})
    assert family.adjusted == pytest.approx({"a": 0.03, "b": 0.06, "c": 0.06, "d": 0.02})
    assert family.significant == {"a": True, "b": False, "c": False, "d": True}
    assert family.skipped == ("e", "f") and family.any_significant
    assert "4 exact tests" in family.rule()


def test_weighted_holm_by_hand():
    # weights 1, 1, 2 (total 4); p / w: b 0.01, a 0.02, c 0.02 (ties keep the given order)
    # b: 0.01 x 4 / 1 = 0.04; a: 0.02 x 3 / 1 = 0.06; c: 0.04 x 2 / 2 = 0.04 -> running max 0.06
    family = family_tests({"a": 0.02, "b": 0.01, "c": 0.04}, weights={"c": 2})
    assert family.adjusted == pytest.approx({"a": 0.06, "b": 0.04, "c": 0.06})
    assert family.significant == {"a": False, "b": True, "c": False}
    assert "weighted" in family.rule()
    # equal weights are the plain procedure, whatever their common value
    plain = family_tests({"a": 0.02, "b": 0.01, "c": 0.04})
    assert family_tests({"a": 0.02, "b": 0.01, "c": 0.04}, weights=dict.fromkeys("abc", 0.3)).adjusted == (
        pytest.approx(plain.adjusted)
    )
    with pytest.raises(PrivlibError, match="positive"):
        family_tests({"a": 0.02}, weights={"a": 0})


def test_weighted_holm_raises_a_family_alarm_exactly_when_weighted_bonferroni_does():
    # the step-down rejects something iff its first step does: some p_i <= w_i * 5% / sum(w), so
    # on independent uniform p-values the family's false-alarm rate is
    # 1 - (1 - 0.025)(1 - 0.0125)^2 = 4.92% with weights 1/2, 1/4, 1/4
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.1, size=(2_000, 3))
    weights = np.array([0.5, 0.25, 0.25])
    alarms = [
        family_tests(dict(zip("abc", row)), weights=dict(zip("abc", weights))).any_significant for row in p
    ]
    assert alarms == (p <= 0.05 * weights).any(axis=1).tolist()


def test_holm_reads_results_and_keeps_the_smallest_alone_when_one():
    point = tpr_at_low_fpr(
        member_scores=np.r_[np.full(30, 5.0), np.zeros(1970)],
        nonmember_scores=np.linspace(-1, 1, 2000),
        attack="nn_mia",
    )
    family = family_tests([point], confidence=0.95)
    assert family.adjusted == {"nn_mia_tpr_at_0.1pct": point.p_value}
    with pytest.raises(PrivlibError, match="more than once"):
        family_tests([point, point])


def test_the_audits_distance_point_reuses_nn_mias_distances(monkeypatch):
    train, holdout = _tables(1000, 0), _tables(1000, 1)
    synthetic = pd.concat([train.iloc[:12], _tables(1000, 2).iloc[12:]], ignore_index=True)
    with pl.search_reuse.reuse_searches() as searches:
        attack = pl.membership.nn_mia(train=train, holdout=holdout, synthetic=synthetic, random_state=0)
        monkeypatch.setattr(pl.neighbors.search, "_search", lambda *a, **k: pytest.fail("searched again"))
        point = pl.membership.nn_mia_low_fpr(train=train, holdout=holdout, synthetic=synthetic)
    assert (searches.made, searches.reused) == (2, 2)
    by_result = low_fpr_points(attack, fprs=(0.001,))[0]
    assert (point.measure, point.members_called, point.p_value) == (
        by_result.measure,
        by_result.members_called,
        by_result.p_value,
    )
    # other tables: searched afresh
    monkeypatch.undo()
    other = pl.membership.nn_mia_low_fpr(train=train, holdout=holdout, synthetic=_tables(1000, 2))
    assert other.members_called < point.members_called


def test_the_operating_points_table_reads_each_rate_from_the_kept_scores():
    rng = np.random.default_rng(5)
    members, nonmembers = rng.normal(0.2, 1, 3000), rng.normal(size=3000)
    point = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers)
    table = pl.records.operating_points(point, fprs=(0.001, 0.01, 0.0001))
    for row, rate in zip(table.itertuples(index=False), (0.001, 0.01)):
        alone = tpr_at_low_fpr(member_scores=members, nonmember_scores=nonmembers, fpr=rate)
        assert (row[1], row[2], row[3], row[7]) == (
            alone.allowed_false,
            alone.nonmembers_called,
            alone.members_called,
            alone.p_value,
        )
    assert table.iloc[2]["holdout records allowed"] == 0 and pd.isna(table.iloc[2]["members called"])
    assert "member_scores" not in point.to_dict() and "score_threshold" not in point.to_dict()
