"""`-T agent=FILE.py@NAME`: an Inspect agent answers each user turn instead of the built-in loop.

Per sample the agent is built from its factory with the sandbox's tools and the case's rendered
instructions (harness/agent_ref.py), then run once per user turn on the conversation so far, the
turn's user message last, with Inspect's `turn_limit` as the cap on model calls per turn. The
tools record what the agent does as they run (harness/sandbox.py); when the agent returns, the
turn's messages add what its tools could not see: its replies and the calls Inspect refused
(`settle`). An agent behind Inspect's bridge (an OpenAI Agents SDK program, say) is run the same
way; its tools are the sandbox's too.

System messages are the agent's own: the conversation it is handed holds none (Inspect's react()
inserts its prompt every time it is called), and those it returns are dropped before the next
turn. An agent that takes no `instructions` gets them as a system message at the start.
"""

from __future__ import annotations

from inspect_ai.agent import run
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import turn_limit

from commerce_evals.harness.agent_ref import AgentRef
from commerce_evals.harness.inspect_tools import inspect_tools, settle
from commerce_evals.harness.sample_run import AgentSetup, sample_run
from commerce_evals.harness.task_args import DEFAULT_MAX_ROUNDS
from commerce_evals.harness.turns import play


def turn_messages(messages: list[ChatMessage], user: str) -> list[ChatMessage]:
    """The messages an agent added after the turn's user message (the last one with its text;
    the last user message when the agent rewrote it)."""
    users = [i for i, m in enumerate(messages) if isinstance(m, ChatMessageUser)]
    same = [i for i in users if messages[i].text == user]
    last = same[-1] if same else (users[-1] if users else -1)
    return messages[last + 1 :]


@solver
def inspect_agent(setup: AgentSetup, ref: AgentRef, max_rounds: int = DEFAULT_MAX_ROUNDS) -> Solver:
    """Every user turn of the case answered by the agent `ref` names."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        async with sample_run(state, setup) as sample:
            if sample is None:
                return state
            sandbox = sample.sandbox
            agent = ref.build(inspect_tools(sandbox), sample.instructions)
            system = ChatMessageSystem(content=sample.instructions)
            prefix = [] if ref.takes_instructions else [system]
            conversation: list[ChatMessage] = []

            async def agent_turn() -> None:
                conversation.append(ChatMessageUser(content=sandbox.turn.user))
                result, limit = await run(
                    agent, [*prefix, *conversation], limits=[turn_limit(max_rounds)]
                )
                returned = list(result.messages)
                settle(sandbox, turn_messages(returned, sandbox.turn.user))
                conversation[:] = [m for m in returned if not isinstance(m, ChatMessageSystem)]
                state.output = result.output
                sandbox.end_turn(round_cap=limit is not None and not sandbox.capped)

            try:
                await play(sample.conversation, sandbox, agent_turn)
            finally:
                state.messages = [system, *conversation]
        return state

    return solve
