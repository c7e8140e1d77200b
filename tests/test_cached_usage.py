"""Every part of a model's usage is counted and priced at its own rate: a run through Inspect's
own providers against the local API stubs, each reporting a prompt cache (and reasoning tokens),
shows the whole input the agent processed in `compare`, and its cost at the cache prices, or at
the input price with a note naming the tokens when the price table gives no cache price."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from typer.testing import CliRunner

from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.core.tokens import TokenCount
from commerce_evals.dealer import dealer
from commerce_evals.reports.comparison import build_comparison
from commerce_evals.reports.prices import PriceFileError, PriceTable, load_prices
from tests.anthropic_stub import AnthropicStub
from tests.api_stub import stub_cases, tag_requests_with_case
from tests.helpers import SCRIPTED_JUDGE
from tests.openai_stub import OpenAIStub

CHECKOUT_CASES = ["checkout-001-cart-seen-product", "checkout-017-summary-asks-for-yes"]
DEALER_CASES = ["dealer-002-find-contact-external-id", "dealer-006-brief"]
SONNET = "anthropic/claude-sonnet-4-6"
LOCAL = "openai-api/local/qwen3-8b"
# what one Anthropic call reports: most of the prompt read from the cache, some written to it
ANTHROPIC_USAGE = {
    "input_tokens": 12,
    "cache_read_input_tokens": 3_000,
    "cache_creation_input_tokens": 400,
    "output_tokens": 60,
}
# what a llama.cpp-style server reports: prompt_tokens holds the cached part, and the reasoning
# tokens are part of completion_tokens
OPENAI_USAGE = {
    "prompt_tokens": 2_000,
    "completion_tokens": 80,
    "total_tokens": 2_080,
    "prompt_tokens_details": {"cached_tokens": 1_800},
    "completion_tokens_details": {"reasoning_tokens": 30},
}


def _agent_requests(log: EvalLog) -> int:
    assert log.status == "success", log.error
    assert all(s.error is None for s in log.samples or []), [s.error for s in log.samples or []]
    return sum(
        1
        for sample in log.samples or []
        for event in sample.events
        if event.event == "model" and event.role is None
    )


@pytest.fixture(scope="module")
def anthropic_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """Two checkout cases through the anthropic provider, every call reporting cache use."""
    log_dir = tmp_path_factory.mktemp("cached-anthropic")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-offline-test")
        tag_requests_with_case(patch)
        with AnthropicStub(stub_cases("checkout"), usage=ANTHROPIC_USAGE) as stub:
            [log] = eval(
                checkout(),
                model=SONNET,
                model_base_url=stub.base_url,
                model_roles=SCRIPTED_JUDGE,
                sample_id=CHECKOUT_CASES,
                log_dir=str(log_dir),
                display="none",
                max_retries=0,
            )
    calls = _agent_requests(log)
    assert calls == stub.log.requests > 0
    return log_dir, calls


@pytest.fixture(scope="module")
def openai_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """Two dealer cases through `openai-api` against a server that caches prompts."""
    pytest.importorskip("openai")
    log_dir = tmp_path_factory.mktemp("cached-openai")
    with pytest.MonkeyPatch.context() as patch:
        tag_requests_with_case(patch)
        with OpenAIStub(stub_cases("dealer"), usage=OPENAI_USAGE) as stub:
            patch.setenv("LOCAL_BASE_URL", f"{stub.base_url}/v1")
            patch.setenv("LOCAL_API_KEY", "offline")
            [log] = eval(
                dealer(),
                model=LOCAL,
                model_roles=SCRIPTED_JUDGE,
                sample_id=DEALER_CASES,
                log_dir=str(log_dir),
                display="none",
                max_retries=0,
            )
    calls = _agent_requests(log)
    assert calls == stub.log.requests > 0
    return log_dir, calls


def test_compare_counts_the_cached_input_and_prices_each_part(
    anthropic_run: tuple[Path, int],
) -> None:
    log_dir, calls = anthropic_run
    row = build_comparison([log_dir], load_prices()).usage.loc[SONNET]
    processed = 12 + 3_000 + 400
    assert row["agent_input"] == calls * processed  # not calls * 12, Inspect's input_tokens
    assert row["agent_cache_read"] == calls * 3_000
    assert row["agent_cache_write"] == calls * 400
    assert row["agent_output"] == calls * 60
    # datasets/prices.yaml: 3.00 in, 0.30 cache read, 3.75 cache write, 15.00 out per million
    per_call = (12 * 3.00 + 3_000 * 0.30 + 400 * 3.75 + 60 * 15.00) / 1_000_000
    assert row["agent_cost"] == pytest.approx(calls * per_call)
    assert row["total_cost"] == pytest.approx(calls * per_call)  # the scripted judge is free
    assert row["cost_notes"] == ""


def test_the_compare_report_shows_the_processed_input_and_its_cached_parts(
    anthropic_run: tuple[Path, int], tmp_path: Path
) -> None:
    log_dir, calls = anthropic_run
    result = CliRunner().invoke(app, ["compare", str(log_dir), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = (tmp_path / "compare.md").read_text()
    section = text.split("## Tokens and cost")[1].split("\n## ")[0]
    header = next(line for line in section.splitlines() if line.startswith("| model |"))
    [row] = [line for line in section.splitlines() if line.startswith(f"| {SONNET}")]
    cells = dict(zip(header.strip("|").split(" | "), row.strip("|").split(" | "), strict=True))
    cells = {k.strip(): v.strip() for k, v in cells.items()}
    assert cells["agent in"] == f"{calls * 3_412:,}"
    assert cells["agent cache read"] == f"{calls * 3_000:,}"
    assert cells["agent cache write"] == f"{calls * 400:,}"
    assert "agent reasoning" not in cells  # none reported
    assert f"{calls * 3_412:,} / {calls * 60:,}" in result.output  # the terminal's agent in/out


def test_reasoning_is_shown_as_part_of_the_output_and_never_billed_twice(
    openai_run: tuple[Path, int], tmp_path: Path
) -> None:
    log_dir, calls = openai_run
    prices = PriceTable.model_validate(
        {"models": {"openai-api/local/*": {"input": 1.0, "output": 2.0, "cache_read": 0.25}}}
    )
    row = build_comparison([log_dir], prices).usage.loc[LOCAL]
    assert row["agent_input"] == calls * 2_000
    assert row["agent_cache_read"] == calls * 1_800
    assert row["agent_output"] == calls * 80
    assert row["agent_reasoning"] == calls * 30
    per_call = (200 * 1.0 + 1_800 * 0.25 + 80 * 2.0) / 1_000_000
    assert row["agent_cost"] == pytest.approx(calls * per_call)


def test_a_model_with_no_cache_price_pays_the_input_price_for_it_and_the_report_says_so(
    openai_run: tuple[Path, int], tmp_path: Path
) -> None:
    log_dir, calls = openai_run
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  openai-api/local/*: {input: 1.0, output: 2.0}\n")
    row = build_comparison([log_dir], load_prices(prices)).usage.loc[LOCAL]
    assert row["agent_cost"] == pytest.approx(calls * (2_000 * 1.0 + 80 * 2.0) / 1_000_000)
    note = (
        f"{LOCAL}: {calls * 1_800:,} cache-read input tokens priced at its input price;"
        f" {prices} gives it no cache_read price"
    )
    assert note in row["cost_notes"]
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app, ["compare", str(log_dir), "--out", str(out), "--prices", str(prices)]
    )
    assert result.exit_code == 0, result.output
    assert note in " ".join(result.output.split())  # the terminal wraps long lines
    assert note in (out / "compare.md").read_text()


def test_each_part_has_its_own_price() -> None:
    tokens = TokenCount(input=100, cache_read=1_000, cache_write=50, output=10, reasoning=4)
    assert tokens.processed_input == 1_150
    full = PriceTable.model_validate(
        {"models": {"m/x": {"input": 2, "output": 8, "cache_read": 0.2, "cache_write": 2.5}}}
    )
    cost = full.cost("m/x", tokens)
    assert cost is not None and not cost.at_input_price
    assert cost.amount == pytest.approx((100 * 2 + 1_000 * 0.2 + 50 * 2.5 + 10 * 8) / 1e6)
    bare = PriceTable.model_validate({"models": {"m/x": {"input": 2, "output": 8}}})
    fallback = bare.cost("m/x", tokens)
    assert fallback is not None
    assert fallback.amount == pytest.approx((1_150 * 2 + 10 * 8) / 1e6)
    assert dict(fallback.at_input_price) == {"cache_read": 1_000, "cache_write": 50}
    uncached = bare.cost("m/x", TokenCount(input=100, output=10))
    assert uncached is not None and not bare.fallback_notes("m/x", uncached)
    assert bare.cost("other/model", tokens) is None


def test_the_usage_inspect_records_is_read_part_by_part() -> None:
    usage: dict[str, Any] = {
        "input_tokens": 5,
        "output_tokens": 7,
        "input_tokens_cache_read": None,
        "input_tokens_cache_write": 3,
        "reasoning_tokens": 2,
    }
    assert TokenCount.from_usage(usage) == TokenCount(5, 0, 3, 7, 2)
    assert TokenCount.from_usage(None) == TokenCount()


@pytest.mark.parametrize("field", ["cache_read", "cache_write"])
def test_a_bad_cache_price_is_an_error_naming_its_place(tmp_path: Path, field: str) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text(f"models: {{x/y: {{input: 1, output: 2, {field}: -1}}}}")
    with pytest.raises(PriceFileError, match=rf"prices.yaml: models.x/y.{field}: "):
        load_prices(bad)
    bad.write_text("models: {x/y: {input: 1, output: 2, cache_reads: 1}}")
    with pytest.raises(PriceFileError, match="models.x/y.cache_reads: Extra inputs"):
        load_prices(bad)


def test_the_shipped_price_table_prices_every_provider_model_s_cache() -> None:
    for name, price in load_prices().models.items():
        assert price.cache_read is not None and price.cache_write is not None, name
