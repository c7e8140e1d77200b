"""Seed 003's two steps a model drafts and a person checks: dimensions proposed by the `drafter`
(step 1: "Have AI propose 3 or 4 dimensions where real requests differ") and the cheapest way to
cheat each grader (step 6: "Ask AI for the cheapest way to cheat each grader and close the gaps it
finds"), offline with the scripted `commerce/drafter`."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from commerce_evals.authoring.cheats import CheatDraft, read_cheats
from commerce_evals.authoring.dimensions import read_dimensions
from commerce_evals.authoring.proposing import ProposalError, proposed_file
from commerce_evals.cases.model import CaseFileError, load_case_sources, parse_case
from commerce_evals.cli.app import app
from commerce_evals.domains.base import DATASETS
from commerce_evals.harness.flow_samples import samples_for
from commerce_evals.lint.runner import check, load

runner = CliRunner()
SEED_TASKS = DATASETS / "support" / "seed_tasks.yaml"


# ---- step 1: dimensions proposed, edited by a person, then drafted ---------------------------


def test_propose_writes_a_dimensions_file_a_person_edits_then_drafts_from(tmp_path: Path) -> None:
    proposal = tmp_path / "support_dimensions.yaml"
    result = runner.invoke(
        app, ["draft", "dimensions", str(proposal), "--propose", "--flow", "support"]
    )
    assert result.exit_code == 0, result.output
    assert f"edit them, then draft: commerce-evals draft dimensions {proposal}" in result.output
    text = proposal.read_text()
    assert text.startswith("# Dimensions proposed by commerce/drafter for the support agent")
    spec = read_dimensions(proposal)
    assert spec.flow == "support" and 3 <= len(spec.dimensions) <= 4
    # read from the agent's tools and policy: the writes are the kinds of request, and the
    # support policy makes policy fit a dimension
    assert {"issue refund", "cancel order"} <= set(spec.names()["request"])
    assert "fit" in spec.names()

    # a person edits it (here: drops a value), then the existing steps run on it
    edited = yaml.safe_load(text)
    edited["dimensions"]["persona"] = ["polite", "angry"]
    proposal.write_text(yaml.safe_dump(edited))
    drafts = tmp_path / "drafts.yaml"
    result = runner.invoke(app, ["draft", "dimensions", str(proposal), "--out", str(drafts)])
    assert result.exit_code == 0, result.output
    cases = [c for _, c in load_case_sources([drafts])]
    assert cases and all(c.skip == "draft" and c.flow == "support" for c in cases)
    assert {t.split(":")[1] for c in cases for t in c.tags if t.startswith("persona:")} == {
        "polite",
        "angry",
    }


def test_a_shop_flow_has_no_policy_dimension(tmp_path: Path) -> None:
    proposal = tmp_path / "discovery.yaml"
    result = runner.invoke(
        app, ["draft", "dimensions", str(proposal), "--propose", "--flow", "discovery"]
    )
    assert result.exit_code == 0, result.output
    assert "fit" not in read_dimensions(proposal).names()


def test_propose_refuses_an_existing_file_and_a_missing_flow(tmp_path: Path) -> None:
    taken = tmp_path / "taken.yaml"
    taken.write_text("flow: support\n")
    result = runner.invoke(
        app, ["draft", "dimensions", str(taken), "--propose", "--flow", "support"]
    )
    assert result.exit_code == 2 and "is never written over a file" in result.output
    assert taken.read_text() == "flow: support\n"
    result = runner.invoke(app, ["draft", "dimensions", str(tmp_path / "n.yaml"), "--propose"])
    assert result.exit_code == 2 and "--flow: name the flow" in result.output
    result = runner.invoke(app, ["draft", "dimensions", str(tmp_path / "none.yaml")])
    assert result.exit_code == 2 and "--out" in result.output


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ("I think the request type matters.", "no JSON object"),
        ('{"dimensions": {"a": ["x", "y"], "b": ["x", "y"]}}', "2 dimensions; ask for 3 or 4"),
        ('{"dimensions": {"a": ["x"], "b": ["x", "y"], "c": ["x", "y"]}}', "at least two values"),
    ],
)
def test_a_proposal_that_is_no_dimensions_file_is_refused(answer: str, why: str) -> None:
    with pytest.raises(ProposalError, match=why):
        proposed_file("support", answer)


# ---- step 6: the cheapest way to cheat each grader --------------------------------------------


@pytest.fixture(scope="module")
def cheats_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("cheats") / "cheats.yaml"
    result = runner.invoke(
        app,
        ["draft", "cheats", str(SEED_TASKS), "--case", "support-002-*", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    return out, result.output


def test_each_cheat_is_replayed_and_marked_covered_or_a_hole(cheats_file: tuple[Path, str]) -> None:
    out, output = cheats_file
    case = "support-002-refund-two-items-one-call"
    assert f"{case}~says-so-without-doing-it: covered (changes, action_claims, state)" in output
    assert f"{case}~does-it-and-says-nothing: HOLE: passes every code key" in output
    [drafted] = [c for _, c in load_case_sources([out])]
    by_name = {cx.name: cx for cx in drafted.counterexamples}
    covered, hole = by_name["says-so-without-doing-it"], by_name["does-it-and-says-nothing"]
    assert covered.skip == hole.skip == "draft"
    assert covered.breaks == ["changes", "action_claims", "state"]
    assert covered.note.startswith("it tells the person the work is done")
    assert hole.breaks == [] and "a hole" in hole.note


def test_drafted_cheats_are_named_by_the_lint_and_never_run(cheats_file: tuple[Path, str]) -> None:
    out, _ = cheats_file
    findings = [f for f in check(load([out])) if f.rule == "draft"]
    assert len(findings) == 2
    assert any("no grader fails it: close the hole" in f.message for f in findings)
    [drafted] = [c for _, c in load_case_sources([out])]
    assert samples_for([drafted], True, {}) == []  # a draft a person has not confirmed


def test_a_counterexample_names_what_it_breaks_unless_it_is_a_draft() -> None:
    entry = yaml.safe_load(SEED_TASKS.read_text())["cases"][1]
    turns = [{"reply": "Done."}] * 2
    cx = {"name": "x", "breaks": [], "turns": turns}
    with pytest.raises(CaseFileError, match="name the keys this bad run fails"):
        parse_case({**entry, "counterexamples": [cx]}, "inline", 0)
    parse_case({**entry, "counterexamples": [{**cx, "skip": "draft"}]}, "inline", 0)


def test_what_a_drafter_answers_is_read_or_named_never_guessed() -> None:
    case = next(c for _, c in load_case_sources([SEED_TASKS]) if c.id.startswith("support-002"))
    drafted = read_cheats(
        case,
        '{"cheats": [{"name": "Bad Name", "why": "x", "turns": [{"reply": "hi"}]},'
        ' {"name": "too-long", "why": "x", "turns": [{}, {}, {}]},'
        ' {"name": "fine", "why": "it skips the yes", "turns": [{"reply": "ok"}]}]}',
    )
    assert [c.name for c in drafted.cheats] == ["fine"]
    assert drafted.problems[0].startswith(f"{case.id}: cheats.0.name:")
    assert "3 turns, more than the case's 2" in drafted.problems[1]
    assert read_cheats(case, "no idea").problems == [
        f"{case.id}: the drafter's answer holds no list of cheats"
    ]
    assert isinstance(drafted.cheats[0], CheatDraft)
