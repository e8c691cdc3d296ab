"""Identity disclosure: can a synthetic record be tied to a real person?

The measures, from the bluntest to the most specific, one module each (each function cites its
source):

* :func:`identical_match_share` - synthetic records that are exact copies of training records,
  beside the copies of holdout records that chance alone produces;
* :func:`copy_test` - training records with a synthetic copy, against the holdout's chance
  copies (Fisher's exact test);
* :func:`dcr` and :func:`dcr_summary` - the Gower distance from each synthetic record to the
  closest real record (Clearbox AI's DCR), on the exact neighbour engine of
  :mod:`privlib.neighbors`;
* :func:`replicated_uniques` - people unique on a set of key variables whose key combination is
  also unique in the synthetic data (synthpop's ``replicated.uniques``, Nowok et al. 2016),
  beside the holdout's unique people that the same release replicates;
* :func:`singling_out` and :func:`linkability` - two of the three criteria of Opinion 05/2014 as
  attacks (:mod:`privlib.criteria`);
* :func:`match_risk` - the expected match risk, true match rate and false match rate of a
  partially synthetic file (Reiter & Mitra 2009; Hornby & Hu 2021).

Every comparison of values treats a missing value as equal to a missing value and different
from every real value, as the distances of the kit do.

Every measure returns its value with a confidence interval (``ci_low``, ``ci_high``): the Wilson
interval for the shares (Newcombe's for the replicated uniques' excess over the holdout), a
seeded bootstrap over targets for the expected match risk
(:mod:`privlib.uncertainty`), and a verdict from the threshold registry (:mod:`privlib.thresholds`).
The shares of copies are judged against what chance gives: the same share for a holdout sample of
real people the generator never saw. The copy counts see exact copies only; a generator that moves
every record a little makes none, which :func:`dcr_summary`'s median distance and the membership
measures show.
"""

from privlib.identity.copy_test import CopyTest, copy_test
from privlib.identity.dcr import DCRSummary, dcr, dcr_summary
from privlib.identity.identical_match_share import IdenticalMatchShare, identical_match_share
from privlib.identity.linkability import LinkabilityRisk, linkability
from privlib.identity.match_risk import MatchRisk, match_risk
from privlib.identity.replicated_uniques import ReplicatedUniques, replicated_uniques
from privlib.identity.singling_out import SinglingOutRisk, singling_out

__all__ = [
    "identical_match_share",
    "dcr",
    "dcr_summary",
    "replicated_uniques",
    "match_risk",
    "singling_out",
    "linkability",
    "copy_test",
    "IdenticalMatchShare",
    "DCRSummary",
    "ReplicatedUniques",
    "MatchRisk",
    "CopyTest",
    "SinglingOutRisk",
    "LinkabilityRisk",
]
