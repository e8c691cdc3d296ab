"""The `privlib` command end to end: the audit report, bad input, small input, reproducibility.

One small audit is rendered once per test session (module fixture) and inspected by several tests;
the inputs are built here from the bundled CE data so that the expected numbers can be derived
independently of the kit: half of the synthetic rows are exact copies of training rows, which
also makes the "no confidential rows" scan meaningful (a report that printed synthetic rows would
print training records).
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import privlib as pl
from privlib.audit import comparable_metrics
from privlib.catalogue import CATALOGUE
from privlib.cli import main
from privlib.declaration import Context
from privlib.pipeline import AUDIT_FILES
from privlib.schema import infer_kinds

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: The inputs the audit of these tests gives (keys of ``privlib.declaration.NEEDS``): no
#: generator for the targeted attack.
GIVEN = {"holdout", "keys", "sensitive", "several_synthetic", "population_size"}


def expected_measures(paths: dict) -> set[str]:
    """The keys metrics.json must list for the audit of ``_audit_args``, read from the catalogue:
    every audited measure with a rule whose inputs are given, once per sensitive variable where it
    runs per target, in the form that applies to the data (CE's Expenditure is a number: its k-NN
    attack is the squared-error form)."""
    train = pd.read_csv(paths["train"])
    context = Context(
        train=train,
        synthetic=pd.read_csv(paths["synthetic"]),
        holdout=pd.read_csv(paths["holdout"]),
        synthetics={},
        keys=["Income", "UrbanRural", "Race"],
        sensitive=["Expenditure"],
        population_size=5000,
        settings={},
        binned=lambda columns: (train[columns], train[columns]),
        kinds=infer_kinds(train),
    )
    keys = set()
    for spec in CATALOGUE:
        if spec.function is None or spec.rule is None or not set(spec.needs) <= GIVEN:
            continue
        for target in context.sensitive if spec.per_target else [None]:
            where = dataclasses.replace(context, target=target)
            if spec.applies is None or spec.applies(where):
                keys.add(spec.key if target is None else f"{spec.key}[{target}]")
    return keys


def test_the_expected_measures_are_read_from_the_catalogue(tmp_path):
    # the forms that do not apply here are left out: the fixed copy margin (a holdout is given),
    # the accuracy form of the k-NN attack (the target is a number), the targeted attack (no
    # generator), a comparison table (no rule) and the measures the audit never runs
    expected = expected_measures(_make_inputs(tmp_path))
    assert {
        "copy_test",
        "knn_risk_relative_error[Expenditure]",
        "cap[Expenditure]",
        "partition_f1",
    } <= expected
    assert (
        not {
            "identical_match_share",
            "knn_risk_accuracy[Expenditure]",
            "shadow_model_auc",
            "compare_synthesizers",
            "expected_match_risk",
            "cap",
        }
        & expected
    )


SECTION_HEADINGS = [
    "Decision",
    "Fidelity beside privacy",
    "Every measure against its threshold",
    "Verdicts",
    "Identity disclosure",
    "Attribute disclosure",
    "Membership disclosure",
    "Synthetic files side by side",
    "Appendix",
    "Provenance",
    "Glossary and references",
]


def _make_inputs(folder: Path, n: int = 150, seed: int = 7) -> dict:
    """Training, holdout and two synthetic CSV files from the CE data.

    ``synthetic`` is half copies of training rows, half rows whose columns were shuffled
    independently; ``shuffled`` is all shuffled rows (a second synthesizer to compare with).
    """
    data = pl.load_dataset("ce")
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    train = data.iloc[order[:n]].reset_index(drop=True)
    holdout = data.iloc[order[n : 2 * n]].reset_index(drop=True)
    copies = train.iloc[rng.choice(n, n // 2, replace=False)]
    shuffled = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train.columns})
    synthetic = pd.concat([copies, shuffled.iloc[: n - n // 2]], ignore_index=True)
    paths = {}
    for name, table in (
        ("train", train),
        ("holdout", holdout),
        ("synthetic", synthetic),
        ("shuffled", shuffled),
    ):
        paths[name] = folder / f"{name}.csv"
        table.to_csv(paths[name], index=False)
    return paths


def _audit_args(paths: dict, out: Path, seed: int = 11) -> list[str]:
    return [
        "--quiet",
        "audit",
        "--train",
        str(paths["train"]),
        "--synthetic",
        str(paths["synthetic"]),
        str(paths["shuffled"]),
        "--holdout",
        str(paths["holdout"]),
        "--keys",
        "Income",
        "UrbanRural",
        "Race",
        "--sensitive",
        "Expenditure",
        "--population-size",
        "5000",
        "--seed",
        str(seed),
        "--title",
        "Test audit of CE",
        "--out",
        str(out),
    ]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    folder = tmp_path_factory.mktemp("audit")
    paths = _make_inputs(folder)
    out = folder / "report"
    assert main(_audit_args(paths, out)) == 0
    return paths, out


def _text_of_html(text: str) -> str:
    """The visible text of an HTML page, whitespace collapsed (tags become spaces)."""
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.S | re.I)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", text)).split())


def _record_strings(csv_path: Path) -> list[str]:
    """Each training record rendered as text: its CSV line, and its values joined by ", " and " "."""
    lines = csv_path.read_text().splitlines()[1:]
    table = pd.read_csv(csv_path)
    out = list(lines)
    for row in table.itertuples(index=False):
        values = [str(v) for v in row]
        out += [", ".join(values), " ".join(values)]
    return out


def _leaks(text: str, records: list[str]) -> list[str]:
    collapsed = " ".join(text.split())
    return [r for r in records if r in text or r in collapsed]


@pytest.mark.notebook
@pytest.mark.slow
def test_audit_writes_every_file(rendered):
    _, out = rendered
    assert sorted(p.name for p in out.iterdir()) == sorted(AUDIT_FILES)


@pytest.mark.notebook
@pytest.mark.slow
def test_report_has_sections_verdict_table_and_pages(rendered):
    paths, out = rendered
    page = (out / "report.html").read_text()
    text = _text_of_html(page)
    headings = [_text_of_html(h) for h in re.findall(r"<h[12][^>]*>(.*?)</h[12]>", page, flags=re.S)]
    positions = [
        next((i for i, h in enumerate(headings) if h.startswith(name)), -1) for name in SECTION_HEADINGS
    ]
    assert -1 not in positions, dict(zip(SECTION_HEADINGS, positions))
    assert positions == sorted(positions)  # the conclusion comes first, the references last
    verdicts = page.split('class="privlib-verdict-lines"')[1].split("</table>")[0]
    header = re.findall(r"<th>(.*?)</th>", verdicts.split("</thead>")[0])
    assert header == ["measure", "value", "95% interval", "threshold", "verdict"]
    groups = re.findall(r'<tr class="privlib-family"><th colspan="5">(.*?)</th>', verdicts)
    assert groups == ["Identity disclosure", "Attribute disclosure", "Membership disclosure"]
    keys = re.findall(r'<span class="privlib-key">(.*?)</span></td>', verdicts)
    assert set(keys) == expected_measures(paths)
    # No code cell is rendered, and nothing is fetched from the network.
    assert "highlight hl-ipython3" not in page and "import privlib" not in text
    assert not re.search(r"<script[^>]+src=|<link[^>]+href=\"http", page)
    assert re.search(r'<img[^>]+src="data:image/png;base64,', page)

    from pypdf import PdfReader

    # The PDF's content and order, not its layout: how many pages it fills depends on the fonts
    # installed, so the page count only has a generous bound against a runaway layout.
    pdf = PdfReader(out / "report.pdf")
    assert 2 <= len(pdf.pages) <= 40  # a generous bound: the exact count depends on the fonts
    first = " ".join(pdf.pages[0].extract_text().split())
    # two synthetic files: page 1 decides the first and names it
    assert "Test audit of CE" in first and re.search(r"decision on synthetic\S* do not release", first, re.I)
    whole = " ".join(" ".join(p.extract_text() for p in pdf.pages).split())
    assert all(name in whole for name in SECTION_HEADINGS)
    # the headings become the PDF's bookmarks, in the order of the HTML
    bookmarks = [item.title for item in _flatten(pdf.outline)]
    marks = [
        next((i for i, b in enumerate(bookmarks) if b.startswith(name)), -1) for name in SECTION_HEADINGS
    ]
    assert -1 not in marks and marks == sorted(marks), dict(zip(SECTION_HEADINGS, marks))


def _flatten(outline) -> list:
    """The entries of a pypdf outline (nested lists for sub-headings), in document order."""
    return [leaf for item in outline for leaf in (_flatten(item) if isinstance(item, list) else [item])]


@pytest.mark.notebook
@pytest.mark.slow
def test_metrics_hold_every_measure_and_the_provenance(rendered):
    paths, out = rendered
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["assessable"] is True
    assert metrics["schema_version"] == "2.2" and metrics["decision"] == "do not release"
    # two synthetic files: the decision on each, the first the report's own
    assert [f["synthetic_label"] for f in metrics["files"]] == ["synthetic", "shuffled"]
    assert metrics["files"][0]["decision"] == metrics["decision"]
    by_label = {m["key"]: m for m in metrics["measures"]}
    assert set(by_label) == expected_measures(paths)
    for m in metrics["measures"]:
        assert {"value", "baseline", "threshold", "verdict", "reading"} <= set(m)
        # every measure has one of the four verdicts, and an interval around its value unless
        # it says why it cannot be read
        assert m["verdict"] in ("risk", "no evidence of risk", "inconclusive", "not assessable"), m["key"]
        if m["verdict"] == "not assessable":
            assert m["verdict_rule"], m["key"]
        else:  # an exact test too shows the interval of what it tests
            assert m["ci_low"] is not None and m["ci_low"] <= m["value"] <= m["ci_high"], m["key"]
    # a count of people at risk names the variable an attribute measure is about
    for family in metrics["families"]:
        for item in family["at_risk"]:
            assert item["target"] == (item["key"].split("[")[1].rstrip("]") if "[" in item["key"] else None)
    # The copy test: the 75 training rows copied verbatim have a copy (and maybe more, within the
    # numeric tolerance); its p-value is Fisher's one-sided exact test on the counts it reports.
    from scipy.stats import fisher_exact

    copies = by_label["copy_test"]["details"]
    a, b = copies["train_copied"], copies["holdout_copied"]
    assert a >= 75 and by_label["copy_test"]["verdict"] == "risk"
    assert copies["p_value"] == pytest.approx(
        fisher_exact([[a, 150 - a], [b, 150 - b]], alternative="greater")[1]
    )
    # 150 holdout records cannot show a false-positive rate of 0.1%
    assert by_label["nn_mia_tpr_at_0.1pct"]["verdict"] == "not assessable"
    share = by_label["dcr_holdout_share"]
    # The registry's kit default: 5 points above the 50% of a generator that memorised nothing,
    # judged on the interval.
    assert share["threshold"] == pytest.approx(0.55)
    low, high = (
        share["ci_low"] if share["ci_low"] is not None else share["value"],
        share["ci_high"] if share["ci_high"] is not None else share["value"],
    )
    assert share["verdict"] == (
        "risk" if low > 0.55 else "no evidence of risk" if high <= 0.55 else "inconclusive"
    )
    # With N = 5000 and n = 150 the attack set holds t = n / N of training records.
    assert by_label["partition_f1"]["details"]["t"] == pytest.approx(150 / 5000)
    # Two synthetic files: the comparison table has one row per file, named after it.
    comparison = metrics["tables"]["compare_synthesizers"]
    assert [row["synthesizer"] for row in comparison] == ["synthetic", "shuffled"]
    assert comparison[0]["dcr_holdout_share"] == pytest.approx(share["value"])
    provenance = metrics["provenance"]
    assert provenance["privlib_version"] == pl.__version__
    files = {f["role"]: f for f in provenance["inputs"]}
    import hashlib

    assert files["train"]["sha256"] == hashlib.sha256(paths["train"].read_bytes()).hexdigest()
    assert [f["rows"] for f in provenance["inputs"]] == [150, 150, 150, 150]
    assert [f["file"] for f in provenance["inputs"]] == [
        "train.csv",
        "synthetic.csv",
        "shuffled.csv",
        "holdout.csv",
    ]
    assert str(paths["train"].parent) not in json.dumps(metrics)  # no folder names in the record
    assert provenance["spec"]["keys"] == ["Income", "UrbanRural", "Race"]


@pytest.mark.notebook
@pytest.mark.slow
def test_no_training_record_in_any_output(rendered):
    paths, out = rendered
    records = _record_strings(paths["train"])
    from pypdf import PdfReader

    notebook = json.loads((out / "privacy_audit.ipynb").read_text())
    pieces = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            pieces += [output.get("text", "")] + list(output.get("data", {}).values())
    outputs = "\n".join("".join(p) if isinstance(p, list) else str(p) for p in pieces)
    texts = {
        "report.html": _text_of_html((out / "report.html").read_text()),
        "report.pdf": " ".join(p.extract_text() for p in PdfReader(out / "report.pdf").pages),
        "metrics.json": (out / "metrics.json").read_text(),
        "notebook outputs": outputs + " " + _text_of_html(outputs),
    }
    for name, text in texts.items():
        assert _leaks(text, records) == [], name
    # the published notebook names no folder of the machine (papermill's paths reduced to names)
    whole = (out / "privacy_audit.ipynb").read_text()
    assert str(out.parent) not in whole and ".audit-" not in whole and "/reports/" not in whole
    # The scan does find a record when one is printed (a table of the training data as HTML).
    printed = _text_of_html(pd.read_csv(paths["train"]).head(1).to_html(index=False))
    assert _leaks(printed, records)


@pytest.mark.notebook
@pytest.mark.slow
def test_same_seed_same_metrics(rendered, tmp_path):
    paths, out = rendered
    again = tmp_path / "again"
    assert main(_audit_args(paths, again)) == 0
    first = json.loads((out / "metrics.json").read_text())
    second = json.loads((again / "metrics.json").read_text())
    assert comparable_metrics(first) == comparable_metrics(second)
    assert "created" in first["provenance"]  # kept in the file, left out of the comparison


@pytest.mark.notebook
@pytest.mark.parametrize("rows_train, rows_synthetic", [(10, 150), (150, 1)])
def test_too_small_inputs_give_a_not_assessable_report(tmp_path, rows_train, rows_synthetic):
    paths = _make_inputs(tmp_path)
    for name, rows in (("train", rows_train), ("synthetic", rows_synthetic)):
        pd.read_csv(paths[name]).head(rows).to_csv(paths[name], index=False)
    out = tmp_path / "small"
    assert main(_audit_args(paths, out)) == 0
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["assessable"] is False and metrics["measures"] == []
    assert f"has {min(rows_train, rows_synthetic)} row(s)" in metrics["problem"]
    assert "Not assessable" in _text_of_html((out / "report.html").read_text())
    assert (out / "report.pdf").stat().st_size > 0


# --------------------------------------------------------------------------------------------
# Bad input: exit status 2, one line naming the problem, nothing written, earlier report intact
# --------------------------------------------------------------------------------------------
def _bad_cases(paths: dict, folder: Path) -> dict:
    train = pd.read_csv(paths["train"])
    other_columns = folder / "other_columns.csv"
    train.rename(columns={"Race": "Ethnicity"}).to_csv(other_columns, index=False)
    empty = folder / "empty.csv"
    empty.write_text("")
    header_only = folder / "header_only.csv"
    header_only.write_text(",".join(train.columns) + "\n")
    base = ["audit", "--train", str(paths["train"]), "--synthetic", str(paths["synthetic"])]
    return {
        "missing file": (
            ["audit", "--train", str(folder / "nope.csv"), "--synthetic", str(paths["synthetic"])],
            "nope.csv",
        ),
        "key not a column": (base + ["--keys", "Income", "Age"], "'Age'"),
        "different columns": (
            ["audit", "--train", str(paths["train"]), "--synthetic", str(other_columns)],
            "different columns",
        ),
        "empty csv": (["audit", "--train", str(empty), "--synthetic", str(paths["synthetic"])], "empty"),
        "header only": (
            ["audit", "--train", str(paths["train"]), "--synthetic", str(header_only)],
            "0 row(s)",
        ),
        "N smaller than training": (base + ["--population-size", "100"], "population_size"),
        "fidelity sample not a number": (base + ["--fidelity-sample", "many"], "--fidelity-sample"),
        "fidelity sample too small": (base + ["--fidelity-sample", "10"], "fidelity_sample"),
        "unknown dataset": (["course", "--dataset", "no_such_data"], "no_such_data"),
        "unknown params field": (["audit", "--params", str(folder / "bad.yaml")], "colour"),
    }


def test_bad_input_exits_with_one_line_and_writes_nothing(tmp_path, capsys):
    paths = _make_inputs(tmp_path)
    (tmp_path / "bad.yaml").write_text("dataset: ce\nn_train: 100\nsynthesizers: []\ncolour: red\n")
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    (earlier / "report.html").write_text("an earlier report")
    for case, (args, named) in _bad_cases(paths, tmp_path).items():
        for out in (tmp_path / "fresh", earlier):
            code = main(["--quiet", *args, "--out", str(out)])
            err = capsys.readouterr().err
            assert code == 2, case
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("privlib: error:"), (case, err)
            assert named in lines[0], (case, lines[0])
            assert not (tmp_path / "fresh").exists(), case
            assert [p.name for p in earlier.iterdir()] == ["report.html"], case
            assert (earlier / "report.html").read_text() == "an earlier report", case


@pytest.mark.slow
def test_module_entry_point_reports_bad_input(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "privlib.cli",
            "audit",
            "--train",
            str(tmp_path / "absent.csv"),
            "--synthetic",
            str(tmp_path / "absent.csv"),
            "--out",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    # the one progress line said before the checks, then the refusal in one line
    progress, *errors = result.stderr.strip().splitlines()
    assert progress.startswith("privlib: reading and checking the tables")
    assert len(errors) == 1 and errors[0].startswith("privlib: error:") and "absent.csv" in errors[0]
    assert not (tmp_path / "out").exists()


def test_usage_errors_are_one_line(capsys):
    assert main(["audit", "--train", "t.csv"]) == 2  # --out missing
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--out" in err


@pytest.mark.slow
def test_the_exit_status_gates_a_pipeline_and_json_goes_to_stdout(rendered, tmp_path, capsys):
    paths, out = rendered
    args = _audit_args(paths, tmp_path / "gate")
    # Half the synthetic rows copy training rows: identity is a risk, so --fail-on risk stops.
    assert main([*args, "--fail-on", "risk", "--json"]) == 3
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["decision"] == "do not release" and summary["families"]["identity"]["verdict"] == "risk"
    assert summary["report"].endswith("report.html")
    assert (tmp_path / "gate" / "report.pdf").is_file()  # published before the gate closes
    assert "--fail-on risk" in captured.err


@pytest.mark.slow
def test_a_release_of_other_people_passes_the_gate(tmp_path, capsys):
    # Synthetic rows are real rows of the population the generator never saw: no copies, no risk.
    data = pl.load_dataset("adult")
    rng = np.random.default_rng(3)
    order = rng.permutation(len(data))
    tables = {
        "train": data.iloc[order[:600]],
        "holdout": data.iloc[order[600:1200]],
        "synthetic": data.iloc[order[1200:1800]],
    }
    for name, table in tables.items():
        table.to_csv(tmp_path / f"{name}.csv", index=False)
    code = main(
        [
            "--quiet",
            "audit",
            "--train",
            str(tmp_path / "train.csv"),
            "--synthetic",
            str(tmp_path / "synthetic.csv"),
            "--holdout",
            str(tmp_path / "holdout.csv"),
            "--keys",
            "age",
            "sex",
            "--sensitive",
            "income",
            "--fail-on",
            "risk",
            "--json",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    summary = json.loads(capsys.readouterr().out)
    assert code == 0, summary
    assert all(f["verdict"] != "risk" for f in summary["families"].values())


@pytest.mark.slow
def test_the_schema_and_new_categories_reach_the_computation(rendered, tmp_path):
    paths, _ = rendered
    # A recoded synthetic file: every Race code shifted. Refused, then let through with a note.
    synthetic = pd.read_csv(paths["synthetic"])
    synthetic["Race"] = synthetic["Race"] + 10
    recoded = tmp_path / "recoded.csv"
    synthetic.to_csv(recoded, index=False)
    base = [
        "--quiet",
        "audit",
        "--train",
        str(paths["train"]),
        "--synthetic",
        str(recoded),
        "--holdout",
        str(paths["holdout"]),
        "--keys",
        "Race",
        "--sensitive",
        "Expenditure",
    ]
    assert main([*base, "--out", str(tmp_path / "refused")]) == 2
    assert main([*base, "--allow-new-categories", "--out", str(tmp_path / "allowed")]) == 0
    metrics = json.loads((tmp_path / "allowed" / "metrics.json").read_text())
    assert (
        any("Race" in note for note in metrics["notes"])
        and metrics["provenance"]["spec"]["allow_new_categories"]
    )
    # --schema: Income declared categorical changes the CAP, which bins numeric keys but matches
    # categorical ones exactly; the schema file is named in the provenance.
    schema = tmp_path / "schema.yaml"
    schema.write_text("columns:\n  Income: {kind: categorical}\n")
    runs = {}
    for name, extra in (("plain", []), ("schema", ["--schema", str(schema)])):
        args = [
            "--quiet",
            "audit",
            "--train",
            str(paths["train"]),
            "--synthetic",
            str(paths["synthetic"]),
            "--holdout",  # CAP judges the training records against the holdout
            str(paths["holdout"]),
            "--keys",
            "Income",
            "--sensitive",
            "Expenditure",
            *extra,
            "--out",
            str(tmp_path / name),
        ]
        assert main(args) == 0
        runs[name] = json.loads((tmp_path / name / "metrics.json").read_text())
    cap = {
        name: next(m["value"] for m in run["measures"] if m["key"] == "cap[Expenditure]")
        for name, run in runs.items()
    }
    assert cap["plain"] != cap["schema"]
    assert runs["schema"]["provenance"]["spec"]["schema_file"] == "schema.yaml"


# --------------------------------------------------------------------------------------------
# The flags and the params file are the spec's settings
# --------------------------------------------------------------------------------------------
def _audit_flags() -> dict:
    """The audit subcommand's arguments, by destination."""
    from privlib.cli import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command")
    return {action.dest: action for action in commands.choices["audit"].complete()._actions}


