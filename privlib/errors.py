"""The one exception the kit raises for bad input."""


class PrivlibError(ValueError):
    """Raised when an input cannot be used; the message names the problem and the fix.

    It subclasses :class:`ValueError`, so ``except ValueError`` also catches it.
    """
