"""Each flow's three runs under commerce/reference, made once per test session and shared.

A flow's cases, counterexamples (judge off: they fail code keys) and alternatives run in one
in-process eval; tests/test_flows.py checks them for every flow, the flow-specific test files
read the same logs, and the verdict record (tests/verdict_record.py) is built from them, so no
test session runs a flow twice. Under pytest-xdist the workers share them: the first worker to
ask for a flow runs it into a folder every worker sees (COMMERCE_SHARED_RUNS, set by conftest.py)
while the others wait on its lock, then read the logs it wrote.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from tests.helpers import SCRIPTED_JUDGE, samples_by_id

# the runs the tests make: every flow of the table, and the flows with a Japanese store
# (-T locale=ja, domains/locales.py) as `<flow>-ja`
JAPANESE_FLOWS = ("checkout", "discovery", "memory", "support")


def run_name(flow: str, locale: str = "en") -> str:
    return flow if locale == "en" else f"{flow}-{locale}"


def flow_and_locale(name: str) -> tuple[str, str]:
    """`checkout-ja` -> (checkout, ja); a flow's own name -> (flow, en)."""
    flow, _, locale = name.partition("-")
    return flow, locale or "en"


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


def _run(name: str, log_dir: str | None) -> dict[str, EvalLog]:
    flow, locale = flow_and_locale(name)
    make = getattr(import_module(f"commerce_evals.{flow}"), flow)
    store = {} if locale == "en" else {"locale": locale}
    logs = eval(
        [make(**args, **store) for args in KINDS.values()],
        model="commerce/reference",
        model_roles=SCRIPTED_JUDGE,
        display="none",
        log_samples=True,
        # the live event buffer is for watching a run in `inspect view`; the tests read the
        # finished logs, and writing the buffer costs a fifth of a flow's run
        log_realtime=False,
        max_tasks=3,
        **({"log_dir": log_dir} if log_dir else {}),
    )
    for log in logs:
        assert log.status == "success", log.error
    return dict(zip(KINDS, logs, strict=True))


# each flow's runs as this process has them
_logs: dict[str, FlowLogs] = {}


def flow_logs(flow: str) -> FlowLogs:
    if flow not in _logs:
        shared = os.environ.get("COMMERCE_SHARED_RUNS")
        if not shared:
            _logs[flow] = FlowLogs(flow, _run(flow, None))
        else:
            with open(Path(shared) / f"{flow}.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                _logs[flow] = _made_or_read(flow, Path(shared))
    return _logs[flow]


def every_flow_logs(names: list[str]) -> dict[str, FlowLogs]:
    """The runs of several flows, each made once per session: a flow another worker is making
    is left for later, so two workers make two flows at once instead of one waiting."""
    shared = os.environ.get("COMMERCE_SHARED_RUNS")
    pending = [name for name in names if name not in _logs]
    while shared and pending:
        for name in list(pending):
            with open(Path(shared) / f"{name}.lock", "w") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                _logs[name] = _made_or_read(name, Path(shared))
                pending.remove(name)
        if pending:  # each one left is being made elsewhere: wait for the first
            flow_logs(pending.pop(0))
    return {name: flow_logs(name) for name in names}


def _made_or_read(flow: str, folder: Path) -> FlowLogs:
    """The flow's runs from the shared folder, made first if no worker has made them (the
    caller holds the flow's lock)."""
    index = folder / f"{flow}.json"
    if index.exists():
        written = json.loads(index.read_text())
        return FlowLogs(flow, {kind: read_eval_log(written[kind]) for kind in KINDS})
    logs = _run(flow, str(folder / flow))
    index.write_text(json.dumps({kind: log.location for kind, log in logs.items()}))
    return FlowLogs(flow, logs)
