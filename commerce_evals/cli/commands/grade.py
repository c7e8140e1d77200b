"""`commerce-evals grade RUN.json [--case ID]`: grade a recorded run (written by
`commerce-evals serve`) with its flow's own scorer, and keep the grade in an Inspect log.

It runs `inspect eval commerce_evals/<flow> -T recorded=RUN.json` in-process, with no agent
model: the run's case is the one sample, scored exactly as a flow scores its agent's runs (the
judge through `--judge`, which is the grader role; without one, rubric parts are not judged and
such a case needs review). It prints the score's explanation and the log to open in
`inspect view`. Exit 0: passed; 1: failed or needs review; 2: the file cannot be graded.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cases.errors import InputError
from commerce_evals.cli.commands._output import EXIT_FAILED, die

if TYPE_CHECKING:
    from inspect_ai import Task


def grade_command(
    run: Annotated[Path, typer.Argument(help="A run file commerce-evals serve wrote.")],
    case: Annotated[
        str | None, typer.Option("--case", help="The case the run must be of (a check).")
    ] = None,
    judge: Annotated[
        str | None,
        typer.Option(help="The judge model (grader role), e.g. commerce/judge offline."),
    ] = None,
    log_dir: Annotated[Path, typer.Option(help="Where the log of the grade goes.")] = Path("logs"),
) -> None:
    """Grade a recorded run with its case's scorer; the grade is kept in an Inspect log."""
    from importlib import import_module

    from inspect_ai import eval as inspect_eval

    from commerce_evals.core.flow_table import FLOWS
    from commerce_evals.harness.run_file import read_run_file

    if not run.is_file():
        die(f"{run}: no such run file")
    try:
        record = read_run_file(run)
    except InputError as err:
        die(str(err))
    if case is not None and case != record.case:
        die(f"{run}: a run of case {record.case}, not of --case {case}")
    if record.flow not in FLOWS:
        die(f"{run}: flow: no flow {record.flow!r}; flows: {', '.join(FLOWS)}")

    def task_of() -> Task:
        return getattr(import_module(f"commerce_evals.{record.flow}"), record.flow)(
            recorded=str(run),
            dataset=record.dataset,
            fixtures=record.fixtures,
            poisoned=record.poisoned,
        )

    try:
        task = task_of()
    except InputError as err:  # the case changed since the run, or another fixtures folder
        die(str(err))
    [log] = inspect_eval(
        task,
        model="none",
        model_roles={"grader": judge} if judge else None,
        log_dir=str(log_dir),
        display="none",
    )
    [sample] = log.samples or []
    if sample.error is not None:
        die(f"{run}: grading failed: {sample.error.message}")
    score = (sample.scores or {})["commerce_case"]
    typer.echo(f"{record.case} ({record.flow}), run by {record.agent}")
    if not record.complete:
        typer.echo(
            f"note: the conversation stopped after {len(record.run.turns)} turn(s), before "
            "its end: the last turn recorded is graded"
        )
    typer.echo(score.explanation or "")
    typer.echo(f"log: {log.location}  (inspect view --log-dir {log_dir})")
    value = score.value if isinstance(score.value, dict) else {}
    if value.get("passed") != 1.0:
        raise typer.Exit(EXIT_FAILED)


def register(app: typer.Typer) -> None:
    app.command("grade")(grade_command)
