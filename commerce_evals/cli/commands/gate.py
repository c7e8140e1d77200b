"""`commerce-evals gate LOG...`: apply a set's thresholds to a run; exit 1 when one is missed.

The set is the one the logs were run with (`inspect eval commerce_evals/case_set -T set=NAME`
records it), or --set. Every check is printed with what it required and what the run did; each
missed check lists the cases that missed it, and cases that need review (the judge did not settle
their rubric) are listed by id. A cancelled or partial log, and a run judged by two judges, miss
their checks; a code-only run (`-T judge=off`) is named. Exit code 0: every threshold met; 1: one missed;
2: the logs or the sets file could not be read. Fit for a CI job.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cli.commands._output import EXIT_FAILED, console, die
from commerce_evals.reports.report import Cell, Report, Table, Text, table
from commerce_evals.reports.terminal import print_report

if TYPE_CHECKING:  # Inspect is imported only when the command runs
    from commerce_evals.reports.gating import GateReport
    from commerce_evals.reports.logs import RunResults


def which_set(run: RunResults, given: str | None) -> str:
    if given:
        return given
    recorded = run.sets
    if len(recorded) == 1:
        return recorded[0]
    if not recorded:
        die("the logs record no set (they were not run through case_set): name one with --set")
    die(f"the logs record several sets {recorded}: name one with --set")


def checks_table(report: GateReport) -> Table:
    return table(
        ["threshold", "required", "actual", "result"],
        [
            [
                check.name,
                check.required,
                check.actual,
                Cell("met", "good") if check.passed else Cell("MISSED", "alarm"),
            ]
            for check in report.checks
        ],
        f"Gate: set {report.set_name!r}",
    )


def gate_report(gated: GateReport, run: RunResults) -> Report:
    """The checks, the notes, the cases that missed (or need review), and the verdict."""
    report = Report(
        [
            Text(
                f"{run.model}: {len(gated.cases)} case(s) of set {gated.set_name!r} in"
                f" {len(run.logs)} log(s), {run.epochs} epoch(s)"
            ),
            checks_table(gated),
            *(Text(f"note: {note}") for note in gated.notes),
        ]
    )
    for check in gated.checks:
        listed = check.name.startswith("needs_review")  # listed by id even within the allowance
        if check.misses and (listed or not check.passed):
            title = "need review" if listed else "missed by"
            report.add(Text(f"\n{check.name}: {title}", "strong"))
            report.add(*(Text(f"  {miss}") for miss in check.misses))
    if gated.passed:
        return report.add(Text("\nGATE PASSED", "success"))
    missed = [c.name for c in gated.checks if not c.passed]
    return report.add(Text(f"\nGATE FAILED: {', '.join(missed)}", "alarm"))


def gate_command(
    logs: Annotated[
        list[str],
        typer.Argument(help="Log files or folders of one run (paths or URLs such as s3://...)."),
    ],
    set_name: Annotated[
        str | None, typer.Option("--set", help="The set whose thresholds apply.")
    ] = None,
    sets_file: Annotated[
        Path | None, typer.Option(help="A sets file instead of datasets/sets.yaml.")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="The model, when the logs hold several.")
    ] = None,
) -> None:
    """Apply a run set's thresholds (datasets/sets.yaml) and exit non-zero when one is missed."""
    from commerce_evals.case_set import set_cases
    from commerce_evals.reports.gating import gate
    from commerce_evals.reports.logs import LogReadError, load_run
    from commerce_evals.reports.set_spec import SetsFileError, check_ids, load_sets

    try:
        run = load_run(logs, model)
        name = which_set(run, set_name)
        run_set = load_sets(sets_file).get(name)
        check_ids(
            name, run_set, (c for cases in set_cases(run_set).values() for c in cases), sets_file
        )
    except (LogReadError, SetsFileError) as err:
        die(str(err))
    report = gate(name, run_set, run)
    print_report(console(), gate_report(report, run))
    if not report.passed:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("gate")(gate_command)
