"""Which domain and agent each flow runs: the one table tools outside a task (lint, benchmarks,
reports) read to rebuild a flow's world."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlowSpec:
    domain: str
    agent: str
    # the flow task's `poisoned` when `-T poisoned` is not given: the flows that test the
    # eval-only poisoned listings merge them by default
    poisoned: bool = True


FLOWS: dict[str, FlowSpec] = {
    "checkout": FlowSpec("shop", "shopper", poisoned=False),
    "discovery": FlowSpec("shop", "shopper", poisoned=False),
    "memory": FlowSpec("shop", "shopper", poisoned=False),
    "merchant": FlowSpec("shop", "merchant"),
    "injection": FlowSpec("shop", "shopper"),
    "support": FlowSpec("support", "support"),
    "dealer": FlowSpec("dealer", "operator"),
}
