"""The audit's forest plot: every measure's value and interval against its threshold."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import numpy as np

from privlib.errors import PrivlibError
from privlib.formatting import number
from privlib.formatting import p_value as format_p
from privlib.plots._base import _axes, _finish

# --------------------------------------------------------------------------------------------
# the audit's verdicts
# --------------------------------------------------------------------------------------------
#: Colour and marker of each verdict in the forest plot: the Okabe-Ito palette, which stays
#: distinct for the common colour-vision deficiencies, and a different marker for each verdict
#: so that the plot also reads in grey.
VERDICT_STYLE = {
    "risk": ("#D55E00", "s"),  # vermillion square
    "inconclusive": ("#E69F00", "D"),  # orange diamond
    "no evidence of risk": ("#0072B2", "o"),  # blue circle
    "not assessable": ("#7F7F7F", "x"),  # grey cross
}

#: The legend's name for the ring around the measure that decided its family's verdict.
DECIDING = "decided its family"

#: The legend's name for a hollow marker: an exact test, whose verdict is its p-value's.
EXACT_TEST = "exact test: judged by its p-value, not its interval"

#: The forest plot's horizontal range on its normalised scale; points beyond it are drawn at its
#: edge as an arrow (their value in the measure's own units is printed on the right).
FOREST_RANGE = (-1.0, 3.0)


#: Characters per line of a measure's label on the forest plot; a longer title takes two lines.
FOREST_LABEL_WIDTH = 46


def forest_label(row: Mapping) -> str:
    """A measure's label on the forest plot: its title, with the variable its key names (two
    CAP readings differ only there), wrapped at :data:`FOREST_LABEL_WIDTH` characters.

    Examples
    --------
    >>> forest_label({"key": "cap[income]", "title": "Correct attribution probability (CAP)"})
    'Correct attribution probability (CAP): income'
    >>> print(forest_label({"key": "near_copy_test", "title": "Near copies: synthetic records far nearer than real neighbours"}))
    Near copies: synthetic records far nearer than
    real neighbours
    """
    label = row.get("title") or row["key"]
    key = str(row["key"])
    variable = key[key.index("[") + 1 : -1] if key.endswith("]") and "[" in key else ""
    if variable and variable not in label:
        label += ": " + variable
    return "\n".join(textwrap.wrap(label, FOREST_LABEL_WIDTH)) or label


def forest_position(value, *, threshold, baseline=None, higher_is_riskier=True):
    """Where ``value`` sits on the forest plot's scale: 0 at the reference, 1 at the threshold.

    The reference is the measure's baseline (chance, or what guessing gives) when it has one,
    else 0. With ``d = |threshold - reference|`` and ``s = +1`` when higher values are riskier
    (``-1`` otherwise), the position is ``1 + s (value - threshold) / d``: larger is riskier for
    every measure, the threshold is at 1 whatever its units, and one unit is the distance from
    the reference to the threshold. A threshold with no margin over its baseline (an exact test:
    every record beyond chance counts) has ``d = 0``; its unit is then the distance from 0 to the
    threshold, so 0 stays at 0 and the threshold at 1. ``NaN`` when the value or the threshold is
    missing, or both the margin and the threshold are 0 (no scale).

    Examples
    --------
    >>> forest_position(0.75, threshold=0.625, baseline=0.5)  # as far beyond as the margin
    2.0
    >>> forest_position(0.25, threshold=0.375, baseline=0.5, higher_is_riskier=False)
    2.0
    >>> forest_position(0.1, threshold=0.2)  # no baseline: the reference is 0
    0.5
    >>> forest_position(60, threshold=30, baseline=30)  # no margin: from 0 to the threshold
    2.0
    """
    numbers = [value, threshold, 0.0 if baseline is None else baseline]
    if any(v is None for v in numbers) or not np.isfinite(np.asarray(numbers, dtype="float64")).all():
        return float("nan")
    reference = 0.0 if baseline is None else float(baseline)
    scale = abs(float(threshold) - reference) or abs(float(threshold))
    if scale == 0:
        return float("nan")
    sign = 1.0 if higher_is_riskier else -1.0
    return 1.0 + sign * (float(value) - float(threshold)) / scale


def forest_points(rows) -> list[tuple[float, bool]]:
    """Where :func:`plot_verdict_forest` draws each row: its position on the plot's scale,
    clipped to :data:`FOREST_RANGE` (NaN when it is not drawn), and whether it lies beyond the
    range (drawn as an arrow at the edge). The figure's alt text is written from these."""
    low_edge, high_edge = FOREST_RANGE
    points = []
    for row in rows:
        position = forest_position(
            row.get("value"),
            threshold=row.get("threshold"),
            baseline=row.get("baseline"),
            higher_is_riskier=row.get("higher_is_riskier", True),
        )
        beyond = bool(np.isfinite(position)) and not low_edge <= position <= high_edge
        points.append((float(np.clip(position, low_edge, high_edge)), beyond))
    return points


