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
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from commerce_evals.cli.commands._output import console, die
from commerce_evals.reports.formatting import cell, judge_tokens, money, rate
from commerce_evals.reports.logs import PARTS, PRIORITIES, LogReadError, local_folder
from commerce_evals.reports.prices import PriceFileError, load_prices

if TYPE_CHECKING:  # pandas is imported only when the command runs (the reports extra)
    import pandas as pd

    from commerce_evals.reports.comparison import Comparison


def matrix_table(comparison: Comparison, case_ids: list[str], title: str) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("case", no_wrap=True)
    table.add_column("priority")
    for model in comparison.models:
        table.add_column(comparison.label(model), no_wrap=True)
    for case_id in case_ids:
        cells = [cell(comparison.case(m, case_id)) for m in comparison.models]
        styled = [
            f"[red]{c}[/red]" if c.startswith(("FAIL", "flaky", "REVIEW")) else c for c in cells
        ]
        table.add_row(case_id, comparison.info(case_id).priority, *styled)
    return table


def rates_table(
    frame: pd.DataFrame, columns: list[str], title: str, comparison: Comparison
) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("model")
    for column in columns:
        table.add_column(column, justify="right")
    for model, row in frame.iterrows():
        table.add_row(comparison.label(str(model)), *(rate(row[c]) for c in columns))
    return table


def print_comparison(out: Console, comparison: Comparison, show_all: bool) -> None:
    c = comparison
    rows = c.case_ids() if show_all else c.failing_anywhere()
    title = "Case by model" if show_all else "Cases failing under some model (--all for every case)"
    out.print(matrix_table(c, rows, title))
    for model in c.models:
        only = c.failing_only(model)
        marks = c.coverage(model)
        out.print(
            f"{model}: {len(c.failure_set(model))} failing; only under it: {', '.join(only) or '-'}"
            + (f"  [{marks}]" if marks else ""),
            markup=False,
        )
        review = c.needs_review(model)
        if review:
            out.print(
                f"{model}: {len(review)} need review (not passes): {', '.join(review)}",
                markup=False,
            )
    for line in c.differences():
        out.print(f"differs: {line}", style="yellow", markup=False)
    out.print(
        f"failing under every model: {', '.join(c.failing_everywhere()) or 'none'}", markup=False
    )
    if not c.parts.empty:
        out.print(rates_table(c.parts, ["passed", "passed_code", *PARTS], "Pass rate per part", c))
    if not c.priorities.empty:
        out.print(rates_table(c.priorities, list(PRIORITIES), "Pass rate per priority", c))
    if not c.dimensions.empty:
        table = Table(title="Judge verdicts per rubric dimension", title_justify="left")
        for column in ("model", "dimension", "pass rate", "pass", "fail", "unknown", "failed"):
            table.add_column(column)
        for _, r in c.dimensions.iterrows():
            table.add_row(
                str(r["model"]),
                str(r["dimension"]),
                rate(r["rate"]),
                *(str(int(r[s])) for s in ("pass", "fail", "unknown", "judge_failed")),
            )
        out.print(table)
    if not c.usage.empty:
        table = Table(title="Tokens and cost (judge counted apart)", title_justify="left")
        for column in (
            "model",
            "agent in/out",
            "agent cost",
            "grader",
            "judge in/out paid",
            "judge in/out needed (cache hits too)",
            "judge cost",
            *(["customer", "customer in/out", "customer cost"] if c.simulated else []),
            "total",
        ):
            table.add_column(column)
        for model, r in c.usage.iterrows():
            customer = [
                str(r["customer"]),
                f"{int(r['customer_input']):,} / {int(r['customer_output']):,}",
                money(r["customer_cost"], c.currency),
            ]
            table.add_row(
                str(model),
                f"{int(r['agent_input']):,} / {int(r['agent_output']):,}",
                money(r["agent_cost"], c.currency),
                str(r["grader"]),
                f"{int(r['judge_input']):,} / {int(r['judge_output']):,}",
                judge_tokens(r),
                money(r["judge_cost"], c.currency),
                *(customer if c.simulated else []),
                money(r["total_cost"], c.currency),
            )
        out.print(table)


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
    try:
        from commerce_evals.reports.compare_report import markdown, write_charts
        from commerce_evals.reports.comparison import build_comparison
    except ImportError as err:  # pandas, pyarrow, matplotlib: the dev or reports extra
        die(f"compare needs pandas, pyarrow and matplotlib (pip install -e '.[reports]'): {err}")
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
    print_comparison(terminal, comparison, show_all)
    terminal.print(f"\nreport: {report}", markup=False)
    for path in charts.values():
        terminal.print(f"chart:  {path}", markup=False)


def register(app: typer.Typer) -> None:
    app.command("compare")(compare_command)
