"""`commerce-evals compare`: the case-by-model matrix and failure sets, rates read off Inspect's
analysis frames, judge tokens apart from the agent's, cost (unknown when unpriced), the markdown
report and non-empty PNG charts. Logs come from tests/run_pattern_logs.py (three scripted models)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.core.tokens import TokenCount
from commerce_evals.reports.comparison import Comparison, build_comparison
from commerce_evals.reports.frames import token_usage
from commerce_evals.reports.logs import load_runs, log_files
from commerce_evals.reports.prices import PriceTable, load_prices
from tests.run_pattern_logs import A_FAIL, A_FLAKY, B_FAIL, EPOCHS, MODELS, SUBSET, sweep_dir

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def comparison() -> Comparison:
    return build_comparison([sweep_dir()], load_prices())


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("compare")
    result = CliRunner().invoke(app, ["compare", str(sweep_dir()), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_failure_sets_side_by_side(comparison: Comparison) -> None:
    assert comparison.models == MODELS
    assert set(comparison.failure_set("commerce/reference")) == set()
    assert set(comparison.failure_set("commerce/flawed-a")) == set(A_FAIL) | set(A_FLAKY)
    assert set(comparison.failure_set("commerce/flawed-b")) == set(B_FAIL)
    assert set(comparison.failing_only("commerce/flawed-a")) == (set(A_FAIL) | set(A_FLAKY)) - set(
        B_FAIL
    )
    assert set(comparison.failing_only("commerce/flawed-b")) == set(B_FAIL) - set(A_FAIL)
    assert comparison.failing_everywhere() == []  # the reference passes everything
    assert sorted(comparison.case_ids()) == sorted(SUBSET)


def test_part_rates_from_the_frames_agree_with_the_per_case_results(comparison: Comparison) -> None:
    for model, run in load_runs([sweep_dir()]).items():
        passes = sum(c.passes for c in run.cases.values())
        scored = sum(len(c.bits) for c in run.cases.values())
        assert comparison.parts.loc[model, "passed"] == pytest.approx(passes / scored)
    # flawed-a: 2 cases fail both epochs and 1 fails one: 17 of 22 epochs pass
    assert comparison.parts.loc["commerce/flawed-a", "passed"] == pytest.approx(
        (len(SUBSET) * EPOCHS - len(A_FAIL) * EPOCHS - len(A_FLAKY)) / (len(SUBSET) * EPOCHS)
    )
    assert comparison.parts.loc["commerce/reference"].dropna().eq(1.0).all()


def test_rubric_dimension_rates_count_the_judges_verdicts(comparison: Comparison) -> None:
    dims = comparison.dimensions.set_index(["model", "dimension"])
    # 028 and 029 carry a rubric; flawed-a replays 029's counterexample, whose reply the
    # scripted judge fails: 2 of 4 rubric verdicts pass
    assert dims.loc[("commerce/flawed-a", "rubric"), "pass"] == 2
    assert dims.loc[("commerce/flawed-a", "rubric"), "fail"] == 2
    assert dims.loc[("commerce/reference", "rubric"), "rate"] == 1.0


def test_judge_tokens_are_counted_apart_from_the_agents(comparison: Comparison) -> None:
    usage = comparison.usage
    for model in MODELS:
        log = read_eval_log(
            str(
                next(
                    p
                    for p in log_files([sweep_dir()])
                    if read_eval_log(str(p), header_only=True).eval.model == model
                )
            ),
            header_only=True,
        )
        grader = log.stats.role_usage.get("grader")
        assert usage.loc[model, "judge_input"] == (grader.input_tokens if grader else 0)
        assert usage.loc[model, "agent_input"] == log.stats.model_usage[model].input_tokens
        assert usage.loc[model, "grader"] == "commerce/judge"
    # the judge's verdicts are cached by prompt, so whichever model ran first paid for them
    assert usage["judge_input"].sum() > 0
    assert usage.loc["commerce/reference", "total_cost"] == 0.0


def test_a_grader_on_the_agents_own_model_is_still_counted_apart() -> None:
    evals = pd.DataFrame(
        [
            {
                "model": "anthropic/claude-sonnet-4-6",
                "model_usage": {
                    "anthropic/claude-sonnet-4-6": {
                        "input_tokens": 1_000_000,
                        "output_tokens": 200_000,
                    }
                },
                "role_usage": {"grader": {"input_tokens": 400_000, "output_tokens": 50_000}},
                "model_roles": {"grader": {"model": "anthropic/claude-sonnet-4-6"}},
            }
        ]
    )
    prices = PriceTable.model_validate(
        {"models": {"anthropic/claude-sonnet-4-6": {"input": 3, "output": 15}}}
    )
    row = token_usage(evals, prices).iloc[0]
    assert (row["agent_input"], row["agent_output"]) == (600_000, 150_000)
    assert (row["judge_input"], row["judge_output"]) == (400_000, 50_000)
    assert row["agent_cost"] == pytest.approx(0.6 * 3 + 0.15 * 15)
    assert row["judge_cost"] == pytest.approx(0.4 * 3 + 0.05 * 15)
    # a prompt cache's parts are the agent's less the role's too, each at its own price
    evals.at[0, "model_usage"] = {
        "anthropic/claude-sonnet-4-6": {
            "input_tokens": 100_000,
            "input_tokens_cache_read": 900_000,
            "output_tokens": 200_000,
        }
    }
    evals.at[0, "role_usage"] = {
        "grader": {"input_tokens": 100_000, "input_tokens_cache_read": 300_000, "output_tokens": 0}
    }
    cached = PriceTable.model_validate(
        {"models": {"anthropic/claude-sonnet-4-6": {"input": 3, "output": 15, "cache_read": 0.3}}}
    )
    row = token_usage(evals, cached).iloc[0]
    assert (row["agent_input"], row["agent_cache_read"]) == (600_000, 600_000)
    assert (row["judge_input"], row["judge_cache_read"]) == (400_000, 300_000)
    assert row["agent_cost"] == pytest.approx(0.6 * 0.3 + 0.2 * 15)
    assert row["judge_cost"] == pytest.approx(0.1 * 3 + 0.3 * 0.3)
    unpriced = token_usage(evals, PriceTable()).iloc[0]
    assert unpriced["agent_cost"] is None and unpriced["total_cost"] is None


def test_price_table_patterns_and_unknown_models(tmp_path: Path) -> None:
    prices = load_prices()
    scripted = prices.cost("commerce/flawed-z", TokenCount(input=10, cache_read=10, output=10))
    assert scripted is not None and scripted.amount == 0.0
    haiku = prices.cost("anthropic/claude-haiku-4-5", TokenCount(input=10**6, output=10**6))
    assert haiku is not None and haiku.amount == pytest.approx(6.0)
    assert prices.cost("someone/unknown", TokenCount(input=1, output=1)) is None
    bad = tmp_path / "prices.yaml"
    bad.write_text("models: {x/y: {input: -1, output: 2}}")
    with pytest.raises(ValueError, match="models.x/y.input"):
        load_prices(bad)


def test_judge_tokens_needed_count_cache_hits_too(comparison: Comparison) -> None:
    # every model's verdicts are read off the log, so a model whose judge calls all came from
    # the cache (0 paid tokens) still shows the judging it needed, and how much was cached
    usage = comparison.usage
    for model in MODELS:
        row = usage.loc[model]
        assert row["judge_calls"] > 0 and row["judge_all_input"] > 0, model
        assert row["judge_all_input"] >= row["judge_input"]
        paid_nothing = row["judge_input"] == 0
        assert (row["judge_cached"] == row["judge_calls"]) == paid_nothing, model
        assert row["judge_all_input"] - row["judge_cached_input"] <= row["judge_input"]


def test_pass_hat_k_and_failure_reasons_per_model(comparison: Comparison) -> None:
    # flawed-a fails two cases every epoch and one in one epoch: pass^k counts all three out
    assert comparison.pass_hat_k("commerce/flawed-a") == (
        len(SUBSET) - len(A_FAIL) - len(A_FLAKY),
        len(SUBSET),
    )
    assert comparison.pass_hat_k("commerce/reference") == (len(SUBSET), len(SUBSET))
    reasons = comparison.failure_reasons("commerce/flawed-a")
    assert {case for case, _, _ in reasons} == set(A_FAIL) | set(A_FLAKY)
    assert all("/" in key and reason and "\n" not in reason for _, key, reason in reasons)
    assert comparison.failure_reasons("commerce/reference") == []


def test_wilson_interval_by_hand() -> None:
    from commerce_evals.reports.stats import wilson

    low, high = wilson(5, 10) or (0, 0)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson(0, 3) or (1, 1)
    assert low == 0.0 and high == pytest.approx(0.5615, abs=1e-4)  # not zero-width at 0/n
    assert wilson(0, 0) is None


def test_report_and_charts_are_written(report: tuple[Path, str]) -> None:
    out, terminal = report
    text = (out / "compare.md").read_text()
    assert "## Failure sets side by side" in text
    assert "## Why cases failed, per model" in text and "pass^k (cases)" in text
    assert "95% CI" in text and "judge in / out needed (cache hits too)" in text
    for name in ("pass_rates.png", "priorities.png", "dimensions.png", "tokens.png"):
        data = (out / name).read_bytes()
        assert data.startswith(PNG) and len(data) > 5_000, name
        assert f"]({name})" in text
    row = next(
        line
        for line in text.splitlines()
        if line.startswith("| checkout-017-summary-asks-for-yes |")
    )
    assert row.split(" | ")[2:] == [
        f"FAIL 0/{EPOCHS}",
        f"FAIL 0/{EPOCHS}",
        f"pass {EPOCHS}/{EPOCHS} |",
    ]
    flaky = next(line for line in text.splitlines() if line.startswith(f"| {A_FLAKY[0]} |"))
    assert "flaky 1/2" in flaky
    assert "Cases failing under some model" in terminal
    assert "Tokens and cost (judge counted apart)" in terminal


def test_unpriced_models_are_reported_as_unknown_cost(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("currency: EUR\nmodels: {}\n")
    result = CliRunner().invoke(
        app, ["compare", str(sweep_dir()), "--out", str(tmp_path / "out"), "--prices", str(prices)]
    )
    assert result.exit_code == 0, result.output
    text = (tmp_path / "out" / "compare.md").read_text()
    section = text.split("## Tokens and cost")[1].split("##")[0]
    rows = [line.split(" | ") for line in section.splitlines() if line.startswith("| commerce/")]
    assert len(rows) == len(MODELS)
    for cells in rows:
        assert cells[3] == "unknown"  # agent cost
        assert cells[-1] == "unknown |"  # total cost
