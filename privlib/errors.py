"""The exceptions the kit raises.

* :class:`PrivlibError`: an input cannot be used; the message names the problem and the fix.
* :class:`ParameterError`: a public function was called with a parameter of the wrong name or
  type. From a user, that is bad input like any other; from the kit's own audit catalogue, it is a
  bug, and the audit raises it instead of skipping the measure.
"""


class PrivlibError(ValueError):
    """Raised when an input cannot be used; the message names the problem and the fix.

    It subclasses :class:`ValueError`, so ``except ValueError`` also catches it.
    """


class ParameterError(PrivlibError):
    """A parameter of the wrong name or type (not a property of the data)."""
