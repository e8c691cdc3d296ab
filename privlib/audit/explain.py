"""Why a family is at risk, and what to do: the columns behind each deciding finding, and a
remedy per kind of finding.

For each family whose verdict is risk or inconclusive, :func:`explain` reads the measure that
decided it (and any singling-out or linkability measure at risk) and names the columns behind it,
from the measures' public results and functions, never from a confidential value:

* **singling out** (:func:`privlib.identity.singling_out`): the columns of the predicates that
  single out a training record, each with how many of the successful predicates use it
  (``predicate_columns`` and ``attack_success`` of the result);
* **linkability**: the two sets of columns the attacker links on (``aux_columns``);
* **copies** (:func:`privlib.identity.copy_test`): how many of the copied training records are
  identical in every value and how many only within the tolerance, and, per column, how many more
  training records would have a copy if that column were ignored (the columns the release
  changes, those it keeps being the others): the test rerun once without each column;
* **attribute** findings: the key combination and the target the attack reads;
* **membership** and the rest: the deciding measure rerun with each column left out, on a seeded
  sample of at most :data:`LEAVE_OUT_RECORDS` records per table and at most
  :data:`LEAVE_OUT_COLUMNS` columns (the columns whose removal lowers the measure most drive it).

Every number is a count of records, predicates or columns, or a measure's value on a sample: an
aggregate over many records, never a value of a confidential column. The remedies
(:data:`REMEDIES`) are keyed by measure, each with its source where one exists. The words are
the renderer's (:mod:`privlib.render.why`); this module gives the facts.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "LEAVE_OUT_RECORDS",
    "LEAVE_OUT_COLUMNS",
    "REMEDIES",
    "DEFAULT_REMEDY",
    "Remedy",
    "remedy_for",
    "ColumnCount",
    "Explanation",
    "predicate_columns",
    "copy_columns",
    "leave_one_out",
    "explain",
]

logger = logging.getLogger(__name__)

#: Most records per table the leave-one-column-out reruns read (a seeded sample beyond it).
LEAVE_OUT_RECORDS = 1_000

#: Most columns the leave-one-column-out reruns leave out (the table's first ones beyond it).
LEAVE_OUT_COLUMNS = 30

#: How many columns an explanation names (the ones that count most).
NAMED_COLUMNS = 4


@dataclass(frozen=True)
class Remedy:
    """What to do about a finding, and where the advice comes from (``None`` when no source)."""

    action: str
    source: str | None = None


_COARSEN = Remedy(
    "drop or coarsen the columns named (pool rare categories, round or band numbers) and generate again",
    "Article 29 Working Party, Opinion 05/2014 on anonymisation techniques",
)
_REMOVE_COPIES = Remedy(
    "remove the copies, then refit with stronger regularisation (larger leaves, fewer epochs); "
    "removing copies alone guarantees nothing for the other records",
    "Stadler, Oprisanu & Troncoso 2022, USENIX Security",
)
_ATTRIBUTE = Remedy(
    "coarsen the key columns named or the sensitive variable, or release fewer keys together",
    "Taub, Elliot, Pampaka & Smith 2018, PSD",
)
_PRIVATE = Remedy(
    "use a differentially private generator with a stated epsilon (MST, for instance), or refit "
    "with stronger regularisation; drop or coarsen the columns that drive the attack",
    "Dwork & Roth 2014; McKenna, Miklau & Sheldon 2021",
)

#: The remedy shown under each kind of finding, by the start of its measure's name
#: (``Result.measure``: ``singling_out`` covers both singling-out measures).
REMEDIES: dict[str, Remedy] = {
    "singling_out": _COARSEN,
    "linkability": _COARSEN,
    "replicated_uniques": _COARSEN,
    "match_risk": _COARSEN,
    "copy_test": _REMOVE_COPIES,
    "rare_copy_test": _REMOVE_COPIES,
    "identical_match_share": _REMOVE_COPIES,
    "dcr_zero_share": _REMOVE_COPIES,
    "cap": _ATTRIBUTE,
    "knn_risk": _ATTRIBUTE,
    "inference_risk": _ATTRIBUTE,
    "rare_attribution_test": _ATTRIBUTE,
}

#: The remedy of a measure :data:`REMEDIES` does not name (membership attacks and the like).
DEFAULT_REMEDY = _PRIVATE

#: Measures whose finding is about the key combination (and a target): their columns are the keys.
_KEYED = ("cap", "knn_risk", "inference_risk", "rare_attribution_test", "replicated_uniques")

#: Measures that count identical copies: every column of such a copy matches.
_IDENTICAL = ("dcr_zero_share", "identical_match_share")


def _named_by(measure: str, names) -> str | None:
    """The longest of ``names`` that ``measure`` starts with, or ``None``."""
    return max((n for n in names if measure.startswith(n)), key=len, default=None)


def remedy_for(measure: str) -> Remedy:
    """The remedy of ``measure`` (:data:`REMEDIES` by the start of its name, else
    :data:`DEFAULT_REMEDY`)."""
    name = _named_by(measure, REMEDIES)
    return DEFAULT_REMEDY if name is None else REMEDIES[name]


@dataclass(frozen=True)
class ColumnCount:
    """A column and how many of a finding's records, predicates or changes involve it."""

    column: str
    count: int


