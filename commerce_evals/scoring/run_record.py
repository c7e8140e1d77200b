"""Where a sample's Run lives: beside its TaskState while the sample runs, then in its store.

The Run is written to the store once, by the task's cleanup (`keep_run`), after the scorers have
run. Inspect's spans copy the whole store when they open and close and log every change as a
StoreEvent, and the solver's state event logs it again; a Run put in the store by the solver was
serialised about sixteen times per sample and logged four times. Written after the last span has
closed, it is logged once, in the sample's final store, where `inspect view` shows it and
`inspect score` reads it back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from weakref import WeakKeyDictionary

from inspect_ai.solver import TaskState
from inspect_ai.util import Store, StoreModel

from commerce_evals.core.events import Run
from commerce_evals.grading.score_metadata import PassedGrades


class RunRecord(StoreModel):
    """The Run in a sample's store, as logged (see `Run.as_logged`), written and read through
    this model (`store_as`). Read a log's Run whole with `logged_run(sample.store)`."""

    run: Run | None = None


# the store key RunRecord keeps `run` under: every log since the Run was first stored used it, so
# logs written before the model was the way in read the same
RUN_KEY = f"{RunRecord.__name__}:run"

# Keyed by the TaskState object, which Inspect hands to the solver, the scorers and the cleanup
# alike; weak, so a sample that ends without its cleanup (cancelled) leaves nothing behind.
_RUNNING: WeakKeyDictionary[TaskState, Run] = WeakKeyDictionary()


# The full records of a sample's passing grades, from its scorer to its cleanup, which puts them
# in the store beside the Run (grading/score_metadata.py: the score names them only).
_PASSED_GRADES: WeakKeyDictionary[TaskState, list[dict[str, Any]]] = WeakKeyDictionary()


def record_passed_grades(state: TaskState, grades: list[dict[str, Any]]) -> None:
    """Hold the passing grades' records for `keep_run`. Under `inspect score` no cleanup runs and
    the store keeps what the run's own scoring put there."""
    _PASSED_GRADES[state] = grades


def record_run(state: TaskState, run: Run) -> None:
    """Hold the sample's Run for its scorers; `keep_run` puts it in the store after them."""
    _RUNNING[state] = run


def recorded_run(state: TaskState) -> Run | None:
    """The Run the solver recorded for the sample being scored (None: it recorded none). Under
    `inspect score` the sample comes from a log, and its Run from the log's store."""
    run = _RUNNING.get(state)
    if run is not None:
        return run
    return logged_run(state.store)


def logged_run(store: Store | Mapping[str, Any]) -> Run | None:
    """The Run a sample's store holds, with every `start` table back (the log keeps a table that
    did not change once, in `end`), so a Run read from a log equals the Run the scorers read."""
    run = stored_record(store).run
    return run.with_start() if run is not None else None


def stored_record(store: Store | Mapping[str, Any]) -> RunRecord:
    """RunRecord over a store, detached as `EvalSample.store_as` makes it: reading writes
    nothing into the store (a log's sample store is a plain dict; a live one is not touched)."""
    prefix = f"{RunRecord.__name__}:"
    fields = {k.removeprefix(prefix): v for k, v in store.items() if k.startswith(prefix)}
    return RunRecord.model_validate({**fields, "store": Store()})


async def keep_run(state: TaskState) -> None:
    """The task's cleanup: the Run, and the records of the passing grades, into the sample's
    store through their store models, which the log keeps."""
    run = _RUNNING.pop(state, None)
    if run is not None:
        RunRecord(store=state.store).run = run.as_logged()
    grades = _PASSED_GRADES.pop(state, None)
    if grades is not None:
        PassedGrades(store=state.store).records = grades
