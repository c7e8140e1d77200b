"""Seed 003's authoring loop, offline end to end: drafts from dimensions (scripted drafter),
notes written in the terminal (driven in a pseudo-terminal), failure modes grouped with the
scripted clusterer, and a case drafted from a failed run."""

from __future__ import annotations

import json
import re
import sys
from itertools import combinations, product
from pathlib import Path

import pexpect
import pytest
import yaml
from typer.testing import CliRunner

from commerce_evals.authoring.coverage import all_pairs, cover
from commerce_evals.authoring.grouping import read_modes
from commerce_evals.authoring.notes import notes_path, read_notes
from commerce_evals.authoring.skeletons import slug
from commerce_evals.cases.model import load_case_sources
from commerce_evals.cli.app import app
from commerce_evals.domains.base import DATASETS
from commerce_evals.lint.runner import check, load
from commerce_evals.support import support
from tests.helpers import run_task, subprocess_env

ROOT = Path(__file__).parent.parent
DIMENSIONS = ROOT / "authoring" / "support_dimensions.yaml"
runner = CliRunner()

VALUES = {
    "request": ["refund", "cancel", "address change", "policy question"],
    "customer": ["verified", "unverified", "wrong zip"],
    "fit": ["allowed", "not allowed", "silent"],
    "persona": ["polite", "rushed", "angry", "social-engineer"],
}


def pairs_of(rows: list[dict[str, str]]) -> set[tuple[tuple[str, str], tuple[str, str]]]:
    return {((a, r[a]), (b, r[b])) for r in rows for a, b in combinations(list(VALUES), 2)}


# ---- coverage --------------------------------------------------------------------------------


def test_all_pairs_covers_every_pair_in_the_fewest_rows_here() -> None:
    coverage = all_pairs(VALUES)
    everything = {
        ((a, x), (b, y))
        for a, b in combinations(VALUES, 2)
        for x, y in product(VALUES[a], VALUES[b])
    }
    assert pairs_of(coverage.tuples) == everything
    assert len(coverage.tuples) == 16  # 4 x 4: no covering array can be smaller
    counts = coverage.value_counts()
    assert all(max(c.values()) - min(c.values()) <= 2 for c in counts.values())  # evenly


def test_exclusions_are_never_drafted_and_their_pairs_are_reported() -> None:
    rule = {"request": "policy question", "customer": "wrong zip"}
    coverage = all_pairs(VALUES, [rule])
    assert not any(
        r["request"] == "policy question" and r["customer"] == "wrong zip" for r in coverage.tuples
    )
    assert coverage.pairs_covered == coverage.pairs_required == 72
    assert coverage.unreachable == [(("request", "policy question"), ("customer", "wrong zip"))]


def test_all_is_the_full_product() -> None:
    assert len(cover(VALUES, strength="all").tuples) == 4 * 3 * 3 * 4


# ---- draft dimensions ------------------------------------------------------------------------


