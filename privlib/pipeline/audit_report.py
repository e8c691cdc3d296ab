"""The audit pipeline: the shipped audit notebook and params files, the audit's settings, and
:func:`run_audit` / :func:`audit_and_publish`, which stage, execute, render and publish a report."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from importlib import import_module
from pathlib import Path

from privlib.audit import AuditSpec, materialise, read_params
from privlib.audit.inputs import AuditInputs
from privlib.audit.spec import (
    TABLE_FIELDS,
    user_settings,
)
from privlib.background import in_background
from privlib.datasets import DATASETS
from privlib.errors import PrivlibError, ReportError, blanked
from privlib.pipeline.execution import (
    _check_report_names,
    _early_kernel,
    _execute,
    _passive_openmp,
    _require_dask,
    _require_report_extra,
    _say,
)
from privlib.publish import checked_out as _checked_out
from privlib.publish import publish as _publish
from privlib.publish import staging as _staging
from privlib.render import render_html, render_pdf
from privlib.resources import resource_path

# one logger for the whole pipeline, whichever of its modules writes
logger = logging.getLogger("privlib.pipeline")

#: Files an audit writes into its output folder (and nothing else).
AUDIT_FILES = ("privacy_audit.ipynb", "report.html", "report.pdf", "metrics.json")

#: The formats ``privlib audit --formats`` takes, each with the files it publishes: the executed
#: notebook is the source of the HTML and the PDF, and goes with either.
AUDIT_FORMATS = {
    "json": ("metrics.json",),
    "html": ("report.html", "privacy_audit.ipynb"),
    "pdf": ("report.pdf", "privacy_audit.ipynb"),
}


def audit_formats(formats) -> frozenset[str]:
    """``formats`` (names of :data:`AUDIT_FORMATS`, or ``None`` for all) checked; metrics.json is
    always written, the record a gate reads."""
    chosen = frozenset(AUDIT_FORMATS if formats is None else formats)
    unknown = sorted(chosen - set(AUDIT_FORMATS))
    if unknown or not chosen:
        shown = ", ".join(repr(str(name)[:20]) for name in unknown[:3]) or "none"
        raise PrivlibError(
            f"`formats` {shown}: give one or more of {', '.join(AUDIT_FORMATS)}, separated by commas."
        )
    return chosen | {"json"}


# --------------------------------------------------------------------------------------------
# Shipped notebooks and params
# --------------------------------------------------------------------------------------------
def audit_notebook() -> Path:
    """The audit template the kit ships (``reports/privacy_audit.ipynb``)."""
    return resource_path("reports", "privacy_audit.ipynb")


def course_notebooks(folder=None, lessons=None) -> list[Path]:
    """The ordered teaching notebooks ``0*.ipynb`` of ``folder`` (default: the kit's own), or
    only those whose names start with one of ``lessons`` (e.g. ``["00", "04"]``)."""
    folder = Path(folder) if folder is not None else resource_path("notebooks")
    found = sorted(folder.glob("0*.ipynb"))
    if not found:
        raise PrivlibError(f"no teaching notebooks (0*.ipynb) found in {str(folder)!r}.")
    if lessons is not None and not all(str(lesson).strip() for lesson in lessons):
        raise PrivlibError(
            "`lessons` holds an empty name; give lesson numbers such as 00 04, or leave it "
            "out for every lesson."
        )
    if lessons:
        unknown = [lesson for lesson in lessons if not any(p.name.startswith(str(lesson)) for p in found)]
        if unknown:
            raise PrivlibError(
                f"`lessons` {unknown} match no lesson; the lessons are {[p.stem for p in found]}."
            )
        found = [p for p in found if any(p.name.startswith(str(lesson)) for lesson in lessons)]
    return found


def params_file(dataset: str) -> Path:
    """The params file the kit ships for ``dataset`` (``reports/params/<dataset>.yaml``)."""
    if dataset not in DATASETS:
        raise PrivlibError(f"unknown dataset {dataset!r}; the bundled datasets are {list(DATASETS)}.")
    return resource_path("reports", "params", f"{dataset}.yaml")


# --------------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------------
#: Fields of a bundled-dataset params file that say how its tables are made.
_RECIPE_FIELDS = ("dataset", "n_train", "n_holdout", "synthesizers")


def audit_spec(*, params=None, data_root=None, **given) -> tuple[AuditSpec, dict | None]:
    """The spec of an audit from a params file and the arguments ``given`` (those not ``None``
    win over the file's), checked before any work; with it, the recipe of a bundled-dataset
    params file whose tables :func:`privlib.audit.materialise` still has to make (else ``None``).
    The params file's tables lie inside ``data_root`` (default: its own folder).
    """
    values = {name: value for name, value in given.items() if value is not None}
    recipe = None
    if data_root is not None and params is None:
        raise PrivlibError("`--data-root` is where a params file's tables lie: give it with --params.")
    if params is not None:
        found = read_params(params, root=data_root)
        settings = set(user_settings()) - set(TABLE_FIELDS)
        values = {name: found[name] for name in settings if found.get(name) is not None} | values
        if "dataset" in found:
            recipe = {name: found[name] for name in _RECIPE_FIELDS if name in found}
            # the tables do not exist yet: the params file stands in for them while the settings
            # are checked
            values |= {"train": params, "synthetic": [params], "holdout": None}
        else:
            values = {
                "train": found["train"],
                "synthetic": found["synthetic"],
                "holdout": found.get("holdout"),
            } | values
    spec = AuditSpec.build(**values)
    return spec, recipe


def _with_absolute_paths(spec: AuditSpec) -> AuditSpec:
    """The spec with its files as absolute paths, for a notebook that runs in another folder."""

    def absolute(table):
        return table.resolve() if isinstance(table, Path) else table

    synthetic = (
        {k: absolute(v) for k, v in spec.synthetic.items()}
        if isinstance(spec.synthetic, dict)
        else [absolute(v) for v in spec.synthetic]
    )
    return spec.model_copy(
        update={
            "train": absolute(spec.train),
            "synthetic": synthetic,
            "holdout": None if spec.holdout is None else absolute(spec.holdout),
            "schema_file": None if spec.schema_file is None else absolute(spec.schema_file),
        }
    )


def run_audit(
    *, out, params=None, data_root=None, progress: bool = True, schema=None, formats=None, **settings
) -> Path:
    """Run the privacy audit and write its report into ``out``.

    Give either the tables (``train``, ``synthetic``, ``holdout``) or ``params``, a YAML file
    (see :func:`privlib.audit.read_params`); ``settings`` are those of
    :class:`privlib.audit.AuditSpec`, under the same names (the command line's flags), and win
    over the file's; those left at ``None`` take the file's value or the spec's default.
    ``schema`` is the earlier name of ``schema_file``. The files a params file names must lie
    inside ``data_root`` (default: the params file's own folder). ``formats``: the names of
    :data:`AUDIT_FORMATS` to write (default all; metrics.json always): the work of the others is
    skipped (the notebook and the HTML with neither ``html`` nor ``pdf``), and the earlier run's
    files of the formats left out are removed from ``out`` in the same publication, so that
    ``out`` never holds files of two runs.

    Returns
    -------
    pathlib.Path
        The output folder, holding the files of ``formats`` (and whatever else it held before).

    Raises
    ------
    PrivlibError
        For bad input, before anything runs and before ``out`` is touched; or when the notebook
        fails (``out`` is then left as it was).
    """
    audit_and_publish(
        out=out,
        params=params,
        data_root=data_root,
        progress=progress,
        schema=schema,
        formats=formats,
        **settings,
    )
    return _checked_out(out)


def audit_and_publish(
    *, out, params=None, data_root=None, progress: bool = True, schema=None, formats=None, **settings
):
    """:func:`run_audit`, returning the report it published (an
    :class:`~privlib.audit.AuditReport`): the one its files in ``out`` hold, whatever another run
    into ``out`` publishes after it (the command line's ``--json`` and ``--fail-on`` read it)."""
    formats = audit_formats(formats)
    written = {name for kind in formats for name in AUDIT_FORMATS[kind]}
    pages_wanted = bool(formats & {"html", "pdf"})
    out = _checked_out(out)
    _check_report_names(out, written)
    if pages_wanted:
        _require_report_extra()
    if schema is not None:
        settings.setdefault("schema_file", schema)
    spec, recipe = audit_spec(params=params, data_root=data_root, **settings)
    if spec.dask_scheduler is not None:
        _require_dask(spec.dask_scheduler)
    if spec.targeted_attack is not None:
        from privlib.targeted import resolve_synthesizer

        # a bad name or entry point fails before any work; what a module the user named prints
        # on import stays off stdout, which --json gives to the caller
        with contextlib.redirect_stdout(sys.stderr):
            resolve_synthesizer(spec.targeted_attack)
    with _staging(out, "audit") as stage:
        work, report = stage / "work", stage / "report"
        work.mkdir()
        report.mkdir()
        if recipe is not None:
            _say(progress, f"making the tables of {recipe['dataset']} (seed {spec.seed})")
            made = materialise(recipe | {"seed": spec.seed}, work)
            spec = spec.model_copy(
                update={
                    "train": Path(made["train"]),
                    "synthetic": [Path(p) for p in made["synthetic"]],
                    "holdout": Path(made["holdout"]) if made["holdout"] else None,
                    "recipe": made["recipe"],
                }
            )
        spec = _with_absolute_paths(spec)
        # the notebook's kernel boots while the audit computes, off the critical path
        with _early_kernel(work) if pages_wanted else contextlib.nullcontext() as kernel:
            with _as_report_error("the audit"):
                inputs = _audit_inputs(spec, progress=progress, preload=pages_wanted)
                if pages_wanted:
                    # the per-variable figures need only the tables: drawn beside the measures
                    with _variable_figures(spec, inputs, work) as variable_figures:
                        reports = _with_file_decisions(_audit_reports(spec, inputs))
                        _say(progress, "naming the columns behind the findings")
                        explanations = _explanations(spec, inputs, reports[0])
                        _say(progress, "drawing the report's figures")
                        pages = _report_sections(reports, variable_figures(), explanations)
                else:
                    reports = _with_file_decisions(_audit_reports(spec, inputs))
            (report / "metrics.json").write_text(reports[0].to_json(), encoding="utf-8")
            if pages_wanted:
                sections = work / "audit_sections.json"
                sections.write_text(json.dumps(pages), encoding="utf-8")
                _say(progress, "running the audit notebook")
                _execute(
                    audit_notebook(),
                    report / "privacy_audit.ipynb",
                    {"sections_path": sections.name},
                    cwd=work,
                    progress=progress,
                    kernel=kernel,
                )
        if pages_wanted:
            _say(
                progress,
                f"rendering {' and '.join(sorted(written - {'metrics.json', 'privacy_audit.ipynb'}))}",
            )
            render_html(
                report / "privacy_audit.ipynb",
                report / "report.html",
                title=spec.title,
                toc=True,
                compact=True,
            )
            if "pdf" in formats:
                render_pdf(report / "report.html", report / "report.pdf")
        # an earlier run's files of the formats left out go in the same step: a reader never
        # sees this run's metrics.json beside another run's report
        _publish(report, out, written, retire=set(AUDIT_FILES) - written)
    return reports[0]


def _with_file_decisions(reports: list) -> list:
    """``reports`` (the audit, then each other synthetic file's own) with the decision on each
    file on the first, when there are several."""
    if len(reports) < 2:
        return reports
    return [reports[0].with_files(reports), *reports[1:]]


def _preload(*modules: str) -> None:
    """Import ``modules`` in a thread of their own; a later import of one waits for it (Python's
    import lock) and then finds it loaded."""
    threading.Thread(target=lambda: [import_module(name) for name in modules], daemon=True).start()


def _audit_inputs(spec: AuditSpec, *, progress: bool, preload: bool) -> AuditInputs:
    """The tables of ``spec`` read and checked (bad input raises :class:`PrivlibError`);
    ``preload``: load the renderers meanwhile."""
    n_synthetic = len(spec.synthetic)
    _say(
        progress,
        f"reading and checking the tables (training, {n_synthetic} synthetic file"
        f"{'s' if n_synthetic > 1 else ''}{', holdout' if spec.holdout is not None else ''})",
    )
    started = time.perf_counter()
    _passive_openmp()
    from privlib.audit.runner import inputs_of

    if preload:
        # the renderers load while the audit computes (after the audit's own imports: imports in
        # two threads only take turns)
        _preload("papermill", "nbconvert", "weasyprint")
    inputs = inputs_of(spec)
    if progress:
        logger.info("tables checked in %.1f s", time.perf_counter() - started)
    return inputs


def _audit_reports(spec: AuditSpec, inputs: AuditInputs) -> list:
    """The audit of ``spec`` in this process on its tables ``inputs``, then, with several
    synthetic files, each other file's own audit, labelled as each audit labels its file."""
    from privlib.audit.runner import run, run_on_inputs

    if isinstance(spec.synthetic, dict):
        alone: list = [{name: table} for name, table in list(spec.synthetic.items())[1:]]
    else:
        alone = [[table] for table in spec.synthetic[1:]]
    others = [spec.model_copy(update={"synthetic": synthetic}) for synthetic in alone]
    return [run_on_inputs(inputs, spec)] + [run(one) for one in others]


@contextlib.contextmanager
def _as_report_error(what: str) -> Iterator[None]:
    """Bad input (:class:`PrivlibError`) as it is; any other failure, one of the kit, as a
    :class:`ReportError` naming ``what`` whose message quotes no value (no traceback)."""
    try:
        yield
    except (PrivlibError, MemoryError):  # bad input as it is; memory: the command names the settings
        raise
    except Exception as exc:
        raise ReportError(f"{what} failed: {type(exc).__name__}: {blanked(str(exc))}") from None


#: The longest wait for the per-variable figures once the measures are done (they are drawn from
#: a bounded sample: seconds on any machine).
_FIGURES_SECONDS = 600.0


@contextlib.contextmanager
def _variable_figures(spec: AuditSpec, inputs: AuditInputs, folder: Path) -> Iterator[Callable[[], str]]:
    """The per-variable fidelity figures (:func:`privlib.render.audit.variable_fidelity_html`, on
    the fidelity card's sample, redacted), drawn in a second process while this one computes (its
    files in ``folder``): yields a function that waits for their HTML ("" for tables too small
    to assess)."""
    if not inputs.assessable:
        yield str
        return
    from privlib.render.audit import fidelity_sample, variable_fidelity_html

    real, fake = fidelity_sample(
        inputs.train,
        next(iter(inputs.synthetic.values())),
        max_records=spec.fidelity_sample,
        random_state=spec.seed,
    )
    # the sample is drawn here, so the other process gets only what it draws
    # the keys and sensitive variables are drawn first: the variables the findings are about
    first = [*(spec.keys or []), *(spec.sensitive or [])]
    draw = functools.partial(variable_fidelity_html, max_records=None, random_state=spec.seed, first=first)
    with in_background(draw, real, fake, folder=folder, what="drawing the per-variable figures") as drawn:
        yield lambda: drawn(_FIGURES_SECONDS)


def _explanations(spec: AuditSpec, inputs: AuditInputs, report) -> list:
    """The columns behind each finding page 1 explains (:func:`privlib.audit.explain.explain`),
    on the first synthetic file, whose decision page 1 gives: counts and column names only."""
    if not inputs.assessable:
        return []
    from privlib.audit.explain import explain

    return explain(
        report,
        train=inputs.train,
        synthetic=next(iter(inputs.synthetic.values())),
        holdout=inputs.holdout,
        random_state=spec.seed,
    )


def _figure_rows(figures: list) -> str:
    """A family's figures in one block whose rows of half-width figures may each start a page
    (``privlib-figures`` in report.css), or nothing without figures."""
    return f'<div class="privlib-figures">{"".join(figures)}</div>' if figures else ""


def _report_sections(reports: list, variables: str, explanations: Sequence = ()) -> dict:
    """The report's pages as the kit's escaped HTML fragments, figures embedded, in the order
    ``reports/privacy_audit.ipynb`` shows them: drawn once here, where the results' per-record
    arrays are, and read back by the notebook as data. ``reports``: the audit, then the other
    synthetic files' own audits; ``variables``: the per-variable figures (:func:`_variable_figures`);
    ``explanations``: the columns behind the findings (:func:`_explanations`)."""
    from privlib.render import audit as page
    from privlib.render import audit_pages as pages

    report, others = reports[0], reports[1:]
    document = report.model_dump(mode="json")
    families = [
        {
            "readings": pages.readings_html(document, family),
            "tables": [page.table_html(table) for _, table in page.measure_tables(report, family)],
            "figures": _figure_rows(
                [
                    pages.measure_figure_html(record, result, plot)
                    for record, result, plot in page.figures(report, family)
                ]
            ),
        }
        for family in [f.family for f in report.families]
    ]
    compared = {r.synthetic_label: r for r in reports} if others else {}
    return {
        "decision": pages.decision_html(document, explanations),
        "fidelity": pages.fidelity_html(document),
        "variable_fidelity": variables,
        "forest": pages.forest_figure_html(document),
        "verdicts": pages.verdict_lines_html(document),
        "families": families,
        "comparison": pages.comparison_html(compared) if compared else "",
        "appendix": pages.appendix_html(document),
        "provenance": page.provenance_html(report),
        "glossary": pages.glossary_html(document),
    }
