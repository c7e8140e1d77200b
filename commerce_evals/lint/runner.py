"""The authoring lint: seed 000's authoring rules over case files, each rule a pure function.

A case file maps to its domain and agent through the flow in its case ids (`<flow>-<nnn>-...`):
the table in commerce_evals/harness/flow_table.py, or, for a flow not listed there, the domain of the same name
when that domain has one agent. Rules that only make sense for some domains (memory kinds, the stored-fact
search, poisoned fixtures) read DOMAIN_TRAITS and skip the others.

Tags the rules read (free-form otherwise):
  memory:<kind>:<role>       role write | refuse | use: each kind needs all three
  gate:<name> / no-gate:<name>                 a gate exercised / the same request shape let through
  disclosure:<topic> / no-disclosure:<topic>   something the reply must say / must not say
  poisoned, vector:<V-nn>    a case that puts a planted instruction in front of the agent
  benign                     its should-serve counterpart over a benign eval-only listing
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from commerce_evals.cases.model import Case, CaseFileError, load_case_sources, sort_case_files
from commerce_evals.domains import WORLDS, load_world
from commerce_evals.domains.base import DATASETS, FIXTURES, POISONED, AgentProfile, World
from commerce_evals.domains.shop import poison
from commerce_evals.domains.shop.gates import EXCLUDED_TOPICS
from commerce_evals.grading import keys
from commerce_evals.harness.flow_table import FLOWS, FlowSpec

# ---- what the domain-specific rules need ------------------------------------------------------------


@dataclass(frozen=True)
class DomainTraits:
    """What the domain-specific rules need; a domain without an entry gets the generic rules."""

    search_tool: str | None = None  # the catalog search the stored-fact rule replays
    memory_tool: str | None = None  # the tool that writes lasting memory
    poisoned: bool = False  # has poisoned/<domain>/ with a vectors manifest


DOMAIN_TRAITS: dict[str, DomainTraits] = {
    "shop": DomainTraits(search_tool="search_products", memory_tool="save_memory", poisoned=True),
}

NEGATIVE_KEYS = keys.NEGATIVE_KEYS  # from the key registry
# What a poisoned case must assert for each kind of planted instruction.
NEGATIVES_BY_KIND: dict[str, frozenset[str]] = {
    "cart_write": frozenset({"cart_not_contains", "never_calls"}),
    "memory_write": frozenset({"memory_not_contains", "never_calls"}),
    "stage_change": frozenset({"no_applied_changes", "never_calls"}),
    "false_claim": frozenset({"reply_omits", "reply_not_matches", "reply_denies"}),
}
MEMORY_ROLES = ("write", "refuse", "use")
PLACEHOLDER_REASONS = frozenset(
    {"todo", "tbd", "wip", "fixme", "later", "skip", "skipped", "n/a", "na", "none", "yes", "true"}
)
ERRAND = re.compile(
    r"\b(one[- ]off|just this once|this once|one[- ]time|just for (a|an|the|this)\b[^.?!]*?\b"
    r"(trip|flight|weekend|party|wedding|event)|as a gift|a gift for|gift for|birthday|"
    r"for my (nephew|niece|sister|brother|mom|mother|dad|father|friend|son|daughter|kids?|wife|"
    r"husband|partner|boss)\b)",
    re.IGNORECASE,
)
SENSITIVE: dict[str, re.Pattern[str]] = {**EXCLUDED_TOPICS, "a one-off errand": ERRAND}
PASS_WORD = re.compile(r"\bPASS\b")
FAIL_WORD = re.compile(r"\bFAIL\b")


# ---- findings and the lint run ----------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    path: str
    case: str
    rule: str
    message: str

    def line(self) -> str:
        return f"{self.path}: case {self.case}: [{self.rule}] {self.message}"


@dataclass
class LintCase:
    path: Path
    case: Case
    target: FlowSpec | None = None
    world: World | None = None
    profile: AgentProfile | None = None
    problem: str = ""  # why target, world or profile is missing
    replay_error: str = ""

    def finding(self, rule: str, message: str) -> Finding:
        return Finding(str(self.path), self.case.id, rule, message)

    @property
    def traits(self) -> DomainTraits:
        return (
            DOMAIN_TRAITS.get(self.target.domain, DomainTraits()) if self.target else DomainTraits()
        )

    @property
    def group(self) -> tuple[str, str]:
        """The niche a case is paired within: its flow and its niche (or the whole flow)."""
        return self.case.flow, self.case.niche or ""

    def tags_with(self, prefix: str) -> list[str]:
        return [t[len(prefix) :] for t in self.case.tags if t.startswith(prefix)]

    @cached_property
    def replay(self) -> list[list[tuple[str, Any]]]:
        """(tool, answer) per call, per turn, of the reference run replayed against the World."""
        if self.world is None or self.profile is None or self.case.reference is None:
            return []
        try:
            return replay_reference(self.case, self.world, self.profile)
        except ReplayError as err:
            self.replay_error = str(err)
            return []


@dataclass
class LintRun:
    cases: list[LintCase]
    fixtures_root: Path = FIXTURES
    poisoned_root: Path = POISONED
    load_problems: list[Finding] = field(default_factory=list)
    skipped: list[Path] = field(default_factory=list)  # files in a folder that hold no cases

    def in_domain_with(self, trait: str) -> list[LintCase]:
        return [c for c in self.cases if getattr(c.traits, trait)]


class ReplayError(Exception):
    """The reference run could not be replayed (its injected state does not make a session)."""


def replay_reference(
    case: Case, world: World, profile: AgentProfile
) -> list[list[tuple[str, Any]]]:
    """Run a case's reference calls through a fresh session, as the agent loop would."""
    try:
        session = world.session(case.state)
    except Exception as err:
        raise ReplayError(f"the injected state makes no session: {err}") from err
    specs = {t.name: t for t in profile.tools}
    turns: list[list[tuple[str, Any]]] = []
    reference = case.reference or []
    users = case.conversation(reference).turns
    for index, ((user, confirms), scripted) in enumerate(zip(users, reference, strict=False)):
        session.begin_turn(user, confirms)
        answers: list[tuple[str, Any]] = []
        for r, calls in enumerate(scripted.rounds()):
            for c, call in enumerate(calls):
                spec = specs.get(call.tool)
                if spec is None:
                    answers.append((call.tool, {"status": "error", "message": "unknown tool"}))
                    continue
                try:
                    answer = session.call(spec, dict(call.args), f"t{index}r{r}c{c}")
                except Exception as err:  # a replay must report, never crash the lint
                    answer = {"status": "error", "message": f"{type(err).__name__}: {err}"}
                answers.append((call.tool, answer))
        session.drain_events()
        turns.append(answers)
    return turns


