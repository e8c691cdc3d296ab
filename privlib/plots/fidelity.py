"""Per-variable fidelity: redacted small multiples of each variable, real against synthetic, and
the pairwise association differences (Cramér's V)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from privlib.errors import PrivlibError
from privlib.formatting import number
from privlib.plots._base import AXIS_RECORDS, _axes, _finish

# --------------------------------------------------------------------------------------------
# per-variable fidelity (redacted small multiples)
# --------------------------------------------------------------------------------------------
#: Most categories a variable's panel names; the others are pooled as :data:`OTHER`.
SHOWN_CATEGORIES = 8

#: The label of pooled categories: those beyond :data:`SHOWN_CATEGORIES` and every category with
#: fewer than :data:`AXIS_RECORDS` real records (a rare category would point at its few people).
OTHER = "other"

#: Most panels one figure of small multiples holds (two rows of four, under 9 cm on paper, so that
#: a figure fits below the content above it and the next flows on); more variables take more
#: figures (:func:`plot_variable_fidelity` draws the columns it is given, every one by default).
PANELS_PER_FIGURE = 8

#: Characters per line of a panel's title; a longer column name takes more lines, never clipped.
PANEL_TITLE_WIDTH = 22

#: Most variables whose association heatmap carries each cell's number; more show colour only.
ANNOTATED_VARIABLES = 20

#: Most variables whose association heatmap a report shows at half the page's width.
HALF_WIDTH_VARIABLES = 12

#: The two tables' colours in the fidelity figures (Okabe-Ito blue and orange).
TABLE_COLOURS = {"real": "#0072B2", "synthetic": "#E69F00"}


def _literal(label) -> str:
    """``label`` as tick-label text that mathtext prints as it is: tick labels are made when the
    figure is drawn, so a dollar sign in a user's name ("pay_$1k_$") is escaped rather than
    switched off per label."""
    return str(label).replace("$", r"\$")


def _pooled(real: pd.Series, synthetic: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Both columns as text labels in which only the real data's frequent categories keep their
    name (at most :data:`SHOWN_CATEGORIES`, each with at least :data:`AXIS_RECORDS` real
    records); the rest, and the synthetic data's categories outside them, read :data:`OTHER`."""
    labels = [real.astype(object).where(real.notna(), "missing").astype(str)]
    labels.append(synthetic.astype(object).where(synthetic.notna(), "missing").astype(str))
    counts = labels[0].value_counts()
    kept = [c for c in counts.index[:SHOWN_CATEGORIES] if counts[c] >= AXIS_RECORDS]
    pooled = [text.where(text.isin(kept), OTHER) for text in labels]
    return pooled[0], pooled[1]


def central_range(values: np.ndarray) -> tuple[float, float] | None:
    """The range of ``values`` (the real data's) with at least :data:`AXIS_RECORDS` records at or
    beyond each end: an axis limit never shows the smallest or largest value of a confidential
    column. ``None`` when there are too few values for such a range."""
    values = values[np.isfinite(values)]
    if values.size < 3 * AXIS_RECORDS:
        return None
    share = AXIS_RECORDS / values.size
    low = float(np.quantile(values, share, method="higher"))
    high = float(np.quantile(values, 1 - share, method="lower"))
    return (low, high) if high > low else None


def _numeric_panel(ax, real: np.ndarray, synthetic: np.ndarray) -> bool:
    """Histograms of both tables on the real data's central range (values beyond it left out),
    the outermost tick labels pruned; False when the range cannot be shown."""
    import seaborn as sns
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    bounds = central_range(real)
    if bounds is None:
        return False
    frames = [
        pd.DataFrame({"value": values[(values >= bounds[0]) & (values <= bounds[1])], "table": name})
        for name, values in (("real", real), ("synthetic", synthetic))
    ]
    long = pd.concat(frames, ignore_index=True)
    sns.histplot(
        data=long,
        x="value",
        hue="table",
        hue_order=list(TABLE_COLOURS),
        palette=TABLE_COLOURS,
        stat="proportion",
        common_norm=False,
        element="step",
        bins=15,
        binrange=bounds,
        legend=False,
        ax=ax,
    )
    ax.set_xlim(*bounds)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=3, prune="both"))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: tick_text(x)))
    return True


def tick_text(value: float) -> str:
    """A tick label people read at a glance: 200k for 200,000, 1.5M for 1,500,000, else the
    number as the report writes it (:func:`privlib.formatting.number`), never 2e+05.

    Examples
    --------
    >>> [tick_text(v) for v in (200000, 1500000, 2500, 0.25, 0)]
    ['200k', '1.5M', '2,500', '0.25', '0']
    """
    for start, scale, suffix in ((1e9, 1e9, "bn"), (1e6, 1e6, "M"), (1e4, 1e3, "k")):
        if abs(value) >= start:
            return f"{number(value / scale)}{suffix}"
    return number(float(value))