def _native_text(row: Mapping, p_value=None) -> str:
    """The row's value, interval and threshold in the measure's own units, for the right margin
    (numbers as the report writes them, :func:`privlib.formatting.number`); an exact test's
    p-value instead of its threshold."""
    value = number(row.get("value"))
    if not value:
        return row.get("verdict") or "not assessable"
    low, high = number(row.get("ci_low")), number(row.get("ci_high"))
    text = value + (f" [{low}, {high}]" if low and high else "")
    if p_value is not None:
        return f"{text}; exact test, {format_p(p_value)}"
    threshold = number(row.get("threshold"))
    if threshold:
        text += f"; threshold {threshold}"
    return text


def plot_verdict_forest(rows, ax=None, *, family_titles=None, title=None, deciding=(), exact_tests=None):
    """Every measure's value and interval against its threshold, coloured by verdict.

    One line per measure, grouped by family (in the order the rows give them), each labelled by
    its human title (with the variable its key names, as ``cap[income]`` reads "income"),
    wrapped at :data:`FOREST_LABEL_WIDTH` characters so that the plot keeps most of the width. Measures have different units (a share,
    an AUC, a count of people), so the horizontal axis is normalised per measure by
    :func:`forest_position`: **0 is the measure's baseline** (what chance or guessing gives; 0
    for a measure without one), **1 is its threshold**, and further right is riskier, whether
    the measure's own risky direction is up or down. One unit is the distance from the baseline
    to the threshold, so a point at 3 lies twice that distance beyond the threshold. The line is
    the interval, the marker the value (a measure without an interval is its marker alone);
    colour and marker shape give the verdict (Okabe-Ito colours, see :data:`VERDICT_STYLE`), and
    a ring marks the measure that decided its family's verdict. The value, interval and threshold
    in the measure's own units are printed on the right. A point beyond :data:`FOREST_RANGE` is
    drawn at the edge as an arrow; a measure with no value or no usable threshold is listed with
    its verdict only. An exact test (``exact_tests``) is decided by its p-value, not by where its
    interval lies against the threshold: its marker is hollow, the legend says so, and its
    p-value is printed on the right in place of the threshold.

    Parameters
    ----------
    rows : sequence of mapping
        One per measure, with the fields of the audit's measure records: ``key``, ``title``,
        ``family``, ``value``, ``ci_low``, ``ci_high``, ``baseline``, ``threshold``,
        ``higher_is_riskier`` and ``verdict`` (missing numbers as ``None`` or NaN).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure sized to the rows by default.
    family_titles : mapping of str to str, optional
        A heading per family key (default: the key, capitalised).
    title : str, optional
        Axes title.
    deciding : collection of str, optional
        Keys of the measures that decided their family's verdict (ringed).
    exact_tests : mapping of str to float, optional
        The p-value that decides each exact test, by key (its family's Holm-adjusted p-value).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.lines import Line2D

    rows = [dict(r) for r in rows]
    if not rows:
        raise PrivlibError("`rows` must hold at least one measure record to plot.")
    deciding = set(deciding)
    exact_tests = dict(exact_tests or {})
    for i, row in enumerate(rows):
        missing = [f for f in ("key", "family", "verdict") if f not in row]
        if missing:
            raise PrivlibError(f"`rows[{i}]` has no {missing}; pass the audit's measure records.")
    family_titles = dict(family_titles or {})
    families = list(dict.fromkeys(row["family"] for row in rows))
    # Lines from the top: a heading per family, then its measures.
    lines = []
    for family in families:
        lines.append(("family", family_titles.get(family, str(family).capitalize())))
        lines += [("measure", row) for row in rows if row["family"] == family]
    # Each line's height in units of one line of text; a wrapped label takes more.
    labels = [forest_label(item) if kind == "measure" else item for kind, item in lines]
    heights = [1.0 + 0.6 * label.count("\n") for label in labels]
    tops = np.cumsum(heights[::-1])[::-1]  # the top of each line, counted from the bottom
    centres = tops - np.asarray(heights) / 2
    ax = _axes(ax, figsize=(7.5, 0.15 * float(tops[0]) + 0.9))
    low_edge, high_edge = FOREST_RANGE
    ax.axvspan(1.0, high_edge, color="#F2F2F2", zorder=0)
    ax.axvline(0.0, color="#999999", linewidth=0.8, linestyle=":", zorder=1)
    ax.axvline(1.0, color="black", linewidth=1.0, linestyle="--", zorder=1)
    label_at = ax.get_yaxis_transform()  # x in axes fractions, y in data
    seen = set()
    for (kind, item), label, y, top in zip(lines, labels, centres, tops, strict=True):
        if kind == "family":
            ax.text(
                -0.01,
                y,
                label,
                transform=label_at,
                ha="right",
                va="center",
                fontsize=9,
                fontweight="bold",
                parse_math=False,
            )
            ax.axhline(top, color="#CCCCCC", linewidth=0.6, zorder=1)
            continue
        row = item
        verdict = row["verdict"] or "not assessable"
        colour, marker = VERDICT_STYLE.get(verdict, VERDICT_STYLE["not assessable"])
        ax.text(
            -0.01,
            y,
            label,
            transform=label_at,
            ha="right",
            va="center",
            fontsize=7.5,
            linespacing=1.0,
            parse_math=False,
        )
        ax.text(
            1.01,
            y,
            _native_text(row, exact_tests.get(row["key"])),
            transform=label_at,
            ha="left",
            va="center",
            fontsize=7,
            color="#333333",
            parse_math=False,
        )
        direction = {
            "threshold": row.get("threshold"),
            "baseline": row.get("baseline"),
            "higher_is_riskier": row.get("higher_is_riskier", True),
        }
        [(centre, beyond)] = forest_points([row])
        if not np.isfinite(centre):
            continue
        ends = [forest_position(row.get(end), **direction) for end in ("ci_low", "ci_high")]
        if all(np.isfinite(ends)):
            ax.plot(
                np.clip(sorted(ends), low_edge, high_edge),
                [y, y],
                color=colour,
                linewidth=2,
                solid_capstyle="butt",
                zorder=2,
            )
        seen.add(verdict)
        if beyond:
            marker = ">" if centre >= high_edge else "<"
        exact = row["key"] in exact_tests
        ax.scatter(
            [centre],
            [y],
            marker=marker,
            s=48 if beyond else 36,
            facecolors="white" if exact else colour,
            edgecolors=colour,
            linewidths=1.5 if exact else 1.0,
            zorder=3,
        )
        if exact:
            seen.add(EXACT_TEST)
        if row["key"] in deciding:
            ax.scatter(
                [centre],
                [y],
                marker="o",
                s=150,
                facecolors="none",
                edgecolors="black",
                linewidths=1.0,
                zorder=4,
            )
            seen.add(DECIDING)
    # room beyond the edges for the arrows of the points drawn there
    ax.set_xlim(low_edge - 0.1, high_edge + 0.15)
    ax.set_ylim(-0.2, float(tops[0]) + 0.1)
    ax.set_yticks([])
    ax.set_xticks([-1, 0, 1, 2, 3])
    # The two reference lines are named on the first line (a family heading, empty in the axes),
    # one on each side, so that the names never collide however narrow the axes.
    ax.text(-0.04, centres[0], "baseline", ha="right", va="center", fontsize=7, color="#555555")
    ax.text(1.04, centres[0], "threshold", ha="left", va="center", fontsize=7, color="#333333")
    ax.tick_params(axis="x", labelsize=8)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    # The legend shows each verdict's own marker, whatever shape its first point was drawn with.
    order = [v for v in VERDICT_STYLE if v in seen]
    handles = [
        Line2D([], [], linestyle="", marker=VERDICT_STYLE[v][1], color=VERDICT_STYLE[v][0]) for v in order
    ]
    if EXACT_TEST in seen:
        order.append(EXACT_TEST)
        handles.append(
            Line2D(
                [],
                [],
                linestyle="",
                marker="s",
                markerfacecolor="white",
                color="#555555",
                markeredgewidth=1.5,
            )
        )
    if DECIDING in seen:
        order.append(DECIDING)
        handles.append(
            Line2D([], [], linestyle="", marker="o", markersize=10, markerfacecolor="none", color="black")
        )
    legend = {
        "handles": handles,
        "labels": order,
        "fontsize": 7,
        "ncols": min(3, max(1, len(order))),
        "loc": "lower center",
        "bbox_to_anchor": (0.5, 1.0),
        "frameon": False,
    }
    _finish(
        ax,
        # two lines: one would be cut at the figure's edge in a report column
        xlabel="position from the baseline (0) to the threshold (1), per measure;\n"
        "right of 1 = beyond the threshold, riskier",
        title=title,
        legend=legend if handles else None,
    )
    ax.xaxis.label.set_fontsize(8)
    return ax
