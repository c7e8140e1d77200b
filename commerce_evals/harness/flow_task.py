"""flow_task(): the one way a flow becomes an Inspect Task, in three steps: load its inputs
(flow_inputs.flow_parts), build its samples (flow_samples.flow_samples), build the task
(built_task: solver, scorer, metrics, metadata)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric
from inspect_ai.solver import Solver

from commerce_evals.harness.agent_ref import AgentRef, load_agent
from commerce_evals.harness.agent_solver import inspect_agent
from commerce_evals.harness.flow_inputs import FlowParts, flow_parts, world_fingerprints
from commerce_evals.harness.flow_samples import FlowSamples, flow_samples
from commerce_evals.harness.recorded import recorded_runs
from commerce_evals.harness.run_end import RunEndSummary  # noqa: F401  (registers the hook)
from commerce_evals.harness.sample_run import AgentSetup
from commerce_evals.harness.shards import metadata as shard_metadata
from commerce_evals.harness.solver import commerce_agent
from commerce_evals.harness.task_args import DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_ROUNDS
from commerce_evals.harness.tool_descriptions import file_fingerprint
from commerce_evals.scoring.metrics import flow_metrics
from commerce_evals.scoring.run_record import keep_run
from commerce_evals.scoring.scorer import brief_args, commerce_case


def agent_solver(setup: AgentSetup, ref: AgentRef | None, max_rounds: int) -> Solver:
    """The built-in loop, or the Inspect agent `-T agent=` names; either way the sandbox records."""
    if ref is None:
        return commerce_agent(setup, max_rounds=max_rounds)
    return inspect_agent(setup, ref, max_rounds=max_rounds)


def tools_file_metadata(tools: str | None) -> dict[str, str]:
    """The task's record of `-T tools=`: the file and a hash of its text."""
    if tools is None:
        return {}
    return {"tools_file": tools, "tools_file_sha": file_fingerprint(Path(tools))}


def flow_task(
    flow: str,
    domain: str | None = None,
    profile: str | None = None,
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    poisoned: bool | None = None,
    counterexamples: bool = False,
    alternatives: bool = False,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN,
    judge: bool = True,
    shard: str | None = None,
    cases: str | None = None,
    agent: str | None = None,
    tools: str | None = None,
    recorded: str | None = None,
    variables: dict[str, Any] | None = None,
    locale: str = "en",
    extra_metrics: Sequence[Metric] = (),
) -> Task:
    """Build a flow's task.

    Args:
        flow: the flow's name; its cases are datasets/<flow>.yaml unless `dataset` is given.
        domain: the domain whose World and tools the agent gets (default: from flows.FLOWS).
        profile: which of the domain's agents, instructions and tool set (default: from FLOWS).
        dataset: a case file or folder to use instead.
        fixtures: a fixtures folder to use instead of fixtures/<domain>.
        instructions: a file of agent instructions to use instead of the domain's.
        poisoned: merge the domain's eval-only poisoned fixtures into the World; without them,
            cases tagged `poisoned` or `benign` (which name eval-only listings) are left out.
            None: the flow's default (FLOWS[flow].poisoned), which is what its task passes
            when `-T poisoned` is not given.
        counterexamples: run each case's counterexamples (one sample each) instead of the cases.
        alternatives: run each case's alternative good runs (one sample each) instead of the
            cases; with `counterexamples` too, both kinds.
        max_rounds: model calls allowed per turn.
        max_calls_per_turn: tool calls run per turn; the calls past it are not run and the turn
            ends with a `call_cap` turn end that the graders and the explanation see.
        judge: False (`-T judge=off`, read once by the task's arguments) for a code-only run
            on purpose: no judge is called, rubric cases are graded on their code parts, and
            the task's metadata and every report say so.
        shard: `i/n`: only the cases of shard i of n (by a hash of the case id; see shards.py),
            so n machines can run one sweep; the metadata records every shard's size.
        cases: comma-separated case ids or shell patterns (`checkout-004-*`): only those cases,
            or with `counterexamples` / `alternatives` only their variants (whose sample ids are
            `<case id>~<name>`); a pattern that names no case is an error.
        agent: `FILE.py@NAME` (or `package.module@NAME`): an Inspect @agent that answers each user
            turn instead of the built-in loop, given the sandbox's tools and the rendered
            instructions (harness/agent_ref.py); the Run is recorded by the sandbox alike.
        tools: a file of the team's own descriptions of the agent's tools (names and argument
            types stay the domain's; harness/tool_descriptions.py).
        recorded: a run file (or a folder of them) that `commerce-evals serve` wrote: grade those
            runs instead of running an agent, one sample per run's case (harness/recorded.py).
        variables: values for $placeholders in the instructions, over the World's own.
        locale: the store's language (domains/locales.py): its fixtures, cases, instructions and
            tool descriptions, each unless given above; its cases name it in their ids.
        extra_metrics: metrics over commerce_case's scores beside the flow's own (the injection
            rates, read from the code grades each score holds).
    """
    judging = judge
    parts = flow_parts(
        flow, domain, profile, dataset, fixtures, instructions, poisoned, tools, variables, locale
    )
    agent_ref = load_agent(agent) if agent is not None else None
    built = flow_samples(
        parts, agent_ref, counterexamples, alternatives, cases, recorded, shard, agent
    )
    return built_task(
        parts,
        built,
        agent_ref,
        max_rounds=max_rounds,
        max_calls_per_turn=max_calls_per_turn,
        judge=judging,
        counterexamples=counterexamples,
        alternatives=alternatives,
        locale=locale,
        extra_metrics=extra_metrics,
    )