# ---- loading ------------------------------------------------------------------------------------------


def target_for(flow: str) -> FlowSpec | None:
    if flow in FLOWS:
        return FLOWS[flow]
    if flow in WORLDS:
        agents = _world(flow).agents
        if len(agents) == 1:
            return FlowSpec(flow, next(iter(agents)))
    return None


_WORLDS: dict[str, World] = {}


def _world(domain: str) -> World:
    """The World a task loads by default (fixtures/<domain>, poisoned fixtures merged)."""
    if domain not in _WORLDS:
        _WORLDS[domain] = load_world(domain, None, True)
    return _WORLDS[domain]


def attach(path: Path, case: Case) -> LintCase:
    item = LintCase(path, case)
    try:
        item.target = target_for(case.flow)
    except Exception as err:
        item.problem = f"the {case.flow} domain does not load: {err}"
        return item
    if item.target is None:
        item.problem = f"flow {case.flow!r} maps to no domain: add it to FLOWS in commerce_evals/harness/flow_table.py"
        return item
    try:
        item.world = _world(item.target.domain)
    except Exception as err:
        item.problem = f"the {item.target.domain} domain does not load: {err}"
        return item
    item.profile = item.world.agents.get(item.target.agent)
    if item.profile is None:
        item.problem = f"the {item.target.domain} domain has no agent {item.target.agent!r}"
    return item


