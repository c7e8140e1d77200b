"""The shop as a domain: its fixtures (fixtures.py) under the World contract (domains/base.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from commerce_evals.domains.base import AgentProfile, Authoring, World
from commerce_evals.domains.shop import invariants as shop_invariants
from commerce_evals.domains.shop.fixtures import ShopFixtures
from commerce_evals.domains.shop.gates import EXCLUDED_TOPICS
from commerce_evals.domains.shop.models import (
    ShopState,
)
from commerce_evals.domains.shop.session import ShopSession
from commerce_evals.domains.shop.tools import MERCHANT_TOOLS, SHOPPER_TOOLS
from commerce_evals.domains.shop.wording import money
from commerce_evals.grading.changes import ChangeRules, WriteRule
from commerce_evals.grading.graders import KeyTables
from commerce_evals.grading.invariants import Invariants

HERE = Path(__file__).parent


class ShopWorld(ShopFixtures, World):
    domain: ClassVar[str] = "shop"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "shopper": AgentProfile("shopper", HERE / "shopper.md", SHOPPER_TOOLS),
        "merchant": AgentProfile("merchant", HERE / "merchant.md", MERCHANT_TOOLS),
    }
    tables: ClassVar[frozenset[str]] = frozenset(
        {"cart", "memory", "staged_changes", "applied_changes", "orders"}
    )
    change_rules: ClassVar[ChangeRules] = ChangeRules(
        volatile={
            "staged_changes": frozenset({"change_id"}),
            "applied_changes": frozenset({"change_id"}),
            "orders": frozenset({"order_id"}),
        },
        free_text={
            "memory": frozenset({"text"}),
            "staged_changes": frozenset({"note", "new_value"}),
            "applied_changes": frozenset({"note", "new_value"}),
        },
        # the staging tool's note is optional: a change staged with a note or without one is one
        optional_text={
            "staged_changes": frozenset({"note"}),
            "applied_changes": frozenset({"note"}),
        },
        sets={"orders": frozenset({"items"})},  # an order's lines in any order
        writes={
            # adding, setting and removing a line all write that line: a line the run sets in
            # two steps, or takes out and puts back, is the line an oracle wrote
            **{
                tool: WriteRule("cart line", ("product_id",), tables=frozenset({"cart"}))
                for tool in ("add_to_cart", "update_cart_quantity", "remove_from_cart")
            },
            "place_order": WriteRule("order", tables=frozenset({"orders", "cart"})),
            "save_memory": WriteRule("memory", tables=frozenset({"memory"})),
            "stage_change": WriteRule(
                "staged change", ("kind", "product_id"), tables=frozenset({"staged_changes"})
            ),
            "amend_staged_change": WriteRule(
                "staged change amended", ("change_id",), tables=frozenset({"staged_changes"})
            ),
            "drop_staged_change": WriteRule(
                "staged change dropped", ("change_id",), tables=frozenset({"staged_changes"})
            ),
            "apply_staged_changes": WriteRule(
                "staged change applied",
                ("change_ids",),
                separately=True,
                tables=frozenset({"staged_changes", "applied_changes"}),
            ),
        },
    )
    key_tables: ClassVar[KeyTables] = KeyTables(
        cart="cart",
        memory="memory",
        staged_changes="staged_changes",
        applied_changes="applied_changes",
    )
    invariants: ClassVar[Invariants] = shop_invariants.RULES
    state_model: ClassVar[type[BaseModel]] = ShopState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {
            "product_id",
            "product_ids",
            "cart_not_contains",
            "order_id",
            "seen_products",
            "last_presented",
        }
    )

    def session(self, state: dict[str, Any]) -> ShopSession:
        return ShopSession(self, ShopState.model_validate(state))

    def shown_records(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """Each product on screen with its name and the price it was shown at (the session
        context's lines), and each cart line with its product's name."""
        shown = ShopState.model_validate(state)
        rows: list[dict[str, Any]] = []
        for seen in shown.seen_products:
            product = self.products.get(seen.product_id)
            if product is not None:
                price = product.price if seen.price_seen is None else seen.price_seen
                rows.append({"product_id": product.id, "name": product.name, "price_seen": price})
        for line in shown.cart:
            product = self.products.get(line.product_id)
            if product is not None:
                rows.append(
                    {"product_id": product.id, "name": product.name, "quantity": line.quantity}
                )
        return rows

    def instruction_variables(self) -> dict[str, Any]:
        caps = self.store.caps
        return {
            "store_name": self.store.store_name,
            "customer_name": self.store.customer.name,
            "today": self.store.today.isoformat(),
            "max_quantity": caps.max_quantity_per_line,
            "max_total": f"{caps.max_cart_total:,.2f}",
            "max_total_money": money(caps.max_cart_total, self.store.currency),
            "max_change_pct": f"{caps.max_price_change_pct:g}",
            "skills": ", ".join(
                f"{name} ({_first_line(text)})" for name, text in self.skills.items()
            ),
        }

    def judge_context(self) -> str:
        return ""  # the shop gives a judge no reference text beyond the transcript

    def known_ids(self) -> set[str]:
        return set(self.products) | set(self.orders)

    def authoring(self) -> Authoring:
        return Authoring(
            memory_tool="save_memory",
            search_tool="search_products",
            setup_tools={"add_to_cart": "cart", "stage_change": "staged_changes"},
            seen_tools={
                "search_products": "seen_products",
                "get_product_details": "seen_products",
            },
            not_remembered=EXCLUDED_TOPICS,
            poisoned="commerce_evals.domains.shop.poison:EVAL_ONLY",
        )


def _first_line(markdown: str) -> str:
    """A skill's one-line summary: its first paragraph after the title."""
    paragraphs = [p.strip() for p in markdown.split("\n\n") if p.strip()]
    body = [p for p in paragraphs if not p.startswith("#")]
    return " ".join(body[0].split()) if body else ""
