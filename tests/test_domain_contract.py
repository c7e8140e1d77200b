"""The domain contract holds for every domain: each World declares every part the harness calls,
each offered tool's schema is its handler's signature, and only the domain's own failures reach
the model as a tool's answer (any other exception in a handler is a harness error)."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any, ClassVar, get_type_hints

import pytest
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool, execute_tools
from inspect_ai.tool import ToolCall, ToolParams
from inspect_ai.tool._tool_info import parse_tool_info

from commerce_evals.core.events import Snapshot, ToolResultEvent
from commerce_evals.domains import WORLDS
from commerce_evals.domains.base import (
    Blocked,
    HarnessError,
    NeedsPerson,
    Session,
    ToolFailure,
    World,
)
from commerce_evals.domains.fixtures import FixtureError, read_fixture
from commerce_evals.domains.shop.models import Store
from commerce_evals.domains.tooling import (
    ToolDeclarationError,
    ToolSpec,
    declared_tools,
    tool,
    toolset,
)
from commerce_evals.harness.inspect_tools import inspect_tools, settle
from commerce_evals.harness.sandbox import Sandbox

OFFERED = [
    (domain, agent, spec)
    for domain, world in WORLDS.items()
    for agent, profile in world.agents.items()
    for spec in profile.tools
]


def session_class(world: type[World]) -> type[Session]:
    returned = get_type_hints(world.session)["return"]
    assert inspect.isclass(returned) and issubclass(returned, Session), world.__name__
    return returned


# ---- the World contract ------------------------------------------------------------------------


@pytest.mark.parametrize("domain", sorted(WORLDS))
def test_every_world_declares_every_part(domain: str) -> None:
    world = WORLDS[domain]
    assert not inspect.isabstract(world), sorted(getattr(world, "__abstractmethods__", ()))
    assert world.domain == domain
    for part in World.REQUIRED:
        assert part in {n for cls in world.__mro__[:-1] if cls is not World for n in vars(cls)}, (
            f"{world.__name__} inherits {part} instead of declaring it"
        )
    assert world.agents and all(profile.tools for profile in world.agents.values())
    assert world.invariants.domain == domain and world.invariants.names()
    for role in ("cart", "memory", "staged_changes", "applied_changes"):
        table = world.key_tables.table(role)
        assert table is None or table in world.tables, f"{domain}: {role} -> {table}"
    session_class(world)  # session() is typed with the domain's own Session


def test_a_world_missing_a_part_fails_when_defined() -> None:
    with pytest.raises(TypeError, match=r"leaves out parts of the World contract: \['agents'"):

        class Half(World):  # noqa: F841 - defining it is the test
            domain: ClassVar[str] = "half"


def test_a_world_missing_a_method_cannot_be_built() -> None:
    shop = WORLDS["shop"]
    parts = {name: getattr(shop, name) for name in World.REQUIRED}
    parts["domain"] = "no-session"
    methods = {
        "load": classmethod(lambda cls, fixtures=None, poisoned=True: cls()),
        "known_ids": lambda self: set(),
        "judge_context": lambda self: "",
        "instruction_variables": lambda self: {},
    }
    no_session = type("NoSession", (World,), {**parts, **methods})
    with pytest.raises(TypeError, match="abstract method '?session"):
        no_session()


# ---- a tool is declared once: its schema is its handler's signature ----------------------------


def _json_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a property allows, read the way Inspect writes them (anyOf with null)."""
    if "anyOf" in schema:
        return {t for s in schema["anyOf"] for t in _json_types(s)} - {"null"}
    return {schema["type"]} if "type" in schema else set()


@pytest.mark.parametrize("domain,agent,spec", OFFERED, ids=[f"{a}.{s.name}" for _, a, s in OFFERED])
def test_every_offered_tool_schema_matches_its_handler(
    domain: str, agent: str, spec: ToolSpec
) -> None:
    world = WORLDS[domain]
    assert spec.handler is getattr(session_class(world), spec.handler.__name__), spec.name
    schema = spec.parameters
    signature = list(inspect.signature(spec.handler).parameters.values())[1:]
    assert list(schema["properties"]) == [p.name for p in signature]
    assert schema["required"] == [p.name for p in signature if p.default is p.empty]
    assert schema["additionalProperties"] is False
    # Inspect's own reading of the same function (the way its @tool builds a schema) agrees on
    # every argument's name, whether it is required and its type
    inspect_view = parse_tool_info(spec.handler).parameters
    assert inspect_view.required == ["self", *schema["required"]]
    for name, prop in schema["properties"].items():
        theirs = inspect_view.properties[name].model_dump(exclude_none=True)
        assert _json_types(prop) == _json_types(theirs), (spec.name, name)
        assert prop.get("enum") == theirs.get("enum"), (spec.name, name)
    ToolParams.model_validate(schema)  # Inspect takes it as it is
    brief = world.brief(agent)
    assert (spec.name in brief.writes) == spec.writes
    assert (spec.name in brief.turn_ending) == spec.ends_turn
    assert (spec.name == brief.skill_tool) == (spec.skill_arg is not None)
    assert brief.tables == world.key_tables


@pytest.mark.parametrize("domain", sorted(WORLDS))
def test_every_declared_tool_is_offered_to_some_agent(domain: str) -> None:
    world = WORLDS[domain]
    offered = {spec.handler for profile in world.agents.values() for spec in profile.tools}
    declared = {spec.handler for spec in declared_tools(session_class(world))}
    assert declared == offered


