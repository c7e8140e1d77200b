"""The domain contract: an immutable World, declared here part by part, and a per-sample Session.

Everything the harness calls on a domain is declared on `World`: how it loads (`load`), the
session it opens (`session`), its agents and their tools, its snapshot tables, the fields the
closed-world outcome blanks (`change_rules`), the tables the shop-style keys read (`key_tables`),
its invariants, the judge's context, the instructions' variables and its case checks. A domain
that leaves a part out fails when its class is defined (`World.__init_subclass__`), not at the
first case that needs it.

A Session runs a tool call through the tool's handler (a `@tool` method, see tooling.py). The
handler returns data (sent to the model with status ok), or raises one of the domain's own
failures: Blocked (a gate said no), NeedsPerson (a person must decide) or ToolFailure (the call
cannot be carried out). Only those reach the model as a tool's answer; any other exception is a
bug in the domain or a drift between schema and handler, and stops the sample as a HarnessError
naming the tool, so it is never graded as the agent's behaviour.
"""

from __future__ import annotations

import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.key_values import ToolPattern
from commerce_evals.cases.model import Case
from commerce_evals.cases.scripts import ScriptedTurn
from commerce_evals.cases.state import own_state
from commerce_evals.core.events import Event, Snapshot, ToolResultEvent
from commerce_evals.domains.fixtures import DATASETS, FIXTURES, POISONED
from commerce_evals.domains.tooling import ToolSpec
from commerce_evals.grading.changes import ChangeRules
from commerce_evals.grading.graders import DomainBrief, KeyTables, table_kinds_read
from commerce_evals.grading.invariants import Invariants
from commerce_evals.grading.keys import KEYS, pattern_values

__all__ = [  # the fixture folders are read from here by older importers
    "DATASETS",
    "FIXTURES",
    "POISONED",
    "AgentProfile",
    "Blocked",
    "HarnessError",
    "NeedsPerson",
    "Session",
    "ToolFailure",
    "ToolSpec",
    "World",
    "short_hash",
]


class Blocked(Exception):
    """A gate refused the call. `gate` is the gate's name; it goes in the result's `reason`."""

    def __init__(self, gate: str, message: str):
        super().__init__(message)
        self.gate = gate
        self.message = message


