"""The solver: inject a case's state, drive its turns through the tool loop, record the Run."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from string import Template
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    execute_tools,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCall, ToolCallError, ToolDef, ToolParams

from commerce_evals.cases.model import Case
from commerce_evals.domains.base import AgentProfile, HarnessError, Session, World
from commerce_evals.domains.tooling import ToolSpec
from commerce_evals.grading.graders import tables_read
from commerce_evals.harness.chain import start_session
from commerce_evals.harness.customer import (
    customer_player,
)
from commerce_evals.harness.events import (
    CustomerRecord,
    ReplyEvent,
    Run,
    ToolCallEvent,
    ToolResultEvent,
    Turn,
    TurnEndEvent,
)
from commerce_evals.harness.run_record import record_run
from commerce_evals.harness.sample_case import case_of
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_ROUNDS

# Placeholders the session fills (flow.check_placeholders knows them besides the World's).
SESSION_VARIABLES = ("memory",)


def render_instructions(template: str, variables: dict[str, Any], session: Session) -> str:
    """Every placeholder was checked when the task loaded, so a missing one here is a bug.

    Interned: the prompt of a case is the same text every epoch, and Inspect keeps a sample's
    messages referenced until the run ends; one string object instead of one per sample."""
    return sys.intern(Template(template).substitute(variables, memory=session.context()).strip())


class _PendingCalls:
    """The call a handler answers. `execute_round` hands Inspect one call at a time, so the
    handler that runs answers the current call, and a call whose handler never ran was refused.

    Matching by tool name instead swaps ids when Inspect refuses one of two calls to one tool in
    a round (a wrong argument type) and runs the other: the executed call is recorded under the
    refused one's id."""

    def __init__(self) -> None:
        self._current: tuple[str, str] | None = None
        self.done: set[str] = set()

    def start(self, call_id: str, tool: str) -> None:
        self._current = (call_id, tool)

    def take(self, tool: str) -> str:
        current, self._current = self._current, None
        if current is None or current[1] != tool:
            raise HarnessError(
                f"tool {tool!r} ran outside the call Inspect was executing ({current}): "
                "a harness bug, not the agent's"
            )
        self.done.add(current[0])
        return current[0]


async def execute_round(
    messages: list[ChatMessage],
    tools: list[ToolDef],
    pending: _PendingCalls,
    calls: list[ToolCall],
) -> list[ChatMessage]:
    """Inspect's answers to `calls` of the assistant message that ends `messages`: one Inspect
    execution per call, in the model's order, so each handler knows its own call's id (Inspect
    tells a tool nothing of the call it serves). `pending.done` ends as the calls that ran."""
    message = messages[-1]
    assert isinstance(message, ChatMessageAssistant), "a round's calls follow the model's message"
    pending.done = set()
    answers: list[ChatMessage] = []
    try:
        for call in calls:
            pending.start(call.id, call.function)
            messages[-1] = message.model_copy(update={"tool_calls": [call]})
            answers.extend((await execute_tools(messages, tools)).messages)
    finally:
        messages[-1] = message
    return answers


@lru_cache(maxsize=256)
def tool_params(spec: ToolSpec) -> ToolParams:
    """A spec's schema as Inspect's ToolParams, validated once rather than once per sample."""
    return ToolParams.model_validate(spec.parameters)


def build_tools(
    session: Session, specs: tuple[ToolSpec, ...], pending: _PendingCalls
) -> list[ToolDef]:
    def make(spec: ToolSpec) -> ToolDef:
        async def execute(**kwargs: Any) -> str:
            answer = session.call(spec, kwargs, pending.take(spec.name))
            return json.dumps(answer, default=str)

        return ToolDef(
            execute,
            name=spec.name,
            description=spec.description,
            parameters=tool_params(spec),
        )

    return [make(spec) for spec in specs]


