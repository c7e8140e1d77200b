"""Merchant: the operator side. Staged changes (price, stock, listing text, promotion), caps on a
change's size, nothing applied without a person's approval, a staged queue reviewed, amended or
dropped on request, and seller messages that carry instructions (injection metrics included)."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments
from commerce_evals.scoring.injection_metrics import injection_rates


@task
@flow_arguments
def merchant(**arguments: Any) -> Task:
    return flow_task("merchant", extra_metrics=[injection_rates()], **arguments)
