"""A report as typed blocks: what it says, not how it is shown.

A report is a list of blocks: headings, lines of text, bullet lists, tables of cells and charts.
Three renderers read them: terminal.py prints a report with rich (tables with titles, tones as
colours), markdown.py writes it as a markdown document (tones dropped, charts as image links) and
charts.py draws its charts as PNG files. The commands build their reports from their results
(compare_report.py for compare; diff, gate and trends in their commands) and never format a
table themselves, so a table shown both in the terminal and in compare.md is built once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # pandas only where charts are drawn (slow to import)
    import pandas as pd

# What a piece of text means to its reader; the terminal shows it as a colour.
Tone = Literal["plain", "strong", "warning", "bad", "alarm", "good", "success"]


@dataclass(frozen=True)
class Text:
    """A line (or lines) of prose, or a table's cell."""

    text: str
    tone: Tone = "plain"


Cell = Text


@dataclass(frozen=True)
class Column:
    name: str
    right: bool = False  # numbers, aligned right
    wrap: bool = True  # False: a case id or model name is never broken


@dataclass(frozen=True)
class Table:
    columns: list[Column]
    rows: list[list[Cell]]
    title: str = ""  # the terminal prints it above the table; markdown has headings instead


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Bullets:
    items: list[str]


@dataclass(frozen=True)
class RateChart:
    """Pass rates with 95% intervals: `points` has columns model, group, passes, n (groups in
    the order to show)."""

    name: str
    file: str
    title: str
    points: pd.DataFrame


@dataclass(frozen=True)
class TokenChart:
    """Per model (the index): agent_input/output and judge_input/output, and judge_all_* when
    the verdicts say how many tokens the judging needed."""

    name: str
    file: str
    usage: pd.DataFrame


@dataclass(frozen=True)
class TrendChart:
    """Rates (period x series, in [0, 1]) over time, with the settled verdicts behind each."""

    name: str
    file: str
    title: str
    rates: pd.DataFrame
    settled: pd.DataFrame | None = None


Chart = RateChart | TokenChart | TrendChart
CHARTS = (RateChart, TokenChart, TrendChart)
Block = Heading | Text | Bullets | Table | Chart


@dataclass
class Report:
    blocks: list[Block] = field(default_factory=list)

    def add(self, *blocks: Block) -> Report:
        self.blocks.extend(blocks)
        return self

    def charts(self) -> list[Chart]:
        return [b for b in self.blocks if isinstance(b, CHARTS)]


def table(
    columns: Sequence[str | Column], rows: Iterable[Sequence[str | Cell]], title: str = ""
) -> Table:
    """A table from column names (or Columns) and rows of strings (or Cells)."""
    return Table(
        columns=[c if isinstance(c, Column) else Column(c) for c in columns],
        rows=[[c if isinstance(c, Cell) else Cell(c) for c in row] for row in rows],
        title=title,
    )
