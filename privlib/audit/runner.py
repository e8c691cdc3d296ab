"""The audit runner: compute every catalogued measure, judge each result once, build the report.

:func:`run` is the one entry point: the CLI (through the audit notebook) and a notebook user call
it, with DataFrames or paths. It reads and checks the inputs, runs each entry of
:data:`~privlib.catalogue.CATALOGUE` (or records why it was skipped), judges every result with
the threshold registry and the spec's overrides (:func:`privlib.thresholds.judge`), and returns an
:class:`~privlib.audit.report.AuditReport`. It computes nothing itself: every number comes from the
public function a notebook would call.

Errors by kind: a measure whose data do not allow it (a :class:`~privlib.errors.DataError` from
the computation) is skipped with its reason; any other refusal of the kit (a
:class:`~privlib.errors.ParameterError`: a bad argument, even a single one, from the entry or the
kit's own call of the fidelity summary; another :class:`~privlib.errors.PrivlibError`; a result
under another key) is an :class:`AuditError` naming the measure in one line that quotes no value,
never a skip.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import platform
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pandas as pd

from privlib.audit.family_rule import SEVERITY, Judged, family_verdict
from privlib.audit.inputs import MIN_ROWS, AuditInputs, load_audit_inputs
from privlib.audit.limits import check_claim, claim_of, limits_of
from privlib.audit.report import (
    DO_NOT_RELEASE,
    NO_EVIDENCE_FOUND,
    NOT_ASSESSED,
    WITH_CAVEATS,
    AtRisk,
    AuditReport,
    Decision,
    FamilyFinding,
    InputFile,
    MeasureRecord,
    Provenance,
    Skipped,
    plain_number,
)
from privlib.audit.spec import AuditSpec
from privlib.catalogue import CATALOGUE
from privlib.declaration import FAMILIES, NEEDS, Context, FamilyKey, MeasureSpec, Need
from privlib.errors import DataError, ParameterError, PrivlibError, blanked
from privlib.results import INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE, RISK, Result
from privlib.schema import NUMERIC, infer_kinds
from privlib.search_reuse import reuse_searches
from privlib.thresholds import judge
from privlib.uncertainty import DEFAULT_CONFIDENCE
from privlib.validation import HasMethods, Options, validate_params

__all__ = ["run", "run_on_inputs", "inputs_of", "Audit", "AuditError", "Redactor"]

logger = logging.getLogger(__name__)

#: ``progress(done, total, key)``: called after each measure.
Progress = Callable[[int, int, str], None]

#: What to give so that a family can be assessed, when none of its measures ran.
_HOW_TO_ASSESS = {
    "identity": "give a holdout (real records the generator never saw) and the key variables",
    "attribute": "give the key variables an adversary knows and the sensitive variables (and a "
    "holdout for the inference attack)",
    "membership": "give a holdout: real records of the same population the generator never saw",
}


class AuditError(RuntimeError):
    """A bug in the audit's catalogue or in a measure, not a property of the data."""


@validate_params(
    {
        "progress": [
            HasMethods("__call__", description="a function progress(done, total, key)"),
            Options(False),
            None,
        ]
    }
)
def run(
    spec: AuditSpec | None = None, *, client: Any = None, progress: Progress | None = None, **settings: Any
) -> AuditReport:
    """Run the privacy audit and return its report.

    Give an :class:`~privlib.audit.spec.AuditSpec`, or its settings as keyword arguments (the
    names of ``privlib audit``'s options): ``train``, ``synthetic`` and ``holdout`` may be
    DataFrames or paths, ``synthetic`` also a dict of named DataFrames.

    Examples
    --------
    >>> import privlib as pl
    >>> adult = pl.datasets.load_dataset("adult").head(600)
    >>> train, holdout = adult.iloc[:300], adult.iloc[300:]
    >>> report = pl.audit.run(train=train, synthetic=train, holdout=holdout, keys=["age", "sex"],
    ...                       sensitive=["income"])
    >>> report.decision
    'do not release'
    """
    if spec is None:
        spec = AuditSpec.build(**settings)
    elif settings:
        raise PrivlibError(f"give either a spec or settings, not both (got {sorted(settings)}).")
    # False and None both mean no progress calls
    return run_on_inputs(inputs_of(spec), spec, client=client, progress=progress or None)


