"""Risk and utility side by side: several synthetic tables of the same training data, one row each,
and the declaration of the audit's comparison."""

from __future__ import annotations

import numpy as np
import pandas as pd

from privlib.declaration import MeasureSpec, Reference
from privlib.errors import ParameterError
from privlib.schema import NUMERIC, check_columns, check_comparable, check_frame, infer_kinds
from privlib.utility.bands import PMSE_COPY_RATIO
from privlib.validation import (
    HasMethods,
    Instance,
    Integer,
    Names,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["COMPARE_SYNTHESIZERS", "COMPARISON_COLUMNS", "compare_synthesizers"]

#: Columns of :func:`compare_synthesizers`, privacy measures first.
COMPARISON_COLUMNS = {
    "dcr_holdout_share": "share of synthetic records closer to training than to holdout (0.5 = no memorisation)",
    "nn_mia_auc": "nearest-neighbour membership attack AUC (0.5 = no information, 1 = every member exposed)",
    "privacy_loss": "AA(holdout vs S) - AA(train vs S) (0 ideal, about 0.5 for a copy)",
    "membership_f1": "F1 of the Hamming-threshold membership attack (partitioning method)",
    "membership_m": "relative membership risk M (at most 0.2 acceptable; NaN without the population size)",
    "cap": "average correct attribution probability of the target from the keys for the training records "
    "(version 1); raw, not the excess over holdout records that the attribute verdict reads",
    "tstr": "train-on-synthetic-test-on-holdout score for the target",
    "trtr": "train-on-real-test-on-holdout score (the same for every synthesizer)",
    "tstr_ratio": "(tstr - chance) / (trtr - chance): the share of the real data's gain over chance kept",
    "pmse_ratio": "pMSE / its null expectation (about 1 = sample-like; about 0.5 = fitted to the "
    f"training sample; below {PMSE_COPY_RATIO:g} = a sign of copying; far above 1 = easy to tell apart)",
    "mean_tvd": "mean total variation distance of the marginals (0 = identical)",
}


@validate_params(
    {
        "train": [Table()],
        "holdout": [Table()],
        "synthetic": [Instance(dict, description="a dict of labels to DataFrames")],
        "keys": [Names()],
        "target": [Names()],
        "population_size": [Integer(low=1), None],
        "random_state": [RandomState()],
        "h": [Integer(low=0)],
        "attack_size": [Integer(low=1), None],
        "n_repeats": [Integer(low=1)],
        "estimator": [HasMethods("fit", "predict_proba"), None],
    }
)
def compare_synthesizers(
    *,
    train,
    holdout,
    synthetic,
    keys,
    target,
    population_size=None,
    random_state=None,
    h=5,
    attack_size=None,
    n_repeats=1,
    estimator=None,
) -> pd.DataFrame:
    """Privacy and utility of several synthetic tables of the same training data, one row each.

    For each synthetic table ``S`` the function computes, with the kit's own measures:

    * privacy: :func:`privlib.membership.dcr_holdout_share`, the nearest-neighbour attack AUC
      (:func:`privlib.membership.nn_mia`), the privacy loss of Yale et al.
      (:func:`privlib.membership.privacy_loss`, holdout as test), the Hamming-threshold attack by
      the partitioning method (:func:`privlib.membership.partition_risk`: its F1 and relative risk
      M) and the average CAP of ``target`` given ``keys`` (:func:`privlib.attribute.cap`, version 1,
      computed for the training records; numeric keys and a numeric target are first cut into
      the same quantile bins of the training data by :func:`privlib.attribute.discretize`);
    * utility: :func:`tstr` (trained on ``S`` or on ``train``, scored on ``holdout``), the pMSE
      ratio of :func:`pmse` (training data against ``S``, default logistic model) and the mean TVD
      of :func:`marginal_fidelity`.

    Parameters
    ----------
    train : pandas.DataFrame
        The real data every synthesizer was trained on.
    holdout : pandas.DataFrame
        Real records from the same population that no synthesizer saw.
    synthetic : dict of str to pandas.DataFrame
        The synthetic tables, by name (e.g. the synthesizer's name); each has the columns of
        ``train``.
    keys : str or list of str
        The intruder's key variables for CAP.
    target : str
        The variable predicted by TSTR and attributed by CAP.
    population_size : int, optional
        Size N of the population ``train`` was drawn from. With it the attack set holds a share
        ``t = n / N`` of training records and M is computed; without it ``t = 0.5`` (which
        overstates the risk, El Emam et al. 2022) and ``membership_m`` is NaN.
    random_state : int, numpy.random.Generator or None
        One seed for every random step (subsampling to equal sizes, attack sets).
    h : int, default 5
        Hamming threshold of the membership attack.
    attack_size : int, optional
        Records per attack set (default: :func:`privlib.membership.partition_risk`'s).
    n_repeats : int, default 1
        Repetitions of the random measures (privacy loss, membership attack).
    estimator : scikit-learn estimator, optional
        The TSTR model (see :func:`tstr`).

    Returns
    -------
    pandas.DataFrame
        One row per synthetic table (index: its name) and the columns of
        :data:`COMPARISON_COLUMNS`; ``df.attrs["tstr_metric"]`` names the TSTR score.

    Raises
    ------
    PrivlibError
        If ``synthetic`` is not a non-empty dict of DataFrames, or any measure rejects its input
        (the message names the table).
    """
    # the measures load their model libraries (scikit-learn, numba) when the comparison runs, not
    # when the catalogue reads this declaration
    from privlib import attribute, membership
    from privlib.utility.marginals import marginal_fidelity
    from privlib.utility.propensity import pmse
    from privlib.utility.train_synthetic import tstr

    if not isinstance(synthetic, dict) or not synthetic:
        raise ParameterError(
            "`synthetic` must be a non-empty dict mapping a name to a synthetic DataFrame, e.g. "
            "{'SequentialTrees': table}."
        )
    check_frame(train, "train")
    check_frame(holdout, "holdout")
    check_comparable(train, holdout, ("train", "holdout"), unseen="ignore")
    keys = check_columns(train, keys, "keys", "train")
    target = check_columns(train, target, "target", "train")
    if len(target) != 1:
        raise ParameterError(f"`target` must name one column for TSTR, got {target}.")
    target = target[0]
    for name, table in synthetic.items():
        check_frame(table, f"synthetic[{name!r}]")
        check_comparable(train, table, ("train", f"synthetic[{name!r}]"), unseen="ignore")

    rng = np.random.default_rng(random_state)
    kinds = infer_kinds(train[keys + [target]], name="train")
    to_bin = [c for c, kind in kinds.items() if kind == NUMERIC]
    t = None if population_size is not None else 0.5
    rows, metric = {}, None
    for name, table in synthetic.items():
        table = table[list(train.columns)]
        cap_train, cap_synthetic = train[keys + [target]], table[keys + [target]]
        if to_bin:
            cap_train, cap_synthetic = attribute.discretize(
                train=cap_train, synthetic=cap_synthetic, columns=to_bin
            )
        attack = membership.partition_risk(
            train=train,
            holdout=holdout,
            synthetic=table,
            t=t,
            attack_size=attack_size,
            h=h,
            random_state=rng,
            population_size=population_size,
            n_repeats=n_repeats,
        )
        fit = tstr(train=train, synthetic=table, holdout=holdout, target=target, estimator=estimator)
        metric = fit.metric
        rows[name] = {
            "dcr_holdout_share": membership.dcr_holdout_share(
                synthetic=table, train=train, holdout=holdout, random_state=rng
            ).value,
            "nn_mia_auc": membership.nn_mia(
                train=train, holdout=holdout, synthetic=table, random_state=rng
            ).auc,
            "privacy_loss": membership.privacy_loss(
                train=train, holdout=holdout, synthetic=table, random_state=rng, n_repeats=n_repeats
            ).value,
            "membership_f1": attack.f1,
            "membership_m": attack.m if attack.m_from == "n/N" else np.nan,
            "cap": attribute.cap(train=cap_train, synthetic=cap_synthetic, keys=keys, target=target).value,
            "tstr": fit.value,
            "trtr": fit.baseline,
            "tstr_ratio": fit.ratio,
            "pmse_ratio": pmse(train=train, synthetic=table).ratio,
            "mean_tvd": marginal_fidelity(train=train, synthetic=table).value,
        }
    out = pd.DataFrame.from_dict(rows, orient="index", columns=list(COMPARISON_COLUMNS))
    out.index.name = "synthesizer"
    out.attrs["tstr_metric"] = metric
    return out


#: The audit's comparison of several synthetic files, compared by eye (no threshold rule).
COMPARE_SYNTHESIZERS = MeasureSpec(
    "compare_synthesizers",
    "Synthetic files side by side",
    "comparison",
    None,
    Reference("privlib.utility:compare_synthesizers"),
    lambda c: {
        "train": c.train,
        "holdout": c.holdout,
        "synthetic": c.synthetics,
        "keys": c.keys,
        "target": c.sensitive[:1],
        "population_size": c.population_size,
        "random_state": c.settings["seed"],
    },
    needs=("several_synthetic", "holdout", "keys", "sensitive"),
)
