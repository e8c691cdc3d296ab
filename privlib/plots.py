"""Plots for the course and the reports: axes in, axes out.

Every function takes the data to draw and an optional matplotlib ``ax`` (a new figure is made when
it is ``None``), draws on it, and returns the axes, so notebooks and reports can lay figures out as
they like. Figures are sized and labelled to read well both in HTML and in PDF.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping

import numpy as np
import pandas as pd

from privlib.errors import PrivlibError


def _axes(ax=None, figsize=(6.0, 4.0)):
    """Return ``ax``, or the axes of a new figure of ``figsize`` inches."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


def _finish(ax, *, xlabel=None, ylabel=None, title=None, legend=None):
    """Label ``ax``, draw its legend and title, and return it.

    ``legend`` holds the keyword arguments of ``ax.legend`` (``{}`` for its defaults); ``None``
    draws no legend. The title is set only when ``title`` is truthy.
    """
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if legend is not None:
        ax.legend(**legend)
    if title:
        ax.set_title(title)
    # Titles, labels and legends hold user-supplied names: "pay_$1k_$" is text, not mathtext.
    texts = [ax.title, ax.xaxis.label, ax.yaxis.label]
    if ax.get_legend() is not None:
        texts += ax.get_legend().get_texts()
    for text in texts:
        text.set_parse_math(False)
    return ax


# --------------------------------------------------------------------------------------------
# identity
# --------------------------------------------------------------------------------------------
#: Fewest records at or beyond an axis limit drawn from the data: a limit set by fewer (the largest
#: value, say) would show where one outlying record lies.
AXIS_RECORDS = 10


def _axis_top(arrays) -> float:
    """The upper axis limit for ``arrays`` of per-record values: the smallest value with at least
    :data:`AXIS_RECORDS` records at or above it (all records together), never the maximum."""
    pooled = np.concatenate(list(arrays))
    level = max(0.0, 1.0 - AXIS_RECORDS / pooled.size)
    return float(np.quantile(pooled, level, method="lower"))


