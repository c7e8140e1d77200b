"""Running a set: one Inspect command for the regression set, a flow's targeted set, or everything.

    inspect eval commerce_evals/case_set -T set=regression --model M --model-role grader=J \
        --log-dir logs/regression

(the registered name works in a clone's root too; see commerce_evals/_registry.py)

`case_set` is an Inspect task source: it yields one task per flow that has cases in the set (each
the flow's own task, filtered to the set's cases, with the set's epochs), so a set can span
domains and a flow with no case in it is simply not run. Each yielded task is `case_set_flow`,
a registered task of its own, so `inspect eval-retry` on one of its logs rebuilds the same
filtered task, and the log records `set` in its task args and metadata for `commerce-evals gate`.
`--epochs` on the command line overrides the set's epochs, as for any task. `-T shard=i/n` runs
shard i of n of the set's cases in each flow (commerce_evals/harness/shards.py); a flow with no case in
that shard is not run on this machine.

Inspect does not run task sources under `eval-set`; a resumable sweep over whole flows
(`everything`) lists the flow tasks instead: see docs/run-pattern.md.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from pathlib import Path

from inspect_ai import Epochs, Task, TaskSource, task, task_source, task_with

from commerce_evals.cases.model import CaseFileError, load_cases
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_inputs import dataset_paths, needs_poisoned
from commerce_evals.harness.flow_samples import sample_case_id, shard_samples
from commerce_evals.harness.shards import Shard
from commerce_evals.harness.shards import metadata as shard_metadata
from commerce_evals.harness.task_args import checked_arguments
from commerce_evals.reports.set_spec import CaseInfo, RunSet, check_ids, load_sets

logger = logging.getLogger(__name__)


class NoCasesInSet(CaseFileError):
    """The flow has no case the set selects (a task needs at least one sample)."""


def flow_task_function(flow: str) -> Callable[..., Task]:
    """The flow's own @task: commerce_evals/<flow>.py defines a task named after the flow."""
    return getattr(import_module(f"commerce_evals.{flow}"), flow)


@lru_cache(maxsize=32)
def _case_infos(paths: tuple[tuple[Path, int, int], ...]) -> list[CaseInfo]:
    cases = load_cases([path for path, _, _ in paths])
    return [CaseInfo(c.id, c.flow, c.priority, tuple(c.tags)) for c in cases]


def flow_cases(flow: str) -> list[CaseInfo]:
    """What selection reads of a flow's cases; read once per process while the files stay as
    they are (a set run asks for every flow once per flow it runs)."""
    stamps = tuple((p, p.stat().st_mtime_ns, p.stat().st_size) for p in dataset_paths(flow, None))
    return _case_infos(stamps) if stamps else []


def set_cases(run_set: RunSet) -> dict[str, list[CaseInfo]]:
    """Every case of each flow the set may take cases from (flows with no case file left out)."""
    found = {flow: flow_cases(flow) for flow in run_set.select.candidate_flows()}
    return {flow: cases for flow, cases in found.items() if cases}


def flows_with_cases(run_set: RunSet, cases: dict[str, list[CaseInfo]] | None = None) -> list[str]:
    """The flows whose case files hold at least one case of the set."""
    by_flow = set_cases(run_set) if cases is None else cases
    return [
        flow
        for flow, infos in by_flow.items()
        if any(run_set.select.matches(info) for info in infos)
    ]


def checked_set(name: str, sets_file: str | None) -> tuple[RunSet, dict[str, list[CaseInfo]]]:
    """The set, once every case id it names is known to exist (see set_spec.check_ids)."""
    run_set = load_sets(sets_file).get(name)
    cases = set_cases(run_set)
    check_ids(name, run_set, (info for infos in cases.values() for info in infos), sets_file)
    return run_set, cases


@task
@checked_arguments
def case_set_flow(
    flow: str,
    set: str,
    sets_file: str | None = None,
    poisoned: bool | None = None,
    max_rounds: int | None = None,
    judge: bool | str | None = None,
    shard: str | None = None,
    agent: str | None = None,
) -> Task:
    """One flow's task filtered to the cases of a set, with the set's epochs.

    Args:
        flow: the flow (a key of commerce_evals.core.flow_table.FLOWS).
        set: the set's name in the sets file.
        sets_file: a sets file to use instead of datasets/sets.yaml.
        poisoned: passed to the flow's task (default: the flow's own).
        max_rounds: passed to the flow's task.
        judge: off for a code-only run on purpose (passed to the flow's task).
        shard: `i/n`: only shard i of n of the set's cases in this flow.
        agent: `FILE.py@NAME`: an Inspect agent instead of the built-in one (passed to the flow).
    """
    run_set, cases = checked_set(set, sets_file)
    merged = FLOWS[flow].poisoned if poisoned is None else poisoned
    chosen = [
        info.id
        for info in cases.get(flow, [])
        if run_set.select.matches(info) and (merged or not needs_poisoned(info.tags))
    ]
    if not chosen:
        raise NoCasesInSet([f"set {set!r}: flow {flow!r} has no case in it"])
    function = flow_task_function(flow)
    # every flow task takes FlowArguments; an argument the set run was not given keeps the
    # flow's default. The flow task builds the set's cases only (their oracles are replayed
    # as the task loads).
    given = {"poisoned": poisoned, "max_rounds": max_rounds, "judge": judge, "agent": agent}
    base = function(**{k: v for k, v in given.items() if v is not None}, cases=",".join(chosen))
    samples = list(base.dataset)
    all_case_ids = [sample_case_id(s) for s in samples]
    part = Shard.parse(shard) if shard else None
    if part is not None:
        samples = shard_samples(samples, part)
        if not samples:
            raise NoCasesInSet([f"set {set!r}: flow {flow!r} has no case in shard {part}"])
    return task_with(
        base,
        dataset=samples,
        epochs=Epochs(run_set.epochs, base.epochs_reducer),
        metadata={**(base.metadata or {}), "set": set, **shard_metadata(part, all_case_ids)},
    )


@task_source
@checked_arguments
def case_set(
    set: str,
    sets_file: str | None = None,
    poisoned: bool | None = None,
    max_rounds: int | None = None,
    judge: bool | str | None = None,
    shard: str | None = None,
    agent: str | None = None,
) -> TaskSource:
    """Every flow's part of a set: one case_set_flow task per flow that has cases in it.

    Args:
        set: the set's name in the sets file (datasets/sets.yaml).
        sets_file: a sets file to use instead.
        poisoned: passed to each flow's task (default: each flow's own).
        max_rounds: passed to each flow's task.
        judge: off for a code-only run on purpose (passed to each flow's task).
        shard: `i/n`: this machine's shard of the set (flows with no case in it are skipped).
        agent: `FILE.py@NAME`: an Inspect agent instead of the built-in one, in every flow.
    """
    run_set, cases = checked_set(set, sets_file)
    tasks = []
    for flow in flows_with_cases(run_set, cases):
        try:
            tasks.append(
                case_set_flow(
                    flow=flow,
                    set=set,
                    sets_file=sets_file,
                    poisoned=poisoned,
                    max_rounds=max_rounds,
                    judge=judge,
                    shard=shard,
                    agent=agent,
                )
            )
        except NoCasesInSet as err:  # the flow's task left the set's cases out (poisoned=false)
            logger.warning(str(err))
    if not tasks:
        raise NoCasesInSet([f"set {set!r} selects no case in any flow"])
    return TaskSource.from_tasks(tasks)
