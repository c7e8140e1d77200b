"""The support desk's fixtures: a store's customers, orders, refunds, tickets and one-page policy.

Loaded once per task and shared read-only by every sample; SupportWorld (world.py) adds the domain
contract on top. The fixtures are checked against each
other (every order's customer exists, every refund's items are on its order) and against the
fixtures' fixed `today` (nothing is delivered in the future), so a case can rely on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

from commerce_evals.cases.reading import read_text
from commerce_evals.domains.fixtures import FIXTURES, FixtureError, read_fixture
from commerce_evals.domains.support.models import (
    Customer,
    Customers,
    Order,
    Orders,
    Refund,
    Refunds,
    Store,
    Ticket,
    Tickets,
)
from commerce_evals.japanese.text import is_japanese, search_tokens

# Extra words that find a policy section besides the words of its heading.
SECTION_ALIASES: dict[str, tuple[str, ...]] = {
    "identity": ("verify", "verification", "account"),
    "confirmation": ("confirm", "yes", "consent"),
    "refunds": ("return", "money", "window"),
    "final sale": ("clearance",),
    "cancellations": ("cancel",),
    "addresses": ("move", "moving"),
    "price matching": ("adjustment", "cheaper", "competitor"),
    "handing over to our team": ("human", "person", "escalate", "handoff", "ticket", "agent"),
}
_STOPWORDS = {"the", "a", "an", "of", "to", "and", "for", "on", "in", "our", "with", "your"}


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.casefold())
    # a Japanese policy's headings and topics: character pairs of their kanji and katakana
    japanese = set(search_tokens(text)) if is_japanese(text) else set()
    return {w[:5] for w in words if w not in _STOPWORDS and len(w) > 1} | japanese


@dataclass(frozen=True)
class PolicySection:
    heading: str
    text: str

    @property
    def topic(self) -> str:
        return self.heading.casefold()

    def keys(self) -> set[str]:
        return _stems(self.heading) | _stems(" ".join(SECTION_ALIASES.get(self.topic, ())))


def parse_policy(markdown: str) -> tuple[PolicySection, ...]:
    """The `## ` sections of the policy, each with its heading and body."""
    sections: list[PolicySection] = []
    for block in re.split(r"(?m)^## ", markdown)[1:]:
        heading, _, body = block.partition("\n")
        sections.append(PolicySection(heading.strip(), body.strip()))
    return tuple(sections)


class SupportFixtures:
    """The support desk's fixtures, immutable and checked against each other."""

    def __init__(
        self,
        store: Store,
        customers: list[Customer],
        orders: list[Order],
        refunds: list[Refund],
        tickets: list[Ticket],
        policy: str,
    ):
        self.store = store
        self.customers = MappingProxyType(_unique(customers, "customer_id"))
        self.orders = MappingProxyType(_unique(orders, "order_id"))
        self.refunds = tuple(refunds)
        self.tickets = tuple(tickets)
        self.policy = policy
        self.sections = parse_policy(policy)
        by_customer: dict[str, list[str]] = {}
        for order in orders:
            by_customer.setdefault(order.customer_id, []).append(order.order_id)
        self._orders_by_customer = MappingProxyType(
            {c: tuple(ids) for c, ids in by_customer.items()}
        )
        self._check()

    @classmethod
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> Self:
        """Read fixtures/support (or `fixtures`). The domain has no poisoned fixtures yet."""
        root = fixtures or FIXTURES / "support"
        policy_path = root / "policy.md"
        if not policy_path.exists():
            raise FixtureError(f"{policy_path}: missing")
        return cls(
            read_fixture(root, "store", Store),
            read_fixture(root, "customers", Customers).customers,
            read_fixture(root, "orders", Orders).orders,
            read_fixture(root, "refunds", Refunds).refunds,
            read_fixture(root, "tickets", Tickets).tickets,
            read_text(policy_path, what="policy file"),
        )

    def _check(self) -> None:
        today = self.store.today
        problems: list[str] = []
        for order in self.orders.values():
            if order.customer_id not in self.customers:
                problems.append(f"order {order.order_id}: no customer {order.customer_id}")
            for day in (order.placed_on, order.shipped_on, order.delivered_on, order.cancelled_on):
                if day and day > today:
                    problems.append(f"order {order.order_id}: {day} is after today ({today})")
        for refund in self.refunds:
            order = self.orders.get(refund.order_id)
            if order is None:
                problems.append(f"refund {refund.refund_id}: no order {refund.order_id}")
                continue
            missing = [i for i in refund.item_ids if order.item(i) is None]
            if missing:
                problems.append(f"refund {refund.refund_id}: items {missing} not on the order")
        for ticket in self.tickets:
            if ticket.customer_id and ticket.customer_id not in self.customers:
                problems.append(f"ticket {ticket.ticket_id}: no customer {ticket.customer_id}")
            if ticket.order_id and ticket.order_id not in self.orders:
                problems.append(f"ticket {ticket.ticket_id}: no order {ticket.order_id}")
        if not self.sections:
            problems.append("policy.md: no '## ' sections")
        if problems:
            raise FixtureError("; ".join(problems))

    def orders_of(self, customer_id: str) -> tuple[str, ...]:
        return self._orders_by_customer.get(customer_id, ())

    def find_section(self, topic: str) -> PolicySection | None:
        wanted = _stems(topic)
        best = max(self.sections, key=lambda s: len(wanted & s.keys()))
        return best if wanted & best.keys() else None


def _unique(rows: list[Any], key: str) -> dict[str, Any]:
    by_id: dict[str, Any] = {}
    for row in rows:
        value = getattr(row, key)
        if value in by_id:
            raise FixtureError(f"{key} {value} appears twice")
        by_id[value] = row
    return by_id
