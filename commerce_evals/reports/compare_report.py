"""The comparison as reports (commerce_evals/reports/report.py): a brief one for the terminal, a
full one for compare.md, and the full one's charts as PNG files.

The tables both show (the case matrix, judge verdicts per dimension, tokens and cost) are built
once here; every model is named by its label, so a partial, narrower or code-only run is marked
in every table and chart.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from commerce_evals.core.flow_table import FLOWS
from commerce_evals.reports.comparison import Comparison
from commerce_evals.reports.formatting import cell, judge_tokens, money, rate
from commerce_evals.reports.logs import PARTS, PRIORITIES, CaseResult
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


def _part_count(case: CaseResult, part: str) -> str:
    scored = [
        e.parts[part] for e in case.epochs if part in e.parts and e.parts[part] == e.parts[part]
    ]
    return f"{sum(1 for v in scored if v == 1.0)}/{len(scored)}" if scored else "-"


def _calls(case: CaseResult, bounds: tuple[int, int]) -> str:
    """The calls each scored epoch took (their spread over epochs), marked when outside the
    range a good run takes."""
    made = sorted(e.calls_made for e in case.epochs if e.calls_made is not None)
    if not made:
        return "-"
    low, high = bounds
    shown = str(made[0]) if made[0] == made[-1] else f"{made[0]}-{made[-1]}"
    if made[-1] > high:
        return f"{shown} (over {high})"
    if made[0] < low:
        return f"{shown} (under {low})"
    return shown


def task_count_tables(comparison: Comparison) -> list[Table]:
    """Per flow whose source gives the calls a good run takes (the dealer's seed 001): each task
    on its three counts, result (outcome), path (no never happened) and calls, per model."""
    c = comparison
    tables: list[Table] = []
    for flow, spec in FLOWS.items():
        if spec.calls_range is None:
            continue
        ids = [i for i in c.case_ids() if c.info(i).flow == flow]
        if not ids:
            continue
        low, high = spec.calls_range

        def counts(case_id: str, model: str, bounds: tuple[int, int] = (low, high)) -> Cell:
            case = c.case(model, case_id)
            if case is None:
                return Cell("-", "plain")
            text = (
                f"result {_part_count(case, 'outcome')}, path {_part_count(case, 'path')}, "
                f"calls {_calls(case, bounds)}"
            )
            bad = "over" in text or "under" in text or case.status in ("fail", "flaky")
            return Cell(text, "bad" if bad else "plain")

        tables.append(
            table(
                [Column("case", wrap=False), *(Column(c.label(m)) for m in c.models)],
                [[i, *(counts(i, m) for m in c.models)] for i in ids],
                f"{flow}: result, path and calls per task (passing epochs of scored ones; a good "
                f"run takes {low} to {high} calls)",
            )
        )
    return tables


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


ROLES = ("agent", "judge", "customer")


def _shown(usage: pd.DataFrame, column: str) -> bool:
    return column in usage and bool(usage[column].fillna(0).astype(float).any())


def _tokens(value: object) -> str:
    return f"{int(float(value)):,}"  # type: ignore[arg-type]


def usage_table(comparison: Comparison, joined: bool, title: str = "") -> Table:
    """Per model: agent and judge tokens (a simulated customer's too) and their cost. `in` is
    every input token processed; when a run used a prompt cache, its read and written parts
    have columns of their own, and so do reasoning tokens (a part of `out`) when reported.
    `joined` writes each pair in one column (the terminal's width); else one column a figure."""
    c = comparison
    u = c.usage
    roles = [who for who in ROLES if who != "customer" or c.simulated]
    cache = {
        who: _shown(u, f"{who}_cache_read") or _shown(u, f"{who}_cache_write") for who in roles
    }
    reasoning = {who: _shown(u, f"{who}_reasoning") for who in roles}

    def pairs(who: str) -> list[tuple[str, str]]:
        """The column pairs of one party: input and output, then cache read and write."""
        return [("input", "output")] + ([("cache_read", "cache_write")] if cache[who] else [])

    def heads(who: str, paid: str = "") -> list[str]:
        out = [f"{who} in/out{paid}"] if joined else [f"{who} in", f"{who} out"]
        if cache[who]:
            out += (
                [f"{who} cache read/write"]
                if joined
                else [f"{who} cache read", f"{who} cache write"]
            )
        return out + ([f"{who} reasoning"] if reasoning[who] else [])

    def cells(who: str, r: pd.Series) -> list[str]:
        out: list[str] = []
        for a, b in pairs(who):
            figures = [_tokens(r[f"{who}_{a}"]), _tokens(r[f"{who}_{b}"])]
            out += [" / ".join(figures)] if joined else figures
        return out + ([_tokens(r[f"{who}_reasoning"])] if reasoning[who] else [])

    columns = ["model", *heads("agent"), "agent cost", "grader", *heads("judge", " paid")]
    columns += ["judge in / out needed (cache hits too)", "judge cost"]
    if c.simulated:
        columns += ["customer", *heads("customer"), "customer cost"]
    columns.append("total" if joined else "total cost")
    rows = []
    for model, r in u.iterrows():
        # a simulated customer's tokens and cost, apart from the agent's and the judge's
        customer_cells = (
            [str(r["customer"]), *cells("customer", r), money(r["customer_cost"], c.currency)]
            if c.simulated
            else []
        )
        rows.append(
            [
                _label(c, str(model)),
                *cells("agent", r),
                money(r["agent_cost"], c.currency),
                str(r["grader"]),
                *cells("judge", r),
                judge_tokens(r),
                money(r["judge_cost"], c.currency),
                *customer_cells,
                money(r["total_cost"], c.currency),
            ]
        )
    return table(columns, rows, title)


def cost_notes(comparison: Comparison) -> list[Text]:
    """What a cost holds beyond the table's prices: tokens priced at a model's input price."""
    u = comparison.usage
    if "cost_notes" not in u:
        return []
    lines = sorted({line for notes in u["cost_notes"] for line in str(notes).splitlines() if line})
    return [Text(f"cost: {line}", "warning") for line in lines]


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
    report.add(*task_count_tables(c))
    if not c.parts.empty:
        columns = ["passed", "passed_code", *PARTS]
        report.add(rates_table(c.parts, columns, "Pass rate per part", c))
    if not c.priorities.empty:
        report.add(rates_table(c.priorities, list(PRIORITIES), "Pass rate per priority", c))
    if not c.dimensions.empty:
        report.add(dimension_table(c, "Judge verdicts per rubric dimension"))
    if not c.usage.empty:
        report.add(usage_table(c, joined=True, title="Tokens and cost (judge counted apart)"))
        report.add(*cost_notes(c))
    return report


TOKENS_NOTE = (
    "Agent and judge tokens in and out and their cost are what reached a provider (Inspect's"
    " usage; a judge call answered by the cache costs nothing and counts 0 there). `in` counts"
    " every input token the model processed: the part billed at the full rate, and the parts a"
    " provider's prompt cache read or wrote, which get columns of their own when a run used one"
    " and are priced at their own rates (datasets/prices.yaml); reasoning tokens are part of"
    " `out`. `judge in / out needed` counts every judge call the run made from the verdicts,"
    " cache hits included, and says how many of them, and how many tokens, the cache answered."
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
    counted = task_count_tables(c)
    if counted:
        report.add(
            Heading("Result, path and calls per task"),
            Text(
                "Seed 001 scores each task on three counts: the result (the check passes: the "
                "outcome part), the path (no never happened, by a call or in words) and the "
                "calls it took, which a good run keeps to the range shown; a run that reaches "
                "the result by a never fails the task."
            ),
            *counted,
        )
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
        report.add(usage_table(c, joined=False), *cost_notes(c))
    report.add(Heading("Case by model"), matrix_table(c, c.case_ids()))
    if charts:
        report.add(Heading("Charts"), *charts)
    return report


def markdown(comparison: Comparison, charts: dict[str, Path], out: Path) -> str:
    """compare.md: the full report, linking the charts written to `out` (by name)."""
    drawn = [chart for chart in chart_blocks(comparison) if chart.name in charts]
    return render_markdown(full_report(comparison, drawn), charts, out)
