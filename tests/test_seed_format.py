"""Seed 003's task format read into the case shape: the mapping of every grader key, the
`<table>_added` extension, several graders of one type adding up, and the seed's own examples."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from commerce_evals.cases.model import CaseFileError, parse_case
from commerce_evals.domains.base import DATASETS

SEED_FILE = DATASETS / "support" / "seed_tasks.yaml"


def seed_task(**graders: Any) -> dict[str, Any]:
    return {
        "id": "support-900-example",
        "priority": "medium",
        "difficulty": "medium",
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
    # the seed's `_count` counts the rows the run wrote (its fixtures start empty); `_added` too
    assert e.state.counts == {}
    assert e.state.new_rows == {"refunds": 3, "tickets": 1}
    assert [p.tool for p in e.never_calls] == ["issue_refund"]
    assert e.calls_tool[0].args == {"order_id": "R-1070"}
    assert e.call_order[0].first_ok is True  # `before` is read as call_order
    assert [(limit.tool, limit.times) for limit in e.at_most] == [("get_order", 2)]
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
    assert [(limit.tool, limit.times) for limit in e.at_most] == [("a", 1), ("b", 2)]
    assert e.state is not None
    assert e.state.rows == {"refunds": [{"order_id": "R-1"}, {"order_id": "R-2"}]}
    assert e.reply_matches == ["zip", "email"]


def test_an_unknown_grader_key_is_an_error() -> None:
    task = seed_task(graders=[{"type": "tool_calls", "forbiden": ["issue_refund"]}])
    with pytest.raises(CaseFileError, match="forbiden"):
        parse_case(task, "inline", 0)


def test_the_seeds_own_id_is_accepted_with_the_flow_of_its_folder() -> None:
    """Seed 003 names tasks `identity-missing`: accepted as written, the flow from where it sits."""
    task = seed_task(graders=[])
    task["id"] = "identity-missing"
    case = parse_case(task, DATASETS / "support" / "tasks.yaml", 0)
    assert case.id == "identity-missing" and case.flow == "support"
    assert parse_case(task, "elsewhere.yaml", 0, flow="support").flow == "support"


def test_a_seed_id_with_no_flow_to_take_is_refused() -> None:
    task = seed_task(graders=[])
    task["id"] = "identity-missing"
    with pytest.raises(CaseFileError, match="<flow>-<nnn>-<behavior>"):
        parse_case(task, "elsewhere.yaml", 0)


def test_a_case_shape_entry_keeps_the_id_rule() -> None:
    entry = {
        "id": "identity-missing",
        "priority": "high",
        "difficulty": "easy",
        "turns": ["hi"],
        "expected": {},
        "skip": "waits on the fixtures for it",
    }
    with pytest.raises(CaseFileError, match="<flow>-<nnn>-<behavior>"):
        parse_case(entry, DATASETS / "support" / "x.yaml", 0)


def test_priority_and_difficulty_are_required() -> None:
    task = seed_task(graders=[])
    del task["priority"], task["difficulty"]
    with pytest.raises(CaseFileError) as err:
        parse_case(task, "inline", 0)
    assert "priority: Field required" in str(err.value)
    assert "difficulty: Field required" in str(err.value)


VERBATIM = DATASETS / "support" / "seed_003_verbatim.yaml"


def _seed_text(start: str, end: str) -> str:
    seed = Path("/work/shared/seeds/003_4417984c91e0f12f.txt")
    text = seed.read_text(encoding="utf-8")
    return text[text.index(start) : text.index(end)].strip()


def test_the_verbatim_file_holds_the_seeds_tasks_as_printed() -> None:
    """Every line of the seed's two tasks is in the file, in order, only indented."""
    seed = Path("/work/shared/seeds/003_4417984c91e0f12f.txt")
    if not seed.exists():
        pytest.skip("the seed documents are not on this machine")
    ours = [line.strip() for line in VERBATIM.read_text(encoding="utf-8").splitlines()]
    for start, end in (
        ("id: identity-missing", "Three things to copy"),
        ("id: refund-two-items-one-call", "The reference solution is"),
    ):
        lines = [line.strip() for line in _seed_text(start, end).splitlines()]
        first = ours.index("- " + lines[0])
        assert ours[first + 1 : first + len(lines)] == lines[1:]


def test_the_verbatim_tasks_load_with_the_seeds_meaning() -> None:
    from commerce_evals.cases.model import load_case_sources

    cases = {c.id: c for _, c in load_case_sources([VERBATIM])}
    assert set(cases) == {"identity-missing", "refund-two-items-one-call"}
    assert {c.flow for c in cases.values()} == {"support"}
    two = cases["refund-two-items-one-call"].expected
    assert two.state is not None and two.state.new_rows == {"refunds": 1}


def _seed_entries() -> list[dict[str, Any]]:
    return yaml.safe_load(Path(SEED_FILE).read_text(encoding="utf-8"))["cases"]


def test_the_seed_file_holds_the_seeds_two_examples_in_its_format() -> None:
    entries = {e["id"]: e for e in _seed_entries()}
    assert {"support-001-identity-missing", "support-002-refund-two-items-one-call"} <= set(entries)
    for entry in entries.values():
        assert {"user_turns", "reference_solution", "graders"} <= set(entry)
        assert "turns" not in entry and "expected" not in entry


def test_the_seeds_examples_load_with_their_graders() -> None:
    entries = {e["id"]: e for e in _seed_entries()}
    missing = parse_case(entries["support-001-identity-missing"], SEED_FILE, 0)
    assert missing.should == "ask"
    assert missing.expected.state is not None and missing.expected.state.no_writes
    assert [p.tool for p in missing.expected.never_calls] == ["issue_refund"]
    assert missing.expected.call_order[0].then.tool == "get_order"
    assert missing.expected.reply_matches == ["zip|e-?mail"]

    two = parse_case(entries["support-002-refund-two-items-one-call"], SEED_FILE, 1)
    assert two.should == "do"
    assert two.expected.state is not None
    assert two.expected.state.rows["refunds"][0]["item_ids"] == ["I-1", "I-2"]
    assert two.expected.state.new_rows == {"refunds": 1}
    assert [(x.tool, x.times) for x in two.expected.at_most] == [("issue_refund", 1)]
    assert two.expected.writes_need_confirmation is True
    assert len(two.turns) == 2 and two.reference is not None and len(two.reference) == 2
