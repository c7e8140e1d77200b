"""What the lint rules read: every case loaded by the core loader, with its domain, its agent and
its reference run replayed by the core replay; and the findings the rules return.

A case maps to its domain and agent through its flow (`<flow>-<nnn>-...`): the table in
commerce_evals/core/flow_table.py, or, for a flow not listed there, the domain of the same name
when that domain has one agent. What a rule needs of a domain beyond its tools and tables it asks
through `World.authoring()`; a domain that says nothing gets the generic rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from importlib import import_module
from pathlib import Path
from typing import Any, cast

from commerce_evals.cases.model import Case, CaseFileError, load_case_sources, sort_case_files
from commerce_evals.core.flow_table import FLOWS, FlowSpec
from commerce_evals.domains import WORLDS
from commerce_evals.domains.base import (
    FIXTURES,
    POISONED,
    AgentProfile,
    Authoring,
    PoisonedFixtures,
    World,
    _id_values,
)
from commerce_evals.domains.locales import LOCALES, locale_of
from commerce_evals.domains.worlds import cached_world
from commerce_evals.grading.keys import NEGATIVE_KEYS
from commerce_evals.harness.chain import Chain, resolve_chains, start_session
from commerce_evals.harness.oracle import Answers, replay_script


@dataclass(frozen=True)
class Finding:
    path: str
    case: str
    rule: str
    message: str

    def line(self) -> str:
        return f"{self.path}: case {self.case}: [{self.rule}] {self.message}"


def world_of(domain: str, locale: str | None = None) -> World:
    """The World a task loads by default (fixtures/<domain>, poisoned fixtures merged), or the
    store of a case's locale (domains/locales.py: fixtures/<domain>-ja)."""
    folder = locale_of(locale).fixtures_folder(domain) if locale in LOCALES else None
    return cached_world(domain, str(folder) if folder else None, True)


def poisoned_fixtures(authoring: Authoring) -> PoisonedFixtures | None:
    """The domain's eval-only fixtures reader, found where its Authoring names it."""
    if authoring.poisoned is None:
        return None
    module, name = authoring.poisoned.split(":")
    return cast(PoisonedFixtures, getattr(import_module(module), name))


@dataclass
class LintCase:
    path: Path
    case: Case
    target: FlowSpec | None = None
    world: World | None = None
    profile: AgentProfile | None = None
    problem: str = ""  # why target, world or profile is missing
    chain: Chain | None = None  # where a chained case (state: {after: ...}) starts
    replay_error: str = ""

    def finding(self, rule: str, message: str) -> Finding:
        return Finding(str(self.path), self.case.id, rule, message)

    @property
    def authoring(self) -> Authoring:
        return self.world.authoring() if self.world else Authoring()

    @property
    def domain(self) -> str | None:
        return self.target.domain if self.target else None

    @property
    def group(self) -> tuple[str, str]:
        """The niche a case is paired within: its flow and its niche (or the whole flow)."""
        return self.case.flow, self.case.niche or ""

    @property
    def niche(self) -> str:
        return self.case.niche or f"flow {self.case.flow}"

    def tags_with(self, prefix: str) -> list[str]:
        return [t[len(prefix) :] for t in self.case.tags if t.startswith(prefix)]

    def agent_has(self, tool: str | None) -> bool:
        return bool(tool and self.profile and tool in {t.name for t in self.profile.tools})

    @cached_property
    def replay(self) -> Answers:
        """(tool, answer) per call, per turn, of the reference run replayed against the World."""
        if self.world is None or self.profile is None or self.case.reference is None:
            return []
        if self.replay_error:  # its chain does not resolve
            return []
        try:
            session = start_session(self.world, self.profile.tools, self.case, self.chain)
        except Exception as err:  # a replay must report, never crash the lint
            self.replay_error = f"the injected state makes no session: {err}"
            return []
        try:
            return replay_script(session, self.profile.tools, self.case, self.case.reference)
        except Exception as err:
            self.replay_error = f"the reference run does not replay: {type(err).__name__}: {err}"
            return []

    def graded_turn_calls(self) -> int:
        """The calls the reference's graded (last) turn makes, turn-ending tools left out."""
        reference = self.case.reference
        if not reference or self.profile is None:
            return 0
        ending = self.profile.brief().turn_ending
        return sum(
            1 for calls in reference[-1].rounds() for call in calls if call.tool not in ending
        )

    # ---- what the case's expected keys name ----

    def positive_ids(self) -> set[str]:
        """Ids a case asserts something positive about (carted, shown, staged, read)."""
        expected = self.case.expected
        keys = [k for k in expected.asserted_keys() if k not in NEGATIVE_KEYS]
        data = expected.model_dump(mode="json", include=set(keys))
        if expected.state is not None:
            data["state"] = {"rows": expected.state.rows}
        return self._ids(data)

    def negative_ids(self) -> set[str]:
        expected = self.case.expected
        data = expected.model_dump(mode="json", include={"never_calls", "cart_not_contains"})
        if expected.state is not None:
            data["no_rows"] = expected.state.no_rows
        return self._ids(data)

    def _ids(self, data: Any) -> set[str]:
        fields = self.world.id_fields if self.world else frozenset()
        return {value for _, value in _id_values(data, fields)}

    def refuses_memory(self) -> bool:
        """Asserts that nothing (or nothing named) is remembered."""
        expected = self.case.expected
        tool = self.authoring.memory_tool
        return bool(expected.memory_not_contains) or bool(
            tool and any(p.tool == tool and not p.args for p in expected.never_calls)
        )

    def asserts_memory_end_state(self) -> bool:
        expected = self.case.expected
        tool = self.authoring.memory_tool
        if expected.memory_not_contains:
            return True
        if tool and any(p.tool == tool for p in expected.never_calls):
            return True
        return expected.state is not None and "memory" in expected.state.tables()


