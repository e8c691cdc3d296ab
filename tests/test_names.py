"""Names with one meaning: every table, column and record parameter of a public function is named
from the README's table of names, with its kind; old names work for one release with a warning.

The public functions are those ``tests/test_api.py`` finds by walking the package; a parameter's
kind is read from its declared constraint (a table, column names, row positions), so a new
function or parameter is checked without being listed here.
"""

from __future__ import annotations

import inspect
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from test_api import FUNCTIONS

import privlib as pl
from privlib.errors import ParameterError
from privlib.validation import Integer, Names, Table, validate_params

README = Path(__file__).resolve().parents[1] / "README.md"
SECTION = "### Names of tables, columns and records"


def _readme_names() -> dict[str, str]:
    """Name to kind, from the rows of the README's table of names."""
    text = README.read_text(encoding="utf-8")
    assert SECTION in text, "the README has no section of names"
    body = text.split(SECTION, 1)[1].split("\n#", 1)[0]
    names = {}
    for line in body.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([^`]+)`", cells[0]):
                names[name] = cells[1]
    return names


NAMES = _readme_names()


def _kind(accepted) -> str | None:
    """A parameter's kind from its declared constraints: a table, columns, records or other."""
    described = " ".join(getattr(kind, "description", "") for kind in accepted if kind is not None)
    if any(isinstance(kind, Table) for kind in accepted):
        return "table"
    if "row positions" in described:
        return "records"
    # a pair of column lists is columns; a mapping of column names to tolerances is not
    if any(isinstance(kind, Names) for kind in accepted) or "column list" in described:
        return "columns"
    return None


def _named_parameters() -> list[tuple[str, str, str]]:
    """(function, parameter, kind) of every table, column and record parameter found."""
    found = []
    for function_name, function in sorted(FUNCTIONS.items()):
        for parameter, accepted in getattr(function, "__privlib_constraints__", {}).items():
            kind = _kind(accepted)
            if kind is not None:
                found.append((function_name, parameter, kind))
    return found


PARAMETERS = _named_parameters()


def test_the_readme_table_has_the_three_kinds():
    assert set(NAMES.values()) == {"table", "columns", "records"}
    assert {"train", "synthetic", "holdout", "population"} == {n for n, k in NAMES.items() if k == "table"}


def test_the_parameters_are_found():
    # one of each kind, from functions of three families
    assert ("membership.nn_mia", "holdout", "table") in PARAMETERS
    assert ("attribute.cap", "target", "columns") in PARAMETERS
    assert ("membership.shadow_model_attack", "target_rows", "records") in PARAMETERS
    assert ("identity.linkability", "aux_columns", "columns") in PARAMETERS


@pytest.mark.parametrize("function_name, parameter, kind", PARAMETERS)
def test_every_table_column_and_record_name_is_in_the_readme(function_name, parameter, kind):
    assert parameter in NAMES, f"{function_name}({parameter}=): add the name to the README or rename it"
    assert NAMES[parameter] == kind, (
        f"{function_name}({parameter}=) is {kind}, the README says {NAMES[parameter]}"
    )


def test_every_name_of_the_readme_is_used():
    # by a public function, or (sensitive) by the audit's settings, which hand each sensitive
    # column to the per-variable measures as their target
    from privlib.audit import AuditSpec

    used = {parameter for _, parameter, _ in PARAMETERS} | set(AuditSpec.model_fields)
    assert sorted(set(NAMES) - used) == []


def test_every_old_name_leads_to_a_name_of_the_readme():
    renamed = {
        (name, old): new
        for name, f in FUNCTIONS.items()
        for old, new in getattr(f, "__privlib_renamed__", {}).items()
    }
    assert ("membership.adversarial_accuracy", "target") in renamed
    for (name, old), new in renamed.items():
        assert new in NAMES, (name, old, new)
        assert old not in inspect.signature(FUNCTIONS[name]).parameters, (name, old)


# -- the alias ---------------------------------------------------------------------------------
@validate_params({"train": [Table()], "n": [Integer(low=1)]}, renamed={"original": "train"})
def _rows(*, train, n=1):
    return len(train) * n


FRAME = pd.DataFrame({"x": [1.0, 2.0, 3.0]})


def test_an_old_name_works_with_a_warning_naming_the_new_one():
    with pytest.warns(DeprecationWarning, match=r"`original` is renamed `train`"):
        assert _rows(original=FRAME, n=2) == 6
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name warns of nothing
        assert _rows(train=FRAME, n=2) == 6


def test_an_old_name_is_checked_under_the_new_names_constraint():
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(ParameterError, match="`train` must be a pandas DataFrame"),
    ):
        _rows(original=[1, 2])


def test_both_names_given_is_one_line_naming_both():
    with pytest.raises(ParameterError) as error:
        _rows(original=FRAME, train=FRAME)
    message = str(error.value)
    assert "\n" not in message
    assert "`original`" in message and "`train`" in message


def test_a_rename_to_no_parameter_or_from_a_parameter_is_refused_at_definition():
    with pytest.raises(TypeError, match="renamed"):
        validate_params({}, renamed={"old": "missing"})(lambda *, train: train)
    with pytest.raises(TypeError, match="renamed"):
        validate_params({}, renamed={"train": "synthetic"})(lambda *, train, synthetic: train)


def test_a_measure_gives_the_same_result_under_its_old_name():
    real = pd.DataFrame({"age": [20.0, 60.0], "sex": ["F", "M"]})
    fake = pd.DataFrame({"age": [20.0, 30.0], "sex": ["F", "M"]})
    with pytest.warns(DeprecationWarning, match="`reference` is renamed `train`"):
        old = pl.identity.dcr(synthetic=fake, reference=real)
    # by hand (age range 40): the copy 0; (30, M) is (30/40 + 0) / 2 from (60, M), nearer than
    # (10/40 + 1) / 2 from (20, F)
    assert old.tolist() == pl.identity.dcr(synthetic=fake, train=real).tolist() == [0.0, 0.375]
    with pytest.raises(ParameterError, match="pass `train` only"):
        pl.identity.dcr(synthetic=fake, train=real, reference=real)
