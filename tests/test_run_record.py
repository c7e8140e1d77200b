"""The Run is logged once, in the sample's final store, and never as store events."""

from __future__ import annotations

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.event import StoreEvent
from inspect_ai.scorer import Score, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import Store

from commerce_evals.harness.events import Run
from commerce_evals.harness.run_record import RunRecord, keep_run, record_run, recorded_run
from tests.flow_runs import flow_logs


def test_a_flow_logs_the_run_once_in_the_final_store() -> None:
    logs = flow_logs("checkout")
    samples = list(logs.cases.values())
    assert samples
    for sample in samples:
        assert not [e for e in sample.events if isinstance(e, StoreEvent)], sample.id
        run = RunRecord(store=Store(sample.store)).run
        assert run is not None and run.turns, sample.id


@solver
def failing_agent() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        try:
            raise RuntimeError("a handler bug")
        finally:
            record_run(state, Run(start={}))

    return solve


@scorer(metrics=[accuracy()])
def sees_the_run():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: object) -> Score:
        return Score(value=1.0 if recorded_run(state) is not None else 0.0)

    return score


def test_a_failed_sample_keeps_its_run_for_the_log(tmp_path) -> None:  # type: ignore[no-untyped-def]
    task = Task(
        dataset=[Sample(input="x")],
        solver=failing_agent(),
        scorer=sees_the_run(),
        cleanup=keep_run,
        fail_on_error=False,
    )
    [log] = eval(task, model="mockllm/model", display="none", log_dir=str(tmp_path))
    [sample] = log.samples or []
    assert sample.error is not None
    assert RunRecord(store=Store(sample.store)).run is not None
