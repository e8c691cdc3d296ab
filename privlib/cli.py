"""The ``privlib`` command line: ``privlib audit``, ``course``, ``notebooks`` and ``reports``.

Examples
--------
Audit your own files::

    privlib audit --train train.csv --synthetic synthetic.csv --holdout holdout.csv \\
        --population-size 48842 --keys age sex race --sensitive income --out my_audit

Audit a bundled dataset as described by a params file, and render the course on it::

    privlib audit --params reports/params/acs.yaml --out reports/out/acs
    privlib course --dataset ce --out reports/out/ce/course

Copy the lessons out of an installed kit, to edit them::

    privlib notebooks my_course

Every setting of :class:`privlib.audit.AuditSpec` has a flag of its name (``cap_bins`` is
``--cap-bins``) and a params-file field of the same name; ``privlib audit --help`` shows their
descriptions and bounds come from the spec.

A params file is data: the files it names lie inside its folder or the one ``--data-root`` gives,
and it names only the kit's synthesizers (``--targeted-attack module:Class`` is the command
line's alone).

Input limits: a table file's size once decompressed (``--max-input-mb``) and a compressed
file's expansion (``--max-expansion``) are bounded, so that a decompression bomb is refused after
reading a little of it (:func:`privlib.audit.checks.check_input_size`); raise either flag for a
real table that passes them (the defaults are in ``privlib audit --help``). A Dask scheduler
must complete its handshake within ``privlib.pipeline.SCHEDULER_TIMEOUT`` seconds.

Exit status: 0 when the report was written; 1 when a notebook failed while it ran; 2 for bad
input (one line on stderr says what and how to fix it, before any work; under ``audit --json``
the same message also goes to stdout as one JSON object ``{"error": ..., "exit": 2}``); 3 when ``--fail-on``
is given and a kind of disclosure reached that level (the report is written and published
first); 130 for an interrupt (Ctrl-C or SIGTERM). On 1, 2 and 130 the output folder is left as it
was, but for an interrupt while the report's files move in: the move then finishes first, and the
last line says the new report was published. With ``course --keep-going`` (the behaviour of
``reports``) the lessons that finished are published, each failed one is named in one line, and
the status is 1.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from privlib.errors import PrivlibError
from privlib.publish import publication_count, publications

EXIT_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_GATE = 3
EXIT_INTERRUPTED = 130

#: The family verdicts each ``--fail-on`` level stops a release on.
FAIL_ON = {
    "risk": {"risk"},
    "inconclusive": {"risk", "inconclusive", "not assessed", "not assessable"},
}

logger = logging.getLogger("privlib")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (like every other error of the command).

    ``late_arguments(parser)``, if given, adds arguments when the parser first parses or shows
    its help: the audit's flags for the spec's settings, so that the other commands do not pay
    for importing the spec (pandas, pydantic)."""

    def __init__(
        self,
        *args: Any,
        late_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._late_arguments = late_arguments

    def complete(self) -> _Parser:
        """The parser with its late arguments added (once)."""
        if self._late_arguments is not None:
            add, self._late_arguments = self._late_arguments, None
            add(self)
        return self

    def parse_known_args(self, args=None, namespace=None):
        return super(_Parser, self.complete()).parse_known_args(args, namespace)

    def format_usage(self) -> str:
        return super(_Parser, self.complete()).format_usage()

    def format_help(self) -> str:
        return super(_Parser, self.complete()).format_help()

    def error(self, message):
        line = f"privlib: error: {message} (see `{self.prog} --help`)"
        sys.stderr.write(line + "\n")
        raise _UsageError(line)


class _UsageError(SystemExit):
    """A usage error, its one line already on stderr (kept for ``--json``'s error object)."""

    def __init__(self, line: str) -> None:
        super().__init__(EXIT_BAD_INPUT)
        self.line = line


#: Longest ``--thresholds`` text read: a few dozen measures fit in a fraction of it.
THRESHOLDS_LIMIT = 10_000


def _thresholds(text: str) -> dict:
    shown = repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text):,} characters)"
    value = None
    if len(text) <= THRESHOLDS_LIMIT:
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):  # bad JSON, a number too long to read, deep nesting
            value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(
            f"--thresholds must be a JSON object of measure name to number, got {shown}"
        )
    return value


