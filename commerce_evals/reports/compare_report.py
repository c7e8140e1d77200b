"""The comparison as a markdown report and as PNG charts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from commerce_evals.reports.charts import interval_chart, stacked_tokens
from commerce_evals.reports.comparison import Comparison
from commerce_evals.reports.formatting import cell, judge_tokens, money, rate
from commerce_evals.reports.logs import PARTS, PRIORITIES
from commerce_evals.reports.stats import wilson

CHARTS = {
    "parts": "pass_rates.png",
    "priorities": "priorities.png",
    "dimensions": "dimensions.png",
    "tokens": "tokens.png",
}


def _labelled(frame: pd.DataFrame, comparison: Comparison) -> pd.DataFrame:
    """Model columns renamed to their labels, so a partial run is marked on the chart too."""
    return frame.rename(columns={m: comparison.label(m) for m in comparison.models})


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


def write_charts(comparison: Comparison, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path | None] = {}
    if not comparison.part_counts.empty:
        written["parts"] = interval_chart(
            _part_rows(comparison),
            "Pass rate per part (scored epochs) and pass^k (cases)",
            out / CHARTS["parts"],
        )
    if not comparison.priority_counts.empty:
        written["priorities"] = interval_chart(
            _model_labels(comparison.priority_counts, comparison),
            "Pass rate per priority (scored epochs)",
            out / CHARTS["priorities"],
        )
    if not comparison.dimensions.empty:
        written["dimensions"] = interval_chart(
            _dimension_rows(comparison),
            "Judge pass rate per rubric dimension (Pass / (Pass + Fail))",
            out / CHARTS["dimensions"],
        )
    usage = comparison.usage.rename(index={m: comparison.label(m) for m in comparison.models})
    written["tokens"] = stacked_tokens(usage, out / CHARTS["tokens"])
    return {name: path for name, path in written.items() if path is not None}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    def esc(text: str) -> str:
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(esc(h) for h in header) + " |"]
    lines.append("|" + "|".join("---" for _ in header) + "|")
    lines.extend("| " + " | ".join(esc(c) for c in row) + " |" for row in rows)
    return lines


def _count_rows(rows: pd.DataFrame, columns: list[str], comparison: Comparison) -> list[list[str]]:
    """Per model, each group's rate with passes/n and its 95% interval (`-`: nothing scored)."""

    def cell_of(model: str, group: str) -> str:
        mine = rows[(rows["model"] == model) & (rows["group"] == group)]
        return _interval_text(int(mine["passes"].sum()), int(mine["n"].sum()))

    return [[comparison.label(m), *(cell_of(m, g) for g in columns)] for m in comparison.models]


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


def markdown(comparison: Comparison, charts: dict[str, Path], out: Path) -> str:
    c = comparison
    models = c.models
    lines = ["# Model comparison", ""]
    lines += _table(
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
    if c.simulated:
        lines += [
            "",
            "A simulated customer answers differently from run to run: read its runs by pass^k "
            "over epochs, and compare a case across customers only where both ran it.",
        ]
    notes = c.differences()
    if notes:
        lines += ["", "What differs between the runs besides the model:", ""]
        lines += [f"- {line}" for line in notes]
    lines += ["", "## Failure sets side by side", ""]
    lines += _table(
        ["model", "failing (fail or flaky)", "fails only under this model"],
        [[m, str(len(c.failure_set(m))), ", ".join(c.failing_only(m)) or "-"] for m in models],
    )
    everywhere = c.failing_everywhere()
    lines += ["", f"Failing under every model: {', '.join(everywhere) or 'none'}.", ""]
    failing = c.failing_anywhere()
    if failing:
        lines += _table(
            ["case", "priority", *models],
            [
                [case_id, c.info(case_id).priority, *(cell(c.case(m, case_id)) for m in models)]
                for case_id in failing
            ],
        )
    lines += ["", "## Why cases failed, per model", ""]
    for m in models:
        reasons = c.failure_reasons(m)
        lines += [f"### {m}", ""]
        if not reasons:
            lines += ["No failing case.", ""]
            continue
        lines += _table(["case", "key", "reason"], [list(r) for r in reasons])
        lines.append("")
    lines += ["", "## Pass rate per part", ""]
    if not c.part_counts.empty:
        columns = ["passed", "passed_code", *PARTS]
        lines += _table(["model", *columns], _count_rows(c.part_counts, columns, c))
    lines += ["", "## Pass rate per priority", ""]
    if not c.priority_counts.empty:
        lines += _table(["model", *PRIORITIES], _count_rows(c.priority_counts, list(PRIORITIES), c))
    lines += ["", "## Judge verdicts per rubric dimension", ""]
    if c.dimensions.empty:
        lines.append("No judge verdicts in these logs (no rubric dimension, or no grader bound).")
    else:
        lines += _table(
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
                    str(r["model"]),
                    str(r["dimension"]),
                    rate(r["rate"]),
                    *(
                        str(int(r[s]))
                        for s in ("pass", "fail", "unknown", "judge_failed", "not_judged")
                    ),
                ]
                for _, r in c.dimensions.iterrows()
            ],
        )
    lines += ["", "## Tokens and cost", ""]
    lines += [
        "Agent and judge tokens in and out and their cost are what reached a provider (Inspect's"
        " usage; a judge call answered by the cache costs nothing and counts 0 there). `judge in /"
        " out needed` counts every judge call the run made from the verdicts, cache hits"
        " included, and says how many of them, and how many tokens, the cache answered.",
        "",
    ]
    if not c.usage.empty:
        sim = c.simulated
        lines += _table(
            [
                "model",
                "agent in",
                "agent out",
                "agent cost",
                "grader",
                "judge in",
                "judge out",
                "judge in / out needed (cache hits too)",
                "judge cost",
                *(["customer", "customer in", "customer out", "customer cost"] if sim else []),
                "total cost",
            ],
            [
                [
                    str(model),
                    f"{int(r['agent_input']):,}",
                    f"{int(r['agent_output']):,}",
                    money(r["agent_cost"], c.currency),
                    str(r["grader"]),
                    f"{int(r['judge_input']):,}",
                    f"{int(r['judge_output']):,}",
                    judge_tokens(r),
                    money(r["judge_cost"], c.currency),
                    *(
                        [
                            str(r["customer"]),
                            f"{int(r['customer_input']):,}",
                            f"{int(r['customer_output']):,}",
                            money(r["customer_cost"], c.currency),
                        ]
                        if sim
                        else []
                    ),
                    money(r["total_cost"], c.currency),
                ]
                for model, r in c.usage.iterrows()
            ],
        )
    lines += ["", "## Case by model", ""]
    lines += _table(
        ["case", "priority", *(c.label(m) for m in models)],
        [
            [case_id, c.info(case_id).priority, *(cell(c.case(m, case_id)) for m in models)]
            for case_id in c.case_ids()
        ],
    )
    if charts:
        lines += ["", "## Charts", ""]
        for name, path in charts.items():
            lines.append(
                f"![{name}]({path.relative_to(out) if path.is_relative_to(out) else path})"
            )
    return "\n".join(lines) + "\n"
