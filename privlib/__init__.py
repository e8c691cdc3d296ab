"""privlib: teach and measure the privacy risk of synthetic tabular data.

Submodules (loaded on first use, so ``import privlib`` stays fast):

* :mod:`privlib.schema` - column kinds, validation, the encoding all distances share
* :mod:`privlib.neighbors` - exact, memory-bounded nearest neighbours (Gower, Hamming, L1, L2)
* :mod:`privlib.search_reuse` - one neighbour search per question within a piece of work (an audit)
* :mod:`privlib.identity` - identity disclosure
* :mod:`privlib.attribute` - attribute disclosure (CAP, classification-based risk)
* :mod:`privlib.membership` - membership disclosure
* :mod:`privlib.utility` - utility measures for the risk-utility trade-off
* :mod:`privlib.targeted` - worst-case membership attacks (shadow models, DOMIAS)
* :mod:`privlib.records` - record-level evidence: TPR at a low false-positive rate, the copy test,
  Holm across a family
* :mod:`privlib.attacks` - an ensemble of membership attacks judged at low false-positive rates,
  and the near-copy test
* :mod:`privlib.rare_copies` - copies of rare records, tested against the holdout
* :mod:`privlib.rare_attributions` - certain attributions through rare keys, tested against the
  holdout
* :mod:`privlib.matching` - the record-level steps those measures share: exact-match codes and
  each real record's distance to the synthetic data
* :mod:`privlib.synth` - baseline synthesizers (teaching foils)
* :mod:`privlib.dp` - a differentially private synthesizer (MST) and its accounting
* :mod:`privlib.plots` - plots, axes in and axes out
* :mod:`privlib.results`, :mod:`privlib.uncertainty`, :mod:`privlib.thresholds` - results, their
  intervals, and the threshold registry that gives every verdict
* :mod:`privlib.audit` - the audit: inputs, the catalogue of measures, the runner
* :mod:`privlib.render` - HTML and PDF, from escaped templates
* :mod:`privlib.pipeline` - ``run_audit``, ``run_course``, ``run_all`` (what the CLI runs)
"""

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from privlib.errors import DataError, ParameterError, PrivlibError

if TYPE_CHECKING:
    from privlib.datasets import DATASETS, DatasetInfo, dataset_info, load_dataset, read_table
    from privlib.results import Result

try:
    __version__ = version("privlib")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0+unknown"

_SUBMODULES = {
    "schema",
    "neighbors",
    "search_reuse",
    "identity",
    "attribute",
    "membership",
    "utility",
    "synth",
    "plots",
    "results",
    "uncertainty",
    "thresholds",
    "datasets",
    "resources",
    "audit",
    "render",
    "pipeline",
    "cli",
    "targeted",
    "dp",
    "criteria",
    "records",
    "rare_attributions",
    "rare_copies",
    "attacks",
    "matching",
    "validation",
    "slides",
    "site",
    "epsilon_audit",
}

#: Names of the top level that live in a submodule (imported with it, on first use).
_NAMES = {
    "DATASETS": "datasets",
    "DatasetInfo": "datasets",
    "dataset_info": "datasets",
    "load_dataset": "datasets",
    "read_table": "datasets",
    "Result": "results",
}

__all__ = [
    "DATASETS",
    "DataError",
    "DatasetInfo",
    "ParameterError",
    "PrivlibError",
    "Result",
    "dataset_info",
    "load_dataset",
    "read_table",
    "__version__",
    *sorted(_SUBMODULES),
]


#: What the package loads with a submodule: the audit comes with its report's pages, registered
#: by the rendering (the audit itself imports no rendering), so that ``pl.audit.run(...)`` gives a
#: report that displays in a notebook.
_LOADED_WITH = {"audit": "privlib.render.audit"}


def __getattr__(name):
    if name in _SUBMODULES:
        if name in _LOADED_WITH:
            import_module(_LOADED_WITH[name])
        return import_module(f"privlib.{name}")
    if name in _NAMES:
        value = getattr(import_module(f"privlib.{_NAMES[name]}"), name)
        globals()[name] = value  # once looked up, an ordinary attribute
        return value
    raise AttributeError(f"module 'privlib' has no attribute {name!r}")
