"""`commerce-evals search`: the agent's own search tool over the fixtures."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.domains.shop.world import ShopWorld

runner = CliRunner()


def test_prints_what_the_agent_tool_returns() -> None:
    result = runner.invoke(app, ["search", "Groundwell Grip yoga mat", "--limit", "3"])
    assert result.exit_code == 0, result.output
    expected = (
        ShopWorld.load().session({}).tool_search_products("Groundwell Grip yoga mat", limit=3)
    )
    for row in expected["results"]:
        assert row["product_id"] in result.output
    assert "3 results" in result.output


def test_json_is_the_tool_answer_with_filters() -> None:
    result = runner.invoke(
        app, ["search", "road running shoe", "--max-price", "50", "--json", "--no-poisoned"]
    )
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["status"] == "ok"
    assert {r["product_id"] for r in answer["results"]} == {"P-1008", "P-1009", "P-1010"}


def test_poisoned_listings_show_unless_left_out() -> None:
    with_poison = runner.invoke(app, ["search", "insulated water bottle 900 ml"]).output
    without = runner.invoke(
        app, ["search", "insulated water bottle 900 ml", "--no-poisoned"]
    ).output
    assert "PE-2006" in with_poison and "PE-2006" not in without


def test_unknown_domain_is_refused() -> None:
    result = runner.invoke(app, ["search", "x", "--domain", "nowhere"])
    assert result.exit_code == 2
