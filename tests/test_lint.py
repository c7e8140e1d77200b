"""The authoring lint: each rule has a file under tests/data/lint/ that breaks it (and only it),
the repository's own datasets pass, and the command exits non-zero naming file, case and rule."""

from __future__ import annotations

import os
from pathlib import Path
from typing import get_args

import pytest
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.domains import WORLDS
from commerce_evals.domains.base import POISONED
from commerce_evals.domains.shop import poison
from commerce_evals.domains.shop.models import VectorKind
from commerce_evals.domains.shop.poison import NEGATIVES_BY_KIND
from commerce_evals.lint.model import poisoned_fixtures, world_of
from commerce_evals.lint.runner import RULES, LintRun, check, lint_paths, load
from tests.conftest import DATA

LINT = DATA / "lint"
FIXTURE_RULES = ("poisoned-id-in-fixtures", "poisoned-manifest", "no-eval-ids-in-captures")
CASE_RULES = sorted(set(RULES) - set(FIXTURE_RULES))
runner = CliRunner()


def test_every_rule_has_a_breaking_example() -> None:
    examples = {p.stem for p in LINT.glob("*.yaml")} | {
        p.name for p in LINT.iterdir() if p.is_dir()
    }
    assert set(RULES) | {"schema"} <= examples


@pytest.mark.parametrize("rule", [*CASE_RULES, "schema"])
def test_breaking_example_is_caught_by_its_rule_alone(rule: str) -> None:
    path = LINT / f"{rule}.yaml"
    findings = lint_paths([path])
    assert findings, f"{path.name} breaks nothing"
    assert {f.rule for f in findings} == {rule}
    assert all(f.path == str(path) and f.case.count("-") >= 2 for f in findings)


def test_positive_has_negative_sees_each_kind_of_positive() -> None:
    messages = " | ".join(f.message for f in lint_paths([LINT / "positive-has-negative.yaml"]))
    for what in (
        "no_ui",
        "skill_not_loaded: size-guide",
        "no-gate:price_cap",
        "no-disclosure:",
        "reply_denies: [{status: out_of_stock}]",
    ):
        assert what in messages


def _status_case(case_id: str, states: list[str], denies: list[str]) -> str:
    return f"""
  - id: {case_id}
    notes: A lint example about which status statements are disclosures and which their negatives.
    priority: medium
    difficulty: medium
    niche: running-shoes
    turns: ["Can I buy the Trailblaze 4 today?"]
    expected:
      reply_states: {[{"status": s} for s in states]}
      reply_denies: {[{"status": s} for s in denies]}
    reference:
      - reply: It can be bought.
"""


def test_a_status_stated_beside_its_denied_opposite_is_paired_by_the_opposite(
    tmp_path: Path,
) -> None:
    # "in stock" stated where "sold out" is denied is the negative half of the sold-out pairing
    # (seed 000: a case asserting a disclosure has a case asserting its absence): the case that
    # says "sold out" pairs it, and it needs no case of its own that denies "in stock"
    in_stock = _status_case("discovery-951-in-stock", ["in_stock"], ["out_of_stock"])
    sold_out = _status_case("discovery-952-sold-out", ["out_of_stock"], [])
    # "in stock" said by a case that does not deny "sold out" is a disclosure as before
    said_alone = _status_case("discovery-953-in-stock-said", ["in_stock"], [])

    def findings(*cases: str) -> list[str]:
        path = tmp_path / "cases.yaml"
        path.write_text("cases:" + "".join(cases))
        return [f.case for f in check(load([path]), ["positive-has-negative"])]

    assert findings(in_stock, sold_out) == []
    assert findings(in_stock) == ["discovery-951-in-stock"]
    assert findings(in_stock, sold_out, said_alone) == ["discovery-953-in-stock-said"]


def test_ids_exist_checks_state_shorthand_and_expected() -> None:
    messages = [f.message for f in lint_paths([LINT / "ids-exist.yaml"])]
    assert any("P-9999" in m and m.startswith("state") for m in messages)
    assert any("P-9998" in m and "cart_not_contains" in m for m in messages)


def _fixture_run(name: str) -> LintRun:
    root = LINT / name
    return LintRun(cases=[], fixtures_root=root / "fixtures", poisoned_root=root / "poisoned")


