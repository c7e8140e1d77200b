"""flow_task(): the one way a flow becomes an Inspect Task (dataset, solver, scorer, metadata)."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from fnmatch import fnmatchcase
from pathlib import Path
from string import Template
from typing import Any

from inspect_ai import Epochs, Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Metric
from inspect_ai.solver import Solver

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import (
    Case,
    CaseFileError,
    load_case_sources,
    skip_reason,
    sort_case_files,
)
from commerce_evals.cases.reading import read_text
from commerce_evals.cases.sample_case import case_json, known_bad_keys
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.core.frozen import freeze
from commerce_evals.domains.base import (
    DATASETS,
    FIXTURES,
    POISONED,
    AgentProfile,
    World,
    short_hash,
)
from commerce_evals.domains.locales import LOCALES, Locale, locale_of
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.agent_ref import AgentRef, load_agent
from commerce_evals.harness.agent_solver import inspect_agent
from commerce_evals.harness.chain import Chain, resolve_chains, with_chains
from commerce_evals.harness.oracle import oracles
from commerce_evals.harness.recorded import Recorded, load_recorded, recorded_runs
from commerce_evals.harness.run_end import RunEndSummary  # noqa: F401  (registers the hook)
from commerce_evals.harness.sample_run import SESSION_VARIABLES, AgentSetup
from commerce_evals.harness.shards import Shard
from commerce_evals.harness.shards import metadata as shard_metadata
from commerce_evals.harness.solver import commerce_agent
from commerce_evals.harness.task_args import (
    DEFAULT_MAX_CALLS_PER_TURN,
    DEFAULT_MAX_ROUNDS,
    TaskArgumentError,
)
from commerce_evals.harness.tool_descriptions import file_fingerprint, with_descriptions
from commerce_evals.judging import check_expected
from commerce_evals.scoring.metrics import flow_metrics
from commerce_evals.scoring.run_record import keep_run
from commerce_evals.scoring.scorer import brief_args, commerce_case

logger = logging.getLogger(__name__)


class InstructionsError(InputError):
    """Agent instructions with a placeholder nothing fills."""


# Cases tagged with one of these name eval-only listings: they run only with the poisoned fixtures.
EVAL_ONLY_TAGS = frozenset({"poisoned", "benign"})


SKILLS_FOLDER = "skills"


def _files_fingerprint(files: list[tuple[str, Path]]) -> str | None:
    """A hash of (name, content) pairs; None when there is no file."""
    if not files:
        return None
    digest = hashlib.sha256()
    for name, path in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def world_fingerprints(
    domain: str, fixtures: str | None, poisoned: bool, world: World
) -> dict[str, str | None]:
    """Hashes of what the agent's world is made of beside its instructions and tools: the fixture
    files (with the eval-only poisoned ones when merged), the skills, and the policy text."""
    root = Path(fixtures) if fixtures else FIXTURES / domain
    roots = [("", root)]
    if poisoned and (POISONED / domain).is_dir():
        roots.append(("poisoned/", POISONED / domain))
    data: list[tuple[str, Path]] = []
    skills: list[tuple[str, Path]] = []
    for prefix, folder in roots:
        for path in folder.rglob("*"):
            if not path.is_file():
                continue
            relative = path.relative_to(folder).as_posix()
            (skills if relative.startswith(f"{SKILLS_FOLDER}/") else data).append(
                (prefix + relative, path)
            )
    policy = world.judge_context().strip()
    return {
        "fixtures_sha": _files_fingerprint(data),
        "skills_sha": _files_fingerprint(skills),
        "policy_sha": short_hash(policy) if policy else None,
    }


def dataset_files(
    flow: str, dataset: str | None, locale: str | None = None
) -> tuple[list[Path], list[str]]:
    """The flow's case files (of the locale's store), and a line for each file of its folder that
    is not read (why)."""
    root = locale_of(locale).dataset_root() if locale else DATASETS
    folder = Path(dataset) if dataset else root / flow
    if dataset or folder.is_dir():
        found, others = sort_case_files(folder)
        return found, [f"{p}: skipped: {skip_reason(p)}" for p in others]
    return [p for p in (root / f"{flow}.yaml", root / f"{flow}.json") if p.exists()], []


def dataset_paths(flow: str, dataset: str | None, locale: str | None = None) -> list[Path]:
    return dataset_files(flow, dataset, locale)[0]


def check_flows(sources: list[tuple[Path, Case]], flow: str, locale: str = "en") -> None:
    """Every case is the task's flow's and its locale's: a case id names its flow (and the store's
    language), and a case run under another flow's task, or against another locale's store, would
    meet another agent, tools and World than it was written for. A task of its own name over
    flow_task (not a flow of the table) picks its cases itself."""
    if flow not in FLOWS:
        return
    problems = []
    for path, case in sources:
        if case.flow == flow and case.locale != locale:
            fix = f"run it with -T locale={case.locale}"
            problems.append(
                f"{path}: case {case.id}: a case of the {case.locale} store under -T "
                f"locale={locale}; {fix}"
            )
            continue
        if case.flow == flow:
            continue
        if case.flow in FLOWS:
            fix = f"run it with inspect eval commerce_evals/{case.flow}"
            problems.append(f"{path}: case {case.id}: a {case.flow} case under task {flow}; {fix}")
        else:
            problems.append(
                f"{path}: case {case.id}: its id names no flow ({case.flow}); a case of task "
                f"{flow} has an id {flow}-<nnn>-<behavior>"
            )
    if problems:
        raise CaseFileError(problems)


def check_placeholders(template: str, variables: dict[str, Any], path: Path) -> None:
    """Every $placeholder in the instructions has a value: a typo must not reach the model."""
    known = {*variables, *SESSION_VARIABLES}
    parsed = Template(template)
    unknown = sorted(set(parsed.get_identifiers()) - known)
    if unknown:
        raise InstructionsError(
            f"{path}: unknown placeholders {', '.join('$' + n for n in unknown)}; "
            f"known: {', '.join('$' + n for n in sorted(known))} (write $$ for a dollar sign)"
        )
    if not parsed.is_valid():
        raise InstructionsError(
            f"{path}: a $ not followed by a placeholder name; write $$ for a dollar sign"
        )


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
    # A run of the cases leaves out the counterexamples it does not replay. The dump is frozen
    # (core.frozen): Inspect copies sample metadata per epoch and per metric view.
    exclude = None if counterexamples else {"counterexamples"}
    dumped = case.model_dump(mode="json", exclude_defaults=True, exclude=exclude)
    # a key written at its default value (`never_asks: []`) is still asserted: keep it
    expected = dumped.setdefault("expected", {})
    written = case.expected.model_dump(mode="json", include=case.expected.model_fields_set)
    expected.update({k: v for k, v in written.items() if k not in expected})
    return {
        "case": case_json(dumped),
        "flow": case.flow,
        "priority": case.priority,
        "difficulty": case.difficulty,
        **({"defaulted": freeze(case.defaulted)} if case.defaulted else {}),
        "tags": freeze(case.tags),
        "niche": case.niche or "",
        # what the scripted judge fails, in a few bytes: the counterexamples themselves are left out
        "known_bad_replies": freeze(known_bad_keys(case)),
        **agent_fingerprint,
    }


def with_oracles(
    samples: list[Sample],
    cases: list[Case],
    world: World,
    agent: AgentProfile,
    chains: dict[str, Chain],
) -> list[Sample]:
    """Each sample's case's oracle change sets and write effects (computed once per case) in its
    metadata."""
    by_case: dict[str, tuple[Any, Any]] = {}
    for case in cases:
        chain = chains.get(case.id)
        dumped = chain.model_dump(mode="json") if chain else None
        found = oracles(world, agent.tools, case, dumped)
        by_case[case.id] = (freeze([o.changes for o in found]), freeze([o.writes for o in found]))
    for sample in samples:
        assert sample.metadata is not None
        changes, writes = by_case[sample.metadata["case"]["id"]]
        sample.metadata["oracle_changes"] = changes
        sample.metadata["oracle_writes"] = writes
    return samples


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
            if cx.skip is not None:  # a draft a person has not confirmed: never replayed
                continue
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


def no_variants(flow: str, cases: int, counterexamples: bool, alternatives: bool) -> str:
    """Why `-T counterexamples=true` / `-T alternatives=true` made no sample at all."""
    kinds = [
        k for k, on in (("counterexamples", counterexamples), ("alternatives", alternatives)) if on
    ]
    given = " ".join(f"-T {k}=true" for k in kinds)
    return (
        f"{given}: none of the {cases} case(s) of flow {flow!r} has {' or '.join(kinds)}; "
        f"drop {given} to run the cases themselves"
    )


def sample_case_id(sample: Sample) -> str:
    return str((sample.metadata or {})["case"]["id"])


def shard_samples(samples: list[Sample], shard: Shard) -> list[Sample]:
    """The samples whose case falls in the shard (a case's counterexamples stay together)."""
    return [s for s in samples if shard.holds(sample_case_id(s))]


def selected_cases(cases: list[Case], given: str, flow: str) -> list[Case]:
    """The cases `-T cases=` names, by id or shell pattern; a pattern that names none of the
    flow's cases is an error with the ids it is closest to."""
    patterns = [p.strip() for p in given.split(",") if p.strip()]
    ids = [case.id for case in cases]
    for pattern in patterns:
        if not any(fnmatchcase(case_id, pattern) for case_id in ids):
            close = get_close_matches(pattern.split("~", 1)[0], ids, n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise CaseFileError(
                [
                    f"-T cases={given}: {pattern} names no case of flow {flow!r}{hint} (a case "
                    "id, or a shell pattern such as checkout-00*; not a sample id with ~)"
                ]
            )
    return [c for c in cases if any(fnmatchcase(c.id, pattern) for pattern in patterns)]


# what `agent_under_test` says of a run of the flow's own tool loop
BUILT_IN = "built-in"


def agent_solver(setup: AgentSetup, ref: AgentRef | None, max_rounds: int) -> Solver:
    """The built-in loop, or the Inspect agent `-T agent=` names; either way the sandbox records."""
    if ref is None:
        return commerce_agent(setup, max_rounds=max_rounds)
    return inspect_agent(setup, ref, max_rounds=max_rounds)


def refuse_beside_recorded(
    recorded: str, agent: str | None, counterexamples: bool, alternatives: bool
) -> None:
    """`-T recorded=` grades runs already made: nothing may run beside it."""
    beside = [
        name
        for name, given in (
            ("agent", agent is not None),
            ("counterexamples", counterexamples),
            ("alternatives", alternatives),
        )
        if given
    ]
    if beside:
        raise TaskArgumentError(
            f"-T recorded={recorded}: grades runs already made, so nothing runs beside it; "
            f"drop {', '.join('-T ' + name for name in beside)}"
        )


def recorded_fingerprint(runs: dict[str, Recorded]) -> dict[str, str]:
    """The task's record of the agent side of recorded runs: each hash when every run shares it."""

    def one(values: set[str]) -> str:
        return values.pop() if len(values) == 1 else "several"

    records = [r.record for r in runs.values()]
    return {
        "instructions_sha": one({r.instructions_sha for r in records}),
        "tools_sha": one({r.tools_sha for r in records}),
        "agent_under_test": "recorded: " + ", ".join(sorted({r.agent for r in records})),
    }


def tools_file_metadata(tools: str | None) -> dict[str, str]:
    """The task's record of `-T tools=`: the file and a hash of its text."""
    if tools is None:
        return {}
    return {"tools_file": tools, "tools_file_sha": file_fingerprint(Path(tools))}


@dataclass(frozen=True)
class FlowParts:
    """What a flow's agent meets, read and checked as a task loads: the World, the domain's agent
    (with a team's tool descriptions), the instructions and their values, and the cases with their
    chains. A flow task is built on them, and so is the MCP server of one case."""

    flow: str
    domain: str
    profile: str
    poisoned: bool
    fixtures: str | None
    world: World
    offered: AgentProfile
    instructions_path: Path
    template: str
    variables: dict[str, Any]
    sources: list[tuple[Path, Case]]
    chains: dict[str, Chain]
    skipped: list[str]  # a line for each file of the case folder that is not read (why)
    tools: str | None = None  # the tool descriptions file the agent is offered (a locale's too)

    def fingerprints(self) -> dict[str, str]:
        """Hashes of the instructions and of the tools as the model is offered them."""
        tools = [(t.name, t.description, t.parameters) for t in self.offered.tools]
        return {"instructions_sha": short_hash(self.template), "tools_sha": short_hash(tools)}

    def case(self, case_id: str) -> Case | None:
        """The flow's case with this id (None: it has none)."""
        return next((c for _, c in self.sources if c.id == case_id), None)

    def case_ids(self) -> list[str]:
        return [c.id for _, c in self.sources]


def flow_parts(
    flow: str,
    domain: str | None = None,
    profile: str | None = None,
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    poisoned: bool | None = None,
    tools: str | None = None,
    variables: dict[str, Any] | None = None,
    locale: str = "en",
) -> FlowParts:
    """A flow's parts (see FlowParts); each argument as flow_task() takes it."""
    if domain is None or profile is None or poisoned is None:
        if flow not in FLOWS:
            raise KeyError(f"flow {flow!r} is not in FLOWS: give its domain, profile and poisoned")
        spec = FLOWS[flow]
        domain, profile = domain or spec.domain, profile or spec.agent
        poisoned = spec.poisoned if poisoned is None else poisoned
    store = locale_of(locale)
    fixtures = fixtures or _locale_fixtures(store, domain)
    world = cached_world(domain, fixtures, poisoned)
    offered = world.agents[profile]
    # the locale's tool descriptions of this agent: <agent>.tools.ja.yaml beside its instructions
    own_tools = store.localised(
        offered.instructions.with_name(f"{offered.instructions.stem}.tools.yaml")
    )
    if tools is None and store.name != "en" and own_tools.is_file():
        tools = str(own_tools)
    if tools is not None:
        offered = with_descriptions(offered, Path(tools))
    instructions_path = (
        Path(instructions) if instructions else store.localised(offered.instructions)
    )
    template = read_text(instructions_path, what="instructions file")
    variables = {**world.instruction_variables(), **(variables or {})}
    check_placeholders(template, variables, instructions_path)
    paths, skipped = dataset_files(flow, dataset, locale)
    if not paths:
        raise CaseFileError([f"no case file for flow {flow!r} under {store.dataset_root()}"])
    for line in skipped:
        logger.warning(line)
    sources = load_case_sources(paths, flow)
    check_flows(sources, flow, locale)
    if not poisoned:
        sources = [(p, c) for p, c in sources if not EVAL_ONLY_TAGS & set(c.tags)]
        if not sources:
            raise CaseFileError([f"every case of flow {flow!r} needs the poisoned fixtures"])
    check_cases(sources, world, offered)
    return FlowParts(
        flow=flow,
        domain=domain,
        profile=profile,
        poisoned=poisoned,
        fixtures=fixtures,
        world=world,
        offered=offered,
        instructions_path=instructions_path,
        template=template,
        variables=variables,
        sources=sources,
        # chains are resolved over every case: a chained case replays its chain in any shard
        chains=resolve_chains(sources),
        skipped=skipped,
        tools=tools,
    )


def _locale_fixtures(store: Locale, domain: str) -> str | None:
    """The locale's fixtures folder of the domain; a locale with no store of that domain is a
    task argument error."""
    folder = store.fixtures_folder(domain)
    if store.name != "en" and folder is None:
        raise TaskArgumentError(
            f"-T locale={store.name}: the {domain} domain has no {store.name} store; "
            f"locales of {domain}: en"
            + "".join(f", {n}" for n, lo in LOCALES.items() if domain in lo.fixtures)
        )
    return str(folder) if folder else None


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
    domain, profile, poisoned = parts.domain, parts.profile, parts.poisoned
    fixtures, tools = parts.fixtures, parts.tools
    world, offered, template = parts.world, parts.offered, parts.template
    instructions_path, sources, chains = parts.instructions_path, parts.sources, parts.chains
    all_variables, skipped = parts.variables, parts.skipped
    agent_ref = load_agent(agent) if agent is not None else None
    chosen = [case for _, case in sources]
    if cases is not None:
        chosen = selected_cases(chosen, cases, flow)
    runs = None
    if recorded is not None:
        refuse_beside_recorded(recorded, agent, counterexamples, alternatives)
        runs = load_recorded(recorded, flow, chosen)
        chosen = [case for case in chosen if case.id in runs]
    agent_fingerprint = {
        **parts.fingerprints(),
        "agent_under_test": agent_ref.text if agent_ref else BUILT_IN,
    }
    samples = samples_for(chosen, counterexamples, agent_fingerprint, alternatives)
    if runs is not None:
        for sample in samples:
            assert sample.metadata is not None
            sample.metadata.update(runs[sample_case_id(sample)].agent_metadata())
        agent_fingerprint = recorded_fingerprint(runs)
    if not samples:
        raise CaseFileError([no_variants(flow, len(chosen), counterexamples, alternatives)])
    all_case_ids = [sample_case_id(s) for s in samples]
    part = Shard.parse(shard) if shard else None
    if part is not None:
        samples = shard_samples(samples, part)
        chosen = [case for case in chosen if part.holds(case.id)]
        if not samples:
            raise CaseFileError(
                [
                    f"shard {part} of flow {flow!r} holds none of its {len(all_case_ids)} samples: "
                    "use fewer shards"
                ]
            )
    # what the scorers grade against: the World's invariants and change rules, the agent's tools
    world_args: dict[str, Any] = {
        "domain": domain,
        "fixtures": fixtures,
        "poisoned": poisoned,
        "tools": [t.name for t in offered.tools],
    }
    return Task(
        name=flow,
        dataset=MemoryDataset(
            with_oracles(
                with_chains(samples, chains),
                chosen,
                world,
                offered,
                chains,
            ),
            name=flow,
        ),
        solver=recorded_runs(runs)
        if runs is not None
        else agent_solver(
            AgentSetup(world, offered, template, all_variables, max_calls_per_turn),
            agent_ref,
            max_rounds,
        ),
        scorer=commerce_case(
            **brief_args(world.brief(profile)),
            **world_args,
            judge_context=world.judge_context(),
            judge=judging,
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
            "instructions": str(instructions_path),
            **tools_file_metadata(tools),
            "counterexamples": counterexamples,
            "alternatives": alternatives,
            "poisoned": poisoned,
            "skipped_files": skipped,
            "judge": "on" if judging else "off",
            **agent_fingerprint,
            # the world's hashes go in the task's metadata only: every sample shares them
            **world_fingerprints(domain, fixtures, poisoned, world),
            **shard_metadata(part, all_case_ids),
        },
    )
