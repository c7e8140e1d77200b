"""named_ids: the fixture ids a run's calls, results and end state name, whatever the values
hold around them."""

from __future__ import annotations

from commerce_evals.core.events import Run, ToolCallEvent, ToolResultEvent, Turn
from commerce_evals.scoring.scorer import named_ids

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
