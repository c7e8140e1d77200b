"""`commerce-evals trends LOG...`: each rubric dimension's pass rate over time, table and PNG.

Meant for production traffic judged with `inspect eval commerce_evals/production` (time is when
each conversation was captured), and works on any logs with judge verdicts (time is then when the
log was made). Unknown verdicts and judge failures are counted apart, never as passes. A
dimension judged by more than one judge is split into one series per judge, never pooled; a
cancelled or incomplete log is named.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from commerce_evals.cli.commands._output import console, die
from commerce_evals.reports.formatting import rate
from commerce_evals.reports.logs import LogReadError, local_folder


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
    try:
        from commerce_evals.reports.charts import trend_lines
        from commerce_evals.reports.trends import trends
    except ImportError as err:
        die(f"trends needs pandas, pyarrow and matplotlib (pip install -e '.[reports]'): {err}")
    try:
        result = trends(logs, period)  # type: ignore[arg-type]
    except LogReadError as err:
        die(str(err))
    for note in result.partial:
        console().print(f"partial log: {note}", style="yellow", markup=False)
    if result.rates.empty:
        die("no judge verdicts in these logs (was a grader role bound?)")
    table = Table(
        title=f"Pass rate per dimension per {period} (settled verdicts)", title_justify="left"
    )
    table.add_column(period)
    dimensions = list(result.rates.columns)
    for dimension in dimensions:
        table.add_column(dimension, justify="right")
    for index, row in result.rates.iterrows():
        cells = []
        for dimension in dimensions:
            settled = int(result.settled.loc[index, dimension])
            open_ = (
                int(result.unsettled.loc[index, dimension]) if dimension in result.unsettled else 0
            )
            note = f" +{open_}?" if open_ else ""
            cells.append(f"{rate(row[dimension])} (n={settled}){note}")
        table.add_row(str(index), *cells)
    terminal = console()
    terminal.print(table)
    terminal.print(
        "n: Pass + Fail verdicts; +k?: Unknown or judge failed (a person must look)", markup=False
    )
    out = out or local_folder(logs[0]) / "trends.png"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        chart = trend_lines(
            result.rates, f"Judge pass rate per dimension per {period}", out, result.settled
        )
    except OSError as err:
        die(f"{out}: cannot write the chart ({err.strerror or err}); choose a place with --out")
    if chart is None:
        terminal.print("no chart: no dimension has a settled verdict", markup=False)
    else:
        terminal.print(f"chart: {chart}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("trends")(trends_command)
