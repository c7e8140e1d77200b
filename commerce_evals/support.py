"""Support: a store's support agent held to a one-page policy (identity, confirmation, refunds,
final sale, cancellations, addresses, price matching, handing over), on seed 003's dimensions."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments


@task
@flow_arguments
def support(**arguments: Any) -> Task:
    return flow_task("support", **arguments)
