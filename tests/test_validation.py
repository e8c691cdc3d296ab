"""One common test of bad input for every public measure: wrong types, empty tables, booleans
for counts, columns with no value; each must raise a PrivlibError that names the parameter.

Every public function of the measure modules must appear in ``VALID`` (a test checks it), with
arguments that work; each case then spoils one argument.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from test_api import FUNCTIONS

import privlib as pl
from privlib.errors import PrivlibError
from privlib.validation import Integer, Number, Options, Table, validate_params


def _table(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 70, n).astype(float),
            "sex": pd.Categorical(rng.choice(["F", "M"], n)),
            "ill": pd.Categorical(rng.choice(["y", "n"], n)),
        }
    )


T, H, S = _table(seed=0), _table(seed=1), _table(seed=2)
POPULATION = pd.concat([T, H, S], ignore_index=True)

#: Arguments that work, per public function.
VALID = {
    "identity.identical_match_share": dict(synthetic=S, train=T, holdout=H),
    "identity.dcr": dict(synthetic=S, reference=T),
    "identity.copy_test": dict(train=T, holdout=H, synthetic=S),
    "identity.dcr_summary": dict(synthetic=S, train=T, holdout=H),
    "identity.replicated_uniques": dict(original=T, synthetic=S, keys=["sex", "ill"]),
    "identity.match_risk": dict(original=T, synthetic=S, known=["sex"], synthesized=["ill"]),
    "identity.singling_out": dict(synthetic=S, train=T, control=H, n_attacks=5, random_state=0),
    "identity.linkability": dict(
        synthetic=S, train=T, control=H, aux_columns=(["age"], ["sex", "ill"]), n_attacks=5, random_state=0
    ),
    "attribute.cap": dict(original=T, synthetic=S, keys=["sex"], target="ill"),
    "attribute.discretize": dict(original=T, synthetic=S),
    "attribute.knn_risk": dict(original=T, synthetic=S, keys=["age", "sex"], target="ill", random_state=0),
    "attribute.inference": dict(synthetic=S, train=T, control=H, secret="ill", n_attacks=5, random_state=0),
    "membership.naive_f1": dict(t=0.2),
    "membership.relative_risk": dict(f1=0.5, n=40, N=120),
    "membership.risk_utility_loss": dict(m=0.1, utility=0.8),
    "membership.ground_truth_risk": dict(
        population=POPULATION, members=np.arange(40), synthetic=S, attack_size=30, h=1, random_state=0
    ),
    "membership.partition_risk": dict(
        train=T, holdout=H, synthetic=S, t=0.5, attack_size=20, h=1, random_state=0
    ),
    "membership.dcr_holdout_share": dict(synthetic=S, train=T, holdout=H, random_state=0),
    "membership.threshold_attack": dict(train=T, holdout=H, synthetic=S, random_state=0),
    "membership.nn_mia": dict(train=T, holdout=H, synthetic=S, random_state=0),
    "membership.adversarial_accuracy": dict(target=T, synthetic=S, random_state=0),
    "membership.privacy_loss": dict(train=T, test=H, synthetic=S, random_state=0),
    "membership.discriminator_test": dict(train=T, holdout=H, synthetic=S, random_state=0),
    "membership.shadow_model_attack": dict(
        synthesizer="IndependentMarginals",
        train=T,
        population=POPULATION,
        n_targets=1,
        n_shadows=4,
        n_test=2,
        shadow_size=20,
        n_jobs=1,
        random_state=0,
    ),
    "membership.density_attack": dict(
        train=T, holdout=H, synthetic=S, reference=POPULATION.iloc[80:], random_state=0
    ),
    "membership.tpr_at_low_fpr": dict(
        member_scores=np.arange(40.0), nonmember_scores=np.arange(40.0), fpr=0.05
    ),
    "membership.low_fpr_points": dict(
        attack_result=pl.membership.nn_mia(train=T, holdout=H, synthetic=S), fprs=(0.05,)
    ),
    "membership.nn_mia_low_fpr": dict(train=T, holdout=H, synthetic=S, fpr=0.05),
    "utility.tstr": dict(train=T, synthetic=S, holdout=H, target="ill"),
    "utility.pmse": dict(original=T, synthetic=S, random_state=0, n_permutations=2),
    "utility.marginal_fidelity": dict(original=T, synthetic=S),
    "utility.fidelity_summary": dict(
        train=T, synthetic=S, holdout=H, target="ill", random_state=0, n_bootstrap=20
    ),
    "utility.compare_synthesizers": dict(
        train=T, holdout=H, synthetic={"s": S}, keys=["sex"], target="ill", random_state=0
    ),
}
#: Functions whose scalar arguments are array-friendly formulas, checked by their own tests.
FORMULAS = {"membership.naive_f1", "membership.relative_risk", "membership.risk_utility_loss"}
TABLE_ROLES = {
    "synthetic",
    "train",
    "holdout",
    "original",
    "reference",
    "population",
    "control",
    "test",
    "target",
}
COUNTS = {
    "n_attacks",
    "attack_size",
    "n_repeats",
    "n_permutations",
    "n_bins",
    "k",
    "n_neighbors",
    "n_cols",
    "h",
    "population_size",
    "n_targets",
    "n_shadows",
    "n_test",
    "shadow_size",
    "synthetic_size",
    "n_components",
}


def _spoiled_cases():
    for name, arguments in VALID.items():
        if name in FORMULAS:
            continue
        parameters = inspect.signature(FUNCTIONS[name]).parameters
        for role in sorted(TABLE_ROLES & set(arguments)):
            if not isinstance(arguments[role], pd.DataFrame):
                continue
            frame = arguments[role]
            yield name, role, "a list", list(frame.itertuples(index=False))
            yield name, role, "no rows", frame.iloc[:0]
            yield name, role, "a column with no value", frame.assign(sex=pd.Categorical([None] * len(frame)))
        for count in sorted(COUNTS & set(parameters)):
            yield name, count, "a boolean", True
        if "random_state" in parameters:
            yield name, "random_state", "a negative seed", -1
        if "confidence" in parameters:
            yield name, "confidence", "a confidence of 1", 1.0


CASES = list(_spoiled_cases())


def test_every_public_measure_has_valid_arguments_here():
    assert sorted(set(FUNCTIONS) - set(VALID)) == []


@pytest.mark.parametrize("name", sorted(VALID))
def test_the_valid_arguments_work(name):
    FUNCTIONS[name](**VALID[name])


@pytest.mark.parametrize("name, parameter, what, value", CASES, ids=[f"{n}-{p}-{w}" for n, p, w, _ in CASES])
def test_bad_input_names_the_parameter(name, parameter, what, value):
    arguments = dict(VALID[name], **{parameter: value})
    with pytest.raises(PrivlibError, match=f"`{parameter}`"):
        FUNCTIONS[name](**arguments)


def test_constraints_describe_what_they_accept():
    @validate_params(
        {
            "n": [Integer(low=1)],
            "share": [Number(low=0, high=1, closed="neither"), None],
            "mode": [Options("a", "b")],
            "table": [Table()],
        }
    )
    def f(*, n, share=None, mode="a", table=None):
        return n

    assert f(n=3, table=T) == 3
    cases = [
        (dict(n=0, table=T), "`n` must be a whole number >= 1, got 0."),
        (dict(n=np.int64(2), share=1.0, table=T), "`share` must be a number > 0 and < 1, got 1.0."),
        (dict(n=1, mode="c", table=T), "`mode` must be one of 'a', 'b', got 'c'."),
        (dict(n=1, mode=True, table=T), "`mode` must be one of 'a', 'b', got True."),
        (dict(n=1, table=T.assign(extra=np.nan)), "`table` has column(s) ['extra'] with no value at all"),
        (dict(n=1, table=pd.concat([T, T["age"]], axis=1)), "`table` names column(s) ['age'] more than once"),
    ]
    for arguments, message in cases:
        with pytest.raises(PrivlibError) as error:
            f(**arguments)
        assert str(error.value).startswith(message), (str(error.value), message)
