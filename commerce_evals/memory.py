"""Memory: a remark worth keeping is saved; identifiers, health, one-off errands and hostile
remarks are not (silently); a stored fact changes the next session's pick."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments


@task
@flow_arguments
def memory(**arguments: Any) -> Task:
    return flow_task("memory", **arguments)
