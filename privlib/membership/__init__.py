"""Membership disclosure: can an adversary tell that a person was in the training data?

Two families of measures live in this package, one module per measure (its key, result,
function with its constraints, and declaration for the audit), with the steps several measures
share in modules of their own.

*Hamming-threshold attacks* (El Emam, Mosquera & Fang 2022). An adversary holds an attack set of
real records and calls a record a member when some synthetic record lies within Hamming distance
``h`` of it (numeric variables binned first). :func:`ground_truth_risk` runs the attack when the
whole population is at hand; :func:`partition_risk` is the practical stand-in that only needs the
real data split into a training part and a holdout. :func:`naive_f1`, :func:`relative_risk` and
:func:`risk_utility_loss` turn the attack's F1 into the relative risk M and a tuning loss.

*Distance attacks* (Yale et al. 2019; the Clearbox AI tutorial), all on Gower distance:
:func:`dcr_holdout_share`, :func:`threshold_attack`, :func:`nn_mia`, :func:`adversarial_accuracy`,
:func:`privacy_loss`, and the classifier-based :func:`discriminator_test`.

*Worst-case and calibrated attacks*: the targeted shadow-model attack (:func:`shadow_model_attack`)
and the DOMIAS density attack (:func:`density_attack`), also importable from
:mod:`privlib.targeted`; the near-copy test (:func:`near_copy_test`) and the ensemble of five
attacks read at low false-positive rates (:func:`attack_ensemble`), also importable from
:mod:`privlib.attacks`.

Every measure returns its value with a confidence interval (``ci_low``, ``ci_high``: Wilson for
the shares, a seeded bootstrap over records for the AUC, the F1, the adversarial accuracy and the
privacy loss; :mod:`privlib.uncertainty`) and a verdict from the threshold registry
(:mod:`privlib.thresholds`). Where a measure is random (attack sets drawn, tables subsampled to
equal sizes, a classifier fitted), ``n_repeats`` repeats it with one seeded generator; the result
holds the mean as its value and the 2.5 % and 97.5 % quantiles over the repetitions as
``repeat_low`` and ``repeat_high`` (the spread of one run, not a confidence interval).

The measures look at different things and can disagree on the same data: the attack AUC ranks
every record by its distance to the synthetic data, so a general shift counts; the privacy loss
and the adversarial accuracy compare each record's nearest synthetic and nearest real neighbour
and react mostly to (near) copies; the DCR share asks only which real table is nearer. The
registry's ``scope`` of each measure says so, and :func:`privlib.audit.rulebook.disagreements` turns
two differing verdicts into a sentence.

References
----------
El Emam K, Mosquera L, Fang X. Validating a membership disclosure metric for synthetic health
data. JAMIA Open 5(4), 2022. doi:10.1093/jamiaopen/ooac083

Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of synthetic
health data. AIDR 2019. doi:10.1145/3359115.3359124
"""

from privlib.membership.adversarial_accuracy import AdversarialAccuracy, adversarial_accuracy
from privlib.membership.attack_ensemble import attack_ensemble
from privlib.membership.dcr_holdout_share import DcrHoldoutShare, dcr_holdout_share
from privlib.membership.density_attack import DensityAttack, density_attack
from privlib.membership.discriminator import DiscriminatorTest, discriminator_test
from privlib.membership.ground_truth import ground_truth_risk
from privlib.membership.hamming import (
    BLIND_SHARE,
    DEFAULT_ATTACK_SIZE,
    MembershipRisk,
    naive_f1,
    relative_risk,
    risk_utility_loss,
)
from privlib.membership.low_fpr_tests import MaxOverTests
from privlib.membership.near_copy_test import near_copy_test
from privlib.membership.nn_mia import NNMia, nn_mia
from privlib.membership.partition import partition_risk
from privlib.membership.privacy_loss import PrivacyLoss, privacy_loss
from privlib.membership.shadow_model import ShadowModelAttack, shadow_model_attack
from privlib.membership.threshold_attack import ThresholdAttack, threshold_attack
from privlib.records import low_fpr_points, nn_mia_low_fpr, tpr_at_low_fpr
from privlib.rules import M_THRESHOLD

__all__ = [
    "M_THRESHOLD",
    "DEFAULT_ATTACK_SIZE",
    "BLIND_SHARE",
    "naive_f1",
    "relative_risk",
    "risk_utility_loss",
    "ground_truth_risk",
    "partition_risk",
    "dcr_holdout_share",
    "threshold_attack",
    "nn_mia",
    "adversarial_accuracy",
    "privacy_loss",
    "discriminator_test",
    "shadow_model_attack",
    "density_attack",
    "near_copy_test",
    "attack_ensemble",
    "tpr_at_low_fpr",
    "low_fpr_points",
    "nn_mia_low_fpr",
    "MembershipRisk",
    "DcrHoldoutShare",
    "ThresholdAttack",
    "NNMia",
    "AdversarialAccuracy",
    "PrivacyLoss",
    "DiscriminatorTest",
    "ShadowModelAttack",
    "DensityAttack",
    "MaxOverTests",
]
