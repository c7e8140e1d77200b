"""`commerce-evals search QUERY [--domain shop]`: the catalog search exactly as the agent's tool
runs it (same World, poisoned fixtures merged as tasks merge them, same session method), for
authors checking what a case's query returns before they write it."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from commerce_evals.cli.commands._output import plural

if TYPE_CHECKING:  # the domains are imported only when the command runs
    from commerce_evals.domains.base import World
    from commerce_evals.domains.tooling import ToolSpec

# The catalog search tool of each domain that has one.
SEARCH_TOOLS: dict[str, str] = {"shop": "search_products"}


def search_spec(world: World, tool: str) -> ToolSpec:
    for profile in world.agents.values():
        for spec in profile.tools:
            if spec.name == tool:
                return spec
    raise typer.BadParameter(f"no agent of the {world.domain} domain has the tool {tool}")


def run_search(world: World, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The answer the model would get for this call, status included."""
    return world.session({}).call(search_spec(world, tool), args, "search")


def _value(value: Any) -> str:
    if isinstance(value, list):
        return "/".join(str(v) for v in value)
    return str(value)


def results_table(query: str, answer: dict[str, Any]) -> Table:
    results = answer.get("results", [])
    table = Table(title=f"{plural(len(results), 'result')} for {query!r}", title_justify="left")
    for column in ("product_id", "name", "brand", "seller", "price", "stock", "rating"):
        table.add_column(
            column,
            justify="right" if column in {"price", "rating"} else "left",
            no_wrap=column in {"product_id", "price", "stock", "rating"},
        )
    table.add_column("attributes", overflow="fold")
    for row in results:
        attributes = "; ".join(f"{k}={_value(v)}" for k, v in row.get("attributes", {}).items())
        table.add_row(
            escape(str(row.get("product_id", ""))),
            escape(str(row.get("name", ""))),
            escape(str(row.get("brand", ""))),
            escape(str(row.get("seller", ""))),
            f"{row.get('price', 0):.2f}",
            "in stock" if row.get("in_stock") else "[red]out of stock[/red]",
            f"{row.get('rating', 0):g}",
            escape(attributes),
        )
    return table


def search(
    query: Annotated[str, typer.Argument(help="The query, as the agent would pass it.")],
    domain: Annotated[str, typer.Option(help="The domain whose catalog to search.")] = "shop",
    max_price: Annotated[
        float | None, typer.Option(min=0, help="Only at or under this price (0 or more).")
    ] = None,
    min_price: Annotated[
        float | None, typer.Option(min=0, help="Only at or over this price (0 or more).")
    ] = None,
    niche: Annotated[str | None, typer.Option(help="Only this category slug.")] = None,
    in_stock_only: Annotated[bool, typer.Option(help="Leave out sold-out products.")] = False,
    limit: Annotated[
        int | None,
        typer.Option(min=1, help="How many results, at least 1 (the tool's default: 8)."),
    ] = None,
    poisoned: Annotated[
        bool, typer.Option(help="Merge the eval-only poisoned fixtures, as tasks do by default.")
    ] = True,
    fixtures: Annotated[
        Path | None, typer.Option(help="A fixtures folder instead of fixtures/<domain>.")
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the tool's answer as JSON.")
    ] = False,
) -> None:
    """Run the agent's catalog search over the fixtures and print what it returns."""
    from commerce_evals.domains import load_world

    if domain not in SEARCH_TOOLS:
        raise typer.BadParameter(f"no catalog search for domain {domain!r}", param_hint="--domain")
    world = load_world(domain, fixtures, poisoned)
    options = {
        "max_price": max_price,
        "min_price": min_price,
        "niche": niche,
        "in_stock_only": in_stock_only or None,
        "limit": limit,
    }
    args = {"query": query, **{k: v for k, v in options.items() if v is not None}}
    answer = run_search(world, SEARCH_TOOLS[domain], args)
    out = Console(highlight=False, width=None if sys.stdout.isatty() else 160)
    if as_json:
        out.print_json(json.dumps(answer))
    elif answer.get("status") != "ok":
        out.print(f"[red]{escape(str(answer.get('status')))}[/red]: {escape(str(answer))}")
        raise typer.Exit(1)
    else:
        out.print(f"search_products {escape(json.dumps(args))}")
        out.print(results_table(query, answer))


def register(app: typer.Typer) -> None:
    app.command("search")(search)
