"""What every scripted model shares: reading its place in the conversation, answering with a
script's step, usage counted without a tokenizer (so no network), and its error for a bad name."""

from __future__ import annotations

import json
from typing import Any, cast

import anyio
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.tool import ToolCall

from commerce_evals.cases.errors import InputError
from commerce_evals.scripted.sample import ReplayScript


def position(messages: list[ChatMessage]) -> tuple[int, int]:
    """(turn index, rounds already answered in that turn) from the conversation so far."""
    turn = -1
    rounds = 0
    for message in messages:
        if isinstance(message, ChatMessageUser):
            turn += 1
            rounds = 0
        elif isinstance(message, ChatMessageAssistant):
            rounds += 1
    return turn, rounds


def usage_for(messages: list[ChatMessage], reply: ChatMessageAssistant) -> ModelUsage:
    """A rough count (four characters a token), enough for cost reports, with no tokenizer."""
    prompt = sum(len(m.text) for m in messages) // 4 + 1
    completion = len(reply.text) // 4 + 1 + 20 * len(reply.tool_calls or [])
    return ModelUsage(
        input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
    )


def scripted_message(script: ReplayScript, messages: list[ChatMessage]) -> ChatMessageAssistant:
    if turn_ended(script.turn_ending, messages):
        # the built-in loop never asks again after a turn-ending tool ran; an agent whose own
        # loop does (Inspect's react()) hears nothing more, as from a model that knows its turn
        # is over
        return ChatMessageAssistant(content="", model="reference")
    return scripted_step(script, *position(messages))


def turn_ended(turn_ending: frozenset[str], messages: list[ChatMessage]) -> bool:
    """Whether a turn-ending tool answered ok since the last user message (a blocked one did not
    end the turn)."""
    users = [i for i, m in enumerate(messages) if isinstance(m, ChatMessageUser)]
    start = users[-1] + 1 if users else 0
    ending_ids = {
        call.id
        for m in messages[start:]
        if isinstance(m, ChatMessageAssistant)
        for call in m.tool_calls or []
        if call.function in turn_ending
    }
    for m in messages[start:]:
        if isinstance(m, ChatMessageTool) and m.tool_call_id in ending_ids and m.error is None:
            try:
                answer = json.loads(m.text)
            except ValueError:
                continue
            if isinstance(answer, dict) and answer.get("status") == "ok":
                return True
    return False


def scripted_step(script: ReplayScript, turn_index: int, round_index: int) -> ChatMessageAssistant:
    """The script's answer at a turn and round: that round's calls, or the turn's reply."""
    if not 0 <= turn_index < len(script.turns):
        return ChatMessageAssistant(content="", model="reference")
    turn = script.turns[turn_index]
    rounds = turn.rounds()
    if round_index >= len(rounds):
        return ChatMessageAssistant(content=turn.reply, model="reference")
    calls = rounds[round_index]
    last = round_index == len(rounds) - 1
    ends_turn = last and any(c.tool in script.turn_ending for c in calls)
    return ChatMessageAssistant(
        content=turn.reply if ends_turn else "",
        tool_calls=[
            ToolCall(id=f"t{turn_index}r{round_index}c{i}", function=c.tool, arguments=dict(c.args))
            for i, c in enumerate(calls)
        ],
        model="reference",
    )


class ScriptedModelAPI(ModelAPI):
    """What every scripted model shares: no credentials, usage counted without a tokenizer, and
    no -M argument but those it names in `arguments`. One that names `latency` takes
    `-M latency=SECONDS` (in a role's `model_args` for a role model) and answers each call after
    that long, as a real model would: the latency sweep (benchmarks/latency_sweep.py) reads it."""

    provider = "commerce"
    arguments: tuple[str, ...] = ()
    latency: float = 0.0

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        **model_args: Any,
    ) -> None:
        if "latency" in self.arguments and "latency" in model_args:
            self.latency = seconds(model_args.pop("latency"))
        if model_args:  # an -M argument this model does not take would change nothing
            name, value = next(iter(model_args.items()))
            takes = (
                f"its arguments: {', '.join(self.arguments)}"
                if self.arguments
                else "it takes no -M argument"
            )
            raise ScriptedModelError(
                f"-M {name}={value}: {self.provider}/{model_name} takes no argument {name!r}; {takes}"
            )
        super().__init__(model_name, base_url, api_key, [], config or GenerateConfig())

    async def wait(self) -> None:
        """The model's latency, if it was given one."""
        if self.latency > 0:
            await anyio.sleep(self.latency)

    def output(
        self,
        input: list[ChatMessage],
        message: ChatMessageAssistant,
        stop_reason: str | None = None,
    ) -> ModelOutput:
        message.model = self.model_name
        stop = stop_reason or ("tool_calls" if message.tool_calls else "stop")
        return ModelOutput(
            model=self.model_name,
            choices=[ChatCompletionChoice(message=message, stop_reason=cast(Any, stop))],
            usage=usage_for(input, message),
        )


class ScriptedModelError(InputError):
    """A scripted model name or argument that names nothing."""


def seconds(value: Any) -> float:
    """`-M latency=` as seconds: a number, zero or more."""
    try:
        latency = float(value)
    except (TypeError, ValueError):
        latency = -1.0
    if not latency >= 0:
        raise ScriptedModelError(f"-M latency={value}: a number of seconds, zero or more")
    return latency
