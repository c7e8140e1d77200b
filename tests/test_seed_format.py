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


def test_a_case_shape_case_still_needs_priority_and_difficulty() -> None:
    entry = {
        "id": "support-900-example",
        "turns": ["Refund R-1070 please."],
        "expected": {},
        "reference": [{"calls": [], "reply": "Your name and ZIP, please?"}],
    }
    with pytest.raises(CaseFileError) as err:
        parse_case(entry, "inline", 0)
    assert "priority: Field required" in str(err.value)
    assert "difficulty: Field required" in str(err.value)


def test_a_seed_task_without_priority_or_difficulty_takes_defaults_and_says_so() -> None:
    task = seed_task(graders=[])
    del task["priority"], task["difficulty"]
    case = parse_case(task, "inline", 0)
    assert (case.priority, case.difficulty) == ("medium", "medium")
    assert case.defaulted == ["priority", "difficulty"]
    task["priority"] = "critical"
    assert parse_case(task, "inline", 0).defaulted == ["difficulty"]


SEED_003 = Path("/work/shared/seeds/003_4417984c91e0f12f.txt")
VERBATIM = DATASETS / "support" / "seed_003"
# (file, where the task starts in the seed's text, the text that follows it)
PRINTED = (
    ("identity-missing.yaml", "id: identity-missing", "Three things to copy"),
    (
        "refund-two-items-one-call.yaml",
        "id: refund-two-items-one-call",
        "The reference solution is",
    ),
)


def _printed(start: str, end: str) -> str:
    """A task exactly as the seed prints it: its lines, and the newline that ends a file."""
    text = SEED_003.read_text(encoding="utf-8")
    return text[text.index(start) : text.index(end)].rstrip("\n") + "\n"


def test_the_seeds_tasks_load_byte_for_byte_from_the_seed_text(tmp_path: Path) -> None:
    """Each task cut from the seed's text and saved, unchanged, as a file of its own loads."""
    from commerce_evals.cases.model import load_case_sources

    if not SEED_003.exists():
        pytest.skip("the seed documents are not on this machine")
    folder = tmp_path / "support"
    folder.mkdir()
    for name, start, end in PRINTED:
        (folder / name).write_bytes(_printed(start, end).encode("utf-8"))
    cases = {c.id: c for _, c in load_case_sources(sorted(folder.iterdir()))}
    assert set(cases) == {"identity-missing", "refund-two-items-one-call"}
    for case in cases.values():
        assert case.flow == "support"
        assert case.defaulted == ["priority", "difficulty"]


def test_the_shipped_seed_tasks_are_the_seeds_text_byte_for_byte() -> None:
    if not SEED_003.exists():
        pytest.skip("the seed documents are not on this machine")
    for name, start, end in PRINTED:
        assert (VERBATIM / name).read_bytes() == _printed(start, end).encode("utf-8")


def test_the_verbatim_tasks_load_with_the_seeds_meaning() -> None:
    from commerce_evals.cases.model import load_case_sources

    cases = {c.id: c for _, c in load_case_sources(sorted(VERBATIM.iterdir()))}
    assert set(cases) == {"identity-missing", "refund-two-items-one-call"}
    assert {c.flow for c in cases.values()} == {"support"}
    assert all(c.defaulted == ["priority", "difficulty"] for c in cases.values())
    two = cases["refund-two-items-one-call"].expected
    assert two.state is not None and two.state.new_rows == {"refunds": 1}


def test_lint_lists_the_defaulted_cases() -> None:
    from commerce_evals.lint.runner import defaults, load

    lines = defaults(load([VERBATIM]))
    assert len(lines) == 2
    assert all("priority medium and difficulty medium by default" in line for line in lines)


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


def test_the_run_summary_names_the_defaulted_cases(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from commerce_evals.cli.app import app
    from commerce_evals.support import support
    from tests.helpers import run_task

    log = run_task(support(dataset=str(VERBATIM)), log_dir=str(tmp_path))
    assert all(s.metadata["defaulted"] == ["priority", "difficulty"] for s in log.samples or [])
    result = CliRunner().invoke(app, ["summary", log.location])
    assert result.exit_code == 0, result.output
    assert "2 cases took a default priority or difficulty" in result.output
    assert "identity-missing (priority and difficulty)" in result.output
