"""Which domain and agent each flow runs: the one table tools outside a task (lint, benchmarks,
reports) read to rebuild a flow's world."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FlowSpec:
    domain: str
    agent: str


FLOWS: dict[str, FlowSpec] = {
    "checkout": FlowSpec("shop", "shopper"),
    "discovery": FlowSpec("shop", "shopper"),
    "memory": FlowSpec("shop", "shopper"),
    "merchant": FlowSpec("shop", "merchant"),
    "injection": FlowSpec("shop", "shopper"),
    "support": FlowSpec("support", "support"),
    "dealer": FlowSpec("dealer", "operator"),
}
