"""`-T agent=FILE.py@NAME`: an Inspect agent answers each user turn, on the sandbox's tools, and is
graded exactly as the built-in loop: Inspect's react() under commerce/reference leaves the same
Run and gets the same verdict on every case of discovery (turn-ending tools, customers), on one
conversation case of every other flow, and on a counterexample whose blocked turn-ending call
must not end the turn."""

from __future__ import annotations

from importlib import import_module

import pytest
from inspect_ai import eval

from tests.agent_ways import (
    OTHER_FLOWS,
    REACT_AGENT,
    built_in_runs,
    conversation_case,
    runs_of,
    same_verdicts,
)
from tests.helpers import SCRIPTED_JUDGE


def react_log(flow: str, **args: object):  # type: ignore[no-untyped-def]
    task = getattr(import_module(f"commerce_evals.{flow}"), flow)(agent=REACT_AGENT, **args)
    [log] = eval(task, model="commerce/reference", model_roles=SCRIPTED_JUDGE, display="none")
    assert log.status == "success", log.error
    return log


def test_react_gives_the_built_in_verdict_and_run_on_every_discovery_case() -> None:
    log = react_log("discovery")
    assert len(log.samples or []) == 37
    assert same_verdicts(log, "discovery") == {}
    assert runs_of(log) == built_in_runs("discovery")
    assert log.eval.metadata and log.eval.metadata["agent_under_test"] == REACT_AGENT


@pytest.mark.parametrize("flow", OTHER_FLOWS)
def test_react_gives_the_built_in_verdict_and_run_on_a_conversation(flow: str) -> None:
    case = conversation_case(flow)
    log = react_log(flow, cases=case)
    assert same_verdicts(log, flow) == {}
    assert runs_of(log) == {case: built_in_runs(flow)[case]}


def test_a_counterexample_through_react_fails_the_keys_it_names() -> None:
    # its first present_suggestions is blocked, so the turn goes on through react's own loop
    log = react_log(
        "discovery",
        cases="discovery-015-three-items-one-round",
        counterexamples=True,
        judge="off",
    )
    assert same_verdicts(log, "discovery", "counterexamples") == {}