def built_task(
    parts: FlowParts,
    built: FlowSamples,
    agent_ref: AgentRef | None,
    max_rounds: int,
    max_calls_per_turn: int,
    judge: bool,
    counterexamples: bool,
    alternatives: bool,
    locale: str,
    extra_metrics: Sequence[Metric],
) -> Task:
    """The Task over a flow's parts and samples: the solver (the built-in loop, an Inspect agent,
    or the recorded runs), the scorer told the World and the agent's tools, and the metadata the
    reports read. The last of flow_task()'s three steps."""
    flow, domain, profile, poisoned = parts.flow, parts.domain, parts.profile, parts.poisoned
    fixtures, world, offered = parts.fixtures, parts.world, parts.offered
    runs = built.runs
    # what the scorers grade against: the World's invariants and change rules, the agent's tools
    world_args: dict[str, Any] = {
        "domain": domain,
        "fixtures": fixtures,
        "poisoned": poisoned,
        "tools": [t.name for t in offered.tools],
    }
    return Task(
        name=flow,
        dataset=MemoryDataset(built.samples, name=flow),
        solver=recorded_runs(runs)
        if runs is not None
        else agent_solver(
            AgentSetup(world, offered, parts.template, parts.variables, max_calls_per_turn),
            agent_ref,
            max_rounds,
        ),
        scorer=commerce_case(
            **brief_args(world.brief(profile)),
            **world_args,
            judge_context=parts.judge_context,
            judge=judge,
        ),
        metrics=[*flow_metrics(), *extra_metrics] if extra_metrics else None,
        # one epoch unless Inspect's --epochs says more; Inspect's own mean over them, named
        # nowhere (a named reducer is printed under every figure of the viewer's header and in
        # the progress line): the metrics read pass^k off the means (scoring/metrics.py)
        epochs=Epochs(1),
        # the progress line and the log listing show this one figure: the final `passed` rate
        headline_metric=HeadlineMetric(
            scorer="commerce_case", score="commerce_case", metric="passed"
        ),
        # A provider failure is recorded on its sample (and `inspect eval-retry` re-runs it); it
        # is kept apart from agent failures and never ends the whole eval.
        fail_on_error=False,
        # the Run goes into the sample's store after scoring, once (see scoring/run_record.py)
        cleanup=keep_run,
        metadata={
            "domain": domain,
            "locale": locale,
            "agent": profile,
            "instructions": str(parts.instructions_path),
            **tools_file_metadata(parts.tools),
            "counterexamples": counterexamples,
            "alternatives": alternatives,
            "poisoned": poisoned,
            "skipped_files": parts.skipped,
            "judge": "on" if judge else "off",
            **built.agent_fingerprint,
            # the world's hashes go in the task's metadata only: every sample shares them
            **world_fingerprints(domain, fixtures, poisoned, parts.judge_context),
            **shard_metadata(built.shard, built.all_case_ids),
        },
    )