def run_on_inputs(
    inputs: AuditInputs, spec: AuditSpec, *, client: Any = None, progress: Progress | None = None
) -> AuditReport:
    """:func:`run` on the tables of ``spec`` already read and checked (``inputs_of(spec)``), for a
    caller that uses them again (the command line draws the report's figures from them)."""
    if client is None and spec.dask_scheduler is not None:
        from dask.distributed import Client

        client = Client(spec.dask_scheduler, timeout=10)
    return Audit(inputs, spec, client=client, progress=progress).run()


def inputs_of(spec: AuditSpec) -> AuditInputs:
    """The spec's tables read and checked (:func:`~privlib.audit.inputs.load_audit_inputs`), and
    the claimed epsilon against them (:func:`~privlib.audit.limits.check_claim`)."""
    inputs = load_audit_inputs(
        train=spec.train,
        synthetic=spec.synthetic,
        holdout=spec.holdout,
        population_size=spec.population_size,
        keys=spec.keys,
        sensitive=spec.sensitive,
        allow_new_categories=spec.allow_new_categories,
        schema=spec.schema_file,
        max_input_mb=spec.max_input_mb,
        max_expansion=spec.max_expansion,
    )
    check_claim(spec, inputs)
    return inputs


class Redactor:
    """Blanks every quoted category label of the confidential tables out of a text: the one guard
    that keeps a value of the training or holdout data out of readings, reasons and log lines."""

    _QUOTED = re.compile(r"""(['"])(.*?)\1""")

    def __init__(self, *tables: pd.DataFrame | None):
        self.labels: set[str] = set()
        for table in tables:
            if table is None:
                continue
            for column in table.columns:
                values = table[column]
                if isinstance(values.dtype, pd.CategoricalDtype) or not pd.api.types.is_numeric_dtype(values):
                    self.labels.update(str(v) for v in pd.unique(values.dropna()))

    def __call__(self, text: str) -> str:
        if not self.labels or ("'" not in text and '"' not in text):
            return text
        return self._QUOTED.sub(lambda m: "'…'" if m.group(2) in self.labels else m.group(0), text)

    @contextlib.contextmanager
    def guarding(self, log: logging.Logger) -> Iterator[None]:
        """Redact every record that passes through ``log`` (and its children) meanwhile."""
        guard = _RedactingFilter(self)
        handlers = [h for h in _handlers_of(log)]
        for handler in handlers:
            handler.addFilter(guard)
        log.addFilter(guard)
        try:
            yield
        finally:
            log.removeFilter(guard)
            for handler in handlers:
                handler.removeFilter(guard)


class _RedactingFilter(logging.Filter):
    def __init__(self, redact: Redactor):
        super().__init__()
        self.redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self.redact(record.getMessage()), ()
        if record.exc_info or record.exc_text:  # tracebacks quote values; keep only their kind
            kind = record.exc_info[0].__name__ if record.exc_info and record.exc_info[0] else "error"
            record.msg += f" ({kind})"
            record.exc_info, record.exc_text = None, None
        return True


def _handlers_of(log: logging.Logger) -> list[logging.Handler]:
    """The handlers a record of ``log`` reaches (its own and its ancestors')."""
    found: list[logging.Handler] = []
    current: logging.Logger | None = log
    while current is not None:
        found += current.handlers
        current = current.parent if current.propagate else None
    return found


