"""Dealer: a car dealer's operations agent on the Cypress Operate sandbox (seed 001's nine tasks
and their negatives): dry runs before writes, idempotency keys, handing a person's decisions to a
person, floors, pause versus delist, the brief, offers, closings and resets."""

from inspect_ai import Task, task

from commerce_evals.harness.flow_task import flow_task
from commerce_evals.harness.task_args import checked_arguments


@task
@checked_arguments
def dealer(
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
    return flow_task("dealer", **locals())
