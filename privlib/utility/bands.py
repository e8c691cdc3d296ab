"""How a pMSE ratio reads: its bands, shared by :func:`~privlib.utility.pmse` and the columns of
:func:`~privlib.utility.compare_synthesizers` (plain data: importing it loads no model library)."""

__all__ = ["PMSE_COPY_RATIO", "PMSE_RATIO_WORDS"]

#: Below this pMSE ratio a release is hardly told apart from its own training sample: a sign of
#: copying (kit default). A generator that reproduces the training sample's own proportions, as a
#: well-fitted one does, reaches about 0.5, because it shares that sample's chance deviations from
#: the population; half of that is what only a release that copies the sample reaches.
PMSE_COPY_RATIO = 0.25

#: How a pMSE ratio reads, both ways.
PMSE_RATIO_WORDS = (
    "A ratio near 1 is a sample-like release: the model cannot tell it from the training data any "
    "better than it tells two samples of one distribution apart. Far above 1 the release is easy to "
    "tell apart (lower fidelity). Between about 0.5 and 1 the release follows its training sample's "
    "own chance deviations, as any generator fitted to that sample does; below "
    f"{PMSE_COPY_RATIO:g} it is hardly told apart from its training sample, a sign of copying: read "
    "it with the identity family's copies."
)
