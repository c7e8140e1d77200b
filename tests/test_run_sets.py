"""Run sets: the sets file validates, selection picks the right cases, and a set runs as one
Inspect command (the case_set task source) with its own epochs, recorded for the gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from typer.testing import CliRunner

from commerce_evals.case_set import flows_with_cases
from commerce_evals.cases.model import load_cases
from commerce_evals.cli.app import app
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_inputs import dataset_paths
from commerce_evals.reports.logs import log_files
from commerce_evals.reports.set_spec import CaseInfo, Selection, SetsFileError, load_sets
from tests.run_pattern_logs import regression_dir


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sets.yaml"
    path.write_text(text)
    return path


def test_the_shipped_sets_file_has_regression_everything_and_a_set_per_flow() -> None:
    sets = load_sets()
    assert {"regression", "everything", *FLOWS} <= set(sets.sets)
    for flow in FLOWS:
        assert sets.get(flow).select.flows == [flow]
    assert sets.get("everything").select.candidate_flows() == list(FLOWS)
    assert sets.get("regression").thresholds.critical_all_epochs


def test_selection_is_flows_and_any_of_tags_priorities_ids_minus_excluded() -> None:
    case = CaseInfo("checkout-001-x", "checkout", "critical", ("add", "regression"))
    assert Selection().matches(case)
    assert Selection(tags=["regression"]).matches(case)
    assert not Selection(tags=["nope"]).matches(case)
    assert Selection(tags=["nope"], priorities=["critical"]).matches(case)
    assert Selection(ids=["checkout-001-x"]).matches(case)
    assert not Selection(flows=["support"]).matches(case)
    assert not Selection(exclude_tags=["add"]).matches(case)
    counterexample = CaseInfo("checkout-001-x~cx", "checkout", "critical", ())
    assert Selection(ids=["checkout-001-x"]).matches(counterexample)


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("sets: {Bad Name: {}}", "a set name"),
        ("sets: {x: {select: {flows: [nowhere]}}}", "not flows"),
        ("sets: {x: {epochs: 0}}", "sets.x.epochs"),
        ("sets: {x: {thresholds: {min_pass_hat_k: 1.5}}}", "sets.x.thresholds.min_pass_hat_k"),
        ("sets: {x: {thresholds: {min_pass_rate_by_priority: {high: 2}}}}", "not in [0, 1]"),
        ("sets: {x: {thresholds: {critical_all_epoch: true}}}", "critical_all_epoch"),
        ("sets: {x: {select: {priorities: [urgent]}}}", "sets.x.select.priorities.0"),
        ("sets: {}", "sets"),
        ("sets: [", "not valid YAML"),
    ],
)
def test_a_bad_sets_file_names_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(SetsFileError) as err:
        load_sets(path)
    assert str(path) in str(err.value)
    assert field in str(err.value)


def test_an_unknown_set_name_lists_the_sets() -> None:
    with pytest.raises(SetsFileError, match="regression"):
        load_sets().get("no-such-set")


def regression_ids() -> set[str]:
    regression = load_sets().get("regression")
    return {
        case.id
        for flow in FLOWS
        for case in load_cases(dataset_paths(flow, None))
        if regression.select.matches(CaseInfo(case.id, case.flow, case.priority, tuple(case.tags)))
    }


@pytest.mark.slow  # the whole regression set with its epochs
def test_the_regression_set_runs_as_one_command_with_its_epochs() -> None:
    logs = [read_eval_log(str(p)) for p in log_files([regression_dir()])]
    regression = load_sets().get("regression")
    assert sorted(log.eval.task for log in logs) == sorted(flows_with_cases(regression))
    ran: set[str] = set()
    for log in logs:
        assert log.eval.metadata["set"] == "regression"
        assert log.eval.task_args["set"] == "regression"
        assert log.eval.config.epochs == regression.epochs
        ids = [str(s.id) for s in log.samples or []]
        assert len(ids) == len(set(ids)) * regression.epochs
        ran |= set(ids)
    assert ran == regression_ids()
    assert ran, "the regression set selects some case"


@pytest.mark.slow  # reads the regression set's run above
def test_the_gate_reads_the_set_from_the_logs_and_passes_the_reference_run() -> None:
    result = CliRunner().invoke(app, ["gate", str(regression_dir())])
    assert result.exit_code == 0, result.output
    assert "set 'regression'" in result.output
    assert "GATE PASSED" in result.output


@pytest.mark.slow  # reads the regression set's run above
def test_the_regression_set_runs_all_nine_seed_001_tasks() -> None:
    """Seed 001: "run them again after any change to the agent's instructions, its model or its
    tools": every one of its nine tasks, whatever its priority, is in the regression set."""
    seed_tasks = {
        case.id
        for case in load_cases(dataset_paths("dealer", None))
        if int(case.id.split("-")[1]) <= 9
    }
    assert len(seed_tasks) == 9
    assert seed_tasks <= regression_ids()
