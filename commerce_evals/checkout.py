"""Checkout: carting what was seen, caps, quantities, confirmation before an order, order status."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments


@task
@flow_arguments
def checkout(**arguments: Any) -> Task:
    return flow_task("checkout", **arguments)
