"""The built-in agent: the domain's instructions, then per user turn the tool loop over the
sandbox (harness/sandbox.py), which records the Run."""

from __future__ import annotations

from dataclasses import dataclass
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
from inspect_ai.tool import ToolCall, ToolCallError, ToolDef

from commerce_evals.harness.inspect_tools import inspect_tools, settle
from commerce_evals.harness.sample_run import AgentSetup, sample_run
from commerce_evals.harness.sandbox import Sandbox
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_ROUNDS
from commerce_evals.harness.turns import play


@solver
def commerce_agent(setup: AgentSetup, max_rounds: int = DEFAULT_MAX_ROUNDS) -> Solver:
    """Run every turn of the case: user message, then model and tools until a reply or a turn end.

    `max_rounds` caps model calls per turn exactly: the turn stops after that many, with no extra
    call made and thrown away. The setup's cap on tool calls per turn is the sandbox's: the calls
    past it are answered as not run and the turn ends with a `call_cap` turn end that counts them.
    """
    limits = TurnLimits(rounds=max_rounds, calls=setup.max_calls_per_turn)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async with sample_run(state, setup) as sample:
            if sample is None:
                return state
            sandbox = sample.sandbox
            tools = inspect_tools(sandbox)
            messages: list[ChatMessage] = [ChatMessageSystem(content=sample.instructions)]
            model = get_model()

            async def agent_turn() -> None:
                messages.append(ChatMessageUser(content=sandbox.turn.user))
                await _run_turn(model, messages, tools, sandbox, limits, state)

            try:
                await play(sample.conversation, sandbox, agent_turn)
            finally:
                state.messages = messages
        return state

    return solve


@dataclass(frozen=True)
class TurnLimits:
    """What one user turn may cost: model calls (rounds) and tool calls."""

    rounds: int = DEFAULT_MAX_ROUNDS
    calls: int = DEFAULT_MAX_CALLS_PER_TURN


async def _run_turn(
    model: Any,
    messages: list[ChatMessage],
    tools: list[ToolDef],
    sandbox: Sandbox,
    limits: TurnLimits,
    state: TaskState,
) -> None:
    """The built-in loop's turn: model, then its calls through the sandbox, until it replies
    without calls, a turn-ending tool ran, or a cap is reached."""
    for _ in range(limits.rounds):
        # Never cached: each epoch must be a fresh run of the agent (Inspect's CLI may turn the
        # model cache on by default, which would replay one answer across epochs and samples).
        output = await model.generate(messages, tools=tools, cache=False)
        state.output = output
        message: ChatMessageAssistant = output.message
        messages.append(message)
        calls = message.tool_calls or []
        start = len(sandbox.turn.events)
        if not calls:
            settle(sandbox, [message], start)
            sandbox.end_turn()
            return
        room = sandbox.room()
        runs, over = calls[:room], calls[room:]
        sandbox.not_run([c.id for c in over])
        answers = (await execute_tools(_only(messages, runs), tools)).messages if runs else []
        messages.extend(answers)
        settle(sandbox, [message, *answers], start)
        if over:
            messages.extend(_not_run(over, limits.calls))
        if over or sandbox.turn_ended:
            sandbox.end_turn()
            return
    sandbox.end_turn(round_cap=True)


def _only(messages: list[ChatMessage], calls: list[ToolCall]) -> list[ChatMessage]:
    """The conversation with its last message asking only for `calls` (the ones within the cap)."""
    last = messages[-1]
    assert isinstance(last, ChatMessageAssistant), "a round's calls follow the model's message"
    if len(calls) == len(last.tool_calls or []):
        return messages
    return [*messages[:-1], last.model_copy(update={"tool_calls": calls})]


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
