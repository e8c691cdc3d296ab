"""The fidelity summary beside a privacy audit: the TSTR ratio, the pMSE ratio and the mean marginal
distance, each with a bootstrap interval."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit
from sklearn.metrics import accuracy_score, r2_score
from threadpoolctl import threadpool_limits

from privlib.errors import DataError
from privlib.matching import subsample_rows
from privlib.results import _plain
from privlib.schema import infer_kinds
from privlib.uncertainty import (
    BOOTSTRAP,
    DEFAULT_CONFIDENCE,
    DEFAULT_N_BOOTSTRAP,
    AUCRanks,
    bootstrap_interval,
    percentile_interval,
    resampled_means,
)
from privlib.utility.marginals import _marginal_codes, marginal_fidelity
from privlib.utility.models import _THREADS, _features
from privlib.utility.propensity import PMSEResult, _pmse_reading, pmse
from privlib.utility.train_synthetic import _over_chance, _percent, _tstr_fit, _tstr_result, _TSTRFit
from privlib.validation import (
    Integer,
    Names,
    Number,
    RandomState,
    Table,
    validate_params,
)

__all__ = ["FidelityMeasure", "FidelitySummary", "fidelity_summary"]

#: The metric of each default TSTR task scored on predictions (the AUC is resampled by ranks).
_DEFAULT_SCORES = {"accuracy": accuracy_score, "r2": r2_score}


@dataclass(frozen=True)
class FidelityMeasure:
    """One figure of the fidelity summary: its value, interval, ideal value and reading.

    Attributes
    ----------
    key : str
        ``"tstr_ratio"``, ``"pmse_ratio"`` or ``"mean_tvd"``.
    title : str
        The figure's name in words.
    value, ci_low, ci_high : float
        The value and the ends of its percentile bootstrap interval.
    ideal : float
        The value of synthetic data as good as a second sample of the real data.
    reading : str
        What the value means, in a sentence.
    details : dict
        The numbers behind the value (TSTR and TRTR scores, the metric, the worst variable, ...).
    """

    key: str
    title: str
    value: float
    ci_low: float
    ci_high: float
    ideal: float
    reading: str
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class FidelitySummary:
    """How much of the real data's value the synthetic data keeps: context for a privacy audit.

    Attributes
    ----------
    measures : tuple of FidelityMeasure
        The figures computed, in the order TSTR/TRTR, pMSE ratio, mean marginal distance.
    skipped : tuple of (str, str)
        ``(key, reason)`` for each figure the inputs did not allow.
    confidence : float
        Level of the intervals.
    records : tuple of (str, int, int)
        ``(table, used, of)`` for each table given: the records the figures used, of how many
        (fewer when ``max_records`` sampled the table).
    """

    measures: tuple
    skipped: tuple
    confidence: float
    records: tuple = ()

    def get(self, key: str) -> FidelityMeasure | None:
        """The figure ``key``, or ``None`` when it was not computed."""
        return next((m for m in self.measures if m.key == key), None)

    def to_dict(self) -> dict:
        """JSON-friendly: the figures, the skipped ones with their reasons, and the level."""
        return {
            "confidence": self.confidence,
            "ci_method": BOOTSTRAP,
            "measures": [
                {f.name: _plain(getattr(m, f.name)) for f in dataclasses.fields(m)} for m in self.measures
            ],
            "skipped": [{"key": key, "reason": reason} for key, reason in self.skipped],
            "records": [{"table": table, "used": used, "of": of} for table, used, of in self.records],
        }


def _tstr_ratio_interval(fit: _TSTRFit, *, rng, n_bootstrap, confidence) -> tuple[float, float]:
    """Percentile bootstrap interval of (TSTR - chance) / (TRTR - chance) over the holdout's
    records, the two fitted models held fixed: each resample scores both models on the same resampled records. An AUC is
    resampled within each class (the holdout's positives and negatives separately, as
    :func:`privlib.uncertainty.auc_interval` does), so that every resample has both classes."""
    truth = fit.y_test.to_numpy()
    with threadpool_limits(limits=_THREADS):
        if fit.metric == "roc_auc":
            positive = truth == sorted(set(truth))[-1]  # the scorer's positive class: the later label
            ranks = {}
            for source, model in fit.models.items():
                # classes_ are sorted: column 1 is the positive class's probability
                scores = model.predict_proba(fit.x_test)[:, 1]
                ranks[source] = AUCRanks(scores[positive], scores[~positive])
        else:
            predicted = {source: model.predict(fit.x_test) for source, model in fit.models.items()}
    if fit.metric == "roc_auc":
        values = np.empty(n_bootstrap)
        for b in range(n_bootstrap):
            rows = ranks["synthetic"].resample(rng)
            values[b] = _over_chance(ranks["synthetic"].auc(*rows), ranks["train"].auc(*rows), fit.chance)
        return percentile_interval(values, confidence=confidence)
    score = _DEFAULT_SCORES[fit.metric]

    def ratio(rows):  # the chance level of the whole holdout, held fixed like the models
        trtr = score(truth[rows], predicted["train"][rows])
        return _over_chance(score(truth[rows], predicted["synthetic"][rows]), trtr, fit.chance)

    return bootstrap_interval(
        ratio, [np.arange(len(truth))], rng=rng, n_bootstrap=n_bootstrap, confidence=confidence
    )


def _pmse_ratio_interval(
    result: PMSEResult, n_original: int, *, rng, n_bootstrap, confidence
) -> tuple[float, float]:
    """Percentile bootstrap interval of the pMSE ratio over records, the propensity model held
    fixed: original and synthetic records are resampled separately, so the synthetic share ``c``
    and the null expectation stay as they are."""
    squared = (result.propensity - result.synthetic_share) ** 2
    groups = (squared[:n_original], squared[n_original:])
    means = sum(len(g) * resampled_means(g, rng=rng, n_bootstrap=n_bootstrap) for g in groups) / len(squared)
    assert result.baseline is not None  # pmse() always sets the null expectation
    return percentile_interval(means / result.baseline, confidence=confidence)


def _mean_tvd_interval(codes: dict, estimate: float, *, rng, n_bootstrap, confidence) -> tuple[float, float]:
    """Bias-corrected percentile bootstrap interval of the mean TVD, the records of both tables
    resampled separately.

    Resampling adds noise to both tables' shares, and noise only ever widens a distance, so the
    resampled TVDs sit above the estimate (a copy gives 0, its resamples about 0.02). The
    percentiles are therefore moved down by the resamples' mean excess over the estimate (the
    bootstrap estimate of the bias; Efron & Tibshirani 1993, ch. 10) and kept within [0, 1].
    """
    # Every variable's levels numbered apart (an offset per variable), so that one count over a
    # resample's rows gives the level counts of all variables at once.
    levels = np.array([k for _, _, k in codes.values()])
    offsets = np.concatenate([[0], np.cumsum(levels)[:-1]])
    tables = [
        np.column_stack([c[side] for c in codes.values()]).astype(np.int32) + offsets.astype(np.int32)
        for side in (0, 1)
    ]
    values = np.empty(n_bootstrap)
    for b in range(n_bootstrap):
        shares = []
        for table in tables:
            rows = rng.integers(0, len(table), len(table))
            drawn = np.bincount(rows, minlength=len(table))
            shares.append(_level_counts(table, drawn, int(levels.sum())) / len(table))
        per_variable = 0.5 * np.add.reduceat(np.abs(shares[0] - shares[1]), offsets)
        values[b] = per_variable.mean()
    bias = float(np.mean(values)) - estimate
    low, high = percentile_interval(values - bias, confidence=confidence)
    return float(np.clip(low, 0.0, 1.0)), float(np.clip(high, 0.0, 1.0))


@njit(cache=True, nogil=True)
def _level_counts(table: np.ndarray, drawn: np.ndarray, n_levels: int) -> np.ndarray:
    """How often each level occurs in a resample of ``table``'s rows that holds row ``i``
    ``drawn[i]`` times (levels numbered apart per column): the table read once in order, rather
    than row by row in the resample's random order, which misses the cache at every row."""
    counts = np.zeros(n_levels, dtype=np.int64)
    for row in range(table.shape[0]):
        times = drawn[row]
        if times:
            for column in range(table.shape[1]):
                counts[table[row, column]] += times
    return counts


