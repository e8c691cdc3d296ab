"""privlib.audit and privlib.pipeline: inputs, the catalogue runner, params files, the course."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import nbformat
import numpy as np
import pandas as pd
import pytest

import privlib.render.audit  # noqa: F401  (who renders registers the report's pages)
from privlib import attribute, membership, utility
from privlib.audit import (
    CATALOGUE,
    FAMILIES,
    MIN_ROWS,
    Audit,
    AuditError,
    AuditSpec,
    MeasureSpec,
    comparable_metrics,
    load_audit_inputs,
    metrics_schema,
    read_params,
    run,
    sha256,
)
from privlib.audit.report import NOT_ASSESSED
from privlib.declaration import release
from privlib.errors import DataError, ParameterError, PrivlibError
from privlib.pipeline import params_file, run_course
from privlib.results import NO_EVIDENCE, RISK, Result
from privlib.thresholds import REGISTRY

SHIPPED_SCHEMA = Path(__file__).parents[1] / "privlib" / "audit" / "metrics.schema.json"


def _write(folder: Path, name: str, table: pd.DataFrame) -> Path:
    path = folder / name
    table.to_csv(path, index=False)
    return path


@pytest.fixture
def files(tmp_path):
    train = pd.DataFrame({"age": range(20, 60), "sex": ["F", "M"] * 20, "ill": ["y", "n", "n", "n"] * 10})
    synthetic = train.assign(age=train["age"] + 1)
    return {
        "train": _write(tmp_path, "train.csv", train),
        "synthetic": _write(tmp_path, "synthetic.csv", synthetic),
        "holdout": _write(tmp_path, "holdout.csv", synthetic.head(30)),
        "folder": tmp_path,
    }


def test_inputs_are_read_with_the_training_data_types(files):
    inputs = load_audit_inputs(
        train=files["train"],
        synthetic=[files["synthetic"], files["synthetic"]],
        holdout=files["holdout"],
        population_size=1000,
        keys=["age", "sex"],
        sensitive="ill",
    )
    assert inputs.assessable and inputs.problem is None
    assert list(inputs.synthetic) == ["synthetic", "synthetic_2"]  # one label per file
    assert inputs.keys == ["age", "sex"] and inputs.sensitive == ["ill"]
    assert isinstance(inputs.primary["sex"].dtype, pd.CategoricalDtype)
    assert len(inputs.holdout) == 30


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(keys=["age", "weight"]), "'weight'"),
        (dict(sensitive=["sex"], keys=["sex"]), "both as `keys` and as `sensitive`"),
        (dict(population_size=39), "not larger than the training data (40 rows)"),
        (dict(population_size=40), "not larger than the training data (40 rows)"),
        (dict(population_size=1000.5), "whole number"),
        (dict(synthetic=[]), "`synthetic` is required"),
    ],
)
def test_bad_inputs_name_the_problem(files, change, message):
    args = dict(train=files["train"], synthetic=files["synthetic"]) | change
    with pytest.raises(PrivlibError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_audit_inputs(**args)


def test_synthetic_with_other_columns_or_text_in_a_numeric_column_is_refused(files):
    table = pd.read_csv(files["synthetic"])
    extra = _write(files["folder"], "extra.csv", table.assign(weight=1.0))
    with pytest.raises(PrivlibError, match=r"\['weight'\] only in `synthetic \(extra.csv\)`"):
        load_audit_inputs(train=files["train"], synthetic=extra)
    text = _write(files["folder"], "text.csv", table.assign(age="old"))
    n = len(table)  # every age is "old": n values of n are not numbers, and none is quoted
    with pytest.raises(
        PrivlibError, match=rf"column 'age' holds numbers in `train` but {n} of its {n} value\(s\)"
    ):
        load_audit_inputs(train=files["train"], synthetic=text)


def test_small_tables_are_not_assessable_and_a_small_holdout_is_set_aside(files):
    table = pd.read_csv(files["synthetic"])
    one = _write(files["folder"], "one.csv", table.head(1))
    inputs = load_audit_inputs(train=files["train"], synthetic=one)
    assert not inputs.assessable
    assert inputs.problem == f"the synthetic data 'one' has 1 row(s) (at least {MIN_ROWS} are needed)"
    small = _write(files["folder"], "small.csv", table.head(MIN_ROWS - 1))
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"], holdout=small)
    assert inputs.assessable and inputs.holdout is None
    assert "holdout has 19 row(s)" in inputs.notes[0]


@dataclass(frozen=True, kw_only=True)
class _Fake(Result):
    pass


def _spec(key, family="identity", needs=(), rule_of=None, **result):
    """A declaration whose function returns a fixed result under ``key`` (or raises what it is
    given), judged by the rule registered for ``rule_of`` (default: ``key``)."""

    def function():
        if isinstance(result.get("raises"), Exception):
            raise result["raises"]
        return _Fake(measure=result.pop("measure", key), **result)

    return MeasureSpec(key, key.title(), family, REGISTRY.get(rule_of or key), function, needs=needs)


def _audit(inputs, catalogue, **settings):
    spec = AuditSpec.build(train="train.csv", synthetic=["synthetic.csv"], **settings)
    return Audit(inputs, spec, catalogue=tuple(catalogue)).run()


def test_audit_judges_each_result_once_with_the_overrides_and_records_skips(files):
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"], keys=["sex"])
    catalogue = [
        # 0.7 with interval [0.65, 0.75] lies wholly above the override 0.5: risk.
        _spec("nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5),
        # The registry's kit default for the DCR share: baseline 0.5 plus a margin.
        _spec("dcr_holdout_share", "membership", value=0.5, ci_low=0.48, ci_high=0.52, baseline=0.5),
        _spec("privacy_loss", "membership", needs=("holdout",), value=1.0),
        _spec("cap", "attribute", raises=DataError("too few distinct values")),
        MeasureSpec("expected_match_risk", "Never", "identity", None, not_applicable="it does not apply"),
    ]
    report = _audit(inputs, catalogue, thresholds={"nn_mia_auc": 0.5})
    mine, share = (
        next(m for m in report.measures if m.key == k) for k in ("nn_mia_auc", "dcr_holdout_share")
    )
    assert (mine.threshold, mine.verdict) == (0.5, RISK)
    assert share.threshold == pytest.approx(0.5 + REGISTRY["dcr_holdout_share"].cutoff)
    assert share.verdict == NO_EVIDENCE
    skipped = {s.key: s.reason for s in report.skipped}
    assert skipped["privacy_loss"].startswith("no holdout data was given")
    assert skipped["cap"] == "the data do not allow it: too few distinct values"
    assert skipped["expected_match_risk"] == "it does not apply"
    families = {f.family: f for f in report.families}
    assert families["identity"].verdict == RISK and families["identity"].deciding == "nn_mia_auc"
    assert families["membership"].counts[NO_EVIDENCE] == 1
    # Nothing of the attribute family could run: it is listed, with the reason and what to give.
    assert families["attribute"].verdict == NOT_ASSESSED
    assert "too few distinct values" in families["attribute"].reason
    assert report.decision == "do not release"


def test_a_broken_catalogue_entry_is_an_error_not_a_quiet_skip(files):
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"])
    wrong_call = MeasureSpec(
        "nn_mia_auc",
        "Wrong call",
        "membership",
        REGISTRY["nn_mia_auc"],
        membership.nn_mia,
        lambda context: {"no_such_table": context.train},
    )
    with pytest.raises(AuditError, match="calls its function wrongly"):
        _audit(inputs, [wrong_call])
    # one bad value, which a single constraint refuses, is a bug of the entry as well, not a skip
    # because "the data do not allow it"
    one_bad_value = dataclasses.replace(
        wrong_call, arguments=lambda c: release(c) | {"holdout": c.train, "confidence": 1.0}
    )
    with pytest.raises(AuditError, match="calls its function wrongly: `confidence` must be"):
        _audit(inputs, [one_bad_value])
    # a table of the right kind whose data cannot be used is a property of the data: a skip
    no_rows = dataclasses.replace(wrong_call, arguments=lambda c: release(c) | {"holdout": c.train.iloc[:0]})
    skipped = _audit(inputs, [no_rows]).skipped
    assert [(s.key, s.reason) for s in skipped] == [
        ("nn_mia_auc", "the data do not allow it: `holdout` has 0 row(s); it needs at least 1.")
    ]
    # an entry that names a column the tables do not have is a bug of the entry, not a skip
    wrong_column = MeasureSpec(
        "cap",
        "Wrong column",
        "attribute",
        REGISTRY["cap"],
        attribute.cap,
        lambda c: {
            "train": c.train,
            "synthetic": c.synthetic,
            "keys": ["no such column"],
            "target": "sex",
        },
    )
    with pytest.raises(
        AuditError, match="^the catalogue entry 'cap' calls its function wrongly: `keys` names"
    ):
        _audit(inputs, [wrong_column])
    # any other refusal is not the data's: the audit fails in one line that names the measure and
    # quotes no value
    for error in (PrivlibError, ParameterError):
        refusing = _spec("nn_mia_auc", raises=error("column 'income' holds 'secret label'"))
        with pytest.raises(AuditError) as raised:
            _audit(inputs, [refusing])
        assert "'nn_mia_auc'" in str(raised.value) and "secret label" not in str(raised.value)
        assert len(str(raised.value).splitlines()) == 1
    with pytest.raises(AuditError, match="gave a result for 'privacy_loss'"):
        _audit(inputs, [_spec("nn_mia_auc", measure="privacy_loss", value=0.1)])
    with pytest.raises(KeyError):  # a bug in an argument builder surfaces as itself
        _audit(
            inputs,
            [
                MeasureSpec(
                    "nn_mia_auc",
                    "Bad",
                    "membership",
                    None,
                    membership.nn_mia,
                    lambda context: context.settings["no such setting"],
                )
            ],
        )


@pytest.mark.parametrize("error, refused", [(ParameterError, True), (DataError, False)])
def test_the_fidelity_summary_called_wrongly_is_an_error_its_data_a_skip(files, monkeypatch, error, refused):
    # the audit's own call of fidelity_summary: a bad argument is the kit's bug, as in a catalogue
    # entry; data that do not allow it leave the fidelity out with the reason
    def fidelity_summary(**arguments):
        raise error("`n_bootstrap` must be a whole number >= 1, got 0.")

    monkeypatch.setattr(utility, "fidelity_summary", fidelity_summary)
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"])
    if refused:
        with pytest.raises(AuditError, match="calls fidelity_summary wrongly: `n_bootstrap`"):
            _audit(inputs, [])
    else:
        assert _audit(inputs, []).fidelity["skipped"] == [
            {"key": "fidelity", "reason": "`n_bootstrap` must be a whole number >= 1, got 0."}
        ]


def test_unknown_thresholds_and_settings_are_refused_with_the_valid_keys():
    with pytest.raises(
        PrivlibError, match=r"unknown measure\(s\) \['nn_mia'\]; the valid keys are \[.*'nn_mia_auc'"
    ):
        AuditSpec.build(train="t.csv", synthetic="s.csv", thresholds={"nn_mia": 0.6})
    with pytest.raises(PrivlibError, match="must be a finite number"):
        AuditSpec.build(train="t.csv", synthetic="s.csv", thresholds={"nn_mia_auc": float("nan")})
    with pytest.raises(PrivlibError, match=r"^`sead` is not a setting of the audit; the settings are \["):
        AuditSpec.build(train="t.csv", synthetic="s.csv", sead=1)
    with pytest.raises(PrivlibError, match=r"^`seed` must be a whole number >= 0 and <= 4,294,967,295\.$"):
        AuditSpec.build(train="t.csv", synthetic="s.csv", seed=-5)


def test_the_fidelity_sample_is_a_record_count_orevery_record(tmp_path):
    def sample(**given):
        return AuditSpec.build(train="t.csv", synthetic="s.csv", **given).fidelity_sample

    assert sample() == 100_000
    assert sample(fidelity_sample=5000) == 5000
    assert sample(fidelity_sample="all") == "all"
    for bad in (50, 1.5, "some"):
        with pytest.raises(PrivlibError, match="^`fidelity_sample`"):
            sample(fidelity_sample=bad)
    # the notebook reads the spec the pipeline wrote: "every record" survives the round trip
    for given in (5000, "all"):
        spec = AuditSpec.build(train="t.csv", synthetic="s.csv", fidelity_sample=given)
        assert AuditSpec.read(spec.write(tmp_path / "spec.json")).fidelity_sample == given


def test_every_catalogue_entry_names_a_family_and_builds_keyword_arguments(files):
    import inspect

    inputs = load_audit_inputs(
        train=files["train"],
        synthetic=files["synthetic"],
        holdout=files["holdout"],
        keys=["sex"],
        sensitive=["ill"],
        population_size=1000,
    )
    spec = AuditSpec.build(train=files["train"], synthetic=files["synthetic"], targeted_attack="Copy")
    audit = Audit(inputs, spec)
    for entry in CATALOGUE:
        assert entry.family in FAMILIES
        if entry.function is None:
            assert entry.not_applicable
            continue
        arguments = entry.arguments(audit._context("ill" if entry.per_target else None))
        inspect.signature(entry.function).bind(**arguments)  # every argument is a keyword it takes


def test_nothing_runs_when_inputs_are_too_small(files):
    one = _write(files["folder"], "one.csv", pd.read_csv(files["synthetic"]).head(1))
    report = _audit(load_audit_inputs(train=files["train"], synthetic=one), [_spec("nn_mia_auc", value=0.0)])
    assert report.measures == []
    assert report.skipped[0].reason.startswith("inputs too small to assess")
    assert report.decision == "not assessable"


@pytest.mark.slow
def test_metrics_json_holds_results_provenance_and_no_folders(files, tmp_path):
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"], holdout=files["holdout"])
    spec = AuditSpec.build(
        train=files["train"], synthetic=[files["synthetic"]], holdout=files["holdout"], seed=3
    )
    report = Audit(inputs, spec, catalogue=(_spec("privacy_loss", "membership", value=0.25),)).run()
    published = report.save(tmp_path / "out")
    assert sorted(p.name for p in published.iterdir()) == ["metrics.json", "report.html", "report.pdf"]
    metrics = json.loads((published / "metrics.json").read_text())
    assert metrics["schema_version"] == "2.2"
    measure = metrics["measures"][0]
    assert measure.pop("seconds") >= 0
    assert measure["key"] == "privacy_loss" and measure["value"] == 0.25
    assert measure["verdict"] == "not assessable"  # no baseline to judge against
    provenance = metrics["provenance"]
    assert provenance["spec"]["seed"] == 3
    assert "train" not in provenance["spec"] and str(files["folder"]) not in json.dumps(metrics)
    assert [f["file"] for f in provenance["inputs"]] == ["train.csv", "synthetic.csv", "holdout.csv"]
    digest = hashlib.sha256(files["holdout"].read_bytes()).hexdigest()
    assert {f["role"]: f["sha256"] for f in provenance["inputs"]}["holdout"] == digest
    assert comparable_metrics(metrics)["provenance"].keys() == provenance.keys() - {"created"}


@pytest.mark.slow
def test_the_dataframe_api_returns_a_report_that_displays_and_dumps(files):
    train = pd.read_csv(files["train"])
    holdout = pd.read_csv(files["holdout"])
    report = run(train=train, synthetic={"copy": train}, holdout=holdout, keys=["age"], sensitive=["ill"])
    assert report.synthetic_label == "copy"
    # a copy of the training data: every training record has a synthetic copy, and with a holdout
    # the copy test replaces the share of exact copies
    copies = next(m for m in report.measures if m.key == "copy_test")
    assert copies.details["train_copied"] == len(train) and copies.verdict == RISK
    assert "identical_match_share" not in {m.key for m in report.measures}
    assert report.decision == "do not release"
    html = report._repr_html_()
    assert (
        "do not release" in html
        and "Training records with a close copy (same categories, numbers within 1% of their range), beyond chance"
        in html
    )
    metrics = json.loads(report.to_json())
    jsonschema.validate(metrics, json.loads(SHIPPED_SCHEMA.read_text()))
    assert [f["role"] for f in metrics["provenance"]["inputs"]] == ["train", "synthetic", "holdout"]
    keys = [m["key"] for m in metrics["measures"]]
    assert len(keys) == len(set(keys)) and "cap[ill]" in keys


def test_the_shipped_json_schema_is_current():
    assert json.loads(SHIPPED_SCHEMA.read_text()) == metrics_schema(), (
        "privlib/audit/metrics.schema.json is stale: regenerate it with python -m privlib.audit.schema_file"
    )


def test_sha256_of_a_known_string(tmp_path):
    path = tmp_path / "abc.txt"
    path.write_bytes(b"abc")  # FIPS 180-2 test vector
    assert sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_params_files_are_checked(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("dataset: nowhere\nn_train: 10\nsynthesizers: [{method: Copy}]\n")
    with pytest.raises(PrivlibError, match="unknown dataset 'nowhere'"):
        read_params(path)
    path.write_text("train: t.csv\n")
    with pytest.raises(PrivlibError, match="needs either `dataset` or both `train` and `synthetic`"):
        read_params(path)
    path.write_text("train: t.csv\nsynthetic: [s1.csv, s2.csv]\n")
    assert read_params(path)["synthetic"] == [str(tmp_path / "s1.csv"), str(tmp_path / "s2.csv")]
    with pytest.raises(PrivlibError, match="does not exist"):
        read_params(tmp_path / "absent.yaml")


@pytest.mark.parametrize("name", ["acs", "adult", "ce", "ontario_covid19"])
def test_bundled_params_files_describe_a_split_the_data_allows(name):
    from privlib.datasets import load_dataset

    params = read_params(params_file(name))
    rows = len(load_dataset(name))
    assert params["dataset"] == name
    assert params["n_train"] + params["n_holdout"] <= rows
    assert params["population_size"] is None or params["population_size"] >= params["n_train"]
    assert [s["method"] for s in params["synthesizers"]] == ["SequentialTrees"]


@pytest.mark.notebook
def test_course_runs_each_notebook_and_writes_an_index(tmp_path):
    lessons = tmp_path / "lessons"
    lessons.mkdir()
    for stem, heading in (("01_first", "01. First"), ("02_second", "02. Second")):
        nb = nbformat.v4.new_notebook(
            cells=[
                nbformat.v4.new_markdown_cell(f"# {heading}"),
                nbformat.v4.new_code_cell(
                    'dataset = "acs"\nseed = 1\nquick = False', metadata={"tags": ["parameters"]}
                ),
                nbformat.v4.new_code_cell('print(f"ran on {dataset} with seed {seed}, quick={quick}")'),
            ]
        )
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        nbformat.write(nb, lessons / f"{stem}.ipynb")
    (lessons / "README.ipynb").write_text("not a lesson")  # only 0*.ipynb are lessons
    out = tmp_path / "course"
    run_course(out=out, dataset="ce", seed=5, notebooks=lessons, progress=False)
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(
        ["index.html"] + [f"{s}.{e}" for s in ("01_first", "02_second") for e in ("ipynb", "html", "pdf")]
    )
    index = (out / "index.html").read_text()
    assert index.index("01. First") < index.index("02. Second")
    assert 'href="02_second.pdf"' in index
    page = (out / "01_first.html").read_text()
    assert "ran on ce with seed 5, quick=True" in page  # the parameters reached the notebook
    assert "highlight hl-ipython3" in page  # the course shows its code


def test_course_refuses_an_unknown_dataset_before_running(tmp_path):
    with pytest.raises(PrivlibError, match="neither a bundled dataset"):
        run_course(out=tmp_path / "out", dataset="atlantis", notebooks=tmp_path)
    assert not (tmp_path / "out").exists()


def test_report_plots_draw_the_given_points():
    import matplotlib

    matplotlib.use("Agg")
    from privlib.membership import ThresholdAttack
    from privlib.plots import plot_roc, plot_threshold_precision

    ax = plot_roc([0.0, 0.5, 1.0], [0.0, 0.8, 1.0], auc=0.65)
    curve, diagonal = ax.lines
    assert curve.get_xydata().tolist() == [[0.0, 0.0], [0.5, 0.8], [1.0, 1.0]]
    assert diagonal.get_xydata().tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert ax.get_legend().get_texts()[0].get_text() == "attack (AUC 0.650)"
    with pytest.raises(PrivlibError, match="same length"):
        plot_roc([0.0, 1.0], [0.0])
    attack = ThresholdAttack(
        measure="threshold_attack_precision",
        value=0.6,
        baseline=0.5,
        max_precision=0.7,
        best_threshold=0.1,
        n_attack=10,
        thresholds=np.array([0.0, 0.1]),
        precision=np.array([0.7, 0.6]),
        recall=np.array([0.2, 0.5]),
    )
    ax = plot_threshold_precision(attack)
    assert ax.lines[0].get_xydata().tolist() == [[0.0, 0.7], [0.1, 0.6]]
    assert ax.lines[2].get_ydata()[0] == 0.5  # guessing
    with pytest.raises(PrivlibError, match="threshold_attack"):
        plot_threshold_precision(object())


@pytest.mark.parametrize(
    ("n_train", "n_holdout", "every", "of_both"), [(30, 50, 30, 50), (25_000, 1_000, 20_000, 20_000)]
)
def test_criteria_attacks_target_every_record_up_to_a_bound(n_train, n_holdout, every, of_both):
    from privlib.declaration import MAX_ATTACK_TARGETS, Context, every_record, every_record_of_both

    assert MAX_ATTACK_TARGETS == 20_000
    tables = {
        name: pd.DataFrame({"a": np.zeros(n)}) for name, n in (("train", n_train), ("holdout", n_holdout))
    }
    context = Context(
        train=tables["train"],
        synthetic=tables["train"],
        holdout=tables["holdout"],
        synthetics={},
        keys=["a"],
        sensitive=[],
        population_size=None,
        settings={},
        binned=lambda table: table,
        kinds={},
    )
    assert (every_record(context), every_record_of_both(context)) == (every, of_both)


def test_a_family_decided_by_an_exact_test_names_its_adjusted_p_value(files):
    """The copy tests and the low-FPR points are judged by their exact test, not by where their
    interval lies, so the family's headline names the p-value that decides; with one test in the
    family Holm's adjustment leaves it as it is."""
    from privlib.records import tpr_at_low_fpr

    point = tpr_at_low_fpr(
        member_scores=np.r_[np.full(30, 5.0), np.zeros(1970)],
        nonmember_scores=np.linspace(-1, 1, 2000),
        attack="nn_mia",
    )
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"], keys=["sex"])
    key = point.measure
    catalogue = [
        MeasureSpec(key, "Low-FPR point", "membership", REGISTRY[key], lambda: point),
        _spec("nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5),
    ]
    families = {f.family: f for f in _audit(inputs, catalogue, thresholds={"nn_mia_auc": 0.5}).families}
    assert families["membership"].verdict == RISK and families["membership"].deciding == key
    assert f"read by its exact test: Holm-adjusted p = {point.p_value:.2g} against 0.05." in (
        families["membership"].headline
    )
    assert families["identity"].verdict == RISK and "exact test" not in families["identity"].headline


@dataclass(frozen=True, kw_only=True)
class _Tested(Result):
    """A result with an exact test's p-value, as the copy and attack tests give."""

    p_value: float = float("nan")


def _tested(key: str, value: float, p_value: float) -> MeasureSpec:
    """An exact test of the membership family above (``value`` 0.03) or below (0.01) its
    baseline 0.02, with its p-value and 5 records at risk."""
    result = _Tested(measure=key, value=value, baseline=0.02, p_value=p_value)
    return MeasureSpec(
        key, key, "membership", REGISTRY[key], lambda: result, at_risk=lambda r: (5, "records")
    )


@pytest.mark.parametrize(
    ("near_p", "verdict", "decision", "listed"),
    # Holm over two exact tests, each attack an equal share: the near-copy test's 2 x p
    [
        (0.03, "inconclusive", "release only with the listed caveats", {}),
        (0.02, RISK, "do not release", {"near_copy_test": 5}),
    ],
)
def test_the_runner_reads_a_family_by_the_family_rule(files, near_p, verdict, decision, listed):
    """A risk alone that Holm's adjustment demotes reads inconclusive, not a risk, and --json lists records at risk only for a measure that stands as a risk."""
    inputs = load_audit_inputs(train=files["train"], synthetic=files["synthetic"], keys=["sex"])
    report = _audit(inputs, [_tested("near_copy_test", 0.03, near_p), _tested("attack_ensemble", 0.01, 0.4)])
    membership = next(f for f in report.families if f.family == "membership")
    assert (membership.verdict, membership.deciding, report.decision) == (verdict, "near_copy_test", decision)
    assert membership.adjusted_p_values == pytest.approx(
        {"near_copy_test": 2 * near_p, "attack_ensemble": 0.4}
    )
    assert ("not after Holm's adjustment across the 2 exact tests" in membership.headline) == (
        verdict != RISK
    )
    assert report.summary()["families"]["membership"]["records_at_risk"] == listed