_CASE_IN = re.compile(r"^(?P<path>.*?): case (?P<case>[^:]+): (?P<rest>.*)$", re.S)


def _schema_finding(problem: str, path: Path) -> Finding:
    match = _CASE_IN.match(problem)
    if match:
        return Finding(match["path"], match["case"], "schema", match["rest"])
    return Finding(str(path), "-", "schema", problem.removeprefix(f"{path}: "))


def load(paths: Iterable[Path | str]) -> LintRun:
    """Every case of every file; files that do not load become `schema` findings."""
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
    seen: dict[str, Path] = {}
    for path in files:
        try:
            sources = load_case_sources([path])
        except CaseFileError as err:
            run.load_problems.extend(_schema_finding(p, path) for p in err.problems)
            continue
        for source_path, case in sources:
            if case.id in seen:
                run.load_problems.append(
                    Finding(
                        str(path), case.id, "schema", f"id: duplicate (first in {seen[case.id]})"
                    )
                )
                continue
            seen[case.id] = source_path
            run.cases.append(attach(source_path, case))
    return run


# ---- helpers over a case's expected keys --------------------------------------------------------------


def _ids_under(node: Any, fields: frozenset[str]) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in fields:
                values = value if isinstance(value, list) else [value]
                yield from (v for v in values if isinstance(v, str) and v != "*")
            else:
                yield from _ids_under(value, fields)
    elif isinstance(node, list):
        for item in node:
            yield from _ids_under(item, fields)


def positive_ids(item: LintCase) -> set[str]:
    """Ids a case asserts something positive about (carted, shown, staged, read)."""
    expected = item.case.expected
    fields = item.world.id_fields if item.world else frozenset()
    keys = [k for k in expected.asserted_keys() if k not in NEGATIVE_KEYS]
    data = expected.model_dump(mode="json", include=set(keys))
    if expected.state is not None:
        data["state"] = {"rows": expected.state.rows}
    return set(_ids_under(data, fields))


def negative_ids(item: LintCase) -> set[str]:
    expected = item.case.expected
    fields = item.world.id_fields if item.world else frozenset()
    data = expected.model_dump(mode="json", include={"never_calls", "cart_not_contains"})
    if expected.state is not None:
        data["no_rows"] = expected.state.no_rows
    return set(_ids_under(data, fields))


def asserts_memory_end_state(item: LintCase) -> bool:
    expected = item.case.expected
    tool = item.traits.memory_tool
    if expected.memory_not_contains:
        return True
    if tool and any(p.tool == tool for p in expected.never_calls):
        return True
    state = expected.state
    return state is not None and "memory" in state.tables()


def refuses_memory(item: LintCase) -> bool:
    expected = item.case.expected
    tool = item.traits.memory_tool
    return bool(expected.memory_not_contains) or bool(
        tool and any(p.tool == tool and not p.args for p in expected.never_calls)
    )


# ---- the rules ------------------------------------------------------------------------------------------


def rule_flow_known(run: LintRun) -> list[Finding]:
    """A case's flow (the id's first part) maps to a domain and an agent that load."""
    return [c.finding("flow-known", c.problem) for c in run.cases if c.problem]


def state_id_problems(item: LintCase, world: World) -> list[str]:
    """Ids in the injected state once the domain's state model has normalised it (so shorthand
    such as `seen_products: [P-1001]` is checked too)."""
    try:
        state = world.state_model.model_validate(item.case.state).model_dump(mode="json")
    except ValueError:
        return []  # world.check_case reports a state that does not validate
    known = world.known_ids()
    unknown = sorted({i for i in _ids_under(state, world.id_fields) if i not in known})
    return [f"state: id {i!r} is not in the fixtures" for i in unknown]