def _categorical_panel(ax, real: pd.Series, synthetic: pd.Series) -> None:
    """Each named category's share in both tables, side by side (pooled categories last)."""
    import seaborn as sns

    real, synthetic = _pooled(real, synthetic)
    order = [c for c in real.value_counts().index if c != OTHER]
    if (real == OTHER).any() or (synthetic == OTHER).any():
        order.append(OTHER)
    shares = pd.concat(
        [
            pd.DataFrame(
                {
                    "category": [_literal(c) for c in order],
                    "share": labels.value_counts(normalize=True).reindex(order, fill_value=0.0).to_numpy(),
                    "table": name,
                }
            )
            for name, labels in (("real", real), ("synthetic", synthetic))
        ],
        ignore_index=True,
    )
    sns.barplot(
        data=shares,
        y="category",
        x="share",
        hue="table",
        hue_order=list(TABLE_COLOURS),
        palette=TABLE_COLOURS,
        legend=False,
        ax=ax,
    )
    ax.set_ylabel("")
    ax.tick_params(axis="y", labelsize=6)


def variable_chunks(columns, *, most: int = PANELS_PER_FIGURE, ncols: int = 4) -> list[list]:
    """``columns`` in consecutive figures of at most ``most`` panels, as even as whole rows allow
    (15 variables in figures of 12: 8 and 7, not 12 and 3).

    Examples
    --------
    >>> [len(c) for c in variable_chunks(list(range(15)), most=12)]
    [8, 7]
    >>> [len(c) for c in variable_chunks(list(range(12)), most=12)]
    [12]
    >>> [len(c) for c in variable_chunks(list(range(11)))]
    [8, 3]
    >>> [len(c) for c in variable_chunks(list(range(25)), most=12)]
    [12, 8, 5]
    """
    columns = list(columns)
    figures = -(-len(columns) // most)
    if figures <= 1:
        return [columns] if columns else []
    # whole rows shared out as evenly as they go, the first figures taking the extra rows
    base, extra = divmod(-(-len(columns) // ncols), figures)
    chunks, start = [], 0
    for figure in range(figures):
        end = start + (base + (figure < extra)) * ncols
        chunks.append(columns[start:end])
        start = end
    return [chunk for chunk in chunks if chunk]


def variable_order(columns, *, first=()) -> list:
    """``columns`` with those named in ``first`` (the keys, then the sensitive variables) ahead,
    in ``first``'s order, and the rest in the table's order: the figures show the variables that
    matter most to privacy on their first panels.

    Examples
    --------
    >>> variable_order(["age", "sex", "income", "race"], first=["race", "income", "absent"])
    ['race', 'income', 'age', 'sex']
    """
    columns = list(columns)
    ahead = [c for c in dict.fromkeys(first) if c in columns]
    return ahead + [c for c in columns if c not in ahead]


def plot_variable_fidelity(real, synthetic, *, kinds=None, columns=None, ncols=4):
    """Each variable's distribution in the real and the synthetic data, one small panel each.

    Categorical variables show each category's share in both tables; a category with fewer than
    :data:`AXIS_RECORDS` real records, and those beyond the :data:`SHOWN_CATEGORIES` most
    frequent, are pooled as "other". Numeric variables (dates in days) show both tables'
    histograms on the real data's central range (:func:`central_range`: at least
    :data:`AXIS_RECORDS` real records lie beyond each end, so no axis shows a minimum or a
    maximum), the outermost tick labels pruned and written as people read them
    (:func:`tick_text`: 200k). Every variable of ``columns`` is drawn (a report splits many
    variables into figures of :data:`PANELS_PER_FIGURE`); a long name wraps over lines. Real data
    in blue, synthetic in orange (Okabe-Ito).

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The real (training) data and the synthetic data, with the same columns.
    kinds : mapping of str to str, optional
        Each column's kind (:func:`privlib.schema.infer_kinds` by default).
    columns : sequence of str, optional
        The variables to draw, in order (default: every column with a kind, in the table's order).
    ncols : int, default 4
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import textwrap

    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from privlib.schema import NUMERIC, infer_kinds, numeric_values

    kinds = dict(kinds or infer_kinds(real, name="real"))
    columns = [c for c in (real.columns if columns is None else columns) if c in kinds]
    if not columns:
        raise PrivlibError("`real` has no column to show.")
    # panels keep their size when fewer than a row: two take half the width (at least half, for
    # the legend), so a report can set such a figure beside another
    width = 7.5 * max(min(ncols, len(columns)), ncols / 2) / ncols
    ncols = min(ncols, len(columns))
    nrows = -(-len(columns) // ncols)
    figure, axes = plt.subplots(
        nrows, ncols, figsize=(width, 1.55 * nrows + 0.35), layout="constrained", squeeze=False
    )
    for ax, column in zip(axes.flat, columns):
        if kinds[column] == NUMERIC:
            shown = _numeric_panel(ax, numeric_values(real[column]), numeric_values(synthetic[column]))
            if not shown:
                ax.text(
                    0.5,
                    0.5,
                    "too few records\nto show",
                    ha="center",
                    va="center",
                    fontsize=7,
                    transform=ax.transAxes,
                )
                ax.set_xticks([])
                ax.set_yticks([])
        else:
            _categorical_panel(ax, real[column], synthetic[column])
        ax.set_title(
            "\n".join(textwrap.wrap(str(column), PANEL_TITLE_WIDTH)) or str(column),
            fontsize=8,
            parse_math=False,
        )
        ax.set_xlabel("")
        ax.set_ylabel("")
        ax.tick_params(labelsize=6)
    for ax in axes.flat[len(columns) :]:
        ax.set_visible(False)
    handles = [Line2D([], [], color=colour, linewidth=6) for colour in TABLE_COLOURS.values()]
    figure.legend(
        handles, list(TABLE_COLOURS), loc="outside upper center", ncols=2, fontsize=7, frameon=False
    )
    return figure


def _association_codes(real: pd.DataFrame, synthetic: pd.DataFrame, kinds: Mapping) -> dict:
    """Each column of both tables as category codes for a contingency table: categories as they
    are, numbers cut at the real data's quintiles (missing values a level of their own)."""
    from privlib.schema import NUMERIC, numeric_values

    codes = {}
    for column in kinds:
        if kinds[column] == NUMERIC:
            values = [numeric_values(real[column]), numeric_values(synthetic[column])]
            finite = values[0][np.isfinite(values[0])]
            edges = np.unique(np.quantile(finite, [0.2, 0.4, 0.6, 0.8])) if finite.size else np.array([])
            codes[column] = [np.where(np.isnan(v), -1, np.searchsorted(edges, v)) for v in values]
        else:
            both = pd.concat([real[column], synthetic[column]], ignore_index=True).astype(object)
            levels, _ = pd.factorize(both, use_na_sentinel=True)
            codes[column] = [levels[: len(real)], levels[len(real) :]]
    return codes


def contingency_table(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Counts of each pair of values of two coded variables, rows and columns the values seen, in
    increasing order (``pandas.crosstab`` of two integer arrays, without its cost per call)."""
    row_values, rows = np.unique(left, return_inverse=True)
    column_values, columns = np.unique(right, return_inverse=True)
    cells = np.bincount(rows * column_values.size + columns, minlength=row_values.size * column_values.size)
    return cells.reshape(row_values.size, column_values.size)


def cramers_v(left: np.ndarray, right: np.ndarray) -> float:
    """Cramér's V between two coded variables (0 = independent, 1 = one determines the other);
    NaN when either takes a single value."""
    from scipy.stats.contingency import association

    table = contingency_table(left, right)
    if min(table.shape) < 2:
        return float("nan")
    return float(association(table, method="cramer"))


def association_differences(real, synthetic, *, kinds=None, columns=None) -> pd.DataFrame:
    """``|V_real - V_synthetic|`` for every pair of variables (Cramér's V, numbers cut at the real
    data's quintiles), as a symmetric table with an empty diagonal: 0 where the synthetic data
    keeps a pair's association, up to 1 where it loses or invents it. ``columns`` gives the
    variables and their order (default: every column with a kind, in the table's order)."""
    from privlib.schema import infer_kinds

    kinds = dict(kinds or infer_kinds(real, name="real"))
    columns = [c for c in (real.columns if columns is None else columns) if c in kinds]
    codes = _association_codes(real, synthetic, {c: kinds[c] for c in columns})
    out = pd.DataFrame(np.nan, index=columns, columns=columns)
    for i, a in enumerate(columns):
        for b in columns[i + 1 :]:
            gap = abs(cramers_v(codes[a][0], codes[b][0]) - cramers_v(codes[a][1], codes[b][1]))
            out.loc[a, b] = out.loc[b, a] = gap
    return out


def plot_association_differences(real, synthetic, *, kinds=None, columns=None, ax=None, title=None):
    """The pairwise association differences (:func:`association_differences`) as a heatmap,
    darker a larger difference, each cell's number printed for up to
    :data:`ANNOTATED_VARIABLES` variables (more would be too small to read); the figure grows
    with the number of variables so that its numbers stay at a readable size."""
    import seaborn as sns

    table = association_differences(real, synthetic, kinds=kinds, columns=columns)
    table.index = table.columns = [_literal(c) for c in table.columns]
    # sized to its cells (about 0.27 inch each, the numbers' 7 points fit) and at most 5 inches
    # tall: up to HALF_WIDTH_VARIABLES it reads at half the page's width, more take the whole width
    size = 0.27 * len(table)
    ax = _axes(ax, figsize=(min(size + 1.6, 7.5), min(size + 0.9, 5.0)))
    mask = np.triu(np.ones(table.shape, dtype=bool))
    sns.heatmap(
        table,
        mask=mask,
        vmin=0.0,
        vmax=max(0.1, float(np.nanmax(table.to_numpy())) if table.notna().any().any() else 0.1),
        cmap="Oranges",
        annot=len(table) <= ANNOTATED_VARIABLES,
        fmt=".2f",
        annot_kws={"fontsize": 7},
        cbar_kws={"label": "|V real - V synthetic|", "shrink": 0.7},
        linewidths=0.5,
        ax=ax,
    )
    ax.tick_params(labelsize=7.5)
    return _finish(ax, title=title)
