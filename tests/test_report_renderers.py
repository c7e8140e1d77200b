"""The report model's renderers and the one event renderer: a table or line prints as written in
the terminal and in markdown, and a Run reads the same to a person as to the judge (the same
lines in the same order, each in its own style)."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from commerce_evals.core import events as ev
from commerce_evals.judging.run_text import PLAIN, readable, run_lines
from commerce_evals.judging.transcript import render
from commerce_evals.reports.markdown import markdown
from commerce_evals.reports.report import Cell, Column, Heading, RateChart, Report, Text, table
from commerce_evals.reports.terminal import print_report


def printed(report: Report) -> str:
    screen = io.StringIO()
    print_report(Console(file=screen, width=200, highlight=False), report)
    return screen.getvalue()


def test_terminal_prints_log_text_as_written_never_as_markup() -> None:
    report = Report(
        [
            table(
                ["check", Column("commerce/reference [code-only]")],
                [["needs_review[critical]", Cell("[red]MISSED", "alarm")]],
                "Gate: set [regression]",
            ),
            Text("[bold]not bold[/bold]", "warning"),
        ]
    )
    out = printed(report)
    for text in (
        "commerce/reference [code-only]",
        "needs_review[critical]",
        "[red]MISSED",
        "Gate: set [regression]",
        "[bold]not bold[/bold]",
    ):
        assert text in out, (text, out)


def test_markdown_escapes_cells_and_links_only_drawn_charts(tmp_path: Path) -> None:
    import pandas as pd

    empty = pd.DataFrame(columns=["model", "group", "passes", "n"])
    report = Report(
        [
            Heading("Model comparison", 1),
            table(["case", "reason"], [["c-1", "a | b"]]),
            Text("done."),
            RateChart("parts", "parts.png", "t", empty),
            RateChart("never", "never.png", "t", empty),
        ]
    )
    text = markdown(report, {"parts": tmp_path / "parts.png"}, tmp_path)
    assert text == (
        "# Model comparison\n\n| case | reason |\n|---|---|\n| c-1 | a \\| b |\n\ndone.\n\n"
        "![parts](parts.png)\n"
    )


def _run() -> ev.Run:
    return ev.Run(
        turns=[
            ev.Turn(
                user="add the <b>lamp</b>",
                events=[
                    ev.ToolCallEvent(call_id="1", tool="add_to_cart", args={"product_id": "P-1"}),
                    ev.ToolResultEvent(call_id="1", tool="add_to_cart", status="ok", data={"n": 1}),
                    ev.CartUpdateEvent(cart=[{"product_id": "P-1", "quantity": 1}]),
                    ev.ReplyEvent(text="Added."),
                    ev.TurnEndEvent(reason="reply"),
                ],
            ),
            ev.Turn(user="thanks", events=[ev.ReplyEvent(text="You're welcome.")]),
        ],
        start={"cart": []},
        end={"cart": [{"product_id": "P-1", "quantity": 1}]},
    )


def test_a_person_and_the_judge_read_the_same_lines_in_their_own_style() -> None:
    run = _run()
    judge = render(run, 100_000).text.splitlines()
    person = [line for line in run_lines(run, PLAIN) if line.kind != "turn"]
    # the person's style leaves out only a turn that ended with its reply
    assert len(judge) == len(person) + 1
    assert judge[0] == '[turn 1] user: "add the \\u003cb\\u003elamp\\u003c/b\\u003e"'
    assert judge[-1].startswith("[after the run] changes cart ")
    text = readable(run)
    assert "CUSTOMER: add the <b>lamp</b>" in text, "a person reads the words as written"
    assert "── turn 2 (graded) ──" in text
    assert text.splitlines()[-1].startswith("after the run, cart changed: ")
    assert "turn ended" not in text
