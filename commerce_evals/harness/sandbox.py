"""The sandbox: one case's session and the record of what happens in it.

Every way an agent runs here (the built-in loop, an Inspect agent, an agent behind Inspect's
bridge, an MCP client) reaches the domain through one object, and the Run the graders read is
written by it, not by the agent's loop: `call` runs a tool and records the call, its result and
what the session emitted (UI components, cart and change updates); `reply` records what the
person was told; `refused` records a call that never reached a tool; `begin_turn` and `end_turn`
mark the person's turns. Two agents that make the same calls and say the same things leave the
same Run.

Within a turn the events of a call stay together (its call, its result, what it emitted), in the
order the calls ran. A reply that came with calls (a turn-ending component's message) is placed
before them, where the agent said it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jsonschema import Draft7Validator

from commerce_evals.core.events import (
    Event,
    ReplyEvent,
    Run,
    ToolCallEvent,
    ToolResultEvent,
    Turn,
    TurnEndEvent,
)
from commerce_evals.domains.base import Session
from commerce_evals.domains.tooling import ToolSpec


@lru_cache(maxsize=512)
def _validator(spec: ToolSpec) -> Draft7Validator:
    return Draft7Validator(spec.parameters)


def argument_problem(spec: ToolSpec, args: dict[str, Any]) -> str | None:
    """Why `args` do not fit the tool's schema (None: they do)."""
    errors = sorted(_validator(spec).iter_errors(args), key=lambda e: list(e.path))
    if not errors:
        return None
    where = ".".join(str(p) for p in errors[0].path)
    at = f"{where}: " if where else ""
    return f"the arguments do not fit the tool's schema: {at}{errors[0].message}"


class CallNotRun(Exception):
    """A call the sandbox did not run (past the turn's cap on tool calls); the text says why, and
    the agent is answered with it as an error."""