def plot_dcr_histogram(dcr_values, *, ax=None, label=None, bins=30, title=None):
    """Histogram of distances to closest record (DCR), as shares of records.

    A spike at 0 means exact copies; each legend entry states the share of records at exactly 0,
    which a bin of the histogram cannot show on its own.

    Parameters
    ----------
    dcr_values : array-like or mapping of str to array-like
        One DCR per record (e.g. from :func:`privlib.identity.dcr`). A mapping draws several
        distributions on the same bins (e.g. synthetic records and holdout records).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    label : str, optional
        Legend label when ``dcr_values`` is a single array.
    bins : int or sequence of float, default 30
        Number of equal-width bins from 0 to a distance with at least 10 records at or beyond it
        (larger distances are counted in the last bin: the largest one would locate a single
        record), or the bin edges.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    named = dict(dcr_values) if isinstance(dcr_values, Mapping) else {label: dcr_values}
    arrays = {name: np.asarray(values, dtype="float64").ravel() for name, values in named.items()}
    for name, values in arrays.items():
        if values.size == 0 or not np.isfinite(values).all():
            raise PrivlibError(
                f"`dcr_values`{'' if name is None else f'[{name!r}]'} must be a non-empty array of "
                "finite distances."
            )
    if np.ndim(bins) == 0:
        top = _axis_top(arrays.values())
        top = top if top > 0 else 1.0
        bins = np.linspace(0.0, top, int(bins) + 1)
        arrays = {name: np.minimum(values, top) for name, values in arrays.items()}
    ax = _axes(ax)
    for name, values in arrays.items():
        at_zero = f"{np.mean(values == 0):.0%} at 0"
        ax.hist(
            values,
            bins=bins,
            weights=np.full(values.size, 1.0 / values.size),
            histtype="step",
            linewidth=2,
            label=at_zero if name is None else f"{name} ({at_zero})",
        )
    return _finish(
        ax, xlabel="distance to closest record (Gower)", ylabel="share of records", title=title, legend={}
    )


# --------------------------------------------------------------------------------------------
# attribute
# --------------------------------------------------------------------------------------------
def plot_cap_scatter(result, *, ax=None, title=None):
    """Record-level CAP: from the original data (x) against from the synthetic data (y).

    Records with the same pair of values are drawn as one point whose area grows with their
    number (with categorical keys many records share a pair). Colours separate records whose key
    is absent from the synthetic data (CAP 0), records whose CAP from the synthetic data is above
    the share of their target value in the original data (the synthetic data tells the intruder
    more than guessing), and the rest.

    Parameters
    ----------
    result : privlib.attribute.CAPResult
        The result of :func:`privlib.attribute.cap` (its per-record arrays are drawn).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    missing = [
        a
        for a in ("per_record", "per_record_original", "per_record_marginal", "key_in_synthetic")
        if getattr(result, a, None) is None
    ]
    if missing:
        raise PrivlibError(f"`result` has no {missing}; pass the result of privlib.attribute.cap.")
    x = np.asarray(result.per_record_original, dtype="float64")
    y = np.asarray(result.per_record, dtype="float64")
    present = np.asarray(result.key_in_synthetic, dtype=bool)
    above = present & (y > np.asarray(result.per_record_marginal))
    groups = [
        (~present, "key absent from synthetic", "tab:gray"),
        (present & ~above, "at or below the marginal share", "tab:blue"),
        (above, "above the marginal share", "tab:red"),
    ]
    points = [
        (np.unique(np.column_stack([x[mask], y[mask]]), axis=0, return_counts=True), label, colour)
        for mask, label, colour in groups
        if mask.any()
    ]
    largest = max(counts.max() for (_, counts), _, _ in points)
    ax = _axes(ax, figsize=(5.5, 5.0))
    for (pairs, counts), label, colour in points:
        # Area proportional to the number of records, scaled so the largest point stays readable.
        n = int(counts.sum())
        ax.scatter(
            pairs[:, 0],
            pairs[:, 1],
            s=15 + 400 * counts / largest,
            c=colour,
            alpha=0.5,
            edgecolors="none",
            label=f"{label} ({n} record{'s' if n != 1 else ''})",
        )
    ax.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=1, label="same CAP")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    _finish(
        ax,
        xlabel="CAP from the original data",
        ylabel="CAP from the synthetic data",
        title=title,
        legend=dict(loc="upper left", fontsize="small"),
    )
    for handle in ax.get_legend().legend_handles[:-1]:  # one marker size in the legend, not the largest
        handle.set_sizes([30])
    return ax


