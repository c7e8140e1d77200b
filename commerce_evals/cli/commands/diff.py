"""`commerce-evals diff BASE NEW`: what changed between two runs, case by case, and is it noise?

BASE and NEW are each a log file or a folder of logs (a set run, an eval-set sweep). Two models
or two runs of one model alike; from a sweep folder holding several models, pick each side with
--base-model / --new-model. A cancelled, errored or partial log is named; runs that share no case
are refused, and so are runs over different case sets unless --allow-partial (then the missing
cases are listed). What differs besides the model (judge, rubric text, instructions, tools,
fixtures, skills, policy) is printed first; a verdict that changed only with the judge is not a
regression. Exit code 0: nothing regressed; 1: some case regressed or a passing case lost its
verdict (needs review, or errored); 2: error, or runs that cannot be diffed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cli.commands._output import EXIT_FAILED, console, die, plural
from commerce_evals.reports.report import Column, Report, Table, Text, table
from commerce_evals.reports.terminal import print_report

if TYPE_CHECKING:  # Inspect is imported only when the command runs
    from commerce_evals.reports.diffing import Bucket, CaseChange, Diff
    from commerce_evals.reports.logs import RunResults

TITLES = {
    "newly_failing": "Newly failing",
    "flaky": "Flaky (epochs disagree in the new run)",
    "still_failing": "Still failing",
    "fixed": "Fixed",
    "still_passing": "Still passing",
    "needs_review": "Needs review in NEW (the judge did not settle it: not a pass)",
    "errored": "Errored in NEW (sample errors: no verdict)",
    "judge_changed": "Verdict changed with the judge or rubric text (not a regression)",
    "newly_settled": "Settled in NEW (no verdict in BASE)",
    "unscored": "Unscored (skipped, or no verdict in either run)",
    "only_base": "Only in BASE (missing from NEW)",
    "only_new": "Only in NEW (missing from BASE)",
}
SHORT = {
    "newly_failing": "newly failing",
    "flaky": "flaky",
    "still_failing": "still failing",
    "fixed": "fixed",
    "still_passing": "passing",
    "needs_review": "needs review",
    "errored": "errored",
    "judge_changed": "judge changed",
    "newly_settled": "settled",
    "unscored": "unscored",
    "only_base": "only base",
    "only_new": "only new",
}


def describe_run(label: str, run: RunResults, paths: str) -> str:
    tasks = ", ".join(sorted({log.task for log in run.logs}))
    partial = "  PARTIAL" if run.partial else ""
    code_only = "  CODE-ONLY (judge=off)" if run.judge_off else ""
    return (
        f"{label}  {run.model}  ({plural(len(run.cases), 'case')}, "
        f"{plural(run.epochs, 'epoch')}; {tasks})  "
        f"{paths}{partial}{code_only}"
    )


def context_lines(base: RunResults, new: RunResults) -> list[Text]:
    """Partial logs and everything besides the model that differs between the runs."""
    from commerce_evals.reports.fingerprints import differences

    lines = [
        Text(f"{label} is partial: {note}", "warning")
        for label, run in (("BASE", base), ("NEW", new))
        for note in run.partial_notes()
    ]
    return lines + [Text(f"differs: {line}", "warning") for line in differences(base, new)]


def priority_table(diff: Diff) -> Table:
    from commerce_evals.reports.diffing import BUCKETS

    shown = [b for b in BUCKETS if diff.bucket(b)]
    return table(
        ["priority", *(Column(SHORT[bucket], right=True) for bucket in shown)],
        [
            [priority, *(str(counts.get(b, 0)) for b in shown)]
            for priority, counts in diff.counts_by_priority().items()
        ],
        "Cases by priority",
    )


def failure_lines(change: CaseChange, limit: int) -> list[Text]:
    new = change.new
    if new is None:
        return []
    failures = new.failures()
    lines = [
        Text(f"      {failure.key} ({failure.part}): {' '.join(failure.reason.split())}")
        for failure in failures[:limit]
    ]
    if len(failures) > limit:
        lines.append(Text(f"      ... {len(failures) - limit} more"))
    errors = [e.error for e in new.epochs if e.error]
    if errors:
        lines.append(Text(f"      sample error: {errors[0]}"))
    return lines


def bucket_lines(diff: Diff, bucket: Bucket, details: bool, limit: int) -> list[Text]:
    from commerce_evals.reports.formatting import epochs_text

    changes = diff.bucket(bucket)
    if not changes:
        return []
    lines = [Text(f"\n{TITLES[bucket]} ({len(changes)})", "strong")]
    for change in changes:
        case = change.new or change.base
        assert case is not None
        flag = "  REGRESSED" if change.regressed and bucket == "flaky" else ""
        flag += "  LOST VERDICT" if change.lost_verdict else ""
        keys = ", ".join(change.new.failed_keys()) if change.new else ""
        lines.append(
            Text(
                f"  {change.priority:<8} {change.id}  [{case.flow}]  "
                f"base {epochs_text(change.base)} -> new {epochs_text(change.new)}"
                f"{'  failed: ' + keys if keys and not details else ''}{flag}"
            )
        )
        if details:
            lines.extend(failure_lines(change, limit))
    return lines


DETAILED: tuple[Bucket, ...] = ("newly_failing", "flaky", "judge_changed")
LISTED: tuple[Bucket, ...] = (
    "needs_review",
    "errored",
    "still_failing",
    "fixed",
    "newly_settled",
    "unscored",
    "only_base",
    "only_new",
)


def diff_report(diff: Diff, alpha: float, limit: int, show_passing: bool) -> Report:
    from commerce_evals.reports.formatting import rate

    report = Report([priority_table(diff)])
    for bucket in DETAILED:
        report.add(*bucket_lines(diff, bucket, details=True, limit=limit))
    for bucket in LISTED + (("still_passing",) if show_passing else ()):
        report.add(*bucket_lines(diff, bucket, details=False, limit=limit))
    base_rate, new_rate = diff.pass_rates()
    report.add(
        Text(
            f"\npass^k over the {plural(diff.test.shared, 'case')} both runs scored: "
            f"{rate(base_rate)} -> {rate(new_rate)}"
        ),
        Text(diff.test.describe(alpha)),
    )
    regressions, lost = diff.regressions, diff.lost_verdicts
    only_base, only_new = diff.missing()
    if regressions:
        report.add(
            Text(
                f"REGRESSED: {plural(len(regressions), 'case')}: "
                + ", ".join(c.id for c in regressions),
                "alarm",
            )
        )
    if lost:
        report.add(
            Text(
                f"LOST VERDICT: {plural(len(lost), 'passing case')} without a verdict in NEW: "
                + ", ".join(c.id for c in lost),
                "alarm",
            )
        )
    if not regressions and not lost:
        scope = (
            f" among the {plural(len(diff.changes) - len(only_base) - len(only_new), 'case')}"
            " both runs hold"
            f" ({len(only_base)} missing from NEW, {len(only_new)} missing from BASE)"
            if only_base or only_new
            else ""
        )
        report.add(Text(f"No case regressed{scope}.", "success"))
    return report


def diff_command(
    base: Annotated[str, typer.Argument(help="BASE: a log file or folder (path or URL).")],
    new: Annotated[str, typer.Argument(help="NEW: a log file or folder (path or URL).")],
    base_model: Annotated[
        str | None, typer.Option(help="The model to take from BASE when it holds several.")
    ] = None,
    new_model: Annotated[
        str | None, typer.Option(help="The model to take from NEW when it holds several.")
    ] = None,
    alpha: Annotated[float, typer.Option(help="Significance level for McNemar's test.")] = 0.05,
    reasons: Annotated[int, typer.Option(min=0, help="Failed keys shown per case (0: none).")] = 8,
    passing: Annotated[bool, typer.Option(help="Also list cases passing in both.")] = False,
    allow_partial: Annotated[
        bool,
        typer.Option(help="Diff runs over different case sets (the missing cases are listed)."),
    ] = False,
) -> None:
    """Newly failing, fixed, still failing and flaky cases by priority, with McNemar's test."""
    from commerce_evals.reports.diffing import CaseSetMismatch, check_case_sets, diff_runs
    from commerce_evals.reports.logs import LogReadError, load_run, same_location

    if not 0 < alpha < 1:
        die(f"--alpha {alpha:g}: a significance level is between 0 and 1 (0.05 is usual)")

    try:
        base_run = load_run([base], base_model, flag="--base-model")
        new_run = load_run([new], new_model, flag="--new-model")
        # one sweep folder may hold both sides' models; one run diffed with itself says nothing
        if same_location(base, new) and base_run.model == new_run.model:
            kind = "folder" if Path(base).is_dir() else "file"
            die(f"BASE and NEW are the same {kind} ({base}); give the logs of two runs")
        check_case_sets(base_run, new_run, allow_partial)
    except (LogReadError, CaseSetMismatch) as err:
        die(str(err))
    diff = diff_runs(base_run, new_run)
    report = Report(
        [
            Text(describe_run("BASE", base_run, str(base))),
            Text(describe_run("NEW ", new_run, str(new))),
            *context_lines(base_run, new_run),
        ]
    )
    print_report(console(), report.add(*diff_report(diff, alpha, reasons, passing).blocks))
    if diff.regressions or diff.lost_verdicts:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("diff")(diff_command)
