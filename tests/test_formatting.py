"""The report's number rule (privlib.formatting), as a table test written from its statement:
every branch of each function, the expected text worked out by hand from the rule."""

from __future__ import annotations

import math
import re

import pytest

from privlib.formatting import (
    count,
    count_of,
    count_threshold,
    interval,
    number,
    p_value,
    readable_text,
    share,
)

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")


@pytest.mark.parametrize(
    "value, text",
    [
        (None, ""),  # missing
        (math.nan, ""),
        (math.inf, ""),
        ("fnlwgt", "fnlwgt"),  # not a number: as it is
        (True, "True"),
        (0.0, "0"),
        (0, "0"),
        (1549, "1,549"),  # an integer: whole, with separators
        (48842, "48,842"),
        (1549.0, "1,549"),  # from 100 up: rounded to a whole number
        (105.9, "106"),
        (100.0, "100"),
        (-250.4, "-250"),
        (12345678.9, "12,345,679"),
        (55.5, "55.5"),  # 0.001 to 100: three significant digits, fixed point
        (3.17, "3.17"),
        (0.5, "0.5"),  # trailing zeros dropped
        (0.0123, "0.0123"),
        (-0.0312, "-0.0312"),
        (0.001, "0.001"),
        (99.99, "100"),  # three significant digits round up to 100
        (0.000999, "< 0.001"),  # nearer 0 than 0.001: a bound
        (1e-312, "< 0.001"),
        (-1e-5, "> -0.001"),
    ],
)
def test_number(value, text):
    assert number(value) == text


@pytest.mark.parametrize(
    "value, text", [(None, ""), (1549, "1,549"), (1549.4, "1,549"), (84.6, "85"), (0, "0")]
)
def test_count(value, text):
    assert count(value) == text


@pytest.mark.parametrize(
    "fraction, text",
    [
        (None, ""),
        (0.0, "0%"),  # only nothing is 0%
        (1.0, "100%"),  # only everything is 100%
        (0.0004, "< 0.1%"),
        (0.9996, "> 99.9%"),
        (0.052, "5.2%"),  # below 10%: one decimal
        (0.01, "1%"),  # a decimal 0 dropped
        (0.516, "52%"),  # 10% to 99%: whole
        (0.102, "10%"),
        (0.995, "99.5%"),  # 99% and above: one decimal
    ],
)
def test_share(fraction, text):
    assert share(fraction) == text


def test_count_of():
    # 1549 / 3000 = 0.5163: 52%
    assert count_of(1549, 3000, "training records") == "1,549 of 3,000 training records (52%)"
    assert count_of(85, 3000) == "85 of 3,000 (2.8%)"  # 85 / 3000 = 2.83%
    assert count_of(5, 0, "records") == "5 records"  # no denominator
    assert count_of(5, None) == "5"


@pytest.mark.parametrize(
    "p, text",
    [
        (None, ""),
        (1e-312, "p < 0.001"),  # below the floor
        (4.7e-20, "p < 0.001"),
        (0.00099, "p < 0.001"),
        (0.001, "p = 0.001"),  # two significant digits from the floor up
        (0.0031, "p = 0.0031"),
        (0.04249, "p = 0.042"),
        (0.3013, "p = 0.3"),
        (1.0, "p = 1"),
    ],
)
def test_p_value(p, text):
    assert p_value(p) == text


def test_p_value_keeps_its_name():
    assert p_value(9.5e-20, name="Holm-adjusted p") == "Holm-adjusted p < 0.001"


def test_interval():
    assert interval(66.4, 105.9) == "66.4 to 106"
    assert interval(None, 1.0) == ""


@pytest.mark.parametrize(
    "threshold, higher, text",
    [
        (3.17, True, "4 or more"),  # a count above 3.17 is 4 or more
        (3.0, True, "4 or more"),  # above 3: 4 or more
        (17.0, True, "18 or more"),
        (3.5, False, "3 or fewer"),  # below 3.5: 3 or fewer
        (3.0, False, "2 or fewer"),  # below 3: 2 or fewer
        (0.5, False, "0 or fewer"),
        (None, True, ""),
    ],
)
def test_count_threshold(threshold, higher, text):
    assert count_threshold(threshold, higher_is_riskier=higher) == text


def test_readable_text_writes_scientific_notation_by_the_rule():
    text = "p = 4.7e-20, an excess of 1.55e+03 (95% interval 1.49e+03 to 1.6e+03); Holm 2.3E-05."
    out = readable_text(text)
    assert out == "p < 0.001, an excess of 1,550 (95% interval 1,490 to 1,600); Holm < 0.001."
    assert not SCIENTIFIC.search(out)
    # words and names that hold an e and digits are not numbers
    assert readable_text("column x1e5 and v2.0e1 stay") == "column x1e5 and v2.0e1 stay"


def test_nothing_formatted_is_in_scientific_notation():
    values = [10.0**k * m for k in range(-320, 12) for m in (1.0, 2.5, -7.3)]
    for v in values:
        for text in (number(v), share(min(abs(v), 1.0)), p_value(min(abs(v), 1.0)), count(abs(v))):
            assert not SCIENTIFIC.search(text), (v, text)