def plot_relative_errors(result, *, ax=None, title=None):
    """Record-level errors of the predicted target: model on R (x) against model on S (y).

    Each point is one original record: its error ``min(|y_hat - y| / IQR, 1)`` (in interquartile
    ranges of the target, capped at one; see :func:`privlib.attribute.knn_risk`) when the model
    is fitted on the original data (leave-one-out) and when it is fitted on the synthetic data.
    Points below the diagonal are predicted better from the synthetic data than from the
    original data itself. Both axes run from 0 to 1 whatever the data, so no limit shows where
    a record lies.

    Parameters
    ----------
    result : privlib.attribute.KnnRiskResult
        The result of :func:`privlib.attribute.knn_risk` for a numeric target.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    if getattr(result, "task", None) != "regression":
        raise PrivlibError(
            "`result` must be a privlib.attribute.knn_risk result for a numeric target; relative "
            "errors are not defined for a categorical one."
        )
    x = np.asarray(result.per_record_original, dtype="float64")
    y = np.asarray(result.per_record, dtype="float64")
    ax = _axes(ax, figsize=(5.5, 5.0))
    better = y < x
    ax.scatter(
        x[~better],
        y[~better],
        s=10,
        alpha=0.4,
        c="tab:blue",
        edgecolors="none",
        label=f"not better from synthetic ({np.mean(~better):.0%})",
    )
    ax.scatter(
        x[better],
        y[better],
        s=10,
        alpha=0.6,
        c="tab:red",
        edgecolors="none",
        label=f"better from synthetic ({np.mean(better):.0%})",
    )
    ax.plot([0, 1], [0, 1], linestyle="--", color="black", linewidth=1, label="same error")
    ax.set_xlim(-0.03, 1.03)
    ax.set_ylim(-0.03, 1.03)
    return _finish(
        ax,
        xlabel="error in IQRs (capped at 1), model fitted on the original data",
        ylabel="error in IQRs (capped at 1), model fitted on the synthetic data",
        title=title,
        legend=dict(loc="upper left", fontsize="small"),
    )


# --------------------------------------------------------------------------------------------
# membership
# --------------------------------------------------------------------------------------------
def plot_f1_vs_t(results, *, ground_truth=None, ax=None, title=None):
    """F1 of the partitioning method against the share t of training records in the attack set.

    Draws each result's mean F1 with its spread over repetitions, the F1 of calling everyone a
    member (2t / (1 + t)) for comparison, and, when given, the ground-truth F1 as a band; a vertical
    line marks t = n/N when the results know the population size.

    Parameters
    ----------
    results : sequence of privlib.membership.MembershipRisk
        Results of :func:`privlib.membership.partition_risk` at several values of ``t``.
    ground_truth : privlib.membership.MembershipRisk, optional
        Result of :func:`privlib.membership.ground_truth_risk` for the same synthetic data.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from privlib.membership import naive_f1

    results = sorted(results, key=lambda r: r.t)
    if not results or any(getattr(r, "t", None) is None for r in results):
        raise PrivlibError("`results` must be a non-empty list of privlib.membership.partition_risk results.")
    t = np.array([r.t for r in results])
    ax = _axes(ax)
    ax.fill_between(t, [r.f1_low for r in results], [r.f1_high for r in results], alpha=0.25)
    level = f"{results[0].confidence:.0%}"
    ax.plot(
        t, [r.f1 for r in results], marker="o", linewidth=2, label=f"partitioning method ({level} interval)"
    )
    grid = np.linspace(0, 1, 101)
    ax.plot(grid, naive_f1(grid), linestyle=":", color="gray", label="calling everyone a member")
    if ground_truth is not None:
        ax.axhspan(ground_truth.f1_low, ground_truth.f1_high, color="tab:green", alpha=0.15)
        ax.axhline(
            ground_truth.f1,
            color="tab:green",
            linewidth=2,
            label=f"ground truth ({ground_truth.confidence:.0%} interval)",
        )
    population = results[0].population_size
    if population:
        ax.axvline(
            results[0].n / population,
            color="black",
            linestyle="--",
            linewidth=1,
            label=f"t = n/N = {results[0].n / population:.3g}",
        )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    return _finish(
        ax,
        xlabel="t: share of the attack set drawn from the training data",
        ylabel="F1 of the membership attack",
        title=title,
        legend=dict(loc="upper left", fontsize="small"),
    )