@validate_params(
    {
        "train": [Table()],
        "synthetic": [Table()],
        "holdout": [Table(), None],
        "target": [Names(), None],
        "random_state": [RandomState()],
        "n_bootstrap": [Integer(low=1)],
        "confidence": [Number(low=0, high=1, closed="neither")],
        "max_records": [Integer(low=2), None],
    }
)
def fidelity_summary(
    *,
    train,
    synthetic,
    holdout=None,
    target=None,
    random_state=None,
    n_bootstrap=DEFAULT_N_BOOTSTRAP,
    confidence=DEFAULT_CONFIDENCE,
    max_records=None,
) -> FidelitySummary:
    """Fidelity of ``synthetic`` to ``train`` in three figures with intervals, beside the privacy verdicts.

    The same measures as :func:`compare_synthesizers`' utility columns, each with a percentile
    bootstrap interval (:mod:`privlib.uncertainty`). They are context: no privacy verdict depends
    on them, and they have no threshold.

    * ``tstr_ratio``: :func:`tstr` (default model and metric) against its TRTR baseline, both
      measured from chance, ``(TSTR - chance) / (TRTR - chance)``: the share of the real data's
      gain over chance for predicting ``target`` that the synthetic data keeps (ideal 1, 0 for a
      release that keeps no relationship between the variables). Interval: both fitted models scored on resamples of the holdout's records (the
      uncertainty of the evaluation, not of the fits). Needs ``holdout`` and ``target``.
    * ``pmse_ratio``: :func:`pmse` (default logistic model) over its null expectation (ideal 1;
      about 0.5 for a release that reproduces its training sample's own proportions, and below
      :data:`PMSE_COPY_RATIO` a sign of copying, as the reading says).
      Interval: original and synthetic records resampled separately, the fitted propensities
      held fixed.
    * ``mean_tvd``: :func:`marginal_fidelity`'s mean total variation distance (ideal 0).
      Interval: both tables' records resampled separately, bias-corrected (resampling widens
      every distance, so the percentiles are moved back by the resamples' mean excess).

    Parameters
    ----------
    train : pandas.DataFrame
        The real training data (the generator's input).
    synthetic : pandas.DataFrame
        The synthetic data, with the same columns.
    holdout : pandas.DataFrame, optional
        Real records the generator never saw; without it TSTR is skipped.
    target : str, optional
        The column TSTR predicts; without it TSTR is skipped.
    random_state : int, numpy.random.Generator or None
        Seed of the bootstrap (one independent stream per figure, so skipping one leaves the
        others unchanged).
    n_bootstrap : int, default 200
        Resamples per interval.
    confidence : float, default 0.95
        Level of the intervals.
    max_records : int, optional
        Most records of each table the figures use: a larger table is replaced by a sample of
        this many records drawn without replacement (seeded, from a stream of its own), as
        mostlyai-qa's ``max_sample_size_accuracy`` does. The intervals are those of the sample,
        so they widen accordingly. Default: every record.

    Returns
    -------
    FidelitySummary

    Raises
    ------
    PrivlibError
        If a table is not a DataFrame or is empty, or the tables' columns differ.

    Examples
    --------
    >>> import pandas as pd
    >>> real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0] * 10, "g": ["a", "b", "a", "c"] * 10})
    >>> fidelity_summary(train=real, synthetic=real, random_state=0).get("mean_tvd").value
    0.0
    """
    # the sample's stream comes last, so the figures' streams are the same with and without it
    keys = ("tstr_ratio", "pmse_ratio", "mean_tvd", "sample")
    streams = dict(zip(keys, np.random.default_rng(random_state).spawn(len(keys)), strict=True))
    given = {"train": train, "synthetic": synthetic, "holdout": holdout}
    used = {
        name: table if max_records is None else _at_most(table, max_records, streams["sample"])
        for name, table in given.items()
        if table is not None
    }
    records = tuple((name, len(used[name]), len(given[name])) for name in used)
    train, synthetic, holdout = (used.get(name) for name in given)
    bootstrap = {"n_bootstrap": n_bootstrap, "confidence": confidence}
    measures, skipped = [], []
    if holdout is None or target is None:
        needs = [
            what for what, given in (("a holdout", holdout), ("a target variable", target)) if given is None
        ]
        skipped.append(("tstr_ratio", f"train on synthetic, test on real needs {' and '.join(needs)}"))
    else:
        try:
            fit = _tstr_fit(
                train=train, synthetic=synthetic, holdout=holdout, target=target, estimator=None, metric=None
            )
        except DataError as exc:
            skipped.append(("tstr_ratio", f"the data do not allow it: {exc}"))
        else:
            result = _tstr_result(fit)
            low, high = _tstr_ratio_interval(fit, rng=streams["tstr_ratio"], **bootstrap)
            measures.append(
                FidelityMeasure(
                    key="tstr_ratio",
                    title="Train on synthetic, test on real (share of the real data's gain over chance)",
                    value=result.ratio,
                    ci_low=low,
                    ci_high=high,
                    ideal=1.0,
                    reading=f"A model trained on the synthetic data predicts {fit.target!r} on unseen real "
                    f"records with {_percent(result.ratio)} of the gain over chance a model trained on the real "
                    f"data reaches ({fit.metric} {result.value:.3f} against {result.baseline:.3f}; chance "
                    f"{result.chance:.3f}). 0 is a release that keeps no relationship between the variables.",
                    details={
                        "tstr": result.value,
                        "trtr": result.baseline,
                        "chance": result.chance,
                        "metric": fit.metric,
                        "target": fit.target,
                        "task": fit.task,
                        "model": fit.model,
                    },
                )
            )
    propensity = pmse(train=train, synthetic=synthetic)
    low, high = _pmse_ratio_interval(propensity, len(train), rng=streams["pmse_ratio"], **bootstrap)
    measures.append(
        FidelityMeasure(
            key="pmse_ratio",
            title="Propensity score MSE ratio (real or synthetic?)",
            value=propensity.ratio,
            ci_low=low,
            ci_high=high,
            ideal=1.0,
            reading=_pmse_reading(propensity.ratio, low, high, propensity.model),
            details={
                "pmse": propensity.value,
                "null_expectation": propensity.baseline,
                "model": propensity.model,
            },
        )
    )
    kinds = infer_kinds(train, name="train")
    marginals = marginal_fidelity(train=train, synthetic=synthetic)
    codes = _marginal_codes(
        _features(train, kinds), _features(synthetic[list(train.columns)], kinds), kinds, marginals.n_bins
    )
    low, high = _mean_tvd_interval(codes, marginals.value, rng=streams["mean_tvd"], **bootstrap)
    measures.append(
        FidelityMeasure(
            key="mean_tvd",
            title="Mean distance between real and synthetic marginals (TVD)",
            value=marginals.value,
            ci_low=low,
            ci_high=high,
            ideal=0.0,
            reading=f"A variable's synthetic distribution differs from the real one by a total variation "
            f"distance of {marginals.value:.3f} on average (0 = identical shares, 1 = no overlap); the largest "
            f"gap is {marginals.worst_variable!r}, {marginals.max_tvd:.3f}.",
            details={
                "max_tvd": marginals.max_tvd,
                "worst_variable": marginals.worst_variable,
                "n_bins": marginals.n_bins,
            },
        )
    )
    return FidelitySummary(
        measures=tuple(measures), skipped=tuple(skipped), confidence=float(confidence), records=records
    )


def _at_most(table: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
    """``table``, or ``size`` of its rows drawn without replacement (in table order) when it has more."""
    if len(table) <= size:
        return table
    return table.iloc[subsample_rows(len(table), size, rng)]
