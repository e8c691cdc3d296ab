"""Bad and hostile input to ``privlib audit``: one table of cases, each with its exit status and
the words its one line of error must hold; and the output folder left as it was.

The cases are those an attacker or a careless user would try, including the ones that always
held, so that they keep holding. Every refusal happens before the notebook runs, so the
table runs in seconds.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.audit import load_audit_inputs
from privlib.cli import EXIT_BAD_INPUT, main
from privlib.errors import DataError, PrivlibError
from privlib.resources import resource_path
from privlib.results import VERDICTS


@pytest.fixture(scope="module")
def tables():
    """Training, holdout and synthetic samples of Adult (numbers and categories) and Ontario (dates)."""
    adult = pl.load_dataset("adult")
    rng = np.random.default_rng(3)
    order = rng.permutation(len(adult))
    train = adult.iloc[order[:120]].reset_index(drop=True)
    holdout = adult.iloc[order[120:240]].reset_index(drop=True)
    synthetic = adult.iloc[order[240:360]].reset_index(drop=True)
    ontario = pl.load_dataset("ontario_covid19").iloc[:60].reset_index(drop=True)
    return {"train": train, "holdout": holdout, "synthetic": synthetic, "ontario": ontario}


def _csv(folder: Path, name: str, table: pd.DataFrame) -> str:
    path = folder / name
    table.to_csv(path, index=False)
    return str(path)


def _lower_sex(t):
    return t["synthetic"].assign(sex=t["synthetic"]["sex"].astype(str).str.lower())


def _income_codes(t):
    return t["synthetic"].assign(
        income=(t["synthetic"]["income"].astype(str) == ">50K").astype(int).astype(str) + "x"
    )


def _spaced_race(t):
    return t["synthetic"].assign(race=" " + t["synthetic"]["race"].astype(str))


def _infinite_age(t):
    return t["synthetic"].assign(
        age=t["synthetic"]["age"].astype(float).where(lambda a: a.index != 3, np.inf)
    )


def _huge_age(t):
    return t["synthetic"].assign(age=t["synthetic"]["age"].astype(float).where(lambda a: a.index != 3, 1e308))


def _half_train(t):
    return pd.concat([t["train"].iloc[:60], t["holdout"].iloc[:60]], ignore_index=True)


def _fifo(folder):
    os.mkfifo(folder / "pipe.csv")


def _gzip_with_a_repeated_header(folder):
    text = (folder / "train.csv").read_text().replace("sex,", "age,", 1)
    with gzip.open(folder / "repeated.csv.gz", "wt") as fh:
        fh.write(text)


def _impossible_date(t):
    dates = pd.Series(pd.date_range("2020-01-01", periods=len(t["train"])).strftime("%Y-%m-%d"))
    dates[[5, 9]] = ["2020-13-45", "2021-02-30"]
    return t["train"].assign(seen=dates)


def _with_flag(flag):
    return lambda t: t["synthetic"].assign(flag=flag(np.arange(len(t["synthetic"])) % 2 == 0))


# Inputs that are not tables or hide a trap (pipes, devices, repeated headers, impossible dates,
# deep nesting); the table below adds them to the first cases.
ROUND_TWO = {
    "train is a FIFO": (dict(prepare=_fifo, train="pipe.csv"), [], EXIT_BAD_INPUT, "is a named pipe (FIFO)"),
    "train is /dev/zero": (dict(train="/dev/zero"), [], EXIT_BAD_INPUT, "is a device, not a regular file"),
    "train is /dev/null": (dict(train="/dev/null"), [], EXIT_BAD_INPUT, "is a device, not a regular file"),
    "repeated header inside a .gz file": (
        dict(prepare=_gzip_with_a_repeated_header, train="repeated.csv.gz"),
        [],
        EXIT_BAD_INPUT,
        "more than once (e.g. 'age')",
    ),
    "impossible dates": (
        dict(
            train_table=_impossible_date,
            synthetic_table=lambda t: _impossible_date({"train": t["synthetic"]}),
        ),
        [],
        EXIT_BAD_INPUT,
        "column 'seen' of `train` holds 2 value(s) written as dates that do not exist",
    ),
    "true/false against 0/1": (
        dict(
            train_table=lambda t: t["train"].assign(flag=t["train"].index % 3 == 0),
            synthetic_table=_with_flag(lambda f: f.astype(int)),
        ),
        [],
        EXIT_BAD_INPUT,
        "column 'flag' of `synthetic (synthetic.csv)` holds 120 value(s) of type number "
        "where the reference data holds true/false",
    ),
    "thresholds nested 50,000 deep": (
        {},
        ["--thresholds", "[" * 50_000 + "]" * 50_000],
        EXIT_BAD_INPUT,
        "--thresholds must be a JSON object",
    ),
    "thresholds with a 5,000-digit integer": (
        {},
        ["--thresholds", '{"nn_mia_auc": ' + "9" * 5000 + "}"],
        EXIT_BAD_INPUT,
        "(5,016 characters)",
    ),
    "out with a forged error line": (
        dict(out="o\nprivlib: error: all is well"),
        [],
        EXIT_BAD_INPUT,
        "`--out` holds a line break",
    ),
    "out is the kit's reports folder": (
        dict(out=str(resource_path("reports"))),
        [],
        EXIT_BAD_INPUT,
        "is inside the kit's own folder",
    ),
    "out inside the kit's notebooks": (
        dict(out=str(resource_path("notebooks") / "mine")),
        [],
        EXIT_BAD_INPUT,
        "is inside the kit's own folder",
    ),
    "out inside the installed package": (
        dict(out=str(Path(pl.__file__).parent / "x")),
        [],
        EXIT_BAD_INPUT,
        "is inside the kit's own folder",
    ),
}


# case -> (how to change the inputs, extra CLI arguments, expected exit, words of the error line)
CASES = {
    "train file missing": (dict(train="absent.csv"), [], EXIT_BAD_INPUT, "does not exist"),
    "train is a folder": (dict(train="."), [], EXIT_BAD_INPUT, "is a folder"),
    "train file empty": (dict(train_text=""), [], EXIT_BAD_INPUT, "is empty"),
    "unknown key": ({}, ["--keys", "age", "nope"], EXIT_BAD_INPUT, "'nope'"),
    "key twice": ({}, ["--keys", "sex", "sex"], EXIT_BAD_INPUT, "more than once"),
    "key twice with a comma": ({}, ["--keys", "sex,sex"], EXIT_BAD_INPUT, "more than once"),
    "key is sensitive": ({}, ["--keys", "sex", "--sensitive", "sex"], EXIT_BAD_INPUT, "both as `keys`"),
    "N smaller than n": (
        {},
        ["--population-size", "100"],
        EXIT_BAD_INPUT,
        "not larger than the training data",
    ),
    "N equal to n": ({}, ["--population-size", "120"], EXIT_BAD_INPUT, "not larger than the training data"),
    "negative seed": (
        {},
        ["--seed", "-1"],
        EXIT_BAD_INPUT,
        "`seed` must be a whole number >= 0 and <= 4,294,967,295",
    ),
    "thresholds not JSON": (
        {},
        ["--thresholds", "abc"],
        EXIT_BAD_INPUT,
        "--thresholds must be a JSON object",
    ),
    "threshold key unknown": ({}, ["--thresholds", '{"nn_mia": 0.6}'], EXIT_BAD_INPUT, "the valid keys are"),
    "threshold NaN": ({}, ["--thresholds", '{"nn_mia_auc": NaN}'], EXIT_BAD_INPUT, "must be a finite number"),
    "threshold text": (
        {},
        ["--thresholds", '{"nn_mia_auc": "abc"}'],
        EXIT_BAD_INPUT,
        "must be a finite number",
    ),
    "holdout is train": (dict(holdout="train"), [], EXIT_BAD_INPUT, "same file as `train`"),
    "holdout copies train": (
        dict(holdout_table=lambda t: t["train"]),
        [],
        EXIT_BAD_INPUT,
        "same file as `train`",
    ),
    "holdout overlaps train": (
        dict(holdout_table=_half_train),
        [],
        EXIT_BAD_INPUT,
        "seems to contain training records",
    ),
    "synthetic sex lowercased": (dict(synthetic_table=_lower_sex), [], EXIT_BAD_INPUT, "looks recoded"),
    "synthetic income as codes": (
        dict(synthetic_table=_income_codes),
        [],
        EXIT_BAD_INPUT,
        "shares no category",
    ),
    "synthetic race with a leading space": (
        dict(synthetic_table=_spaced_race),
        [],
        EXIT_BAD_INPUT,
        "looks recoded",
    ),
    "infinite number": (dict(synthetic_table=_infinite_age), [], EXIT_BAD_INPUT, "infinite value"),
    "absurd number": (dict(synthetic_table=_huge_age), [], EXIT_BAD_INPUT, "absurdly large"),
    "duplicate header": (
        dict(synthetic_text=lambda text: text.replace("sex,", "age,", 1)),
        [],
        EXIT_BAD_INPUT,
        "more than once (e.g. 'age')",
    ),
    "garbage file": (
        dict(synthetic_text=lambda text: "\x00\x01\x02garbage\n,,,\n"),
        [],
        EXIT_BAD_INPUT,
        "synthetic",
    ),
    "synthetic with other columns": (
        dict(synthetic_table=lambda t: t["synthetic"].drop(columns="age")),
        [],
        EXIT_BAD_INPUT,
        "'age'",
    ),
    "out empty": (dict(out=""), [], EXIT_BAD_INPUT, "`--out` is empty"),
    "out under a file": (dict(out="afile/report"), [], EXIT_BAD_INPUT, "is a file, not a folder"),
    "out is a file": (dict(out="afile"), [], EXIT_BAD_INPUT, "exists and is not a folder"),
    "out is a link": (dict(out="link"), [], EXIT_BAD_INPUT, "symbolic link"),
    **ROUND_TWO,
}


def _run(tmp_path, tables, change: dict, extra: list, capsys):
    folder = tmp_path
    train = _csv(folder, "train.csv", change.get("train_table", lambda t: t["train"])(tables))
    holdout = _csv(folder, "holdout.csv", change.get("holdout_table", lambda t: t["holdout"])(tables))
    synthetic = _csv(folder, "synthetic.csv", change.get("synthetic_table", lambda t: t["synthetic"])(tables))
    if "synthetic_text" in change:
        Path(synthetic).write_text(change["synthetic_text"](Path(synthetic).read_text()))
    if "train_text" in change:
        Path(train).write_text(change["train_text"])
    change.get("prepare", lambda _: None)(folder)
    (folder / "afile").write_text("a file, not a folder")
    earlier = folder / "earlier"
    earlier.mkdir()
    (earlier / "report.html").write_text("an earlier report")
    os.symlink(earlier, folder / "link")
    roles = {"train": train, "holdout": holdout, "synthetic": synthetic}
    out = change.get("out", str(earlier))
    out = out if out in ("",) else str(folder / out) if not os.path.isabs(out) else out
    train_arg = change.get("train", train)
    train_arg = roles.get(train_arg, train_arg if os.path.isabs(train_arg) else str(folder / train_arg))
    holdout_arg = roles.get(change.get("holdout", "holdout"))
    argv = [
        "--quiet",
        "audit",
        "--train",
        train_arg,
        "--synthetic",
        synthetic,
        "--holdout",
        holdout_arg,
        *extra,
        "--out",
        out,
    ]
    if "--keys" not in extra:
        argv[argv.index("--out") : argv.index("--out")] = ["--keys", "age", "sex"]
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return status, err, earlier


#: Cases run as typed, with every format: the notebook's kernel starts before the tables are read
#: (it boots while the audit computes) and a refusal must stop it and leave nothing. One case of
#: each kind of check; the others ask for metrics.json only (the same checks, in the same order,
#: without starting a kernel per case).
EVERY_FORMAT = {"train file missing", "key twice", "holdout copies train", "threshold NaN", "out is a link"}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_exits_with_one_line_and_touches_nothing(case, tmp_path, tables, capsys):
    change, extra, expected, words = CASES[case]
    formats = [] if case in EVERY_FORMAT else ["--formats", "json"]
    status, err, earlier = _run(tmp_path, tables, change, [*extra, *formats], capsys)
    assert status == expected, (case, err)
    assert len(err) == 1 and err[0].startswith("privlib: error: "), err
    assert words in err[0], err[0]
    # The earlier report is intact, nothing was added beside it.
    assert [p.name for p in earlier.iterdir()] == ["report.html"]
    assert (earlier / "report.html").read_text() == "an earlier report"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.slow
def test_no_training_value_in_any_refusal(tmp_path, tables, capsys):
    """A refusal names columns and counts, never a value of the data."""
    values = {str(v) for column in ("sex", "race", "income") for v in tables["train"][column].unique()}
    for case in (
        "synthetic sex lowercased",
        "synthetic income as codes",
        "synthetic race with a leading space",
    ):
        change, extra, _, _ = CASES[case]
        folder = tmp_path / case.replace(" ", "_")
        folder.mkdir()
        _, err, _ = _run(folder, tables, change, extra, capsys)
        message = err[0]
        assert not [v for v in values if f"'{v}'" in message or f'"{v}"' in message], message


def test_new_categories_are_reported_with_counts_and_recoded_ones_pass_when_allowed(tmp_path, tables):
    train = _csv(tmp_path, "train.csv", tables["train"])
    unknown = tables["synthetic"].assign(income=tables["synthetic"]["income"].astype(str))
    unknown.loc[:4, "income"] = "?"  # a missing-value marker the training data does not use
    synthetic = _csv(tmp_path, "synthetic.csv", unknown)
    inputs = load_audit_inputs(train=train, synthetic=synthetic)
    income = [note for note in inputs.notes if note.startswith("column 'income'")]
    assert income == [
        "column 'income' of synthetic (synthetic.csv): 1 category the training data "
        "lacks, in 5 row(s) (4.2%)."
    ]  # 5 of 120 rows
    lowered = _csv(tmp_path, "lowered.csv", _lower_sex(tables))
    with pytest.raises(PrivlibError, match="looks recoded"):
        load_audit_inputs(train=train, synthetic=lowered)
    allowed = load_audit_inputs(train=train, synthetic=lowered, allow_new_categories=True)
    assert (
        "column 'sex' of synthetic (lowered.csv): 2 categories the training data lacks, in 120 row(s) "
        "(100.0%)." in allowed.notes
    )


def test_unparsable_dates_and_other_delimiters(tmp_path, tables):
    ontario = tables["ontario"]
    train = _csv(tmp_path, "train.csv", ontario)
    broken = ontario.astype({"Accurate_Episode_Date": str})
    broken.loc[2, "Accurate_Episode_Date"] = "not a date"
    with pytest.raises(PrivlibError, match="1 value\\(s\\) that are not dates"):
        load_audit_inputs(train=train, synthetic=_csv(tmp_path, "broken.csv", broken))
    semicolons = tmp_path / "semicolons.csv"
    ontario.to_csv(semicolons, index=False, sep=";")
    inputs = load_audit_inputs(train=train, synthetic=semicolons)
    assert list(inputs.primary.columns) == list(ontario.columns)


def test_params_files_of_the_wrong_type_are_refused_before_anything_runs(tmp_path, capsys):
    cases = {
        "thresholds: abc": "`thresholds` must map measure names to numbers",
        "population_size: abc": "`population_size` must be a whole number > 0",
        "title: [1, 2]": "`title` must be a text",
        "train: 5": "`train` must be the path of a CSV file",
        "seed: -3": "`seed` must be a whole number >= 0",
        "attack_share: 1.5": "`attack_share` must be a number > 0 and < 1",
    }
    for line, words in cases.items():
        params = tmp_path / "p.yaml"
        params.write_text(f"dataset: ce\nn_train: 100\nsynthesizers: [{{method: Copy}}]\n{line}\n")
        status = main(["--quiet", "audit", "--params", str(params), "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == EXIT_BAD_INPUT and len(err) == 1 and words in err[0], (line, err)
        assert not (tmp_path / "out").exists()


def test_a_missing_report_extra_is_named(monkeypatch, tmp_path):
    import importlib.util

    from privlib import pipeline

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "weasyprint" else real(name, *a)
    )
    with pytest.raises(
        PrivlibError, match=r"needs weasyprint: install the report extra, pip install 'privlib\[report\]'"
    ):
        pipeline.run_audit(out=tmp_path / "out", train="t.csv", synthetic="s.csv")


def test_library_inputs_are_checked_too():
    data = pl.load_dataset("ce")
    with pytest.raises(PrivlibError, match="`n_train` must be a whole number >= 1, got 1.5"):
        pl.datasets.sample_split(data, 1.5)
    with pytest.raises(PrivlibError, match="`n_holdout` must be a whole number >= 0, got True"):
        pl.datasets.sample_split(data, 10, True)
    aware = pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2020-01-03"]).tz_localize("UTC")})
    # Time-zone aware dates are compared in UTC: two days apart over a range of two days.
    assert pl.identity.dcr(synthetic=aware.iloc[[0]], train=aware.iloc[[1]]).tolist() == [1.0]


def test_a_schema_file_fixes_kinds_and_refuses_values_outside_it(tmp_path, tables):
    train = _csv(tmp_path, "train.csv", tables["train"])
    schema = tmp_path / "schema.yaml"
    schema.write_text(
        "columns:\n  age: {kind: numeric, range: [17, 90]}\n"
        "  education-num: {kind: categorical}\n  sex: {kind: categorical, categories: [Female, Male]}\n"
    )
    inputs = load_audit_inputs(
        train=train, synthetic=_csv(tmp_path, "s.csv", tables["synthetic"]), schema=schema
    )
    assert isinstance(inputs.train["education-num"].dtype, pd.CategoricalDtype)  # codes, as stated
    old = tables["synthetic"].assign(age=tables["synthetic"]["age"].where(lambda a: a.index > 1, 130))
    with pytest.raises(
        PrivlibError, match=r"column 'age' of `synthetic \(old.csv\)` holds 2 value\(s\) outside"
    ):
        load_audit_inputs(train=train, synthetic=_csv(tmp_path, "old.csv", old), schema=schema)
    other = tables["synthetic"].astype({"sex": str})
    other.loc[:2, "sex"] = "X"
    with pytest.raises(PrivlibError, match="holds 3 value\\(s\\) that are not among the stated categories"):
        load_audit_inputs(train=train, synthetic=_csv(tmp_path, "other.csv", other), schema=schema)
    schema.write_text("columns:\n  age: {kind: number}\n")
    with pytest.raises(PrivlibError, match="give `kind`"):
        load_audit_inputs(train=train, synthetic=train, schema=schema)


def test_an_unknown_targeted_attack_generator_is_refused_before_anything_runs(tmp_path, tables, capsys):
    status, err, earlier = _run(tmp_path, tables, {}, ["--targeted-attack", "NoSuchSynthesizer"], capsys)
    assert status == EXIT_BAD_INPUT and "unknown synthesizer" in err[0], err
    assert [p.name for p in earlier.iterdir()] == ["report.html"]


def test_the_targeted_attack_runs_from_the_catalogue_and_shows_no_record(tmp_path, tables):
    from privlib.audit import CATALOGUE, Audit, AuditSpec
    from privlib.render.audit import measure_tables

    # columns that vary in small samples (capital gains are mostly 0: a shadow set may hold one value)
    kept = ["age", "education", "sex", "hours-per-week", "income"]
    train = _csv(tmp_path, "train.csv", tables["train"][kept].iloc[:60])
    holdout = _csv(tmp_path, "holdout.csv", tables["holdout"][kept])
    synthetic = _csv(tmp_path, "synthetic.csv", tables["synthetic"][kept])
    inputs = load_audit_inputs(train=train, synthetic=synthetic, holdout=holdout)
    entry = next(e for e in CATALOGUE if e.key == "shadow_model_auc")
    spec = AuditSpec(train=train, synthetic=synthetic, holdout=holdout)
    off = Audit(inputs, spec, catalogue=(entry,)).run()
    assert not off.measures and off.skipped[0].key == "shadow_model_auc"
    assert off.skipped[0].reason.startswith("no generator was given for the targeted attack")
    fast = (
        dataclasses.replace(
            entry,
            arguments=lambda c: dict(
                entry.arguments(c), n_targets=1, n_shadows=4, n_test=2, shadow_size=40, n_jobs=1
            ),
        ),
    )
    on = Audit(inputs, spec.model_copy(update={"targeted_attack": "Copy"}), catalogue=fast).run()
    result = on.result("shadow_model_auc")
    assert result is not None and result.verdict in VERDICTS  # judged by the runner
    (record,) = on.measures
    assert (record.key, record.family, record.verdict) == ("shadow_model_auc", "membership", result.verdict)
    ((shown, table),) = measure_tables(on, "membership")
    assert shown.key == "shadow_model_auc"
    assert list(table.columns) == [
        "training row",
        "distance to nearest record",
        "AUC",
        "ci low",
        "ci high",
        "p",
        "adjusted p",
    ]
    assert table["training row"].between(0, 59).all()  # a row number, not the record


@pytest.mark.slow
def test_no_planted_training_value_reaches_the_audit_outputs(tmp_path, tables, caplog):
    """Markers planted as category labels of the training and holdout data never appear in the
    metrics, the HTML fragments or the log, whatever the measures write (keys sharing no value
    with the synthetic data, unseen categories, copies)."""
    import logging

    from privlib.audit import Audit, AuditSpec, MeasureSpec
    from privlib.render import audit as render
    from privlib.render import audit_pages as pages

    train, holdout = tables["train"].copy(), tables["holdout"].copy()
    for frame, tag in ((train, "TRAIN"), (holdout, "HOLD")):
        frame["race"] = frame["race"].astype(str) + f"-ZQX{tag}MARKER"
    synthetic = train.copy()  # a copy: every identity measure fires
    synthetic["race"] = "other-label"  # the key shares no value with the training data
    paths = {
        name: _csv(tmp_path, f"{name}.csv", t)
        for name, t in (("train", train), ("holdout", holdout), ("synthetic", synthetic))
    }
    settings = dict(keys=["race", "sex"], sensitive=["income"], allow_new_categories=True)
    inputs = load_audit_inputs(
        train=paths["train"], synthetic=paths["synthetic"], holdout=paths["holdout"], **settings
    )
    spec = AuditSpec(
        train=paths["train"], synthetic=paths["synthetic"], holdout=paths["holdout"], repeats=1, **settings
    )
    audit = Audit(inputs, spec)
    with caplog.at_level(logging.DEBUG, logger="privlib"):
        report = audit.run()
    assert caplog.records  # the run logged its progress ...
    outputs = (
        report.to_json()
        + caplog.text
        + "".join(page(report) for page in (render.provenance_html, render.summary_html))
        + "".join(
            page(report)
            for page in (
                pages.decision_html,
                pages.verdict_lines_html,
                pages.readings_html,
                pages.appendix_html,
                pages.audit_page_html,
            )
        )
    )
    assert "MARKER" not in outputs  # ... and no label of the confidential data
    assert any(m.verdict == "risk" for m in report.measures)  # the copy is judged a risk
    # the guard itself: a message quoting a label of the data loses the label
    label = str(train["race"].iloc[0])
    assert audit.redact(f"column 'race' holds {label!r} and \"{label}\"") == "column 'race' holds '…' and '…'"

    # a measure that the data do not allow is skipped with its reason, the label blanked out
    def refuses(**_):
        raise DataError(f"the value {label!r} is rare")

    rare = MeasureSpec("nn_mia_auc", "A measure the data refuse", "membership", None, refuses)
    refused = Audit(inputs, spec, catalogue=(rare,)).run()
    assert [s.reason for s in refused.skipped] == ["the data do not allow it: the value '…' is rare"]


# --------------------------------------------------------------------------------------------
# Params files read as data only, every count checked before any work
# --------------------------------------------------------------------------------------------
_ENTRY = "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy}]\n"
# 513 bytes of nested aliases: nine levels of nine references, 9**9 strings once expanded
_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{b}: &{b} [{','.join(['*' + a] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")
)

PARAMS_CASES = {
    "a 5,000-digit integer": (
        _ENTRY + "seed: " + "9" * 5000 + "\n",
        "an integer of 5000 digits is longer than the 30",
    ),
    "Latin-1 text": ((_ENTRY + "title: Caf\xe9\n").encode("latin-1"), "is not UTF-8 text (byte"),
    "aliases": (_LAUGHS, "anchors and aliases (& and *) are not accepted"),
    "a !!binary tag": (
        "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy, params: {x: !!binary aGk=}}]\n",
        "tags such as 'binary' are not accepted",
    ),
    "a python tag": (
        "dataset: ce\nn_train: 100\ntitle: !!python/object/apply:os.system [echo hi]\n"
        "synthesizers: [{method: Copy}]\n",
        "tags such as 'os.system' are not accepted",
    ),
    "a set value in an entry": (
        "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy, params: {x: !!set {a}}}]\n",
        "tags such as 'set' are not accepted",
    ),
    "a date value in an entry": (
        "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy, params: {x: 2020-01-01}}]\n",
        "synthesizer 1: parameter 'x' holds date; give a number, a text",
    ),
    "a mapping value in an entry": (
        "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy, params: {x: [1, {a: 2}]}}]\n",
        "parameter 'x' holds dict",
    ),
    "an extra field in an entry": (
        "dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy, code: 1}]\n",
        "synthesizer 1 has unknown field(s) ['code']; an entry has only ['method', 'params', 'n']",
    ),
    "n of 0": (
        _ENTRY.replace("{method: Copy}", "{method: Copy, n: 0}"),
        "`n` must be a whole number from 1 to 10,000,000",
    ),
    "n of true": (_ENTRY.replace("{method: Copy}", "{method: Copy, n: true}"), "`n` must be a whole number"),
    "n of 1e12": (
        _ENTRY.replace("{method: Copy}", "{method: Copy, n: 1000000000000}"),
        "`n` must be a whole number",
    ),
    "an unknown synthesizer": (_ENTRY.replace("Copy", "NoSuch"), "unknown synthesizer 'NoSuch'"),
    "eleven synthesizers": (
        "dataset: ce\nn_train: 100\nsynthesizers: [" + ", ".join(["{method: Copy}"] * 11) + "]\n",
        "lists 11 synthesizers, more than the 10 a report compares",
    ),
    "a file over 1 MB": (_ENTRY + "# " + "x" * (1 << 20) + "\n", "more than the 1,048,576 accepted"),
    "nested 100,000 deep": ("a: " + "[" * 100_000 + "]" * 100_000 + "\n", "nested too deeply"),
}


@pytest.mark.parametrize("case", list(PARAMS_CASES))
def test_hostile_params_files_are_refused_in_one_line_before_any_work(case, tmp_path, capsys):
    content, words = PARAMS_CASES[case]
    params = tmp_path / "p.yaml"
    if isinstance(content, bytes):
        params.write_bytes(content)
    else:
        params.write_text(content, encoding="utf-8")
    status = main(["--quiet", "audit", "--params", str(params), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == EXIT_BAD_INPUT and len(err) == 1 and err[0].startswith("privlib: error: "), (case, err)
    assert words in err[0], err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.yaml"]  # no output, no staging, no lock


def test_a_params_file_that_is_a_fifo_or_a_folder_is_named_so(tmp_path, capsys):
    os.mkfifo(tmp_path / "p.yaml")
    for path, words in (
        (tmp_path / "p.yaml", "is a named pipe (FIFO)"),
        (tmp_path, "is a folder; give the path of a YAML file"),
    ):
        status = main(["--quiet", "audit", "--params", str(path), "--out", str(tmp_path / "out")])
        err = capsys.readouterr().err.strip().splitlines()
        assert status == EXIT_BAD_INPUT and len(err) == 1 and words in err[0], err


def test_a_schema_file_is_read_as_strictly(tmp_path, tables):
    train = _csv(tmp_path, "train.csv", tables["train"])
    schema = tmp_path / "schema.yaml"
    schema.write_text("columns:\n  age: &k {kind: numeric}\n  fnlwgt: *k\n")
    with pytest.raises(PrivlibError, match="anchors and aliases"):
        load_audit_inputs(train=train, synthetic=train, schema=schema)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--seed", "-5"], "`seed` must be a whole number >= 0 and <= 4,294,967,295, got -5"),
        (["--seed", str(2**64)], "`seed` must be a whole number >= 0 and <= 4,294,967,295, got 1844"),
        (["--dataset", "/dev/zero"], "'/dev/zero' (`dataset`) is a device, not a regular file"),
        (["--lessons", ""], "`lessons` holds an empty name"),
        (["--lessons", "00", " "], "`lessons` holds an empty name"),
    ],
)
def test_course_arguments_are_checked_before_any_lesson_runs(argv, words, tmp_path, capsys):
    status = main(["--quiet", "course", "--dataset", "ce", *argv, "--out", str(tmp_path / "course")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == EXIT_BAD_INPUT and len(err) == 1 and words in err[0], err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_an_unreachable_dask_scheduler_is_refused_before_any_work(tmp_path, tables, capsys):
    pytest.importorskip("distributed")
    import socket

    with socket.socket() as probe:  # a port nothing listens on: bound, never listening
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
        status, err, earlier = _run(tmp_path, tables, {}, ["--dask-scheduler", address], capsys)
    assert status == EXIT_BAD_INPUT and len(err) == 1, err
    assert f"the Dask scheduler '{address}' gave no answer" in err[0]
    assert [p.name for p in earlier.iterdir()] == ["report.html"]


# --------------------------------------------------------------------------------------------
# Files read as what they are
# --------------------------------------------------------------------------------------------
def test_compressed_files_are_sniffed_after_decompression(tmp_path, tables):
    plain = _csv(tmp_path, "train.csv", tables["train"])
    for name, opener in (
        ("semi.csv.gz", gzip.open),
        ("semi.csv.bz2", __import__("bz2").open),
        ("semi.csv.xz", __import__("lzma").open),
    ):
        with opener(tmp_path / name, "wt") as fh:
            tables["synthetic"].to_csv(fh, index=False, sep=";")
        inputs = load_audit_inputs(train=plain, synthetic=tmp_path / name)
        assert list(inputs.primary.columns) == list(tables["train"].columns), name
        assert len(inputs.primary) == len(tables["synthetic"])


def test_a_file_named_gz_that_is_not_is_one_line(tmp_path, tables):
    (tmp_path / "fake.csv.gz").write_text("age,sex\n1,F\n")
    with pytest.raises(PrivlibError, match=r"cannot be read as its name says \(BadGzipFile\)"):
        load_audit_inputs(train=tmp_path / "fake.csv.gz", synthetic=tmp_path / "fake.csv.gz")


def test_a_header_line_without_end_is_refused_after_one_megabyte(tmp_path):
    (tmp_path / "wide.csv").write_text("a" * (1 << 20) + ",b\n1,2\n")
    with pytest.raises(PrivlibError, match="has no line break in its first 1,048,576 characters"):
        load_audit_inputs(train=tmp_path / "wide.csv", synthetic=tmp_path / "wide.csv")


def test_a_one_row_synthetic_table_is_too_small_not_recoded(tmp_path, tables):
    train = _csv(tmp_path, "train.csv", tables["train"])
    one = tables["synthetic"].iloc[:1].assign(sex="unknown-label")
    inputs = load_audit_inputs(train=train, synthetic=_csv(tmp_path, "one.csv", one))
    assert inputs.problem == "the synthetic data 'one' has 1 row(s) (at least 20 are needed)"
    assert (
        "column 'sex' of synthetic (one.csv): 1 category the training data lacks, in 1 row(s) (100.0%)."
        in inputs.notes
    )


def test_parquet_decimals_are_numbers_and_match_a_csv(tmp_path, tables):
    import decimal

    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    frame = tables["train"][["age", "sex", "hours-per-week"]].assign(
        price=[decimal.Decimal(f"{i * 1.25:.2f}") for i in range(len(tables["train"]))]
    )
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "train.parquet")
    frame.assign(price=frame["price"].astype(float)).to_csv(tmp_path / "synthetic.csv", index=False)
    holdout = tables["holdout"][["age", "sex", "hours-per-week"]].assign(price=decimal.Decimal("2.50"))
    pq.write_table(pa.Table.from_pandas(holdout), tmp_path / "holdout.parquet")
    inputs = load_audit_inputs(
        train=tmp_path / "train.parquet",
        synthetic=tmp_path / "synthetic.csv",
        holdout=tmp_path / "holdout.parquet",
    )
    assert inputs.train["price"].dtype == "float64" and inputs.train["price"].iloc[3] == 3.75
    assert inputs.primary["price"].dtype == "float64"


@pytest.mark.parametrize(
    "argv",
    [
        ["course", "--dataset", "ce", "--out", str(resource_path("notebooks"))],
        ["reports", "--datasets", "ce", "--out", str(resource_path("reports") / "params")],
        ["reports", "--datasets", "ce", "--out", str(resource_path("data") / "ce")],
    ],
)
def test_course_and_reports_refuse_the_kits_own_folders_too(argv, capsys):
    shipped = sorted(p.name for p in Path(argv[-1]).iterdir())
    status = main(["--quiet", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == EXIT_BAD_INPUT and len(err) == 1 and "is inside the kit's own folder" in err[0], err
    assert sorted(p.name for p in Path(argv[-1]).iterdir()) == shipped


# --------------------------------------------------------------------------------------------
# The API's frames checked like files; causes named
# --------------------------------------------------------------------------------------------
def _relabelled(frame: pd.DataFrame, labels) -> pd.DataFrame:
    copy = frame.copy()
    copy.columns = labels
    return copy


@pytest.mark.parametrize(
    "make, words",
    [
        (
            lambda t: _relabelled(t, pd.MultiIndex.from_tuples([("x", c) for c in t.columns])),
            "`train` has 2 levels of column labels (a MultiIndex)",
        ),
        (
            lambda t: _relabelled(t, [np.nan, *t.columns[1:]]),
            "1 column label(s) that are not texts (missing (NaN))",
        ),
        (lambda t: _relabelled(t, [0, 1, *t.columns[2:]]), "2 column label(s) that are not texts (int)"),
        (lambda t: _relabelled(t, [t.columns[1], *t.columns[1:]]), "1 column label(s) used more than once"),
    ],
)
def test_frames_from_python_need_distinct_text_labels(make, words, tables):
    with pytest.raises(PrivlibError) as refused:
        pl.audit.run(train=make(tables["train"]), synthetic=tables["synthetic"])
    message = str(refused.value)
    assert words in message and "\n" not in message, message


def test_whole_numbers_beyond_64_bits_are_refused_as_such(tables, tmp_path):
    train = tables["train"].assign(age=tables["train"]["age"].astype(object))
    train.loc[3, "age"] = 2**70
    for table in (train, _csv(tmp_path, "train.csv", train)):  # a DataFrame, and a file
        with pytest.raises(PrivlibError) as refused:
            load_audit_inputs(train=table, synthetic=tables["synthetic"])
        message = str(refused.value)
        assert "column 'age' of `train` holds 1 whole number(s) beyond the 64-bit range" in message, message
        assert str(2**70) not in message


def test_synthetic_keys_must_be_texts(tables):
    with pytest.raises(PrivlibError) as refused:
        pl.audit.run(train=tables["train"], synthetic={("a", 1): tables["synthetic"]})
    message = str(refused.value)
    assert message.startswith("`synthetic` must name its tables with texts; 1 of its keys are not (tuple)")
    assert "dict[" not in message and "function-after" not in message  # no pydantic location text


def test_thousands_separators_are_named_as_the_cause(tables, tmp_path):
    train = tables["train"]
    written = train.assign(fnlwgt=train["fnlwgt"].map(lambda v: f"{v:,}"))
    with pytest.raises(PrivlibError) as refused:
        load_audit_inputs(train=_csv(tmp_path, "t.csv", train), synthetic=_csv(tmp_path, "s.csv", written))
    grouped = int((train["fnlwgt"] >= 1000).sum())  # every fnlwgt of Adult has four digits or more
    assert f"{grouped} written with thousands separators" in str(refused.value)
    # a categorical column of codes (few distinct whole numbers) written 1,000 looks recoded: why is named
    codes = train.assign(band=np.where(train["age"] > 40, 2000, 1000))
    grouped_codes = codes.assign(band=codes["band"].map(lambda v: f"{v:,}"))
    with pytest.raises(PrivlibError) as refused:
        load_audit_inputs(
            train=_csv(tmp_path, "t2.csv", codes), synthetic=_csv(tmp_path, "s2.csv", grouped_codes)
        )
    assert "2 of them are numbers written with thousands separators" in str(refused.value)


@pytest.mark.parametrize(
    "name, params, words",
    [
        ("MST", {"n_bins": 300_000_000}, "`n_bins` must be a whole number >= 2 and <= 1000"),
        ("SequentialTrees", {"min_samples_leaf": 0}, "`min_samples_leaf` must be a whole number >= 1"),
        ("OutlierCopies", {"base": "OutlierCopies"}, "`base` must be one of"),
        ("AdditiveNoise", {"flip_prob": 2.0}, "`flip_prob` must be a number >= 0 and <= 1"),
        # values within the checks that would overflow later: a C integer, a budget
        # that rounds to zero, an exponential, noise beyond the range of dates and integers
        (
            "SequentialTrees",
            {"min_samples_leaf": 10**29},
            "`min_samples_leaf` must be a whole number >= 1 and <= 1000000000",
        ),
        ("MST", {"epsilon": 1e-300}, "`epsilon` must be a number >= 0.0001 and <= 100"),
        ("MST", {"epsilon": 1e300}, "`epsilon` must be a number >= 0.0001 and <= 100"),
        ("AdditiveNoise", {"noise_scale": 1e300}, "`noise_scale` must be a number >= 0 and <= 10"),
        ("ParzenWindows", {"bandwidth": 1e300}, "`bandwidth` must be a number > 0 and <= 10"),
    ],
)
def test_synthesizers_check_their_parameters_when_made(name, params, words):
    with pytest.raises(PrivlibError) as refused:
        pl.synth.make(name, **params)
    assert words in str(refused.value)
