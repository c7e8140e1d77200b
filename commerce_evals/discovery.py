"""Discovery: searches and suggestions, comparisons and product cards, skills only when needed,
budgets, trade-offs, no UI for small talk, multi-item requests fanned out in one round."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments


@task
@flow_arguments
def discovery(**arguments: Any) -> Task:
    return flow_task("discovery", **arguments)