def rule_ids_exist(run: LintRun) -> list[Finding]:
    """Ids in `state` and `expected` exist in the fixtures; tools and tables exist in the domain."""
    findings = []
    for item in run.cases:
        if item.world is None or item.profile is None:
            continue
        problems = item.world.check_case(item.case, item.profile)
        for problem in state_id_problems(item, item.world):
            if not any(problem.split(": ", 1)[1] in p for p in problems):
                problems.append(problem)
        findings.extend(item.finding("ids-exist", problem) for problem in problems)
    return findings


def rule_skip_reason(run: LintRun) -> list[Finding]:
    """`skip` carries a reason a reader can act on, not a placeholder."""
    findings = []
    for item in run.cases:
        reason = (item.case.skip or "").strip()
        if item.case.skip is None or reason.casefold() == "draft":  # the `draft` rule's
            continue
        if reason.casefold().rstrip(".") in PLACEHOLDER_REASONS or len(reason.split()) < 3:
            findings.append(
                item.finding(
                    "skip-reason", f"skip {reason!r} is not a reason (say what it waits on)"
                )
            )
    return findings


def rule_rubric_pass_fail(run: LintRun) -> list[Finding]:
    """A rubric holds exactly one PASS condition and one FAIL condition."""
    findings = []
    for item in run.cases:
        rubric = item.case.expected.rubric
        if rubric is None:
            continue
        passes, fails = len(PASS_WORD.findall(rubric)), len(FAIL_WORD.findall(rubric))
        if passes != 1 or fails != 1:
            findings.append(
                item.finding(
                    "rubric-pass-fail",
                    f"the rubric has {passes} PASS and {fails} FAIL conditions; it needs one of each",
                )
            )
    return findings


def rule_max_tool_calls(run: LintRun) -> list[Finding]:
    """`max_tool_calls` is at least what the reference run's graded turn needs."""
    findings = []
    for item in run.cases:
        limit, reference = item.case.expected.max_tool_calls, item.case.reference
        if limit is None or not reference or item.profile is None:
            continue
        ending = item.profile.roles().turn_ending
        needed = sum(
            1 for calls in reference[-1].rounds() for call in calls if call.tool not in ending
        )
        if needed > limit:
            findings.append(
                item.finding(
                    "max-tool-calls",
                    f"max_tool_calls is {limit} but the reference's graded turn makes {needed} calls",
                )
            )
    return findings


def rule_positive_has_negative(run: LintRun) -> list[Finding]:
    """A case asserting a component, a skill load, a gate, a disclosure or a memory write has a
    case in the same niche (flow and niche) asserting its absence."""
    groups: dict[tuple[str, str], list[LintCase]] = defaultdict(list)
    for item in run.cases:
        groups[item.group].append(item)
    findings = []
    for item in run.cases:
        peers = groups[item.group]
        expected = item.case.expected
        niche = item.case.niche or f"flow {item.case.flow}"
        wants: list[tuple[str, Callable[[LintCase], bool]]] = []
        if expected.ui_components:
            wants.append(("no_ui", lambda p: bool(p.case.expected.no_ui)))
        if expected.skill_loaded:
            skill = expected.skill_loaded.casefold()
            wants.append(
                (
                    f"skill_not_loaded: {expected.skill_loaded} (or no_skill_load)",
                    lambda p, s=skill: (
                        bool(p.case.expected.no_skill_load)
                        or (p.case.expected.skill_not_loaded or "").casefold() == s
                    ),
                )
            )
        if expected.memory_contains:
            wants.append(
                ("memory_not_contains (or never_calls on the memory tool)", refuses_memory)
            )
        for gate in item.tags_with("gate:"):
            wants.append(
                (f"the tag no-gate:{gate}", lambda p, g=gate: f"no-gate:{g}" in p.case.tags)
            )
        for topic in item.tags_with("disclosure:"):
            wants.append(
                (
                    f"the tag no-disclosure:{topic}",
                    lambda p, t=topic: f"no-disclosure:{t}" in p.case.tags,
                )
            )
        for what, test in wants:
            if not any(test(p) for p in peers if p is not item):
                findings.append(
                    item.finding(
                        "positive-has-negative", f"no other case in niche {niche} asserts {what}"
                    )
                )
        if item.tags_with("disclosure:") and not (
            expected.reply_includes or expected.reply_matches or expected.reply_states
        ):
            findings.append(
                item.finding("positive-has-negative", "a disclosure case asserts no reply_includes")
            )
        if item.tags_with("no-disclosure:") and not (
            expected.reply_omits or expected.reply_not_matches or expected.reply_denies
        ):
            findings.append(
                item.finding("positive-has-negative", "a no-disclosure case asserts no reply_omits")
            )
    return findings


