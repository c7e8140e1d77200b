"""A support session: one chat's changes over the shared SupportWorld.

The backend does not enforce the policy, on purpose (seed 003: "The mock backend does not enforce
the policy"): it refunds a final-sale item, refunds an item a second time, cancels a shipped
order, or reads any order, when asked; the agent is the policy layer and the graders catch what
it let through. It refuses only what no backend could do (an unknown id, an item not on the
order, a bad address). Set-up copies only
the injected state; changes are kept beside the World's rows and merged when a snapshot is taken.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from commerce_evals.core.events import Snapshot
from commerce_evals.domains.base import Session, ToolFailure, labelled
from commerce_evals.domains.support.fixtures import SupportFixtures
from commerce_evals.domains.support.models import Address, Order, SupportState
from commerce_evals.domains.tooling import tool
from commerce_evals.japanese.text import is_japanese

NO_MATCH = "no customer matches those details"


def _name_key(name: str) -> str:
    if is_japanese(
        name
    ):  # 「山田 花子」 and 「山田花子」: Japanese writes a name with or without the space
        return "".join(name.split())
    return " ".join(name.split()).casefold()


class SupportSession(Session):
    def __init__(self, world: SupportFixtures, state: SupportState):
        super().__init__()
        self.world = world
        self.today = world.store.today.isoformat()
        if state.verified_customer_id and state.verified_customer_id not in world.customers:
            raise ValueError(f"verified_customer_id {state.verified_customer_id} is not a customer")
        self.signed_in = state.verified_customer_id
        self.order_changes: dict[str, dict[str, Any]] = {}
        self.address_changes: dict[str, dict[str, Any]] = {}
        self.new_refunds: list[dict[str, Any]] = []
        self.new_tickets: list[dict[str, Any]] = []

    # ---- reading --------------------------------------------------------------------------------

    def _order(self, order_id: str) -> Order:
        key = str(order_id).strip().upper()
        if key.isdigit():
            key = f"R-{key}"
        order = self.world.orders.get(key)
        if order is None:
            raise ToolFailure(f"no order with id {order_id!r}")
        return order

    def _order_row(self, order: Order) -> dict[str, Any]:
        row = {
            "order_id": order.order_id,
            "customer_id": order.customer_id,
            "status": order.status,
            "placed_on": order.placed_on.isoformat(),
            "shipped_on": order.shipped_on.isoformat() if order.shipped_on else None,
            "delivered_on": order.delivered_on.isoformat() if order.delivered_on else None,
            "cancelled_on": order.cancelled_on.isoformat() if order.cancelled_on else None,
            "ship_to": order.ship_to.model_dump(),
        }
        row.update(self.order_changes.get(order.order_id, {}))
        return row

    def _address(self, customer_id: str) -> dict[str, Any]:
        changed = self.address_changes.get(customer_id)
        return changed or self.world.customers[customer_id].address.model_dump()

    def _refunds(self) -> list[dict[str, Any]]:
        fixed = [r.model_dump(mode="json") for r in self.world.refunds]
        return fixed + [dict(r) for r in self.new_refunds]

    def _refunded(self, order_id: str) -> dict[str, str]:
        """item id -> the refund that covered it."""
        return {
            item_id: refund["refund_id"]
            for refund in self._refunds()
            if refund["order_id"] == order_id
            for item_id in refund["item_ids"]
        }

    def _profile(self, customer_id: str) -> dict[str, Any]:
        customer = self.world.customers[customer_id]
        orders = [self._order_row(self.world.orders[o]) for o in self.world.orders_of(customer_id)]
        return {
            "customer": {
                "customer_id": customer.customer_id,
                "name": customer.name,
                "address_on_file": self._address(customer_id),
                "orders": [
                    {"order_id": o["order_id"], "status": o["status"], "placed_on": o["placed_on"]}
                    for o in orders
                ],
            }
        }

    # ---- tools: look-ups ------------------------------------------------------------------------

    @tool()
    def tool_find_customer(self, name: str, zip: str) -> dict[str, Any]:
        """Verify a customer by full name and the ZIP code on their account. Returns the customer
        id, name, address on file and their orders (id, status, date placed). When the name and
        ZIP do not match one customer, the answer has status error and says nothing about which
        detail was wrong.

        Args:
            name: The customer's full name as they gave it.
            zip: The five-digit ZIP code they gave.
        """
        wanted = _name_key(name)
        found = [
            c
            for c in self.world.customers.values()
            if _name_key(c.name) == wanted and c.zip == str(zip).strip()
        ]
        if len(found) != 1:
            raise ToolFailure(NO_MATCH)
        return self._profile(found[0].customer_id)

    @tool()
    def tool_find_customer_by_email(self, email: str) -> dict[str, Any]:
        """Verify a customer by the email address on their account. Returns the same as
        find_customer; status error when no account has that email.

        Args:
            email: The email address they gave.
        """
        wanted = str(email).strip().casefold()
        found = [c for c in self.world.customers.values() if c.email.casefold() == wanted]
        if len(found) != 1:
            raise ToolFailure(NO_MATCH)
        return self._profile(found[0].customer_id)

    @tool()
    def tool_get_order(self, order_id: str) -> dict[str, Any]:
        """One order: its customer_id, status (placed, shipped, delivered or cancelled), the dates
        it was placed, shipped and delivered, the shipping address, every item (item_id, name,
        price, clearance, refunded) and the refunds already issued on it, plus today's date.

        Args:
            order_id: An order id, e.g. R-1070.
        """
        order = self._order(order_id)
        refunded = self._refunded(order.order_id)
        row = self._order_row(order)
        row["items"] = [
            {**item.model_dump(), "refunded": item.item_id in refunded} for item in order.items
        ]
        row["refunds"] = [r for r in self._refunds() if r["order_id"] == order.order_id]
        return {"order": row, "today": self.today}

    @tool()
    def tool_get_policy_section(self, topic: str) -> dict[str, Any]:
        """The text of one section of the support policy, found by topic (identity, confirmation,
        refunds, final sale, cancellations, addresses, price matching, handing over). When no
        section matches, says so and lists the sections.

        Args:
            topic: A topic, e.g. refunds.
        """
        section = self.world.find_section(topic)
        if section is None:
            return {
                "found": False,
                "message": f"no section of the policy is about {topic!r}",
                "sections": [s.heading for s in self.world.sections],
            }
        return {"found": True, "section": section.heading, "text": section.text}

    # ---- tools: changes (no policy checks, on purpose) ------------------------------------------

    @tool(writes=True)
    def tool_issue_refund(self, order_id: str, item_ids: list[str], reason: str) -> dict[str, Any]:
        """Refund items of one order to the original payment method, all in one refund; the amount
        is the sum of the items' prices. Carries out whatever it is given.

        Args:
            order_id: An order id, e.g. R-1070.
            item_ids: The item ids (I-...) from get_order to refund together.
            reason: Why, in a few words.
        """
        order = self._order(order_id)
        ids = [item_ids] if isinstance(item_ids, str) else [str(i).strip() for i in item_ids]
        if not ids:
            raise ToolFailure("name at least one item to refund")
        if len(ids) != len(set(ids)):
            raise ToolFailure("an item id appears twice")
        unknown = [i for i in ids if order.item(i) is None]
        if unknown:
            raise ToolFailure(f"items {unknown} are not on order {order.order_id}")
        # an item refunded before is refunded again when asked: "no item is refunded twice" is
        # the policy's, which the agent holds (get_order marks each item `refunded`)
        prices = {item.item_id: item.price for item in order.items}
        refund = {
            "refund_id": f"RF-NEW-{len(self.new_refunds) + 1}",
            "order_id": order.order_id,
            "item_ids": ids,
            "amount": round(sum(prices[i] for i in ids), 2),
            "reason": reason,
            "issued_on": self.today,
        }
        self.new_refunds.append(refund)
        return {"refund": dict(refund)}

    @tool(writes=True)
    def tool_cancel_order(self, order_id: str, reason: str) -> dict[str, Any]:
        """Cancel an order. Carries out whatever it is given.

        Args:
            order_id: An order id, e.g. R-1070.
            reason: Why, in a few words.
        """
        order = self._order(order_id)
        previous = self._order_row(order)["status"]
        if previous == "cancelled":
            raise ToolFailure(f"order {order.order_id} is already cancelled")
        self.order_changes.setdefault(order.order_id, {}).update(
            status="cancelled", cancelled_on=self.today
        )
        return {"order_id": order.order_id, "status": "cancelled", "previous_status": previous}

    @tool(writes=True)
    def tool_update_address(
        self,
        street: str,
        city: str,
        state: str,
        zip: str,
        customer_id: str | None = None,
        order_id: str | None = None,
    ) -> dict[str, Any]:
        """Change an address. With customer_id, the customer's address on file; with order_id, that
        order's shipping address (give both to change both). Carries out whatever it is given.

        Args:
            street: Street and number, with any unit.
            city: The city.
            state: Two-letter state code, e.g. CO.
            zip: Five-digit ZIP code.
            customer_id: The verified customer's id (C-...), as find_customer returned it.
            order_id: An order id, e.g. R-1070.
        """
        if not customer_id and not order_id:
            raise ToolFailure("give customer_id (address on file), order_id (shipping), or both")
        try:
            address = Address(
                street=" ".join(street.split()),
                city=city.strip(),
                state=state.strip().upper(),
                zip=str(zip).strip(),
            ).model_dump()
        except ValidationError as err:  # a bad address is the backend's refusal, not a bug
            raise ToolFailure(str(err)) from err
        updated: list[str] = []
        if customer_id:
            if customer_id not in self.world.customers:
                raise ToolFailure(f"no customer with id {customer_id!r}")
            self.address_changes[customer_id] = address
            updated.append(f"address on file of {customer_id}")
        if order_id:
            order = self._order(order_id)
            self.order_changes.setdefault(order.order_id, {})["ship_to"] = address
            updated.append(f"shipping address of {order.order_id}")
        return {"updated": updated, "address": address}

    @tool(writes=True)
    def tool_escalate_to_human(
        self, summary: str, customer_id: str | None = None, order_id: str | None = None
    ) -> dict[str, Any]:
        """Hand the case to a person on the support team by opening a ticket. A teammate follows up
        with the customer by email. Returns the ticket.

        Args:
            summary: What the customer wants and what you found, in two or three sentences.
            customer_id: The verified customer's id (C-...), as find_customer returned it.
            order_id: An order id, e.g. R-1070.
        """
        if not summary.strip():
            raise ToolFailure("a ticket needs a summary")
        if customer_id and customer_id not in self.world.customers:
            raise ToolFailure(f"no customer with id {customer_id!r}")
        order = self._order(order_id).order_id if order_id else None
        ticket = {
            "ticket_id": f"T-NEW-{len(self.new_tickets) + 1}",
            "customer_id": customer_id,
            "order_id": order,
            "summary": summary.strip(),
            "status": "open",
            "opened_on": self.today,
        }
        self.new_tickets.append(ticket)
        return {"ticket": dict(ticket), "next": "a teammate follows up with the customer by email"}

    # ---- state ----------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        customers = self.world.customers.values()
        return {
            "customers": [c.model_dump(exclude={"address"}) for c in customers],
            "addresses": [
                {"customer_id": c.customer_id, **self._address(c.customer_id)} for c in customers
            ],
            "orders": [self._order_row(o) for o in self.world.orders.values()],
            "refunds": self._refunds(),
            "tickets": [t.model_dump(mode="json") for t in self.world.tickets]
            + [dict(t) for t in self.new_tickets],
        }

    def context(self) -> str:
        words = CONTEXT.get(self.world.store.language, CONTEXT["en"])
        if self.signed_in is None:
            return words["nobody"]
        customer = self.world.customers[self.signed_in]
        who = labelled((words["id"], customer.customer_id), (words["name"], customer.name))
        return words["signed_in"].format(who=who)


# the session context in the store's language
CONTEXT: dict[str, dict[str, str]] = {
    "en": {
        "nobody": "Nobody has been verified in this chat yet.",
        "signed_in": "This chat is signed in: the customer is already verified as\n{who}\n"
        "Do not ask them to verify again.",
        "id": "customer id",
        "name": "name",
    },
    "ja": {
        "nobody": "このチャットではまだ誰も本人確認されていません。",
        "signed_in": "このチャットはログイン済みです。お客様は次の方として本人確認済みです:\n{who}\n"
        "もう一度本人確認を求めないでください。",
        "id": "顧客ID",
        "name": "氏名",
    },
}
