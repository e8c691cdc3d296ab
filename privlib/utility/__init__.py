"""Utility measures: how much of the real data's value the synthetic data keeps.

Privacy is only half of the story: a synthesizer that outputs noise is perfectly private and
useless. The kit measures utility in three ways, each a function returning a result object, so
that risk and utility can be read side by side (:func:`compare_synthesizers`):

* :func:`tstr` - *train on synthetic, test on real*: a model for one target variable fitted on the
  synthetic data and scored on real records it never saw, against the same model fitted on the
  real training data (*train on real, test on real*).
* :func:`pmse` - the propensity-score mean squared error (Woo et al. 2009; Snoke et al. 2018):
  how well a classifier tells synthetic from original records, compared with what it would
  reach on two samples of one distribution.
* :func:`marginal_fidelity` - per variable, the total variation distance between the original
  and synthetic distributions, and the Kolmogorov-Smirnov statistic for numeric variables.

Utility results have ``higher_is_riskier=False``: they are not risks, and a higher value does
not mean a higher disclosure risk.

References
----------
Woo M-J, Reiter JP, Oganian A, Karr AF. Global measures of data utility for microdata masked for
disclosure limitation. J Privacy and Confidentiality 1(1), 2009.

Snoke J, Raab GM, Nowok B, Dibben C, Slavkovic A. General and specific utility measures for
synthetic data. J R Stat Soc A 181(3), 2018.

Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of synthetic
health data. AIDR 2019 (train on synthetic, test on real).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from privlib.utility.bands import PMSE_COPY_RATIO
    from privlib.utility.comparison import COMPARISON_COLUMNS, compare_synthesizers
    from privlib.utility.marginals import MarginalFidelityResult, marginal_fidelity
    from privlib.utility.models import MISSING_LABEL
    from privlib.utility.propensity import PMSEResult, pmse
    from privlib.utility.summary import FidelityMeasure, FidelitySummary, fidelity_summary
    from privlib.utility.summary import _at_most as _at_most
    from privlib.utility.train_synthetic import TSTRResult, tstr

#: Each public name and the module of this package that holds it, imported on first use: the
#: catalogue imports :mod:`privlib.utility.comparison` for its declaration, and that import loads
#: no model library (scikit-learn, numba) of this package before a utility measure runs (the
#: catalogue's other families load theirs).
_HOMES = {
    "tstr": "train_synthetic",
    "TSTRResult": "train_synthetic",
    "pmse": "propensity",
    "PMSEResult": "propensity",
    "PMSE_COPY_RATIO": "bands",
    "marginal_fidelity": "marginals",
    "MarginalFidelityResult": "marginals",
    "fidelity_summary": "summary",
    "FidelitySummary": "summary",
    "FidelityMeasure": "summary",
    "_at_most": "summary",  # read by privlib.render.audit
    "compare_synthesizers": "comparison",
    "COMPARISON_COLUMNS": "comparison",
    "MISSING_LABEL": "models",
}

__all__ = [
    "tstr",
    "pmse",
    "marginal_fidelity",
    "fidelity_summary",
    "compare_synthesizers",
    "TSTRResult",
    "PMSEResult",
    "MarginalFidelityResult",
    "FidelitySummary",
    "FidelityMeasure",
    "PMSE_COPY_RATIO",
    "COMPARISON_COLUMNS",
    "MISSING_LABEL",
]


def __getattr__(name: str):
    if name not in _HOMES:
        raise AttributeError(f"module 'privlib.utility' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"privlib.utility.{_HOMES[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))
