"""`commerce-evals trends LOG...`: each rubric dimension's pass rate over time, table and PNG.

Meant for production traffic judged with `inspect eval commerce_evals/production` (time is when
each conversation was captured), and works on any logs with judge verdicts (time is then when the
log was made). Unknown verdicts and judge failures are counted apart, never as passes. A
dimension judged by more than one judge is split into one series per judge, never pooled; a
cancelled or incomplete log is named.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cli.commands._output import console, die
from commerce_evals.reports.report import Column, Report, Text, TrendChart, table
from commerce_evals.reports.terminal import print_report

if TYPE_CHECKING:  # Inspect and pandas are imported only when the command runs
    from commerce_evals.reports.trends import Trends


def trends_command(
    logs: Annotated[
        list[str], typer.Argument(help="Log files or folders (paths or URLs such as s3://...).")
    ],
    period: Annotated[str, typer.Option(help="Bucket verdicts by day, week or month.")] = "day",
    out: Annotated[
        Path | None,
        typer.Option(
            help="The PNG chart to write (default: trends.png beside the first log; "
            "in the current folder for a URL)."
        ),
    ] = None,
) -> None:
    """Pass rate per rubric dimension per period, printed and plotted."""
    if period not in ("day", "week", "month"):
        die(f"--period must be day, week or month, not {period!r}")
    from commerce_evals.reports.charts import draw
    from commerce_evals.reports.logs import LogReadError, local_folder
    from commerce_evals.reports.trends import trends

    try:
        result = trends(logs, period)  # type: ignore[arg-type]
    except LogReadError as err:
        die(str(err))
    for note in result.partial:
        console().print(f"partial log: {note}", style="yellow", markup=False)
    if result.rates.empty:
        die("no judge verdicts in these logs (was a grader role bound?)")
    terminal = console()
    print_report(terminal, trends_report(result, period))
    out = out or local_folder(logs[0]) / "trends.png"
    chart = TrendChart(
        "trends",
        out.name,
        f"Judge pass rate per dimension per {period}",
        result.rates,
        result.settled,
    )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        drawn = draw(chart, out)
    except OSError as err:
        die(f"{out}: cannot write the chart ({err.strerror or err}); choose a place with --out")
    if drawn is None:
        terminal.print("no chart: no dimension has a settled verdict", markup=False)
    else:
        terminal.print(f"chart: {drawn}", markup=False)


def trends_report(result: Trends, period: str) -> Report:
    """Per period, each dimension's rate with its settled count and what is still open."""
    from commerce_evals.reports.formatting import rate

    dimensions = list(result.rates.columns)

    def cell(index: object, value: float, dimension: str) -> str:
        settled = int(result.settled.loc[index, dimension])
        open_ = int(result.unsettled.loc[index, dimension]) if dimension in result.unsettled else 0
        note = f" +{open_}?" if open_ else ""
        return f"{rate(value)} (n={settled}){note}"

    rows = [
        [str(index), *(cell(index, row[d], d) for d in dimensions)]
        for index, row in result.rates.iterrows()
    ]
    return Report(
        [
            table(
                [period, *(Column(d, right=True) for d in dimensions)],
                rows,
                f"Pass rate per dimension per {period} (settled verdicts)",
            ),
            Text("n: Pass + Fail verdicts; +k?: Unknown or judge failed (a person must look)"),
        ]
    )


def register(app: typer.Typer) -> None:
    app.command("trends")(trends_command)
