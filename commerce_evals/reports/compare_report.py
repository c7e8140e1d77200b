"""The comparison as reports (commerce_evals/reports/report.py): a brief one for the terminal, a
full one for compare.md, and the full one's charts as PNG files.

The tables both show (the case matrix, judge verdicts per dimension, tokens and cost) are built
once here; every model is named by its label, so a partial, narrower or code-only run is marked
in every table and chart.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from commerce_evals.reports.comparison import Comparison
from commerce_evals.reports.formatting import cell, judge_tokens, money, rate
from commerce_evals.reports.logs import PARTS, PRIORITIES
from commerce_evals.reports.markdown import markdown as render_markdown
from commerce_evals.reports.report import (
    Bullets,
    Cell,
    Chart,
    Column,
    Heading,
    RateChart,
    Report,
    Table,
    Text,
    TokenChart,
    table,
)
from commerce_evals.reports.stats import wilson

CHARTS = {
    "parts": "pass_rates.png",
    "priorities": "priorities.png",
    "dimensions": "dimensions.png",
    "tokens": "tokens.png",
}


PASS_HAT_K = "pass^k (cases)"


def _part_rows(comparison: Comparison) -> pd.DataFrame:
    """Per model: each part's passes/n over scored epochs, and pass^k over cases beside them."""
    rows = comparison.part_counts.copy()
    hat_k = [
        {"model": m, "group": PASS_HAT_K, "passes": k, "n": n}
        for m in comparison.models
        for k, n in [comparison.pass_hat_k(m)]
    ]
    rows = pd.concat([pd.DataFrame(hat_k), rows], ignore_index=True)
    return _model_labels(rows, comparison)


def _model_labels(rows: pd.DataFrame, comparison: Comparison) -> pd.DataFrame:
    return rows.assign(model=[comparison.label(str(m)) for m in rows["model"]])


def _dimension_rows(comparison: Comparison) -> pd.DataFrame:
    d = comparison.dimensions
    rows = pd.DataFrame(
        {
            "model": d["model"],
            "group": d["dimension"],
            "passes": d["pass"].astype(int),
            "n": (d["pass"] + d["fail"]).astype(int),
        }
    )
    return _model_labels(rows, comparison)


def chart_blocks(comparison: Comparison) -> list[Chart]:
    """The full report's charts: pass rates per part (with pass^k), per priority and per
    dimension with their intervals, and the tokens per model."""
    c = comparison
    charts: list[Chart] = []
    if not c.part_counts.empty:
        charts.append(
            RateChart(
                "parts",
                CHARTS["parts"],
                "Pass rate per part (scored epochs) and pass^k (cases)",
                _part_rows(c),
            )
        )
    if not c.priority_counts.empty:
        charts.append(
            RateChart(
                "priorities",
                CHARTS["priorities"],
                "Pass rate per priority (scored epochs)",
                _model_labels(c.priority_counts, c),
            )
        )
    if not c.dimensions.empty:
        charts.append(
            RateChart(
                "dimensions",
                CHARTS["dimensions"],
                "Judge pass rate per rubric dimension (Pass / (Pass + Fail))",
                _dimension_rows(c),
            )
        )
    usage = c.usage.rename(index={m: c.label(m) for m in c.models})
    charts.append(TokenChart("tokens", CHARTS["tokens"], usage))
    return charts


def write_charts(comparison: Comparison, out: Path) -> dict[str, Path]:
    from commerce_evals.reports.charts import draw_all  # matplotlib only when charts are drawn

    return draw_all(chart_blocks(comparison), out)


def _label(comparison: Comparison, model: str) -> str:
    return comparison.label(model) if model in comparison.runs else model


def _interval_text(passes: int, n: int) -> str:
    """`0.85 (17/20; 95% CI 0.64-0.95)`, or `-` when nothing was scored."""
    interval = wilson(passes, n)
    if interval is None:
        return "-"
    return f"{passes / n:.2f} ({passes}/{n}; 95% CI {interval[0]:.2f}-{interval[1]:.2f})"


def _with_interval(comparison: Comparison, model: str, group: str) -> str:
    rows = comparison.part_counts
    if rows.empty:
        return "-"
    mine = rows[(rows["model"] == model) & (rows["group"] == group)]
    return _interval_text(int(mine["passes"].sum()), int(mine["n"].sum())) if len(mine) else "-"


def interval_table(rows: pd.DataFrame, columns: list[str], comparison: Comparison) -> Table:
    """Per model, each group's rate with passes/n and its 95% interval (`-`: nothing scored)."""

    def cell_of(model: str, group: str) -> str:
        mine = rows[(rows["model"] == model) & (rows["group"] == group)]
        return _interval_text(int(mine["passes"].sum()), int(mine["n"].sum()))

    return table(
        ["model", *columns],
        [[comparison.label(m), *(cell_of(m, g) for g in columns)] for m in comparison.models],
    )


