"""What a measure declaration is made of: families, inputs, the argument context, and the spec.

A :class:`MeasureSpec` is everything the kit knows about one measure, under one key (the
``Result.measure`` of its results): human title, family, threshold rule (with its source and
words), and, when the audit runs it, the public function it calls, the inputs it needs, how its
keyword arguments are built from the audit's tables and settings, and its figure, table and
records-at-risk counter. Each measure's module holds its declaration; :mod:`privlib.catalogue`
lists them in order. This module is part of the core: it imports nothing above the measures.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, get_args

import pandas as pd

from privlib.rules import Threshold

__all__ = [
    "FamilyKey",
    "Need",
    "Family",
    "FAMILIES",
    "MeasureSpec",
    "Reference",
    "Context",
    "NEEDS",
    "with_settings",
    "release",
    "criterion",
    "every_record",
    "every_record_of_both",
    "distance_release",
    "SAMPLED_RELEASE",
    "DISCRIMINATOR_SAMPLE",
    "MAX_ATTACK_TARGETS",
    "MAX_DISTANCE_QUERIES",
]

#: The kinds of disclosure, each a section of the report (:data:`FAMILIES`).
FamilyKey = Literal["identity", "attribute", "membership", "comparison"]

#: The inputs a measure may need (:data:`NEEDS`).
Need = Literal["holdout", "population_size", "keys", "sensitive", "several_synthetic", "targeted_attack"]


@dataclass(frozen=True)
class Family:
    """A kind of disclosure: a section of the report."""

    key: FamilyKey
    title: str
    question: str
    introduction: str


FAMILIES: dict[FamilyKey, Family] = {
    family.key: family
    for family in (
        Family(
            "identity",
            "Identity disclosure",
            "Can a synthetic record be tied to a real person?",
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
            "attribute",
            "Attribute disclosure",
            "Can an adversary who knows a person's key variables learn their sensitive value?",
            "The correct attribution probability (CAP; Elliot 2014, Taub et al. 2018) is the share "
            "of synthetic records with the person's keys that also carry their true sensitive "
            "value (0 when no synthetic record has the keys); numeric variables are cut into "
            "quantile bins first. The k-nearest-neighbour attack fits a model on the synthetic "
            "data and predicts each real person's sensitive value from their keys (Choi et al. "
            "2017). Both are computed for the training records and for holdout records the "
            "generator never saw: what they reveal about holdout records is what the release "
            "teaches about anyone in the population, shown as context; the verdict is on the "
            "training records' excess over it. Inference, the third "
            "criterion of Opinion 05/2014, is measured as in Giomi et al. (2023): the sensitive "
            "value of a person's nearest synthetic record on the keys is guessed for training and "
            "for holdout records, and the risk is the excess success on training records. Averages "
            "over every record hide a few people exposed, so the certain attributions are also "
            "counted person by person: training records whose keys no other real record shares and "
            "whose sensitive value every synthetic record with those keys carries, against the same "
            "count for holdout records (Fisher's exact test).",
        ),
        Family(
            "membership",
            "Membership disclosure",
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
            "comparison",
            "Synthesizer comparison",
            "How do several synthetic files compare?",
            "When several synthetic files are given, each is measured the same way, side by side "
            "(privacy columns first, utility after: train on synthetic and test on real, pMSE "
            "ratio, marginal distance).",
        ),
    )
}

#: Why a measure does not run when an input it needs is missing (``Measure.needs`` keys).
NEEDS: dict[Need, str] = {
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

# The two names for each set say the same: a family or an input added to one is added to the other.
assert tuple(FAMILIES) == get_args(FamilyKey) and tuple(NEEDS) == get_args(Need)


@dataclass(frozen=True)
class Context:
    """What a measure's arguments are built from: the tables, the variables and the settings.

    ``target`` is set for measures run once per sensitive variable.
    """

    train: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame | None
    synthetics: dict[str, pd.DataFrame]
    keys: list
    sensitive: list
    population_size: int | None
    settings: dict
    binned: Callable
    kinds: dict
    target: str | None = None


def _no_arguments(context: Context) -> dict:
    return {}


# "package.module:name", the form of entry points (PEP 621)
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")


@functools.cache
def _load(path: str) -> Callable[..., Any]:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class Reference:
    """A function named by its dotted path, ``"package.module:name"``, imported on first call.

    A declaration names its measure's function (and a figure or table helper that needs plotting or
    model libraries) this way, so that reading the declarations, as judging a result does, loads
    none of those modules. The declaration that holds a reference checks, when it is made, that the
    module exists (:meth:`check`); the name in it is looked up on first use (:meth:`resolve`). Both
    errors name the declaration.

    Examples
    --------
    >>> Reference("math:hypot")(3, 4)
    5.0
    """

    path: str
    #: Who holds the reference, for errors (set by :class:`MeasureSpec`).
    owner: str = "a reference"

    def __post_init__(self) -> None:
        if not _DOTTED.match(self.path):
            raise ValueError(
                f"{self.owner}: {self.path!r} is not a reference; write 'package.module:function'."
            )

    @property
    def module(self) -> str:
        return self.path.partition(":")[0]

    def check(self) -> None:
        """Fail, naming the owner, when the module does not exist (without importing it)."""
        if importlib.util.find_spec(self.module) is None:
            raise ValueError(f"{self.owner}: no module {self.module!r} (in the reference {self.path!r}).")

    def resolve(self) -> Callable[..., Any]:
        """The function itself, imported once."""
        try:
            return _load(self.path)
        except AttributeError:
            raise ValueError(
                f"{self.owner}: module {self.module!r} has no {self.path.partition(':')[2]!r} "
                f"(in the reference {self.path!r})."
            ) from None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    @property
    def __wrapped__(self) -> Callable[..., Any]:
        # what inspect.signature and inspect.unwrap read: the referenced function's
        return self.resolve()


@dataclass(frozen=True)
class MeasureSpec:
    """One measure, declared once.

    Attributes
    ----------
    key : str
        The stable key: ``Result.measure`` of every result the measure gives, the key of its
        threshold override (``--thresholds``), and, with ``[target]`` added for measures run per
        sensitive variable, its key in ``metrics.json``.
    title : str
        Its name for people ("Nearest-neighbour membership attack (AUC)").
    family : FamilyKey
        A key of :data:`FAMILIES`; another name fails when the declaration is made, with the
        valid names.
    rule : Threshold or None
        How its results are judged (``None`` for a measure that gives a table, not a result).
    function : callable or None
        The public function of the kit the audit calls, named by a :class:`Reference`
        (``Reference("privlib.membership:nn_mia")``, imported on first call);
        ``None`` when the audit does not run it (a notebook may still compute and judge it).
    arguments : callable
        ``arguments(context) -> dict`` of keyword arguments for ``function``.
    needs : tuple of Need
        Keys of :data:`NEEDS`: the inputs without which the measure is skipped; checked, as the
        family, when the declaration is made.
    per_target : bool
        Run once per sensitive variable.
    applies : callable or None
        ``applies(context) -> bool``: whether this measure is the one for these data (e.g. the
        accuracy or the squared-error form of one attack, by the kind of the target); a measure
        that does not apply is left out silently, as its sibling runs instead.
    not_applicable : str or None
        Why the audit never runs this measure (it is listed as skipped with this reason).
    plot : callable or None
        ``plot(result, ax)`` draws the measure's figure (a :class:`Reference` when it needs
        plotting).
    table : callable or None
        ``table(result) -> DataFrame`` shown under the measure's reading (aggregates only; a
        :class:`Reference` when it lives in a measure module).
    at_risk : callable or None
        ``at_risk(result) -> (count, what)``: how many records the result puts at risk, for the
        report's conclusion (a count, never the records).
    searches_first : bool
        The audit runs it before the other measures, as it searches deeper neighbour lists than
        they do and their searches are then answered from its lists (:mod:`privlib.search_reuse`);
        the report keeps the catalogue's order.
    """

    key: str
    title: str
    family: FamilyKey
    rule: Threshold | None
    function: Callable[..., Any] | None = None
    arguments: Callable[[Context], dict] = _no_arguments
    needs: tuple[Need, ...] = ()
    per_target: bool = False
    applies: Callable[[Context], bool] | None = None
    not_applicable: str | None = None
    plot: Callable | None = None
    table: Callable | None = None
    at_risk: Callable | None = None
    searches_first: bool = False

    def __post_init__(self) -> None:
        for field in ("function", "plot", "table"):
            named = getattr(self, field)
            if isinstance(named, Reference):
                named = dataclasses.replace(named, owner=f"measure {self.key!r}: {field}")
                named.check()
                object.__setattr__(self, field, named)
        if self.family not in FAMILIES:
            raise ValueError(
                f"measure {self.key!r}: unknown family {self.family!r}; use one of {list(FAMILIES)}."
            )
        if not isinstance(self.needs, tuple):
            raise TypeError(
                f"measure {self.key!r}: `needs` must be a tuple of input names, got {self.needs!r} "
                "(one name is written ('holdout',))."
            )
        unknown = [need for need in self.needs if need not in NEEDS]
        if unknown:
            raise ValueError(f"measure {self.key!r}: unknown needs {unknown}; use some of {list(NEEDS)}.")

    @property
    def audited(self) -> bool:
        """Whether the audit lists this measure (runs it, or says why it never does)."""
        return self.function is not None or self.not_applicable is not None


def with_settings(build: Callable[[Context], dict], **settings: str) -> Callable[[Context], dict]:
    """``build`` plus keyword arguments taken from the audit's settings (``name=setting``)."""

    def combined(context: Context) -> dict:
        return build(context) | {name: context.settings[key] for name, key in settings.items()}

    return combined


