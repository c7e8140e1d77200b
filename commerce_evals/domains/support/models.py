"""File formats of the support domain: the store, customers, orders, refunds, tickets, case state.

Every model refuses unknown keys. Dates are checked against the fixtures' fixed `today` when the
World loads (see world.py), so "delivered 16 days ago" stays true whatever the calendar says.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field, field_validator, model_validator

from commerce_evals.core.strict import Strict, unique_rows

CUSTOMER_ID = r"^C-\d{3}$"
ORDER_ID = r"^R-\d{4}$"
ITEM_ID = r"^I-\d+$"
# a US ZIP code, or a Japanese postal code (郵便番号, 150-0001) for a store in Japan
ZIP = r"^\d{5}$|^\d{3}-\d{4}$"


class Store(Strict):
    store_name: str
    today: date
    currency: str = "USD"
    # the language the store speaks to its agent in (the session context's lines)
    language: Literal["en", "ja"] = "en"


class Address(Strict):
    street: str
    city: str
    # a US state's code, or a Japanese prefecture (東京都, 大阪府, 北海道, 神奈川県)
    state: str = Field(pattern=r"^[A-Z]{2}$|^(?:北海道|東京都|京都府|大阪府|\w{2,3}県)$")
    zip: str = Field(pattern=ZIP)


class Customer(Strict):
    customer_id: str = Field(pattern=CUSTOMER_ID)
    name: str
    zip: str = Field(pattern=ZIP, description="The billing ZIP code used to verify identity.")
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+\.[a-z]+$")
    address: Address


class Customers(Strict):
    customers: list[Customer]

    one_row_per_id = field_validator("customers")(unique_rows("customer_id"))


class Item(Strict):
    """One line of an order: one unit at `price`. Item ids are unique within their order."""

    item_id: str = Field(pattern=ITEM_ID)
    name: str
    price: float = Field(gt=0, allow_inf_nan=False)
    clearance: bool = False


OrderStatus = Literal["placed", "shipped", "delivered", "cancelled"]


class Order(Strict):
    order_id: str = Field(pattern=ORDER_ID)
    customer_id: str = Field(pattern=CUSTOMER_ID)
    status: OrderStatus
    placed_on: date
    shipped_on: date | None = None
    delivered_on: date | None = None
    cancelled_on: date | None = None
    ship_to: Address
    items: list[Item] = Field(min_length=1)

    @model_validator(mode="after")
    def _dates_fit_status(self) -> Order:
        shipped = self.status in ("shipped", "delivered")
        if shipped != (self.shipped_on is not None):
            raise ValueError(f"{self.order_id}: shipped_on is set exactly when it has shipped")
        if (self.status == "delivered") != (self.delivered_on is not None):
            raise ValueError(f"{self.order_id}: delivered_on is set exactly when delivered")
        if (self.status == "cancelled") != (self.cancelled_on is not None):
            raise ValueError(f"{self.order_id}: cancelled_on is set exactly when cancelled")
        dates = [d for d in (self.placed_on, self.shipped_on, self.delivered_on) if d]
        if dates != sorted(dates):
            raise ValueError(f"{self.order_id}: placed, shipped and delivered dates out of order")
        ids = [i.item_id for i in self.items]
        if len(ids) != len(set(ids)):
            raise ValueError(f"{self.order_id}: an item id appears twice")
        return self

    def item(self, item_id: str) -> Item | None:
        return next((i for i in self.items if i.item_id == item_id), None)


class Orders(Strict):
    orders: list[Order]

    one_row_per_id = field_validator("orders")(unique_rows("order_id"))


class Refund(Strict):
    refund_id: str = Field(pattern=r"^RF-[A-Z0-9-]+$")
    order_id: str = Field(pattern=ORDER_ID)
    item_ids: list[str] = Field(min_length=1)
    amount: float = Field(gt=0, allow_inf_nan=False)
    reason: str
    issued_on: date


class Refunds(Strict):
    refunds: list[Refund]

    one_row_per_id = field_validator("refunds")(unique_rows("refund_id"))


class Ticket(Strict):
    ticket_id: str = Field(pattern=r"^T-[A-Z0-9-]+$")
    customer_id: str | None = Field(default=None, pattern=CUSTOMER_ID)
    order_id: str | None = Field(default=None, pattern=ORDER_ID)
    summary: str
    status: Literal["open", "closed"]
    opened_on: date


class Tickets(Strict):
    tickets: list[Ticket]

    one_row_per_id = field_validator("tickets")(unique_rows("ticket_id"))


# ---- a case's injected state ----------------------------------------------------------------------


class SupportState(Strict):
    """Preconditions a case may inject.

    verified_customer_id: the chat is signed in as this customer, so identity is already verified
    (the agent's instructions say so). Without it, the agent must verify before any account action.
    """

    verified_customer_id: str | None = Field(default=None, pattern=CUSTOMER_ID)