def rates_table(
    frame: pd.DataFrame, columns: list[str], title: str, comparison: Comparison
) -> Table:
    """Per model (the frame's index), each column's rate as a percentage."""
    return table(
        ["model", *(Column(c, right=True) for c in columns)],
        [
            [comparison.label(str(model)), *(rate(row[c]) for c in columns)]
            for model, row in frame.iterrows()
        ],
        title,
    )


FAILING = ("FAIL", "flaky", "REVIEW")


def matrix_table(comparison: Comparison, case_ids: list[str], title: str = "") -> Table:
    """Case by model: each model's status and passing epochs for the case, failures marked."""
    c = comparison

    def status(case_id: str, model: str) -> Cell:
        text = cell(c.case(model, case_id))
        return Cell(text, "bad" if text.startswith(FAILING) else "plain")

    return table(
        [
            Column("case", wrap=False),
            "priority",
            # a label's marks may be long: its header wraps, its cells are short
            *(Column(c.label(m)) for m in c.models),
        ],
        [
            [case_id, c.info(case_id).priority, *(status(case_id, m) for m in c.models)]
            for case_id in case_ids
        ],
        title,
    )


VERDICTS = ("pass", "fail", "unknown", "judge_failed", "not_judged")


def dimension_table(comparison: Comparison, title: str = "") -> Table:
    """Per model and rubric dimension: the judge's pass rate and its verdicts by kind."""
    return table(
        [
            "model",
            "dimension",
            "pass rate",
            "pass",
            "fail",
            "unknown",
            "judge failed",
            "not judged",
        ],
        [
            [
                _label(comparison, str(r["model"])),
                str(r["dimension"]),
                rate(r["rate"]),
                *(str(int(r[s])) for s in VERDICTS),
            ]
            for _, r in comparison.dimensions.iterrows()
        ],
        title,
    )


def usage_table(comparison: Comparison, joined: bool, title: str = "") -> Table:
    """Per model: agent and judge tokens and their cost. `joined` writes each in/out pair in one
    column (the terminal's width); else in two."""
    c = comparison
    if joined:
        columns = [
            "model",
            "agent in/out",
            "agent cost",
            "grader",
            "judge in/out paid",
            "judge in/out needed (cache hits too)",
            "judge cost",
            *(["customer", "customer in/out", "customer cost"] if c.simulated else []),
            "total",
        ]
    else:
        columns = [
            "model",
            "agent in",
            "agent out",
            "agent cost",
            "grader",
            "judge in",
            "judge out",
            "judge in / out needed (cache hits too)",
            "judge cost",
            *(["customer", "customer in", "customer out", "customer cost"] if c.simulated else []),
            "total cost",
        ]
    rows = []
    for model, r in c.usage.iterrows():
        agent = [f"{int(r['agent_input']):,}", f"{int(r['agent_output']):,}"]
        judge = [f"{int(r['judge_input']):,}", f"{int(r['judge_output']):,}"]
        customer = [f"{int(r['customer_input']):,}", f"{int(r['customer_output']):,}"]
        if joined:
            agent, judge = [" / ".join(agent)], [" / ".join(judge)]
            customer = [" / ".join(customer)]
        # a simulated customer's tokens and cost, apart from the agent's and the judge's
        customer_cells = (
            [str(r["customer"]), *customer, money(r["customer_cost"], c.currency)]
            if c.simulated
            else []
        )
        rows.append(
            [
                _label(c, str(model)),
                *agent,
                money(r["agent_cost"], c.currency),
                str(r["grader"]),
                *judge,
                judge_tokens(r),
                money(r["judge_cost"], c.currency),
                *customer_cells,
                money(r["total_cost"], c.currency),
            ]
        )
    return table(columns, rows, title)


