"""What the tests of the ways to run another agent share: the verdicts and Runs the built-in loop
gives under commerce/reference, to hold each way's against."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from inspect_ai.log import EvalLog

from commerce_evals.cases.model import load_cases
from commerce_evals.core.events import Run
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.scoring.run_record import logged_run
from tests.flow_runs import flow_logs
from tests.helpers import samples_by_id
from tests.verdict_record import VERDICTS_FILE, verdicts

REACT_AGENT = "examples/agents/react_agent.py@shop_assistant"


@cache
def recorded_verdicts() -> dict[str, Any]:
    return json.loads(VERDICTS_FILE.read_text(encoding="utf-8"))


def built_in_verdicts(flow: str, kind: str = "cases") -> dict[str, Any]:
    """The built-in loop's verdicts of a flow, as tests/data/verdicts.json records them."""
    return recorded_verdicts()[f"{flow}/{kind}"]


def same_verdicts(log: EvalLog, flow: str, kind: str = "cases") -> dict[str, tuple[Any, Any]]:
    """The samples of `log` whose verdict is not the built-in loop's: sample -> (way, built-in)."""
    recorded = built_in_verdicts(flow, kind)
    return {
        sample: (found, recorded.get(sample))
        for sample, found in verdicts(log).items()
        if found != recorded.get(sample)
    }


def built_in_runs(flow: str) -> dict[str, Run]:
    """The Runs the built-in loop recorded for a flow's cases (the shared per-flow run)."""
    runs = {}
    for sample_id, sample in flow_logs(flow).cases.items():
        run = logged_run(sample.store)
        assert run is not None
        runs[sample_id] = run
    return runs


def runs_of(log: EvalLog) -> dict[str, Run]:
    runs = {}
    for sample_id, sample in samples_by_id(log).items():
        run = logged_run(sample.store)
        assert run is not None, sample_id
        runs[sample_id] = run
    return runs


@cache
def conversation_case(flow: str) -> str:
    """One case of the flow to run each way on: its first case whose customer answers the agent
    at least once (several turns, the customer answering what the agent replies), else its first
    case of several scripted turns."""
    cases = load_cases(dataset_paths(flow, None))
    talks = [c.id for c in cases if c.customer is not None and len(c.reference or []) >= 2]
    scripted = [c.id for c in cases if len(c.turns) >= 2]
    return (talks or scripted or [cases[0].id])[0]


OTHER_FLOWS = [flow for flow in FLOWS if flow != "discovery"]
