"""What the docs count, read from the data: the cases of every flow and the fixture files.

Every figure is computed here from the files a run reads (datasets/, fixtures/, poisoned/), so a
doc that states one is regenerated or checked against the same source (claims.py, blocks.py).
Cases are loaded with the eval's own loader, without building a World, so this is cheap.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any

from commerce_evals.cases.model import Case, load_case_sources
from commerce_evals.cases.paths import data_dir
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.harness.flow_inputs import dataset_files, needs_poisoned


@dataclass(frozen=True)
class FlowCases:
    """A flow's cases as a default run holds them, with the file each came from."""

    flow: str
    sources: list[tuple[Path, Case]]

    @property
    def cases(self) -> list[Case]:
        return [case for _, case in self.sources]

    def count(self, keep: Callable[[Case], bool] = lambda case: True) -> int:
        return sum(1 for case in self.cases if keep(case))

    @property
    def with_customer(self) -> int:
        return self.count(lambda case: case.customer is not None)

    @property
    def critical(self) -> int:
        return self.count(lambda case: case.priority == "critical")

    @property
    def counterexamples(self) -> int:
        return sum(len(case.counterexamples) for case in self.cases)

    def by_id(self) -> dict[str, Case]:
        return {case.id: case for case in self.cases}


def _fixture(domain: str, name: str, key: str, folder: str = "fixtures") -> list[dict[str, Any]]:
    path = data_dir(folder) / domain / name  # type: ignore[arg-type]
    rows: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))[key]
    return rows


class DataFacts:
    """The data, read once and counted on demand."""

    @cached_property
    def flows(self) -> dict[str, FlowCases]:
        flows = {}
        for flow, spec in FLOWS.items():
            paths, _ = dataset_files(flow, None)
            sources = load_case_sources(paths, flow)
            if not spec.poisoned:  # a flow that leaves the poisoned listings out drops their cases
                sources = [(p, c) for p, c in sources if not needs_poisoned(c.tags)]
            flows[flow] = FlowCases(flow, [(p, c) for p, c in sources if c.skip is None])
        return flows

    def cases(self, flow: str) -> FlowCases:
        return self.flows[flow]

    @property
    def critical(self) -> int:
        return sum(f.critical for f in self.flows.values())

    # ---- the shop ------------------------------------------------------------------------------

    @cached_property
    def products(self) -> list[dict[str, Any]]:
        return _fixture("shop", "catalog.json", "products")

    @cached_property
    def poisoned_products(self) -> list[dict[str, Any]]:
        return _fixture("shop", "catalog.json", "products", folder="poisoned")

    @cached_property
    def traffic(self) -> list[dict[str, Any]]:
        path = data_dir("datasets") / "production" / "example.jsonl"
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    def fixture_files(self, domain: str) -> int:
        """The data files of a domain's fixtures folder (JSON or YAML)."""
        folder = data_dir("fixtures") / domain
        return sum(1 for p in folder.iterdir() if p.suffix in {".json", ".yaml", ".yml"})

    def snapshot_bytes(self, domain: str) -> int:
        """A fresh session's whole snapshot as JSON: what a sample would log twice if the Run
        kept every table."""
        from commerce_evals.domains import load_world  # builds a World: only when asked

        return len(json.dumps(load_world(domain).session({}).snapshot()))

    # ---- support -------------------------------------------------------------------------------

    @cached_property
    def support_store(self) -> dict[str, Any]:
        path = data_dir("fixtures") / "support" / "store.json"
        store: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return store

    @cached_property
    def support_policy(self) -> str:
        return (data_dir("fixtures") / "support" / "policy.md").read_text(encoding="utf-8")

    @cached_property
    def customers(self) -> dict[str, dict[str, Any]]:
        return {c["customer_id"]: c for c in _fixture("support", "customers.json", "customers")}

    @cached_property
    def orders(self) -> dict[str, dict[str, Any]]:
        return {o["order_id"]: o for o in _fixture("support", "orders.json", "orders")}

    @cached_property
    def refunds(self) -> list[dict[str, Any]]:
        return _fixture("support", "refunds.json", "refunds")

    def order_statuses(self) -> Counter[str]:
        return Counter(o["status"] for o in self.orders.values())

    def order_total(self, order_id: str) -> float:
        return float(sum(item["price"] for item in self.orders[order_id]["items"]))

    def window_day(self, order_id: str) -> int:
        """Which day of its refund window today is for a delivered order (delivery: day 0)."""
        today = date.fromisoformat(self.support_store["today"])
        return (today - date.fromisoformat(self.orders[order_id]["delivered_on"])).days

    # ---- dealer --------------------------------------------------------------------------------

    @cached_property
    def dealer_sandbox(self) -> dict[str, Any]:
        path = data_dir("fixtures") / "dealer" / "sandbox.json"
        sandbox: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return sandbox

    @cached_property
    def dealer_buy_plan(self) -> dict[str, Any]:
        path = data_dir("fixtures") / "dealer" / "buy_plan.json"
        plan: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return plan

    @cached_property
    def vehicles(self) -> dict[str, dict[str, Any]]:
        return {v["id"]: v for v in _fixture("dealer", "vehicles.json", "vehicles")}

    @cached_property
    def offers(self) -> dict[str, dict[str, Any]]:
        return {o["id"]: o for o in _fixture("dealer", "offers.json", "offers")}

    @cached_property
    def contacts(self) -> list[dict[str, Any]]:
        return _fixture("dealer", "contacts.json", "contacts")

    @cached_property
    def dealer_tasks(self) -> list[dict[str, Any]]:
        return _fixture("dealer", "tasks.json", "tasks")

    def vehicle_statuses(self) -> Counter[str]:
        return Counter(v["status"] for v in self.vehicles.values())

    def offer_statuses(self) -> Counter[str]:
        return Counter(o["status"] for o in self.offers.values())


NUMBER_WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy"}
TENS |= {8: "eighty", 9: "ninety"}


def words(n: int) -> str:
    """A count as prose writes it: `nine`, `twenty-one`; digits from 100 on."""
    if 0 <= n < len(NUMBER_WORDS):
        return NUMBER_WORDS[n]
    if 20 < n < 100:
        tens, ones = divmod(n, 10)
        return TENS[tens] + (f"-{NUMBER_WORDS[ones]}" if ones else "")
    return f"{n:,}"
