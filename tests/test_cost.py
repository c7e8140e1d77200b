"""`commerce-evals cost` measures what a run of a flow costs before a real model is called."""

from __future__ import annotations

from statistics import mean

from typer.testing import CliRunner

from commerce_evals.cases.model import Case
from commerce_evals.cli.app import app
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.worlds import cached_world
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.reports.cost import estimate_tokens, measure


def scripted_calls(case: Case, turn_ending: frozenset[str]) -> int:
    """Model calls the reference makes: a call per round of tools, plus the reply unless the last
    round's turn-ending tool carried it."""
    calls = 0
    for turn in case.script():
        rounds = turn.rounds()
        ends = bool(rounds) and any(c.tool in turn_ending for c in rounds[-1])
        calls += len(rounds) + (0 if ends else 1)
    return calls


def test_calls_per_case_match_the_reference_scripts() -> None:
    spec = FLOWS["merchant"]
    profile = cached_world(spec.domain, None, True).agents[spec.agent]
    cases = [Case.model_validate(s.metadata["case"]) for s in flow_task("merchant").dataset]
    expected = mean(scripted_calls(c, profile.brief().turn_ending) for c in cases if not c.skip)
    [cost] = measure(["merchant"])
    assert cost.cases == len(cases)
    assert cost.agent_calls_per_case == expected
    instructions = profile.instructions.read_text()
    assert cost.fixed_prompt_tokens > estimate_tokens(instructions) / 2
    # every call resends the fixed prompt
    assert cost.agent_input_tokens_per_case >= cost.fixed_prompt_tokens * expected


def test_command_prices_a_run_and_refuses_an_unknown_flow() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["cost", "--flow", "merchant", "--model", "commerce/reference"])
    assert result.exit_code == 0, result.output
    assert "merchant" in result.output and "0.0000 USD" in result.output
    bad = runner.invoke(app, ["cost", "--flow", "merchnat"])
    assert bad.exit_code == 2
    assert "unknown flow 'merchnat'" in bad.output