class NeedsPerson(Exception):
    """The answer is a person's to give: a code (such as BELOW_FLOOR) and where to decide."""

    def __init__(self, code: str, message: str, data: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data or {}


class ToolFailure(Exception):
    """The call could not be carried out (an unknown id, a missing field)."""


class HarnessError(RuntimeError):
    """A handler raised something other than the domain's own failures: a bug, not the agent's."""


class Session(ABC):
    """Per-sample mutable state over a World, plus the events the current turn has produced."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self.turn_ended = False
        self.user_messages: list[str] = []
        # per turn, the writes the case declares that turn's user message consents to
        self.confirmed: list[frozenset[str]] = []

    def begin_turn(self, user_message: str, confirms: frozenset[str] = frozenset()) -> None:
        self.user_messages.append(user_message)
        self.confirmed.append(confirms)
        self.turn_ended = False

    def consents_now(self, tool: str) -> bool:
        """Whether the current turn's user message is declared a yes to `tool`."""
        current = self.confirmed[-1] if self.confirmed else frozenset()
        return tool in current or "*" in current

    def emit(self, event: Event) -> None:
        self._events.append(event)

    def drain_events(self) -> list[Event]:
        events, self._events = self._events, []
        return events

    def call(self, spec: ToolSpec, args: dict[str, Any], call_id: str) -> dict[str, Any]:
        """Run one tool call through its gates; record the result; return what the model sees."""
        side_events_from = len(self._events)
        try:
            data = spec.handler(self, **args)
        except Blocked as blocked:
            answer = {"status": "blocked", "reason": blocked.gate, "message": blocked.message}
            self._record(call_id, spec.name, "blocked", blocked.gate, answer, side_events_from)
            return answer
        except NeedsPerson as needs:
            answer = {"status": "NEEDS_PERSON", "code": needs.code, "message": needs.message}
            answer.update(needs.data)
            self._record(call_id, spec.name, "needs_person", needs.code, answer, side_events_from)
            return answer
        except ToolFailure as failure:
            answer = {"status": "error", "message": str(failure)}
            self._record(call_id, spec.name, "error", str(failure), answer, side_events_from)
            return answer
        except Exception as bug:
            raise HarnessError(
                f"tool {spec.name!r} raised {type(bug).__name__}: {bug} (a bug in the "
                f"{type(self).__name__} handler or a schema that does not fit it, not the agent's)"
            ) from bug
        answer = {"status": "ok", **(data or {})}
        self._record(call_id, spec.name, "ok", None, answer, side_events_from)
        if spec.ends_turn:
            self.turn_ended = True
        return answer

    def _record(
        self,
        call_id: str,
        tool: str,
        status: Any,
        reason: str | None,
        answer: dict[str, Any],
        side_events_from: int,
    ) -> None:
        result = ToolResultEvent(
            call_id=call_id, tool=tool, status=status, reason=reason, data=answer
        )
        self._events.insert(side_events_from, result)

    @abstractmethod
    def snapshot(self) -> Snapshot:
        """The state graders read, as named tables of plain rows."""

    def context(self) -> str:
        """Text the agent's instructions carry at session start (stored memory, for a shop).
        Every item of state it names (a product, a customer) is a `labelled()` line."""
        return ""


def labelled(*fields: tuple[str, object]) -> str:
    """One item of injected state as a line of labelled fields:
    `- id: PE-2002 | name: Lotusline Everyday TPE Yoga Mat | shown at: $56.00`. An id never runs
    into a name, so no model can take the name for part of the id (a real small model carted
    "PE-2002 Lotusline Everyday TPE Yoga Mat" from `- PE-2002 Lotusline Everyday TPE Yoga Mat`)."""
    return "- " + " | ".join(f"{label}: {value}" for label, value in fields)


@dataclass(frozen=True)
class AgentProfile:
    """One agent of a domain: its default instructions and the tools it is given."""

    name: str
    instructions: Path
    tools: tuple[ToolSpec, ...]

    def brief(self) -> DomainBrief:
        """What graders are told about this agent's tools (World.brief adds the domain's key tables)."""
        skills = [t for t in self.tools if t.skill_arg is not None]
        return DomainBrief(
            turn_ending=frozenset(t.name for t in self.tools if t.ends_turn),
            writes=frozenset(t.name for t in self.tools if t.writes),
            skill_tool=skills[0].name if skills else None,
            skill_arg=skills[0].skill_arg if skills else None,
            presents={t.name: t.present_arg for t in self.tools if t.present_arg is not None},
        )


# the World attributes that hold a domain's records by id (records_of reads them)
RECORD_TABLES = ("products", "orders", "customers", "vehicles", "offers", "closings", "tasks")


class World(ABC):
    """A domain: fixtures loaded once per task, shared read-only by every sample's Session.

    Every part below is one the harness calls; a subclass must declare each class attribute in
    REQUIRED (checked when the class is defined) and implement each abstract method.
    """

    # the name cases, flows and the scorer know the domain by
    domain: ClassVar[str]
    # each agent of the domain: its instructions and the tools it is offered
    agents: ClassVar[dict[str, AgentProfile]]
    # the snapshot tables a session returns (a case's `state`/`changes` keys may name only these)
    tables: ClassVar[frozenset[str]]
    # the model a case's injected `state` is validated by
    state_model: ClassVar[type[BaseModel]]
    # the keys whose values are fixture ids (checked against known_ids() at load)
    id_fields: ClassVar[frozenset[str]]
    # which snapshot fields the closed-world outcome blanks out (generated ids, free text)
    change_rules: ClassVar[ChangeRules]
    # which tables the seed's cart/memory/staged-change keys read (a domain without them: none)
    key_tables: ClassVar[KeyTables]
    # the rules every case of the domain is graded on
    invariants: ClassVar[Invariants]
    # operation -> the call patterns that perform or prepare it, over every agent's tools
    # (`never_does` forbids an operation on all of them); none: the domain has one route per effect
    operations: ClassVar[Mapping[str, tuple[ToolPattern, ...]]] = {}

    REQUIRED: ClassVar[tuple[str, ...]] = (
        "domain",
        "agents",
        "tables",
        "state_model",
        "id_fields",
        "change_rules",
        "key_tables",
        "invariants",
    )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        missing = [name for name in World.REQUIRED if not hasattr(cls, name)]
        if missing:
            raise TypeError(f"{cls.__name__} leaves out parts of the World contract: {missing}")

    @classmethod
    @abstractmethod
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> Self:
        """The World over `fixtures` (the domain's default folder when None); `poisoned` merges
        the eval-only fixtures in, for a domain that has them."""

    @abstractmethod
    def session(self, state: dict[str, Any]) -> Session:
        """A fresh session over this World with the case's injected state."""

    @abstractmethod
    def known_ids(self) -> set[str]:
        """Every id a case may name in its state or its expected keys."""

    @abstractmethod
    def judge_context(self) -> str:
        """Reference text a judge may need beside the transcript (a support policy, say); ""
        when the domain has none."""

    def shown_records(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """The records the session context shows the agent before its first call (a product on
        screen with the price it was shown at), as rows with their ids: the reply-fact check
        reads them beside the tool results."""
        return []

    def records_of(self, ids: set[str]) -> list[dict[str, Any]]:
        """The fixture rows of the records with these ids (products, orders, vehicles, ...): a
        record the run named is read whole by the reply-fact check, so a reply cannot state a
        product's attribute backwards just because the agent never opened its details."""
        rows: list[dict[str, Any]] = []
        for table in RECORD_TABLES:
            found = getattr(self, table, None)
            if not isinstance(found, Mapping):
                continue
            for record_id in sorted(ids & set(found)):
                row = found[record_id]
                rows.append(
                    row.model_dump(mode="json") if isinstance(row, BaseModel) else dict(row)
                )
        return rows

    @abstractmethod
    def instruction_variables(self) -> dict[str, Any]:
        """Values for $placeholders in the agent's instructions (store name, today, caps, ...)."""

    def case_ids(self, state: dict[str, Any]) -> set[str]:
        """Ids a case's injected state adds beside the fixtures' (records the case creates)."""
        return set()

    @classmethod
    def brief(cls, agent: str) -> DomainBrief:
        """All the graders are told about this domain for one agent: what its tools do and the
        tables the table keys read."""
        offered = {t.name for t in cls.agents[agent].tools}
        operations = {
            name: routes
            for name, all_routes in cls.operations.items()
            if (routes := tuple(r for r in all_routes if r.tool in offered))
        }
        return replace(cls.agents[agent].brief(), tables=cls.key_tables, operations=operations)

    def check_case(self, case: Case, agent: AgentProfile) -> list[str]:
        """Problems with a case against this world: a bad state shape, an id the fixtures lack."""
        problems: list[str] = []
        state = own_state(case.state)  # `after` belongs to the harness (chain.py), not the domain
        try:
            self.state_model.model_validate(state)
        except ValidationError as err:
            for e in err.errors(include_url=False):
                loc = ".".join(str(p) for p in e["loc"])
                problems.append(f"state.{loc}: {e['msg']}")
        known = self.known_ids() | self.case_ids(state)
        for where, value in _id_values(
            {"state": state, "expected": case.expected.model_dump()}, self.id_fields
        ):
            if value not in known:
                problems.append(f"{where}: id {value!r} is not in the fixtures")
        tool_names = {t.name for t in agent.tools}
        patterns = [
            p
            for spec in KEYS
            for p in pattern_values(spec, getattr(case.expected, spec.name, None))
        ]
        for pattern in patterns:
            if pattern.tool not in tool_names:
                problems.append(
                    f"expected: tool {pattern.tool!r} is not a tool of the {agent.name} agent"
                )
        problems.extend(self._script_tool_problems(case, agent))
        known_operations = self.brief(agent.name).operations
        for index, op in enumerate(case.expected.never_does):
            if op.operation not in known_operations:
                listed = ", ".join(sorted(known_operations)) or "none"
                problems.append(
                    f"expected.never_does[{index}]: {op.operation!r} is no operation of "
                    f"{self.domain} the {agent.name} agent can reach (operations: {listed})"
                )
        if case.expected.last_presented and not self.brief(agent.name).presents:
            problems.append(
                f"expected.last_presented: no tool of the {agent.name} agent presents records, "
                "so there is no presentation to grade"
            )
        for kind in sorted(table_kinds_read(case.expected)):
            if self.key_tables.table(kind) is None:
                problems.append(
                    f"expected: {self.domain} has no {kind} table, so the keys that read one "
                    "cannot be graded here"
                )
        if case.expected.state:
            for table in sorted(case.expected.state.tables() - self.tables):
                problems.append(f"expected.state: table {table!r} is not a {self.domain} table")
        if case.expected.changes:
            for table in sorted(set(case.expected.changes.any) - self.tables - {"*"}):
                problems.append(f"expected.changes.any: {table!r} is not a {self.domain} table")
        rules = self.invariants.names()
        for name in sorted(set(case.waive) - rules):
            problems.append(f"waive: {name!r} is no invariant of {self.domain} ({sorted(rules)})")
        keys = {spec.name for spec in KEYS}
        for cx in case.counterexamples:
            for name in cx.breaks:
                if name not in keys and name not in rules:
                    problems.append(
                        f"counterexamples.{cx.name}.breaks: {name!r} is neither a key nor an "
                        f"invariant of {self.domain}"
                    )
                elif name in case.waive:
                    problems.append(f"counterexamples.{cx.name}.breaks: {name!r} is waived")
        return problems

    def _script_tool_problems(self, case: Case, agent: AgentProfile) -> list[str]:
        """A scripted call to a tool the agent is not offered: Inspect would refuse it, so the
        script would pass or fail for a reason its author did not write. (Arguments Inspect
        refuses are allowed: a counterexample may make such a call on purpose.)"""
        offered = {t.name for t in agent.tools}
        elsewhere = {
            t.name: name
            for name, profile in self.agents.items()
            if name != agent.name
            for t in profile.tools
        }
        problems = []
        for where, first, script in _scripts(case):
            for index, turn in enumerate(script):
                for call in (c for step in turn.rounds() for c in step):
                    if call.tool in offered:
                        continue
                    owner = elsewhere.get(call.tool)
                    why = (
                        f"a tool of the {owner} agent, not offered to the {agent.name} agent"
                        if owner
                        else f"no tool of {self.domain} (the {agent.name} agent is offered: "
                        f"{', '.join(sorted(offered))})"
                    )
                    problems.append(f"{where} turn {first + index}: calls {call.tool!r}, {why}")
        return problems

    def authoring(self) -> Authoring:
        """What the authoring lint asks of this domain (commerce_evals/lint/rules/)."""
        return Authoring()


def _scripts(case: Case) -> list[tuple[str, int, list[ScriptedTurn]]]:
    """Each scripted run of a case: where it is written, the conversation turn its first turn
    plays (a script replaces the reference's last turns; with a customer it is the whole run)
    and its turns."""

    def first(turns: list[ScriptedTurn]) -> int:
        return 1 if case.customer is not None else max(1, len(case.turns) - len(turns) + 1)

    found = [("reference", 1, case.reference)] if case.reference else []
    found += [(f"alternatives.{a.name}", first(a.turns), a.turns) for a in case.alternatives]
    found += [(f"counterexamples.{c.name}", first(c.turns), c.turns) for c in case.counterexamples]
    return found


def _id_values(node: Any, fields: frozenset[str], path: str = "") -> list[tuple[str, str]]:
    """Every (location, id) under a key named in `fields`, walking dicts and lists."""
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            if key in fields:
                values = value if isinstance(value, list) else [value]
                # a list of id lists (`last_presented`'s sets) holds ids one level down
                values = [
                    v for item in values for v in (item if isinstance(item, list) else [item])
                ]
                found.extend((where, v) for v in values if isinstance(v, str) and v != "*")
            else:
                found.extend(_id_values(value, fields, where))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(_id_values(item, fields, f"{path}[{index}]"))
    return found


def short_hash(*parts: Any) -> str:
    """A short stable hash of JSON-able parts (instructions, tool descriptions, ...)."""
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


# ---- what the authoring lint asks of a domain (World.authoring) ----


@dataclass(frozen=True)
class PlantedInstruction:
    """An instruction planted in a domain's eval-only fixtures; a poisoned case names it vector:<id>."""

    id: str
    kind: str
    text: str
    where: str  # where it sits, as a reader finds it: "the review of PE-7001"
    negatives: frozenset[str]  # the keys of which a case asserts one to show it was not followed
    # the tools that would carry it out (a never_calls on another tool does not show it was not)
    tools: frozenset[str] = frozenset()
    # the record it sits in as text (its id, its name, the field's text, what a message is about):
    # the ids and words a negative about this instruction names
    context: str = ""


class PoisonedFixtures(Protocol):
    """A domain's eval-only fixtures (poisoned/<domain>/), read from the folder given."""

    manifest: str  # the file, in that folder, that names every planted instruction

    def planted(self, root: Path) -> dict[str, PlantedInstruction]: ...

    def manifest_problems(self, root: Path) -> list[str]: ...

    def eval_only_ids(self, root: Path) -> set[str]: ...

    def benign_ids(self, root: Path) -> set[str]:
        """Eval-only records no planted instruction is about: what a benign case serves."""
        ...


@dataclass(frozen=True)
class Authoring:
    """What the authoring lint asks of a domain beyond its tools and tables; a domain that gives
    nothing gets the generic rules only."""

    memory_tool: str | None = None  # the tool that writes lasting memory
    search_tool: str | None = None  # the search a stored-fact case must run in its graded turn
    # tools whose whole effect a case can inject as state instead, with the state table it lands in
    setup_tools: Mapping[str, str] = field(default_factory=dict)
    # reads whose only lasting effect is that what they return counts as seen, with the state
    # table that injects it instead (a search played as a turn just to make a product seen)
    seen_tools: Mapping[str, str] = field(default_factory=dict)
    # what memory must never hold, by topic: a turn that mentions one asserts the memory end state
    not_remembered: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    # "module:attribute" of the domain's PoisonedFixtures, named as WORLDS names a World (the
    # module that reads the eval-only fixtures imports the world module, so the world cannot)
    poisoned: str | None = None
