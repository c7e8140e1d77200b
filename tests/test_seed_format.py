"""Seed 003's task format read into the case shape: the mapping of every grader key, the
`<table>_added` extension, several graders of one type adding up, and the seed's own examples."""

from __future__ import annotations

from typing import Any

import pytest

from commerce_evals.cases import CaseFileError, parse_case


def seed_task(**graders: Any) -> dict[str, Any]:
    return {
        "id": "support-900-example",
        "user_turns": ["Refund R-1070 please."],
        "reference_solution": [{"calls": [], "reply": "Your name and ZIP, please?"}],
        "graders": graders["graders"],
    }


def test_every_grader_key_maps_to_a_case_key() -> None:
    case = parse_case(
        seed_task(
            graders=[
                {
                    "type": "state_check",
                    "expect": {
                        "no_writes": True,
                        "unchanged": ["orders"],
                        "refunds": [{"order_id": "R-1070"}],
                        "refunds_count": 3,
                        "tickets_added": 1,
                    },
                },
                {
                    "type": "tool_calls",
                    "forbidden": ["issue_refund"],
                    "required": [{"tool": "get_order", "args": {"order_id": "R-1070"}}],
                    "before": [{"first": ["find_customer"], "then": "get_order", "first_ok": True}],
                    "max_calls": {"get_order": 2},
                    "max_total_calls": 4,
                    "writes_need_confirmation": True,
                },
                {"type": "transcript", "must_include": ["zip"], "must_not_include": ["sorry"]},
            ]
        ),
        "inline",
        0,
    )
    e = case.expected
    assert e.state is not None
    assert e.state.no_writes is True
    assert e.state.unchanged == ["orders"]
    assert e.state.rows == {"refunds": [{"order_id": "R-1070"}]}
    assert e.state.counts == {"refunds": 3}  # the seed's absolute count, kept as is
    assert e.state.new_rows == {"tickets": 1}
    assert [p.tool for p in e.never_calls] == ["issue_refund"]
    assert e.calls_tool[0].args == {"order_id": "R-1070"}
    assert e.before[0].first_ok is True
    assert e.max_calls_per_tool == {"get_order": 2}
    assert e.max_tool_calls == 4
    assert e.writes_need_confirmation is True
    assert e.reply_matches == ["zip"]
    assert e.reply_not_matches == ["sorry"]
    assert case.turns == ["Refund R-1070 please."]
    assert case.reference is not None and case.reference[0].reply == "Your name and ZIP, please?"


def test_graders_of_one_type_add_up() -> None:
    case = parse_case(
        seed_task(
            graders=[
                {"type": "tool_calls", "forbidden": ["issue_refund"], "max_calls": {"a": 1}},
                {"type": "tool_calls", "forbidden": ["cancel_order"], "max_calls": {"b": 2}},
                {"type": "state_check", "expect": {"refunds": [{"order_id": "R-1"}]}},
                {"type": "state_check", "expect": {"refunds": [{"order_id": "R-2"}]}},
                {"type": "transcript", "must_include": ["zip"]},
                {"type": "transcript", "must_include": ["email"]},
            ]
        ),
        "inline",
        0,
    )
    e = case.expected
    assert [p.tool for p in e.never_calls] == ["issue_refund", "cancel_order"]
    assert e.max_calls_per_tool == {"a": 1, "b": 2}
    assert e.state is not None
    assert e.state.rows == {"refunds": [{"order_id": "R-1"}, {"order_id": "R-2"}]}
    assert e.reply_matches == ["zip", "email"]


def test_an_unknown_grader_key_is_an_error() -> None:
    task = seed_task(graders=[{"type": "tool_calls", "forbiden": ["issue_refund"]}])
    with pytest.raises(CaseFileError, match="forbiden"):
        parse_case(task, "inline", 0)


def test_the_seeds_own_id_is_refused_for_its_shape() -> None:
    """Seed 003 names tasks `identity-missing`; ours must be <flow>-<nnn>-<behavior>."""
    task = seed_task(graders=[])
    task["id"] = "identity-missing"
    with pytest.raises(CaseFileError, match="<flow>-<nnn>-<behavior>"):
        parse_case(task, "inline", 0)
