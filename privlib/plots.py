"""Plots for the course and the reports: axes in, axes out.

Every function takes the data to draw and an optional matplotlib ``ax`` (a new figure is made when
it is ``None``), draws on it, and returns the axes, so notebooks and reports can lay figures out as
they like. Figures are sized and labelled to read well both in HTML and in PDF.
"""

from __future__ import annotations

import matplotlib.pyplot as plt


def _axes(ax=None, figsize=(6.0, 4.0)):
    """Return ``ax``, or the axes of a new figure of ``figsize`` inches."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax
