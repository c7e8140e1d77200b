"""Seed loose ends: `no_skill_load` reads every turn (an absence, like `skill_not_loaded`), and
the per-tool call limit's grade says how many calls were made."""

from __future__ import annotations

from commerce_evals.cases import Expected
from commerce_evals.graders import ToolRoles, grade
from tests.helpers import call, make_run, reply

ROLES = ToolRoles()


def failed(expected: dict, run) -> list[str]:  # type: ignore[no-untyped-def]
    return [g.key for g in grade(Expected.model_validate(expected), run, ROLES) if not g.passed]


def test_no_skill_load_fails_on_a_load_in_an_earlier_turn() -> None:
    run = make_run(("a", [call("load_skill", name="size-guide")]), ("b", [reply("ok")]))
    assert failed({"no_skill_load": True}, run) == ["no_skill_load"]
    clean = make_run(("a", [call("search_products")]), ("b", [reply("ok")]))
    assert failed({"no_skill_load": True}, clean) == []


def test_the_per_tool_limit_reports_the_calls_made() -> None:
    run = make_run(("a", [call("get_order"), call("get_order")]))
    [g] = grade(Expected.model_validate({"max_calls_per_tool": {"get_order": 2}}), run, ROLES)
    assert g.passed and "{'get_order': 2}" in g.reason
