"""The audit's pages from its result model: the decision page, the verdict lines, the
fidelity card, the appendix, the forest figure, the table of contents and alt text. Rendered
from a plain dict shaped like the model (tests/audit_report_fixture.py)."""

from __future__ import annotations

import base64
import html
import io
import re

import matplotlib
import nbformat
import numpy as np
import pandas as pd
import pytest
from audit_report_fixture import leaky_report, measure

from privlib.plots import VERDICT_STYLE, forest_position, plot_verdict_forest
from privlib.render import render_html, render_pdf
from privlib.render.audit_pages import (
    appendix_html,
    audit_page_html,
    decision_html,
    fidelity_html,
    figure_html,
    forest_alt_text,
    verdict_lines_html,
)
from privlib.render.glossary import TERMS, in_columns
from privlib.render.notebook import add_toc

matplotlib.use("Agg")


def _text(fragment: str) -> str:
    """The visible text of an HTML fragment, whitespace collapsed."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment)).strip())


# -- the forest plot ---------------------------------------------------------------------------
def test_forest_position_puts_baseline_at_0_and_threshold_at_1_whatever_the_direction():
    assert forest_position(0.5, threshold=0.55, baseline=0.5) == 0.0
    assert forest_position(0.55, threshold=0.55, baseline=0.5) == 1.0
    # lower is riskier: adversarial accuracy 0.35 below a baseline 0.5 with threshold 0.45 is
    # three margins (0.15 / 0.05) from the baseline
    assert forest_position(0.35, threshold=0.45, baseline=0.5, higher_is_riskier=False) == pytest.approx(3.0)
    assert forest_position(20.0, threshold=9.0) == pytest.approx(20 / 9)  # no baseline: from 0
    # an exact test with no margin (threshold = baseline): from 0 to the threshold
    assert forest_position(108.0, threshold=30.0, baseline=30.0) == pytest.approx(1 + 78 / 30)
    assert forest_position(0.0, threshold=0.004, baseline=0.004) == 0.0
    for broken in (dict(threshold=None), dict(threshold=0.0, baseline=0.0), dict(threshold=float("nan"))):
        assert np.isnan(forest_position(0.3, **broken))


def test_forest_plot_draws_each_measure_at_its_position_in_its_verdicts_colour():
    import matplotlib.pyplot as plt

    rows = leaky_report()["measures"] + [
        # an exact test without an interval, its threshold its baseline: drawn as a point at
        # 1 + (12 - 8) / 8 = 1.5
        measure("tpr_low_fpr", "TPR at 0.1% FPR", "membership", 12.0, None, None, 8.0, 8.0, "risk"),
        measure(
            "relative_risk_m",
            "Relative membership risk M",
            "membership",
            None,
            None,
            None,
            None,
            None,
            "not assessable",
        ),
    ]
    ax = plot_verdict_forest(
        rows, family_titles={"identity": "Identity disclosure"}, deciding=["identical_match_share"]
    )
    filled = [c for c in ax.collections if c.get_facecolor().size]
    points = [(c.get_offsets()[0], c.get_facecolor()[0]) for c in filled]
    # 4 measures inside the range, 1 drawn as an arrow at the edge, the not assessable one not at all
    assert len(points) == 5
    # cap: (0.62 - 0.5) / (0.63 - 0.5); adversarial accuracy: 1 - (0.51 - 0.45) / 0.05 below;
    # dcr_zero_share: (0.004 - 0.003) / 0.01; identical_match_share beyond the range, at 3
    expected = {
        0.12 / 0.13: "inconclusive",
        1 - 0.06 / 0.05: "no evidence of risk",
        0.1: "no evidence of risk",
        3.0: "risk",
        1.5: "risk",
    }
    drawn = sorted((round(float(x), 6), matplotlib.colors.to_hex(colour)) for (x, _), colour in points)
    assert drawn == sorted((round(x, 6), VERDICT_STYLE[v][0].lower()) for x, v in expected.items())
    # one ring, on the deciding measure, at the edge where its arrow is
    rings = [c.get_offsets()[0] for c in ax.collections if not c.get_facecolor().size]
    assert len(rings) == 1 and rings[0][0] == 3.0
    texts = {t.get_text() for t in ax.texts}
    assert {
        "Identity disclosure",
        "Attribute",
        "Membership",
        "Exact copies of training records",
        "Correct attribution probability (income)",  # names its variable already
        "not assessable",
    } <= texts
    assert "0.62 [0.58, 0.66]; threshold 0.63" in texts
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["risk", "inconclusive", "no evidence of risk", "decided its family"]
    plt.close(ax.figure)


def test_forest_plot_needs_measure_records():
    with pytest.raises(Exception, match="at least one"):
        plot_verdict_forest([])
    with pytest.raises(Exception, match="verdict"):
        plot_verdict_forest([{"key": "a", "family": "identity"}])


# -- the pages ---------------------------------------------------------------------------------
def test_decision_page_states_the_decision_and_every_family_in_plain_words():
    page = decision_html(leaky_report())
    text = _text(page)
    assert "Decision do not release" in text
    # the verdict and the deciding measure by its human name
    assert (
        "Identity disclosure : risk Deciding: Exact copies of training "
        "records 0.2 (95% interval 0.17 to 0.23); risk above 0.011."
    ) in text
    assert "Attribute disclosure : inconclusive" in text
    # a family that was not assessed is listed, with the reason and what to give
    assert (
        "Membership disclosure : not assessed Why: no holdout was given. To assess it: a holdout: real "
        "records from the same population the generator never saw."
    ) in text
    # a family that ran only in part says what did not run and why
    report = leaky_report()
    unkeyed = dict(report["skipped"][0], family="attribute", reason="no keys were given")
    report["skipped"] += [dict(unkeyed, key="k1"), dict(unkeyed, key="k2")]
    # page 1 counts them; their reasons (which may name settings) are in the family's section
    assert "2 measures not run (see its section)." in _text(decision_html(report))
    assert "no keys were given" not in _text(decision_html(report))
    # one card per family, with the records at risk beside the verdict of the measure counting them
    assert page.count('class="privlib-card"') == 3
    assert "risk 200 training records copied identical_match_share" in text
    # user text is escaped, never markup
    assert "&lt;leaky&gt;" in page and "<leaky>" not in page


def test_verdict_lines_are_one_row_per_measure_grouped_by_family():
    page = verdict_lines_html(leaky_report())
    rows = re.findall(r"<tr>(.*?)</tr>", page, re.S)
    assert len(rows) == 1 + 4  # the header and four measures
    assert _text(rows[1]) == (
        "Exact copies of training records identical_match_share 0.2 0.17 to 0.23 0.011 risk"
    )
    assert _text(rows[4]).endswith("0.51 0.49 to 0.53 0.45 no evidence of risk")
    families = re.findall(r'<tr class="privlib-family"><th colspan="5">(.*?)</th>', page)
    assert families == ["Identity disclosure", "Attribute disclosure"]


def test_fidelity_card_shows_values_intervals_and_what_was_not_computed():
    text = _text(fidelity_html(leaky_report()))
    assert "none of these figures changes a verdict" in text
    assert "1.8 [1.6 to 2]" in text and "0.021 [0.015 to 0.027]" in text
    assert "tstr_ratio not computed: train on synthetic, test on real needs a holdout." in text
    assert "Fidelity was not computed" in _text(fidelity_html(dict(leaky_report(), fidelity=None)))


def test_appendix_has_the_decision_rule_each_rule_and_what_did_not_run():
    page = appendix_html(leaky_report())
    text = _text(page)
    assert "How the decision is made. Do not release when any family's verdict is risk" in text
    rows = [_text(r) for r in re.findall(r"<tr>(.*?)</tr>", page, re.S)]
    assert (
        "Nearest-neighbour adversarial accuracy adversarial_accuracy risk when the whole interval lies "
        "below the threshold (kit default) (95% wilson interval)"
    ) in rows
    assert any(row.endswith("n_copies 200") for row in rows)
    assert "Nearest-neighbour attack AUC nn_mia_auc Membership disclosure needs a holdout" in rows
    assert "Reading of" not in text  # the readings are in the family sections


def test_every_figure_has_alt_text_that_says_what_it_shows():
    import matplotlib.pyplot as plt

    report = leaky_report()
    alt = forest_alt_text(report["measures"], ["identical_match_share", "cap[income]"])
    assert alt == (
        "Forest plot of 4 measures, each drawn between its baseline (0) and its threshold (1), "
        "further right being riskier. 1 risk: Exact copies of training records (beyond the edge, "
        "decided its family). 1 inconclusive: Correct attribution probability (income) (decided its "
        "family). 2 no evidence of risk."
    )
    unplaced = measure("k", "Without a threshold", "attribute", 0.3, None, None, 0.5, None, "not assessable")
    assert forest_alt_text([unplaced]).endswith(
        "Listed without a point (no threshold or no value): Without a threshold."
    )
    page = audit_page_html(report)
    images = re.findall(r"<img [^>]*>", page)
    assert len(images) == 1 and f'alt="{alt.replace(chr(39), "&#39;")}"' in images[0]
    with pytest.raises(ValueError, match="alt text"):
        figure_html(plt.figure(), alt=" ")
    plt.close("all")


def test_the_page_has_a_table_of_contents_and_prints_to_a_short_pdf(tmp_path):
    from pypdf import PdfReader

    page = audit_page_html(leaky_report())
    links = re.findall(r'<a href="#([a-z]+)">', page)
    assert links == ["decision", "fidelity", "forest", "verdicts", "appendix", "glossary"]
    assert all(f'id="{anchor}"' in page for anchor in links)
    (tmp_path / "report.html").write_text(page, encoding="utf-8")
    render_pdf(tmp_path / "report.html", tmp_path / "report.pdf")
    pdf = PdfReader(tmp_path / "report.pdf")
    assert len(pdf.pages) <= 3
    first = re.sub(r"\s+", " ", pdf.pages[0].extract_text())
    for words in (
        "do not release",
        "Identity disclosure",
        "Attribute disclosure",
        "Membership disclosure",
        "not assessed",
    ):
        assert words in first


def test_glossary_prints_in_three_columns_read_down_each_column_in_order(tmp_path):
    from pypdf import PdfReader

    (tmp_path / "report.html").write_text(audit_page_html(leaky_report()), encoding="utf-8")
    render_pdf(tmp_path / "report.html", tmp_path / "report.pdf")
    # Where each glossary term (its bold name, a text piece of its own) is drawn on the page.
    names = {t.term for t in TERMS}
    placed = []
    for number, page in enumerate(PdfReader(tmp_path / "report.pdf").pages):

        def keep(text, cm, tm, font, size, number=number):
            if text.strip() in names:
                placed.append((number, round(tm[4] * cm[0] + cm[4]), -(tm[5] * cm[3] + cm[5]), text.strip()))

        page.extract_text(visitor_text=keep)
    assert len({x for _, x, _, _ in placed}) == 3  # three columns
    # Read down the first column, then the second, then the third: the order of TERMS.
    read = [term for *_, term in sorted(placed)]
    assert read == [t.term for t in TERMS if t.term in read]
    assert len(read) >= 6


def test_in_columns_cuts_runs_in_order_with_the_shortest_tallest_run():
    # Printed lines (45 characters a line, one more for spacing): 90 -> 3, 45 -> 2, 10 -> 2;
    # [3], [2], [2, 2] is the best cut, its tallest run 4 lines (3 + 2 in one run would be 5).
    texts = ["a" * 90, "b" * 45, "c" * 45, "d" * 10]
    runs = in_columns(texts)
    assert [i for run in runs for i in run] == [0, 1, 2, 3]
    assert len(runs) == 3 and runs[0] == [0]
    assert max(sum(-(-len(texts[i]) // 45) + 1 for i in run) for run in runs) == 4
    assert in_columns(["only one"]) == [[0]]
    assert in_columns([]) == []


def test_notebook_figures_keep_their_alt_text_and_sections_get_a_contents_bar(tmp_path):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    plt.close(figure)
    png = base64.b64encode(buffer.getvalue()).decode("ascii")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## First section"),
        nbformat.v4.new_code_cell(
            "",
            outputs=[
                nbformat.v4.new_output(
                    "display_data",
                    data={"image/png": png, "text/plain": "<Figure>"},
                    metadata={"image/png": {"alt": "A rising line <from 0 to 1>"}},
                )
            ],
        ),
        nbformat.v4.new_markdown_cell("## Second & last"),
    ]
    nbformat.write(nb, tmp_path / "in.ipynb")
    out = render_html(tmp_path / "in.ipynb", tmp_path / "out.html", toc=True).read_text(encoding="utf-8")
    assert "No description has been provided" not in out
    assert 'alt="A rising line &lt;from 0 to 1&gt;"' in out
    nav = re.search(r'<nav [^>]*class="privlib-toc".*?</nav>', out, re.S).group(0)
    assert re.findall(r">([^<>]+)</a>", nav) == ["First section", "Second &amp; last"]
    plain = render_html(tmp_path / "in.ipynb", tmp_path / "plain.html").read_text(encoding="utf-8")
    assert "<nav" not in plain and 'class="privlib-compact"' not in plain
    compact = render_html(tmp_path / "in.ipynb", tmp_path / "compact.html", compact=True)
    assert re.search(r'<body[^>]*class="[^"]*privlib-compact', compact.read_text(encoding="utf-8"))


def test_add_toc_numbers_headings_without_an_id():
    page = add_toc("<html><body><h2>One</h2><p>x</p><h2 id='b'>Two</h2></body></html>")
    assert '<a href="#section-1">One</a><a href="#b">Two</a>' in page
    assert page.index("<nav") < page.index("<h2")


def test_a_measures_figure_says_what_it_shows():
    import matplotlib.pyplot as plt

    from privlib.plots import plot_roc
    from privlib.render.audit_pages import measure_figure_html

    record = measure(
        "nn_mia_auc",
        "Nearest-neighbour attack AUC",
        "membership",
        0.5,
        0.45,
        0.55,
        0.5,
        0.55,
        "no evidence of risk",
    )

    def draw(result, ax):
        plot_roc([0, 1], [0, 1], ax=ax, title="Membership attack ROC")

    page = measure_figure_html(record, None, draw)
    alt = html.unescape(re.search(r'alt="([^"]*)"', page).group(1))
    assert alt == (
        "Membership attack ROC, for Nearest-neighbour attack AUC. Reading of Nearest-neighbour attack AUC."
    )
    assert "privlib-figure-half" in page and "(nn_mia_auc)</figcaption>" in page
    assert plt.get_fignums() == []  # the figure is closed


def test_each_reading_is_written_once_in_its_familys_section():
    from privlib.render.audit_pages import readings_html

    report = leaky_report()
    quoted = report["measures"][0]
    quoted["reading"] = f"Copies beyond chance, above the cut-off (rule: {quoted['verdict_rule']})."
    assert "Copies beyond chance, above the cut-off." in _text(readings_html(report, "identity"))
    assert "Attribute" not in readings_html(report, "identity")
    page = html.unescape(audit_page_html(report))
    assert page.count("Copies beyond chance, above the cut-off.") == 1
    for m in report["measures"][1:]:
        assert page.count(m["reading"]) == 1
    text = _text(readings_html(report))
    assert (
        "Membership disclosure In the training data? Nearest-neighbour attack AUC not run nn_mia_auc : "
        "needs a holdout." in text
    )
    assert re.findall(r'<a href="#([a-z-]+)">', page) == [
        "decision",
        "fidelity",
        "forest",
        "verdicts",
        "family-identity",
        "family-attribute",
        "family-membership",
        "appendix",
        "glossary",
    ]


def test_comparison_shows_each_files_own_verdicts_by_the_same_keys():
    from privlib.render.audit_pages import comparison_html

    leaky = leaky_report()
    other = leaky_report()
    other["decision"] = "release only with the listed caveats"
    copies = dict(other["measures"][0], value=0.001, verdict="no evidence of risk")
    other["measures"] = [copies] + other["measures"][1:3]
    page = comparison_html({"leaky.csv": leaky, "other.csv": other})
    rows = [_text(r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)]
    assert rows[0] == "measure leaky.csv other.csv"
    assert rows[1] == "decision do not release release only with the listed caveats"
    assert "Exact copies of training records identical_match_share 0.2 risk 0.001 no evidence of risk" in rows
    assert (
        "Nearest-neighbour adversarial accuracy adversarial_accuracy 0.51 no evidence of risk not run" in rows
    )


# -- per-variable fidelity ---------------------------------------------------------------------
def test_the_fidelity_small_multiples_show_no_extreme_value_and_no_rare_category():
    import matplotlib.pyplot as plt

    from privlib.plots import plot_association_differences, plot_variable_fidelity

    rng = np.random.default_rng(4)
    n = 400
    real = pd.DataFrame(
        {
            "income": np.concatenate([rng.normal(50.0, 10.0, n - 1), [1e6]]),  # one outlier
            "town": ["Rareville"] * 3 + list(rng.choice(["A", "B"], n - 3)),  # 3 people
            "pay_$1k_$": rng.choice(["x", "y"], n),
        }
    )
    synthetic = real.sample(frac=1.0, random_state=1).reset_index(drop=True)
    figure = plot_variable_fidelity(real, synthetic)
    income, town = figure.axes[0], figure.axes[1]
    values = np.sort(real["income"].to_numpy())
    low, high = income.get_xlim()
    # at least 10 real records lie at or beyond each axis limit, so neither is the min or the max
    assert (values <= low).sum() >= 10 and (values >= high).sum() >= 10
    assert low > values[0] and high < values[-1]
    figure.canvas.draw()
    assert all(
        low < tick < high
        for tick in income.get_xticks()
        if income.get_xlim()[0] <= tick <= income.get_xlim()[1]
    )
    labels = [t.get_text() for t in town.get_yticklabels()]
    assert "Rareville" not in labels and "other" in labels
    plt.close(figure)
    # a dollar sign in a name is text, not mathtext, once drawn
    ax = plot_association_differences(real, synthetic)
    ax.figure.canvas.draw()
    assert r"pay_\$1k_\$" in [t.get_text() for t in ax.get_xticklabels()]
    plt.close(ax.figure)


# -- several synthetic files ------------------------------------------------------------------
def _two_files() -> dict:
    """The fixture's report as the first of two synthetic files, with the decision on each."""
    report = leaky_report()
    report["synthetic_label"] = "leaky"
    report["provenance"] = {
        "inputs": [
            {"role": "train", "file": "train.csv", "rows": 1000},
            {"role": "synthetic", "file": "leaky.csv", "rows": 1000},
            {"role": "synthetic", "file": "careful.csv", "rows": 1000},
        ]
    }
    report["files"] = [
        {
            "synthetic_label": "leaky",
            "decision": "do not release",
            "families": {"identity": "risk", "attribute": "inconclusive", "membership": "not assessed"},
        },
        {
            "synthetic_label": "careful",
            "decision": "release only with the listed caveats",
            "families": {"identity": "no evidence of risk", "attribute": "inconclusive"},
        },
    ]
    return report