def test_every_spec_setting_has_a_flag_of_its_name_with_its_description():
    from privlib.audit.spec import KIT_FIELDS, AuditSpec

    flags = _audit_flags()
    for name, field in AuditSpec.model_fields.items():
        if name in KIT_FIELDS:
            assert name not in flags
            continue
        assert "--" + name.replace("_", "-") in flags[name].option_strings, name
        assert field.description and field.description in flags[name].help, name
    for name in ("repeats", "hamming_threshold", "attack_share", "cap_bins"):
        assert name in flags
    # the earlier name of a flag keeps working
    assert flags["schema_file"].option_strings == ["--schema-file", "--schema"]


def test_settings_from_flags_and_from_a_params_file_reach_the_spec(tmp_path):
    from privlib.audit.spec import user_settings
    from privlib.cli import build_parser
    from privlib.pipeline import audit_spec

    given = {"repeats": 7, "hamming_threshold": 3, "attack_share": 0.25, "cap_bins": 4, "seed": 11}
    argv = ["audit", "--train", "t.csv", "--synthetic", "s.csv", "--out", "o", "--schema", "m.yaml"]
    for name, value in given.items():
        argv += ["--" + name.replace("_", "-"), str(value)]
    args = build_parser().parse_args(argv)
    spec, _ = audit_spec(**{name: getattr(args, name) for name in user_settings()})
    assert {name: getattr(spec, name) for name in given} == given
    assert spec.schema_file == Path("m.yaml") and spec.allow_new_categories is False

    params = tmp_path / "p.yaml"
    params.write_text(
        "train: t.csv\nsynthetic: s.csv\n" + "".join(f"{name}: {value}\n" for name, value in given.items())
    )
    spec, _ = audit_spec(params=params)
    assert {name: getattr(spec, name) for name in given} == given
    assert spec.train == tmp_path / "t.csv"  # files are relative to the params file
    # a flag wins over the file
    spec, _ = audit_spec(params=params, repeats=9)
    assert spec.repeats == 9


