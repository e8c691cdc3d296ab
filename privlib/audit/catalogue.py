"""The catalogue of the audit: which measures it runs, on what, with which arguments.

Each :class:`Measure` is one entry: its label, its family (a section of the report), the public
function of the kit it calls, the inputs it needs, how its keyword arguments are built from the
audit's tables and settings, and optionally a figure. The runner (:class:`privlib.audit.Audit`)
and the report notebook iterate :data:`CATALOGUE`; adding a measure to the audit is adding one
entry here (and its function and threshold to the library and to :mod:`privlib.thresholds`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from privlib import attribute, identity, membership, plots, utility
from privlib.schema import harmonize

__all__ = ["Family", "FAMILIES", "Measure", "CATALOGUE", "Context", "NEEDS"]


@dataclass(frozen=True)
class Family:
    """A kind of disclosure: a section of the report."""

    key: str
    title: str
    question: str
    introduction: str


FAMILIES = {
    family.key: family
    for family in (
        Family(
            "identity", "Identity disclosure", "Can a synthetic record be tied to a real person?",
            "Exact copies of training records are compared with the copies chance produces (the "
            "share of synthetic records that equal a holdout record). The distance to the closest "
            "record (DCR, Gower distance, 0 = identical) shows how near synthetic records come to "
            "training records; a spike at 0 means copies. Replicated uniques are people unique on "
            "the key variables in the training data whose key combination is also unique in the "
            "synthetic data (synthpop's replicated.uniques). Singling out and linkability are two "
            "of the three criteria by which European data protection authorities judge "
            "anonymisation (Article 29 Working Party, Opinion 05/2014): can an attacker isolate one "
            "person, or join two sets of records about them? Following Giomi et al. (2023, "
            "anonymeter), predicates read off the synthetic data (singling out) and nearest "
            "synthetic records linking two halves of a person's columns (linkability) are tried on "
            "training records and on holdout records the generator never saw; the risk is the "
            "attack's excess success on training records, (attack - control) / (1 - control).",
        ),
        Family(
            "attribute", "Attribute disclosure",
            "Can an adversary who knows a person's key variables learn their sensitive value?",
            "The correct attribution probability (CAP; Elliot 2014, Taub et al. 2018) is the share "
            "of synthetic records with the person's keys that also carry their true sensitive "
            "value (0 when no synthetic record has the keys); numeric variables are cut into "
            "quantile bins first. It is read against what the original data itself would reveal. "
            "The k-nearest-neighbour attack fits a model on the synthetic data and predicts each "
            "real person's sensitive value from their keys (Choi et al. 2017). Inference, the third "
            "criterion of Opinion 05/2014, is measured as in Giomi et al. (2023): the sensitive "
            "value of a person's nearest synthetic record on the keys is guessed for training and "
            "for holdout records, and the risk is the excess success on training records.",
        ),
        Family(
            "membership", "Membership disclosure",
            "Can an adversary tell that a person was in the training data?",
            "The distance attacks compare training records with holdout records the generator "
            "never saw: the share of synthetic records closer to a training than to a holdout "
            "record (about 50% when nothing was memorised), a nearest-neighbour attack scored by "
            "its ROC AUC (0.5 = guessing; Yale et al. 2019), the nearest-neighbour adversarial "
            "accuracy and privacy loss (0 is ideal, 0.5 a copy), and a discriminator. The "
            "partitioning attack of El Emam, Mosquera & Fang (2022) calls a record a member when a "
            "synthetic record lies within Hamming distance h of it; with the population size N it "
            "gives the relative risk M.",
        ),
        Family(
            "comparison", "Synthesizer comparison",
            "How do several synthetic files compare?",
            "When several synthetic files are given, each is measured the same way, side by side "
            "(privacy columns first, utility after: train on synthetic and test on real, pMSE "
            "ratio, marginal distance).",
        ),
    )
}

#: Why a measure does not run when an input it needs is missing (``Measure.needs`` keys).
NEEDS = {
    "holdout": "no holdout data was given (or it had too few rows), so there is no set of "
    "non-members to compare the training data with",
    "population_size": "no population size N was given",
    "keys": "no key variables were given",
    "sensitive": "no sensitive variables were given",
    "several_synthetic": "only one synthetic file was given",
    "targeted_attack": "no generator was given for the targeted attack (privlib audit "
    "--targeted-attack NAME or module:Class; it is off by default because it refits the generator "
    "many times)",
}


@dataclass(frozen=True)
class Context:
    """What a measure's arguments are built from: the tables, the variables and the settings.

    ``target`` is set for measures run once per sensitive variable.
    """

    train: object
    synthetic: object
    holdout: object
    synthetics: dict
    keys: list
    sensitive: list
    population_size: int | None
    settings: dict
    binned: Callable
    target: str | None = None


@dataclass(frozen=True)
class Measure:
    """One entry of the catalogue.

    Attributes
    ----------
    key : str
        Label of the measure in the report and in ``metrics.json``; measures run once per
        sensitive variable are labelled ``"key (variable)"``.
    family : str
        A key of :data:`FAMILIES`.
    function : callable
        The public function of the kit that computes it.
    arguments : callable
        ``arguments(context) -> dict`` of keyword arguments for ``function``.
    needs : tuple of str
        Keys of :data:`NEEDS`: the inputs without which the measure is skipped.
    per_target : bool
        Run once per sensitive variable.
    plot : callable or None
        ``plot(result, ax)`` draws the measure's figure.
    not_applicable : str or None
        Why the audit never runs this measure (it is listed as skipped with this reason).
    at_risk : callable or None
        ``at_risk(result) -> (count, what)``: how many records the result puts at risk, for the
        report's conclusion (a count, never the records).
    table : callable or None
        ``table(result) -> DataFrame`` shown under the measure's reading (aggregates only).
    """

    key: str
    family: str
    function: Callable | None
    arguments: Callable = field(default=lambda context: {})
    needs: tuple = ()
    per_target: bool = False
    plot: Callable | None = None
    not_applicable: str | None = None
    at_risk: Callable | None = None
    table: Callable | None = None


def _with(build, **settings):
    """``build`` plus keyword arguments taken from the audit's settings (``name=setting``)."""

    def combined(context: Context) -> dict:
        return build(context) | {name: context.settings[key] for name, key in settings.items()}

    return combined


