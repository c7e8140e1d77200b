"""What a run of each flow costs, measured before any real model is called.

Each flow is run once in-process with the scripted models (`commerce/reference` as the agent,
`commerce/judge` as the grader), and the log says how many calls the agent and the judge made per
case and how large their prompts were. The scripted models count tokens as characters / 4 (no
tokenizer runs offline), so the token figures are estimates within the usual +-20% of a real
tokenizer on English text and JSON; the call counts are exact for the reference runs. A live model
usually makes a few more calls than the reference.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import mean

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.tokens import TokenCount
from commerce_evals.harness.flow_task import flow_task

AGENT_MODEL = "commerce/reference"
JUDGE_MODEL = "commerce/judge"
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class FlowCost:
    flow: str
    cases: int
    fixed_prompt_tokens: int  # instructions plus tool descriptions, sent with every agent call
    agent_calls_per_case: float
    agent_input_tokens_per_case: float
    agent_output_tokens_per_case: float
    judge_calls_per_case: float
    judge_input_tokens_per_case: float
    judge_output_tokens_per_case: float
    # a simulated customer's calls (the `customer` role); none with the scripted customer
    customer_calls_per_case: float = 0.0
    customer_input_tokens_per_case: float = 0.0
    customer_output_tokens_per_case: float = 0.0

    def agent_tokens(self, cases: float = 1) -> TokenCount:
        """The agent's tokens over `cases` cases, priced as input without a prompt cache."""
        return TokenCount(
            input=round(self.agent_input_tokens_per_case * cases),
            output=round(self.agent_output_tokens_per_case * cases),
        )

    def judge_tokens(self, cases: float = 1) -> TokenCount:
        return TokenCount(
            input=round(self.judge_input_tokens_per_case * cases),
            output=round(self.judge_output_tokens_per_case * cases),
        )


def estimate_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def fixed_prompt_tokens(log: EvalLog) -> int:
    """Instructions plus tool descriptions of the first agent call of the first sample."""
    for sample in log.samples or []:
        for event in sample.events:
            if isinstance(event, ModelEvent) and event.model == AGENT_MODEL:
                system = "".join(m.text for m in event.input if m.role == "system")
                tools = json.dumps([t.model_dump(mode="json") for t in event.tools])
                return estimate_tokens(system) + estimate_tokens(tools)
    return 0


def call_tokens(event: ModelEvent) -> tuple[int, int]:
    """(input, output) tokens of one call as a provider counts them: every input token
    processed, a prompt cache's reads and writes included. The scripted models count the
    messages (the log may keep long ones as attachments, so they are not re-read here); the
    tool descriptions sent with every call are added, as a provider counts them too."""
    usage = TokenCount.from_usage(event.output.usage)
    tools = json.dumps([t.model_dump(mode="json") for t in event.tools]) if event.tools else ""
    return usage.processed_input + estimate_tokens(tools), usage.output


def _per_case(values: Iterable[float]) -> float:
    values = list(values)
    return mean(values) if values else 0.0


def _whose(event: ModelEvent) -> str | None:
    """Whose call an event is: the customer role's, the judge's, the agent's (by role first, so a
    role bound to the agent's own model is still counted apart)."""
    if event.role == "customer":
        return "customer"
    if event.role == "grader" or event.model == JUDGE_MODEL:
        return "judge"
    return "agent" if event.model == AGENT_MODEL else None


def flow_cost(flow: str, log: EvalLog) -> FlowCost:
    agent: dict[str, list[int]] = {"calls": [], "in": [], "out": []}
    judge: dict[str, list[int]] = {"calls": [], "in": [], "out": []}
    customer: dict[str, list[int]] = {"calls": [], "in": [], "out": []}
    for sample in log.samples or []:
        for who, bucket in (("agent", agent), ("judge", judge), ("customer", customer)):
            events = [e for e in sample.events if isinstance(e, ModelEvent) and _whose(e) == who]
            tokens = [call_tokens(e) for e in events]
            bucket["calls"].append(len(events))
            bucket["in"].append(sum(t[0] for t in tokens))
            bucket["out"].append(sum(t[1] for t in tokens))
    return FlowCost(
        flow=flow,
        cases=len(log.samples or []),
        fixed_prompt_tokens=fixed_prompt_tokens(log),
        agent_calls_per_case=_per_case(agent["calls"]),
        agent_input_tokens_per_case=_per_case(agent["in"]),
        agent_output_tokens_per_case=_per_case(agent["out"]),
        judge_calls_per_case=_per_case(judge["calls"]),
        judge_input_tokens_per_case=_per_case(judge["in"]),
        judge_output_tokens_per_case=_per_case(judge["out"]),
        customer_calls_per_case=_per_case(customer["calls"]),
        customer_input_tokens_per_case=_per_case(customer["in"]),
        customer_output_tokens_per_case=_per_case(customer["out"]),
    )


def scripted_run(task: Task, log_dir: str, judged: bool = True) -> EvalLog:
    """A task run once under the scripted agent (and judge), its log read back whole."""
    [log] = inspect_eval(
        task,
        model=AGENT_MODEL,
        model_roles={"grader": JUDGE_MODEL} if judged else None,
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        raise RuntimeError(f"{log.eval.task}: the scripted run ended {log.status}: {log.error}")
    # long texts (the instructions) are kept as attachments in the log: read them back
    return read_eval_log(log.location, resolve_attachments=True)


def measure(flows: list[str], instructions: str | None = None) -> list[FlowCost]:
    """Run each flow once under the scripted models and read its costs from the log."""
    unknown = [f for f in flows if f not in FLOWS]
    if unknown:
        raise ValueError(f"unknown flows {unknown}; known: {sorted(FLOWS)}")
    with tempfile.TemporaryDirectory(prefix="commerce-cost-") as log_dir:
        return [
            flow_cost(flow, scripted_run(flow_task(flow, instructions=instructions), log_dir))
            for flow in flows
        ]
