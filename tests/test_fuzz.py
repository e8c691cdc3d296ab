"""Bad and hostile input to ``privlib audit``: one table of cases, each with its exit status and
the words its one line of error must hold; and the output folder left as it was.

The cases are those an attacker or a careless user tried (issue 17), including the ones that
already held, so that they keep holding. Every refusal happens before the notebook runs, so the
table runs in seconds.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.audit import load_audit_inputs
from privlib.cli import EXIT_BAD_INPUT, main
from privlib.errors import PrivlibError
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
    return t["synthetic"].assign(income=(t["synthetic"]["income"].astype(str) == ">50K").astype(int).astype(str) + "x")


def _spaced_race(t):
    return t["synthetic"].assign(race=" " + t["synthetic"]["race"].astype(str))


def _infinite_age(t):
    return t["synthetic"].assign(age=t["synthetic"]["age"].astype(float).where(lambda a: a.index != 3, np.inf))


def _huge_age(t):
    return t["synthetic"].assign(age=t["synthetic"]["age"].astype(float).where(lambda a: a.index != 3, 1e308))


def _half_train(t):
    return pd.concat([t["train"].iloc[:60], t["holdout"].iloc[:60]], ignore_index=True)


# case -> (how to change the inputs, extra CLI arguments, expected exit, words of the error line)
CASES = {
    "train file missing": (dict(train="absent.csv"), [], EXIT_BAD_INPUT, "does not exist"),
    "train is a folder": (dict(train="."), [], EXIT_BAD_INPUT, "is a folder"),
    "train file empty": (dict(train_text=""), [], EXIT_BAD_INPUT, "is empty"),
    "unknown key": ({}, ["--keys", "age", "nope"], EXIT_BAD_INPUT, "'nope'"),
    "key twice": ({}, ["--keys", "sex", "sex"], EXIT_BAD_INPUT, "more than once"),
    "key twice with a comma": ({}, ["--keys", "sex,sex"], EXIT_BAD_INPUT, "more than once"),
    "key is sensitive": ({}, ["--keys", "sex", "--sensitive", "sex"], EXIT_BAD_INPUT, "both as `keys`"),
    "N smaller than n": ({}, ["--population-size", "100"], EXIT_BAD_INPUT, "not larger than the training data"),
    "N equal to n": ({}, ["--population-size", "120"], EXIT_BAD_INPUT, "not larger than the training data"),
    "negative seed": ({}, ["--seed", "-1"], EXIT_BAD_INPUT, "`seed` input should be greater than or equal to 0"),
    "thresholds not JSON": ({}, ["--thresholds", "abc"], EXIT_BAD_INPUT, "--thresholds must be a JSON object"),
    "threshold key unknown": ({}, ["--thresholds", '{"nn_mia": 0.6}'], EXIT_BAD_INPUT, "the valid keys are"),
    "threshold NaN": ({}, ["--thresholds", '{"nn_mia_auc": NaN}'], EXIT_BAD_INPUT, "must be a finite number"),
    "threshold text": ({}, ["--thresholds", '{"nn_mia_auc": "abc"}'], EXIT_BAD_INPUT, "must be a finite number"),
    "holdout is train": (dict(holdout="train"), [], EXIT_BAD_INPUT, "same file as `train`"),
    "holdout copies train": (dict(holdout_table=lambda t: t["train"]), [], EXIT_BAD_INPUT, "same file as `train`"),
    "holdout overlaps train": (dict(holdout_table=_half_train), [], EXIT_BAD_INPUT, "seems to contain training records"),
    "synthetic sex lowercased": (dict(synthetic_table=_lower_sex), [], EXIT_BAD_INPUT, "looks recoded"),
    "synthetic income as codes": (dict(synthetic_table=_income_codes), [], EXIT_BAD_INPUT, "shares no category"),
    "synthetic race with a leading space": (dict(synthetic_table=_spaced_race), [], EXIT_BAD_INPUT, "looks recoded"),
    "infinite number": (dict(synthetic_table=_infinite_age), [], EXIT_BAD_INPUT, "infinite value"),
    "absurd number": (dict(synthetic_table=_huge_age), [], EXIT_BAD_INPUT, "absurdly large"),
    "duplicate header": (dict(synthetic_text=lambda text: text.replace("sex,", "age,", 1)), [], EXIT_BAD_INPUT,
                         "more than once (e.g. 'age')"),
    "garbage file": (dict(synthetic_text=lambda text: "\x00\x01\x02garbage\n,,,\n"), [], EXIT_BAD_INPUT, "synthetic"),
    "synthetic with other columns": (dict(synthetic_table=lambda t: t["synthetic"].drop(columns="age")), [],
                                     EXIT_BAD_INPUT, "'age'"),
    "out empty": (dict(out=""), [], EXIT_BAD_INPUT, "`--out` is empty"),
    "out under a file": (dict(out="afile/report"), [], EXIT_BAD_INPUT, "is a file, not a folder"),
    "out is a file": (dict(out="afile"), [], EXIT_BAD_INPUT, "exists and is not a folder"),
    "out is a link": (dict(out="link"), [], EXIT_BAD_INPUT, "symbolic link"),
}


def _run(tmp_path, tables, change: dict, extra: list, capsys):
    folder = tmp_path
    train = _csv(folder, "train.csv", tables["train"])
    holdout = _csv(folder, "holdout.csv", change.get("holdout_table", lambda t: t["holdout"])(tables))
    synthetic = _csv(folder, "synthetic.csv", change.get("synthetic_table", lambda t: t["synthetic"])(tables))
    if "synthetic_text" in change:
        Path(synthetic).write_text(change["synthetic_text"](Path(synthetic).read_text()))
    if "train_text" in change:
        Path(train).write_text(change["train_text"])
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
    argv = ["--quiet", "audit", "--train", train_arg, "--synthetic", synthetic, "--holdout", holdout_arg,
            *extra, "--out", out]
    if "--keys" not in extra:
        argv[argv.index("--out"):argv.index("--out")] = ["--keys", "age", "sex"]
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    return status, err, earlier


@pytest.mark.parametrize("case", list(CASES))
def test_bad_input_exits_with_one_line_and_touches_nothing(case, tmp_path, tables, capsys):
    change, extra, expected, words = CASES[case]
    status, err, earlier = _run(tmp_path, tables, change, extra, capsys)
    assert status == expected, (case, err)
    assert len(err) == 1 and err[0].startswith("privlib: error: "), err
    assert words in err[0], err[0]
    # The earlier report is intact, nothing was added beside it.
    assert [p.name for p in earlier.iterdir()] == ["report.html"]
    assert (earlier / "report.html").read_text() == "an earlier report"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_no_training_value_in_any_refusal(tmp_path, tables, capsys):
    """A refusal names columns and counts, never a value of the data."""
    values = {str(v) for column in ("sex", "race", "income") for v in tables["train"][column].unique()}
    for case in ("synthetic sex lowercased", "synthetic income as codes", "synthetic race with a leading space"):
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
    assert income == ["column 'income' of synthetic (synthetic.csv): 1 category the training data "
                      "lacks, in 5 row(s) (4.2%)."]  # 5 of 120 rows
    lowered = _csv(tmp_path, "lowered.csv", _lower_sex(tables))
    with pytest.raises(PrivlibError, match="looks recoded"):
        load_audit_inputs(train=train, synthetic=lowered)
    allowed = load_audit_inputs(train=train, synthetic=lowered, allow_new_categories=True)
    assert "column 'sex' of synthetic (lowered.csv): 2 categories the training data lacks, in 120 row(s) " \
        "(100.0%)." in allowed.notes


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
        "thresholds: abc": "`thresholds` must be a mapping",
        "population_size: abc": "`population_size` must be a whole number > 0",
        "title: [1, 2]": "`title` must be a text",
        "train: 5": "`train` must be the path of a CSV file",
        "seed: -3": "`seed` must be a whole number >= 0",
        "attack_share: 1.5": "`attack_share` must be a number strictly between 0 and 1",
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
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "weasyprint" else real(name, *a))
    with pytest.raises(PrivlibError, match=r"needs weasyprint: install the report extra, pip install 'privlib\[report\]'"):
        pipeline.run_audit(out=tmp_path / "out", train="t.csv", synthetic="s.csv")


def test_library_inputs_are_checked_too():
    data = pl.load_dataset("ce")
    with pytest.raises(PrivlibError, match="`n_train` must be a whole number >= 1, got 1.5"):
        pl.datasets.sample_split(data, 1.5)
    with pytest.raises(PrivlibError, match="`n_holdout` must be a whole number >= 0, got True"):
        pl.datasets.sample_split(data, 10, True)
    aware = pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2020-01-03"]).tz_localize("UTC")})
    # Time-zone aware dates are compared in UTC: two days apart over a range of two days.
    assert pl.identity.dcr(synthetic=aware.iloc[[0]], reference=aware.iloc[[1]]).tolist() == [1.0]


def test_a_schema_file_fixes_kinds_and_refuses_values_outside_it(tmp_path, tables):
    train = _csv(tmp_path, "train.csv", tables["train"])
    schema = tmp_path / "schema.yaml"
    schema.write_text("columns:\n  age: {kind: numeric, range: [17, 90]}\n"
                      "  education-num: {kind: categorical}\n  sex: {kind: categorical, categories: [Female, Male]}\n")
    inputs = load_audit_inputs(train=train, synthetic=_csv(tmp_path, "s.csv", tables["synthetic"]), schema=schema)
    assert isinstance(inputs.train["education-num"].dtype, pd.CategoricalDtype)  # codes, as stated
    old = tables["synthetic"].assign(age=tables["synthetic"]["age"].where(lambda a: a.index > 1, 130))
    with pytest.raises(PrivlibError, match=r"column 'age' of `synthetic \(old.csv\)` holds 2 value\(s\) outside"):
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
    fast = (dataclasses.replace(entry, arguments=lambda c: dict(entry.arguments(c), n_targets=1, n_shadows=4,
                                                                n_test=2, shadow_size=40, n_jobs=1)),)
    on = Audit(inputs, spec.model_copy(update={"targeted_attack": "Copy"}), catalogue=fast).run()
    result = on.result("shadow_model_auc")
    assert result is not None and result.verdict in VERDICTS  # judged by the runner
    (record,) = on.measures
    assert (record.key, record.family, record.verdict) == ("shadow_model_auc", "membership", result.verdict)
    (shown, table), = measure_tables(on, "membership")
    assert shown.key == "shadow_model_auc"
    assert list(table.columns) == ["training row", "distance to nearest record", "AUC", "ci low", "ci high"]
    assert table["training row"].between(0, 59).all()  # a row number, not the record


def test_no_planted_training_value_reaches_the_audit_outputs(tmp_path, tables, caplog):
    """Markers planted as category labels of the training and holdout data never appear in the
    metrics, the HTML fragments or the log, whatever the measures write (keys sharing no value
    with the synthetic data, unseen categories, copies)."""
    import logging

    from privlib.audit import Audit, AuditSpec, MeasureSpec
    from privlib.render import audit as render

    train, holdout = tables["train"].copy(), tables["holdout"].copy()
    for frame, tag in ((train, "TRAIN"), (holdout, "HOLD")):
        frame["race"] = frame["race"].astype(str) + f"-ZQX{tag}MARKER"
    synthetic = train.copy()  # a copy: every identity measure fires
    synthetic["race"] = "other-label"  # the key shares no value with the training data
    paths = {name: _csv(tmp_path, f"{name}.csv", t) for name, t in
             (("train", train), ("holdout", holdout), ("synthetic", synthetic))}
    settings = dict(keys=["race", "sex"], sensitive=["income"], allow_new_categories=True)
    inputs = load_audit_inputs(train=paths["train"], synthetic=paths["synthetic"], holdout=paths["holdout"],
                               **settings)
    spec = AuditSpec(train=paths["train"], synthetic=paths["synthetic"], holdout=paths["holdout"], repeats=1,
                     **settings)
    audit = Audit(inputs, spec)
    with caplog.at_level(logging.DEBUG, logger="privlib"):
        report = audit.run()
    assert caplog.records  # the run logged its progress ...
    outputs = report.to_json() + caplog.text + "".join(
        page(report) for page in (render.conclusion_html, render.verdict_html, render.rules_html,
                                  render.provenance_html, render.skipped_html)) + "".join(
        render.family_html(report, f) for f in pl.audit.FAMILIES)
    assert "MARKER" not in outputs  # ... and no label of the confidential data
    assert any(m.verdict == "risk" for m in report.measures)  # the copy is judged a risk
    # the guard itself: a message quoting a label of the data loses the label
    label = str(train["race"].iloc[0])
    assert audit.redact(f"column 'race' holds {label!r} and \"{label}\"") == "column 'race' holds '…' and '…'"

    # a measure that the data do not allow is skipped with its reason, the label blanked out
    def refuses(**_):
        raise PrivlibError(f"the value {label!r} is rare")

    rare = MeasureSpec("nn_mia_auc", "A measure the data refuse", "membership", None, refuses)
    refused = Audit(inputs, spec, catalogue=(rare,)).run()
    assert [s.reason for s in refused.skipped] == ["the data do not allow it: the value '…' is rare"]