def _formats(text: str) -> list[str]:
    """``--formats``: names separated by commas (checked by :func:`privlib.pipeline.audit_formats`)."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _number_or(word: str, flag: str):
    """The argument type of a setting that is a whole number or the one ``word``."""

    def convert(text: str) -> int | str:
        if text == word:
            return text
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{flag} must be a whole number or {word!r}, got {text[:40]!r}"
            ) from None

    return convert


#: Flags of the spec's settings kept under their earlier names too (users' scripts use them).
_ALIASES = {"schema_file": ("--schema",)}

#: The argument form of each JSON type of a spec field.
_SCALARS = {"integer": int, "number": float, "string": str}


def _spec_argument(name: str, schema: dict) -> dict:
    """``add_argument`` keywords for the spec field ``name`` of JSON schema ``schema``: its type
    (numbers parsed as numbers, lists as several words, a JSON object for a mapping), its help
    text (the field's description)."""
    from privlib.audit.spec import wanted

    flag = "--" + name.replace("_", "-")
    kinds = [k for k in schema.get("anyOf", [schema]) if k.get("type") != "null"]
    types = [k.get("type") for k in kinds]
    words = [k["const"] for k in kinds if "const" in k]
    keywords: dict = {"help": schema.get("description", "")}
    if types == ["boolean"]:
        keywords["action"] = "store_true"
        keywords["default"] = None  # left out: the spec's default
    elif types == ["array"]:
        keywords["nargs"] = "+"
    elif types == ["object"]:
        keywords["type"] = _thresholds
    elif words:
        keywords["type"] = _number_or(words[0], flag)
        keywords["metavar"] = "N"
    else:
        keywords["type"] = _SCALARS[types[0]]
    notes = [wanted(name) or ""]
    if "default" in schema and not isinstance(schema["default"], bool) and schema["default"] is not None:
        notes.append(f"default {schema['default']}")
    if any(notes):
        keywords["help"] += f" ({'; '.join(note for note in notes if note)})"
    return keywords


def _add_spec_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per setting of :class:`privlib.audit.AuditSpec`, named after it (dashes for
    underscores), with its description as the help text."""
    from privlib.audit.spec import AuditSpec, user_settings

    properties = AuditSpec.model_json_schema()["properties"]
    for name in user_settings():
        flags = ["--" + name.replace("_", "-"), *_ALIASES.get(name, ())]
        parser.add_argument(*flags, dest=name, **_spec_argument(name, properties[name]))


#: A params file names files only inside its own folder, or inside the one this flag gives.
_DATA_ROOT_HELP = (
    "folder the params file's tables and schema file lie in (default: the params file's own "
    "folder); a params file naming a file outside it is refused"
)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``privlib`` command (exposed for the documentation and the tests)."""
    from privlib.render.notebook import EDITIONS

    # --quiet and --verbose are accepted before and after the subcommand.
    verbosity = _Parser(add_help=False)  # a parent of the subcommands' parsers, of their class
    verbosity.add_argument(
        "--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress lines, only errors"
    )
    verbosity.add_argument(
        "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug lines as well as progress"
    )
    parser = _Parser(
        prog="privlib",
        parents=[verbosity],
        description="Measure and report the privacy risk of synthetic data.",
    )
    parser.add_argument("--version", action="version", version=f"privlib {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    audit = commands.add_parser(
        "audit",
        parents=[verbosity],
        help="run the privacy audit on CSV files and write report.html, report.pdf, metrics.json",
        description="Run the privacy audit on CSV files (or a params file) and write the executed "
        "notebook, report.html, report.pdf and metrics.json into --out (--formats chooses).",
        late_arguments=_add_spec_arguments,
    )
    audit.add_argument("--params", help="YAML params file (reports/params/*.yaml) instead of the files")
    audit.add_argument("--data-root", help=_DATA_ROOT_HELP)
    audit.add_argument(
        "--fail-on",
        choices=sorted(FAIL_ON),
        help="exit with status 3 (after publishing the report) when a kind of "
        "disclosure has this verdict or a worse one; 'inconclusive' also stops on a "
        "kind that was not assessed",
    )
    audit.add_argument(
        "--json",
        action="store_true",
        help="print a summary on stdout: decision (and, with several synthetic files, the "
        "decision on each), verdict per kind of disclosure, records at risk, the report's path; "
        'bad input (exit status 2) prints {"error": ..., "exit": 2} there instead',
    )
    audit.add_argument(
        "--formats",
        type=_formats,
        default=None,
        metavar="LIST",
        help="the report's formats, separated by commas, of json, html and pdf (default all); "
        "metrics.json is always written, and an earlier run's files of the formats left out "
        "are removed from --out when the new report is published",
    )
    audit.add_argument("--out", required=True, help="output folder")

    course = commands.add_parser(
        "course",
        parents=[verbosity],
        help="run the teaching notebooks on one dataset and render them to HTML and PDF",
        description="Run the teaching notebooks notebooks/0*.ipynb on one dataset; write each as "
        "HTML and PDF into --out with an index.html page.",
    )
    which = course.add_mutually_exclusive_group(required=True)
    which.add_argument("--dataset", help="a bundled dataset name or a path to a CSV file")
    which.add_argument("--params", help="YAML params file: its dataset and seed are used")
    course.add_argument("--data-root", help=_DATA_ROOT_HELP)
    course.add_argument("--seed", type=int, default=2026, help="seed (default 2026)")
    course.add_argument("--full", action="store_true", help="full settings instead of quick ones")
    course.add_argument("--lessons", nargs="+", help="only these lessons, by number (e.g. 00 04)")
    course.add_argument(
        "--slides",
        action="store_true",
        help="also write reveal.js slides per lesson (open without network access)",
    )
    course.add_argument(
        "--keep-going",
        action="store_true",
        help="when a lesson fails, go on; publish the lessons that finished (exit status 1)",
    )
    course.add_argument(
        "--show-records",
        action="store_true",
        help="let the lessons display rows of the data (off: it may be confidential)",
    )
    course.add_argument(
        "--edition",
        choices=EDITIONS,
        default=EDITIONS[0],
        help="whose handouts: 'lecturer' keeps the exercises' solutions, 'student' leaves them out, "
        "code and output (default lecturer)",
    )
    course.add_argument("--out", required=True, help="output folder")

    copies = commands.add_parser(
        "notebooks",
        help="copy the lessons, the capstone and the teaching notes into a folder to edit",
        description="Copy the lessons, the capstone, GLOSSARY.md, TEACHING.md and CONVENTIONS.md "
        "into DIR (created if needed, outside the kit), for editing.",
    )
    copies.add_argument("dir", metavar="DIR", help="folder to copy into")
    copies.add_argument("--force", action="store_true", help="replace files of the same names in DIR")

    every = commands.add_parser(
        "reports",
        parents=[verbosity],
        help="audit and course for every bundled dataset",
        description="Audit and course for every bundled dataset, into --out/<dataset>/.",
    )
    every.add_argument("--out", required=True, help="output folder")
    every.add_argument("--datasets", nargs="+", help="only these bundled datasets")
    every.add_argument("--no-course", action="store_true", help="audits only")
    return parser


def _version() -> str:
    from privlib import __version__

    return __version__


def _audit(args) -> int:
    from privlib import pipeline
    from privlib.audit import AuditReport
    from privlib.pipeline import audit_formats

    if args.params is None and (args.train is None or args.synthetic is None):
        raise PrivlibError("give --train and --synthetic (CSV files), or --params FILE.yaml.")
    if args.params is not None and (args.train or args.synthetic or args.holdout):
        raise PrivlibError("give either --params or the files (--train, --synthetic, --holdout), not both.")
    from privlib.audit.spec import user_settings

    report: AuditReport = pipeline.audit_and_publish(
        out=args.out,
        params=args.params,
        data_root=args.data_root,
        progress=not _quiet(args),
        formats=args.formats,
        **{name: getattr(args, name) for name in user_settings()},
    )
    out = Path(args.out)
    written = audit_formats(args.formats)
    names = [name for kind, name in _REPORT_NAMES.items() if kind in written]
    logger.info("audit written to %s: %s", out, ", ".join(names))
    summary = report.summary()
    if args.json:
        summary["report"] = str(out / names[0])
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    if args.fail_on is not None:
        reached = [f.family for f in report.families if f.verdict in FAIL_ON[args.fail_on]]
        if reached:
            logger.warning(
                "--fail-on %s: %s reached it (decision: %s)",
                args.fail_on,
                ", ".join(reached),
                report.decision,
            )
            return EXIT_GATE
    return 0


#: The file of each format a reader opens, most readable first (``--json``'s "report").
_REPORT_NAMES = {"html": "report.html", "pdf": "report.pdf", "json": "metrics.json"}


def _course(args) -> int:
    from privlib import pipeline

    pipeline.run_course(
        out=args.out,
        dataset=args.dataset,
        params=args.params,
        data_root=args.data_root,
        seed=args.seed,
        quick=not args.full,
        lessons=args.lessons,
        slides=args.slides,
        keep_going=args.keep_going,
        show_records=args.show_records,
        edition=args.edition,
        progress=not _quiet(args),
    )
    logger.info("course written to %s/index.html", args.out)
    return 0


def _notebooks(args) -> int:
    from privlib import pipeline

    written = pipeline.copy_notebooks(args.dir, force=args.force)
    logger.info("%d files copied to %s", len(written), args.dir)
    return 0


def _reports(args) -> int:
    from privlib import pipeline

    pipeline.run_all(
        out=args.out, datasets=args.datasets, course=not args.no_course, progress=not _quiet(args)
    )
    logger.info("reports written to %s/index.html", args.out)
    return 0


def _quiet(args) -> bool:
    return getattr(args, "quiet", False)


def _configure_logging(args) -> None:
    """Progress on stderr as ``privlib: message`` (stdout stays free for ``--json``)."""
    level = (
        logging.DEBUG
        if getattr(args, "verbose", False)
        else logging.WARNING
        if _quiet(args)
        else logging.INFO
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("privlib: %(message)s"))
    logger.handlers[:] = [handler]
    logger.setLevel(level)
    logger.propagate = False


#: What an interrupted or refused run leaves behind, by command; the report commands publish
#: nothing then.
_LEFT = {"notebooks": "each file in the folder is whole (copies are renamed into place)"}
_LEFT_REPORT = "the earlier report is intact"


def main(argv=None) -> int:
    """Entry point of the ``privlib`` command; returns the exit status."""
    # SIGTERM and SIGHUP (a closed terminal) end the run like Ctrl-C: through the clean-up of
    # every temporary folder. Ctrl-C gets the same handler: under Python's default one, an
    # asyncio loop (the Dask handshake, the notebook's kernel client) only cancels its task on
    # the first Ctrl-C, which a library may swallow and go on waiting. They are installed first,
    # so that a signal while the parser loads is handled too.
    previous = {
        signum: signal.signal(signum, _interrupt) for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    }
    command = None
    published = publication_count()
    # --json is looked for in the words as given, so that a usage error is answered there too
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    try:
        try:
            args = build_parser().parse_args(argv)
        except _UsageError as exc:  # one line already printed
            if as_json:
                _json_error(exc.line.removeprefix("privlib: error: "))
            return EXIT_BAD_INPUT
        except SystemExit as exc:  # --help or --version
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        command = args.command
        as_json = bool(getattr(args, "json", False))
        _configure_logging(args)
        for noisy in ("traitlets", "weasyprint", "fontTools", "asyncio", "papermill"):
            logging.getLogger(noisy).setLevel(logging.ERROR)
        return {"audit": _audit, "course": _course, "notebooks": _notebooks, "reports": _reports}[command](
            args
        )
    except PrivlibError as exc:
        from privlib.pipeline import ReportError

        if isinstance(exc, ReportError):
            _error(str(exc))
            return EXIT_FAILED
        return _refused(str(exc), as_json)
    except OSError as exc:  # the system refused (a full disk, a quota): nothing was published
        where = f" ({os.path.basename(exc.filename)!r})" if exc.filename else ""
        return _refused(
            f"the system refused: {exc.strerror or exc}{where}; free space or choose another "
            f"folder; {_left(command)}.",
            as_json,
        )
    except MemoryError:  # a measure or a synthesizer outgrew the machine: say which settings shrink it
        return _refused(
            "ran out of memory; lower --max-input-mb or --fidelity-sample, or n_train or a "
            f"synthesizer's n in the params file; {_left(command)}.",
            as_json,
        )
    except KeyboardInterrupt:
        print(f"privlib: interrupted; {_left(command, publications(after=published))}", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def command() -> NoReturn:
    """The ``privlib`` command (the console script and ``python -m privlib``): :func:`main`, then
    the exit with its status."""
    # jsonschema (loaded by nbformat, for papermill and nbconvert) imports rfc3987_syntax when it
    # is installed (Jupyter's own packages install it), which builds a grammar for a string format
    # no notebook uses: about 2 s of this process's time. Without it jsonschema skips the format.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    status = main()
    # An audit leaves millions of objects behind; the interpreter's last garbage collection would
    # free them one by one (about a second), where the system reclaims the memory at once. Frozen
    # objects are left out of it; everything the command wrote is closed and published by now.
    gc.freeze()
    sys.exit(status)


def _left(command: str | None, published: list | None = None) -> str:
    """What the command leaves in its output folder; ``published``: the publications it completed
    (:func:`privlib.publish.publications`; one interrupted midway is completed first)."""
    if published:
        places = ", ".join(repr(str(out)) for _, out, _ in published)
        return (
            f"the new report was published whole in {places} (every one of its files is new); "
            "every other file is as it was"
        )
    return _LEFT.get(command or "", _LEFT_REPORT)


def _error(message: str) -> None:
    """The one error line: whatever the message holds (line breaks included) stays on it."""
    print(f"privlib: error: {' '.join(message.split())}", file=sys.stderr)


def _refused(message: str, as_json: bool) -> int:
    """Bad input (exit status 2): the error line, and under ``--json`` the same message as one
    JSON object on stdout, where the caller reads the summary of a run that worked."""
    _error(message)
    if as_json:
        _json_error(message)
    return EXIT_BAD_INPUT


def _json_error(message: str) -> None:
    sys.stdout.write(json.dumps({"error": " ".join(message.split()), "exit": EXIT_BAD_INPUT}) + "\n")


def _interrupt(signum, frame):
    # Python ignores an exception raised inside a finalizer (a __del__ the garbage collector runs
    # between any two instructions): there the signal is sent again, to land where it stops the run.
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            main = threading.main_thread().ident
            threading.Timer(0.1, signal.pthread_kill, (main, signum)).start()
            return
        frame = frame.f_back
    raise KeyboardInterrupt


if __name__ == "__main__":
    command()
