"""Merchant: the operator side. Staged changes (price, stock, listing text, promotion), caps on a
change's size, nothing applied without a person's approval, a staged queue reviewed, amended or
dropped on request, and seller messages that carry instructions (injection metrics included)."""

from inspect_ai import Task, task

from commerce_evals.grading.injection_metrics import INJECTION_SCORERS
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import checked_arguments


@task
@checked_arguments
def merchant(
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    poisoned: bool = True,
    counterexamples: bool = False,
    alternatives: bool = False,
    max_rounds: int = 12,
    epochs: int = 1,
    judge: bool | str = True,
    shard: str | None = None,
) -> Task:
    return flow_task("merchant", extra_scorers=INJECTION_SCORERS, **locals())