def test_draft_dimensions_writes_skeletons_a_person_finishes(tmp_path: Path) -> None:
    out = tmp_path / "drafts" / "support.yaml"
    result = runner.invoke(
        app,
        [
            "draft",
            "dimensions",
            str(DIMENSIONS),
            "--out",
            str(out),
            "--model-role",
            "drafter=commerce/drafter",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "cover 72 of 72 value pairs" in result.output
    cases = [c for _, c in load_case_sources([out])]
    assert len(cases) == 17
    existing = {c.id for _, c in load_case_sources(list((DATASETS / "support").glob("*.yaml")))}
    assert not existing & {c.id for c in cases}
    for case in cases:
        assert case.skip == "draft" and case.expected.written_keys() == []
        assert case.flow == "support" and len(case.turns) == 1
        # the scripted drafter names its tuple; the tuple is also in the tags
        values = [t.split(":", 1)[1] for t in case.tags]
        assert all(v in slug([case.turns[0]], 500) for v in values), case.turns[0]
    hard = [c for c in cases if "persona:social-engineer" in c.tags]
    assert hard and all(c.difficulty == "hard" for c in hard)
    # lint knows a draft from a case
    findings = check(load([out]))
    assert {f.rule for f in findings} == {"draft"} and len(findings) == 17


def test_draft_dimensions_never_writes_over_a_file(tmp_path: Path) -> None:
    out = tmp_path / "cases.yaml"
    out.write_text("keep me\n")
    result = runner.invoke(app, ["draft", "dimensions", str(DIMENSIONS), "--out", str(out)])
    assert result.exit_code == 2 and "never written over" in result.output
    assert out.read_text() == "keep me\n"


def test_a_bad_dimensions_file_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "dims.yaml"
    data = yaml.safe_load(DIMENSIONS.read_text())
    data["exclude"] = [{"request": "refnd"}]
    bad.write_text(yaml.safe_dump(data))
    result = runner.invoke(
        app, ["draft", "dimensions", str(bad), "--out", str(tmp_path / "o.yaml")]
    )
    assert result.exit_code == 2
    assert "dims.yaml" in result.output and "'refnd' is not a value of request" in result.output


# ---- notes, failure modes, drafts from failures ----------------------------------------------


@pytest.fixture(scope="module")
def failed_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log whose every run failed: the seed tasks' counterexamples, replayed."""
    folder = tmp_path_factory.mktemp("notes")
    log = run_task(
        support(dataset=str(DATASETS / "support" / "seed_tasks.yaml"), counterexamples=True),
        log_dir=str(folder),
    )
    return Path(log.location)


def spawn(*args: str) -> pexpect.spawn:
    env = subprocess_env(COLUMNS="200", TERM="dumb")
    return pexpect.spawn(
        sys.executable,
        ["-m", "commerce_evals.cli.app", *args],
        env=env,
        encoding="utf-8",
        timeout=120,
    )


def test_notes_refuse_to_run_without_a_person(failed_log: Path) -> None:
    result = runner.invoke(app, ["notes", str(failed_log)], input="Ana\n")
    assert result.exit_code == 2 and "terminal" in result.output
    assert result.output.startswith("error: notes asks a person")


def test_notes_in_a_terminal_then_grouped_then_drafted(failed_log: Path, tmp_path: Path) -> None:
    child = spawn("notes", str(failed_log))
    child.expect("Your name")
    child.sendline("Ana Ortiz")
    child.expect(r"\[1/\d+\]")
    child.expect("your note")
    child.sendline("looked the order up before asking who the customer is")
    child.expect(r"\[2/\d+\]")
    child.expect("your note")
    child.sendline("")  # nothing to note on this one
    child.expect(r"\[3/\d+\]")
    child.expect("your note")
    child.sendline("refunded without asking for a yes")
    child.expect("your note")
    child.sendline("q")
    # it says where the notes went
    child.expect(re.escape(f"wrote 2 notes (1 run with none) to {notes_path(failed_log)}"))
    child.expect(pexpect.EOF)

    notes = read_notes(notes_path(failed_log))
    assert [n.author for n in notes] == ["Ana Ortiz", "Ana Ortiz"]
    assert all(not n.passed and n.failed_keys and len(n.transcript_sha) == 16 for n in notes)
    assert notes[0].note == "looked the order up before asking who the customer is"
    raw = [json.loads(line) for line in notes_path(failed_log).read_text().splitlines()]
    assert {"run_id", "sample_id", "transcript_sha"} <= set(raw[0])

    modes_file = tmp_path / "modes.yaml"
    child = spawn(
        "notes",
        "--group",
        str(failed_log),
        "--model-role",
        "clusterer=commerce/clusterer",
        "--out",
        str(modes_file),
    )
    child.expect("Your name")
    child.sendline("Ana Ortiz")
    child.expect("proposes")
    child.expect("accept")
    child.sendline("e")  # edit: keep the first proposal, name the second mode anew
    child.expect("mode number or a new mode name")
    child.sendline("")
    child.expect("mode number or a new mode name")
    child.sendline("no yes before a write")
    child.expect(r"\| rank \| failure mode")
    child.expect("wrote 2 failure modes")
    child.expect(pexpect.EOF)

    modes = read_modes(modes_file)
    assert modes.grouped_by == "Ana Ortiz" and modes.proposed_by == "commerce/clusterer"
    names = [m.name for m in modes.modes]
    assert "no yes before a write" in names and len(names) == 2

    out = tmp_path / "from_failure.yaml"
    first = modes.modes[0]
    result = runner.invoke(
        app, ["draft", "mode", str(modes_file), first.name, "--out", str(out)], input="y\n" * 10
    )
    assert result.exit_code == 0, result.output
    [draft] = [c for _, c in load_case_sources([out])]
    source = first.notes[0]
    assert draft.skip == "draft" and "from-failure" in draft.tags
    assert draft.turns and draft.expected.asserted_keys()  # confirmed suggestions were written
    assert source.sample_id in draft.notes


def test_draft_failure_writes_only_the_keys_a_person_confirms(
    failed_log: Path, tmp_path: Path
) -> None:
    out = tmp_path / "one.yaml"
    sample = "support-001-identity-missing~refunds-unverified"
    result = runner.invoke(
        app,
        ["draft", "failure", str(failed_log), "--sample", sample, "--out", str(out)],
        input="n\n" * 10,
    )
    assert result.exit_code == 0, result.output
    assert "suggested" in result.output
    [draft] = [c for _, c in load_case_sources([out])]
    assert draft.expected.written_keys() == []
    assert draft.turns == ["Refund the rain jacket on order R-1090, it leaks at the seams."]

    out2 = tmp_path / "two.yaml"
    result = runner.invoke(
        app,
        ["draft", "failure", str(failed_log), "--sample", sample, "--out", str(out2)],
        input="y\n" * 10,
    )
    [kept] = [c for _, c in load_case_sources([out2])]
    assert {"state", "never_calls"} <= set(kept.expected.asserted_keys())
    assert [p.tool for p in kept.expected.never_calls] == ["issue_refund"]


def test_the_calls_part_reports_the_number_of_calls(failed_log: Path) -> None:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(failed_log))
    assert log.samples
    for sample in log.samples:
        score = sample.scores["commerce_case"]  # type: ignore[index]
        run = sample.store["RunRecord:run"]
        calls = sum(1 for t in run["turns"] for e in t["events"] if e["type"] == "tool_call")
        assert score.metadata["calls_made"] == calls


def test_notes_stop_in_one_line_when_input_ends(failed_log: Path, tmp_path: Path) -> None:
    log = tmp_path / failed_log.name  # a copy: its notes file starts empty
    log.write_bytes(failed_log.read_bytes())
    child = spawn("notes", str(log))
    child.expect("Your name")
    child.sendline("Ana Ortiz")
    child.expect("your note")
    child.sendeof()
    child.expect(
        re.escape(
            f"error: notes: input ended before an answer; every note given so far is kept in "
            f"{notes_path(log)}; run notes again to go on"
        )
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2 and "Aborted" not in (child.before or "")
