"""`commerce-evals cost`: what a run of each flow costs, before any real model is called.

Runs every flow once with the scripted models (offline, a few seconds a flow) and prints, per
flow, the agent's fixed prompt (instructions plus tool descriptions), its calls and tokens per
case under the reference, and the judge's calls and tokens per case. With `--model` it prices a
run of every case at the price table's rates, times `--epochs`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from commerce_evals.cli.commands._output import console, die, plural
from commerce_evals.harness.flow_table import FLOWS
from commerce_evals.reports.cost import CHARS_PER_TOKEN, FlowCost, measure
from commerce_evals.reports.formatting import money
from commerce_evals.reports.prices import PriceFileError, PriceTable, load_prices


def cost_table(costs: list[FlowCost]) -> Table:
    table = Table(title="Per case, under the reference run", title_justify="left")
    for column in ("flow", "cases", "fixed prompt", "agent calls", "agent in/out"):
        table.add_column(column, justify="left" if column == "flow" else "right")
    for column in ("judge calls", "judge in/out"):
        table.add_column(column, justify="right")
    for c in costs:
        table.add_row(
            c.flow,
            str(c.cases),
            f"{c.fixed_prompt_tokens:,}",
            f"{c.agent_calls_per_case:.1f}",
            f"{c.agent_input_tokens_per_case:,.0f}/{c.agent_output_tokens_per_case:,.0f}",
            f"{c.judge_calls_per_case:.1f}",
            f"{c.judge_input_tokens_per_case:,.0f}/{c.judge_output_tokens_per_case:,.0f}",
        )
    return table


def price_table(
    costs: list[FlowCost], prices: PriceTable, agent: str, judge: str | None, epochs: int
) -> Table:
    title = f"A run of every case x {plural(epochs, 'epoch')}: agent {agent}" + (
        f", judge {judge}" if judge else " (no judge)"
    )
    table = Table(title=title, title_justify="left")
    for column in ("flow", "agent", "judge", "total"):
        table.add_column(column, justify="left" if column == "flow" else "right")
    for c in costs:
        runs = c.cases * epochs
        agent_cost = prices.cost(agent, *(int(t * runs) for t in c.agent_tokens()))
        judge_cost = (
            prices.cost(judge, *(int(t * runs) for t in c.judge_tokens())) if judge else 0.0
        )
        total = None if agent_cost is None or judge_cost is None else agent_cost + judge_cost
        table.add_row(
            c.flow,
            money(agent_cost, prices.currency),
            money(judge_cost, prices.currency),
            money(total, prices.currency),
        )
    return table


def cost(
    flow: Annotated[
        list[str] | None, typer.Option("--flow", help="Only these flows (default: every flow).")
    ] = None,
    instructions: Annotated[
        Path | None, typer.Option(help="Your agent's instructions instead of the domain's.")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Price the agent's tokens at this model's rates.")
    ] = None,
    judge: Annotated[
        str | None, typer.Option(help="Price the judge's tokens at this model's rates.")
    ] = None,
    epochs: Annotated[int, typer.Option(min=1, help="Runs of each case to price.")] = 1,
    prices: Annotated[
        Path | None, typer.Option(help="A price table instead of datasets/prices.yaml.")
    ] = None,
) -> None:
    """Calls and tokens per case for each flow, measured offline; priced with --model."""
    out = console()
    flows = flow or sorted(FLOWS)
    unknown = [f for f in flows if f not in FLOWS]
    if unknown:
        die(f"unknown flow {unknown[0]!r}; the flows are {', '.join(sorted(FLOWS))}")
    if instructions is not None and not instructions.is_file():
        die(f"no instructions file {instructions}")
    try:
        table = load_prices(prices) if model or judge else None
    except PriceFileError as err:
        die(str(err))
    costs = measure(flows, str(instructions) if instructions else None)
    out.print(cost_table(costs))
    out.print(
        f"tokens are estimates (characters / {CHARS_PER_TOKEN}); calls are exact for the "
        "reference runs, and a live model usually makes a few more"
    )
    if table is not None and model:
        out.print(price_table(costs, table, model, judge, epochs))


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)
