"""`commerce-evals gate`: each threshold met and missed on either side of its value, the cases
that missed it printed, the exit code fit for CI. Logs come from tests/run_pattern_logs.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.reports.gating import gate
from commerce_evals.reports.logs import CaseResult, EpochResult, RunResults, load_run
from commerce_evals.reports.set_spec import RunSet, load_sets
from tests.run_pattern_logs import EPOCHS, sweep_dir

SETS = f"""
sets:
  regression:
    select: {{flows: [checkout], tags: [regression]}}
    epochs: {EPOCHS}
    thresholds: {{critical_all_epochs: true, min_pass_hat_k: 0.9}}
  pass-hat-just-below:
    select: {{flows: [checkout], tags: [regression]}}
    epochs: {EPOCHS}
    thresholds: {{min_pass_hat_k: 0.85}}
  pass-hat-just-above:
    select: {{flows: [checkout], tags: [regression]}}
    epochs: {EPOCHS}
    thresholds: {{min_pass_hat_k: 0.86}}
  rate-by-priority:
    select: {{flows: [checkout], tags: [regression]}}
    epochs: {EPOCHS}
    thresholds: {{min_pass_rate_by_priority: {{critical: 0.85}}}}
  more-epochs:
    select: {{flows: [checkout], tags: [regression]}}
    epochs: {EPOCHS + 1}
  whole-flow:
    select: {{flows: [checkout]}}
    epochs: {EPOCHS}