def plot_risk_utility_loss(points=None, *, ax=None, title=None):
    """The risk-utility loss of El Emam et al. (2022) against the relative risk M, for U = 1.

    Parameters
    ----------
    points : mapping of str to (float, float), optional
        Generators to place on the chart: label -> (M, utility U); each is drawn at its loss.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from privlib.membership import M_THRESHOLD, risk_utility_loss

    points = dict(points or {})
    lowest = min([-0.5] + [float(m) for m, _ in points.values()])
    grid = np.linspace(lowest, 1.0, 400)
    ax = _axes(ax)
    ax.plot(grid, risk_utility_loss(grid, 1.0), linewidth=2, color="gray", label="loss when U = 1")
    ax.axvline(M_THRESHOLD, linestyle="--", color="black", linewidth=1, label=f"M = {M_THRESHOLD}")
    top = -0.7  # the curve for U = 1 ends at -0.81; leave room above it for the legend
    for label, (m, utility) in points.items():
        loss = risk_utility_loss(m, utility)
        top = max(top, loss + 0.05)
        ax.scatter([m], [loss], s=40, zorder=3, label=f"{label} (U = {utility:.2f})")
    ax.set_ylim(-1.02, top)
    return _finish(
        ax,
        xlabel="relative risk M",
        ylabel="risk-utility loss (lower is better)",
        title=title,
        legend=dict(loc="upper left", fontsize="small"),
    )


def plot_roc(fpr, tpr, *, auc=None, ax=None, title=None):
    """ROC curve of a membership attack, with the diagonal of guessing.

    Parameters
    ----------
    fpr, tpr : array-like of float
        False and true positive rates, in curve order (e.g. ``NNMia.fpr`` and ``NNMia.tpr`` of
        :func:`privlib.membership.nn_mia`).
    auc : float, optional
        Area under the curve, stated in the legend.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    fpr = np.asarray(fpr, dtype="float64").ravel()
    tpr = np.asarray(tpr, dtype="float64").ravel()
    if fpr.size == 0 or fpr.shape != tpr.shape:
        raise PrivlibError("`fpr` and `tpr` must be non-empty arrays of the same length.")
    ax = _axes(ax, figsize=(5.0, 4.5))
    ax.plot(fpr, tpr, linewidth=2, label="attack" if auc is None else f"attack (AUC {auc:.3f})")
    ax.plot([0, 1], [0, 1], linestyle="--", color="gray", linewidth=1, label="guessing (AUC 0.5)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    return _finish(
        ax,
        xlabel="share of non-members called members (false positive rate)",
        ylabel="share of members found (true positive rate)",
        title=title,
        legend=dict(loc="lower right", fontsize="small"),
    )


def plot_threshold_precision(result, *, ax=None, title=None):
    """Precision and recall of the distance-threshold attack over its thresholds.

    Parameters
    ----------
    result : privlib.membership.ThresholdAttack
        The result of :func:`privlib.membership.threshold_attack`; its ``thresholds``,
        ``precision`` and ``recall`` arrays are drawn, with its baseline (guessing) as a line.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    missing = [a for a in ("thresholds", "precision", "recall") if getattr(result, a, None) is None]
    if missing:
        raise PrivlibError(
            f"`result` has no {missing}; pass the result of privlib.membership.threshold_attack."
        )
    ax = _axes(ax)
    ax.plot(result.thresholds, result.precision, linewidth=2, label="precision")
    ax.plot(result.thresholds, result.recall, linewidth=1.5, linestyle=":", label="recall")
    ax.axhline(
        result.baseline,
        linestyle="--",
        color="gray",
        linewidth=1,
        label=f"precision of guessing ({result.baseline:.0%})",
    )
    ax.set_ylim(0, 1.02)
    return _finish(
        ax,
        xlabel="threshold on the distance (Gower) to the nearest synthetic record",
        ylabel="share",
        title=title,
        legend=dict(loc="lower right", fontsize="small"),
    )


# --------------------------------------------------------------------------------------------
# utility
# --------------------------------------------------------------------------------------------
# Axis labels and reference lines (value, meaning) for the columns of compare_synthesizers.
_COMPARISON_AXES = {
    "dcr_holdout_share": ("DCR: share closer to training", (0.5, "no memorisation")),
    "nn_mia_auc": ("nearest-neighbour attack AUC", (0.5, "no information")),
    "privacy_loss": ("privacy loss (Yale et al.)", (0.0, "ideal")),
    "membership_f1": ("membership attack F1", None),
    "membership_m": ("relative membership risk M", (0.2, "acceptable up to here")),
    "cap": ("average CAP (target from keys)", None),
    "tstr": ("TSTR score", None),
    "trtr": ("TRTR score", None),
    "tstr_ratio": ("TSTR / TRTR", (1.0, "as useful as the real data")),
    "pmse_ratio": ("pMSE ratio", (1.0, "sample-like")),
    "mean_tvd": ("mean total variation distance", (0.0, "identical marginals")),
}


def plot_risk_utility(table, *, risk="nn_mia_auc", utility="tstr_ratio", ax=None, title=None):
    """Risk-utility scatter: one point per synthesizer, risk across and utility up.

    Parameters
    ----------
    table : pandas.DataFrame
        The output of :func:`privlib.utility.compare_synthesizers` (one row per synthesizer,
        index the names), or any table with the two columns.
    risk, utility : str, default "nn_mia_auc" and "tstr_ratio"
        The columns on the horizontal and vertical axes. Known columns get a dashed reference
        line (chance level, threshold or ideal value).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    for parameter, column in (("risk", risk), ("utility", utility)):
        if column not in getattr(table, "columns", ()):
            raise PrivlibError(
                f"`{parameter}` = {column!r} is not a column of `table`; pass one of "
                f"{list(getattr(table, 'columns', []))}."
            )
    ax = _axes(ax, figsize=(8.0, 4.5))
    markers = "osD^vP*X"
    for i, (name, row) in enumerate(table.iterrows()):
        ax.scatter(row[risk], row[utility], s=60, marker=markers[i % len(markers)], zorder=3, label=str(name))
    labels = []
    for column, line in ((risk, ax.axvline), (utility, ax.axhline)):
        label, reference = _COMPARISON_AXES.get(column, (column, None))
        labels.append(label)
        if reference is not None:
            value, meaning = reference
            line(value, linestyle="--", color="gray", linewidth=1, label=f"{label} = {value:g}: {meaning}")
    return _finish(
        ax,
        xlabel=labels[0],
        ylabel=labels[1],
        title=title,
        legend=dict(fontsize="small", loc="center left", bbox_to_anchor=(1.02, 0.5)),
    )


