"""Each tool result is recorded under the id of the call that produced it: one round calls a tool
twice, Inspect refuses one call (a wrong argument type) and runs the other, in either order."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    modelapi,
)
from inspect_ai.tool import ToolCall, ToolChoice, ToolInfo

from commerce_evals.checkout import checkout
from commerce_evals.core.events import Run
from commerce_evals.grading.score_metadata import ScoreMetadata
from commerce_evals.scoring.run_record import logged_run
from commerce_evals.scripted.base import ScriptedModelAPI, position
from tests.conftest import DATA, MINI_SHOP

CASE = "checkout-001-cart-seen"  # P-1 is on screen; calls_tool wants add_to_cart P-1
GOOD = ToolCall(id="good", function="add_to_cart", arguments={"product_id": "P-1", "quantity": 1})
# P-2 was never shown: were this call taken for the one that ran, carts_only_seen would fail
REFUSED = ToolCall(
    id="refused", function="add_to_cart", arguments={"product_id": "P-2", "quantity": "two"}
)
ORDERS = {"refused-first": [REFUSED, GOOD], "executed-first": [GOOD, REFUSED]}


class TwoCalls(ScriptedModelAPI):
    """`attribution/<order>`: both calls in the first round, in that order, then a reply."""

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        if position(input)[1] == 0:
            message = ChatMessageAssistant(content="", tool_calls=ORDERS[self.model_name])
        else:
            message = ChatMessageAssistant(content="Added the Ridge Trail Running Shoe.")
        return self.output(input, message)


@modelapi(name="attribution")
def attribution() -> type[ModelAPI]:
    return TwoCalls


def run_case(order: str) -> tuple[EvalSample, Run]:
    task = checkout(dataset=str(DATA / "cases" / "mini.yaml"), fixtures=str(MINI_SHOP))
    [log] = eval(task, model=f"attribution/{order}", sample_id=CASE, display="none")
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.error is None, sample.error
    run = logged_run(sample.store)
    assert run is not None
    return sample, run


@pytest.mark.parametrize("order", list(ORDERS))
def test_the_executed_call_keeps_its_own_id(order: str) -> None:
    sample, run = run_case(order)
    assert run.statuses() == {"good": "ok", "refused": "refused"}
    assert [c.call_id for c in run.graded.calls()] == [c.id for c in ORDERS[order]]
    [refused] = [r for r in run.graded.results() if r.status == "refused"]
    assert refused.call_id == "refused" and "'two' is not of type" in (refused.reason or "")
    assert [row["product_id"] for row in run.end["cart"]] == ["P-1"]
    grades = {g.key: g for g in ScoreMetadata.of_sample(sample).grades}
    assert grades["calls_tool"].passed, grades["calls_tool"].reason
    assert grades["carts_only_seen"].passed, grades["carts_only_seen"].reason
