"""Totals that never count a missing verdict as a pass, partial runs that are never green, and
fingerprints that are read: the run-pattern commands over runs judged by an Unknown judge, a
failing judge or none, a cancelled run, a run of another flow, and runs whose judge changed."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.reports import charts as chart_renderer
from commerce_evals.reports import compare_report
from commerce_evals.reports.comparison import build_comparison
from commerce_evals.reports.gating import gate
from commerce_evals.reports.logs import RunResults, case_results, load_run, log_info
from commerce_evals.reports.prices import load_prices
from commerce_evals.reports.set_spec import load_sets
from tests.helpers import case_score, run_metrics, samples_by_id
from tests.run_pattern_logs import (
    CANCELLED_KEEPS,
    RUBRIC_CASES,
    SUBSET,
    cancelled_log,
    judged_ids,
    judged_log,
    other_flow_log,
    sweep_dir,
    sweep_log,
)

UNSETTLED = ["commerce/judge-unknown", "commerce-test/judge-error", None]
CRITICAL_RUBRIC = "checkout-028-order-status-updated-date"  # critical; 029 is high


def sets_file(tmp_path: Path, thresholds: str = "{critical_all_epochs: true}") -> Path:
    path = tmp_path / "sets.yaml"
    ids = ", ".join(SUBSET)
    path.write_text(
        f"sets:\n  honest:\n    select: {{flows: [checkout], ids: [{ids}]}}\n    epochs: 1\n"
        f"    thresholds: {thresholds}\n",
        encoding="utf-8",
    )
    return path


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def metric(path: Path, row: str) -> float:
    return run_metrics(read_eval_log(str(path), header_only=True))[row]


# ---- a missing verdict is never a pass ------------------------------------------------------------


@pytest.mark.parametrize("grader", UNSETTLED)
def test_every_rubric_case_needs_review_in_the_log(grader: str | None) -> None:
    path = judged_log(grader)
    unsettled = judged_ids(grader)
    assert metric(path, "needs_review") == len(unsettled)
    assert metric(path, "passed_code") == 1.0
    assert metric(path, "passed") == pytest.approx((len(SUBSET) - len(unsettled)) / len(SUBSET))
    samples = samples_by_id(read_eval_log(str(path)))
    for case_id in unsettled:
        score = case_score(samples[case_id])  # what inspect view shows for the sample
        assert (score.value["passed"], score.value["needs_review"]) == (0.0, 1.0)
        assert score.value["passed_code"] == 1.0 and math.isnan(score.value["rubric"])
        assert "NEEDS REVIEW" in score.explanation
    run = load_run([path])
    assert sorted(run.review_ids()) == unsettled


@pytest.mark.parametrize("grader", UNSETTLED)
def test_the_gate_fails_when_needs_review_exceeds_the_allowance(
    grader: str | None, tmp_path: Path
) -> None:
    code, out = cli(
        "gate", str(judged_log(grader)), "--set", "honest", "--sets-file", str(sets_file(tmp_path))
    )
    assert code == 1, out
    assert "needs_review[critical]" in out and "GATE FAILED: needs_review[critical]" in out
    assert f"{CRITICAL_RUBRIC} (critical)" in out
    assert "checkout-029-order-status-corrects-stale-date (high)" in out  # listed, not limited
    # the reference judge settles them: the same set passes
    code, out = cli(
        "gate",
        str(judged_log("commerce/judge")),
        "--set",
        "honest",
        "--sets-file",
        str(sets_file(tmp_path)),
    )
    assert code == 0, out


def test_a_set_may_allow_cases_to_need_review(tmp_path: Path) -> None:
    allowing = sets_file(tmp_path, "{critical_all_epochs: true, max_needs_review: {critical: 1}}")
    code, out = cli("gate", str(judged_log(None)), "--set", "honest", "--sets-file", str(allowing))
    assert code == 0, out
    assert "need review" in out and CRITICAL_RUBRIC in out
    strict = sets_file(tmp_path, "{min_pass_rate: 1.0, max_needs_review: {critical: 1}}")
    code, out = cli("gate", str(judged_log(None)), "--set", "honest", "--sets-file", str(strict))
    assert code == 1 and "min_pass_rate" in out  # needing review is still not a pass


@pytest.mark.parametrize("grader", UNSETTLED)
def test_diff_lists_passing_cases_that_lost_their_verdict(grader: str | None) -> None:
    code, out = cli("diff", str(sweep_log("commerce/reference")), str(judged_log(grader)))
    unsettled = judged_ids(grader)
    assert code == 1, out
    assert (
        f"Needs review in NEW (the judge did not settle it: not a pass) ({len(unsettled)})" in out
    )
    assert f"LOST VERDICT: {len(unsettled)} passing cases without a verdict" in out
    assert all(case_id in out for case_id in unsettled)
    assert "No case regressed" not in out


@pytest.mark.parametrize("grader", UNSETTLED)
def test_compare_counts_needs_review_apart(grader: str | None, tmp_path: Path) -> None:
    path = judged_log(grader)
    code, out = cli("compare", str(sweep_dir()), str(path), "--all", "--out", str(tmp_path))
    assert code == 0, out
    model = read_eval_log(str(path), header_only=True).eval.model
    unsettled = judged_ids(grader)
    [line] = [x for x in out.splitlines() if x.startswith(f"{model}: {len(unsettled)} need review")]
    assert line.startswith(f"{model}: {len(unsettled)} need review (not passes): ")
    assert sorted(line.split(": ", 2)[2].split(", ")) == unsettled
    assert "REVIEW 1 review" in out
    report = (tmp_path / "compare.md").read_text(encoding="utf-8")
    assert all(case_id in report for case_id in unsettled)


def test_judge_off_is_named_by_every_report(tmp_path: Path) -> None:
    path = judged_log("commerce/judge", judge="off")
    assert metric(path, "needs_review") == 0
    assert metric(path, "passed") == 1.0
    code, out = cli("gate", str(path), "--set", "honest", "--sets-file", str(sets_file(tmp_path)))
    assert code == 0 and "code-only run (judge=off)" in out
    code, out = cli("diff", str(sweep_log("commerce/reference")), str(path))
    assert code == 0 and "CODE-ONLY (judge=off)" in out
    assert "NEW is code-only (judge=off)" in out
    code, out = cli("compare", str(sweep_dir()), str(path), "--out", str(tmp_path / "c"))
    assert code == 0 and "code-only" in out
    assert "code-only" in (tmp_path / "c" / "compare.md").read_text(encoding="utf-8")


# ---- partial and mismatched runs are never green ------------------------------------------------


def test_diff_refuses_a_cancelled_run_in_one_line() -> None:
    result = CliRunner().invoke(
        app, ["diff", str(sweep_log("commerce/reference")), str(cancelled_log())]
    )
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "cover different cases" in lines[0] and "--allow-partial" in lines[0]


def test_diff_with_allow_partial_names_the_run_and_the_missing_cases() -> None:
    code, out = cli(
        "diff", str(sweep_log("commerce/reference")), str(cancelled_log()), "--allow-partial"
    )
    assert code == 1, out  # 001 and 017 regressed among the cases both runs hold
    assert "NEW is partial: checkout: cancelled" in out and "PARTIAL" in out
    missing = len(SUBSET) - len(CANCELLED_KEEPS)
    assert f"Only in BASE (missing from NEW) ({missing})" in out
    assert "REGRESSED: 2 cases: checkout-001-cart-seen-product, checkout-017" in out


def test_diff_refuses_runs_that_share_no_case_even_with_allow_partial() -> None:
    for extra in ([], ["--allow-partial"]):
        code, out = cli("diff", str(sweep_log("commerce/reference")), str(other_flow_log()), *extra)
        assert code == 2 and "share no case" in out


def test_gate_misses_complete_run_for_a_cancelled_log(tmp_path: Path) -> None:
    code, out = cli(
        "gate", str(cancelled_log()), "--set", "honest", "--sets-file", str(sets_file(tmp_path))
    )
    assert code == 1 and "complete_run" in out and "cancelled" in out


def test_compare_marks_partial_and_narrower_runs_in_tables_and_charts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn: list[list[str]] = []
    real = chart_renderer.interval_chart

    def spy(rows, *args, **kwargs):  # type: ignore[no-untyped-def]
        drawn.append([str(m) for m in rows["model"]])
        return real(rows, *args, **kwargs)

    monkeypatch.setattr(chart_renderer, "interval_chart", spy)
    paths = [sweep_dir(), cancelled_log(), other_flow_log()]
    comparison = build_comparison(paths, load_prices(None))
    cancelled = comparison.label("commerce/flawed-cancelled")
    assert "partial: cancelled" in cancelled
    other = comparison.label("commerce/flawed-discovery")
    assert f"{len(_other_ids())} of {len(comparison.case_ids())} cases" in other
    assert comparison.label("commerce/reference").startswith("commerce/reference [")  # narrower too
    charts = compare_report.write_charts(comparison, tmp_path)
    assert charts and any(cancelled in columns for columns in drawn), (drawn, cancelled)
    report = compare_report.markdown(comparison, charts, tmp_path)
    assert "partial: cancelled" in report
    code, out = cli("compare", *map(str, paths), "--out", str(tmp_path / "cli"))
    assert code == 0 and "partial: cancelled" in out


def _other_ids() -> list[str]:
    return list(load_run([other_flow_log()]).cases)


# ---- fingerprints are read -----------------------------------------------------------------------


def test_a_verdict_that_changed_only_with_the_judge_is_not_a_regression() -> None:
    code, out = cli(
        "diff", str(sweep_log("commerce/reference")), str(judged_log("commerce/judge-fail"))
    )
    assert code == 0, out
    assert "differs: the judge differs" in out
    changed = judged_ids("commerce/judge-fail")
    assert (
        f"Verdict changed with the judge or rubric text (not a regression) ({len(changed)})" in out
    )
    assert "No case regressed" in out


def test_diff_names_agent_side_differences(tmp_path: Path) -> None:
    log = read_eval_log(str(sweep_log("commerce/reference")))
    assert log.eval.metadata is not None
    for key in ("instructions_sha", "fixtures_sha", "skills_sha"):
        assert log.eval.metadata[key]
        log.eval.metadata[key] = "0" * 16
    changed = tmp_path / "changed.eval"
    write_eval_log(log, str(changed))
    code, out = cli("diff", str(sweep_log("commerce/reference")), str(changed))
    assert code == 0, out
    assert "differs: checkout: agent instructions, fixtures, skills differ" in out


def test_the_gate_never_pools_two_judges(tmp_path: Path) -> None:
    first, second = sweep_log("commerce/reference"), judged_log("commerce/judge-unknown")
    logs = [(p, read_eval_log(str(p))) for p in (first, second)]
    cases = case_results(*logs[0])
    cases.update({k: v for k, v in case_results(*logs[1]).items() if k in RUBRIC_CASES[:1]})
    run = RunResults("mixed", [log_info(p, log) for p, log in logs], cases)
    run_set = load_sets(sets_file(tmp_path)).get("honest")
    report = gate("honest", run_set, run)
    [check] = [c for c in report.checks if c.name == "one_judge"]
    assert not check.passed and len(check.misses) == 2
    single = gate("honest", run_set, load_run([first]))
    assert not [c for c in single.checks if c.name == "one_judge"]


def test_tasks_record_fixture_skill_and_policy_fingerprints() -> None:
    from commerce_evals.checkout import checkout
    from commerce_evals.support import support

    shop, desk = checkout().metadata or {}, support().metadata or {}
    assert shop["fixtures_sha"] and shop["skills_sha"] and shop["policy_sha"] is None
    assert desk["fixtures_sha"] and desk["policy_sha"] and desk["skills_sha"] is None
    assert shop["fixtures_sha"] != desk["fixtures_sha"]
    poisoned = checkout(poisoned=True).metadata or {}
    assert poisoned["fixtures_sha"] != shop["fixtures_sha"]  # the eval-only listings count
