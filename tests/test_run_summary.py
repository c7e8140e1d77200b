"""The breakdowns the metric block left (issue 35, decision 1), computed from the scores, and the
end of a run naming the failed cases; both over a log the code wrote before the change.

tests/data/old_logs/checkout-before-verdict.eval was written before scores carried a `verdict`
and while the metric block still had the rows per priority and difficulty and the judge's calls:
`commerce/flawed-demo -M fail=checkout-002-unseen-id-refinds-first`, judged by `commerce/judge`,
on checkout-001 (passes), 002 (fails) and 028 (passes, with a rubric). Its own metric rows are
what the reports must compute from its scores now.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log, read_eval_log_sample_summaries
from inspect_ai.model import get_model
from typer.testing import CliRunner

from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.harness.run_end import SHOWN, CaseTally, summary_lines, tally
from commerce_evals.reports.logs import load_run
from commerce_evals.reports.summary import summarize
from tests.helpers import run_metrics

OLD_LOG = Path(__file__).parent / "data" / "old_logs" / "checkout-before-verdict.eval"
FAILED = "checkout-002-unseen-id-refinds-first"
PASSING = ["checkout-001-cart-seen-product", "checkout-028-order-status-updated-date"]


def old_rows() -> dict[str, float]:
    return run_metrics(read_eval_log(str(OLD_LOG), header_only=True))


def test_the_old_log_holds_the_rows_that_moved() -> None:
    """The test data is what it says: a log of the old metric block, scores without a verdict."""
    rows = old_rows()
    assert {"pri_critical", "dif_easy", "n_calls", "n_cached", "passed_code^k"} <= set(rows)
    log = read_eval_log(str(OLD_LOG))
    assert all("verdict" not in s.scores["commerce_case"].value for s in log.samples or [])


def test_the_summary_computes_the_moved_rows_from_the_scores_of_an_old_log() -> None:
    rows = old_rows()
    summary = summarize(load_run([OLD_LOG]))
    assert summary.verdicts["passed"].value == pytest.approx(rows["passed"])
    assert summary.verdicts["passed_code^k"].value == pytest.approx(rows["passed_code^k"])
    for part in ("outcome", "path", "calls", "rubric"):
        assert summary.parts[part].value == pytest.approx(rows[part]), part
    epochs, cases = summary.by_priority["critical"]
    assert epochs.value == cases.value == pytest.approx(rows["pri_critical"])
    for difficulty in ("easy", "medium"):
        assert summary.by_difficulty[difficulty][0].value == pytest.approx(
            rows[f"dif_{difficulty}"]
        )
    for status, count in summary.judge.statuses.items():
        assert count == rows[f"n_{status}"], status
    assert (summary.judge.calls, summary.judge.cached) == (rows["n_calls"], rows["n_cached"])
    assert summary.ids("fail", "flaky") == [FAILED]


def test_the_summary_command_prints_every_breakdown_and_the_failed_case() -> None:
    result = CliRunner().invoke(app, ["summary", str(OLD_LOG)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "3 cases, 1 epoch (checkout): 2 passed, 1 failed, 0 need review" in out
    for title in ("Verdicts", "Parts", "Per priority", "Per difficulty", "Judge verdicts"):
        assert title in out
    assert "passed_code^k" in out and "66.7% (2 of 3)" in out
    assert f"{FAILED} (critical): " in out and "calls made" in out


def test_the_summary_command_refuses_what_is_not_a_log(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["summary", str(tmp_path)])
    assert result.exit_code == 2 and "no Inspect logs" in result.output


def test_the_end_of_a_run_reads_an_old_log_by_its_numbers() -> None:
    for samples in (
        read_eval_log(str(OLD_LOG)).samples or [],
        read_eval_log_sample_summaries(str(OLD_LOG)),  # what an eval set's hook gets
    ):
        found = tally(samples)
        assert (found.passed, found.failed, found.review) == (PASSING, [FAILED], [])


def test_the_end_of_a_run_names_the_first_ten_failed_cases_and_counts_the_rest() -> None:
    ids = [f"checkout-{i:03d}-x" for i in range(SHOWN + 3)]
    lines = summary_lines("checkout", CaseTally(failed=ids, review=["c-r"]), "logs/run.eval")
    assert lines[0] == f"checkout: {SHOWN + 4} cases: 0 passed, {SHOWN + 3} failed, 1 need review"
    assert lines[1].startswith(f"failed ({SHOWN + 3}): checkout-000-x, ")
    assert lines[1].endswith(f"checkout-{SHOWN - 1:03d}-x and 3 more")
    assert lines[2] == "need review (1): c-r" and lines[3].endswith("summary logs/run.eval")


@pytest.mark.slow  # a real `inspect eval`; the in-process test below runs the same hook
def test_inspect_eval_on_the_command_line_ends_by_naming_the_failed_case(tmp_path: Path) -> None:
    """The hook is registered by the flow's task file itself, as `inspect eval` loads it."""
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "commerce_evals/checkout",
         "--model", "commerce/flawed-cli", "-M", f"fail={FAILED}", "--sample-id", FAILED,
         "--display", "plain", "--log-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "checkout: 1 case: 0 passed, 1 failed, 0 need review" in done.stdout
    assert f"failed (1): {FAILED}" in done.stdout


def test_a_run_ends_by_naming_its_failed_cases_unless_the_display_is_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for display in ("plain", "none"):
        [log] = eval(
            checkout(),
            model=get_model("commerce/flawed-end", fail=FAILED),
            sample_id=[FAILED, PASSING[0]],
            log_dir=str(tmp_path / display),
            display=display,
        )
        assert log.status == "success", log.error
        out = capsys.readouterr().out
        said = "checkout: 2 cases: 1 passed, 1 failed, 0 need review" in out
        assert said == (display == "plain"), out[-2000:]
        if display == "plain":
            assert f"failed (1): {FAILED}" in out
            assert "breakdowns: commerce-evals summary" in out
        values = [s.scores["commerce_case"].value for s in log.samples or []]
        assert sorted(v["verdict"] for v in values) == ["C", "I"]
        assert not any(math.isnan(v["passed"]) for v in values)
