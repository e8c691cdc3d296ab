"""Plots for the course and the reports: axes in, axes out.

Every function takes the data to draw and an optional matplotlib ``ax`` (a new figure is made when
it is ``None``), draws on it, and returns the axes, so notebooks and reports can lay figures out as
they like. Figures are sized and labelled to read well both in HTML and in PDF.

The plots live in three modules, every public name re-exported here (``plots.plot_roc``):

* :mod:`privlib.plots.measures`: the course's and the measures' plots (distances, CAP, ROC, ...);
* :mod:`privlib.plots.forest`: the audit's forest plot of every measure against its threshold;
* :mod:`privlib.plots.fidelity`: per-variable fidelity (small multiples, association heatmap).
"""

from privlib.plots._base import AXIS_RECORDS
from privlib.plots.fidelity import (
    HALF_WIDTH_VARIABLES,
    OTHER,
    PANELS_PER_FIGURE,
    SHOWN_CATEGORIES,
    TABLE_COLOURS,
    association_differences,
    central_range,
    contingency_table,
    cramers_v,
    plot_association_differences,
    plot_variable_fidelity,
    variable_chunks,
    variable_order,
)
from privlib.plots.forest import (
    DECIDING,
    EXACT_TEST,
    FOREST_LABEL_WIDTH,
    FOREST_RANGE,
    VERDICT_STYLE,
    forest_label,
    forest_points,
    forest_position,
    plot_verdict_forest,
)
from privlib.plots.measures import (
    plot_cap_scatter,
    plot_dcr_histogram,
    plot_f1_vs_t,
    plot_marginal_fidelity,
    plot_relative_errors,
    plot_risk_utility,
    plot_risk_utility_loss,
    plot_roc,
    plot_roc_loglog,
    plot_threshold_precision,
)

__all__ = [
    "AXIS_RECORDS",
    "HALF_WIDTH_VARIABLES",
    "OTHER",
    "PANELS_PER_FIGURE",
    "SHOWN_CATEGORIES",
    "TABLE_COLOURS",
    "association_differences",
    "central_range",
    "contingency_table",
    "cramers_v",
    "plot_association_differences",
    "plot_variable_fidelity",
    "variable_chunks",
    "variable_order",
    "DECIDING",
    "EXACT_TEST",
    "FOREST_LABEL_WIDTH",
    "FOREST_RANGE",
    "VERDICT_STYLE",
    "forest_label",
    "forest_points",
    "forest_position",
    "plot_verdict_forest",
    "plot_cap_scatter",
    "plot_dcr_histogram",
    "plot_f1_vs_t",
    "plot_marginal_fidelity",
    "plot_relative_errors",
    "plot_risk_utility",
    "plot_risk_utility_loss",
    "plot_roc",
    "plot_roc_loglog",
    "plot_threshold_precision",
]