def release(context: Context) -> dict:
    """The three tables of a release, by role: training, holdout and the synthetic data assessed."""
    return {"train": context.train, "holdout": context.holdout, "synthetic": context.synthetic}


# -- arguments shared by several measures' declarations ----------------------------------
#: Most records per table the discriminator fits and scores (a seeded sample beyond it, stated
#: in its reading): its repeated fits cost as much as several whole-table neighbour searches at a
#: million records, while its intervals at this size are already narrower than its margin.
DISCRIMINATOR_SAMPLE = 100_000


#: Most targets an attack of the criteria draws per group. Up to it every record is a target; past
#: it a seeded draw of this many keeps the cost of a large audit bounded, while the interval of a
#: rate over 20,000 targets (at most +-0.007) stays far inside the rules' margin of 0.05. The
#: reading names the number of attacks made.
MAX_ATTACK_TARGETS = 20_000

#: Most records per table whose nearest-neighbour distances the distance measures read (a seeded
#: sample beyond it, the same records for every distance measure, each searched among every
#: record, stated in their readings): a search of every record of a table costs about a whole-table
#: search per measure question, nine of them at a million records. Over 50,000 records per table
#: the 95% interval of adversarial accuracy spans about +-0.003 and that of the privacy loss about
#: +-0.005 (benchmarks/README.md, 200,000 Adult-like records), a tenth of their margins (0.05 and
#: 0.1) or less; a test at a false-positive rate of 0.1% still rests on 50 holdout records. Exact
#: copies are counted on every record (copy_test), whatever the size.
MAX_DISTANCE_QUERIES = 50_000