@solver
def commerce_agent(
    world: World,
    agent: AgentProfile,
    instructions: str,
    variables: dict[str, Any],
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN,
) -> Solver:
    """Run every turn of the case: user message, then model and tools until a reply or a turn end.

    `max_rounds` caps model calls per turn exactly: the turn stops after that many, with no extra
    call made and thrown away. `max_calls_per_turn` caps the tool calls run in a turn: the calls
    past it are answered as not run and the turn ends with a `call_cap` turn end that counts them.
    """
    limits = TurnLimits(rounds=max_rounds, calls=max_calls_per_turn)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        case = case_of(state.metadata)
        if case.skip:
            return state
        session = start_session(world, agent.tools, case, state.metadata.get("chain"))
        pending = _PendingCalls()
        tools = build_tools(session, agent.tools, pending)
        run = Run(start=session.snapshot())
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=render_instructions(instructions, variables, session))
        ]
        model = get_model()

        async def take_turn(user_text: str, confirms: frozenset[str]) -> Turn:
            session.begin_turn(user_text, confirms)
            messages.append(ChatMessageUser(content=user_text))
            turn = Turn(user=user_text)
            run.turns.append(turn)
            await _run_turn(model, messages, tools, session, pending, turn, limits, state)
            return turn

        try:
            if case.customer is None:
                for index, user_text in enumerate(case.turns):
                    await take_turn(user_text, case.confirmed(index))
            else:
                await _converse(case, run, take_turn)
        finally:
            run.end = session.snapshot()
            kept = tables_read(case.expected, world.key_tables) | world.invariants.tables()
            run.keep_for_grading(kept)
            record_run(state, run)
            state.messages = messages
        return state

    return solve


async def _converse(case: Case, run: Run, take_turn: Any) -> None:
    """A case with a customer: the first turn as written, then the customer's answers to the
    agent's replies until the customer ends the conversation (see harness/customer.py)."""
    assert case.customer is not None
    player = customer_player(case.customer)
    run.customer = CustomerRecord(mode=player.mode, model=player.model)
    turn = await take_turn(case.turns[0], case.confirmed(0))
    turn.confirms = sorted(case.confirmed(0))
    unanswered = 0
    while True:
        answer = await player.next_turn(run, unanswered)
        if answer.ended:
            run.customer.ended = answer.ended
            return
        unanswered += not answer.answered
        turn = await take_turn(answer.say, answer.confirms)
        turn.confirms = sorted(answer.confirms)
        turn.answers = list(answer.answered)


@dataclass(frozen=True)
class TurnLimits:
    """What one user turn may cost: model calls (rounds) and tool calls."""

    rounds: int = DEFAULT_MAX_ROUNDS
    calls: int = DEFAULT_MAX_CALLS_PER_TURN


async def _run_turn(
    model: Any,
    messages: list[ChatMessage],
    tools: list[ToolDef],
    session: Session,
    pending: _PendingCalls,
    turn: Turn,
    limits: TurnLimits,
    state: TaskState,
) -> None:
    made = 0  # tool calls run (or refused by Inspect) this turn
    for _ in range(limits.rounds):
        # Never cached: each epoch must be a fresh run of the agent (Inspect's CLI may turn the
        # model cache on by default, which would replay one answer across epochs and samples).
        output = await model.generate(messages, tools=tools, cache=False)
        state.output = output
        message: ChatMessageAssistant = output.message
        messages.append(message)
        calls = message.tool_calls or []
        text = message.text.strip()
        if text:
            turn.events.append(ReplyEvent(text=text))
        if not calls:
            turn.events.append(TurnEndEvent(reason="reply" if text else "empty_reply"))
            return
        runs, over = calls[: limits.calls - made], calls[limits.calls - made :]
        turn.events.extend(
            ToolCallEvent(call_id=c.id, tool=c.function, args=c.arguments or {}) for c in runs
        )
        answers = await execute_round(messages, tools, pending, runs)
        messages.extend(answers)
        made += len(runs)
        turn.events.extend(session.drain_events())
        turn.events.extend(_unexecuted(answers, pending.done))
        if over:
            messages.extend(_not_run(over, limits.calls))
            turn.events.append(TurnEndEvent(reason="call_cap", not_run=len(over)))
            return
        if session.turn_ended:
            turn.events.append(TurnEndEvent(reason="turn_ending_tool"))
            return
    turn.events.append(TurnEndEvent(reason="round_cap"))


def _not_run(calls: list[ToolCall], cap: int) -> list[ChatMessageTool]:
    """The answers to calls past the turn's cap: every call gets one, so the conversation stays
    one a provider accepts in the next turn, and the model reads why its calls did nothing."""
    error = ToolCallError(
        "limit", f"Not executed: this turn reached its limit of {cap} tool calls."
    )
    return [
        ChatMessageTool(content="", tool_call_id=c.id, function=c.function, error=error)
        for c in calls
    ]


def _unexecuted(tool_messages: list[ChatMessage], done: set[str]) -> list[ToolResultEvent]:
    """Calls Inspect refused before they reached a tool (unknown tool, malformed arguments)."""
    events = []
    for msg in tool_messages:
        if isinstance(msg, ChatMessageTool) and msg.tool_call_id not in done:
            reason = msg.error.message if msg.error else "the call did not run"
            events.append(
                ToolResultEvent(
                    call_id=msg.tool_call_id or "",
                    tool=msg.function or "",
                    status="refused",
                    reason=reason,
                )
            )
    return events
