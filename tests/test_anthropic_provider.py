"""A whole flow through Inspect's own anthropic provider (the real client code) against a local
stub of the Messages API that answers from the cases' reference runs."""

from __future__ import annotations

import json

import pytest
from inspect_ai import eval

from commerce_evals.agent import ReplayScript, RunRecord, render_instructions
from commerce_evals.cases import Case
from commerce_evals.chain import start_session
from commerce_evals.flow import cached_world, flow_task
from commerce_evals.flows import FLOWS
from tests.anthropic_stub import AnthropicStub, StubCase, tag_requests_with_case
from tests.helpers import SCRIPTED_JUDGE, case_score, run_task, samples_by_id


def stub_cases(flow: str) -> list[StubCase]:
    """Each case's system prompt as the solver renders it (chained cases start where they start)."""
    spec = FLOWS[flow]
    world = cached_world(spec.domain, None, False)
    profile = world.agents[spec.agent]
    template = profile.instructions.read_text()
    cases = []
    for sample in flow_task(flow).dataset:
        case = Case.model_validate(sample.metadata["case"])
        if case.skip:
            continue
        session = start_session(world, profile.tools, case, sample.metadata.get("chain"))
        system = render_instructions(template, world.instruction_variables(), session)
        script = ReplayScript(case.id, case.script(), profile.roles().turn_ending)
        cases.append(StubCase(case.id, system, case.turns, script))
    return cases


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-offline-test")
    tag_requests_with_case(monkeypatch)


@pytest.mark.parametrize("flow", ["checkout", "support", "dealer"])
def test_flow_passes_through_the_anthropic_provider_as_under_reference(
    flow: str, anthropic_env: None
) -> None:
    reference = samples_by_id(run_task(flow_task(flow)))
    with AnthropicStub(stub_cases(flow)) as stub:
        [log] = eval(
            flow_task(flow),
            model="anthropic/claude-sonnet-4-5",
            model_base_url=stub.base_url,
            model_roles=SCRIPTED_JUDGE,
            display="none",
            max_retries=0,
        )
    assert log.status == "success", log.error
    assert not stub.log.refusals, stub.log.refusals[:3]
    through_api = samples_by_id(log)
    assert set(through_api) == set(reference)
    for sample_id, sample in through_api.items():
        assert sample.error is None, (sample_id, sample.error)
        assert case_score(sample).value == case_score(reference[sample_id]).value or (
            json.dumps(case_score(sample).value)
            == json.dumps(case_score(reference[sample_id]).value)
        ), sample_id
        assert case_score(sample).value["passed"] == 1.0, (
            sample_id,
            case_score(sample).explanation,
        )
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
