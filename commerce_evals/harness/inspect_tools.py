"""The sandbox as an Inspect agent sees it: its tools as Inspect ToolDefs, and what an Inspect
conversation tells the sandbox that its tools cannot (the replies, the calls Inspect refused).

A tool learns which call it serves from the ToolEvent Inspect opens, pending, just before it runs
the tool (Inspect hands a tool its arguments only). The tools run one at a time (`parallel` off),
in the model's order, so there is exactly one such event. An agent framework that runs the tools
itself (behind Inspect's bridge) names the call with `serving_call`.

`settle` reads the assistant messages of a conversation after their calls ran: each message's
text is a reply, placed before the calls it came with; a call the sandbox never saw was refused
by Inspect (an unknown tool, arguments that do not fit the schema) and is recorded where it
stands among its message's calls, with Inspect's reason. The built-in loop settles each round;
an Inspect agent's turn is settled when the agent returns.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from inspect_ai.event import ToolEvent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.tool import ToolDef, ToolError, ToolParams

from commerce_evals.domains.base import HarnessError
from commerce_evals.domains.tooling import ToolSpec
from commerce_evals.harness.sandbox import CallNotRun, Sandbox


@lru_cache(maxsize=512)
def tool_params(spec: ToolSpec) -> ToolParams:
    """A spec's schema as Inspect's ToolParams, validated once rather than once per sample."""
    return ToolParams.model_validate(spec.parameters)


# The id of a call a tool is run for from outside Inspect's tool execution: an agent framework
# behind Inspect's bridge runs its own tools and knows its call ids (see `serving_call`).
_SERVING: ContextVar[str | None] = ContextVar("commerce_serving_call", default=None)


@contextmanager
def serving_call(call_id: str) -> Iterator[None]:
    """Run a sandbox tool (`ToolDef.tool`) for a call made outside Inspect's tool execution: an
    agent framework's own call, whose id it gives (commerce_evals/bridge/)."""
    token = _SERVING.set(call_id)
    try:
        yield
    finally:
        _SERVING.reset(token)


def _current_call_id(tool: str) -> str:
    """The id of the call a tool serves: the framework's (`serving_call`), or the one of the
    pending ToolEvent of the call Inspect is running now (see the module's docstring)."""
    served = _SERVING.get()
    if served is not None:
        return served
    pending = [
        e
        for e in transcript().pending_events
        if isinstance(e, ToolEvent) and e.function == tool and e.pending
    ]
    if len(pending) != 1:
        raise HarnessError(
            f"tool {tool!r} ran with {len(pending)} pending calls of it in the transcript: "
            "the sandbox cannot tell which call it serves (a harness bug, not the agent's)"
        )
    return pending[0].id


def inspect_tools(sandbox: Sandbox) -> list[ToolDef]:
    """The sandbox's tools for an Inspect agent or solver: each call runs through the sandbox,
    which records it; the model reads the session's answer as JSON.

    The tools hold the sandbox weakly: Inspect keeps a sample's ToolDefs in reference cycles
    of its own, and a strong hold would keep the sample's whole session (its store, its Run)
    alive with them until a full garbage collection. The sample's solver holds the sandbox for
    as long as its tools can be called."""
    held = weakref.ref(sandbox)

    def make(spec: ToolSpec) -> ToolDef:
        async def execute(**kwargs: Any) -> str:
            live = held()
            if live is None:
                raise HarnessError(f"tool {spec.name!r} ran after its sample's sandbox closed")
            try:
                answer = live.call(spec.name, kwargs, _current_call_id(spec.name))
            except CallNotRun as not_run:
                raise ToolError(str(not_run)) from None
            return json.dumps(answer, default=str)

        return ToolDef(
            execute,
            name=spec.name,
            description=spec.description,
            parameters=tool_params(spec),
            parallel=False,
        )

    return [make(spec) for spec in sandbox.tools]


def settle(sandbox: Sandbox, messages: list[ChatMessage], start: int = 0) -> None:
    """Record what `messages` (an agent's new messages, in order, whose events the turn holds
    from index `start` on) say beyond their calls: every assistant message's text as a reply
    before its calls, and every call no tool ran and no cap stopped (Inspect refused it) where it
    stands among its message's calls."""
    answers = {
        m.tool_call_id: m for m in messages if isinstance(m, ChatMessageTool) and m.tool_call_id
    }
    at = start  # where the next message's events begin
    for message in messages:
        if not isinstance(message, ChatMessageAssistant):
            continue
        calls = message.tool_calls or []
        ran = tuple(c.id for c in calls if sandbox.recorded(c.id))
        if ran:
            at = sandbox.position_of(ran)
        if sandbox.reply(message.text, at=at):
            at += 1
        for call in calls:
            if sandbox.recorded(call.id):
                at = sandbox.after_call(call.id)
                continue
            answer = answers.get(call.id)
            if sandbox.was_not_run(call.id) or answer is None:
                continue  # past the cap, or never answered (a limit stopped the agent)
            reason = answer.error.message if answer.error else "the call did not run"
            sandbox.refused(call.id, call.function, call.arguments or {}, reason, at=at)
            at += 2