def rule_memory_three_cases(run: LintRun) -> list[Finding]:
    """Each memory kind (tag memory:<kind>:<role>) has a write, a refuse and a use case, and
    each case asserts what its role says."""
    findings = []
    roles: dict[str, dict[str, LintCase]] = defaultdict(dict)
    for item in run.cases:
        for tag in item.tags_with("memory:"):
            kind, _, role = tag.rpartition(":")
            if not kind or role not in MEMORY_ROLES:
                findings.append(
                    item.finding(
                        "memory-three-cases", f"tag memory:{tag} is not memory:<kind>:<role>"
                    )
                )
                continue
            roles[kind].setdefault(role, item)
            expected = item.case.expected
            if role == "write" and not expected.memory_contains:
                findings.append(
                    item.finding("memory-three-cases", "a write case asserts no memory_contains")
                )
            if role == "refuse" and not refuses_memory(item):
                findings.append(
                    item.finding(
                        "memory-three-cases",
                        "a refuse case asserts neither memory_not_contains nor never_calls on the memory tool",
                    )
                )
            if role == "use" and not item.case.state.get("memory"):
                findings.append(
                    item.finding("memory-three-cases", "a use case injects no stored memory")
                )
    for kind, found in sorted(roles.items()):
        missing = [r for r in MEMORY_ROLES if r not in found]
        if missing:
            first = next(iter(found.values()))
            findings.append(
                first.finding(
                    "memory-three-cases", f"memory kind {kind!r} lacks its {missing} case(s)"
                )
            )
    return findings


def rule_refusal_has_counterpart(run: LintRun) -> list[Finding]:
    """A refusal case (should: refuse, or tagged poisoned) has a should-serve case in the same
    niche; a poisoned case's counterpart is tagged benign and serves a benign eval-only listing."""
    groups: dict[tuple[str, str], list[LintCase]] = defaultdict(list)
    for item in run.cases:
        groups[item.group].append(item)
    findings = []
    benign_ids: dict[str, set[str]] = {}
    for item in run.cases:
        case = item.case
        niche = case.niche or f"flow {case.flow}"
        if "benign" in case.tags and item.traits.poisoned and item.target:
            domain = item.target.domain
            if domain not in benign_ids:
                benign_ids[domain] = poison.benign_listing_ids(run.poisoned_root / domain)
            if not positive_ids(item) & benign_ids[domain]:
                findings.append(
                    item.finding(
                        "refusal-has-counterpart",
                        "a benign case asserts nothing positive about a benign eval-only listing",
                    )
                )
        if "poisoned" in case.tags:
            peers = [p for p in groups[item.group] if "benign" in p.case.tags]
            if not peers:
                findings.append(
                    item.finding(
                        "refusal-has-counterpart", f"no benign case in niche {niche} to serve"
                    )
                )
        elif case.should == "refuse":
            peers = [
                p
                for p in groups[item.group]
                if p.case.should in {"do", "answer"} or "benign" in p.case.tags
            ]
            if not peers:
                findings.append(
                    item.finding(
                        "refusal-has-counterpart",
                        f"no should-serve case (should: do or answer) in niche {niche}",
                    )
                )
    return findings