def test_a_handler_that_cannot_be_a_schema_is_refused() -> None:
    with pytest.raises(ToolDeclarationError, match="needs a docstring"):

        @tool()
        def tool_bare(self: Any) -> None: ...

    with pytest.raises(ToolDeclarationError, match="no such arguments"):

        @tool()
        def tool_typo(self: Any, query: str) -> None:
            """Look.

            Args:
                qeury: What to look for.
            """

    with pytest.raises(ToolDeclarationError, match=r"arguments \['query'\] need a description"):

        @tool()
        def tool_mute(self: Any, query: str) -> None:
            """Look."""

    with pytest.raises(ToolDeclarationError, match="tools offered twice"):
        toolset(Probe.tool_ok, Probe.tool_ok)


# ---- only the domain's own failures reach the model ---------------------------------------------


class Probe(Session):
    """A session whose tools end each way a handler can end."""

    def snapshot(self) -> Snapshot:
        return {}

    @tool()
    def tool_ok(self, n: int) -> dict[str, Any]:
        """Answer.

        Args:
            n: A number.
        """
        return {"n": n}

    @tool()
    def tool_gated(self) -> dict[str, Any]:
        """Refused by a gate."""
        raise Blocked("cap", "over the cap")

    @tool()
    def tool_person(self) -> dict[str, Any]:
        """A person decides."""
        raise NeedsPerson("BELOW_FLOOR", "a person decides", {"decisionLink": "https://x/DEC-1"})

    @tool()
    def tool_fails(self) -> dict[str, Any]:
        """Cannot be done."""
        raise ToolFailure("no such order")

    @tool()
    def tool_buggy(self, n: int) -> dict[str, Any]:
        """A domain bug.

        Args:
            n: A number.
        """
        return {"row": {}["missing"]}


PROBE_TOOLS = toolset(
    Probe.tool_ok, Probe.tool_gated, Probe.tool_person, Probe.tool_fails, Probe.tool_buggy
)
SPECS = {spec.name: spec for spec in PROBE_TOOLS}


def test_the_domain_failures_are_answers_the_model_sees() -> None:
    session = Probe()
    assert session.call(SPECS["ok"], {"n": 2}, "c1") == {"status": "ok", "n": 2}
    assert session.call(SPECS["gated"], {}, "c2")["status"] == "blocked"
    assert session.call(SPECS["person"], {}, "c3")["decisionLink"] == "https://x/DEC-1"
    assert session.call(SPECS["fails"], {}, "c4") == {"status": "error", "message": "no such order"}
    statuses = [e.status for e in session.drain_events() if isinstance(e, ToolResultEvent)]
    assert statuses == ["ok", "blocked", "needs_person", "error"]


@pytest.mark.parametrize(
    "spec,args",
    [("buggy", {"n": 1}), ("ok", {"m": 1}), ("ok", {})],
    ids=["key-error-in-handler", "unknown-argument", "missing-argument"],
)
def test_any_other_exception_is_a_harness_error_naming_the_tool(
    spec: str, args: dict[str, Any]
) -> None:
    session = Probe()
    with pytest.raises(HarnessError, match=rf"tool '{spec}' raised (KeyError|TypeError)"):
        session.call(SPECS[spec], args, "c1")
    assert not session.drain_events()  # nothing recorded as the agent's


def _round(*calls: ToolCall) -> tuple[Sandbox, list[ChatMessage]]:
    sandbox = Sandbox(Probe(), PROBE_TOOLS, max_calls_per_turn=10)
    sandbox.begin_turn("probe")
    return sandbox, [ChatMessageAssistant(content="", tool_calls=list(calls))]


def test_through_inspect_arguments_off_the_schema_are_refused_before_the_handler() -> None:
    call = ToolCall(id="c1", function="ok", arguments={"n": "two"})
    sandbox, messages = _round(call)
    answers = asyncio.run(execute_tools(messages, inspect_tools(sandbox))).messages
    [answer] = [m for m in answers if isinstance(m, ChatMessageTool)]
    assert answer.error is not None  # the model is told, as Inspect tells it
    assert not sandbox.turn.events  # the handler never ran
    settle(sandbox, [*messages, *answers])
    [refused] = sandbox.turn.results()
    assert (refused.status, refused.tool, refused.call_id) == ("refused", "ok", "c1")


def test_through_inspect_a_handler_bug_stops_the_sample() -> None:
    call = ToolCall(id="c1", function="buggy", arguments={"n": 1})
    sandbox, messages = _round(call)
    with pytest.raises(Exception) as raised:
        asyncio.run(execute_tools(messages, inspect_tools(sandbox)))
    errors = [raised.value, *getattr(raised.value, "exceptions", [])]
    assert any(isinstance(e, HarnessError) and "tool 'buggy'" in str(e) for e in errors)


def test_the_fixture_reader_names_file_field_and_count(tmp_path: Path) -> None:
    (tmp_path / "store.yaml").write_text("store_name: x\nsurprise: 1\n", encoding="utf-8")
    with pytest.raises(FixtureError, match=r"store\.yaml: .+ \(\d+ problems?\)"):
        read_fixture(tmp_path, "store", Store)
    with pytest.raises(FixtureError, match=r"catalog\.json: no such fixture file"):
        read_fixture(tmp_path, "catalog", Store)