def _release(context: Context) -> dict:
    """The three tables of a release, by role: training, holdout and the synthetic data assessed."""
    return {"train": context.train, "holdout": context.holdout, "synthetic": context.synthetic}


def _cap_arguments(context: Context) -> dict:
    original, synthetic = context.binned(context.keys + [context.target])
    return {"original": original, "synthetic": synthetic, "keys": context.keys, "target": context.target,
            "random_state": context.settings["seed"]}


def _partition_arguments(context: Context) -> dict:
    # With N, the attack set holds the share t = n/N of members that reproduces the ground truth.
    known = context.population_size is not None
    return _release(context) | {
        "t": None if known else context.settings["attack_share"],
        "h": context.settings["hamming_threshold"],
        "population_size": context.population_size,
        "random_state": context.settings["seed"],
        "n_repeats": context.settings["repeats"],
    }


def _population(context: Context) -> pd.DataFrame:
    """Training and holdout records as one table (shared categories): the real records the
    targeted attack draws its shadow training sets from."""
    both = harmonize({"train": context.train, "holdout": context.holdout})
    return pd.concat([both["train"], both["holdout"]], ignore_index=True)


def _plot_dcr(result, ax):
    shown = {"synthetic to training": result.distances}
    if result.holdout_distances is not None:
        shown["holdout to training"] = result.holdout_distances
    return plots.plot_dcr_histogram(shown, ax=ax, title="Distance to the closest training record")