def every_record(context: Context) -> int:
    """Attacks of each criterion of Opinion 05/2014 (singling out, linkability, inference): one
    per training record, every record a target up to :data:`MAX_ATTACK_TARGETS`, so that the
    attacks have all the power the data give (the functions draw no more targets than the smaller
    of training and control has)."""
    return min(len(context.train), MAX_ATTACK_TARGETS)


def every_record_of_both(context: Context) -> int:
    """Targets per group of the inference attack, which draws each group's own number: every
    training and every holdout record, whichever table is larger (a larger control narrows the
    control rate's interval), up to :data:`MAX_ATTACK_TARGETS`."""
    assert context.holdout is not None  # the measure needs a holdout
    return min(max(len(context.train), len(context.holdout)), MAX_ATTACK_TARGETS)


# -- argument builders ---------------------------------------------------------------------------
def distance_release(context: Context) -> dict:
    """The release, its distances read on at most :data:`MAX_DISTANCE_QUERIES` records per table."""
    return release(context) | {"max_queries": MAX_DISTANCE_QUERIES}


#: The release with its distances read on a seeded sample of at most MAX_DISTANCE_QUERIES records.
SAMPLED_RELEASE = with_settings(distance_release, random_state="seed")


def criterion(**fixed):
    """Arguments of a criterion of Opinion 05/2014: the holdout is the control set."""
    return with_settings(
        lambda c: (
            {"synthetic": c.synthetic, "train": c.train, "holdout": c.holdout, "n_attacks": every_record(c)}
            | fixed
        ),
        random_state="seed",
    )