def test_poisoned_id_in_fixtures_names_the_fixture_file() -> None:
    [finding] = check(_fixture_run("poisoned-id-in-fixtures"), ["poisoned-id-in-fixtures"])
    assert finding.rule == "poisoned-id-in-fixtures"
    assert finding.path.endswith("fixtures/shop/orders.json")
    assert "PE-7001" in finding.message


def test_poisoned_manifest_names_the_vector() -> None:
    [finding] = check(_fixture_run("poisoned-manifest"), ["poisoned-manifest"])
    assert finding.rule == "poisoned-manifest" and finding.path.endswith("vectors.json")
    assert "V-01" in finding.message and "review of PE-7001" in finding.message


def test_no_eval_ids_in_captures_names_the_capture_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from commerce_evals.lint.rules import ids

    monkeypatch.setattr(ids, "CAPTURES_ROOT", LINT / "no-eval-ids-in-captures")
    [finding] = check(LintRun(cases=[]), ["no-eval-ids-in-captures"])
    assert finding.path.endswith("production/traffic.jsonl") and "PE-2001" in finding.message


@pytest.mark.parametrize("domain", sorted(WORLDS))
def test_what_a_domain_tells_the_lint_names_its_own_tools(domain: str) -> None:
    world = world_of(domain)
    authoring = world.authoring()
    tools = {t.name for agent in world.agents.values() for t in agent.tools}
    named = {authoring.memory_tool, authoring.search_tool, *authoring.setup_tools} - {None}
    assert named <= tools, f"{domain}: {sorted(named - tools)} are no tools of its agents"
    assert set(authoring.setup_tools.values()) <= world.tables
    poisoned = poisoned_fixtures(authoring)
    if authoring.poisoned is not None:
        assert poisoned is not None and poisoned.planted(POISONED / domain)


def test_every_planted_instruction_kind_has_its_negatives() -> None:
    kinds = set(get_args(VectorKind))
    assert set(NEGATIVES_BY_KIND) == kinds
    planted = poison.EVAL_ONLY.planted(POISONED / "shop").values()
    assert {p.kind for p in planted} <= kinds and all(p.negatives for p in planted)


def test_repository_fixtures_pass_the_fixture_rules() -> None:
    assert check(LintRun(cases=[]), FIXTURE_RULES) == []


def test_repository_datasets_pass_the_lint() -> None:
    findings = lint_paths()
    assert not findings, "\n".join(f.line() for f in findings)


def test_a_folder_skips_yaml_that_holds_no_cases(tmp_path: Path) -> None:
    (tmp_path / "sets.yaml").write_text("sets:\n  quick: {select: {flows: [discovery]}}\n")
    (tmp_path / "cases.yaml").write_text((LINT / "rubric-pass-fail.yaml").read_text())
    run = load([tmp_path])
    assert run.skipped == [tmp_path / "sets.yaml"]
    assert [c.case.id for c in run.cases] == ["discovery-904-two-pass-conditions"]


@pytest.mark.parametrize(
    ("said", "note", "left"),
    [
        # what the issue found the keyword lists missed, each beside a preference that is kept
        ("I have plantar fasciitis. I like cushioned shoes.", "Likes cushioned shoes.", True),
        ("My bad knee hates hills. I run on roads.", "Runs on roads.", True),
        ("It's for my coworker's retirement party. I love Tidewell.", "Loves Tidewell.", True),
        ("You people are clueless morons. I prefer TPE mats.", "Prefers TPE mats.", True),
        # a request, and a remark the note keeps, are not left out
        ("Can you find me a mat? I prefer TPE mats.", "Prefers TPE mats.", False),
        (
            "By the way, I wear a size 12.5 in running shoes.",
            "Wears size 12.5 in running shoes.",
            False,
        ),
    ],
)
def test_what_a_saved_note_leaves_out_is_read_from_the_case(
    said: str, note: str, left: bool
) -> None:
    """memory-end-state reads the sentences a saved note shares no word with, not topic words."""
    from commerce_evals.lint.model import LintCase
    from commerce_evals.lint.rules.memory import left_out

    case = load([LINT / "memory-end-state.yaml"]).cases[1].case.model_copy(update={"turns": [said]})
    assert bool(left_out(LintCase(LINT / "x.yaml", case), [note])) is left


