"""Every flow under commerce/reference, one parametrised module over the flow table.

Each flow's cases, counterexamples and alternatives run once per session (tests/flow_runs.py):
every case is a sample and passes its reference, every counterexample fails exactly the keys it
names, every alternative passes, the counterexamples together break every code-graded key the flow
uses, and every verdict is the one recorded in tests/data/verdicts.json (the behaviour before a
refactor; a deliberate change is recorded again with `python -m tests.verdict_record`). What only
one flow has (injection metrics, dealer seed tasks, support's coverage) is in its own file.
"""

from __future__ import annotations

import gc
import json

import pytest

from commerce_evals.cases.model import Case, load_case_sources
from commerce_evals.core.flow_table import FLOWS, FlowSpec
from commerce_evals.harness.flow_inputs import EVAL_ONLY_TAGS, dataset_paths
from commerce_evals.scoring.run_record import logged_run
from commerce_evals.scoring.scorer import brief_from_args, code_grades, grade_context
from tests.flow_runs import KINDS, FlowLogs, flow_and_locale, flow_logs
from tests.helpers import (
    alternative_ids,
    assert_fails_exactly_its_keys,
    assert_passes,
    case_score,
    keys_no_counterexample_breaks,
)
from tests.verdict_record import RUNS, VERDICTS_FILE, flow_verdicts


def flow_cases(name: str) -> list[Case]:
    """The cases a flow's task runs with its defaults (eval-only ones need the poisoned World);
    `checkout-ja` is the checkout flow at the Japanese store (-T locale=ja)."""
    flow, locale = flow_and_locale(name)
    spec: FlowSpec = FLOWS[flow]
    cases = [case for _, case in load_case_sources(dataset_paths(flow, None, locale), flow)]
    return cases if spec.poisoned else [c for c in cases if not EVAL_ONLY_TAGS & set(c.tags)]


@pytest.fixture(scope="module", params=RUNS)
def flow(request: pytest.FixtureRequest) -> FlowLogs:
    return flow_logs(request.param)


def test_every_case_is_a_sample_and_passes_its_reference(flow: FlowLogs) -> None:
    cases = flow_cases(flow.flow)
    assert sorted(flow.cases) == sorted(case.id for case in cases)
    failing = {
        case.id: case_score(flow.cases[case.id]).explanation
        for case in cases
        if not case.skip
        and (
            case_score(flow.cases[case.id]).value["passed"] != 1.0
            or case_score(flow.cases[case.id]).metadata["failed_keys"]
        )
    }
    assert not failing, failing


def test_every_counterexample_fails_exactly_its_keys(flow: FlowLogs) -> None:
    cases = [case for case in flow_cases(flow.flow) if not case.skip]
    expected = [f"{case.id}~{cx.name}" for case in cases for cx in case.counterexamples]
    assert sorted(flow.counterexamples) == sorted(expected)
    for sample in flow.counterexamples.values():
        assert_fails_exactly_its_keys(sample)


def test_every_alternative_passes(flow: FlowLogs) -> None:
    cases = [case for case in flow_cases(flow.flow) if not case.skip]
    assert sorted(flow.alternatives) == sorted(alternative_ids(cases))
    for sample in flow.alternatives.values():
        assert_passes(sample)


def test_counterexamples_together_break_every_key_the_flow_uses(flow: FlowLogs) -> None:
    cases = [case for case in flow_cases(flow.flow) if not case.skip]
    assert keys_no_counterexample_breaks(cases) == set()


def test_every_verdict_is_the_recorded_one(flow: FlowLogs) -> None:
    recorded = json.loads(VERDICTS_FILE.read_text())
    now = json.loads(json.dumps(flow_verdicts(flow.flow)))
    moved = [
        f"{group} {sample}: {recorded[group].get(sample)} -> {now[group].get(sample)}"
        for group in now
        for sample in sorted(recorded[group].keys() | now[group].keys())
        if recorded[group].get(sample) != now[group].get(sample)
    ]
    assert not moved, "verdicts moved:\n" + "\n".join(moved[:40])


def test_grading_a_run_leaves_no_reference_cycles(flow: FlowLogs) -> None:
    """The code graders' garbage is freed as soon as they return. Garbage in a reference cycle
    (a recursive closure holding the run's Records, say) waits for the collector, and what
    outlives two young collections waits for a full one, which scans the whole process. The
    counterexamples take the graders' failing paths, the alternatives their passing ones."""
    for kind in ("counterexamples", "alternatives"):
        log = flow.logs[kind]
        args = (log.eval.scorers or [])[0].options
        brief = brief_from_args(
            *(args[name] for name in ("turn_ending", "writes", "skill_tool", "skill_arg")),
            *(args[name] for name in ("key_tables", "operations", "presents")),
        )
        world = (args["domain"], args["fixtures"], args["poisoned"])
        inputs = [
            (Case.model_validate(sample.metadata["case"]), run, sample.metadata)
            for sample in log.samples or []
            if (run := logged_run(sample.store)) is not None
        ]
        gc.collect()
        gc.disable()
        try:
            for case, run, metadata in inputs:
                ctx = grade_context(case, run, brief, metadata, *world)
                code_grades(case, run, brief, metadata, *world, args["tools"], ctx=ctx)
            left = gc.collect()
        finally:
            gc.enable()
        assert left == 0, f"{kind}: grading {len(inputs)} runs left {left} objects in cycles"


def test_the_verdict_record_covers_every_flow_and_kind() -> None:
    recorded = json.loads(VERDICTS_FILE.read_text())
    assert set(recorded) == {f"{name}/{kind}" for name in RUNS for kind in KINDS}
    assert all(recorded[group] for group in recorded if not group.endswith("/alternatives"))
