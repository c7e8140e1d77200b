"""The cap on tool calls per turn (`-T max_calls_per_turn`): the calls past it are not run, the
turn ends with a `call_cap` turn end that says how many, the explanation names it, and the
conversation goes on to the next turn as a provider would accept it."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from commerce_evals.checkout import checkout
from commerce_evals.core.events import Run, TurnEndEvent
from commerce_evals.harness.task_args import (
    DEFAULT_MAX_CALLS_PER_TURN,
    TaskArgumentError,
    flow_signature,
)
from commerce_evals.scoring.run_record import logged_run
from commerce_evals.scripted.base import ScriptedModelAPI, position
from tests.conftest import DATA, MINI_SHOP
from tests.helpers import case_score

TWO_TURNS = "checkout-002-order-two-turns"
CALLING_ROUNDS = 2  # rounds of calls in each turn before the reply


class Flood(ScriptedModelAPI):
    """`flood/<n>`: n search calls in each of a turn's first two rounds, then a reply."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        turn, rounds = position(input)
        if rounds >= CALLING_ROUNDS:
            return self.output(input, ChatMessageAssistant(content=f"Done with turn {turn + 1}."))
        calls = [
            ToolCall(
                id=f"t{turn}r{rounds}c{i}",
                function="search_products",
                arguments={"query": f"shoe {i}"},
            )
            for i in range(int(self.model_name))
        ]
        return self.output(input, ChatMessageAssistant(content="", tool_calls=calls))


@modelapi(name="flood")
def flood() -> type[ModelAPI]:
    return Flood


def run_flood(per_round: int, **cap: int) -> tuple[EvalSample, Run]:
    task = checkout(dataset=str(DATA / "cases" / "mini.yaml"), fixtures=str(MINI_SHOP), **cap)
    [log] = eval(task, model=f"flood/{per_round}", sample_id=TWO_TURNS, display="none")
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.error is None, sample.error
    run = logged_run(sample.store)
    assert run is not None
    return sample, run


def answered_every_call(sample: EvalSample) -> bool:
    asked = {c.id for m in sample.messages if m.role == "assistant" for c in m.tool_calls or []}
    answered = {m.tool_call_id for m in sample.messages if isinstance(m, ChatMessageTool)}
    return asked == answered


def test_a_flood_of_calls_stops_at_the_cap_and_the_next_turn_runs() -> None:
    sample, run = run_flood(25, max_calls_per_turn=20)
    assert len(run.turns) == 2
    for turn in run.turns:
        assert len(turn.calls()) == 20
        assert {r.status for r in turn.results()} == {"ok"}
        assert turn.events[-1] == TurnEndEvent(reason="call_cap", not_run=5)
    assert answered_every_call(sample)  # the calls past the cap were answered as not run
    not_run = [
        m.error.message
        for m in sample.messages
        if isinstance(m, ChatMessageTool) and m.error and m.error.type == "limit"
    ]
    assert len(not_run) == 10 and "limit of 20 tool calls" in not_run[0]
    explanation = case_score(sample).explanation or ""
    assert "turn 1 hit the cap on tool calls per turn" in explanation
    assert "turn 2 hit the cap" in explanation
    assert "20 ran, 5 more the model asked for were not run" in explanation


def test_every_flow_task_caps_calls_by_default() -> None:
    assert flow_signature().parameters["max_calls_per_turn"].default == DEFAULT_MAX_CALLS_PER_TURN
    assert DEFAULT_MAX_CALLS_PER_TURN == 200


def test_the_cap_counts_calls_across_the_rounds_of_a_turn() -> None:
    sample, run = run_flood(2, max_calls_per_turn=3)
    for turn in run.turns:
        assert len(turn.calls()) == 3  # two in the first round, one of the second's two
        assert turn.events[-1] == TurnEndEvent(reason="call_cap", not_run=1)
    assert answered_every_call(sample)


def test_a_turn_under_the_cap_ends_as_before() -> None:
    sample, run = run_flood(2, max_calls_per_turn=4)
    for turn in run.turns:
        assert len(turn.calls()) == 4
        assert turn.events[-1] == TurnEndEvent(reason="reply")
    assert "hit the cap" not in (case_score(sample).explanation or "")
    assert "not_run" not in run.model_dump_json()  # other turn ends are written as before


@pytest.mark.parametrize("value", [0, -1, "lots"])
def test_the_cap_must_be_a_whole_number_of_at_least_one(value: object) -> None:
    with pytest.raises(TaskArgumentError, match=r"-T max_calls_per_turn="):
        checkout(max_calls_per_turn=value)