CATALOGUE: tuple[Measure, ...] = (
    Measure(
        "identical_match_share", "identity", identity.identical_match_share, _release,
        at_risk=lambda r: (r.n_train_matches, "synthetic records are exact copies of a training record"),
    ),
    Measure(
        "dcr", "identity", identity.dcr_summary, _release, plot=_plot_dcr,
    ),
    Measure(
        "replicated_uniques", "identity", identity.replicated_uniques,
        lambda c: {"original": c.train, "synthetic": c.synthetic, "holdout": c.holdout, "keys": c.keys},
        needs=("keys",),
        at_risk=lambda r: (r.n_replicated, "training records unique on the keys are unique, with "
                           "the same keys, in the synthetic data"),
    ),
    Measure(
        "singling_out", "identity", identity.singling_out,
        _with(lambda c: {"synthetic": c.synthetic, "train": c.train, "control": c.holdout,
                         "mode": "univariate", "n_attacks": 2000}, random_state="seed"),
        needs=("holdout",),
        at_risk=lambda r: (r.attack_successes, "predicates read off the synthetic data single out exactly one training record"),
    ),
    Measure(
        "singling_out_multivariate", "identity", identity.singling_out,
        _with(lambda c: {"synthetic": c.synthetic, "train": c.train, "control": c.holdout,
                         "mode": "multivariate", "n_cols": 3, "n_attacks": 2000}, random_state="seed"),
        needs=("holdout",),
    ),
    Measure(
        "linkability", "identity", identity.linkability,
        _with(lambda c: {"synthetic": c.synthetic, "train": c.train, "control": c.holdout,
                         "aux_columns": (c.keys, [k for k in c.train.columns if k not in c.keys]),
                         "n_attacks": 2000}, random_state="seed"),
        needs=("holdout", "keys"),
    ),
    Measure(
        "match_risk", "identity", None,
        not_applicable="it applies to partially synthetic data, where synthetic record i stands "
        "for training record i; the audit treats the synthetic data as fully synthetic",
    ),
    Measure(
        "cap", "attribute", attribute.cap, _cap_arguments, needs=("keys", "sensitive"),
        per_target=True,
        plot=lambda r, ax: plots.plot_cap_scatter(r, ax=ax, title=f"CAP per training record: {r.target[0]}"),
        at_risk=lambda r: (int((r.per_record == 1).sum()), "training records have their sensitive "
                           "value on every synthetic record with their keys (CAP = 1)"),
    ),
    Measure(
        "knn_risk", "attribute", attribute.knn_risk,
        lambda c: {"original": c.train, "synthetic": c.synthetic, "keys": c.keys,
                   "target": c.target, "random_state": c.settings["seed"]},
        needs=("keys", "sensitive"), per_target=True,
    ),
    Measure(
        "inference", "attribute", attribute.inference,
        _with(lambda c: {"synthetic": c.synthetic, "train": c.train, "control": c.holdout,
                         "secret": c.target, "aux_columns": list(c.keys), "n_attacks": 2000},
              random_state="seed"),
        needs=("holdout", "keys", "sensitive"), per_target=True,
    ),
    Measure(
        "dcr_holdout_share", "membership", membership.dcr_holdout_share,
        _with(_release, random_state="seed"), needs=("holdout",),
    ),
    Measure(
        "threshold_attack", "membership", membership.threshold_attack,
        _with(_release, random_state="seed"), needs=("holdout",),
        plot=lambda r, ax: plots.plot_threshold_precision(r, ax=ax, title="Distance-threshold attack"),
    ),
    Measure(
        "nn_mia", "membership", membership.nn_mia, _with(_release, random_state="seed"), needs=("holdout",),
        plot=lambda r, ax: plots.plot_roc(r.fpr, r.tpr, auc=r.auc, ax=ax,
                                          title="Nearest-neighbour membership attack"),
        at_risk=lambda r: (int(((r.dcr == 0) & r.is_member.astype(bool)).sum()),
                           "training records have an exact copy in the synthetic data"),
    ),
    Measure(
        "adversarial_accuracy", "membership", membership.adversarial_accuracy,
        _with(lambda c: {"target": c.train, "synthetic": c.synthetic},
              random_state="seed", n_repeats="repeats"),
    ),
    Measure(
        "privacy_loss", "membership", membership.privacy_loss,
        _with(lambda c: {"train": c.train, "test": c.holdout, "synthetic": c.synthetic},
              random_state="seed", n_repeats="repeats"),
        needs=("holdout",),
    ),
    Measure(
        "partition_risk", "membership", membership.partition_risk, _partition_arguments,
        needs=("holdout",),
    ),
    Measure(
        "shadow_model_attack", "membership", membership.shadow_model_attack,
        lambda c: {"synthesizer": c.settings["targeted_attack"], "train": c.train,
                   "population": _population(c),
                   "n_targets": 5, "n_shadows": 40, "n_test": 20, "n_jobs": 2,
                   "random_state": c.settings["seed"]},
        needs=("holdout", "targeted_attack"),
        # per target: its row number in the training file and its distance to its nearest
        # record, never the record
        table=lambda r: r.per_target(),
    ),
    Measure(
        "discriminator_test", "membership", membership.discriminator_test,
        _with(_release, random_state="seed", n_repeats="repeats"), needs=("holdout",),
    ),
    Measure(
        "compare_synthesizers", "comparison", utility.compare_synthesizers,
        lambda c: {"train": c.train, "holdout": c.holdout, "synthetic": c.synthetics,
                   "keys": c.keys, "target": c.sensitive[:1], "population_size": c.population_size,
                   "random_state": c.settings["seed"]},
        needs=("several_synthetic", "holdout", "keys", "sensitive"),
    ),
)
