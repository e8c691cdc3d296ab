"""Every measure is declared once, in its module, listed in order in privlib/catalogue.py, and every
result the kit can produce has a rule there.

The checks read the declarations (``MEASURES``, ``CATALOGUE``, ``_DECLARED``) and the library's
source: a measure name typed into a compute function or a module's key constant but missing from
the declarations, a key declared twice, each fails here with the name at fault. A measure module
written as privlib/audit/README.md says is run and judged by the audit. A family or an input that does not exist,
or a threshold direction that is not True or False, fails earlier, when the declaration is made
(at import), with the valid names; the tests below show it does.
"""

from __future__ import annotations

import collections
import dataclasses
import importlib
import inspect
import re
import sys
import typing
from pathlib import Path

import pandas as pd
import pytest

import privlib
import privlib.catalogue
from privlib.catalogue import _DECLARED, CATALOGUE, MEASURES
from privlib.declaration import FAMILIES, NEEDS, FamilyKey, MeasureSpec, Need, Reference
from privlib.results import Result
from privlib.rules import Threshold
from privlib.thresholds import REGISTRY as RULES

SOURCE = Path(privlib.__file__).parent

#: Results of the utility (fidelity) measures: they tell how useful the synthetic data is, are never
#: judged against a privacy threshold, and so have no rule. Only the modules of privlib/utility/ may
#: make them.
UTILITY = {"tstr", "pmse", "mean_tvd"}

#: Values of the placeholders of measure names built with an f-string.
PLACEHOLDERS = {
    "mode": ("univariate", "multivariate"),  # identity.singling_out's two modes
    # records.tpr_at_low_fpr: the kit's attacks at its two false-positive rates (records.LOW_FPRS)
    "attack": ("nn_mia", "density_attack", "shadow_model"),
    "rate": ("0.1", "1"),
}

# ``measure="..."`` (keyword), and the name given to criteria's result builder
# ``_finish(ResultClass, "name", ...)``; either may be an f-string.
_KEYWORD = re.compile(r"""\bmeasure\s*=\s*(f?)(["'])([^"'\n]+)\2""")
_BUILDER = re.compile(r"""\b_finish\(\s*\w+\s*,\s*(f?)(["'])([^"'\n]+)\2""")
# a measure module's key constant, ``KEY = "..."`` or ``<NAME>_KEY = "..."``, which its function
# gives as ``measure=KEY``
_CONSTANT = re.compile(r"""^(?:\w+_)?KEY\s*=\s*(f?)(["'])([^"'\n]+)\2""", re.M)
# docstring examples (``>>> ...``): they name measures, they do not produce them
_DOCTEST = re.compile(r"^\s*(>>>|\.\.\.) .*$", re.M)
# ``measure: str = "..."``: the default of a Result class
_DEFAULT = re.compile(r"""^\s+measure:\s*str\s*=\s*(["'])([^"'\n]+)\1""", re.M)


def duplicate_keys(declared) -> list[str]:
    return sorted(key for key, n in collections.Counter(spec.key for spec in declared).items() if n > 1)


def expand(name: str, is_fstring: bool, where: str) -> list[str]:
    """The measure names an f-string literal can give (the literal itself otherwise)."""
    if not is_fstring:
        return [name]
    fields = re.findall(r"{(\w+)}", name)
    unknown = [f for f in fields if f not in PLACEHOLDERS]
    assert not unknown, (
        f"{where}: the measure name {name!r} is built from {unknown}, whose values this "
        "test does not know; add them to PLACEHOLDERS"
    )
    names = [name]
    for field in fields:
        names = [n.replace("{" + field + "}", value) for n in names for value in PLACEHOLDERS[field]]
    return names


def measure_names_in_source() -> dict[str, set[str]]:
    """Every measure name typed into the library's source, with the files it is typed in."""
    found: dict[str, set[str]] = collections.defaultdict(set)
    for path in sorted(SOURCE.rglob("*.py")):
        text = _DOCTEST.sub("", path.read_text(encoding="utf-8"))
        where = str(path.relative_to(SOURCE.parent))
        for pattern in (_KEYWORD, _BUILDER, _CONSTANT):
            for match in pattern.finditer(text):
                for name in expand(match.group(3), match.group(1) == "f", where):
                    found[name].add(where)
    return found


