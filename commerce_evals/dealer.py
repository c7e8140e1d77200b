"""Dealer: a car dealer's operations agent on the Cypress Operate sandbox (seed 001's nine tasks
and their negatives): dry runs before writes, idempotency keys, handing a person's decisions to a
person, floors, pause versus delist, the brief, offers, closings and resets."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments


@task
@flow_arguments
def dealer(**arguments: Any) -> Task:
    return flow_task("dealer", **arguments)