def terminal_report(comparison: Comparison, show_all: bool) -> Report:
    """The brief report: the case matrix (failing cases, or every case), each model's failure
    set, what differs between the runs, rates as percentages, verdicts, tokens and cost."""
    c = comparison
    report = Report()
    if show_all:
        report.add(matrix_table(c, c.case_ids(), "Case by model"))
    else:
        title = "Cases failing under some model (--all for every case)"
        report.add(matrix_table(c, c.failing_anywhere(), title))
    for model in c.models:
        only = c.failing_only(model)
        marks = c.coverage(model)
        report.add(
            Text(
                f"{model}: {len(c.failure_set(model))} failing; only under it:"
                f" {', '.join(only) or '-'}" + (f"  [{marks}]" if marks else "")
            )
        )
        review = c.needs_review(model)
        if review:
            report.add(
                Text(f"{model}: {len(review)} need review (not passes): {', '.join(review)}")
            )
    report.add(*(Text(f"differs: {line}", "warning") for line in c.differences()))
    report.add(Text(f"failing under every model: {', '.join(c.failing_everywhere()) or 'none'}"))
    if not c.parts.empty:
        columns = ["passed", "passed_code", *PARTS]
        report.add(rates_table(c.parts, columns, "Pass rate per part", c))
    if not c.priorities.empty:
        report.add(rates_table(c.priorities, list(PRIORITIES), "Pass rate per priority", c))
    if not c.dimensions.empty:
        report.add(dimension_table(c, "Judge verdicts per rubric dimension"))
    if not c.usage.empty:
        report.add(usage_table(c, joined=True, title="Tokens and cost (judge counted apart)"))
    return report


TOKENS_NOTE = (
    "Agent and judge tokens in and out and their cost are what reached a provider (Inspect's"
    " usage; a judge call answered by the cache costs nothing and counts 0 there). `judge in /"
    " out needed` counts every judge call the run made from the verdicts, cache hits"
    " included, and says how many of them, and how many tokens, the cache answered."
)


def _summary(comparison: Comparison) -> Table:
    c = comparison
    return table(
        [
            "model",
            "cases",
            "epochs",
            "passed (epochs)",
            "pass^k (cases)",
            "logs",
            "grader",
            *(["customer"] if c.simulated else []),
            "needs review",
            "marks",
        ],
        [
            [
                m,
                str(len(run.cases)),
                str(run.epochs),
                _with_interval(c, m, "passed"),
                _interval_text(*c.pass_hat_k(m)),
                str(len(run.logs)),
                ", ".join(sorted({log.grader for log in run.logs if log.grader})) or "-",
                *([c.customer(m)] if c.simulated else []),
                ", ".join(c.needs_review(m)) or "-",
                c.coverage(m) or "-",
            ]
            for m, run in c.runs.items()
        ],
    )


def full_report(comparison: Comparison, charts: list[Chart] | None = None) -> Report:
    """The report compare.md holds: everything the terminal shows, with 95% intervals, the
    failure reasons per model, every case by model, and the charts."""
    c = comparison
    models = c.models
    report = Report([Heading("Model comparison", 1), _summary(c)])
    if c.simulated:
        report.add(
            Text(
                "A simulated customer answers differently from run to run: read its runs by "
                "pass^k over epochs, and compare a case across customers only where both ran it."
            )
        )
    notes = c.differences()
    if notes:
        report.add(Text("What differs between the runs besides the model:"), Bullets(notes))
    report.add(
        Heading("Failure sets side by side"),
        table(
            ["model", "failing (fail or flaky)", "fails only under this model"],
            [[m, str(len(c.failure_set(m))), ", ".join(c.failing_only(m)) or "-"] for m in models],
        ),
        Text(f"Failing under every model: {', '.join(c.failing_everywhere()) or 'none'}."),
    )
    failing = c.failing_anywhere()
    if failing:
        report.add(matrix_table(c, failing))
    report.add(Heading("Why cases failed, per model"))
    for m in models:
        reasons = c.failure_reasons(m)
        report.add(Heading(m, 3))
        if reasons:
            report.add(table(["case", "key", "reason"], [list(r) for r in reasons]))
        else:
            report.add(Text("No failing case."))
    report.add(Heading("Pass rate per part"))
    if not c.part_counts.empty:
        report.add(interval_table(c.part_counts, ["passed", "passed_code", *PARTS], c))
    report.add(Heading("Pass rate per priority"))
    if not c.priority_counts.empty:
        report.add(interval_table(c.priority_counts, list(PRIORITIES), c))
    report.add(Heading("Judge verdicts per rubric dimension"))
    if c.dimensions.empty:
        report.add(
            Text("No judge verdicts in these logs (no rubric dimension, or no grader bound).")
        )
    else:
        report.add(dimension_table(c))
    report.add(Heading("Tokens and cost"), Text(TOKENS_NOTE))
    if not c.usage.empty:
        report.add(usage_table(c, joined=False))
    report.add(Heading("Case by model"), matrix_table(c, c.case_ids()))
    if charts:
        report.add(Heading("Charts"), *charts)
    return report


def markdown(comparison: Comparison, charts: dict[str, Path], out: Path) -> str:
    """compare.md: the full report, linking the charts written to `out` (by name)."""
    drawn = [chart for chart in chart_blocks(comparison) if chart.name in charts]
    return render_markdown(full_report(comparison, drawn), charts, out)