# --------------------------------------------------------------------------------------------
# (1) one declaration per key
# --------------------------------------------------------------------------------------------
def test_every_key_is_declared_once():
    assert duplicate_keys(_DECLARED) == [], "declared more than once"
    # MEASURES is read from the declarations, so a second declaration of a key would shrink it
    assert len(MEASURES) == len(_DECLARED)
    assert list(MEASURES.values()) == list(_DECLARED)
    assert all(key == spec.key for key, spec in MEASURES.items())


def test_a_duplicate_declaration_is_detected():
    # the check above on a list that declares its first measure twice
    doubled = _DECLARED + (_DECLARED[0],)
    assert duplicate_keys(doubled) == [_DECLARED[0].key]
    assert len({spec.key: spec for spec in doubled}) != len(doubled)


def test_the_registry_and_the_catalogue_come_from_the_declarations():
    # each rule is written once (in its declaration); the registry and the declarations share it
    assert dict(RULES) == {spec.key: spec.rule for spec in _DECLARED if spec.rule is not None}
    assert all(RULES[key] is MEASURES[key].rule for key in RULES)
    assert not hasattr(RULES, "__setitem__")
    assert list(CATALOGUE) == [spec for spec in _DECLARED if spec.audited]
    assert privlib.audit.MEASURES is MEASURES and privlib.audit.CATALOGUE is CATALOGUE


def references(spec: MeasureSpec) -> list[Reference]:
    return [ref for ref in (spec.function, spec.plot, spec.table) if isinstance(ref, Reference)]


def test_every_reference_of_a_declaration_resolves_to_a_function():
    for spec in _DECLARED:
        for reference in references(spec):
            assert reference.owner.startswith(f"measure {spec.key!r}: ")
            assert callable(reference.resolve()), reference.path
    # every function the audit runs is named by reference, so reading the declarations imports none
    assert all(isinstance(spec.function, Reference) for spec in CATALOGUE if spec.function is not None)


def test_an_unresolvable_reference_fails_naming_its_declaration():
    declared = MEASURES["nn_mia_auc"]
    # a misspelt module fails when the declaration is made
    with pytest.raises(ValueError) as raised:
        dataclasses.replace(declared, function=Reference("privlib.membershp:nn_mia"))
    assert str(raised.value) == (
        "measure 'nn_mia_auc': function: no module 'privlib.membershp' (in the reference "
        "'privlib.membershp:nn_mia')."
    )
    # a misspelt function when it is first used (looking it up imports the module)
    misspelt = dataclasses.replace(declared, function=Reference("privlib.membership:nn_mai"))
    with pytest.raises(ValueError) as raised:
        misspelt.function(train=None)
    assert str(raised.value) == (
        "measure 'nn_mia_auc': function: module 'privlib.membership' has no 'nn_mai' (in the "
        "reference 'privlib.membership:nn_mai')."
    )
    # and a reference that is not one, at once
    with pytest.raises(ValueError, match="'nn_mia' is not a reference; write 'package.module:function'"):
        Reference("nn_mia")


def test_a_reference_calls_and_reads_as_its_function():
    reference = Reference("privlib.membership:nn_mia")
    assert reference.resolve() is privlib.membership.nn_mia
    assert inspect.signature(reference) == inspect.signature(privlib.membership.nn_mia)
    assert inspect.unwrap(reference) is inspect.unwrap(privlib.membership.nn_mia)
    assert Reference("operator:add")(2, 3) == 5


def test_every_audited_function_is_public():
    for spec in CATALOGUE:
        if spec.function is None:
            assert spec.not_applicable, f"{spec.key}: no function and no reason why the audit never runs it"
            continue
        function = inspect.unwrap(spec.function)
        module = importlib.import_module(function.__module__)
        assert function.__name__ in module.__all__, f"{spec.key}: {function.__qualname__} is not public"


# --------------------------------------------------------------------------------------------
# (2) every measure name in the library's source has a rule
# --------------------------------------------------------------------------------------------
def test_every_measure_name_in_the_source_is_declared_with_a_rule():
    found = measure_names_in_source()
    utility = {name for name, files in found.items() if all(f.startswith("privlib/utility/") for f in files)}
    assert utility == UTILITY, f"utility measures changed: {sorted(utility ^ UTILITY)}; judge or list them"
    assert not UTILITY & set(MEASURES)
    missing = {
        name: sorted(files) for name, files in found.items() if name not in UTILITY and name not in RULES
    }
    assert not missing, f"measure names with no declaration or no rule in privlib/catalogue.py: {missing}"


