"""Small builders shared by tests: runs from hand-made events, in-process evals by flow."""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample

from commerce_evals.events import (
    Event,
    ReplyEvent,
    Run,
    Snapshot,
    ToolCallEvent,
    ToolResultEvent,
    Turn,
    UiEvent,
)


def call(tool: str, **args: Any) -> ToolCallEvent:
    return ToolCallEvent(call_id=f"c-{tool}", tool=tool, args=args)


def result(tool: str, status: str = "ok", reason: str | None = None) -> ToolResultEvent:
    return ToolResultEvent(call_id=f"c-{tool}", tool=tool, status=status, reason=reason)


def ui(component: str) -> UiEvent:
    return UiEvent(component=component)


def reply(text: str) -> ReplyEvent:
    return ReplyEvent(text=text)


def make_run(
    *turns: tuple[str, list[Event]], start: Snapshot | None = None, end: Snapshot | None = None
) -> Run:
    return Run(
        turns=[Turn(user=user, events=list(events)) for user, events in turns],
        start=start or {},
        end=end or {},
    )


def run_task(task: Task, **kwargs: Any) -> EvalLog:
    [log] = eval(task, model="commerce/reference", display="none", log_samples=True, **kwargs)
    assert log.status == "success", log.error
    return log


def samples_by_id(log: EvalLog) -> dict[str, EvalSample]:
    assert log.samples is not None
    return {str(s.id): s for s in sorted(log.samples, key=lambda s: (str(s.id), s.epoch))}


def case_score(sample: EvalSample) -> Any:
    assert sample.scores is not None
    return sample.scores["commerce_case"]