"""


@pytest.fixture(scope="module")
def sets_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sets") / "sets.yaml"
    path.write_text(SETS)
    return path


def run_gate(sets_file: Path, set_name: str, model: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        app,
        [
            "gate",
            str(sweep_dir()),
            "--set",
            set_name,
            "--sets-file",
            str(sets_file),
            "--model",
            model,
        ],
    )
    return result.exit_code, result.output


def test_reference_meets_the_regression_thresholds(sets_file: Path) -> None:
    code, out = run_gate(sets_file, "regression", "commerce/reference")
    assert code == 0, out
    assert "GATE PASSED" in out
    # a check named with brackets is printed as written, never read as terminal markup
    assert "needs_review[critical]" in out


def test_a_failing_critical_case_misses_critical_all_epochs_and_pass_hat_k(sets_file: Path) -> None:
    code, out = run_gate(sets_file, "regression", "commerce/flawed-a")
    assert code == 1, out
    assert "GATE FAILED: critical_all_epochs, min_pass_hat_k" in out
    # 017 fails every epoch; the other six regression cases pass: 6 of 7 = 85.7%
    assert (
        "checkout-017-summary-asks-for-yes (critical): passed 0 of 2 epoch(s); failed never_calls"
        in out
    )
    assert "85.7% (6 of 7)" in out
    assert "checkout-003" not in out  # flaky, but not in the regression set


def test_pass_hat_k_threshold_either_side_of_the_run(sets_file: Path) -> None:
    below, out_below = run_gate(sets_file, "pass-hat-just-below", "commerce/flawed-a")
    above, out_above = run_gate(sets_file, "pass-hat-just-above", "commerce/flawed-a")
    assert below == 0, out_below
    assert above == 1, out_above
    assert "min_pass_hat_k: missed by" in out_above


def test_rate_by_priority_counts_epochs(sets_file: Path) -> None:
    # flawed-b fails 001 and 017 (both critical): 10 of 14 critical epochs pass = 71.4%
    code, out = run_gate(sets_file, "rate-by-priority", "commerce/flawed-b")
    assert code == 1
    assert "71.4% (10 of 14)" in out
    code, out = run_gate(sets_file, "rate-by-priority", "commerce/flawed-a")
    assert code == 0, out  # 12 of 14 = 85.7%


def test_too_few_epochs_and_missing_cases_are_misses(sets_file: Path) -> None:
    code, out = run_gate(sets_file, "more-epochs", "commerce/reference")
    assert code == 1 and "GATE FAILED: epochs" in out
    code, out = run_gate(sets_file, "whole-flow", "commerce/reference")
    assert code == 1 and "GATE FAILED: all_cases" in out
    assert "checkout-004-quantity-cap-adds-ten: not in the logs" in out


def test_logs_without_a_recorded_set_need_one_named() -> None:
    result = CliRunner().invoke(app, ["gate", str(sweep_dir()), "--model", "commerce/reference"])
    assert result.exit_code == 2
    assert "--set" in result.output


def synthetic(*cases: tuple[str, str, list[bool | None], bool]) -> RunResults:
    results = {}
    for case_id, priority, bits, skipped in cases:
        epochs = [
            EpochResult(
                i + 1, bit, error=None if bit is not None or skipped else "boom", skipped=skipped
            )
            for i, bit in enumerate(bits)
        ]
        results[case_id] = CaseResult(
            case_id, "checkout", priority, "easy", (), "checkout", "x", epochs
        )
    return RunResults("m", [], results)


def test_an_errored_epoch_is_not_a_pass_and_a_skipped_case_counts_for_nothing() -> None:
    run_set = RunSet.model_validate(
        {
            "epochs": 2,
            "thresholds": {
                "critical_all_epochs": True,
                "min_pass_hat_k": 1.0,
                "require_epochs": False,
                "require_all_cases": False,
            },
        }
    )
    run = synthetic(
        ("checkout-001-a", "critical", [True, None], False),
        ("checkout-002-b", "critical", [None, None], True),
        ("checkout-003-c", "high", [True, True], False),
    )
    report = gate("s", run_set, run)
    checks = {c.name: c for c in report.checks}
    assert not checks["critical_all_epochs"].passed
    assert checks["critical_all_epochs"].actual == "0 of 1"
    assert "1 error(s)" in checks["critical_all_epochs"].misses[0]
    assert checks["min_pass_hat_k"].actual == "50.0% (1 of 2)"


def test_the_shipped_regression_set_asks_more_epochs_than_the_sweep() -> None:
    # the sweep ran 2 epochs; the shipped regression set asks 3, so gating it is a miss
    report = gate(
        "regression", load_sets().get("regression"), load_run([sweep_dir()], "commerce/reference")
    )
    checks = {c.name: c for c in report.checks}
    assert (
        not checks["epochs"].passed and checks["epochs"].actual == f"{EPOCHS} epoch(s) configured"
    )
    assert checks["critical_all_epochs"].passed and checks["min_pass_hat_k"].passed


NO_GRADER_NOTE = (
    "note: 1 case needs review: no grader role was bound, so the judge was never asked; bind one "
    "with --model-role grader=<model> (offline: grader=commerce/judge) or run with -T judge=off "
    "for a code-only run"
)
# a critical case with a judged dimension
JUDGED_CRITICAL = "checkout-028-order-status-updated-date"


@pytest.mark.parametrize("grader", [None, "commerce/judge"])
def test_gate_names_a_grader_that_was_not_bound(tmp_path: Path, grader: str | None) -> None:
    from commerce_evals.checkout import checkout
    from tests.helpers import run_task

    run_task(
        checkout(cases=JUDGED_CRITICAL),
        model_roles={"grader": grader} if grader else {},
        log_dir=str(tmp_path / "logs"),
    )
    sets = tmp_path / "sets.yaml"
    sets.write_text(
        f"sets:\n  one:\n    select: {{flows: [checkout], ids: [{JUDGED_CRITICAL}]}}\n"
        "    epochs: 1\n    thresholds: {critical_all_epochs: true}\n"
    )
    args = ["gate", str(tmp_path / "logs"), "--set", "one", "--sets-file", str(sets)]
    result = CliRunner().invoke(app, args, terminal_width=200)
    if grader:  # the same run with the judge bound passes, and says nothing of a grader
        assert result.exit_code == 0, result.output
        assert "grader" not in result.output
        return
    assert result.exit_code == 1, result.output
    assert NO_GRADER_NOTE in result.output.splitlines()
    assert "1 need review (1 with no grader bound)" in result.output
    assert result.output.splitlines()[-1] == "GATE FAILED: needs_review[critical]"