class Audit:
    """Runs the catalogue on checked inputs and builds the :class:`AuditReport` (see :func:`run`)."""

    def __init__(
        self,
        inputs: AuditInputs,
        spec: AuditSpec,
        *,
        client: Any = None,
        progress: Progress | None = None,
        catalogue: tuple[MeasureSpec, ...] = CATALOGUE,
    ):
        if client is not None:
            _check_client(client)
        check_claim(spec, inputs)  # inputs read without inputs_of meet the claim here
        self.inputs = inputs
        self.spec = spec
        self.settings = spec.settings()
        self.client = client
        self.progress = progress
        self.catalogue = catalogue
        self.redact = Redactor(inputs.train, inputs.holdout)
        self._kinds = infer_kinds(inputs.train, name="train") if inputs.assessable else {}
        self._records: list[MeasureRecord] = []
        self._skipped: list[Skipped] = []
        self._results: dict[str, Any] = {}

    # -- running ----------------------------------------------------------------------------------
    def run(self) -> AuditReport:
        """Run every measure of the catalogue (or record why it was skipped); return the report."""
        planned = self._plan()
        # measures ask the engine the same questions (the synthetic records' nearest training
        # records serve the DCR summary, adversarial accuracy and the privacy loss): ask once,
        # the measures searching the deepest lists first, as those answer the shallower searches
        ordered = sorted(planned, key=lambda measure: not measure[0].searches_first)
        with self.redact.guarding(logging.getLogger("privlib")), reuse_searches():
            for done, (spec, target) in enumerate(ordered, 1):
                self._run_one(spec, target, done, len(planned))
            position = {spec.key: place for place, spec in enumerate(self.catalogue)}
            self._records.sort(key=lambda record: position[record.key.partition("[")[0]])  # stable
            families = [self._finding(key) for key in FAMILIES if key != "comparison"]
            # context beside the verdicts, from the searches the measures made
            limits = limits_of(
                self.inputs,
                families,
                self._records,
                exact=self._exact,
                seed=self.spec.seed,
                redact=self.redact,
            )
            claim = claim_of(self.inputs, self.spec, client=self.client)
        return self._report(families).model_copy(update={"detection_limits": limits, "epsilon_claim": claim})

    def _plan(self) -> list[tuple[MeasureSpec, str | None]]:
        """Every (measure, target) to run; the skipped ones are recorded on the way."""
        planned: list[tuple[MeasureSpec, str | None]] = []
        for spec in self.catalogue:
            reason = spec.not_applicable or self._missing(spec.needs)
            if reason is not None:
                self._skip(spec, spec.key, reason)
                continue
            for target in self.inputs.sensitive if spec.per_target else [None]:
                if spec.applies is None or spec.applies(self._context(target)):
                    planned.append((spec, target))
        return planned

    def _missing(self, needs: tuple[Need, ...]) -> str | None:
        """Why a measure needing ``needs`` cannot run, or ``None`` when it can."""
        if not self.inputs.assessable:
            return f"inputs too small to assess: {self.inputs.problem}"
        have: dict[Need, bool] = {
            "holdout": self.inputs.holdout is not None,
            "population_size": self.inputs.population_size is not None,
            "keys": bool(self.inputs.keys),
            "sensitive": bool(self.inputs.sensitive),
            "several_synthetic": len(self.inputs.synthetic) > 1,
            "targeted_attack": self.settings["targeted_attack"] is not None,
        }
        for need in needs:
            if need not in have:
                raise AuditError(f"the runner cannot tell whether the input {need!r} was given.")
            if not have[need]:
                return NEEDS[need].format(min_rows=MIN_ROWS)
        return None

    def _context(self, target: str | None) -> Context:
        inputs = self.inputs
        return Context(
            train=inputs.train,
            synthetic=inputs.primary,
            holdout=inputs.holdout,
            synthetics=inputs.synthetic,
            keys=list(inputs.keys),
            sensitive=list(inputs.sensitive),
            population_size=inputs.population_size,
            settings=self.settings,
            binned=self.binned,
            kinds=self._kinds,
            target=target,
        )

    def _run_one(self, spec: MeasureSpec, target: str | None, done: int, total: int) -> None:
        key = spec.key if target is None else f"{spec.key}[{target}]"
        logger.info("[%d/%d] %s: %s ...", done, total, FAMILIES[spec.family].title, key)
        assert spec.function is not None  # planned measures have one
        start = time.perf_counter()
        try:
            arguments = spec.arguments(self._context(target))
            if self.client is not None and "client" in _parameters(spec.function):
                arguments["client"] = self.client
            out = spec.function(**arguments)
        except DataError as exc:
            self._skip(spec, key, f"the data do not allow it: {exc}", target)
            logger.info("    skipped: the data do not allow it")
        except ParameterError as exc:
            raise AuditError(
                f"the catalogue entry {spec.key!r} calls its function wrongly: {blanked(str(exc))}"
            ) from exc
        except PrivlibError as exc:  # not a property of the data: a bug of the entry or the measure
            raise AuditError(
                f"the measure {spec.key!r} failed on data it should take: {blanked(str(exc))}"
            ) from exc
        else:
            seconds = time.perf_counter() - start
            logger.info("    done in %.1f s", seconds)
            self._keep(spec, key, target, out, seconds)
        if self.progress is not None:
            self.progress(done, total, key)

    def _keep(self, spec: MeasureSpec, key: str, target: str | None, out: Any, seconds: float) -> None:
        self._results[key] = out
        if isinstance(out, pd.DataFrame):
            return
        if not isinstance(out, Result) or out.measure != spec.key:
            got = getattr(out, "measure", type(out).__name__)
            raise AuditError(
                f"the catalogue entry {spec.key!r} gave a result for {got!r}; a "
                "measure's results carry its declaration key."
            )
        override = self.spec.thresholds.get(spec.key)
        judged = judge(out, override=override) if spec.rule is not None else out
        self._results[key] = judged
        self._records.append(self._record(spec, key, target, judged, seconds))

    def _record(
        self, spec: MeasureSpec, key: str, target: str | None, result: Result, seconds: float
    ) -> MeasureRecord:
        scalars = _json_safe(result.to_dict())
        columns = {
            name: self.redact(value) if isinstance(value, str) else value
            for name, value in scalars.items()
            if name in MeasureRecord.model_fields
        }
        return MeasureRecord(
            **columns
            | dict(
                key=key,
                target=target,
                family=spec.family,
                title=spec.title,
                verdict=result.verdict or NOT_ASSESSABLE,
                seconds=round(seconds, 3),
                details={
                    name: value for name, value in scalars.items() if name not in MeasureRecord.model_fields
                },
            )
        )

    def _skip(self, spec: MeasureSpec, key: str, reason: str, target: str | None = None) -> None:
        self._skipped.append(
            Skipped(
                key=key, measure=spec.key, family=spec.family, title=spec.title, reason=self.redact(reason)
            )
        )

    def binned(self, columns: list[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        """Training and primary synthetic data restricted to ``columns``, numeric ones binned.

        CAP matches values exactly, so numeric keys and targets are first cut into the same
        quantile bins of the training data (:func:`privlib.attribute.discretize`).
        """
        from privlib.attribute import discretize

        columns = list(columns)
        train, synthetic = self.inputs.train[columns], self.inputs.primary[columns]
        numeric = [c for c in columns if self._kinds.get(c) == NUMERIC]
        if numeric:
            train, synthetic = discretize(
                train=train, synthetic=synthetic, columns=numeric, n_bins=self.settings["cap_bins"]
            )
        return train, synthetic

    # -- the report -------------------------------------------------------------------------------
    def _report(self, families: list[FamilyFinding]) -> AuditReport:
        report = AuditReport(
            title=self.spec.title,
            decision=_decision(self.inputs.assessable, families),
            assessable=self.inputs.assessable,
            problem=self.inputs.problem,
            synthetic_label=self.redact(self.inputs.primary_label),
            notes=[self.redact(note) for note in self.inputs.notes],
            families=families,
            measures=self._records,
            skipped=self._skipped,
            tables={
                key: _table_records(out)
                for key, out in self._results.items()
                if isinstance(out, pd.DataFrame)
            },
            fidelity=self._fidelity(),
            provenance=self._provenance(),
        )
        report._results.update(self._results)
        return report

    def _fidelity(self) -> dict[str, Any] | None:
        """Fidelity beside privacy (:func:`privlib.utility.fidelity_summary`): context only."""
        from privlib.utility import fidelity_summary

        if not self.inputs.assessable:
            return None
        inputs = self.inputs
        logger.info("fidelity: TSTR, pMSE and marginal distance ...")
        try:
            summary = fidelity_summary(
                train=inputs.train,
                synthetic=inputs.primary,
                holdout=inputs.holdout,
                target=(inputs.sensitive or [None])[0],
                random_state=self.spec.seed,
                max_records=None if self.spec.fidelity_sample == "all" else self.spec.fidelity_sample,
            )
        except DataError as exc:
            logger.info("    fidelity not computed: the data do not allow it")
            return {
                "confidence": 0.95,
                "measures": [],
                "skipped": [{"key": "fidelity", "reason": self.redact(str(exc))}],
            }
        except PrivlibError as exc:  # a bad argument or another failure: the kit's own call is wrong
            raise AuditError(f"the audit calls fidelity_summary wrongly: {blanked(str(exc))}") from exc
        fidelity = _json_safe(summary.to_dict())
        fidelity["skipped"] = [dict(s, reason=self.redact(s["reason"])) for s in fidelity["skipped"]]
        return fidelity

    def _finding(self, family: FamilyKey) -> FamilyFinding:
        """The family's verdict, by the family rule (:func:`~privlib.audit.family_rule.family_verdict`)
        over its judged measures; "not assessed" when none of them could be judged."""
        about = FAMILIES[family]
        members = [m for m in self._records if m.family == family]
        counts = {
            v: sum(m.verdict == v for m in members) for v in (RISK, INCONCLUSIVE, NO_EVIDENCE, NOT_ASSESSABLE)
        }
        reasons = sorted({s.reason for s in self._skipped if s.family == family})
        reason = "; ".join(reasons[:2]) if reasons else "no measure of this kind could be read on these data"
        judged = [m for m in members if m.verdict in SEVERITY]
        found = family_verdict(
            [self._judged(m) for m in judged],
            title=about.title,
            confidence=judged[0].confidence if judged else DEFAULT_CONFIDENCE,
            unassessed_reason=reason,
        )
        if found.verdict == NOT_ASSESSED:
            return FamilyFinding(
                family=family,
                title=about.title,
                question=about.question,
                verdict=NOT_ASSESSED,
                headline=found.headline,
                reason=reason,
                how_to_assess=_HOW_TO_ASSESS[family],
                counts=counts,
            )
        return FamilyFinding(
            family=family,
            title=about.title,
            question=about.question,
            verdict=found.verdict,
            deciding=found.deciding,
            headline=found.headline,
            counts=counts,
            at_risk=self._at_risk(family),
            adjusted_p_values=found.adjusted,
        )

    def _exact(self, measure: str) -> bool:
        """Whether the verdict of ``measure`` is an exact test (its rule's)."""
        rule = next(spec.rule for spec in self.catalogue if spec.key == measure)
        return rule is not None and rule.exact_test

    def _judged(self, record: MeasureRecord) -> Judged:
        """A judged measure as the family rule reads it: whether its verdict is an exact test
        (its rule's), and that test's p-value."""
        return Judged(
            key=record.key,
            title=record.title,
            verdict=record.verdict,
            exact=self._exact(record.measure),
            p_value=record.details.get("p_value"),
            value=record.value,
            threshold=record.threshold,
            ci_low=record.ci_low,
            ci_high=record.ci_high,
            higher_is_riskier=record.higher_is_riskier,
            confidence=record.confidence,
        )

    def _at_risk(self, family: str) -> list[AtRisk]:
        counters = {spec.key: spec.at_risk for spec in self.catalogue if spec.at_risk is not None}
        return [
            AtRisk(
                key=m.key,
                count=int(counter(self._results[m.key])[0]),
                what=counter(self._results[m.key])[1],
                target=m.target,
            )
            for m in self._records
            if m.family == family and (counter := counters.get(m.measure))
        ]

    def _provenance(self) -> Provenance:
        from privlib import __version__

        inputs = self.inputs
        rows: dict[str, list[int | None]] = {
            "train": [len(inputs.train)],
            "synthetic": [len(f) for f in inputs.synthetic.values()],
            "holdout": [len(inputs.holdout) if inputs.holdout is not None else None],
        }
        files = [
            InputFile(
                role=role, file=source.name, rows=rows[role][i], columns=inputs.train.shape[1], sha256=digest
            )
            for role, sources in inputs.files.items()
            for i, (source, digest) in enumerate(zip(sources, inputs.digests[role]))
        ]
        return Provenance(
            privlib_version=__version__,
            python_version=platform.python_version(),
            pandas_version=pd.__version__,
            created=_dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
            inputs=files,
            spec=self.spec.provenance(),
            notes=[self.redact(note) for note in inputs.notes],
        )


def _check_client(client: Any) -> None:
    """Refuse, before any work, a client that is not a Dask client."""
    try:
        from distributed import Client
    except ImportError:
        raise PrivlibError("`client` needs Dask: pip install 'privlib[dask]'.") from None
    if not isinstance(client, Client):
        raise PrivlibError(f"`client` must be a dask.distributed.Client, got {type(client).__name__}.")


def _parameters(function: Callable[..., Any]) -> set[str]:
    import inspect

    return set(inspect.signature(function).parameters)


def _decision(assessable: bool, families: list[FamilyFinding]) -> Decision:
    if not assessable:
        return NOT_ASSESSABLE
    verdicts = {f.verdict for f in families}
    if RISK in verdicts:
        return DO_NOT_RELEASE
    if verdicts & {INCONCLUSIVE, NOT_ASSESSED, NOT_ASSESSABLE}:
        return WITH_CAVEATS
    return NO_EVIDENCE_FOUND


def _json_safe(values: dict[str, Any]) -> dict[str, Any]:
    """Plain JSON values (NaN and infinities as None)."""

    def plain(value: Any) -> Any:
        if isinstance(value, float):
            return plain_number(value)
        if isinstance(value, dict):
            return {str(k): plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    return {name: plain(value) for name, value in values.items()}


def _table_records(table: pd.DataFrame) -> list[dict[str, Any]]:
    import json

    return json.loads(table.reset_index().to_json(orient="records", date_format="iso"))
