"""Seed 001 scores each dealer task on three counts: "the result (the check passes), the path (no
'never' happened), and the calls (how many it took; the good runs above take one to five)".
`commerce-evals compare` shows the three per task and model, with a run outside the range marked."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from typer.testing import CliRunner

from commerce_evals.cli.app import app
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.dealer import dealer
from commerce_evals.reports.compare_report import task_count_tables
from commerce_evals.reports.comparison import Comparison, build_comparison
from commerce_evals.reports.prices import load_prices

SEED_TASKS = [f"dealer-00{n}-*" for n in range(1, 10)]
# its first counterexample dry-runs marking the Bill of Sale signed: a never by a call
FAILED = "dealer-008-chase-closing"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dealer-counts")
    for model, args in (("commerce/reference", {}), ("commerce/flawed-x", {"fail": FAILED})):
        [log] = eval(
            dealer(cases=",".join(SEED_TASKS), judge="off"),
            model=model,
            model_args=args,
            log_dir=str(out),
            display="none",
        )
        assert log.status == "success", log.error
    return out


@pytest.fixture(scope="module")
def comparison(logs: Path) -> Comparison:
    return build_comparison([logs], load_prices())


def test_the_seed_gives_the_dealers_call_range() -> None:
    assert FLOWS["dealer"].calls_range == (1, 5)
    assert all(spec.calls_range is None for flow, spec in FLOWS.items() if flow != "dealer")


def test_each_task_shows_result_path_and_calls_per_model(comparison: Comparison) -> None:
    [counts] = task_count_tables(comparison)
    assert "a good run takes 1 to 5 calls" in counts.title
    rows = {row[0].text: [cell.text for cell in row[1:]] for row in counts.rows}
    assert len(rows) == 9
    reference, flawed = (
        comparison.models.index("commerce/reference"),
        comparison.models.index("commerce/flawed-x"),
    )
    assert rows[FAILED][reference].startswith("result 1/1, path 1/1, calls ")
    assert rows[FAILED][flawed].startswith("result 1/1, path 0/1, calls 4")
    # the seed's triage reads each of three offers with its car: six calls, over its range
    assert rows["dealer-007-triage-offers"][reference].endswith("calls 6 (over 5)")
    assert rows["dealer-002-find-contact-external-id"][reference].endswith("calls 1")


def test_compare_prints_the_counts_and_writes_them_to_compare_md(
    logs: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, ["compare", str(logs), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "dealer: result, path and calls per task" in result.output
    markdown = (tmp_path / "compare.md").read_text(encoding="utf-8")
    assert "## Result, path and calls per task" in markdown
    assert "result 1/1, path 0/1, calls 4" in markdown