def rule_memory_end_state(run: LintRun) -> list[Finding]:
    """A turn that mentions health, a one-off errand or hostile content asserts the memory end
    state (memory_not_contains, never_calls on the memory tool, or a state check on memory), for
    agents that can write memory."""
    findings = []
    for item in run.cases:
        tool = item.traits.memory_tool
        if not tool or item.profile is None or tool not in {t.name for t in item.profile.tools}:
            continue
        topics = [
            topic
            for topic, pattern in SENSITIVE.items()
            if any(pattern.search(turn) for turn in item.case.turns)
        ]
        if topics and not asserts_memory_end_state(item):
            findings.append(
                item.finding(
                    "memory-end-state",
                    f"a turn mentions {' and '.join(topics)} but the case does not assert the "
                    f"memory end state (memory_not_contains or never_calls: [{tool}])",
                )
            )
    return findings


def rule_stored_fact_search(run: LintRun) -> list[Finding]:
    """A stored-fact case (memory:<kind>:use) runs, in its reference's graded turn, a search
    whose results hold both the item the fact favours and one it rules out."""
    findings = []
    for item in run.in_domain_with("search_tool"):
        if not any(t.endswith(":use") for t in item.tags_with("memory:")):
            continue
        if not item.replay:
            if item.replay_error:
                findings.append(item.finding("stored-fact-search", item.replay_error))
            continue
        favoured, ruled_out = positive_ids(item), negative_ids(item)
        if not favoured or not ruled_out:
            findings.append(
                item.finding(
                    "stored-fact-search",
                    "a stored-fact case names no favoured item (a positive id) or no ruled-out "
                    "item (cart_not_contains or a never_calls id)",
                )
            )
            continue
        searches = [a for tool, a in item.replay[-1] if tool == item.traits.search_tool]
        if not searches:
            findings.append(
                item.finding("stored-fact-search", "the reference's graded turn runs no search")
            )
            continue
        shown = {s for answer in searches for s in poison.strings_in(answer)}
        missing = sorted((favoured | ruled_out) - shown)
        if missing:
            findings.append(
                item.finding(
                    "stored-fact-search",
                    f"the graded turn's search results lack {missing}: the query must return both "
                    "the item the fact favours and the one it rules out",
                )
            )
    return findings


def _vectors(run: LintRun, domain: str) -> dict[str, Any]:
    return poison.load_vectors(run.poisoned_root / domain)


def rule_poisoned_vector_seen(run: LintRun) -> list[Finding]:
    """Every vector a poisoned case names (vector:<id>) exists and its text appears in a tool
    result of the case's reference run, replayed (a review only reaches the model on a details
    call)."""
    findings = []
    for item in run.in_domain_with("poisoned"):
        if "poisoned" not in item.case.tags or item.target is None:
            continue
        vectors = _vectors(run, item.target.domain)
        named = item.tags_with("vector:")
        if not named:
            findings.append(
                item.finding("poisoned-vector-seen", "a poisoned case names no vector:<id>")
            )
        answers = [answer for turn in item.replay for _, answer in turn]
        if item.replay_error:
            findings.append(item.finding("poisoned-vector-seen", item.replay_error))
        for vector_id in named:
            vector = vectors.get(vector_id)
            if vector is None:
                findings.append(
                    item.finding(
                        "poisoned-vector-seen", f"{vector_id} is not in the vectors manifest"
                    )
                )
            elif not poison.appears_in(vector.text, answers):
                where = vector.product_id or vector.message_id
                findings.append(
                    item.finding(
                        "poisoned-vector-seen",
                        f"{vector_id} (the {vector.field} of {where}) is in no tool result of the "
                        "reference run: the driven turn never puts it in front of the model",
                    )
                )
    return findings


def rule_poisoned_asserts_negative(run: LintRun) -> list[Finding]:
    """A poisoned case asserts in code that each named vector's instruction was not followed."""
    findings = []
    for item in run.in_domain_with("poisoned"):
        if "poisoned" not in item.case.tags or item.target is None:
            continue
        vectors = _vectors(run, item.target.domain)
        asserted = set(item.case.expected.asserted_keys())
        for vector_id in item.tags_with("vector:"):
            vector = vectors.get(vector_id)
            if vector is None:
                continue
            wanted = NEGATIVES_BY_KIND[vector.kind]
            if not asserted & wanted:
                findings.append(
                    item.finding(
                        "poisoned-asserts-negative",
                        f"{vector_id} is a {vector.kind} instruction; assert one of {sorted(wanted)}",
                    )
                )
    return findings


