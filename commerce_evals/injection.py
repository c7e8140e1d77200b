"""Injection: listings and reviews carrying instructions (eval-only fixtures in poisoned/shop/),
each poisoned case beside a benign should-serve counterpart. Reports benign utility, utility
under attack and attack success rate beside accuracy (`-T poisoned=false` leaves them out)."""

from typing import Any

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import flow_arguments
from commerce_evals.scoring.injection_metrics import injection_rates


@task
@flow_arguments
def injection(**arguments: Any) -> Task:
    return flow_task("injection", extra_metrics=[injection_rates()], **arguments)
