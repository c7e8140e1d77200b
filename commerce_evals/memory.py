"""Memory: a remark worth keeping is saved; identifiers, health, one-off errands and hostile
remarks are not (silently); a stored fact changes the next session's pick."""

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import checked_arguments


@task
@checked_arguments
def memory(
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    poisoned: bool = False,
    counterexamples: bool = False,
    alternatives: bool = False,
    max_rounds: int = 12,
    epochs: int = 1,
    judge: bool | str = True,
    shard: str | None = None,
) -> Task:
    return flow_task("memory", **locals())
