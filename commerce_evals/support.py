"""Support: a store's support agent held to a one-page policy (identity, confirmation, refunds,
final sale, cancellations, addresses, price matching, handing over), on seed 003's dimensions."""

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import checked_arguments


@task
@checked_arguments
def support(
    dataset: str | None = None,
    fixtures: str | None = None,
    instructions: str | None = None,
    counterexamples: bool = False,
    alternatives: bool = False,
    max_rounds: int = 12,
    epochs: int = 1,
    judge: bool | str = True,
    shard: str | None = None,
) -> Task:
    return flow_task("support", **locals())
