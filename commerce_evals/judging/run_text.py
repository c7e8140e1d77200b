"""A Run as text: one walk over its turns and events, written in a style.

The walk decides what a run shows and in which order: each turn's user message, its events, then
what the run changed in the store (a line per changed table). A style decides how each line is
introduced and how its value is written. Two styles use it:
  - the judge's (commerce_evals/judging/transcript.py): a fixed prefix per line and the value
    as a quoted JSON literal, so nothing the agent wrote can start a line or close a block;
  - a person's (PLAIN below, for the label and notes screens): words as written, tool data as
    compact JSON, clipped unless the person asks for it in full.
A line's prefix is made by the harness from the style and the names only (a tool or component
name goes through the style's `name`); its value is kept raw, for the style to write.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from commerce_evals.core import events
from commerce_evals.core.events import Event, Run, Turn
from commerce_evals.grading.changes import what_changed

Kind = Literal[
    "turn",  # a line opening a turn (a person's style only)
    "user",
    "reply",
    "tool_call",
    "tool_result",
    "ui",
    "cart",
    "changes",
    "turn_end",
    "other",  # an event kind this module does not know yet
    "changed",  # a table the run changed: {"added": [...], "removed": [...]}
    "unchanged",  # the run changed nothing
]
# Kinds whose value is words someone wrote or a reason the harness names, not data.
WORDS: frozenset[Kind] = frozenset({"user", "reply", "turn_end"})
# Kinds a judge's transcript keeps when the graded turn must shrink.
ESSENTIAL: frozenset[Kind] = frozenset({"user", "reply"})


@dataclass(frozen=True)
class Style:
    """How the lines of a run are introduced.

    `heads` maps a kind to the text before its value, with `{name}` (a tool, component or table)
    and `{status}` (a tool result's status and reason); a kind without a head is not shown.
    `label` goes before every line of a turn (`{n}`: the turn's number, `{graded}`: `graded`
    for the last turn, else empty); `after` goes before each line of what the run changed."""

    heads: Mapping[Kind, str]
    label: str = ""
    graded: str = ""
    after: str = ""
    name: Callable[[str], str] = str
    status: Callable[[str], str] = str
    quiet_reply_end: bool = False  # say nothing of a turn that ended with its reply


@dataclass(frozen=True)
class RunLine:
    turn: int  # 0-based; the last turn's index for what the run changed
    kind: Kind
    prefix: str
    value: Any
    essential: bool = False  # a user message or a reply


def _parts(event: Event) -> tuple[Kind, Any, str | None, str | None]:
    """(kind, value, name, status) of an event; None where the kind has no name or status."""
    if isinstance(event, events.ReplyEvent):
        return "reply", event.text, None, None
    if isinstance(event, events.ToolCallEvent):
        return "tool_call", event.args, event.tool, None
    if isinstance(event, events.ToolResultEvent):
        status = event.status if event.reason is None else f"{event.status} ({event.reason})"
        return "tool_result", event.data, event.tool, status
    if isinstance(event, events.UiEvent):
        return "ui", event.payload, event.component, None
    if isinstance(event, events.CartUpdateEvent):
        return "cart", event.cart, None, None
    if isinstance(event, events.ChangeUpdateEvent):
        return "changes", event.changes, None, None
    if isinstance(event, events.TurnEndEvent):
        return "turn_end", event.reason, None, None
    return "other", event.model_dump(mode="json"), None, None


@dataclass(frozen=True)
class _Place:
    """Where a line stands: its turn (0-based) and the label its prefix starts with."""

    turn: int
    number: int
    graded: str
    label: str


def _line(
    style: Style,
    place: _Place,
    kind: Kind,
    value: Any = None,
    name: str | None = None,
    status: str | None = None,
) -> RunLine | None:
    head = style.heads.get(kind)
    if head is None:
        return None
    text = head.format(
        n=place.number,
        graded=place.graded,
        name="" if name is None else style.name(name),
        status="" if status is None else style.status(status),
    )
    return RunLine(place.turn, kind, place.label + text, value, essential=kind in ESSENTIAL)


def turn_lines(index: int, turn: Turn, graded: bool, style: Style) -> list[RunLine]:
    """A turn's lines: its opening (when the style has one), the user message, its events."""
    mark = style.graded if graded else ""
    opening = _Place(index, index + 1, mark, "")
    place = _Place(index, index + 1, mark, style.label.format(n=index + 1, graded=mark))
    lines = [_line(style, opening, "turn"), _line(style, place, "user", turn.user)]
    for event in turn.events:
        kind, value, name, status = _parts(event)
        if kind == "turn_end" and value == "reply" and style.quiet_reply_end:
            continue
        lines.append(_line(style, place, kind, value, name, status))
    return [line for line in lines if line is not None]


def change_lines(run: Run, style: Style) -> list[RunLine]:
    """What the run changed in the store, a line per table (one `unchanged` line when nothing
    changed): the evidence a claim of a done action is checked against."""
    last = len(run.turns) - 1
    place = _Place(last, last + 1, "", style.after)
    changes = what_changed(run)
    if changes:
        lines = [
            _line(style, place, "changed", {"added": c.added, "removed": c.removed}, table)
            for table, c in changes.items()
        ]
    else:
        lines = [_line(style, place, "unchanged", {})]
    return [line for line in lines if line is not None]


def run_lines(run: Run, style: Style) -> list[RunLine]:
    """Every line of the run in the style: its turns (the last one graded), then its changes."""
    last = len(run.turns) - 1
    lines = [
        line
        for index, turn in enumerate(run.turns)
        for line in turn_lines(index, turn, index == last, style)
    ]
    return lines + change_lines(run, style)


# ---- a person's style ----------------------------------------------------------------------

PLAIN = Style(
    heads={
        "turn": "── turn {n}{graded} ──",
        "user": "CUSTOMER: ",
        "reply": "AGENT: ",
        "tool_call": "  call {name} ",
        "tool_result": "  result {name} {status}: ",
        "ui": "  shown {name}: ",
        "cart": "  cart now: ",
        "changes": "  staged changes now: ",
        "turn_end": "  turn ended: ",
        "changed": "after the run, {name} changed: ",
        "unchanged": "after the run, nothing in the store changed",
    },
    graded=" (graded)",
    quiet_reply_end=True,
)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" … [{len(text) - limit} more chars]"


def _plain_value(line: RunLine, limit: int | None) -> str:
    if line.kind in ("turn", "unchanged"):
        return ""
    if line.kind in WORDS:
        return str(line.value)
    text = json.dumps(line.value, ensure_ascii=False, default=str)
    return text if limit is None else _clip(text, limit)


def readable(run: Run, limit: int | None = 400) -> str:
    """The run for a person: words as written, tool data compact and, unless limit is None,
    clipped; then what the run changed, as the judge was shown it."""
    return "\n".join(line.prefix + _plain_value(line, limit) for line in run_lines(run, PLAIN))
