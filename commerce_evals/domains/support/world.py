"""The support desk as a domain: its fixtures (fixtures.py) under the World contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from commerce_evals.cases.model import Case
from commerce_evals.domains.base import AgentProfile, World
from commerce_evals.domains.support import invariants as support_invariants
from commerce_evals.domains.support.fixtures import SupportFixtures
from commerce_evals.domains.support.models import SupportState
from commerce_evals.domains.support.session import SupportSession
from commerce_evals.domains.support.tools import SUPPORT_TOOLS
from commerce_evals.grading.changes import ChangeRules, WriteRule
from commerce_evals.grading.graders import KeyTables
from commerce_evals.grading.invariants import Invariants

HERE = Path(__file__).parent


class SupportWorld(SupportFixtures, World):
    domain: ClassVar[str] = "support"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "support": AgentProfile("support", HERE / "support.md", SUPPORT_TOOLS),
    }
    tables: ClassVar[frozenset[str]] = frozenset(
        {"customers", "addresses", "orders", "refunds", "tickets"}
    )
    change_rules: ClassVar[ChangeRules] = ChangeRules(
        volatile={"refunds": frozenset({"refund_id"}), "tickets": frozenset({"ticket_id"})},
        free_text={"refunds": frozenset({"reason"}), "tickets": frozenset({"summary"})},
        sets={"refunds": frozenset({"item_ids"})},
        caseless={"addresses": frozenset({"street", "city"}), "orders": frozenset({"ship_to"})},
        writes={
            "issue_refund": WriteRule(
                "refund", ("order_id", "item_ids"), tables=frozenset({"refunds"})
            ),
            "cancel_order": WriteRule("cancellation", ("order_id",), tables=frozenset({"orders"})),
            # one call may change the address on file and an order's: each is a change
            "update_address": WriteRule(
                "address",
                ("customer_id", "order_id"),
                separately=True,
                tables=frozenset({"addresses", "orders"}),
            ),
            "escalate_to_human": WriteRule("ticket", tables=frozenset({"tickets"})),
        },
    )
    key_tables: ClassVar[KeyTables] = KeyTables()  # no cart, memory or change queue
    invariants: ClassVar[Invariants] = support_invariants.RULES
    state_model: ClassVar[type[BaseModel]] = SupportState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {"order_id", "customer_id", "verified_customer_id"}
    )

    def session(self, state: dict[str, Any]) -> SupportSession:
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
