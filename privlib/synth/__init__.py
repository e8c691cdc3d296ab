"""Baseline synthesizers: simple generators to measure, not to publish.

They are teaching foils. Each one sits at a known place on the privacy-utility line, so the
disclosure measures of the kit can be seen to rank them as expected (Yale et al. 2019):

=======================  =====================================================================
:class:`Copy`            releases the training rows themselves (maximal risk, perfect fidelity)
:class:`AdditiveNoise`   the training rows with numeric noise and a few re-drawn categories
:class:`ParzenWindows`   kernel density: a training row plus kernel noise (bandwidth tunes it)
:class:`SequentialTrees` synthpop-style CART, fully or partially synthetic
:class:`GaussianCopula`  rank correlations of a multivariate normal, marginals kept
:class:`IndependentMarginals`  every column on its own (no memory of any row, no relationships)
:class:`OutlierCopies`   a sound generator plus a few of its most isolated training rows, copied
=======================  =====================================================================

:class:`Copy`, :class:`ParzenWindows` and :class:`GaussianCopula` have counterparts among the
generators Yale et al. compare. :class:`AdditiveNoise` is the kit's own near-copy foil (noise added
to each training row), not their Additive Noise Model, a generator of their own.

Every synthesizer has the same two calls::

    synthetic = pl.synth.SequentialTrees().fit(train).sample(n=None, random_state=0)

``fit(df)`` validates the table (no empty frame, no entirely missing or constant column) and
learns from it; ``sample(n, random_state)`` returns ``n`` rows (by default as many as the
training data) with the same columns in the same order and the same dtypes: a categorical keeps
its categories, integers stay integers (rounded), dates stay dates (rounded to whole days),
floats stay floats. Categorical values are only ever drawn from those seen in training, so a
category that the dtype declares but no row holds is kept in the dtype and never generated.
Missing values are treated as a value of their own, so their share is carried over. Randomness
enters only through ``random_state`` (turned into one :class:`numpy.random.Generator`): the same
seed gives the same table.

Column kinds follow :func:`privlib.schema.infer_kinds`: ordinal columns are treated as
categorical (their order is used where a method needs one, by :class:`GaussianCopula` and
:class:`SequentialTrees`), integer columns with few distinct values as categorical codes.

References
----------
Yale A, Dash S, Dutta R, Guyon I, Pavao A, Bennett KP. Assessing privacy and quality of
synthetic health data. AIDR 2019. doi:10.1145/3359115.3359124

Reiter JP. Using CART to generate partially synthetic public use microdata. J Official
Statistics 21(3), 2005.

Nowok B, Raab GM, Dibben C. synthpop: bespoke creation of synthetic data in R. J Statistical
Software 74(11), 2016. doi:10.18637/jss.v074.i11

Patki N, Wedge R, Veeramachaneni K. The synthetic data vault. IEEE DSAA 2016.
"""

from privlib.synth.base import MAX_LEAF, MAX_NOISE, MAX_SAMPLE_ROWS
from privlib.synth.baselines import AdditiveNoise, Copy, GaussianCopula, IndependentMarginals, ParzenWindows
from privlib.synth.registry import _LAZY as _LAZY  # read by privlib.audit.params
from privlib.synth.registry import SYNTHESIZERS, OutlierCopies, make, synthesize
from privlib.synth.registry import __getattr__ as __getattr__  # pl.synth.MST, imported on first use
from privlib.synth.trees import SequentialTrees

__all__ = [
    "Copy",
    "AdditiveNoise",
    "IndependentMarginals",
    "GaussianCopula",
    "ParzenWindows",
    "SequentialTrees",
    "OutlierCopies",
    "SYNTHESIZERS",
    "make",
    "synthesize",
    "MAX_NOISE",
    "MAX_SAMPLE_ROWS",
    "MAX_LEAF",
]
