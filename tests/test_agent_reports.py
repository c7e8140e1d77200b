"""`diff` and `compare` name what made a run besides the model: the agent (the built-in one, an
Inspect agent by `-T agent=`, an MCP client's recorded runs) and the tool descriptions file; runs
of one model by two agents stand side by side in compare instead of merging."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval
from typer.testing import CliRunner

from commerce_evals.checkout import checkout
from commerce_evals.cli.app import app
from commerce_evals.reports.logs import read_logs, results_by_model
from tests.agent_ways import REACT_AGENT
from tests.conftest import DATA
from tests.helpers import SCRIPTED_JUDGE

CASES = "checkout-001-cart-seen-product,checkout-015-price-changed-since-seen"
TOOLS_FILE = DATA / "agents" / "tools_checkout.yaml"


def _run(folder: Path, **args: str) -> Path:
    eval(
        checkout(cases=CASES, **args),
        model="commerce/reference",
        model_roles=SCRIPTED_JUDGE,
        display="none",
        log_dir=str(folder),
    )
    return folder


def test_diff_names_the_agent_and_the_tool_descriptions(tmp_path: Path) -> None:
    base = _run(tmp_path / "base")
    new = _run(tmp_path / "new", agent=REACT_AGENT, tools=str(TOOLS_FILE))
    result = CliRunner().invoke(app, ["diff", str(base), str(new)])
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    assert "checkout: tools, tool descriptions file differ between BASE and NEW" in out
    assert f"checkout: agent: BASE built-in, NEW {REACT_AGENT}" in out
    assert f"checkout: tool descriptions: BASE the domain's, NEW {TOOLS_FILE}" in out


def test_compare_keeps_two_agents_of_one_model_apart(tmp_path: Path) -> None:
    _run(tmp_path / "sweep")
    _run(tmp_path / "sweep", agent=REACT_AGENT)
    runs = results_by_model(read_logs([tmp_path / "sweep"]))
    assert sorted(runs) == ["commerce/reference", f"commerce/reference (agent: {REACT_AGENT})"]
    result = CliRunner().invoke(
        app, ["compare", str(tmp_path / "sweep"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert f"agent: {REACT_AGENT}" in " ".join(result.output.split())