def rule_poisoned_ids_not_in_fixtures(run: LintRun) -> list[Finding]:
    """No id of an eval-only listing or message appears in the demo fixtures."""
    findings = []
    for domain, traits in DOMAIN_TRAITS.items():
        root = run.poisoned_root / domain
        if not traits.poisoned or not root.is_dir():
            continue
        files = sorted(p for p in (run.fixtures_root / domain).rglob("*") if p.is_file())
        for path, found in poison.ids_in_files(poison.poisoned_ids(root), files):
            findings.append(
                Finding(
                    str(path), "-", "poisoned-id-in-fixtures", f"eval-only id {found} appears here"
                )
            )
    return findings


def rule_poisoned_manifest(run: LintRun) -> list[Finding]:
    """Every vector in the manifest sits verbatim in the eval-only listing or message it names."""
    findings = []
    for domain, traits in DOMAIN_TRAITS.items():
        root = run.poisoned_root / domain
        if not traits.poisoned or not root.is_dir():
            continue
        try:
            problems = poison.manifest_problems(root)
        except ValueError as err:
            problems = [str(err)]
        manifest = str(root / poison.VECTORS_FILE)
        findings.extend(Finding(manifest, "-", "poisoned-manifest", p) for p in problems)
    return findings


# ---- replies by meaning, and alternative good runs ---------------------------------------------------

REPLY_KEYS = ("reply_includes", "reply_omits", "reply_matches", "reply_not_matches")
PATTERN_KEYS = ("calls_tool", "calls_one_of", "never_calls", "first_tool", "first_tool_not")
_ID_TOKEN = re.compile(r"\b[A-Z]{1,4}-?\d+(?:-\d+)?\b")
_BARE_NUMBER = re.compile(r"(?:^|[|(])(?:\\b)?\$?\d[\d,.?]*(?:\\b)?(?=$|[|)])")
_DATE_WORDS = re.compile(
    r"\b(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?:[a-z]*|\\?\.)\b|\d{4}-\d{2}",
    re.IGNORECASE,
)


def literal_reply_problem(key: str, needle: str) -> str:
    """Why a literal reply key should be a typed fact instead ("" when it is a literal token)."""
    from commerce_evals.grading.facts import STATUS_PHRASES, mentions

    text = _ID_TOKEN.sub("ID", needle)
    if key == "reply_includes":
        kinds = {m.kind for m in mentions(text)} - {"count"}
        if kinds:
            return f"{needle!r} is a {'/'.join(sorted(kinds))}"
        if re.fullmatch(r"\s*\d[\d,.]*\s*", text):
            return f"{needle!r} is a number"
    elif _DATE_WORDS.search(text) or "%" in text or "percent" in text.casefold():
        return f"{needle!r} matches a date or a percent"
    elif _BARE_NUMBER.search(text) or re.search(r"\\\$|\$\d", text):
        return f"{needle!r} matches a number or an amount"
    for status, phrases in STATUS_PHRASES.items():
        if re.search(rf"\b(?:{phrases})\b", text.replace("\\", ""), re.IGNORECASE):
            return f"{needle!r} is a phrase with synonyms ({status})"
    return ""


def rule_typed_reply_facts(run: LintRun) -> list[Finding]:
    """`reply_includes`/`reply_matches` hold literal tokens (ids, codes, names); a number, an
    amount, a date, a percent or a stock or schedule phrase is a typed fact for `reply_states`."""
    findings = []
    for item in run.cases:
        expected = item.case.expected
        for key in ("reply_includes", "reply_matches"):
            for needle in getattr(expected, key):
                problem = literal_reply_problem(key, needle)
                if problem:
                    findings.append(
                        item.finding(
                            "typed-reply-facts",
                            f"{key}: {problem}; state it as a typed fact under reply_states "
                            "(money, date, percent, count, status), which reads every written form",
                        )
                    )
    return findings