@dataclass(frozen=True)
class Explanation:
    """The columns behind one deciding finding.

    ``kind`` says what the columns are: ``"predicates"`` (``columns`` counts the successful
    predicates using each, of ``total``), ``"link"`` (the two sets the attacker links on, in
    ``linked``), ``"keys"`` (the key combination, with ``target``), ``"copies"`` (``identical`` and
    ``near`` copied training records; ``columns`` counts the training records that would gain a
    copy were each column ignored), ``"identical"`` (every one of ``total`` columns matches),
    ``"left_out"`` (``shifts``: per column, the measure's value
    with the column left out, against ``value`` with every column, on ``sample`` records per
    table) or ``"none"`` (nothing more to show: ``note`` says why).
    """

    family: str
    key: str
    measure: str
    kind: str
    columns: tuple[ColumnCount, ...] = ()
    total: int = 0
    linked: tuple[tuple[str, ...], ...] = ()
    target: str | None = None
    identical: int | None = None
    near: int | None = None
    shifts: tuple[tuple[str, float], ...] = ()
    value: float | None = None
    sample: int | None = None
    higher_is_riskier: bool = True
    note: str | None = None

    @property
    def remedy(self) -> Remedy:
        return remedy_for(self.measure)


def predicate_columns(result, columns: Sequence[str]) -> tuple[tuple[ColumnCount, ...], int]:
    """Per column of ``columns`` (the training table's, in its order), how many of the singling-out
    predicates that single out a training record constrain it, most first (columns no successful
    predicate uses left out); and how many predicates succeeded."""
    used = np.asarray(result.predicate_columns, dtype=np.int64).reshape(len(result.attack_success), -1)
    won = used[np.asarray(result.attack_success, dtype=bool)]
    counts = np.bincount(won.ravel(), minlength=len(columns)) if won.size else np.zeros(len(columns), int)
    named = [
        ColumnCount(str(columns[i]), int(counts[i])) for i in np.argsort(-counts, kind="stable") if counts[i]
    ]
    return tuple(named), int(len(won))