def test_run_audit_takes_the_spec_settings_by_name(tmp_path):
    with pytest.raises(pl.PrivlibError, match=r"`cap_bins` must be a whole number >= 2 and <= 1,000\."):
        pl.pipeline.run_audit(out=tmp_path / "out", train="t.csv", synthetic="s.csv", cap_bins=1)
    with pytest.raises(pl.PrivlibError, match="`cap_binz` is not a setting of the audit"):
        pl.pipeline.run_audit(out=tmp_path / "out", train="t.csv", synthetic="s.csv", cap_binz=4)
    assert list(tmp_path.iterdir()) == []


def test_every_numeric_setting_has_an_upper_bound(tmp_path):
    """A number far beyond any real table (10**20) is refused for every numeric setting of the
    spec, as for the counts of a params file."""
    from privlib.audit.params import read_params
    from privlib.audit.spec import AuditSpec, user_settings

    schema = AuditSpec.model_json_schema()["properties"]
    numeric = [
        name
        for name in user_settings()
        if {"integer", "number"} & {k.get("type") for k in schema[name].get("anyOf", [schema[name]])}
    ]
    assert {"population_size", "seed", "repeats", "cap_bins", "fidelity_sample", "max_input_mb"} <= set(
        numeric
    )
    for name in numeric:
        with pytest.raises(pl.PrivlibError, match=f"`{name}` must be"):
            AuditSpec.check_settings({name: 10**20}, "test")
    for field in ("n_train", "n_holdout"):
        params = tmp_path / "p.yaml"
        other = "" if field == "n_train" else "n_train: 100\n"  # a key written twice is refused
        params.write_text(f"dataset: ce\n{other}synthesizers: [{{method: Copy}}]\n{field}: {10**20}\n")
        with pytest.raises(pl.PrivlibError, match=f"`{field}` must be a whole number from"):
            read_params(params)


