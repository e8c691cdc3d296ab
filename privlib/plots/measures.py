"""The course's and the measures' plots: distances, CAP, errors, F1 against the sample fraction,
risk against utility, ROC curves and marginal fidelity (axes in, axes out)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from privlib.errors import PrivlibError
from privlib.plots._base import _axes, _axis_top, _finish


# --------------------------------------------------------------------------------------------
# identity
# --------------------------------------------------------------------------------------------
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
    top = -0.7  # the curve for U = 1 ends at -0.81: a little room above it
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
        # beside the chart: inside, it hides the points of the lowest loss (upper left)
        legend=dict(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small"),
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
    "tstr_ratio": ("utility ratio (gain over chance)", (1.0, "as useful as the real data")),
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


def _decade_percent(share: float) -> str:
    """A power of ten as a percentage in full: 0.001 -> "0.1%", 1e-5 -> "0.001%", 1 -> "100%".

    Examples
    --------
    >>> [_decade_percent(x) for x in (1e-5, 1e-3, 0.1, 1.0)]
    ['0.001%', '0.1%', '10%', '100%']
    """
    percent = 100 * share
    if percent <= 0:
        return ""
    decimals = max(0, -int(np.floor(np.log10(percent) + 1e-9)))
    return f"{percent:.{decimals}f}%"


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
    from matplotlib.ticker import FuncFormatter

    # the decades as shares people read (0.1%, 1%, 10%, 100%), not as powers of ten
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(FuncFormatter(lambda x, _: _decade_percent(x)))
    return _finish(
        ax,
        xlabel="share of non-members called members (false positive rate)",
        ylabel="share of members found (true positive rate)",
        title=title,
        legend=dict(loc="lower right", fontsize="small"),
    )
