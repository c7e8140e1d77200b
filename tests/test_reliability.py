"""A misbehaving model: every sample ends with a recorded outcome and a reason, the eval never
crashes, and the per-turn cap holds."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from commerce_evals.checkout import checkout
from commerce_evals.core.events import ToolResultEvent, TurnEndEvent
from commerce_evals.scoring.run_record import RunRecord
from tests.conftest import DATA, MINI_SHOP

MINI_CASES = str(DATA / "cases" / "mini.yaml")


def run_chaos(fault: str, max_rounds: int = 4) -> EvalLog:
    task = checkout(dataset=MINI_CASES, fixtures=str(MINI_SHOP), max_rounds=max_rounds)
    [log] = eval(task, model=f"commerce-test/{fault}", display="none")
    assert log.status == "success", log.error
    assert log.samples
    return log


def runs(log: EvalLog):
    for sample in log.samples or []:
        record = sample.store_as(RunRecord)
        assert record.run is not None, f"{sample.id} recorded no run"
        yield sample, record.run


def test_malformed_arguments_reach_the_model_as_errors() -> None:
    for sample, run in runs(run_chaos("malformed-args")):
        results = [e for e in run.turns[0].events if isinstance(e, ToolResultEvent)]
        assert [r.status for r in results[:2]] == ["refused", "refused"], sample.id
        assert all(r.reason for r in results[:2])
        assert sample.scores["commerce_case"].value["passed"] == 0.0


def test_an_unknown_tool_is_an_error_not_a_crash() -> None:
    for _, run in runs(run_chaos("unknown-tool")):
        [result] = [e for e in run.turns[0].events if isinstance(e, ToolResultEvent)]
        assert result.status == "refused" and "not found" in (result.reason or "")


def test_an_empty_reply_ends_the_turn_with_its_reason() -> None:
    for _, run in runs(run_chaos("empty")):
        assert all(t.events[-1] == TurnEndEvent(reason="empty_reply") for t in run.turns)


@pytest.mark.parametrize("cap", [1, 3])
def test_endless_tool_calls_stop_at_the_exact_cap(cap: int) -> None:
    log = run_chaos("endless", max_rounds=cap)
    for sample, run in runs(log):
        for turn in run.turns:
            assert turn.events[-1] == TurnEndEvent(reason="round_cap")
            assert len(turn.calls()) == cap
        model_calls = [e for e in sample.events if e.event == "model"]
        assert len(model_calls) == cap * len(run.turns), sample.id


@pytest.mark.slow  # megabytes of tool output through a whole eval
def test_huge_outputs_are_recorded_and_scored() -> None:
    for sample, run in runs(run_chaos("huge")):
        assert len(run.graded.reply()) >= 1_000_000
        assert sample.scores["commerce_case"].value["passed"] in (0.0, 1.0)


def test_a_provider_error_is_recorded_on_its_sample_and_the_eval_finishes() -> None:
    log = run_chaos("error")
    assert all(s.error and "commerce-test/error" in s.error.message for s in log.samples or [])