def plot_marginal_fidelity(result, *, ax=None, title=None):
    """Per-variable total variation distance as bars, with the KS statistic of numeric variables.

    Parameters
    ----------
    result : privlib.utility.MarginalFidelityResult or pandas.DataFrame
        A :func:`privlib.utility.marginal_fidelity` result, or its ``per_variable`` table
        (columns ``tvd`` and ``ks``, one row per variable).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.

    Returns
    -------
    matplotlib.axes.Axes
    """
    table = getattr(result, "per_variable", result)
    if not {"tvd", "ks"} <= set(getattr(table, "columns", ())):
        raise PrivlibError(
            "`result` must be a marginal_fidelity result or its per_variable table (columns 'tvd' and 'ks')."
        )
    table = table.sort_values("tvd")
    positions = np.arange(len(table))
    ax = _axes(ax, figsize=(6.0, max(2.5, 0.3 * len(table) + 1.0)))
    ax.barh(positions, table["tvd"], color="tab:blue", label="total variation distance")
    numeric = table["ks"].notna().to_numpy()
    if numeric.any():
        ax.scatter(
            table["ks"][numeric], positions[numeric], color="black", zorder=3, label="KS statistic (numeric)"
        )
    ax.set_yticks(positions, [str(v) for v in table.index])
    return _finish(
        ax,
        xlabel="distance between original and synthetic marginal (0 = identical)",
        title=title,
        legend=dict(fontsize="small", loc="lower right"),
    )


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


def _short(value) -> str:
    """A number in three significant digits, or an empty string when it is missing."""
    if value is None or not np.isfinite(value):
        return ""
    return f"{value:.3g}"


def _native_text(row: Mapping) -> str:
    """The row's value, interval and threshold in the measure's own units, for the right margin."""
    value = _short(row.get("value"))
    if not value:
        return row.get("verdict") or "not assessable"
    low, high = _short(row.get("ci_low")), _short(row.get("ci_high"))
    text = value + (f" [{low}, {high}]" if low and high else "")
    threshold = _short(row.get("threshold"))
    if threshold:
        text += f"; threshold {threshold}"
    return text


