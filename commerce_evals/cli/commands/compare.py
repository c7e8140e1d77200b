"""`commerce-evals compare LOGDIR`: the models of a sweep side by side.

LOGDIR is an eval-set folder (several models, every flow); more folders or files may follow.
Prints the failure sets and the rates as terminal tables, and writes a markdown report and PNG
charts to --out (default: LOGDIR/compare). A model whose run is partial (a cancelled or
incomplete log), covers fewer cases than the others, or is code-only (`-T judge=off`) is marked
so in every table and chart; cases needing review are counted apart and listed by id; what
differs between the runs besides the model (judge, rubric text, instructions, tools, fixtures,
skills, policy) is printed. Cost uses datasets/prices.yaml (or --prices); a model
it does not list is reported as unknown cost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from commerce_evals.cli.commands._output import console, die
from commerce_evals.reports.terminal import print_report


def compare_command(
    logdir: Annotated[
        list[str],
        typer.Argument(help="A sweep's log folder (or several): a path or a URL such as s3://..."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="Where the report and charts go (default LOGDIR/compare; ./compare for a URL)."
        ),
    ] = None,
    prices: Annotated[
        Path | None, typer.Option(help="A price table instead of datasets/prices.yaml.")
    ] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Every case in the matrix.")] = False,
) -> None:
    """Case-by-model matrix, failure sets, per-part and per-dimension rates, tokens and cost."""
    # Inspect, pandas and matplotlib load only when the command runs (slow to import)
    from commerce_evals.reports.compare_report import markdown, terminal_report, write_charts
    from commerce_evals.reports.comparison import build_comparison
    from commerce_evals.reports.logs import LogReadError, local_folder
    from commerce_evals.reports.prices import PriceFileError, load_prices

    try:
        comparison = build_comparison(logdir, load_prices(prices))
    except (LogReadError, PriceFileError) as err:
        die(str(err))
    target = out or local_folder(logdir[0]) / "compare"
    report = target / "compare.md"
    try:
        charts = write_charts(comparison, target)
        report.write_text(markdown(comparison, charts, target), encoding="utf-8")
    except OSError as err:
        die(
            f"{target}: cannot write the report ({err.strerror or err}); choose a folder with --out"
        )
    terminal = console()
    print_report(terminal, terminal_report(comparison, show_all))
    terminal.print(f"\nreport: {report}", markup=False)
    for path in charts.values():
        terminal.print(f"chart:  {path}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)
