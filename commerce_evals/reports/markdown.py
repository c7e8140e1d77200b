"""A Report written as markdown: a blank line between blocks, tones dropped, each drawn chart an
image link (relative to the report's folder when it lies inside it)."""

from __future__ import annotations

from pathlib import Path

from commerce_evals.reports.report import CHARTS, Block, Bullets, Heading, Report, Table, Text


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def table_lines(table: Table) -> list[str]:
    lines = ["| " + " | ".join(_escape(c.name) for c in table.columns) + " |"]
    lines.append("|" + "|".join("---" for _ in table.columns) + "|")
    lines.extend("| " + " | ".join(_escape(c.text) for c in row) + " |" for row in table.rows)
    return lines


def _link(path: Path, folder: Path) -> str:
    return str(path.relative_to(folder) if path.is_relative_to(folder) else path)


def _block(block: Block, drawn: dict[str, Path], folder: Path) -> list[str]:
    if isinstance(block, Heading):
        return ["#" * block.level + " " + block.text]
    if isinstance(block, Text):
        return [block.text]
    if isinstance(block, Bullets):
        return [f"- {item}" for item in block.items]
    if isinstance(block, Table):
        return table_lines(block)
    if isinstance(block, CHARTS):
        path = drawn.get(block.name)
        return [f"![{block.name}]({_link(path, folder)})"] if path else []
    return []


def markdown(report: Report, drawn: dict[str, Path] | None = None, folder: Path = Path()) -> str:
    """The report as markdown; `drawn` holds the charts written (by name), linked from `folder`."""
    text = ""
    previous: Block | None = None
    for block in report.blocks:
        lines = _block(block, drawn or {}, folder)
        if not lines:
            continue
        charts = isinstance(block, CHARTS) and isinstance(previous, CHARTS)  # a link a line
        text += ("" if previous is None else "\n" if charts else "\n\n") + "\n".join(lines)
        previous = block
    return text + "\n"