def plot_verdict_forest(rows, ax=None, *, family_titles=None, title=None, deciding=()):
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
    its verdict only.

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

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.lines import Line2D

    rows = [dict(r) for r in rows]
    if not rows:
        raise PrivlibError("`rows` must hold at least one measure record to plot.")
    deciding = set(deciding)
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
            _native_text(row),
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
        ax.scatter([centre], [y], marker=marker, s=48 if beyond else 36, color=colour, zorder=3)
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
    if DECIDING in seen:
        order.append(DECIDING)
        handles.append(
            Line2D([], [], linestyle="", marker="o", markersize=10, markerfacecolor="none", color="black")
        )
    legend = {
        "handles": handles,
        "labels": order,
        "fontsize": 7,
        "ncols": max(1, len(order)),
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


def plot_roc_loglog(attacks, *, ax=None, title=None, marks=(0.001, 0.01)):
    """ROC curves of membership attacks on log-log axes, where the few certain members show.

    On linear axes the start of the curve, a false-positive rate below 1 %, is a few pixels wide,
    yet it is where an attack identifies members with near certainty (Carlini et al., IEEE S&P
    2022). Log axes spread it out; the diagonal is guessing, and dotted lines mark the rates
    ``marks`` at which :func:`privlib.records.tpr_at_low_fpr` reads the attacks. A curve cannot
    show a rate of 0 on log axes: it starts at the first false positive, and the lowest rate the
    holdout can show (one record) bounds the axis.

    Parameters
    ----------
    attacks : result or mapping of str to result or to (member_scores, nonmember_scores)
        The result of :func:`privlib.membership.nn_mia`, :func:`privlib.targeted.density_attack`
        or :func:`privlib.targeted.shadow_model_attack` (see
        :func:`privlib.records.attack_scores`), or several by legend label, or per label the
        scores themselves (higher: more likely a member).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; a new figure by default.
    title : str, optional
        Axes title.
    marks : sequence of float, default (0.001, 0.01)
        False-positive rates marked by vertical lines.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> scores = (np.r_[np.full(20, 9.0), rng.normal(size=1980)], rng.normal(size=2000))
    >>> ax = plot_roc_loglog({"20 copies": scores})
    >>> ax.get_xscale(), ax.get_yscale()
    ('log', 'log')
    """
    from sklearn.metrics import roc_curve

    from privlib.records import attack_scores

    named = dict(attacks) if isinstance(attacks, Mapping) else {None: attacks}
    ax = _axes(ax, figsize=(5.0, 4.5))
    floor = 1.0
    for label, attack in named.items():
        if isinstance(attack, tuple):
            members, nonmembers = (np.asarray(a, dtype="float64").ravel() for a in attack)
            name = label
        else:
            name, members, nonmembers = attack_scores(attack)
            name = label if label is not None else name
        if members.size == 0 or nonmembers.size == 0:
            raise PrivlibError(f"the attack {name!r} needs scores of members and of non-members.")
        fpr, tpr, _ = roc_curve(
            np.r_[np.ones(members.size), np.zeros(nonmembers.size)], np.r_[members, nonmembers]
        )
        shown = (fpr > 0) & (tpr > 0)
        ax.plot(fpr[shown], tpr[shown], linewidth=2, label=name)
        floor = min(floor, 1 / nonmembers.size, 1 / members.size)
    ax.plot([floor, 1], [floor, 1], linestyle="--", color="gray", linewidth=1, label="guessing")
    for rate in marks:
        ax.axvline(rate, linestyle=":", color="black", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(floor / 2, 1)
    ax.set_ylim(floor / 2, 1.05)
    return _finish(
        ax,
        xlabel="share of non-members called members (false positive rate)",
        ylabel="share of members found (true positive rate)",
        title=title,
        legend=dict(loc="lower right", fontsize="small"),
    )


# --------------------------------------------------------------------------------------------
# per-variable fidelity (redacted small multiples)
# --------------------------------------------------------------------------------------------
#: Most categories a variable's panel names; the others are pooled as :data:`OTHER`.
SHOWN_CATEGORIES = 8

#: The label of pooled categories: those beyond :data:`SHOWN_CATEGORIES` and every category with
#: fewer than :data:`AXIS_RECORDS` real records (a rare category would point at its few people).
OTHER = "other"

#: Most variables the small multiples show (the first ones, in the table's order).
SHOWN_VARIABLES = 12

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
    from matplotlib.ticker import MaxNLocator

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
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4, prune="both"))
    return True


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


