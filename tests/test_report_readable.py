"""Pages people read: no number in scientific notation on any page, exact tests shown
by their p-value, every variable on the fidelity pages, titles wrapped, ticks as people read them."""

from __future__ import annotations

import html
import re

import matplotlib
import numpy as np
import pandas as pd
import pytest
from audit_report_fixture import leaky_report, measure

from privlib.render.audit_pages import audit_page_html, decision_html, short_reading, verdict_lines_html

matplotlib.use("Agg")

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


def _text(fragment) -> str:
    """The visible text: tags, the stylesheet and embedded images left out."""
    visible = re.sub(r"<style.*?</style>", " ", str(fragment), flags=re.S)
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", visible)).strip())


def _with_an_exact_test() -> dict:
    """The fixture's report with a copy test decided by a tiny p-value, a count in the hundreds
    and a reading that quotes its numbers in scientific notation, as a measure module may."""
    report = leaky_report()
    copy = measure(
        "copy_test",
        "Training records with a synthetic copy, beyond chance",
        "identity",
        1549.0,
        1490.0,
        1600.0,
        17.0,
        17.0,
        "risk",
        n_train=3000,
        n_holdout=3000,
        train_copied=1557,
        holdout_copied=8,
        numeric_tolerance=0.01,
        records_at_risk=1549,
        p_value=1e-312,
    )
    copy["verdict_rule"] = (
        "risk when the value lies above 17 (an exact test; the interval is shown, not used)"
    )
    copy["reading"] = (
        "1557 of 3000 training records have a synthetic copy: an excess of 1.55e+03 people. "
        "Fisher's exact test puts up to 17.0 people down to chance (p = 1e-312). Third sentence."
    )
    copy["judgement"] = "Risk: copies."
    report["measures"].insert(0, copy)
    identity = report["families"][0]
    identity["deciding"] = "copy_test"
    identity["adjusted_p_values"] = {"copy_test": 2e-312}
    identity["at_risk"].insert(
        0, {"key": "copy_test", "count": 1549, "what": "training records have a synthetic copy beyond chance"}
    )
    return report


def test_no_page_text_holds_a_number_in_scientific_notation():
    report = _with_an_exact_test()
    text = _text(audit_page_html(report))
    assert not SCIENTIFIC.search(text), SCIENTIFIC.search(text)
    assert "1,549" in text


def test_an_exact_test_reads_by_its_p_value_on_page_1_and_in_the_verdict_table():
    report = _with_an_exact_test()
    page = _text(decision_html(report))
    assert (
        "Deciding: Training records with a synthetic copy, beyond chance 1,549 (95% interval 1,490 to 1,600)"
        in page
    )
    assert "exact test: Holm-adjusted p < 0.001 (risk at 0.05 or below)" in page
    assert "1,549 training records have a close copy" in page  # the card, thousands separated
    rows = _text(verdict_lines_html(report))
    assert "1,549 1,490 to 1,600 exact test, p < 0.001 risk" in rows
    # a measure judged by its interval keeps its threshold
    assert "Exact copies of training records identical_match_share 0.2 0.17 to 0.23 0.011" in rows


def test_a_reading_keeps_its_first_two_sentences_without_its_verdict_sentence():
    copy = _with_an_exact_test()["measures"][0]
    assert short_reading(copy) == (
        "1557 of 3000 training records have a synthetic copy: an excess of 1,550 people. "
        "Fisher's exact test puts up to 17.0 people down to chance (p < 0.001)."
    )
    partition = measure(
        "partition_f1", "Partitioning attack", "membership", 0.121, 0.112, 0.128, 0.116, 0.293, "x"
    )
    # 0.121 - 0.116 = 0.005; 0.293 - 0.116 = 0.177
    assert "is 0.121, against 0.116 for calling every record a member: a gain of 0.005" in short_reading(
        partition
    )
    assert "beyond 0.177 would be a risk" in short_reading(partition)


def _tables(n_columns: int, n: int = 300):
    rng = np.random.default_rng(0)
    columns = {}
    for i in range(n_columns):
        if i % 2:
            columns[f"a-rather-long-variable-name-{i}"] = rng.normal(200_000, 50_000, n)
        else:
            columns[f"v{i}"] = rng.choice(["x", "y", "z"], n)
    real = pd.DataFrame(columns)
    return real, real.sample(frac=1.0, random_state=1).reset_index(drop=True)


@pytest.mark.slow
def test_every_variable_is_on_the_fidelity_pages_keys_first():
    from privlib.render.audit import variable_fidelity_html

    real, synthetic = _tables(15)
    page = variable_fidelity_html(real, synthetic, max_records=None, random_state=0, first=["v14"])
    text = _text(page)
    for column in real.columns:
        assert column in text
    assert "all 15 variables are drawn" in text
    # 15 variables: two figures of 8 and 7, the key first
    assert "Variables v14, v0, a-rather-long-variable-name-1" in text
    assert "(figure 1 of 2)" in text and "(figure 2 of 2)" in text


def test_the_small_multiples_draw_every_column_given_with_whole_titles_and_readable_ticks():
    import matplotlib.pyplot as plt

    from privlib.plots import plot_variable_fidelity

    real, synthetic = _tables(5)
    figure = plot_variable_fidelity(real, synthetic)
    try:
        figure.canvas.draw()
        shown = [ax for ax in figure.axes if ax.get_visible()]
        assert len(shown) == 5
        titles = [ax.get_title().replace("\n", "") for ax in shown]
        assert titles == list(real.columns)  # wrapped, never cut
        assert any("\n" in ax.get_title() for ax in shown)
        numeric = shown[1]
        ticks = [t.get_text() for t in numeric.get_xticklabels() if t.get_text()]
        assert ticks and all(re.fullmatch(r"\d+k", t) for t in ticks), ticks
    finally:
        plt.close(figure)


@pytest.mark.parametrize(("columns", "inches"), [(1, 3.75), (2, 3.75), (3, 5.625), (4, 7.5), (5, 7.5)])
def test_panels_keep_their_size_in_a_figure_of_less_than_a_row(columns, inches):
    import matplotlib.pyplot as plt

    from privlib.plots import plot_variable_fidelity

    real, synthetic = _tables(columns)
    figure = plot_variable_fidelity(real, synthetic)
    try:
        # four panels span 7.5 inches; fewer take 7.5 / 4 each, but never under half (the legend)
        assert figure.get_size_inches()[0] == pytest.approx(inches)
    finally:
        plt.close(figure)