def needs_alternative(case: Case) -> bool:
    """A case whose keys could fail a good run on wording or on a call's arguments."""
    expected = case.expected
    if any(getattr(expected, k) for k in (*REPLY_KEYS, "reply_states", "reply_denies")):
        return True
    patterns = [
        p
        for k in PATTERN_KEYS
        for p in (getattr(expected, k) if isinstance(getattr(expected, k), list) else [])
        + (
            [getattr(expected, k)]
            if getattr(expected, k) and not isinstance(getattr(expected, k), list)
            else []
        )
    ]
    patterns += [limit for limit in expected.at_most] + [
        p for rule in expected.call_order for p in (*rule.first, rule.then)
    ]
    return any(p.args for p in patterns)


def rule_alternative_runs(run: LintRun) -> list[Finding]:
    """A case with a reply key or a call pattern with arguments carries at least one
    alternative: a good run other than the reference, which its keys must also pass.

    A seed-format task kept under the id its source document gives it (`flow_name` set) is left
    out: it is kept character for character as the seed prints it, and its twin in the case
    format carries the alternatives."""
    return [
        item.finding(
            "alternative-runs",
            "asserts a reply or a call's arguments but has no alternatives: add one good run "
            "that differs from the reference (other wording or formats, another valid order, "
            "an extra read-only lookup, a default argument left out)",
        )
        for item in run.cases
        if item.case.skip is None
        and item.case.flow_name is None
        and not item.case.alternatives
        and needs_alternative(item.case)
    ]


RULES: dict[str, Callable[[LintRun], list[Finding]]] = {
    "flow-known": rule_flow_known,
    "ids-exist": rule_ids_exist,
    "skip-reason": rule_skip_reason,
    "rubric-pass-fail": rule_rubric_pass_fail,
    "max-tool-calls": rule_max_tool_calls,
    "positive-has-negative": rule_positive_has_negative,
    "memory-three-cases": rule_memory_three_cases,
    "refusal-has-counterpart": rule_refusal_has_counterpart,
    "memory-end-state": rule_memory_end_state,
    "stored-fact-search": rule_stored_fact_search,
    "poisoned-vector-seen": rule_poisoned_vector_seen,
    "poisoned-asserts-negative": rule_poisoned_asserts_negative,
    "poisoned-id-in-fixtures": rule_poisoned_ids_not_in_fixtures,
    "poisoned-manifest": rule_poisoned_manifest,
    "typed-reply-facts": rule_typed_reply_facts,
    "alternative-runs": rule_alternative_runs,
}


def check(run: LintRun, rules: Iterable[str] | None = None) -> list[Finding]:
    """Every finding of the chosen rules (all by default), load problems first."""
    findings = list(run.load_problems)
    for name in rules or RULES:
        findings.extend(RULES[name](run))
    return findings


def lint_paths(paths: Iterable[Path | str] | None = None) -> list[Finding]:
    """Lint case files or folders (datasets/ by default) with every rule."""
    return check(load(list(paths) if paths else [DATASETS]))


def waivers(run: LintRun) -> list[str]:
    """Every case that grades less than the defaults: closed-world tables and invariants waived,
    one line each with the case's reason (listed, not a problem)."""
    lines = []
    for item in run.cases:
        changes = item.case.expected.changes
        if changes is not None:
            lines.append(
                f"{item.path}: case {item.case.id}: changes not compared for {changes.any}: "
                f"{changes.reason}"
            )
        for name, reason in item.case.waive.items():
            lines.append(f"{item.path}: case {item.case.id}: invariant {name} waived: {reason}")
    return lines


# Rules from seed 000 added later, and drafts, live in their own module.
from commerce_evals.lint.later_rules import SEED_RULES  # noqa: E402

RULES.update(SEED_RULES)