def plot_variable_fidelity(real, synthetic, *, kinds=None, ncols=5):
    """Each variable's distribution in the real and the synthetic data, one small panel each.

    Categorical variables show each category's share in both tables; a category with fewer than
    :data:`AXIS_RECORDS` real records, and those beyond the :data:`SHOWN_CATEGORIES` most
    frequent, are pooled as "other". Numeric variables (dates in days) show both tables'
    histograms on the real data's central range (:func:`central_range`: at least
    :data:`AXIS_RECORDS` real records lie beyond each end, so no axis shows a minimum or a
    maximum), the outermost tick labels pruned. At most :data:`SHOWN_VARIABLES` variables, the
    first ones. Real data in blue, synthetic in orange (Okabe-Ito).

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The real (training) data and the synthetic data, with the same columns.
    kinds : mapping of str to str, optional
        Each column's kind (:func:`privlib.schema.infer_kinds` by default).
    ncols : int, default 5
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    from privlib.schema import NUMERIC, infer_kinds, numeric_values

    kinds = dict(kinds or infer_kinds(real, name="real"))
    columns = [c for c in real.columns if c in kinds][:SHOWN_VARIABLES]
    if not columns:
        raise PrivlibError("`real` has no column to show.")
    nrows = -(-len(columns) // ncols)
    figure, axes = plt.subplots(
        nrows, ncols, figsize=(7.5, 1.3 * nrows + 0.35), layout="constrained", squeeze=False
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
        ax.set_title(str(column), fontsize=8, parse_math=False)
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


def association_differences(real, synthetic, *, kinds=None) -> pd.DataFrame:
    """``|V_real - V_synthetic|`` for every pair of variables (Cramér's V, numbers cut at the real
    data's quintiles), as a symmetric table with an empty diagonal: 0 where the synthetic data
    keeps a pair's association, up to 1 where it loses or invents it."""
    from privlib.schema import infer_kinds

    kinds = dict(kinds or infer_kinds(real, name="real"))
    columns = [c for c in real.columns if c in kinds][:SHOWN_VARIABLES]
    codes = _association_codes(real, synthetic, {c: kinds[c] for c in columns})
    out = pd.DataFrame(np.nan, index=columns, columns=columns)
    for i, a in enumerate(columns):
        for b in columns[i + 1 :]:
            gap = abs(cramers_v(codes[a][0], codes[b][0]) - cramers_v(codes[a][1], codes[b][1]))
            out.loc[a, b] = out.loc[b, a] = gap
    return out


def plot_association_differences(real, synthetic, *, kinds=None, ax=None, title=None):
    """The pairwise association differences (:func:`association_differences`) as a heatmap, each
    cell annotated; darker is a larger difference."""
    import seaborn as sns

    table = association_differences(real, synthetic, kinds=kinds)
    table.index = table.columns = [_literal(c) for c in table.columns]
    size = 0.26 * len(table) + 1.0
    ax = _axes(ax, figsize=(size + 1.4, size))
    mask = np.triu(np.ones(table.shape, dtype=bool))
    sns.heatmap(
        table,
        mask=mask,
        vmin=0.0,
        vmax=max(0.1, float(np.nanmax(table.to_numpy())) if table.notna().any().any() else 0.1),
        cmap="Oranges",
        annot=True,
        fmt=".2f",
        annot_kws={"fontsize": 6},
        cbar_kws={"label": "|V real - V synthetic|", "shrink": 0.7},
        linewidths=0.5,
        ax=ax,
    )
    ax.tick_params(labelsize=7)
    return _finish(ax, title=title)
