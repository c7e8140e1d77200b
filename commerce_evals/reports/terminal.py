"""A Report printed with rich: tables with their titles, tones as colours, charts left out.

Text from the logs (case ids, model labels such as `model [partial: ...]`, reasons) is never read
as rich markup, so a bracketed mark is printed as written.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text as RichText

from commerce_evals.reports.report import Bullets, Heading, Report, Table, Text, Tone

STYLES: dict[Tone, str | None] = {
    "plain": None,
    "strong": "bold",
    "warning": "yellow",
    "bad": "red",
    "alarm": "bold red",
    "good": "green",
    "success": "bold green",
}


def rich_table(table: Table) -> RichTable:
    title = RichText(table.title, style="table.title") if table.title else None
    out = RichTable(title=title, title_justify="left")
    for column in table.columns:
        out.add_column(
            RichText(column.name),
            justify="right" if column.right else "left",
            no_wrap=not column.wrap,
        )
    for row in table.rows:
        out.add_row(*(RichText(cell.text, style=STYLES[cell.tone] or "") for cell in row))
    return out


def print_report(out: Console, report: Report) -> None:
    for block in report.blocks:
        if isinstance(block, Table):
            out.print(rich_table(block))
        elif isinstance(block, Text):
            out.print(block.text, style=STYLES[block.tone], markup=False)
        elif isinstance(block, Heading):
            out.print(block.text, style="bold", markup=False)
        elif isinstance(block, Bullets):
            for item in block.items:
                out.print(f"- {item}", markup=False)