def test_every_rule_is_a_measure_the_source_produces():
    # the other direction, which also shows the scan above finds the names it should
    found = set(measure_names_in_source())
    defaults = {
        m.group(2)
        for path in SOURCE.rglob("*.py")
        for m in _DEFAULT.finditer(path.read_text(encoding="utf-8"))
    }
    orphans = sorted(set(RULES) - found - defaults)
    assert not orphans, f"rules of measures that no code produces: {orphans}"


def test_the_scan_expands_f_strings_and_refuses_unknown_placeholders():
    assert expand("singling_out_{mode}", True, "x.py") == [
        "singling_out_univariate",
        "singling_out_multivariate",
    ]
    assert expand("plain_{name}", False, "x.py") == ["plain_{name}"]
    with pytest.raises(AssertionError, match="built from \\['target'\\]"):
        expand("{target}_auc", True, "x.py")


@pytest.mark.parametrize("mode", PLACEHOLDERS["mode"])
def test_singling_out_results_carry_a_declared_key(mode):
    train = pd.DataFrame({"a": list("xyzwxyzw"), "b": list("ppqqrrss"), "c": list("mnmnmnmn")})
    result = privlib.identity.singling_out(
        synthetic=train, train=train, holdout=train, mode=mode, n_cols=2, n_attacks=4, random_state=0
    )
    assert result.measure == f"singling_out_{mode}"
    assert result.measure in RULES and MEASURES[result.measure].family == "identity"
    assert privlib.thresholds.judge(result).verdict is not None


def test_record_level_results_carry_declared_keys():
    # the low false-positive points name their measure from the attack and the rate (records.py)
    train = pd.DataFrame({"x": [float(i) for i in range(40)]})
    holdout = pd.DataFrame({"x": [i + 0.5 for i in range(40)]})
    attack = privlib.membership.nn_mia(train=train, holdout=holdout, synthetic=train, random_state=0)
    points = privlib.records.low_fpr_points(attack)
    missing = [p.measure for p in points if p.measure not in RULES]
    assert not missing, f"record-level measures with no declaration or no rule: {missing}"


# --------------------------------------------------------------------------------------------
# (3) every audited measure has a rule, unless it gives a table
# --------------------------------------------------------------------------------------------
def _returns(spec) -> type:
    return typing.get_type_hints(inspect.unwrap(spec.function))["return"]


def test_every_audited_measure_has_a_rule_unless_it_gives_a_table():
    for spec in CATALOGUE:
        if spec.function is None:  # never run by the audit, but declared with its rule
            assert spec.rule is not None, spec.key
            continue
        returns = _returns(spec)
        if spec.rule is None:
            assert returns is pd.DataFrame, f"{spec.key} gives a {returns.__name__} but has no rule"
        else:
            assert issubclass(returns, Result), f"{spec.key} has a rule but gives a {returns}"
    tables = [spec.key for spec in CATALOGUE if spec.rule is None]
    assert tables == ["compare_synthesizers"]


# --------------------------------------------------------------------------------------------
# (4) families and inputs exist
# --------------------------------------------------------------------------------------------
def test_every_family_and_every_input_needed_exists():
    for spec in _DECLARED:
        assert spec.family in FAMILIES, (
            f"{spec.key}: unknown family {spec.family!r}; use one of {sorted(FAMILIES)}"
        )
        unknown = [need for need in spec.needs if need not in NEEDS]
        assert not unknown, f"{spec.key}: unknown needs {unknown}; use keys of NEEDS {sorted(NEEDS)}"
    # every family has a measure, and every input a measure needs
    assert {spec.family for spec in _DECLARED} == set(FAMILIES)
    assert {need for spec in _DECLARED for need in spec.needs} <= set(NEEDS)


