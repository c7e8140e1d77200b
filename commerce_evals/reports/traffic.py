"""Captured production conversations: one JSON object a line, in the event-stream shape.

    {"id": "conv-0001", "captured_at": "2026-11-23T10:15:00Z", "domain": "shop",
     "turns": [{"user": "...", "events": [{"type": "tool_call", ...}, ..., {"type": "reply", ...}]}],
     "start": {...}, "end": {...}}

`turns` holds commerce_evals.core.events Turn objects (the same events a flow's run records); `start` and
`end` are optional snapshots (named tables of rows). Which dimensions judge it is the task's choice
(`-T dimensions=...`), not the capture's. A line that does not validate is reported with its file,
line number and field, and skipped: the rest of the file still runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import AwareDatetime, Field, ValidationError

from commerce_evals.cases.model import says_nothing
from commerce_evals.cases.reading import ReadError, decode, parse_json
from commerce_evals.core.events import Run, Snapshot, ToolCallEvent, ToolResultEvent, Turn
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.strict import Strict

CONVERSATION_ID = r"^[A-Za-z0-9][A-Za-z0-9._:-]*$"


class Conversation(Strict):
    id: str = Field(pattern=CONVERSATION_ID, max_length=200)
    captured_at: AwareDatetime
    domain: str
    channel: str = ""
    served_by: str = ""  # the model or agent version that served it, when known
    turns: list[Turn] = Field(min_length=1)
    start: Snapshot = Field(default_factory=dict)
    end: Snapshot = Field(default_factory=dict)

    def run(self) -> Run:
        # a table missing from `start` ended as it began: filled in here, as a Run read back from
        # a flow's log has it, so graders and the judge's transcript read the same Run either way
        return Run(turns=self.turns, start=self.start, end=self.end).with_start()

    @property
    def captured(self) -> datetime:
        return self.captured_at


@dataclass(frozen=True)
class TrafficProblem:
    """A skipped line: where it is and what is wrong with it."""

    file: str
    line: int
    field: str
    message: str

    def describe(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message} (line skipped)"

    def as_metadata(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "field": self.field, "message": self.message}


def known_domains() -> set[str]:
    return {spec.domain for spec in FLOWS.values()}


def call_order_problems(conversation: Conversation, file: str, number: int) -> list[TrafficProblem]:
    """What a real conversation cannot hold: a user turn that says nothing, a tool result before
    its call or naming no call (or another tool's), a call id used twice, a call no result
    answers before the turn ends (a provider needs every call's result before the model goes
    on). Such a capture did not happen as recorded and is not judged."""

    def problem(where: str, message: str) -> list[TrafficProblem]:
        return [TrafficProblem(file, number, where, message)]

    for t, turn in enumerate(conversation.turns):
        if says_nothing(turn.user):
            return problem(f"turns.{t}.user", "an empty user turn")
        calls: dict[str, str] = {}
        unanswered: dict[str, str] = {}
        for e, event in enumerate(turn.events):
            where = f"turns.{t}.events.{e}"
            if isinstance(event, ToolCallEvent):
                if event.call_id in calls:
                    return problem(where, f"call id {event.call_id!r} is used twice in the turn")
                calls[event.call_id] = event.tool
                unanswered[event.call_id] = where
            elif isinstance(event, ToolResultEvent):
                called = calls.get(event.call_id)
                if called is None:
                    return problem(
                        where,
                        f"a result for call {event.call_id!r}, which no earlier tool_call made",
                    )
                if called != event.tool:
                    return problem(
                        where,
                        f"a result of {event.tool!r} for call {event.call_id!r}, a call of "
                        f"{called!r}",
                    )
                unanswered.pop(event.call_id, None)
        for call_id, where in unanswered.items():
            return problem(where, f"call {call_id!r} has no tool_result in its turn")
    return []


def parse_line(text: str, file: str, number: int) -> Conversation | list[TrafficProblem]:
    try:
        data = parse_json(text, "")
    except ReadError as err:
        return [TrafficProblem(file, number, "(line)", str(err).removeprefix(": "))]
    if not isinstance(data, dict):
        return [TrafficProblem(file, number, "(line)", "expected a JSON object")]
    try:
        conversation = Conversation.model_validate(data)
    except ValidationError as err:
        return [
            TrafficProblem(file, number, ".".join(str(p) for p in e["loc"]) or "(line)", e["msg"])
            for e in err.errors(include_url=False)
        ]
    order = call_order_problems(conversation, file, number)
    if order:
        return order
    if conversation.domain not in known_domains():
        return [
            TrafficProblem(
                file,
                number,
                "domain",
                f"unknown domain {conversation.domain!r}; domains: {sorted(known_domains())}",
            )
        ]
    return conversation


def load_traffic(path: Path | str) -> tuple[list[Conversation], list[TrafficProblem]]:
    """The file's valid conversations, and a problem for each line that was skipped."""
    path = Path(path)
    conversations: list[Conversation] = []
    problems: list[TrafficProblem] = []
    seen: dict[str, int] = {}
    if not path.is_file():
        raise ReadError(f"{path}: no such traffic file")
    # Binary lines, each decoded on its own: one bad byte skips its line, not the whole file.
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = decode(raw, "")
            except ReadError as err:
                problems.append(TrafficProblem(str(path), number, "(line)", str(err)[2:]))
                continue
            if not text.strip():
                continue
            parsed = parse_line(text, str(path), number)
            if isinstance(parsed, list):
                problems.extend(parsed)
            elif parsed.id in seen:
                problems.append(
                    TrafficProblem(
                        str(path),
                        number,
                        "id",
                        f"{parsed.id!r} is already on line {seen[parsed.id]}",
                    )
                )
            else:
                seen[parsed.id] = number
                conversations.append(parsed)
    return conversations, problems
