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
from typing import Annotated

import typer
from rich.table import Table

from commerce_evals.cli.commands._output import EXIT_FAILED, console, die
from commerce_evals.reports.gating import GateReport, gate
from commerce_evals.reports.logs import LogReadError, RunResults, load_run
from commerce_evals.reports.set_spec import SetsFileError, load_sets


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
    table = Table(title=f"Gate: set {report.set_name!r}", title_justify="left")
    for column in ("threshold", "required", "actual", "result"):
        table.add_column(column)
    for check in report.checks:
        table.add_row(
            check.name,
            check.required,
            check.actual,
            "[green]met[/green]" if check.passed else "[bold red]MISSED[/bold red]",
        )
    return table


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
    try:
        run = load_run(logs, model)
        name = which_set(run, set_name)
        run_set = load_sets(sets_file).get(name)
    except (LogReadError, SetsFileError) as err:
        die(str(err))
    report = gate(name, run_set, run)
    out = console()
    out.print(
        f"{run.model}: {len(report.cases)} case(s) of set {name!r} in {len(run.logs)} log(s), "
        f"{run.epochs} epoch(s)",
        markup=False,
    )
    out.print(checks_table(report))
    for note in report.notes:
        out.print(f"note: {note}", markup=False)
    for check in report.checks:
        listed = check.name.startswith("needs_review")  # listed by id even within the allowance
        if check.misses and (listed or not check.passed):
            title = "need review" if listed else "missed by"
            out.print(f"\n{check.name}: {title}", style="bold", markup=False)
            for miss in check.misses:
                out.print(f"  {miss}", markup=False)
    if report.passed:
        out.print("\nGATE PASSED", style="bold green", markup=False)
        return
    missed = [c.name for c in report.checks if not c.passed]
    out.print(f"\nGATE FAILED: {', '.join(missed)}", style="bold red", markup=False)
    raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("gate")(gate_command)
