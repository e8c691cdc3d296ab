"""The exceptions the kit raises, one per cause.

* :class:`PrivlibError`: an input cannot be used; the message names the problem and the fix. The
  base of the two below, so ``except PrivlibError`` catches every refusal of the kit.
* :class:`ParameterError`: a public function was called with a bad argument: a parameter of the
  wrong name, type or range, whatever the data. From a user, that is bad input like any other;
  from the kit's own audit catalogue, it is a bug, and the audit raises it instead of skipping the
  measure.
* :class:`DataError`: the argument is of the right kind, but the data in it do not allow the
  computation (a table with no rows, a column with no value). In an audit the measure is skipped
  with this reason.
* :class:`ReportError`: a step of a report failed while it ran (not bad input); the report was not
  written. Its message quotes no value (:func:`blanked`).
"""

import re


class PrivlibError(ValueError):
    """Raised when an input cannot be used; the message names the problem and the fix.

    It subclasses :class:`ValueError`, so ``except ValueError`` also catches it.
    """


class ParameterError(PrivlibError):
    """A bad argument: a parameter of the wrong name, type or range (not a property of the data)."""


class DataError(PrivlibError):
    """A property of the data (not of the argument's kind) that keeps a measure from being computed."""


class ReportError(PrivlibError):
    """A step of a report failed while it ran (not bad input): the report was not written."""


def blanked(message: str) -> str:
    """The first line of ``message`` with every quoted part blanked out (it may quote a value)."""
    return re.sub(r"""(['"]).*?\1""", "'…'", message.splitlines()[0] if message else "")
