"""Each flow's three runs under commerce/reference, made once per test session and shared.

A flow's cases, counterexamples (judge off: they fail code keys) and alternatives run in one
in-process eval; tests/test_flows.py checks them for every flow, the flow-specific test files
read the same logs, and the verdict record (tests/verdict_record.py) is built from them, so no
test session runs a flow twice.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample

from tests.helpers import SCRIPTED_JUDGE, samples_by_id

KINDS: dict[str, dict[str, Any]] = {
    "cases": {},
    "counterexamples": {"counterexamples": True, "judge": "off"},
    "alternatives": {"alternatives": True},
}


@dataclass(frozen=True)
class FlowLogs:
    flow: str
    logs: dict[str, EvalLog]  # by kind

    def samples(self, kind: str) -> dict[str, EvalSample]:
        return samples_by_id(self.logs[kind])

    @property
    def cases(self) -> dict[str, EvalSample]:
        return self.samples("cases")

    @property
    def counterexamples(self) -> dict[str, EvalSample]:
        return self.samples("counterexamples")

    @property
    def alternatives(self) -> dict[str, EvalSample]:
        return self.samples("alternatives")


@cache
def flow_logs(flow: str) -> FlowLogs:
    make = getattr(import_module(f"commerce_evals.{flow}"), flow)
    logs = eval(
        [make(**args) for args in KINDS.values()],
        model="commerce/reference",
        model_roles=SCRIPTED_JUDGE,
        display="none",
        log_samples=True,
        max_tasks=3,
    )
    for log in logs:
        assert log.status == "success", log.error
    return FlowLogs(flow, dict(zip(KINDS, logs, strict=True)))
