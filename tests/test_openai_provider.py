"""A flow through Inspect's `openai-api` provider (the path to a model served on the user's own
machine by llama.cpp, vLLM or Ollama) against a local OpenAI-compatible stub that answers from
the cases' reference runs: every case scores as it does under commerce/reference."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from commerce_evals.harness.flow_task import flow_task
from tests.api_stub import assert_scored_as_under_reference, stub_cases, tag_requests_with_case
from tests.helpers import SCRIPTED_JUDGE, run_task, samples_by_id
from tests.openai_stub import OpenAIStub

FLOW = "dealer"  # blocked writes, errors and NEEDS_PERSON answers all cross the wire


@pytest.mark.parametrize("stream", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_flow_passes_through_the_openai_api_provider_as_under_reference(
    stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("openai")
    tag_requests_with_case(monkeypatch)
    reference = samples_by_id(run_task(flow_task(FLOW)))
    with OpenAIStub(stub_cases(FLOW)) as stub:
        monkeypatch.setenv("LOCAL_BASE_URL", f"{stub.base_url}/v1")
        monkeypatch.setenv("LOCAL_API_KEY", "offline")
        [log] = eval(
            flow_task(FLOW),
            model="openai-api/local/qwen3-8b",
            model_args={"stream": stream},
            model_roles=SCRIPTED_JUDGE,
            display="none",
            max_retries=0,
        )
    assert_scored_as_under_reference(log, reference, stub)
    statuses = {json.loads(r["content"]).get("status") for r in stub.log.tool_results}
    assert {"ok", "blocked"} <= statuses or {"ok", "NEEDS_PERSON"} <= statuses, statuses
