"""The event stream a turn yields, and the Run that graders read.

Graders never look at a domain's objects: they read these events and the snapshots (named tables of
rows) a session takes before the first turn and after the last one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from commerce_evals.core.strict import Strict

Row = dict[str, Any]
Snapshot = dict[str, list[Row]]


class _Event(Strict):
    """What every event shares: an unknown field is an error."""


class ToolCallEvent(_Event):
    """The model asked for a tool. Counted whether or not the call then ran or was blocked."""

    type: Literal["tool_call"] = "tool_call"
    call_id: str
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class ToolResultEvent(_Event):
    """What the tool answered: `ok`, `blocked` by a gate (named in `reason`), or `error`.

    `refused` is a call that never ran: Inspect or the provider turned it down (an unknown tool,
    arguments that do not parse or fit the schema). It satisfies no positive key, but it is still
    an attempt for the negative ones.
    """

    type: Literal["tool_result"] = "tool_result"
    call_id: str
    tool: str
    status: Literal["ok", "blocked", "error", "needs_person", "refused"] = "ok"
    reason: str | None = None
    data: Any = None


class UiEvent(_Event):
    """A component rendered for the person (suggestions, comparison, product card, ...)."""

    type: Literal["ui"] = "ui"
    component: str
    payload: dict[str, Any] = Field(default_factory=dict)


class CartUpdateEvent(_Event):
    type: Literal["cart_update"] = "cart_update"
    cart: list[Row]


class ChangeUpdateEvent(_Event):
    """The staged merchant changes (or any domain write queue) after a call changed them."""

    type: Literal["change_update"] = "change_update"
    changes: list[Row]


class ReplyEvent(_Event):
    type: Literal["reply"] = "reply"
    text: str


class TurnEndEvent(_Event):
    """Why the turn stopped: a reply, a turn-ending tool, the round cap, an empty reply, or the
    cap on tool calls per turn (`call_cap`: `not_run` calls the model asked for past it never
    ran; the calls before it are recorded as usual)."""

    type: Literal["turn_end"] = "turn_end"
    reason: Literal["reply", "turn_ending_tool", "round_cap", "empty_reply", "call_cap"]
    not_run: int | None = None

    @model_serializer(mode="wrap")
    def _without_an_unset_count(self, write: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Other turn ends are written as before the count existed, so a Run read from an older
        log dumps (and fingerprints) as it did."""
        data: dict[str, Any] = write(self)
        if self.not_run is None:
            data.pop("not_run", None)
        return data


Event = Annotated[
    ToolCallEvent
    | ToolResultEvent
    | UiEvent
    | CartUpdateEvent
    | ChangeUpdateEvent
    | ReplyEvent
    | TurnEndEvent,
    Field(discriminator="type"),
]


class Turn(BaseModel):
    user: str
    events: list[Event] = Field(default_factory=list)
    # A customer's turn (cases with a `customer`): the writes its message consents to and the
    # reveals it answers; a scripted turn's consent stays in the case.
    confirms: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)

    def calls(self) -> list[ToolCallEvent]:
        return [e for e in self.events if isinstance(e, ToolCallEvent)]

    def results(self) -> list[ToolResultEvent]:
        return [e for e in self.events if isinstance(e, ToolResultEvent)]

    def ui(self) -> list[UiEvent]:
        return [e for e in self.events if isinstance(e, UiEvent)]

    def capped(self) -> TurnEndEvent | None:
        """The turn's `call_cap` end, when the cap on tool calls per turn stopped it."""
        ends = [e for e in self.events if isinstance(e, TurnEndEvent) and e.reason == "call_cap"]
        return ends[-1] if ends else None

    def reply(self) -> str:
        """What the agent told the person this turn: its replies and the messages its components
        showed (a turn that ends with present_suggestions may speak only through the component)."""
        texts = []
        for event in self.events:
            if isinstance(event, ReplyEvent):
                texts.append(event.text)
            elif isinstance(event, UiEvent) and isinstance(event.payload.get("message"), str):
                texts.append(event.payload["message"])
        return "\n".join(texts)


class CustomerRecord(BaseModel):
    """Who played the customer, and why the conversation ended."""

    mode: Literal["scripted", "simulated"]
    model: str | None = None
    ended: str | None = None


class Run(BaseModel):
    """Everything a case's graders read: the turns' events and the state before and after.

    `end` holds the tables after the last turn, `start` the tables as they were before the first.
    The solver keeps, in both, the tables that changed and those the case's graders read (a table
    missing from `start` ended as it began): a large fixture's other tables stay out of every
    sample's log.
    """

    turns: list[Turn] = Field(default_factory=list)
    start: Snapshot = Field(default_factory=dict)
    end: Snapshot = Field(default_factory=dict)
    customer: CustomerRecord | None = None

    def start_table(self, name: str) -> list[Row]:
        return self.start[name] if name in self.start else self.end.get(name, [])

    def changed_tables(self) -> list[str]:
        return [t for t in {**self.start, **self.end} if self.start_table(t) != self.end.get(t, [])]

    def as_logged(self) -> Run:
        """The Run as a sample's log keeps it: a table that ended as it began is written once, in
        `end` (a table missing from `start` ended as it began). `with_start()` undoes it."""
        start = {t: rows for t, rows in self.start.items() if self.end.get(t) != rows}
        return self if len(start) == len(self.start) else self.model_copy(update={"start": start})

    def with_start(self) -> Run:
        """Every table in `start` again, as it was before `as_logged()` (a no-op on a Run whose
        `start` is whole, as in logs written before the log kept a table once)."""
        missing = {t: rows for t, rows in self.end.items() if t not in self.start}
        return self.model_copy(update={"start": {**self.start, **missing}}) if missing else self

    def keep_for_grading(self, read: set[str]) -> None:
        """Keep the tables that matter, before and after: those that changed and those the
        graders read (so a reader of the log sees a cart that held two items as it began, not an
        empty `start`); the rest of the world is dropped from the log."""
        keep = set(self.changed_tables()) | read
        self.start = {t: rows for t, rows in self.start.items() if t in keep}
        self.end = {t: rows for t, rows in self.end.items() if t in keep}

    @property
    def graded(self) -> Turn:
        """The graded turn is the last one; earlier turns only carry state."""
        return self.turns[-1] if self.turns else Turn(user="")

    def all_calls(self) -> list[ToolCallEvent]:
        return [c for t in self.turns for c in t.calls()]

    def refused_ids(self) -> set[str]:
        """Calls that never ran (see ToolResultEvent): no positive key may count them."""
        return {r.call_id for t in self.turns for r in t.results() if r.status == "refused"}

    def statuses(self) -> dict[str, str]:
        return {r.call_id: r.status for t in self.turns for r in t.results()}

    def cap_notes(self) -> list[str]:
        """A line for each turn the cap on tool calls per turn stopped, for the explanation."""
        notes = []
        for index, turn in enumerate(self.turns):
            end = turn.capped()
            if end is not None:
                notes.append(
                    f"turn {index + 1} hit the cap on tool calls per turn "
                    f"(-T max_calls_per_turn): {len(turn.calls())} ran, "
                    f"{end.not_run} more the model asked for were not run"
                )
        return notes

    def all_replies(self) -> str:
        return "\n".join(t.reply() for t in self.turns)
