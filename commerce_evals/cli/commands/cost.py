"""`commerce-evals cost`: what a run of each flow costs, before any real model is called.

Runs every flow once with the scripted models (offline, a few seconds a flow) and prints, per
flow, the agent's fixed prompt (instructions plus tool descriptions), its calls and tokens per
case under the reference, and the judge's calls and tokens per case. With `--model` it prices a
run of every case at the price table's rates, times `--epochs`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from commerce_evals.cli.commands._output import console, die, plural
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.reports.report import Column, Report, Table, Text, table
from commerce_evals.reports.terminal import print_report

if TYPE_CHECKING:  # Inspect is imported only when the command runs
    from commerce_evals.reports.cost import FlowCost
    from commerce_evals.reports.prices import PriceTable


def cost_table(costs: list[FlowCost]) -> Table:
    columns = ["flow", "cases", "fixed prompt", "agent calls", "agent in/out"]
    columns += ["judge calls", "judge in/out"]
    return table(
        [Column(c, right=c != "flow") for c in columns],
        [
            [
                c.flow,
                str(c.cases),
                f"{c.fixed_prompt_tokens:,}",
                f"{c.agent_calls_per_case:.1f}",
                f"{c.agent_input_tokens_per_case:,.0f}/{c.agent_output_tokens_per_case:,.0f}",
                f"{c.judge_calls_per_case:.1f}",
                f"{c.judge_input_tokens_per_case:,.0f}/{c.judge_output_tokens_per_case:,.0f}",
            ]
            for c in costs
        ],
        "Per case, under the reference run",
    )


def price_table(
    costs: list[FlowCost], prices: PriceTable, agent: str, judge: str | None, epochs: int
) -> Table:
    from commerce_evals.reports.formatting import money

    title = f"A run of every case x {plural(epochs, 'epoch')}: agent {agent}" + (
        f", judge {judge}" if judge else " (no judge)"
    )
    rows = []
    for c in costs:
        runs = c.cases * epochs
        agent_priced = prices.cost(agent, c.agent_tokens(runs))
        agent_cost = None if agent_priced is None else agent_priced.amount
        judge_priced = prices.cost(judge, c.judge_tokens(runs)) if judge else None
        judge_cost = (None if judge_priced is None else judge_priced.amount) if judge else 0.0
        total = None if agent_cost is None or judge_cost is None else agent_cost + judge_cost
        rows.append(
            [
                c.flow,
                money(agent_cost, prices.currency),
                money(judge_cost, prices.currency),
                money(total, prices.currency),
            ]
        )
    return table(
        [Column(c, right=c != "flow") for c in ("flow", "agent", "judge", "total")], rows, title
    )


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
    from commerce_evals.reports.cost import CHARS_PER_TOKEN, measure
    from commerce_evals.reports.prices import PriceFileError, load_prices

    out = console()
    flows = flow or sorted(FLOWS)
    unknown = [f for f in flows if f not in FLOWS]
    if unknown:
        die(f"unknown flow {unknown[0]!r}; the flows are {', '.join(sorted(FLOWS))}")
    if instructions is not None and not instructions.is_file():
        die(f"no instructions file {instructions}")
    try:
        price_list = load_prices(prices) if model or judge else None
    except PriceFileError as err:
        die(str(err))
    costs = measure(flows, str(instructions) if instructions else None)
    report = Report(
        [
            cost_table(costs),
            Text(
                f"tokens are estimates (characters / {CHARS_PER_TOKEN}); calls are exact for the "
                "reference runs, and a live model usually makes a few more"
            ),
        ]
    )
    if price_list is not None and model:
        report.add(
            price_table(costs, price_list, model, judge, epochs),
            Text(
                "every input token is priced at the full input rate: a provider's prompt cache "
                "would serve the fixed prompt resent with every call for less"
            ),
        )
    print_report(out, report)


def register(app: typer.Typer) -> None:
    app.command("cost")(cost)
