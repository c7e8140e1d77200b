"""An OpenAI Agents SDK agent behind Inspect's agent_bridge(), offline: the SDK's model calls go to
commerce/reference through the bridge, its tools are the sandbox's (commerce_evals/bridge/), and
it leaves the built-in loop's Run and verdict on every support case, a conversation of every other
flow and a counterexample. The example file is the one the README shows."""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib import import_module

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from tests.agent_ways import built_in_runs, conversation_case, runs_of, same_verdicts
from tests.helpers import SCRIPTED_JUDGE

pytest.importorskip("agents")

SDK_AGENT = "examples/agents/openai_agents_sdk.py@sdk_support_agent"
BRIDGED_FLOWS = ["checkout", "discovery", "memory", "merchant", "injection", "dealer"]


@pytest.fixture(autouse=True)
def _no_openai_key() -> Iterator[None]:
    """The SDK's client never reaches OpenAI: with no key in the environment it still runs."""
    key = os.environ.pop("OPENAI_API_KEY", None)
    yield
    if key is not None:
        os.environ["OPENAI_API_KEY"] = key


def bridged_log(flow: str, **args: object) -> EvalLog:
    task = getattr(import_module(f"commerce_evals.{flow}"), flow)(agent=SDK_AGENT, **args)
    [log] = eval(task, model="commerce/reference", model_roles=SCRIPTED_JUDGE, display="none")
    assert log.status == "success", log.error
    assert not [s.id for s in log.samples or [] if s.error]
    return log


@pytest.mark.slow  # every support case through the SDK: the conversations below show the bridge
def test_the_sdk_agent_gives_the_built_in_verdict_and_run_on_every_support_case() -> None:
    log = bridged_log("support")
    assert len(log.samples or []) == 59
    assert same_verdicts(log, "support") == {}
    assert runs_of(log) == built_in_runs("support")
    # the bridge's model calls are the model under test's, counted as the built-in loop's are
    assert log.stats.model_usage["commerce/reference"].input_tokens > 0


# one flow in the fast tier, the rest in the slow one
@pytest.mark.parametrize(
    "flow",
    [BRIDGED_FLOWS[0], *(pytest.param(f, marks=pytest.mark.slow) for f in BRIDGED_FLOWS[1:])],
)
def test_the_sdk_agent_gives_the_built_in_verdict_and_run_on_a_conversation(flow: str) -> None:
    case = conversation_case(flow)
    log = bridged_log(flow, cases=case)
    assert same_verdicts(log, flow) == {}
    assert runs_of(log) == {case: built_in_runs(flow)[case]}


def test_a_counterexample_through_the_sdk_fails_the_keys_it_names() -> None:
    log = bridged_log(
        "support",
        cases="support-007-refund-over-200-handoff",
        counterexamples=True,
        judge="off",
    )
    assert same_verdicts(log, "support", "counterexamples") == {}
