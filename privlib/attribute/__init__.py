"""Attribute disclosure: what an intruder learns about a person's sensitive value.

The measures ask "if I know some variables of a person in the original data (the *keys*), how
well does the synthetic data tell me another variable (the *target*)?", one module each:

* :func:`cap` - the correct attribution probability (Elliot 2014; Taub et al. 2018; Baillargeon &
  Charest 2020): the share of synthetic records with the person's key that also carry the
  person's target value.
* :func:`knn_risk` - classification-based risk (Choi et al. 2017; Kaur et al. 2021): a model fitted
  on the synthetic data only predicts the target of every original record.
* :func:`inference` - the inference criterion of Opinion 05/2014 as an attack (Giomi et al. 2023;
  :mod:`privlib.criteria`).

CAP and k-NN report the value beside what the original data itself would reveal and what one
learns with no data at all, because a high value alone is not a leak: if 95% of people have
health insurance, guessing "insured" is right 95% of the time without any synthetic data.

:func:`discretize` cuts numeric variables into bins so that CAP, which needs exact matches, can be
used on continuous keys or targets.

A release that predicts well teaches something about everyone in the population, not only about
the people it was trained on. So the measures take ``holdout``, real records the generator never
saw: computed for them with the same synthetic data, the measure says what anyone in the
population learns from the release (context), and the verdict of the threshold registry
(:mod:`privlib.thresholds`) is on the training records' excess over them, with a seeded bootstrap
interval that resamples the two groups of records separately. Without a holdout the value is
reported and not judged.
"""

from privlib.attribute.cap import CAPResult, cap
from privlib.attribute.discretize import discretize
from privlib.attribute.inference import InferenceRisk, inference
from privlib.attribute.knn_risk import KnnRiskResult, knn_risk

__all__ = [
    "CAPResult",
    "InferenceRisk",
    "KnnRiskResult",
    "cap",
    "discretize",
    "inference",
    "knn_risk",
]
