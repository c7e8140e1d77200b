"""Seed loose ends: `no_skill_load` reads every turn (an absence, like `skill_not_loaded`), and
the per-tool call limit's grade says how many calls were made."""

from __future__ import annotations

from commerce_evals.cases.model import Expected
from commerce_evals.domains import WORLDS
from commerce_evals.grading.graders import grade
from tests.helpers import call, make_run, reply

BRIEF = WORLDS["shop"].brief("shopper")  # the shop's skill tool and tables


def failed(expected: dict, run) -> list[str]:  # type: ignore[no-untyped-def]
    return [g.key for g in grade(Expected.model_validate(expected), run, BRIEF) if not g.passed]


def test_no_skill_load_fails_on_a_load_in_an_earlier_turn() -> None:
    run = make_run(("a", [call("load_skill", name="size-guide")]), ("b", [reply("ok")]))
    assert failed({"no_skill_load": True}, run) == ["no_skill_load"]
    clean = make_run(("a", [call("search_products")]), ("b", [reply("ok")]))
    assert failed({"no_skill_load": True}, clean) == []


def test_the_per_tool_limit_reports_the_calls_made() -> None:
    run = make_run(("a", [call("get_order"), call("get_order")]))
    [g] = [
        x
        for x in grade(
            Expected.model_validate({"max_calls_per_tool": {"get_order": 2}}), run, BRIEF
        )
        if x.key == "at_most"
    ]
    assert g.passed and "get_order 2/2" in g.reason


def test_the_regression_set_spans_every_flow_with_its_critical_cases() -> None:
    from commerce_evals.cases.model import load_case_sources
    from commerce_evals.core.flow_table import FLOWS
    from commerce_evals.harness.flow_inputs import dataset_paths
    from commerce_evals.reports.gating import CaseInfo
    from commerce_evals.reports.set_spec import load_sets

    regression = load_sets().get("regression")
    for flow in FLOWS:
        cases = [c for _, c in load_case_sources(dataset_paths(flow, None), flow)]
        chosen = [
            c
            for c in cases
            if regression.select.matches(CaseInfo(c.id, c.flow, c.priority, tuple(c.tags)))
        ]
        assert chosen, f"the regression set runs no {flow} case"
        assert {c.id for c in cases if c.priority == "critical"} <= {c.id for c in chosen}
