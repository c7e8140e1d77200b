"""flow_task(): the one way a flow becomes an Inspect Task (dataset, solver, scorer, metadata)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer

from commerce_evals.agent import DEFAULT_MAX_ROUNDS, commerce_agent
from commerce_evals.cases import Case, CaseFileError, case_files, load_case_sources
from commerce_evals.chain import resolve_chains, with_chains
from commerce_evals.domains import load_world
from commerce_evals.domains.base import DATASETS, AgentProfile, World, fingerprint
from commerce_evals.flows import FLOWS
from commerce_evals.graders import ToolRoles
from commerce_evals.judging import check_expected
from commerce_evals.scorer import commerce_case, role_args

# Cases tagged with one of these name eval-only listings: they run only with the poisoned fixtures.
EVAL_ONLY_TAGS = frozenset({"poisoned", "benign"})


@lru_cache(maxsize=16)
def cached_world(domain: str, fixtures: str | None, poisoned: bool) -> World:
    """Worlds are immutable, so tasks in one process share them."""
    return load_world(domain, Path(fixtures) if fixtures else None, poisoned)


def dataset_paths(flow: str, dataset: str | None) -> list[Path]:
    if dataset:
        return case_files(Path(dataset))
    folder = DATASETS / flow
    if folder.is_dir():
        return case_files(folder)
    return [p for p in (DATASETS / f"{flow}.yaml", DATASETS / f"{flow}.json") if p.exists()]


def check_cases(sources: list[tuple[Path, Case]], world: World, agent: AgentProfile) -> None:
    """Ids the fixtures lack, tools the agent lacks, tables the domain lacks: one error for all."""
    context = world.judge_context()
    problems = [
        f"{path}: case {case.id}: {problem}"
        for path, case in sources
        for problem in [*world.check_case(case, agent), *check_expected(case.expected, context)]
    ]
    if problems:
        raise CaseFileError(problems)


def case_metadata(
    case: Case, agent_fingerprint: dict[str, str], counterexamples: bool = False
) -> dict[str, Any]:
    # A sample's metadata is deep-copied for every metric key of every score view, so a run of
    # the cases leaves out the counterexamples it does not replay.
    exclude = None if counterexamples else {"counterexamples"}
    return {
        "case": case.model_dump(mode="json", exclude_defaults=True, exclude=exclude),
        "flow": case.flow,
        "priority": case.priority,
        "difficulty": case.difficulty,
        "tags": case.tags,
        "niche": case.niche or "",
        **agent_fingerprint,
    }


def samples_for(
    cases: list[Case], counterexamples: bool, meta: dict[str, str], alternatives: bool = False
) -> list[Sample]:
    """The cases, or (either or both) one sample per counterexample and per alternative."""
    samples: list[Sample] = []
    for case in cases:
        base = case_metadata(case, meta, counterexamples)
        if not (counterexamples or alternatives):
            samples.append(Sample(id=case.id, input=case.turns[0], metadata=base))
            continue
        for cx in case.counterexamples if counterexamples else []:
            samples.append(
                Sample(
                    id=f"{case.id}~{cx.name}",
                    input=case.turns[0],
                    metadata={**base, "counterexample": cx.name, "breaks": cx.breaks},
                )
            )
        for alt in case.alternatives if alternatives else []:
            samples.append(
                Sample(
                    id=f"{case.id}~{alt.name}",
                    input=case.turns[0],
                    metadata={**base, "alternative": alt.name},
                )
            )
    return samples


def flow_task(
    flow: str,
    domain: str | None = None,
    agent: str | None = None,
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    poisoned: bool = True,
    counterexamples: bool = False,
    alternatives: bool = False,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    epochs: int = 1,
    variables: dict[str, Any] | None = None,
    extra_scorers: Sequence[Callable[[ToolRoles], Scorer]] = (),
) -> Task:
    """Build a flow's task.

    Args:
        flow: the flow's name; its cases are datasets/<flow>.yaml unless `dataset` is given.
        domain: the domain whose World and tools the agent gets (default: from flows.FLOWS).
        agent: which of the domain's agents, instructions and tool set (default: from FLOWS).
        dataset: a case file or folder to use instead.
        fixtures: a fixtures folder to use instead of fixtures/<domain>.
        instructions: a file of agent instructions to use instead of the domain's.
        poisoned: merge the domain's eval-only poisoned fixtures into the World; without them,
            cases tagged `poisoned` or `benign` (which name eval-only listings) are left out.
        counterexamples: run each case's counterexamples (one sample each) instead of the cases.
        alternatives: run each case's alternative good runs (one sample each) instead of the
            cases; with `counterexamples` too, both kinds.
        max_rounds: model calls allowed per turn.
        epochs: runs per case; pass^k over them is reported beside the mean.
        variables: values for $placeholders in the instructions, over the World's own.
        extra_scorers: scorers to run beside commerce_case, each built from the agent's roles.
    """
    if domain is None or agent is None:
        spec = FLOWS[flow]
        domain, agent = domain or spec.domain, agent or spec.agent
    world = cached_world(domain, fixtures, poisoned)
    profile = world.agents[agent]
    instructions_path = Path(instructions) if instructions else profile.instructions
    template = instructions_path.read_text(encoding="utf-8")
    paths = dataset_paths(flow, dataset)
    if not paths:
        raise CaseFileError([f"no case file for flow {flow!r} under {DATASETS}"])
    sources = load_case_sources(paths)
    if not poisoned:
        sources = [(p, c) for p, c in sources if not EVAL_ONLY_TAGS & set(c.tags)]
        if not sources:
            raise CaseFileError([f"every case of flow {flow!r} needs the poisoned fixtures"])
    check_cases(sources, world, profile)
    chains = resolve_chains(sources)
    cases = [case for _, case in sources]
    agent_fingerprint = {
        "instructions_sha": fingerprint(template),
        "tools_sha": fingerprint([(t.name, t.description, t.parameters) for t in profile.tools]),
    }
    return Task(
        name=flow,
        dataset=MemoryDataset(
            with_chains(
                samples_for(cases, counterexamples, agent_fingerprint, alternatives), chains
            ),
            name=flow,
        ),
        solver=commerce_agent(
            world,
            profile,
            template,
            {**world.instruction_variables(), **(variables or {})},
            max_rounds=max_rounds,
        ),
        scorer=[
            commerce_case(**role_args(profile.roles()), judge_context=world.judge_context()),
            *(extra(profile.roles()) for extra in extra_scorers),
        ],
        epochs=Epochs(epochs, ["mean", "pass_hat_k"]),
        # A provider failure is recorded on its sample (and `inspect eval-retry` re-runs it); it
        # is kept apart from agent failures and never ends the whole eval.
        fail_on_error=False,
        metadata={
            "domain": domain,
            "agent": agent,
            "instructions": str(instructions_path),
            "counterexamples": counterexamples,
            "alternatives": alternatives,
            "poisoned": poisoned,
            **agent_fingerprint,
        },
    )
