"""The correct attribution probability (Elliot 2014; Taub et al. 2018; Baillargeon & Charest 2020;
:func:`cap`): the share of synthetic records with a person's key that also carry the person's
target value, against the holdout, and its declaration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from privlib.attribute.control import (
    _against_control,
    _check_keys_target,
    _excess_interval,
    _no_control,
    _value_codes,
)
from privlib.attribute.discretize import discretize
from privlib.declaration import Context, MeasureSpec, Reference
from privlib.errors import ParameterError
from privlib.results import Result, _fmt
from privlib.results import per_record as per_record_field
from privlib.rules import control_rule
from privlib.schema import NUMERIC
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    check_confidence,
    percentile_interval,
    resampled_means,
)
from privlib.validation import CONFIDENCE, Names, Options, RandomState, Table, validate_params

__all__ = ["CAPResult", "cap"]

KEY = "cap"


# --------------------------------------------------------------------------------------------
# CAP
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CAPResult(Result):
    """Average correct attribution probability, with its two baselines.

    Attributes
    ----------
    value : float
        Without a holdout: the average CAP of the original (training) records from the synthetic
        data (version 1 or 2, see ``variant``). With a holdout: the **excess** for training
        records, ``train_cap - holdout_cap``, the part of what the release reveals that is about
        the people in the training data rather than about anyone in the population.
    baseline : float or None
        With a holdout, 0 (training records learned about no better than holdout records);
        without one, ``None``: the verdict needs the control.
    train_cap : float
        Average CAP of the original (training) records from the synthetic data.
    holdout_cap : float or None
        Average CAP of the holdout records from the same synthetic data: what anyone in the
        population learns from this release (context, not a verdict).
    marginal_cap : float
        Guessing from the overall shares: the share, in the original data, of each record's own
        target value, scored like ``train_cap`` (version 1: 0 where the key is absent from the
        synthetic data) and averaged over the same records.
    original_cap : float
        Average CAP computed with the original data in place of the synthetic data (what the
        original itself would reveal), scored like ``train_cap`` over the same records.
    variant : {1, 2}
        1: records whose key is absent from the synthetic data count as 0; 2: they are left out.
    keys, target : tuple of str
        The intruder's key variables and the (joint) target variables.
    n_records : int
        Number of original records.
    n_matched : int
        Original records whose key combination appears in the synthetic data.
    per_record : numpy.ndarray
        CAP of each original record from the synthetic data (0 where its key is absent).
    per_record_original : numpy.ndarray
        CAP of each original record from the original data.
    per_record_marginal : numpy.ndarray
        Share of each record's target value in the original data.
    key_in_synthetic : numpy.ndarray of bool
        Whether each original record's key appears in the synthetic data.
    """

    measure: str = KEY
    variant: int = 1
    keys: tuple = ()
    target: tuple = ()
    train_cap: float = math.nan
    holdout_cap: float | None = None
    marginal_cap: float = math.nan
    original_cap: float = math.nan
    n_records: int = 0
    n_holdout: int = 0
    n_matched: int = 0
    per_record: np.ndarray = per_record_field(default=None)
    per_record_original: np.ndarray = per_record_field(default=None)
    per_record_marginal: np.ndarray = per_record_field(default=None)
    key_in_synthetic: np.ndarray = per_record_field(default=None)

    def reading(self) -> str:
        target = " and ".join(self.target)
        keys = ", ".join(self.keys)
        over = (
            "all records, counting 0 where the key is absent from the synthetic data"
            if self.variant == 1
            else f"the {self.n_matched} records whose key appears in the synthetic data"
        )
        if math.isnan(self.train_cap):
            return self.with_judgement(
                f"Average CAP (version {self.variant}) is undefined: no original record's key "
                f"({keys}) appears in the synthetic data."
            )
        text = (
            f"Knowing {keys}, an intruder using the synthetic data attributes the right {target} "
            f"to a training record with probability {_fmt(self.train_cap)}"
            f"{'' if self.holdout_cap is not None else self._interval_text()} on average over "
            f"{over} (version {self.variant}); the original data would give "
            f"{_fmt(self.original_cap)} and guessing from the overall shares {_fmt(self.marginal_cap)}"
        )
        gap = self.original_cap - self.marginal_cap
        if gap > 0:
            text += (
                f", so the synthetic data goes {(self.train_cap - self.marginal_cap) / gap:.0%} of "
                "the way from guessing to what the original reveals"
            )
        return self.with_judgement(text + ". " + _against_control(self, "CAP") + ".")


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "keys": [Names()],
        "target": [Names()],
        "holdout": [Table(), None],
        "variant": [Options(1, 2)],
        "random_state": [RandomState()],
        "confidence": [CONFIDENCE],
    },
    renamed={"original": "train"},
)
def cap(
    *,
    train,
    synthetic,
    keys,
    target,
    holdout=None,
    variant=1,
    random_state=None,
    confidence=DEFAULT_CONFIDENCE,
) -> CAPResult:
    """Correct attribution probability (CAP) of the target given the keys.

    For an original record :math:`y_0` with key :math:`K(y_0)` and target :math:`T(y_0)`,

    .. math::

        CAP(y_0) = \\frac{\\#\\{z \\in S: K(z) = K(y_0), T(z) = T(y_0)\\}}
                        {\\#\\{z \\in S: K(z) = K(y_0)\\}},

    and 0 when no synthetic record has the key. Version 1 averages over every original record;
    version 2 over the records whose key appears in the synthetic data.

    Parameters
    ----------
    train : pandas.DataFrame
        The real records (R) whose targets the intruder tries to learn.
    synthetic : pandas.DataFrame
        The released synthetic records (S). Only the ``keys`` and ``target`` columns are used.
    keys : str or list of str
        The variables the intruder knows (quasi-identifiers).
    target : str or list of str
        The variable(s) to learn; several form one joint target (all must be right).
    holdout : pandas.DataFrame, optional
        Real records of the same population the generator never saw (cut into the same bins as
        ``train``): the control. CAP above guessing is also what a useful release teaches
        about anyone in the population, so only the excess of the training records over these
        records is a disclosure about the people in the data.
    variant : {1, 2}, default 1
        1: a record whose key never appears in S counts as CAP 0; 2: such records are left out.
    random_state : int, numpy.random.Generator or None
        Seed for the bootstrap of the interval.
    confidence : float, default 0.95
        Level of the interval: a percentile bootstrap over the averaged records' CAP values
        (with a holdout, of the excess, training and holdout records resampled separately).

    Returns
    -------
    CAPResult
        With ``holdout``: ``value`` is the excess ``train_cap - holdout_cap`` with its interval and
        ``baseline`` 0, judged by :mod:`privlib.thresholds`. Without: ``value`` is ``train_cap``
        and the result is not assessable (no control). Either way ``train_cap``,
        ``marginal_cap`` (guessing from R's shares) and ``original_cap`` (R in place of S), all
        scored the same way over the same records, and per-record arrays for plots.

    Raises
    ------
    PrivlibError
        If a table is not a non-empty DataFrame, a key or target is not a column of both tables,
        a column is both key and target, a column is numeric in one table and categorical in the
        other, a key or target column shares no value between the tables, or ``variant`` is not
        1 or 2.

    Notes
    -----
    * Matching is exact, on values: numeric keys or targets must be cut into bins first (see
      :func:`discretize`), otherwise almost no record matches.
    * A missing value (NaN) is treated as a value of its own: missing matches missing, as in
      the kit's distances.
    * The computation is one factorisation of the key and target columns and a count per group
      (:func:`numpy.bincount`), so it is linear in the number of rows.
    * Under version 2 with no key in common, ``value`` and both baselines are NaN.
    * Scored like the measure: under version 1, ``marginal_cap`` and ``original_cap`` also count
      0 for a record whose key is absent from S, so the share of the way from guessing to the
      train, ``(train_cap - marginal_cap) / (original_cap - marginal_cap)``, is the same under
      both versions.

    Examples
    --------
    >>> import pandas as pd
    >>> r = pd.DataFrame({"sex": ["F", "F", "M"], "ill": ["y", "n", "n"]})
    >>> s = pd.DataFrame({"sex": ["F", "F", "F", "F"], "ill": ["y", "y", "y", "n"]})
    >>> res = cap(train=r, synthetic=s, keys="sex", target="ill", random_state=0)
    >>> res.per_record.tolist()
    [0.75, 0.25, 0.0]
    >>> v2 = cap(train=r, synthetic=s, keys="sex", target="ill", variant=2, random_state=0)
    >>> round(res.train_cap, 4), round(v2.train_cap, 4)
    (0.3333, 0.5)
    """
    confidence = check_confidence(confidence)
    if variant not in (1, 2) or isinstance(variant, bool):
        raise ParameterError(f"`variant` must be 1 or 2, got {variant!r}.")
    keys, target = _check_keys_target(train, synthetic, keys, target)
    if holdout is not None:
        _check_keys_target(holdout, synthetic, keys, target)
    n = len(train)
    from_synthetic, from_original, marginal, matched = _cap_per_record(train, synthetic, keys, target)
    # Version 1 scores a record whose key is absent from the synthetic data as 0; its two
    # baselines are scored the same way, so that the three numbers are on one scale.
    scored = (lambda a: a[matched]) if variant == 2 else (lambda a: np.where(matched, a, 0.0))
    if matched.any() or variant == 1:
        train_value, original_value, marginal_value = (
            float(scored(a).mean()) for a in (from_synthetic, from_original, marginal)
        )
    else:
        train_value = original_value = marginal_value = math.nan
    rng = np.random.default_rng(random_state)
    if holdout is None:
        low, high = percentile_interval(
            resampled_means(scored(from_synthetic), rng=rng), confidence=confidence
        )
        judged = dict(value=train_value, holdout_cap=None) | _no_control()
    else:
        holdout_scores, _, _, holdout_matched = _cap_per_record(holdout, synthetic, keys, target)
        holdout_scores = holdout_scores[holdout_matched] if variant == 2 else holdout_scores
        holdout_value = float(holdout_scores.mean()) if len(holdout_scores) else math.nan
        low, high = _excess_interval(scored(from_synthetic), holdout_scores, rng=rng, confidence=confidence)
        judged = dict(value=train_value - holdout_value, holdout_cap=holdout_value, baseline=0.0)
    return CAPResult(
        **judged,
        ci_low=low,
        ci_high=high,
        ci_method=BOOTSTRAP,
        confidence=confidence,
        train_cap=train_value,
        marginal_cap=marginal_value,
        original_cap=original_value,
        variant=variant,
        keys=tuple(keys),
        target=tuple(target),
        n_records=n,
        n_holdout=0 if holdout is None else len(holdout),
        n_matched=int(matched.sum()),
        per_record=from_synthetic,
        per_record_original=from_original,
        per_record_marginal=marginal,
        key_in_synthetic=matched,
    )


def _cap_per_record(original, synthetic, keys, target):
    """Per record of ``original``: its CAP from ``synthetic`` (0 where its key is absent), its CAP
    from ``original`` itself, the share of its target value in ``original``, and whether its key
    appears in ``synthetic``."""
    n = len(original)
    key_codes = _value_codes(original, synthetic, keys)
    target_codes = _value_codes(original, synthetic, target)
    pair_codes, _ = pd.factorize(key_codes * (target_codes.max() + 1) + target_codes)
    k_r, k_s = key_codes[:n], key_codes[n:]
    p_r, p_s = pair_codes[:n], pair_codes[n:]
    t_r = target_codes[:n]

    def counts(codes):
        return np.bincount(codes, minlength=max(key_codes.max(), pair_codes.max()) + 1)

    key_s, pair_s = counts(k_s)[k_r], counts(p_s)[p_r]
    matched = key_s > 0
    from_synthetic = np.divide(pair_s, key_s, out=np.zeros(n), where=matched)
    # The record itself is in R, so its key group in R is never empty.
    from_original = counts(p_r)[p_r] / counts(k_r)[k_r]
    marginal = np.bincount(t_r)[t_r] / n
    return from_synthetic, from_original, marginal, matched


def _cap_arguments(context: Context) -> dict:
    columns = context.keys + [context.target]
    original, synthetic = context.binned(columns)
    assert context.holdout is not None  # the measure needs a holdout
    holdout = context.holdout[columns]
    numeric = [c for c in columns if context.kinds.get(c) == NUMERIC]
    if numeric:  # the control cut into the training data's bins, as the synthetic data is
        holdout = discretize(
            train=context.train[columns],
            synthetic=holdout,
            columns=numeric,
            n_bins=context.settings["cap_bins"],
        )[1]
    return {
        "train": original,
        "synthetic": synthetic,
        "holdout": holdout,
        "keys": context.keys,
        "target": context.target,
        "random_state": context.settings["seed"],
    }


CAP = MeasureSpec(
    KEY,
    "Correct attribution probability (CAP)",
    "attribute",
    control_rule(
        "CAP",
        "average correct attribution probability",
        "Taub et al. 2018 compare CAP with the original data's without a cut-off",
        scope="averages, over the training records and over the holdout records, how often the "
        "synthetic records sharing a person's key carry that person's target value, and judges "
        "the difference",
    ),
    Reference("privlib.attribute.cap:cap"),
    _cap_arguments,
    needs=("holdout", "keys", "sensitive"),
    per_target=True,
    plot=Reference("privlib.measure_figures:cap_figure"),
    at_risk=lambda r: (
        int((r.per_record == 1).sum()),
        "training records have their sensitive value on every synthetic record with their keys (CAP = 1)",
    ),
)
