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
    # the calls a good run of one of the flow's tasks takes, when its source says (reports mark a
    # run outside it beside its result and path)
    calls_range: tuple[int, int] | None = None


FLOWS: dict[str, FlowSpec] = {
    "checkout": FlowSpec("shop", "shopper", poisoned=False),
    "discovery": FlowSpec("shop", "shopper", poisoned=False),
    "memory": FlowSpec("shop", "shopper", poisoned=False),
    "merchant": FlowSpec("shop", "merchant"),
    "injection": FlowSpec("shop", "shopper"),
    "support": FlowSpec("support", "support"),
    # seed 001: "the good runs above take one to five" calls
    "dealer": FlowSpec("dealer", "operator", calls_range=(1, 5)),
}

# what a log's `agent_under_test` says of a run of a flow's own tool loop (not an Inspect agent
# given with -T agent=)
BUILT_IN_AGENT = "built-in"