def test_flag_values_out_of_bounds_are_one_line(tmp_path, capsys):
    for argv, words in (
        (["--repeats", "1000000"], "`repeats` must be a whole number >= 1 and <= 1,000"),
        (["--seed", str(2**40)], "`seed` must be a whole number >= 0 and <= 4,294,967,295"),
        (["--population-size", "1e27"], "argument --population-size: invalid int value"),
        (["--targeted-attack", ".x:Y"], "`targeted_attack` must be a privlib.synth name"),
        (["--targeted-attack", "../../x:Y"], "`targeted_attack` must be a privlib.synth name"),
    ):
        status = main(
            [
                "--quiet",
                "audit",
                "--train",
                "t.csv",
                "--synthetic",
                "s.csv",
                *argv,
                "--out",
                str(tmp_path / "o"),
            ]
        )
        err = capsys.readouterr().err.strip().splitlines()
        assert status == 2 and len(err) == 1 and words in err[0], (argv, err)
    assert list(tmp_path.iterdir()) == []


def test_notebooks_onto_a_dangling_link_is_named_so(tmp_path, capsys):
    (tmp_path / "copies").symlink_to(tmp_path / "missing" / "folder")
    status = main(["notebooks", str(tmp_path / "copies")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert "is a symbolic link to something that does not exist" in err[0] and "report" not in err[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copies"]


def test_progress_lines_carry_one_prefix(tmp_path, capsys):
    """The line about a staging folder left by a killed run (here: made by hand, unlocked)."""
    data = pl.load_dataset("ce").iloc[:60]
    data.to_csv(tmp_path / "train.csv", index=False)
    data.drop(columns=data.columns[0]).to_csv(tmp_path / "synthetic.csv", index=False)
    stale = tmp_path / ".out.audit-abcdefgh"
    stale.mkdir()
    (stale / ".privlib-staging").write_text("")
    status = main(
        [
            "audit",
            "--train",
            str(tmp_path / "train.csv"),
            "--synthetic",
            str(tmp_path / "synthetic.csv"),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and "privlib: removed .out.audit-abcdefgh, left by an interrupted run" in err, err
    assert not any(line.startswith("privlib: privlib:") for line in err), err
    assert not stale.exists()


def test_the_course_refuses_categories_matplotlib_would_typeset(tmp_path, capsys):
    table = pd.DataFrame({"age": range(40), "job": ["clerk", r"$\input{/etc/passwd}$M"] * 20})
    table.to_csv(tmp_path / "data.csv", index=False)
    status = main(
        ["--quiet", "course", "--dataset", str(tmp_path / "data.csv"), "--out", str(tmp_path / "out")]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert "column 'job' of `dataset` has 1 category with a pair of $ signs" in err[0]
    assert "passwd" not in err[0]  # the value itself is not echoed
    assert not (tmp_path / "out").exists()
    # one dollar sign, or escaped ones, are plain text to matplotlib: accepted
    table["job"] = ["clerk", r"pay \$5 \$"] * 20
    table.to_csv(tmp_path / "data.csv", index=False)
    from privlib.pipeline.course import _course_dataset

    assert _course_dataset(str(tmp_path / "data.csv"), None, 1)[1] == "data.csv"


def test_a_signal_caught_inside_a_finalizer_is_delivered_again():
    # Python ignores an exception raised in __del__; the command's handler sends the signal again
    import signal
    import time

    from privlib.cli import _interrupt

    class Finalized:
        def __del__(self):
            _interrupt(signal.SIGINT, sys._getframe())

    previous = signal.signal(signal.SIGINT, _interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            finalized = Finalized()
            del finalized  # the handler runs in its __del__ and returns
            time.sleep(30)  # the signal sent again stops the wait
    finally:
        signal.signal(signal.SIGINT, previous)


def test_running_out_of_memory_is_one_line_naming_the_settings(tmp_path, capsys, monkeypatch):
    from privlib.audit import runner

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(runner, "run_on_inputs", exhausted)
    params = tmp_path / "p.yaml"
    params.write_text("dataset: ce\nn_train: 100\nsynthesizers: [{method: Copy}]\n")
    code = main(["--quiet", "audit", "--params", str(params), "--out", str(tmp_path / "out")])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1
    assert "ran out of memory; lower --max-input-mb or --fidelity-sample" in lines[0]
    assert not (tmp_path / "out" / "metrics.json").exists()
