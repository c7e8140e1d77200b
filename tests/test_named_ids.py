"""named_ids: the fixture ids a run's calls, results and end state name, whatever the values
hold around them."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from commerce_evals.core.events import Run, ToolCallEvent, ToolResultEvent, Turn
from commerce_evals.scoring.scorer import fixture_ids, named_ids

KNOWN = {"P-1001", "V-1002", "C-3003"}


def _run(args: dict[str, object], data: object, end: dict[str, object]) -> Run:
    call = ToolCallEvent(call_id="c1", tool="find", args=args)
    result = ToolResultEvent(call_id="c1", tool="find", data=data)
    return Run(turns=[Turn(user="hi", events=[call, result])], end=end)  # type: ignore[arg-type]


def test_ids_in_calls_results_and_the_end_state() -> None:
    run = _run({"id": "P-1001"}, {"items": [{"vehicle": "V-1002"}]}, {"t": [{"c": "C-3003"}]})
    assert named_ids(run, KNOWN) == KNOWN


def test_values_json_cannot_write_still_give_their_ids() -> None:
    # a lone surrogate, as json.loads of a model's arguments can give
    run = _run({"q": "P-1001 \ud800"}, "V-1002\udfff", {"t": [{"name": "\ud800C-3003"}]})
    assert named_ids(run, KNOWN) == KNOWN


def test_a_digit_of_another_script_after_an_id_makes_it_another_id() -> None:
    run = _run({}, None, {"t": [{"name": "P-1001\u0663"}]})
    assert named_ids(run, KNOWN) == set()


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="ABCZab-0179\u0663\u200b '\\x", max_size=40))
def test_the_dash_scan_finds_what_the_id_pattern_finds(text: str) -> None:
    assert fixture_ids(text) == re.findall(r"[A-Z]{1,3}-\d{3,5}", text)


def test_the_dash_scan_on_the_cases_a_reviewer_would_try() -> None:
    texts = ["ABCD-1234", "P-1234567", "A-12-345", "AB-CD-123", "X-999AB-123", "a-123", "-123"]
    for text in texts:
        assert fixture_ids(text) == re.findall(r"[A-Z]{1,3}-\d{3,5}", text), text
