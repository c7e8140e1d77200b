"""A whole flow through Inspect's own anthropic provider (the real client code) against a local
stub of the Messages API that answers from the cases' reference runs."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.scoring.run_record import RunRecord
from tests.anthropic_stub import AnthropicStub
from tests.api_stub import assert_scored_as_under_reference, stub_cases, tag_requests_with_case
from tests.helpers import SCRIPTED_JUDGE, run_task, samples_by_id


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-offline-test")
    tag_requests_with_case(monkeypatch)


@pytest.mark.slow  # whole flows again, through the provider
@pytest.mark.parametrize("flow", ["checkout", "support", "dealer"])
def test_flow_passes_through_the_anthropic_provider_as_under_reference(
    flow: str, anthropic_env: None
) -> None:
    reference = samples_by_id(run_task(flow_task(flow)))
    with AnthropicStub(stub_cases(flow)) as stub:
        [log] = eval(
            flow_task(flow),
            model="anthropic/claude-sonnet-4-6",
            model_base_url=stub.base_url,
            model_roles=SCRIPTED_JUDGE,
            display="none",
            max_retries=0,
        )
    assert_scored_as_under_reference(log, reference, stub)
    # blocked gates and tool errors reach the model as tool_result blocks carrying their status
    sent = {json.loads(_text(r))["status"] for r in stub.log.tool_results if _is_json(_text(r))}
    recorded = {
        event.status
        for sample in reference.values()
        for turn in sample.store_as(RunRecord).run.turns
        for event in turn.results()
    }
    assert "ok" in recorded and len(recorded) > 1, (
        "the flow should meet a gate, an error or a person"
    )
    assert recorded <= {status.lower() for status in sent}


def _text(block: dict) -> str:
    content = block.get("content", "")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content)
    return content


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
