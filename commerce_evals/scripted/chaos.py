"""The `commerce-test` provider: scripted models that fail on purpose, for proving the harness
(and a user's pipeline around it) holds when a model does not.

    inspect eval commerce_evals/checkout.py --model commerce-test/<fault>
    inspect eval commerce_evals/support --model-role grader=commerce-test/judge-slow

Agent faults: malformed-args (unparseable JSON, then wrong argument types), unknown-tool, empty (no text,
no calls), endless (a tool call every round, forever), huge (a reply and tool arguments of
megabytes), error (the provider raises), mixed (one of the above per case, chosen from its id).
Judge faults: judge-error (the grader's provider raises), judge-slow (it never answers in time).
"""

from __future__ import annotations

import hashlib
from typing import Any, cast

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from commerce_evals.cases.errors import InputError
from commerce_evals.scripted.base import ScriptedModelAPI, position
from commerce_evals.scripted.providers import JUDGE_FAULTS, ScriptedJudge, judge_behaviour
from commerce_evals.scripted.sample import served_sample

FAULTS = ("malformed-args", "unknown-tool", "empty", "endless", "huge", "error")
HUGE = 2_000_000


class ProviderFault(RuntimeError):
    """What the `error` fault raises: a provider that failed mid-run."""


def fault_for(model_name: str, case_id: str) -> str:
    if model_name != "mixed":
        return model_name
    digest = int(hashlib.sha256(case_id.encode()).hexdigest(), 16)
    return FAULTS[digest % len(FAULTS)]


def _first_tool(tools: list[ToolInfo]) -> str:
    return tools[0].name if tools else "none"


def chaos_message(
    fault: str, messages: list[ChatMessage], tools: list[ToolInfo]
) -> ChatMessageAssistant:
    turn, rounds = position(messages)
    call_id = f"chaos-{turn}-{rounds}"
    tool = _first_tool(tools)
    if fault == "malformed-args":
        if rounds == 0:
            call = ToolCall(
                id=call_id,
                function=tool,
                arguments={},
                parse_error="Expecting value: line 1 column 9 (char 8)",
            )
        elif rounds == 1:
            call = ToolCall(
                id=call_id, function=tool, arguments={"query": {"nested": ["x"]}, "limit": "lots"}
            )
        else:
            return ChatMessageAssistant(content="I could not use the tools.", model="chaos")
        return ChatMessageAssistant(content="", tool_calls=[call], model="chaos")
    if fault == "unknown-tool":
        if rounds == 0:
            call = ToolCall(id=call_id, function="transfer_all_funds", arguments={"to": "attacker"})
            return ChatMessageAssistant(content="", tool_calls=[call], model="chaos")
        return ChatMessageAssistant(content="Done.", model="chaos")
    if fault == "empty":
        return ChatMessageAssistant(content="", model="chaos")
    if fault == "endless":
        call = ToolCall(id=call_id, function=tool, arguments=_some_args(tools))
        return ChatMessageAssistant(content="", tool_calls=[call], model="chaos")
    if fault == "huge":
        if rounds == 0:
            args = {k: "x" * HUGE for k in _some_args(tools)}
            call = ToolCall(id=call_id, function=tool, arguments=args)
            return ChatMessageAssistant(content="", tool_calls=[call], model="chaos")
        return ChatMessageAssistant(content="y" * HUGE, model="chaos")
    raise ValueError(f"unknown fault {fault!r}")


def _some_args(tools: list[ToolInfo]) -> dict[str, Any]:
    """A value for each required string argument of the first tool, so the call is well formed."""
    if not tools:
        return {}
    params = tools[0].parameters
    return {
        name: "anything" for name in params.required if params.properties[name].type == "string"
    }


PROVIDER = "commerce-test"


def fault_model_names() -> list[str]:
    """Every name the commerce-test provider answers to."""
    names = [*FAULTS, "mixed", *(f"judge-{fault}" for fault in JUDGE_FAULTS)]
    return [f"{PROVIDER}/{name}" for name in names]


def unknown_test_model(model_name: str) -> InputError:
    return InputError(
        f"unknown fault {PROVIDER}/{model_name}; faults: {', '.join(fault_model_names())}"
    )


class ChaosModel(ScriptedModelAPI):
    provider = PROVIDER

    def __init__(self, model_name: str, *args: Any, **kwargs: Any) -> None:
        if model_name not in (*FAULTS, "mixed"):
            raise unknown_test_model(model_name)
        super().__init__(model_name, *args, **kwargs)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        sample = served_sample()
        case = (sample.metadata or {}).get("case", {}) if sample is not None else {}
        fault = fault_for(self.model_name, str(case.get("id", "")))
        if fault == "error":
            raise ProviderFault(f"the provider failed: 500 internal error ({PROVIDER}/error)")
        return self.output(input, chaos_message(fault, input, tools))


class FailingJudge(ScriptedJudge):
    """The scripted judge whose provider fails: judge-error raises, judge-slow never answers."""

    provider = PROVIDER
    behaviours = JUDGE_FAULTS

    @staticmethod
    def unknown(model_name: str) -> Exception:
        return unknown_test_model(model_name)


def create_test_model(model_name: str, *args: Any, **kwargs: Any) -> ModelAPI:
    if judge_behaviour(model_name) is not None:
        return FailingJudge(model_name, *args, **kwargs)
    return ChaosModel(model_name, *args, **kwargs)


@modelapi(name=PROVIDER)
def commerce_test() -> type[ModelAPI]:
    # Inspect calls what this returns with the model name; a factory picks the class by name.
    return cast(type[ModelAPI], create_test_model)
