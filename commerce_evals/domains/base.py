"""What every domain provides: an immutable World and a per-sample Session over it.

A Session dispatches a tool call to its `tool_<name>` method. The method returns data (sent to the
model with status ok), or raises Blocked (a gate said no), NeedsPerson (a person must decide), or
ToolFailure (bad input). Every outcome becomes a tool_result event, and the model sees the same
status in the tool's answer.
"""

from __future__ import annotations

import hashlib
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.model import Case
from commerce_evals.cases.paths import data_dir
from commerce_evals.grading import invariants
from commerce_evals.grading.changes import ChangeRules
from commerce_evals.grading.graders import ToolRoles
from commerce_evals.grading.keys import KEYS, pattern_values
from commerce_evals.harness.chain import own_state
from commerce_evals.harness.events import Event, Snapshot, ToolResultEvent

FIXTURES = data_dir("fixtures")
POISONED = data_dir("poisoned")
DATASETS = data_dir("datasets")


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: specs are module constants
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]
    ends_turn: bool = False
    writes: bool = False


def params(required: list[str] | None = None, **properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON-schema object for a tool's arguments."""
    return {
        "type": "object",
        "properties": properties,
        "required": required or [],
        "additionalProperties": False,
    }


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
        handler: Callable[..., Any] = getattr(self, f"tool_{spec.name}")
        side_events_from = len(self._events)
        try:
            data = handler(**args)
        except Blocked as blocked:
            answer = {"status": "blocked", "reason": blocked.gate, "message": blocked.message}
            self._record(call_id, spec.name, "blocked", blocked.gate, answer, side_events_from)
            return answer
        except NeedsPerson as needs:
            answer = {"status": "NEEDS_PERSON", "code": needs.code, "message": needs.message}
            answer.update(needs.data)
            self._record(call_id, spec.name, "needs_person", needs.code, answer, side_events_from)
            return answer
        except (ToolFailure, TypeError, ValueError) as failure:
            answer = {"status": "error", "message": str(failure)}
            self._record(call_id, spec.name, "error", str(failure), answer, side_events_from)
            return answer
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
        """Text the agent's instructions carry at session start (stored memory, for a shop)."""
        return ""


@dataclass(frozen=True)
class AgentProfile:
    """One agent of a domain: its default instructions and the tools it is given."""

    name: str
    instructions: Path
    tools: tuple[ToolSpec, ...]

    def roles(self) -> ToolRoles:
        return ToolRoles(
            turn_ending=frozenset(t.name for t in self.tools if t.ends_turn),
            writes=frozenset(t.name for t in self.tools if t.writes),
        )


class World(ABC):
    """Fixtures loaded once per task, shared read-only by every sample's Session."""

    domain: ClassVar[str]
    agents: ClassVar[dict[str, AgentProfile]]
    tables: ClassVar[frozenset[str]]
    state_model: ClassVar[type[BaseModel]]

    @abstractmethod
    def session(self, state: dict[str, Any]) -> Session: ...

    @abstractmethod
    def known_ids(self) -> set[str]:
        """Every id a case may name in its state or its expected keys."""

    id_fields: ClassVar[frozenset[str]] = frozenset()
    # which snapshot fields the closed-world outcome blanks out (generated ids, free text)
    change_rules: ClassVar[ChangeRules] = ChangeRules()

    def judge_context(self) -> str:
        """Reference text a judge may need beside the transcript (a support policy, say)."""
        return ""

    def instruction_variables(self) -> dict[str, Any]:
        """Values for $placeholders in the agent's instructions (store name, today, caps, ...)."""
        return {}

    def case_ids(self, state: dict[str, Any]) -> set[str]:
        """Ids a case's injected state adds beside the fixtures' (records the case creates)."""
        return set()

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
        if case.expected.state:
            for table in sorted(case.expected.state.tables() - self.tables):
                problems.append(f"expected.state: table {table!r} is not a {self.domain} table")
        if case.expected.changes:
            for table in sorted(set(case.expected.changes.any) - self.tables - {"*"}):
                problems.append(f"expected.changes.any: {table!r} is not a {self.domain} table")
        rules = invariants.names(self.domain)
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

    def authoring(self) -> Authoring:
        """What the authoring lint asks of this domain (commerce_evals/lint/rules/)."""
        return Authoring()


def _id_values(node: Any, fields: frozenset[str], path: str = "") -> list[tuple[str, str]]:
    """Every (location, id) under a key named in `fields`, walking dicts and lists."""
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            if key in fields:
                values = value if isinstance(value, list) else [value]
                found.extend((where, v) for v in values if isinstance(v, str) and v != "*")
            else:
                found.extend(_id_values(value, fields, where))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.extend(_id_values(item, fields, f"{path}[{index}]"))
    return found


def fingerprint(*parts: Any) -> str:
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
    # what memory must never hold, by topic: a turn that mentions one asserts the memory end state
    not_remembered: Mapping[str, re.Pattern[str]] = field(default_factory=dict)
    # "module:attribute" of the domain's PoisonedFixtures, named as WORLDS names a World (the
    # module that reads the eval-only fixtures imports the world module, so the world cannot)
    poisoned: str | None = None
