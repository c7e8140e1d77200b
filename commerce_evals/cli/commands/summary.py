"""`commerce-evals summary LOG...`: one run's full breakdown, computed from its scores.

What a run's metric block leaves out (scoring/metrics.py): pass^k of `passed` and `passed_code`,
each part, the rates per priority and per difficulty, the judge's verdicts over every epoch with
its calls and how many the cache answered, and the cases that failed or need review with their
failed keys. A folder or a sweep of several models gives one summary per model. A cancelled or
partial log is named. Exit code 0: printed (whatever the run's results); 2: the logs could not
be read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cli.commands._output import console, die, plural
from commerce_evals.reports.report import Column, Report, Table, Text, table
from commerce_evals.reports.terminal import print_report

if TYPE_CHECKING:  # Inspect is imported only when the command runs
    from commerce_evals.reports.summary import Rate, RunSummary

SHOWN_KEYS = 3  # failed keys named per case
SHOWN_CASES = 10  # cases named in a line about several


def rate_table(title: str, first: str, rows: dict[str, Rate]) -> Table:
    return table(
        [first, Column("rate", right=True)],
        [[name, rate.describe()] for name, rate in rows.items()],
        title,
    )


def group_table(title: str, first: str, rows: dict[str, tuple[Rate, Rate]]) -> Table:
    return table(
        [first, Column("passed (epochs)", right=True), Column("passed^k (cases)", right=True)],
        [[group, epochs.describe(), cases.describe()] for group, (epochs, cases) in rows.items()],
        title,
    )


def judge_table(summary: RunSummary) -> Table:
    judge = summary.judge
    rows = [[status, str(count)] for status, count in judge.statuses.items()]
    rows += [["calls made", str(judge.calls)], ["of them from the cache", str(judge.cached)]]
    return table(["judge", Column("count", right=True)], rows, "Judge verdicts (every epoch)")


def case_lines(summary: RunSummary) -> list[Text]:
    run = summary.run
    lines: list[Text] = []
    failed = [c for c in run.cases.values() if c.status in ("fail", "flaky")]
    if failed:
        lines.append(Text(f"\nFailed ({len(failed)})", "strong"))
    for case in failed:
        keys = case.failed_keys()
        named = ", ".join(keys[:SHOWN_KEYS]) + (" ..." if len(keys) > SHOWN_KEYS else "")
        flaky = (
            f", passed {case.passes} of {len(case.bits)} epochs" if case.status == "flaky" else ""
        )
        lines.append(Text(f"  {case.id} ({case.priority}{flaky}): {named or 'no key named'}"))
    review = run.review_ids()
    if review:
        lines.append(
            Text(f"\nNeed review: the judge did not settle them ({len(review)})", "strong")
        )
        lines.extend(Text(f"  {case_id}") for case_id in review)
    errored = [c.id for c in run.cases.values() if c.status == "error"]
    if errored:
        lines.append(Text(f"\nNo verdict: sample errors ({len(errored)})", "strong"))
        lines.extend(Text(f"  {case_id}") for case_id in errored)
    return lines


def defaulted_lines(summary: RunSummary) -> list[Text]:
    """The cases whose priority or difficulty is a default, not an author's (seed-format tasks
    that carry neither), so their rows above are read for what they are."""
    defaulted = [c for c in summary.run.cases.values() if c.defaulted]
    if not defaulted:
        return []
    named = ", ".join(f"{c.id} ({' and '.join(c.defaulted)})" for c in defaulted[:SHOWN_CASES])
    more = f" and {len(defaulted) - SHOWN_CASES} more" if len(defaulted) > SHOWN_CASES else ""
    return [
        Text(
            f"defaulted: {plural(len(defaulted), 'case')} took a default priority or difficulty "
            f"(a seed-format task carries none): {named}{more}",
            "warning",
        )
    ]


def summary_report(summary: RunSummary) -> Report:
    run = summary.run
    tasks = ", ".join(sorted({log.task for log in run.logs}))
    counts = case_counts(summary)
    report = Report(
        [
            Text(
                f"{run.model}: {plural(len(run.cases), 'case')}, {plural(run.epochs, 'epoch')}"
                f" ({tasks}): {counts}",
                "strong",
            ),
            *(Text(f"partial: {note}", "warning") for note in run.partial_notes()),
            rate_table("Verdicts", "verdict", summary.verdicts),
            rate_table("Parts (scored epochs)", "part", summary.parts),
            group_table("Per priority", "priority", summary.by_priority),
            group_table("Per difficulty", "difficulty", summary.by_difficulty),
            *defaulted_lines(summary),
        ]
    )
    if run.judge_off:
        report.add(Text("code-only run (judge=off): nothing was judged", "warning"))
    else:
        report.add(judge_table(summary))
    return report.add(*case_lines(summary))


def case_counts(summary: RunSummary) -> str:
    """How many cases passed, failed (flaky ones too: pass^k), need review, have no verdict."""
    statuses = [case.status for case in summary.run.cases.values()]
    parts = [
        f"{statuses.count('pass')} passed",
        f"{statuses.count('fail') + statuses.count('flaky')} failed",
        f"{statuses.count('needs_review')} need review",
    ]
    if statuses.count("error"):
        parts.append(f"{statuses.count('error')} without a verdict")
    return ", ".join(parts)


def summary_command(
    logs: Annotated[
        list[str],
        typer.Argument(help="Log files or folders (paths or URLs such as s3://...)."),
    ],
    model: Annotated[
        str | None, typer.Option(help="Only this model, when the logs hold several.")
    ] = None,
) -> None:
    """One run's breakdown from its scores: pass^k, parts, per priority and difficulty, the
    judge's verdicts and calls, and which cases failed or need review."""
    from commerce_evals.reports.logs import SCORER, LogReadError, read_logs, results_by_model
    from commerce_evals.reports.summary import summarize

    try:
        found = results_by_model(read_logs(logs, scorers=(SCORER,), case_runs=True))
        if model is not None and model not in found:
            die(f"{', '.join(logs)}: no log of model {model!r}; models: {sorted(found)}")
        runs = [found[model]] if model else list(found.values())
    except LogReadError as err:
        die(str(err))
    out = console()
    for i, run in enumerate(runs):
        if i:
            out.print()
        print_report(out, summary_report(summarize(run)))


def register(app: typer.Typer) -> None:
    app.command("summary")(summary_command)
