"""Where a sample's Run lives: beside its TaskState while the sample runs, then in its store.

The Run is written to the store once, by the task's cleanup (`keep_run`), after the scorers have
run. Inspect's spans copy the whole store when they open and close and log every change as a
StoreEvent, and the solver's state event logs it again; a Run put in the store by the solver was
serialised about sixteen times per sample and logged four times. Written after the last span has
closed, it is logged once, in the sample's final store, where `inspect view` shows it and
`inspect score` reads it back.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from inspect_ai.solver import TaskState
from inspect_ai.util import StoreModel

from commerce_evals.harness.events import Run


class RunRecord(StoreModel):
    """The Run in a sample's store. Read a log's Run with `RunRecord(store=Store(sample.store)).run`."""

    run: Run | None = None


RUN_KEY = "RunRecord:run"  # where RunRecord keeps its `run` field in the store

# Keyed by the TaskState object, which Inspect hands to the solver, the scorers and the cleanup
# alike; weak, so a sample that ends without its cleanup (cancelled) leaves nothing behind.
_RUNNING: WeakKeyDictionary[TaskState, Run] = WeakKeyDictionary()


def record_run(state: TaskState, run: Run) -> None:
    """Hold the sample's Run for its scorers; `keep_run` puts it in the store after them."""
    _RUNNING[state] = run


def recorded_run(state: TaskState) -> Run | None:
    """The Run the solver recorded for the sample being scored (None: it recorded none). Under
    `inspect score` the sample comes from a log, and its Run from the log's store."""
    run = _RUNNING.get(state)
    if run is not None:
        return run
    value = state.store.get(RUN_KEY)
    if value is None or isinstance(value, Run):
        return value
    return Run.model_validate(value)


async def keep_run(state: TaskState) -> None:
    """The task's cleanup: the Run into the sample's store, which the log keeps."""
    run = _RUNNING.pop(state, None)
    if run is not None:
        state.store.set(RUN_KEY, run)
