"""Numbers as the report prints them: one rule for every figure a person reads.

The rule (each function below states its part, and tests/test_formatting.py reaches every branch):

* **No scientific notation**, anywhere. A number is written in full, and a number too small to
  write in full is written as a bound ("< 0.001"), never as ``1e-312``.
* **A number** (:func:`number`): 0 is "0"; from 100 up it is rounded to a whole number with
  thousands separators ("1,549", "48,842"); from 0.001 to 100 it has three significant digits
  ("55.5", "0.0123"); a non-zero value nearer zero than 0.001 is "< 0.001" (or "> -0.001").
* **A count** (:func:`count`, :func:`count_of`) is a whole number with thousands separators,
  with its denominator and share when it has one: "1,549 of 3,000 training records (52%)".
* **A share** (:func:`share`) is a percentage: whole from 10% to 99%, one decimal below 10% and
  above 99% ("5.2%", "99.6%", a decimal 0 dropped: "1%"), "< 0.1%" and "> 99.9%" at the ends, so that only nothing is
  "0%" and only everything is "100%".
* **A p-value** (:func:`p_value`) has two significant digits ("p = 0.042", "p = 0.0031"), and
  below 0.001 is "p < 0.001", the floor of the APA style (American Psychological Association,
  *Publication Manual*, 7th ed., 2020, section 6.36): smaller p-values are not more meaningful,
  and the exact tail of a test this far out depends on its model more than on the data.
* **A count's threshold** (:func:`count_threshold`) is in whole people: a count is a risk above
  3.17 exactly when it is 4 or more, so the threshold reads "4 or more".

Text written elsewhere (a measure's reading) passes through :func:`readable_text`, which writes
any number in scientific notation it finds by the same rule.
"""

from __future__ import annotations

import math
import re
from numbers import Integral, Real

__all__ = [
    "SMALLEST",
    "P_FLOOR",
    "number",
    "count",
    "share",
    "count_of",
    "p_value",
    "interval",
    "count_threshold",
    "readable_text",
]

#: The smallest magnitude :func:`number` writes in full; nearer zero is "< 0.001".
SMALLEST = 0.001

#: The smallest p-value :func:`p_value` writes in full; below it is "p < 0.001".
P_FLOOR = 0.001

#: From this magnitude up, :func:`number` writes a whole number.
WHOLE_FROM = 100


def _missing(value) -> bool:
    return value is None or isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value)


def number(value) -> str:
    """A number by the module's rule; nothing for a missing or non-finite value, and a value
    that is not a number as its text."""
    if value is None or (
        isinstance(value, Real) and not isinstance(value, bool) and not math.isfinite(value)
    ):
        return ""
    if isinstance(value, bool) or not isinstance(value, Real):
        return str(value)
    if isinstance(value, Integral):
        return f"{int(value):,}"
    x = float(value)
    if x == 0:
        return "0"
    if abs(x) >= WHOLE_FROM:
        return f"{round(x):,}"
    if abs(x) < SMALLEST:
        return f"< {SMALLEST:g}" if x > 0 else f"> -{SMALLEST:g}"
    # three significant digits in fixed point: the exponent of x decides the decimals
    decimals = max(0, 2 - math.floor(math.log10(abs(x))))
    text = f"{x:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def count(value) -> str:
    """A count of people or records: a whole number with thousands separators ("1,549")."""
    if _missing(value):
        return ""
    return f"{round(float(value)):,}"


def share(fraction) -> str:
    """A fraction (0 to 1) as a percentage by the module's rule ("52%", "5.2%", "< 0.1%")."""
    if _missing(fraction):
        return ""
    percent = 100 * float(fraction)
    if percent == 0 or percent == 100:
        return f"{percent:.0f}%"
    if 0 < percent < 0.1:
        return "< 0.1%"
    if 99.9 < percent < 100:
        return "> 99.9%"
    if abs(percent) < 10 or 99 <= percent < 100:
        return f"{percent:.1f}".removesuffix(".0") + "%"
    return f"{percent:.0f}%"


def count_of(part, total, what: str = "") -> str:
    """``part`` of ``total`` with the share: "1,549 of 3,000 training records (52%)"; without
    a positive total, the count alone."""
    noun = f" {what}" if what else ""
    if _missing(total) or float(total) <= 0:
        return f"{count(part)}{noun}"
    return f"{count(part)} of {count(total)}{noun} ({share(float(part) / float(total))})"


def p_value(p, *, name: str = "p") -> str:
    """A p-value with its name: "p = 0.042", "p = 0.0031", "p < 0.001", "p = 1"."""
    if _missing(p):
        return ""
    x = float(p)
    if x < P_FLOOR:
        return f"{name} < {P_FLOOR:g}"
    if x >= 1:
        return f"{name} = 1"
    decimals = 1 - math.floor(math.log10(x))
    text = f"{x:.{decimals}f}".rstrip("0").rstrip(".")
    return f"{name} = {text}"


def interval(low, high) -> str:
    """An interval as "low to high" by :func:`number`; nothing when an end is missing."""
    if _missing(low) or _missing(high):
        return ""
    return f"{number(low)} to {number(high)}"


def count_threshold(threshold, *, higher_is_riskier: bool = True) -> str:
    """The threshold of a measure whose value counts people, in whole people: a count is a risk
    above 3.17 when it is "4 or more" (above 3 too: "4 or more"), below 3.5 when it is "3 or
    fewer"."""
    if _missing(threshold):
        return ""
    t = float(threshold)
    if higher_is_riskier:
        return f"{math.floor(t) + 1:,} or more"
    fewest = math.ceil(t) - 1
    return f"{max(fewest, 0):,} or fewer"


#: A number in scientific notation inside text ("1e-312", "1.55e+03", "2.3E-05"), not part of a word.
_SCIENTIFIC = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?[eE][+-]?\d+)(?!\w|\.\d)")

#: A p-value written with "=" before a number in scientific notation.
_P_EQUALS = re.compile(r"\b(p|p-value)\s*=\s*(-?\d+(?:\.\d+)?[eE][+-]?\d+)(?!\w|\.\d)")


def readable_text(text: str) -> str:
    """``text`` with every number in scientific notation written by the module's rule: after
    "p =" as :func:`p_value` ("p = 1e-312" -> "p < 0.001"), elsewhere as :func:`number`
    ("1.55e+03" -> "1,550"); the rest of the text unchanged."""
    text = _P_EQUALS.sub(lambda m: p_value(float(m.group(2)), name=m.group(1)), text)
    return _SCIENTIFIC.sub(lambda m: number(float(m.group(1))), text)
