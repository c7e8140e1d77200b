"""The support World: a store's customers, orders, refunds, tickets and one-page policy.

Loaded once per task and shared read-only by every sample. The fixtures are checked against each
other (every order's customer exists, every refund's items are on its order) and against the
fixtures' fixed `today` (nothing is delivered in the future), so a case can rely on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.model import Case
from commerce_evals.cases.reading import MAX_FIXTURE_BYTES, read_data, read_text
from commerce_evals.domains.base import FIXTURES, AgentProfile, World
from commerce_evals.domains.support.models import (
    Customer,
    Customers,
    Order,
    Orders,
    Refund,
    Refunds,
    Store,
    SupportState,
    Ticket,
    Tickets,
)
from commerce_evals.domains.support.tools import SUPPORT_TOOLS
from commerce_evals.grading.changes import ChangeRules

HERE = Path(__file__).parent

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


class FixtureError(InputError):
    """A fixture file that does not load, naming the file and the field."""


def read_fixture(path: Path, model: type[BaseModel]) -> Any:
    try:
        return model.model_validate(read_data(path, MAX_FIXTURE_BYTES, "fixture file"))
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise FixtureError(
            f"{path}: {loc}: {first['msg']} ({err.error_count()} problem{'s' * (err.error_count() != 1)})"
        ) from err


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.casefold())
    return {w[:5] for w in words if w not in _STOPWORDS and len(w) > 1}


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


class SupportWorld(World):
    domain: ClassVar[str] = "support"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "support": AgentProfile("support", HERE / "support.md", tuple(SUPPORT_TOOLS)),
    }
    tables: ClassVar[frozenset[str]] = frozenset(
        {"customers", "addresses", "orders", "refunds", "tickets"}
    )
    change_rules: ClassVar[ChangeRules] = ChangeRules(
        volatile={"refunds": frozenset({"refund_id"}), "tickets": frozenset({"ticket_id"})},
        free_text={"refunds": frozenset({"reason"}), "tickets": frozenset({"summary"})},
    )
    state_model: ClassVar[type[BaseModel]] = SupportState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {"order_id", "customer_id", "verified_customer_id"}
    )

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
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> SupportWorld:
        """Read fixtures/support (or `fixtures`). The domain has no poisoned fixtures yet."""
        root = fixtures or FIXTURES / "support"
        policy_path = root / "policy.md"
        if not policy_path.exists():
            raise FixtureError(f"{policy_path}: missing")
        return cls(
            read_fixture(root / "store.json", Store),
            read_fixture(root / "customers.json", Customers).customers,
            read_fixture(root / "orders.json", Orders).orders,
            read_fixture(root / "refunds.json", Refunds).refunds,
            read_fixture(root / "tickets.json", Tickets).tickets,
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

    def session(self, state: dict[str, Any]) -> Any:
        from commerce_evals.domains.support.session import SupportSession

        return SupportSession(self, SupportState.model_validate(state))

    def instruction_variables(self) -> dict[str, Any]:
        return {
            "store_name": self.store.store_name,
            "today": self.store.today.isoformat(),
            "policy": self.policy.strip(),
        }

    def judge_context(self) -> str:
        """The policy: what a judge needs to tell a stated rule from an invented one."""
        return self.policy

    def known_ids(self) -> set[str]:
        return set(self.customers) | set(self.orders)

    def orders_of(self, customer_id: str) -> tuple[str, ...]:
        return self._orders_by_customer.get(customer_id, ())

    def find_section(self, topic: str) -> PolicySection | None:
        wanted = _stems(topic)
        best = max(self.sections, key=lambda s: len(wanted & s.keys()))
        return best if wanted & best.keys() else None

    def check_case(self, case: Case, agent: AgentProfile) -> list[str]:
        """The base checks, plus: item ids named beside an order id must be on that order."""
        problems = super().check_case(case, agent)
        places: list[tuple[str, Any]] = [("expected", case.expected.model_dump())]
        for index, turn in enumerate(case.reference or []):
            places.append((f"reference[{index}]", turn.model_dump()))
        for where, node in places:
            for path, order_id, item_ids in _item_refs(node, where):
                order = self.orders.get(order_id)
                if order is None:
                    if where != "expected":  # the base check covers expected
                        problems.append(f"{path}: order {order_id!r} is not in the fixtures")
                    continue
                for item_id in item_ids:
                    if order.item(item_id) is None:
                        problems.append(f"{path}: item {item_id!r} is not on order {order_id}")
        return problems


def _unique(rows: list[Any], key: str) -> dict[str, Any]:
    by_id: dict[str, Any] = {}
    for row in rows:
        value = getattr(row, key)
        if value in by_id:
            raise FixtureError(f"{key} {value} appears twice")
        by_id[value] = row
    return by_id


def _item_refs(node: Any, path: str) -> list[tuple[str, str, list[str]]]:
    """Every dict holding both an order_id and item_ids, with where it sits."""
    found: list[tuple[str, str, list[str]]] = []
    if isinstance(node, dict):
        order_id, item_ids = node.get("order_id"), node.get("item_ids")
        if isinstance(order_id, str) and isinstance(item_ids, list):
            found.append((path, order_id, [i for i in item_ids if isinstance(i, str)]))
        for key, value in node.items():
            found.extend(_item_refs(value, f"{path}.{key}"))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found.extend(_item_refs(value, f"{path}[{index}]"))
    return found
