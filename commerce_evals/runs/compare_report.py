"""The comparison as a markdown report and as PNG charts."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from commerce_evals.runs.charts import grouped_bars, stacked_tokens
from commerce_evals.runs.comparison import Comparison
from commerce_evals.runs.formatting import cell, money, rate
from commerce_evals.runs.logs import PARTS, PRIORITIES

CHARTS = {
    "parts": "pass_rates.png",
    "priorities": "priorities.png",
    "dimensions": "dimensions.png",
    "tokens": "tokens.png",
}


def _labelled(frame: pd.DataFrame, comparison: Comparison) -> pd.DataFrame:
    """Model columns renamed to their labels, so a partial run is marked on the chart too."""
    return frame.rename(columns={m: comparison.label(m) for m in comparison.models})


def write_charts(comparison: Comparison, out: Path) -> dict[str, Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path | None] = {}
    if not comparison.parts.empty:
        # parts on the x axis, a bar per model
        parts = _labelled(comparison.parts[["passed", "passed_code", *PARTS]].T, comparison)
        written["parts"] = grouped_bars(
            parts, "Pass rate per part (scored epochs)", "pass rate", out / CHARTS["parts"]
        )
    if not comparison.priorities.empty:
        written["priorities"] = grouped_bars(
            _labelled(comparison.priorities[list(PRIORITIES)].T, comparison),
            "Pass rate per priority",
            "pass rate",
            out / CHARTS["priorities"],
        )
    if not comparison.dimensions.empty:
        dims = _labelled(
            comparison.dimensions.pivot(index="dimension", columns="model", values="rate"),
            comparison,
        )
        written["dimensions"] = grouped_bars(
            dims,
            "Judge pass rate per rubric dimension",
            "Pass / (Pass + Fail)",
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


def _frame_rows(frame: pd.DataFrame, columns: list[str], comparison: Comparison) -> list[list[str]]:
    return [
        [comparison.label(str(index)), *(rate(row[c]) for c in columns)]
        for index, row in frame.iterrows()
    ]


def markdown(comparison: Comparison, charts: dict[str, Path], out: Path) -> str:
    c = comparison
    models = c.models
    lines = ["# Model comparison", ""]
    lines += _table(
        ["model", "cases", "epochs", "logs", "grader", "needs review", "marks"],
        [
            [
                m,
                str(len(run.cases)),
                str(run.epochs),
                str(len(run.logs)),
                ", ".join(sorted({log.grader for log in run.logs if log.grader})) or "-",
                ", ".join(c.needs_review(m)) or "-",
                c.coverage(m) or "-",
            ]
            for m, run in c.runs.items()
        ],
    )
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
    lines += ["", "## Pass rate per part", ""]
    if not c.parts.empty:
        columns = ["passed", "passed_code", *PARTS]
        lines += _table(["model", *columns], _frame_rows(c.parts, columns, c))
    lines += ["", "## Pass rate per priority", ""]
    if not c.priorities.empty:
        lines += _table(["model", *PRIORITIES], _frame_rows(c.priorities, list(PRIORITIES), c))
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
    if not c.usage.empty:
        lines += _table(
            [
                "model",
                "agent in",
                "agent out",
                "agent cost",
                "grader",
                "judge in",
                "judge out",
                "judge cost",
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
                    money(r["judge_cost"], c.currency),
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