class Sandbox:
    """A case's Session with its recording. `max_calls_per_turn` caps the calls run in a turn:
    a call past it is answered as not run and counted in the turn's `call_cap` end."""

    def __init__(
        self, session: Session, tools: tuple[ToolSpec, ...], max_calls_per_turn: int
    ) -> None:
        self.session = session
        self.tools = tools
        self._by_name = {spec.name: spec for spec in tools}
        self.max_calls_per_turn = max_calls_per_turn
        self.run = Run(start=session.snapshot())
        self._made = 0  # calls run or refused this turn
        self._not_run: set[str] = set()
        self._open = False

    # ---- turns ---------------------------------------------------------------------------------

    @property
    def turn(self) -> Turn:
        if not self.run.turns:
            raise RuntimeError("no turn has begun: call begin_turn first")
        return self.run.turns[-1]

    @property
    def turn_open(self) -> bool:
        return self._open

    def begin_turn(self, user: str, confirms: frozenset[str] = frozenset()) -> Turn:
        """The person's next message: the session hears it (consent is per turn) and the Run gets
        a turn for it."""
        self.session.begin_turn(user, confirms)
        turn = Turn(user=user)
        self.run.turns.append(turn)
        self._made = 0
        self._not_run = set()
        self._open = True
        return turn

    def end_turn(self, round_cap: bool = False) -> TurnEndEvent:
        """Close the turn with why it stopped: the call cap, the round cap, a turn-ending tool, a
        reply, or an empty reply (the agent said nothing)."""
        if self._not_run:
            end = TurnEndEvent(reason="call_cap", not_run=len(self._not_run))
        elif round_cap:
            end = TurnEndEvent(reason="round_cap")
        elif self.session.turn_ended:
            end = TurnEndEvent(reason="turn_ending_tool")
        elif self._replied():
            end = TurnEndEvent(reason="reply")
        else:
            end = TurnEndEvent(reason="empty_reply")
        self.turn.events.append(end)
        self._open = False
        return end

    def _replied(self) -> bool:
        """Whether the agent's last words this turn were a reply (not a call after it)."""
        for event in reversed(self.turn.events):
            if isinstance(event, ReplyEvent):
                return True
            if isinstance(event, ToolCallEvent):
                return False
        return False

    @property
    def capped(self) -> bool:
        """Whether the turn reached its cap on tool calls (a call past it was not run)."""
        return bool(self._not_run)

    @property
    def turn_ended(self) -> bool:
        """Whether a turn-ending tool ran this turn."""
        return self.session.turn_ended

    def room(self) -> int:
        """How many more calls the turn may run."""
        return max(0, self.max_calls_per_turn - self._made)

    # ---- what the agent does -------------------------------------------------------------------

    def spec(self, tool: str) -> ToolSpec | None:
        return self._by_name.get(tool)

    def call(self, tool: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Run one call the agent made and record it with what it caused; the answer the agent
        gets (status ok, blocked, NEEDS_PERSON or error, as the session gives it). A call past
        the turn's cap raises CallNotRun; a tool the agent is not offered is refused."""
        if call_id in self._not_run or self.room() == 0:
            self._not_run.add(call_id)
            raise CallNotRun(
                f"Not executed: this turn reached its limit of {self.max_calls_per_turn} tool calls."
            )
        spec = self._by_name.get(tool)
        reason = f"Tool {tool} not found" if spec is None else argument_problem(spec, args)
        if reason is not None:
            # Inspect refuses these before a tool runs; a caller that is not Inspect (an MCP
            # client, a framework's own tool call) meets the same refusal here
            self.refused(call_id, tool, args, reason)
            raise CallNotRun(reason)
        assert spec is not None
        self._made += 1
        self.turn.events.append(ToolCallEvent(call_id=call_id, tool=tool, args=dict(args)))
        answer = self.session.call(spec, args, call_id)
        self.turn.events.extend(self.session.drain_events())
        return answer

    def not_run(self, call_ids: list[str]) -> None:
        """Calls the agent asked for past the turn's cap, which its loop never handed over."""
        self._not_run.update(call_ids)

    def refused(
        self, call_id: str, tool: str, args: dict[str, Any], reason: str, at: int | None = None
    ) -> None:
        """A call that never reached a tool (an unknown tool, arguments that do not fit its
        schema): it satisfies no positive key but counts for the negative ones. `at` places it
        among the turn's events (default: last)."""
        self._made += 1
        events: list[Event] = [
            ToolCallEvent(call_id=call_id, tool=tool, args=dict(args)),
            ToolResultEvent(call_id=call_id, tool=tool, status="refused", reason=reason),
        ]
        where = len(self.turn.events) if at is None else at
        self.turn.events[where:where] = events

    def reply(self, text: str, at: int | None = None) -> bool:
        """What the agent told the person (an empty text is nothing); `at` places it among the
        turn's events (default: last), before the calls it came with. Whether it was recorded."""
        text = text.strip()
        if not text:
            return False
        where = len(self.turn.events) if at is None else at
        self.turn.events.insert(where, ReplyEvent(text=text))
        return True

    def recorded(self, call_id: str) -> bool:
        """Whether the turn holds the call (run or refused)."""
        return any(isinstance(e, ToolCallEvent) and e.call_id == call_id for e in self.turn.events)

    def was_not_run(self, call_id: str) -> bool:
        return call_id in self._not_run

    def position_of(self, call_ids: tuple[str, ...]) -> int:
        """The index of the first recorded call among `call_ids` (the end when none is)."""
        for index, event in enumerate(self.turn.events):
            if isinstance(event, ToolCallEvent) and event.call_id in call_ids:
                return index
        return len(self.turn.events)

    def after_call(self, call_id: str) -> int:
        """The index just past the events of a recorded call (its result and what it emitted)."""
        events = self.turn.events
        start = self.position_of((call_id,))
        index = start + 1
        while index < len(events) and not isinstance(
            events[index], ToolCallEvent | ReplyEvent | TurnEndEvent
        ):
            index += 1
        return index

    # ---- the end -------------------------------------------------------------------------------

    def finish(self, kept: set[str]) -> Run:
        """The Run as graded: the tables after the last turn, and of both snapshots only the
        tables that changed and those the graders read (`kept`). The sandbox is done."""
        if self._open:
            self.end_turn()
        self.run.end = self.session.snapshot()
        self.run.keep_for_grading(kept)
        return self.run

    def run_so_far(self, kept: set[str]) -> Run:
        """The Run as `finish` would give it now, as a copy: the sandbox goes on."""
        run = self.run.model_copy(deep=True)
        run.end = self.session.snapshot()
        run.keep_for_grading(kept)
        return run