@dataclass
class LintRun:
    cases: list[LintCase]
    fixtures_root: Path = FIXTURES
    poisoned_root: Path = POISONED
    load_problems: list[Finding] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # files in a folder that hold no cases

    def in_domain_with(self, trait: str) -> list[LintCase]:
        """The cases whose domain's Authoring gives `trait` (a memory tool, poisoned fixtures)."""
        return [c for c in self.cases if getattr(c.authoring, trait)]

    def groups(
        self, cases: Iterable[LintCase] | None = None
    ) -> dict[tuple[str, str], list[LintCase]]:
        """Cases by niche (flow and niche)."""
        grouped: dict[tuple[str, str], list[LintCase]] = {}
        for item in self.cases if cases is None else cases:
            grouped.setdefault(item.group, []).append(item)
        return grouped

    def domains_with_poisoned(self) -> Iterator[tuple[str, PoisonedFixtures, Path]]:
        """Every domain with eval-only fixtures: its name, their reader and their folder here."""
        for domain in WORLDS:
            reader = poisoned_fixtures(world_of(domain).authoring())
            root = self.poisoned_root / domain
            if reader is not None and root.is_dir():
                yield domain, reader, root


# ---- loading --------------------------------------------------------------------------------------


def target_for(flow: str) -> FlowSpec | None:
    if flow in FLOWS:
        return FLOWS[flow]
    if flow in WORLDS:
        agents = world_of(flow).agents
        if len(agents) == 1:
            return FlowSpec(flow, next(iter(agents)))
    return None


def attach(path: Path, case: Case) -> LintCase:
    item = LintCase(path, case)
    try:
        item.target = target_for(case.flow)
    except Exception as err:
        item.problem = f"the {case.flow} domain does not load: {err}"
        return item
    if item.target is None:
        item.problem = (
            f"flow {case.flow!r} maps to no domain: add it to FLOWS in "
            "commerce_evals/core/flow_table.py"
        )
        return item
    try:
        item.world = world_of(item.target.domain, case.locale)
    except Exception as err:
        item.problem = f"the {item.target.domain} domain does not load: {err}"
        return item
    item.profile = item.world.agents.get(item.target.agent)
    if item.profile is None:
        item.problem = f"the {item.target.domain} domain has no agent {item.target.agent!r}"
    return item


CASE_IN = re.compile(r"^(?P<path>.*?): case (?P<case>[^:]+): (?P<rest>.*)$", re.S)


def _schema_finding(problem: str, path: Path) -> Finding:
    match = CASE_IN.match(problem)
    if match:
        return Finding(match["path"], match["case"], "schema", match["rest"])
    return Finding(str(path), "-", "schema", problem.removeprefix(f"{path}: "))


def chains_of(sources: list[tuple[Path, Case]]) -> tuple[dict[str, Chain], dict[str, str]]:
    """The chains the task would resolve, and why each chained case that does not resolve does
    not (its `after` names a case outside the files linted, say): that case alone loses its replay."""
    broken: dict[str, str] = {}
    while True:
        try:
            return resolve_chains([s for s in sources if s[1].id not in broken]), broken
        except CaseFileError as err:
            for problem in err.problems:
                match = CASE_IN.match(problem)
                case_id = match["case"] if match else problem
                broken[case_id] = (
                    f"its chain does not resolve: {match['rest'] if match else problem}"
                )


def load(paths: Iterable[Path | str]) -> LintRun:
    """Every case of every file, through the eval's loader; files that do not load become
    `schema` findings, and a file that loads is checked whatever its neighbours hold."""
    run = LintRun(cases=[])
    files: list[Path] = []
    for given in map(Path, paths):
        try:
            found, others = sort_case_files(given)  # the eval's own rule for what a case file is
        except CaseFileError as err:
            run.load_problems.extend(_schema_finding(p, given) for p in err.problems)
            continue
        files.extend(found)
        run.skipped.extend(others)
    sources: list[tuple[Path, Case]] = []
    seen: dict[str, Path] = {}
    for path in files:
        try:
            loaded = load_case_sources([path])
        except CaseFileError as err:
            run.load_problems.extend(_schema_finding(p, path) for p in err.problems)
            continue
        for source_path, case in loaded:
            if case.id in seen:
                run.load_problems.append(
                    Finding(
                        str(path), case.id, "schema", f"id: duplicate (first in {seen[case.id]})"
                    )
                )
                continue
            seen[case.id] = source_path
            sources.append((source_path, case))
    chains, broken = chains_of(sources)
    for source_path, case in sources:
        item = attach(source_path, case)
        item.chain = chains.get(case.id)
        item.replay_error = broken.get(case.id, "")
        run.cases.append(item)
    return run


# ---- reading tool answers and files ----------------------------------------------------------------


def strings_in(payload: Any) -> Iterator[str]:
    """Every string inside a tool answer (keys included), walking dicts and lists."""
    if isinstance(payload, str):
        yield payload
    elif isinstance(payload, dict):
        for key, value in payload.items():
            yield str(key)
            yield from strings_in(value)
    elif isinstance(payload, list | tuple):
        for item in payload:
            yield from strings_in(item)


def appears_in(text: str, payloads: Iterable[Any]) -> bool:
    """Whether a text reached the model in one of these tool answers."""
    return any(text in s for p in payloads for s in strings_in(p))


def ids_in_files(ids: Iterable[str], files: Iterable[Path]) -> list[tuple[Path, str]]:
    """(file, id) for every id that appears in the text of one of the files."""
    wanted = sorted(set(ids))
    found: list[tuple[Path, str]] = []
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        found.extend((path, i) for i in wanted if i in text)
    return found
