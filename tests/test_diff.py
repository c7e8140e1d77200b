"""`commerce-evals diff`: the right cases in the right buckets, failed keys with reasons, McNemar,
and an exit code that says whether anything regressed. Logs come from tests/run_pattern_logs.py."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.grading.score_metadata import VerdictRecord
from commerce_evals.reports.diffing import CaseChange, bucket_of, diff_runs
from commerce_evals.reports.logs import CaseResult, EpochResult, RunResults, load_run
from tests.run_pattern_logs import A_FAIL, A_FLAKY, B_FAIL, SUBSET, sweep_dir, sweep_log


def ids(changes: list[CaseChange]) -> set[str]:
    return {c.id for c in changes}


def run_of(model: str) -> RunResults:
    return load_run([sweep_dir()], model)


def test_reference_to_flawed_a_buckets() -> None:
    diff = diff_runs(run_of("commerce/reference"), run_of("commerce/flawed-a"))
    assert ids(diff.bucket("newly_failing")) == set(A_FAIL)
    assert ids(diff.bucket("flaky")) == set(A_FLAKY)
    assert ids(diff.bucket("still_passing")) == set(SUBSET) - set(A_FAIL) - set(A_FLAKY)
    assert not diff.bucket("fixed") and not diff.bucket("still_failing")
    assert ids(diff.regressions) == set(A_FAIL) | set(A_FLAKY)
    # pass^k bits: the flaky case no longer passes every epoch, so it is discordant too
    assert (diff.test.b, diff.test.c, diff.test.shared) == (3, 0, len(SUBSET))
    assert diff.test.method == "exact binomial"
    assert diff.test.p_value == pytest.approx(2 / 2**3)


def test_between_two_flawed_models_every_bucket_is_right() -> None:
    diff = diff_runs(run_of("commerce/flawed-b"), run_of("commerce/flawed-a"))
    both = set(A_FAIL) & set(B_FAIL)
    assert ids(diff.bucket("still_failing")) == both
    assert ids(diff.bucket("newly_failing")) == set(A_FAIL) - set(B_FAIL)
    assert ids(diff.bucket("fixed")) == set(B_FAIL) - set(A_FAIL)
    assert ids(diff.bucket("flaky")) == set(A_FLAKY)
    # b: passed -> failed (029 and the flaky 003); c: failed -> passed (001)
    assert (diff.test.b, diff.test.c) == (2, 1)
    assert diff.test.p_value == pytest.approx(1.0)  # 2 * (C(3,0) + C(3,1)) / 8, capped at 1


def test_counts_by_priority_add_up() -> None:
    diff = diff_runs(run_of("commerce/reference"), run_of("commerce/flawed-b"))
    counts = diff.counts_by_priority()
    assert sum(sum(c.values()) for c in counts.values()) == len(SUBSET)
    assert counts["critical"]["newly_failing"] == 2  # 001 and 017 are both critical


def test_cli_between_two_log_files_prints_reasons_and_exits_1() -> None:
    base, new = sweep_log("commerce/reference"), sweep_log("commerce/flawed-b")
    result = CliRunner().invoke(app, ["diff", str(base), str(new)])
    assert result.exit_code == 1, result.output
    out = result.output
    assert "Newly failing (2)" in out
    assert "checkout-001-cart-seen-product" in out
    # the failed keys of a newly failing case, each with the grader's explanation
    assert "never_calls (path): made a forbidden call: place_order" in out
    assert "cart_item_count (outcome):" in out
    assert "McNemar (exact binomial, b + c = 2 < 25)" in out
    assert "within noise" in out
    assert "REGRESSED: 2 cases: " in out


def test_cli_picks_models_out_of_one_sweep_folder_and_exits_0_when_nothing_regressed() -> None:
    folder = str(sweep_dir())
    result = CliRunner().invoke(
        app,
        [
            "diff",
            folder,
            folder,
            "--base-model",
            "commerce/flawed-a",
            "--new-model",
            "commerce/reference",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"Fixed ({len(A_FAIL) + len(A_FLAKY)})" in result.output
    assert "No case regressed." in result.output


def test_cli_refuses_a_folder_of_several_models_without_a_choice() -> None:
    folder = str(sweep_dir())
    result = CliRunner().invoke(app, ["diff", folder, folder])
    assert result.exit_code == 2
    # diff's own flags, not the --model of gate and compare
    assert "pick one with --base-model" in result.output


def case(status_bits: list[bool | None], skipped: bool = False) -> CaseResult:
    return CaseResult(
        "flow-001-x",
        "flow",
        "high",
        "easy",
        (),
        "flow",
        "log",
        [EpochResult(i + 1, bit, skipped=skipped) for i, bit in enumerate(status_bits)],
    )


@pytest.mark.parametrize(
    ("base", "new", "bucket", "regressed"),
    [
        ([True, True], [False, False], "newly_failing", True),
        ([True, True], [True, False], "flaky", True),
        ([False, False], [True, False], "flaky", False),
        ([False, True], [True, True], "fixed", False),
        ([False, True], [False, False], "still_failing", False),
        ([False, False], [False, False], "still_failing", False),
        ([True, True], [True, True], "still_passing", False),
        ([True, True], [None, None], "unscored", False),
    ],
)
def test_bucket_rules(
    base: list[bool | None], new: list[bool | None], bucket: str, regressed: bool
) -> None:
    b, n = case(base), case(new)
    assert bucket_of(b, n) == bucket
    assert CaseChange(b.id, b.priority, bucket_of(b, n), b, n).regressed is regressed
    assert bucket_of(None, n) == "only_new" and bucket_of(b, None) == "only_base"


def epochs_case(*epochs: EpochResult, priority: str = "critical") -> CaseResult:
    return CaseResult("flow-002-y", "flow", priority, "easy", (), "flow", "log", list(epochs))


def verdict(model: str) -> VerdictRecord:
    return VerdictRecord(dimension="rubric", status="fail", model=model, fingerprint=model)


def test_a_passing_case_that_errors_or_needs_review_lost_its_verdict() -> None:
    passing = epochs_case(EpochResult(1, True, passed_code=True))
    errored = epochs_case(EpochResult(1, None, error="provider down"))
    review = epochs_case(EpochResult(1, None, needs_review=True, passed_code=True))
    for new, bucket in ((errored, "errored"), (review, "needs_review")):
        change = CaseChange(new.id, new.priority, bucket_of(passing, new), passing, new)
        assert change.bucket == bucket and change.lost_verdict and not change.regressed
    assert bucket_of(review, passing) == "newly_settled"
    assert bucket_of(review, review) == "unscored"


def test_a_verdict_that_changed_with_the_judge_alone_is_no_regression() -> None:
    judged = (verdict("judge-a"),)
    before = epochs_case(EpochResult(1, True, passed_code=True, verdicts=judged))
    other_judge = epochs_case(
        EpochResult(1, False, passed_code=True, verdicts=(verdict("judge-b"),))
    )
    same_judge = epochs_case(EpochResult(1, False, passed_code=True, verdicts=judged))
    code_broke = epochs_case(
        EpochResult(1, False, passed_code=False, verdicts=(verdict("judge-b"),))
    )
    assert bucket_of(before, other_judge) == "judge_changed"
    assert bucket_of(before, same_judge) == "newly_failing"
    assert bucket_of(before, code_broke) == "newly_failing"
