"""The shared result base: verdicts, tables and JSON."""

import json
import math
from dataclasses import FrozenInstanceError, dataclass

import numpy as np
import pytest

from privlib.results import RISK, VERDICTS, Result, per_record, results_frame


@dataclass(frozen=True, kw_only=True)
class Example(Result):
    extra: int = 0
    scores: np.ndarray = per_record(default=None)


def test_the_four_verdicts():
    assert VERDICTS == ("risk", "no evidence of risk", "inconclusive", "not assessable")


def test_frame_and_json_leave_per_record_values_out():
    r = Example(
        measure="m", value=np.float64(0.25), threshold=0.2, verdict=RISK, extra=3, scores=np.array([1.0, 2.0])
    )
    frame = r.to_frame()
    assert list(frame.index) == ["m"]
    assert frame.loc["m", "value"] == 0.25 and frame.loc["m", "extra"] == 3
    assert "scores" not in frame.columns
    data = json.loads(json.dumps(r.to_dict()))
    assert data["value"] == 0.25 and "scores" not in data and data["verdict"] == "risk"
    assert "m = 0.25" in data["reading"]
    with pytest.raises(FrozenInstanceError):
        r.value = 1.0


def test_nan_becomes_null_and_tables_stack():
    r1 = Example(measure="a", value=math.nan)
    r2 = Example(measure="b", value=1.0)
    assert r1.to_dict()["value"] is None
    assert list(results_frame([r1, r2]).index) == ["a", "b"]
    assert "undefined" in str(r1)


def test_interval_fields_travel_to_tables_json_and_reading():
    r = Example(measure="m", value=0.5, ci_low=0.4, ci_high=0.6, ci_method="wilson", confidence=0.9)
    data = json.loads(json.dumps(r.to_dict()))
    assert (data["ci_low"], data["ci_high"], data["ci_method"], data["confidence"]) == (
        0.4,
        0.6,
        "wilson",
        0.9,
    )
    assert "90% CI 0.4 to 0.6" in data["reading"]
    assert r.to_frame().loc["m", "ci_high"] == 0.6
    # no interval: nothing about one in the reading
    assert "CI" not in Example(measure="m", value=0.5).reading()


def test_a_judged_reading_ends_with_the_verdict_sentence():
    from privlib.thresholds import judge, verdict_sentence

    r = judge(Result(measure="nn_mia_auc", value=0.7, ci_low=0.65, ci_high=0.75, baseline=0.5))
    assert r.reading().endswith(verdict_sentence(r))
    # the verdict sentence states the interval, so the facts before it do not repeat it
    assert r.reading().startswith("nn_mia_auc = 0.7, baseline 0.5.")
    assert "0.65 to 0.75" in verdict_sentence(r)