def test_page_one_names_the_file_its_decision_is_for_and_decides_each_file():
    page = decision_html(_two_files())
    text = _text(page)
    assert "Decision on leaky do not release" in text
    assert "for the synthetic file leaky , the first of 2; each file's own audit decides it below" in text
    rows = [_text(r) for r in re.findall(r"<tr[^>]*>(.*?)</tr>", page, re.S)]
    assert rows == [
        "synthetic file decision Identity disclosure Attribute disclosure Membership disclosure",
        "leaky do not release risk inconclusive not assessed",
        # a family the file's audit did not list reads "not assessed"
        "careful release only with the listed caveats no evidence of risk inconclusive not assessed",
    ]
    # a report of several files without the decision on each (privlib.audit.run's) still says
    # which file its decision is for, and that the others are not decided
    report = _two_files()
    report["files"] = []
    text = _text(decision_html(report))
    assert "Decision on leaky do not release" in text
    assert "the first of 2; this report does not decide the others" in text
    assert "synthetic file decision" not in text
    # one file: no table, no "first of"
    single = _text(decision_html(leaky_report()))
    assert "first of" not in single and "synthetic file decision" not in single


def test_the_shadow_model_reading_says_the_kits_generator_was_refitted():
    from privlib.render.audit_pages import readings_html

    report = leaky_report()
    report["synthetic_label"] = "leaky"
    attack = measure(
        "shadow_model_auc",
        "Shadow-model attack",
        "membership",
        0.6,
        0.4,
        0.8,
        0.5,
        0.8,
        "no evidence of risk",
    )
    report["measures"].append(attack)
    for named, said in (("SequentialTrees", True), ("mypackage.models:MyGenerator", False)):
        report["provenance"] = {"spec": {"targeted_attack": named}}
        text = _text(readings_html(report, "membership"))
        assert ("The attack refitted the kit's own SequentialTrees" in text) is said, named
        assert ("not a generator of yours: it speaks for leaky only if" in text) is said, named
    # other measures' readings say nothing of it
    report["provenance"] = {"spec": {"targeted_attack": "SequentialTrees"}}
    assert "refitted" not in _text(readings_html(report, "identity"))
