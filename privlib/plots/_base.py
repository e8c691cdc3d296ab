"""The helpers every plot of :mod:`privlib.plots` shares: a new figure's axes, its labels, and an
axis limit that never shows where one outlying record lies."""

from __future__ import annotations

import textwrap

import numpy as np


def _axes(ax=None, figsize=(6.0, 4.0)):
    """Return ``ax``, or the axes of a new figure of ``figsize`` inches."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax


#: Characters per line of an axis label: a longer one wraps, so a small figure never cuts it.
XLABEL_WIDTH = 50
YLABEL_WIDTH = 28


def _wrapped(label: str, width: int) -> str:
    """``label`` wrapped at ``width`` characters, each of its own lines apart."""
    return "\n".join("\n".join(textwrap.wrap(line, width)) or line for line in str(label).split("\n"))


def _finish(ax, *, xlabel=None, ylabel=None, title=None, legend=None):
    """Label ``ax``, draw its legend and title, and return it.

    ``legend`` holds the keyword arguments of ``ax.legend`` (``{}`` for its defaults); ``None``
    draws no legend. The title is set only when ``title`` is truthy.
    """
    if xlabel is not None:
        ax.set_xlabel(_wrapped(xlabel, XLABEL_WIDTH))
    if ylabel is not None:
        ax.set_ylabel(_wrapped(ylabel, YLABEL_WIDTH))
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


#: Fewest records at or beyond an axis limit drawn from the data: a limit set by fewer (the largest
#: value, say) would show where one outlying record lies.
AXIS_RECORDS = 10


def _axis_top(arrays) -> float:
    """The upper axis limit for ``arrays`` of per-record values: the smallest value with at least
    :data:`AXIS_RECORDS` records at or above it (all records together), never the maximum."""
    pooled = np.concatenate(list(arrays))
    level = max(0.0, 1.0 - AXIS_RECORDS / pooled.size)
    return float(np.quantile(pooled, level, method="lower"))
