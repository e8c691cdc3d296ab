"""The figures of the measures in the audit report, each ``figure(result, ax)``.

A measure's declaration names its figure here by a :class:`~privlib.declaration.Reference`, so
that the measure modules, which the plots import, never import the plots back.
"""

from __future__ import annotations

from privlib import plots

__all__ = ["dcr_figure", "cap_figure", "threshold_attack_figure", "nn_mia_figure", "low_fpr_figure"]


def dcr_figure(result, ax):
    shown = {"synthetic to training": result.distances}
    if result.holdout_distances is not None:
        shown["holdout to training"] = result.holdout_distances
    return plots.plot_dcr_histogram(shown, ax=ax, title="Distance to the closest training record")


def cap_figure(result, ax):
    return plots.plot_cap_scatter(result, ax=ax, title=f"CAP per training record: {result.target[0]}")


def threshold_attack_figure(result, ax):
    return plots.plot_threshold_precision(result, ax=ax, title="Distance-threshold attack")


def nn_mia_figure(result, ax):
    return plots.plot_roc(
        result.fpr, result.tpr, auc=result.auc, ax=ax, title="Nearest-neighbour membership attack"
    )


def low_fpr_figure(result, ax):
    return plots.plot_roc_loglog(
        {"distance to the nearest synthetic record": (result.member_scores, result.nonmember_scores)},
        ax=ax,
        title="Distance attack: ROC on log axes",
    )