# --------------------------------------------------------------------------------------------
# (5) a typo in a declaration fails when the declaration is made, with the valid names
# --------------------------------------------------------------------------------------------
def test_the_declared_names_are_the_literal_types():
    assert (
        typing.get_args(FamilyKey) == tuple(FAMILIES) == ("identity", "attribute", "membership", "comparison")
    )
    assert typing.get_args(Need) == tuple(NEEDS)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (dict(family="membreship"), ValueError, "unknown family 'membreship'; use one of ['identity', "),
        (dict(needs=("holdout", "key")), ValueError, "unknown needs ['key']; use some of ['holdout', "),
        (dict(needs="holdout"), TypeError, "`needs` must be a tuple of input names, got 'holdout'"),
    ],
)
def test_a_typo_in_a_declaration_fails_when_it_is_made(change, error, message):
    declared = MEASURES["nn_mia_auc"]
    with pytest.raises(error) as raised:
        dataclasses.replace(declared, **change)
    assert str(raised.value).startswith(f"measure 'nn_mia_auc': {message}")


@pytest.mark.parametrize("direction", ["lower", 0, None])
def test_a_threshold_direction_that_is_not_true_or_false_fails(direction):
    with pytest.raises(TypeError, match="`higher_is_riskier` must be True .* or False"):
        Threshold(0.05, source="kit default", higher_is_riskier=direction)
    assert Threshold(0.05, source="kit default", higher_is_riskier=False).higher_is_riskier is False


def test_a_module_that_declares_a_typo_fails_at_import(tmp_path, monkeypatch):
    (tmp_path / "scratch_declarations.py").write_text(
        "from privlib.declaration import MeasureSpec\n"
        "SPEC = MeasureSpec('scratch', 'Scratch', 'identiy', None)\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="unknown family 'identiy'; use one of"):
        importlib.import_module("scratch_declarations")


# --------------------------------------------------------------------------------------------
# (3) the walk-through of privlib/audit/README.md, on a scratch measure
# --------------------------------------------------------------------------------------------
SCRATCH_MODULE = '''"""A scratch measure written as privlib/audit/README.md says: the share of synthetic records
equal to a training record."""

from dataclasses import dataclass

from privlib.declaration import MeasureSpec, Reference, release
from privlib.results import Result
from privlib.rules import Threshold
from privlib.validation import Table, validate_params

__all__ = ["ScratchShare", "scratch_share"]

KEY = "scratch_share"


@dataclass(frozen=True, kw_only=True)
class ScratchShare(Result):
    n_copies: int = 0


@validate_params({"train": [Table()], "holdout": [Table(), None], "synthetic": [Table()]})
def scratch_share(*, train, holdout=None, synthetic):
    copies = len(synthetic.merge(train.drop_duplicates(), how="inner"))
    share = copies / len(synthetic)
    return ScratchShare(measure=KEY, value=share, ci_low=share, ci_high=share, n_copies=copies)


SCRATCH_SHARE = MeasureSpec(
    KEY,
    "Scratch: synthetic records equal to a training record",
    "identity",
    Threshold(0.5, source="kit default: the scratch measure's cut-off"),
    Reference("scratch_measure:scratch_share"),
    release,
)
'''


@pytest.mark.parametrize("copied, verdict", [(30, "risk"), (10, "no evidence of risk")])
def test_a_measure_written_as_the_walk_through_says_is_run_and_judged(copied, verdict, tmp_path, monkeypatch):
    from privlib.audit import Audit, AuditSpec, load_audit_inputs

    (tmp_path / "scratch_measure.py").write_text(SCRATCH_MODULE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "scratch_measure", raising=False)
    spec = importlib.import_module("scratch_measure").SCRATCH_SHARE
    # its line in the catalogue puts its rule in the registry, which reads the declarations' rules
    monkeypatch.setitem(privlib.catalogue.RULES, spec.key, spec.rule)
    assert RULES["scratch_share"] is spec.rule
    # 40 people; the synthetic data repeats `copied` of them and moves the others' ages out of range
    train = pd.DataFrame({"age": range(20, 60), "sex": ["F", "M"] * 20})
    synthetic = pd.concat(
        [train.head(copied), train.tail(40 - copied).assign(age=lambda t: t["age"] + 100)], ignore_index=True
    )
    inputs = load_audit_inputs(train=train, synthetic=synthetic)
    settings = AuditSpec.build(train="train.csv", synthetic=["synthetic.csv"])
    report = Audit(inputs, settings, catalogue=(spec,)).run()
    (measured,) = report.measures
    # copied of 40 against the cut-off 0.5: 30/40 = 0.75 above it, 10/40 = 0.25 below
    assert (measured.key, measured.value, measured.verdict) == ("scratch_share", copied / 40, verdict)
    assert measured.title == "Scratch: synthetic records equal to a training record"
