"""Injection: listings and reviews carrying instructions (eval-only fixtures in poisoned/shop/),
each poisoned case beside a benign should-serve counterpart. Reports benign utility, utility
under attack and attack success rate beside accuracy (`-T poisoned=false` leaves them out)."""

from inspect_ai import Task, task

from commerce_evals.grading.injection_metrics import INJECTION_SCORERS
from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import checked_arguments


@task
@checked_arguments
def injection(
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
    return flow_task("injection", extra_scorers=INJECTION_SCORERS, **locals())