def _sample(table: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(table) <= size:
        return table
    return table.iloc[np.sort(rng.choice(len(table), size=size, replace=False))].reset_index(drop=True)


def copy_columns(
    *, train: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame, numeric_tolerance: float
) -> tuple[int, int, tuple[ColumnCount, ...]]:
    """The copied training records (:func:`privlib.identity.copy_test`) that are identical in every
    value, those copied only within ``numeric_tolerance``, and per column how many more training
    records would have a copy if the column were ignored (the test rerun without it; columns that
    change nothing left out), most first."""
    from privlib.identity import copy_test

    def copied(columns: list, tolerance: float) -> int:
        return copy_test(
            train=train[columns],
            synthetic=synthetic[columns],
            holdout=holdout[columns],
            numeric_tolerance=tolerance,
        ).train_copied

    every = list(train.columns)
    within = copied(every, numeric_tolerance)
    identical = copied(every, 0.0) if numeric_tolerance else within
    gains = []
    if len(every) > 1:
        for column in every[:LEAVE_OUT_COLUMNS]:
            gain = copied([c for c in every if c != column], numeric_tolerance) - within
            if gain > 0:
                gains.append(ColumnCount(str(column), int(gain)))
    gains.sort(key=lambda item: -item.count)
    return identical, within - identical, tuple(gains)


def leave_one_out(
    measure: Callable,
    *,
    train: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame,
    random_state: int,
    max_records: int = LEAVE_OUT_RECORDS,
    max_columns: int = LEAVE_OUT_COLUMNS,
) -> tuple[float, tuple[tuple[str, float], ...], int]:
    """``measure(train=, synthetic=, holdout=)`` (with ``random_state`` when it takes one) on a
    seeded sample of at most ``max_records`` records per table, with every column and then with
    each of the first ``max_columns`` columns left out: the value with every column, each left-out
    column with the value without it, and the sample's size (records per table, at most)."""
    rng = np.random.default_rng(random_state)
    tables = [_sample(t, max_records, rng) for t in (train, synthetic, holdout)]
    seeded = "random_state" in inspect.signature(measure).parameters
    extra = {"random_state": random_state} if seeded else {}

    def value(columns: list) -> float:
        t, s, h = (table[columns] for table in tables)
        return float(measure(train=t, synthetic=s, holdout=h, **extra).value)

    every = list(train.columns)
    full = value(every)
    shifts = tuple(
        (str(column), value([c for c in every if c != column]))
        for column in every[:max_columns]
        if len(every) > 1
    )
    return full, shifts, max(len(t) for t in tables)


#: Identity measures explained beside the deciding one when at risk: their columns (the
#: predicates', the link's) are what a remedy acts on.
_COLUMN_FINDINGS = ("singling_out", "linkability")


def _deciding_records(report) -> list:
    """The measures whose findings page 1 explains: each family's deciding measure when the
    family is at risk or inconclusive, and, for identity, the singling-out and linkability
    measures at risk (page 1's copy lines state both kinds of copy already)."""
    measures = {m.key: m for m in report.measures}
    chosen = []
    for family in report.families:
        if family.verdict not in ("risk", "inconclusive"):
            continue
        keys = [family.deciding] if family.deciding else []
        keys += [
            m.key
            for m in report.by_family(family.family)
            if m.verdict == "risk" and _named_by(m.measure, _COLUMN_FINDINGS)
        ]
        chosen += [measures[k] for k in dict.fromkeys(keys) if k in measures]
    return chosen


def _one(record, result, *, train, synthetic, holdout, keys, random_state, function) -> Explanation:
    common = {"family": record.family, "key": record.key, "measure": record.measure}
    name = record.measure
    if name.startswith("singling_out") and getattr(result, "predicate_columns", None) is not None:
        columns, total = predicate_columns(result, list(train.columns))
        return Explanation(kind="predicates", columns=columns, total=total, **common)
    if name.startswith("linkability") and getattr(result, "aux_columns", None):
        return Explanation(
            kind="link", linked=tuple(tuple(map(str, s)) for s in result.aux_columns), **common
        )
    if _named_by(name, _IDENTICAL):
        return Explanation(kind="identical", total=train.shape[1], **common)
    if _named_by(name, _KEYED):
        named = record.details.get("keys") or keys
        return Explanation(
            kind="keys",
            columns=tuple(ColumnCount(str(k), 0) for k in named),
            target=record.target,
            **common,
        )
    if name in ("copy_test", "rare_copy_test") and holdout is not None:
        tolerance = float(record.details.get("numeric_tolerance") or 0.0)
        identical, near, gains = copy_columns(
            train=train, synthetic=synthetic, holdout=holdout, numeric_tolerance=tolerance
        )
        return Explanation(kind="copies", identical=identical, near=near, columns=gains, **common)
    # a declaration names its function by a Reference, resolved (imported) here on first use
    function = function.resolve() if hasattr(function, "resolve") else function
    if function is not None and holdout is not None and _takes_release(function):
        full, shifts, size = leave_one_out(
            function, train=train, synthetic=synthetic, holdout=holdout, random_state=random_state
        )
        return Explanation(
            kind="left_out",
            value=full,
            shifts=shifts,
            sample=size,
            higher_is_riskier=record.higher_is_riskier,
            **common,
        )
    return Explanation(kind="none", note="this measure cannot be rerun column by column", **common)


def _takes_release(function: Callable) -> bool:
    """Whether ``function`` runs on the three tables alone (its other parameters have defaults)."""
    parameters = inspect.signature(function).parameters
    required = {
        n for n, p in parameters.items() if p.default is inspect.Parameter.empty and p.kind != p.VAR_KEYWORD
    }
    return {"train", "synthetic", "holdout"} <= set(parameters) and required <= {
        "train",
        "synthetic",
        "holdout",
    }


def explain(
    report,
    *,
    train: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None,
    functions: Mapping[str, Callable] | None = None,
    random_state: int = 0,
) -> list[Explanation]:
    """The columns behind each finding page 1 explains (:func:`_deciding_records`), from the
    report's results and the tables the audit read. ``functions`` maps a measure's name to the
    public function that computes it, for the leave-one-column-out reruns (the audit's
    declarations by default); ``random_state`` seeds the reruns' samples."""
    if functions is None:
        from privlib.catalogue import MEASURES

        functions = {name: spec.function for name, spec in MEASURES.items() if spec.function is not None}
    spec_keys = list((report.provenance.spec or {}).get("keys") or [])
    explanations = []
    for record in _deciding_records(report):
        result = report.result(record.key)
        try:
            explanations.append(
                _one(
                    record,
                    result,
                    train=train,
                    synthetic=synthetic,
                    holdout=holdout,
                    keys=spec_keys,
                    random_state=random_state,
                    function=functions.get(record.measure),
                )
            )
        except Exception as exc:  # an explanation is context: its failure never stops the report
            logger.warning("the columns behind %s could not be found: %s", record.key, type(exc).__name__)
            explanations.append(
                Explanation(
                    family=record.family,
                    key=record.key,
                    measure=record.measure,
                    kind="none",
                    note="the columns behind it could not be computed",
                )
            )
    return explanations