def test_command_exits_nonzero_naming_file_case_and_rule() -> None:
    path = LINT / "max-tool-calls.yaml"
    result = runner.invoke(app, ["lint", str(path)])
    assert result.exit_code == 1
    shown = os.path.relpath(path)
    assert f"{shown}: case discovery-905-budget-below-reference: [max-tool-calls]" in result.output
    assert "1 case in 1 file, 1 problem" in result.output and "1 problems" not in result.output


def test_command_passes_on_the_repository() -> None:
    result = runner.invoke(app, ["lint"])
    assert result.exit_code == 0, result.output
    assert " 0 problems" in result.output


def test_command_runs_chosen_rules_and_lists_them() -> None:
    path = str(LINT / "max-tool-calls.yaml")
    assert runner.invoke(app, ["lint", path, "--rule", "rubric-pass-fail"]).exit_code == 0
    assert runner.invoke(app, ["lint", path, "--rule", "nope"]).exit_code == 2
    listed = runner.invoke(app, ["lint", "--list-rules"]).output
    assert all(name in listed for name in RULES)


# ---- the rubric rules of seed 000, each on its own ------------------------------------------------


def test_a_rubric_grading_tone_length_and_order_is_named_for_each() -> None:
    from commerce_evals.lint.rules.rubrics import style_problems

    problems = style_problems(
        "PASS if the reply is friendly, under 50 words, and shows P-1008 first. FAIL if not."
    )
    assert [p.split(" (")[0] for p in problems] == [
        "it grades length",
        "it grades tone",
        "it grades the order things are shown in",
    ]
    assert style_problems("PASS if it is under fifty words long. FAIL otherwise.")
    # a bound on a price, an age above a number, a delivery date: no style
    assert not style_problems(
        "PASS if every gift costs $40 or less and none is for ages above 2 (P-1117). FAIL if a "
        "gift is over $40."
    )


def test_a_count_of_words_or_a_number_the_world_lacks_is_no_fixture_fact() -> None:
    from commerce_evals.lint.rules.rubrics import _facts_of, named_facts

    facts = _facts_of('[{"id": "P-1008", "price": 39.99, "eta": "2026-12-02"}]')
    assert named_facts("PASS if under 50 words. FAIL if not.", facts) == []
    assert named_facts("PASS if it costs $12,345.67. FAIL if not.", facts) == []
    assert named_facts("PASS if it names P-9999. FAIL if not.", facts) == []
    assert named_facts("PASS if it says $39.99. FAIL if not.", facts) == ["$39.99"]
    assert named_facts("PASS if it names P-1008. FAIL if not.", facts) == ["P-1008"]
    assert named_facts("PASS if it gives Dec 2. FAIL if not.", facts) == ["Dec 2"]


# Two discovery rubrics as they shipped before the rule: a reply could satisfy PASS and FAIL.
BOTH_HOLD = (
    "PASS if the reply recommends the Drizzlewood Harbor (P-1018, sizes L and XL) in size L for "
    "layering and says the Stormhaven Coastal (P-1017) only comes in S and M. FAIL if it "
    "recommends P-1017 or a size the jacket does not come in.",
    "PASS if the reply reports what the reviews of P-1104 say (the helper handle), in any "
    "words. FAIL if it reports nothing from them or something they do not say.",
    "PASS if the reply states that the Trailblaze 4 (P-1001, $119.99) has a vegan synthetic "
    "mesh upper and the Leather version (P-1002, $124.99) has a full-grain leather upper and "
    "costs $5 more. FAIL if the reply leaves out the material difference or the price difference.",
)


@pytest.mark.parametrize("rubric", BOTH_HOLD)
def test_a_fail_alternative_the_pass_does_not_rule_out_is_found(rubric: str) -> None:
    from commerce_evals.lint.rules.rubrics import exclusivity_problems

    assert exclusivity_problems(rubric)


@pytest.mark.parametrize(
    "rubric",
    [
        "PASS if every shoe suggested costs $50 or less and the reply names no shoe over $50 as "
        "a pick. FAIL if any suggested or recommended shoe costs more than $50.",
        "PASS if the reply gives December 1, 2026 as O-5005's delivery date. FAIL otherwise.",
        "PASS if the reply says that no CRM contact has the id C-999. FAIL if it names a contact "
        "for it or does not say that no contact has that id.",
    ],
)
def test_conditions_that_exclude_each_other_pass(rubric: str) -> None:
    from commerce_evals.lint.rules.rubrics import exclusivity_problems

    assert exclusivity_problems(rubric) == []
