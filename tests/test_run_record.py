"""The Run is logged once, in the sample's final store, and never as store events."""

from __future__ import annotations

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.event import StoreEvent
from inspect_ai.scorer import Score, accuracy, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import Store

from commerce_evals.core.events import Run
from commerce_evals.grading.score_metadata import PASSED_GRADES_KEY, ScoreMetadata
from commerce_evals.judging.prompt import sha
from commerce_evals.scoring.run_record import (
    RUN_KEY,
    RunRecord,
    keep_run,
    logged_run,
    record_run,
    recorded_run,
)
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


def test_the_log_keeps_a_table_that_did_not_change_once() -> None:
    run = Run(
        start={"cart": [], "orders": [{"id": "o1"}]},
        end={"cart": [{"sku": "a"}], "orders": [{"id": "o1"}]},
    )
    logged = run.as_logged()
    assert logged.start == {"cart": []} and logged.end == run.end
    assert logged.with_start() == run
    assert logged.with_start().start_table("orders") == logged.start_table("orders")
    assert run.with_start() is run  # a whole `start` (logs written before) reads back as it is
    assert logged_run({RUN_KEY: logged.model_dump(mode="json")}) == run


def test_a_logged_run_reads_back_as_the_scorers_and_the_judge_read_it() -> None:
    """Dealer's graders read tables no reference run changes: the log keeps those once, and the
    Run read back has them in `start` again, down to the judge's transcript fingerprint."""
    logs = flow_logs("dealer")
    trimmed = judged = 0
    for sample in [*logs.cases.values(), *logs.samples("alternatives").values()]:
        stored = Run.model_validate(sample.store[RUN_KEY])
        run = logged_run(sample.store)
        assert run is not None and set(run.start) == set(run.end), sample.id
        assert all(run.start[t] != stored.end[t] for t in stored.start), sample.id
        trimmed += len(run.start) - len(stored.start)
        record = ScoreMetadata.from_score((sample.scores or {}).get("commerce_case")).judge
        if record and record.transcript_sha:
            assert record.transcript_sha == sha(run.model_dump(mode="json")), sample.id
            judged += 1
    assert trimmed and judged


def test_the_score_names_its_passing_grades_and_the_store_holds_their_records() -> None:
    """Issue 35, decision 2: the score keeps the failed grades with reasons and the passing ones
    by name; their full records are logged once, in the final store, beside the Run."""
    logs = flow_logs("checkout")
    kinds = [logs.cases.values(), logs.samples("counterexamples").values()]
    failed_seen = 0
    for sample in (s for kind in kinds for s in kind):
        score = (sample.scores or {}).get("commerce_case")
        assert score is not None and score.metadata is not None
        written = ScoreMetadata.from_score(score)
        assert all(not g.passed for g in written.grades), sample.id
        failed_seen += len(written.grades)
        stored = sample.store[PASSED_GRADES_KEY]
        assert [f"{g['part']}/{g['key']}" for g in stored] == list(written.passed_keys)
        assert all(g["passed"] and g["reason"] for g in stored), sample.id
        read = ScoreMetadata.of_sample(sample)
        assert {g.key for g in read.grades if g.passed} == {g["key"] for g in stored}
        assert read.failed_grades() == list(written.grades)
    assert failed_seen  # the counterexamples fail keys, with their reasons in the score
