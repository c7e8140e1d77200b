"""A flow's inputs, read and checked as its task loads: the World, the agent's instructions and
tools, and the cases with their chains (FlowParts). The first of the three steps of flow_task()."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from string import Template
from typing import Any

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import (
    Case,
    CaseFileError,
    load_case_sources,
    skip_reason,
    sort_case_files,
)
from commerce_evals.cases.reading import read_text
from commerce_evals.core.flow_table import FLOWS
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
from commerce_evals.harness.chain import Chain, resolve_chains
from commerce_evals.harness.sample_run import SESSION_VARIABLES
from commerce_evals.harness.task_args import TaskArgumentError
from commerce_evals.harness.tool_descriptions import with_descriptions
from commerce_evals.judging import check_expected

logger = logging.getLogger(__name__)


class InstructionsError(InputError):
    """Agent instructions with a placeholder nothing fills."""


# Cases tagged with one of these name eval-only listings: they run only with the poisoned fixtures.
EVAL_ONLY_TAGS = frozenset({"poisoned", "benign"})


def needs_poisoned(tags: Iterable[str]) -> bool:
    """A case that names an eval-only listing: it runs only with the poisoned fixtures merged."""
    return bool(EVAL_ONLY_TAGS.intersection(tags))


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
    domain: str, fixtures: str | None, poisoned: bool, judge_context: str
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
    policy = judge_context.strip()
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


def check_cases(
    sources: list[tuple[Path, Case]], world: World, agent: AgentProfile, context: str
) -> None:
    """Ids the fixtures lack, tools the agent lacks, tables the domain lacks (`context`: the
    reference text the judge is given, which a judged key may need): one error for all."""
    problems = [
        f"{path}: case {case.id}: {problem}"
        for path, case in sources
        for problem in [*world.check_case(case, agent), *check_expected(case.expected, context)]
    ]
    if problems:
        raise CaseFileError(problems)


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
    judge_context: str  # the reference text the judge reads beside a transcript (the policy)
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
        sources = [(p, c) for p, c in sources if not needs_poisoned(c.tags)]
        if not sources:
            raise CaseFileError([f"every case of flow {flow!r} needs the poisoned fixtures"])
    # read once: the cases' check, the task's fingerprints and its scorer all need it
    judge_context = world.judge_context()
    check_cases(sources, world, offered, judge_context)
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
        judge_context=judge_context,
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
