"""Real conversations into the loop (seed 003: "If you have real users, start from real transcripts
instead"): `notes` walks a judged `production` log's conversations as it walks a flow's runs, and
`draft failure` turns a conversation the judge failed into a case skeleton."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect
import pytest
from typer.testing import CliRunner

from commerce_evals.authoring.notes import notes_path, read_notes, run_items
from commerce_evals.cases.model import load_case_sources
from commerce_evals.cli.app import app
from commerce_evals.production import EXAMPLE_TRAFFIC
from commerce_evals.reports.logs import log_files
from tests.helpers import subprocess_env
from tests.run_pattern_logs import production_dir

runner = CliRunner()


@pytest.fixture(scope="module")
def production_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example traffic judged by a judge that fails every dimension: every conversation a
    failure to read; copied, so its notes file starts empty."""
    [path] = log_files([production_dir(str(EXAMPLE_TRAFFIC), "commerce/judge-fail")])
    copy = tmp_path_factory.mktemp("production") / Path(str(path)).name
    copy.write_bytes(Path(str(path)).read_bytes())
    return copy


def test_a_production_log_gives_one_run_per_conversation(production_log: Path) -> None:
    items = run_items(production_log)
    assert items and all(i.production and not i.passed for i in items)
    first = items[0]
    assert first.failed_dimensions and first.failed_keys == []
    assert first.case.turns == [turn.user for turn in first.run.turns]
    assert first.case.purpose.startswith(f"Production conversation {first.sample_id} captured")
    assert first.case.flow in {"checkout", "support", "dealer"}


def test_notes_walk_production_conversations(production_log: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "commerce_evals.cli.app", "notes", str(production_log)],
        env=subprocess_env(COLUMNS="200", TERM="dumb"),
        encoding="utf-8",
        timeout=120,
    )
    child.expect("Your name")
    child.sendline("Ana Ortiz")
    child.expect(r"\[1/\d+\]")
    child.expect("case: Production conversation")
    child.expect("your note")
    child.sendline("suggested a shoe over the budget the customer gave")
    child.expect("your note")
    child.sendline("q")
    child.expect(re.escape(f"to {notes_path(production_log)}"))
    child.expect(pexpect.EOF)
    [note] = read_notes(notes_path(production_log))
    assert note.author == "Ana Ortiz" and not note.passed and note.failed_dimensions


def test_draft_failure_turns_a_failed_conversation_into_a_case(
    production_log: Path, tmp_path: Path
) -> None:
    item = next(i for i in run_items(production_log) if i.case.flow == "checkout")
    out = tmp_path / "from_production.yaml"
    args = ["draft", "failure", str(production_log), "--sample", item.sample_id, "--out", str(out)]
    result = runner.invoke(app, [*args, "--flow", "discovery"], input="y\n" * 10)
    assert result.exit_code == 0, result.output
    assert "never_calls" not in result.output  # no known-good run to tell extra calls by
    [draft] = [c for _, c in load_case_sources([out])]
    assert draft.id.startswith("discovery-") and "production" in draft.id
    assert draft.skip == "draft" and {"production", "from-failure"} <= set(draft.tags)
    assert draft.turns == [t.user for t in item.run.turns]
    assert draft.expected.dimensions == item.failed_dimensions
    assert item.sample_id in draft.notes and "captured production conversation" in draft.notes
    wrong = runner.invoke(app, [*args[:-1], str(tmp_path / "x.yaml"), "--flow", "dealer"])
    assert wrong.exit_code == 2 and "the conversation's shop" in wrong.output
