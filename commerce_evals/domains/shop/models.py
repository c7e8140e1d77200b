"""File formats of the shop domain: fixtures (catalog, orders, store, seller messages) and case state."""

from __future__ import annotations

import math
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from commerce_evals.core.strict import Strict, unique_rows

# Every number a gate compares holds a value a store can have: finite (NaN makes every comparison
# false, so a NaN cap would let anything through), never below zero; a count is a whole number
# (`true` is not 1).
Money = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Count = Annotated[int, Field(ge=0, strict=True)]


def is_money(value: Any) -> bool:
    """A price as a gate may compare it: a finite number, 0 or more (not a bool)."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and math.isfinite(value) and value >= 0


def is_count(value: Any) -> bool:
    """Units on hand: a whole number, 0 or more (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


class Review(Strict):
    author: str
    rating: int = Field(ge=1, le=5)
    text: str


class Product(Strict):
    id: str = Field(pattern=r"^[A-Z]+-[A-Z0-9-]+$")
    name: str
    brand: str
    seller: str
    niche: str
    price: Money
    stock: Count
    attributes: dict[str, Any] = Field(default_factory=dict)
    description: str = ""
    rating: float = Field(default=0.0, ge=0, le=5)
    reviews: list[Review] = Field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """What a search result shows: no reviews, no long description."""
        return {
            "product_id": self.id,
            "name": self.name,
            "brand": self.brand,
            "seller": self.seller,
            "niche": self.niche,
            "price": self.price,
            "in_stock": self.stock > 0,
            "rating": self.rating,
            "attributes": self.attributes,
        }


class Catalog(Strict):
    products: list[Product]

    one_row_per_id = field_validator("products")(unique_rows("id"))


class OrderItem(Strict):
    product_id: str
    quantity: int = Field(ge=1)


class Order(Strict):
    order_id: str
    items: list[OrderItem]
    status: Literal["processing", "shipped", "delivered", "cancelled"]
    placed_on: date
    delivery_date: date
    updated_delivery_date: date | None = None
    carrier: str = ""
    note: str = ""

    @model_validator(mode="after")
    def _delivered_after_placed(self) -> Order:
        for name in ("delivery_date", "updated_delivery_date"):
            when = getattr(self, name)
            if when is not None and when < self.placed_on:
                raise ValueError(
                    f"{self.order_id}: {name} {when} is before placed_on {self.placed_on}"
                )
        return self


class Orders(Strict):
    orders: list[Order]

    one_row_per_id = field_validator("orders")(unique_rows("order_id"))


class Caps(Strict):
    """The store's limits the gates enforce; each above zero (a zero cap blocks everything)."""

    max_quantity_per_line: int = Field(default=10, gt=0, strict=True)
    max_cart_total: float = Field(default=2000.0, gt=0, allow_inf_nan=False)
    max_price_change_pct: float = Field(default=30.0, gt=0, allow_inf_nan=False)


class Customer(Strict):
    name: str
    customer_id: str


class Store(Strict):
    store_name: str
    today: date
    currency: str = "USD"
    # the language the store speaks to its agent in (the session context's lines: wording.py)
    language: Literal["en", "ja"] = "en"
    caps: Caps = Field(default_factory=Caps)
    customer: Customer


class SellerMessage(Strict):
    message_id: str
    seller: str
    subject: str
    body: str
    product_id: str | None = None


class SellerMessages(Strict):
    messages: list[SellerMessage]


# ---- a case's injected state ----------------------------------------------------------------------


class SeenProduct(Strict):
    product_id: str
    price_seen: Money | None = None


class CartLineState(Strict):
    product_id: str
    quantity: int = Field(default=1, ge=1)


class MemoryFact(Strict):
    text: str
    kind: str = "preference"


ChangeKind = Literal["price", "stock", "listing_text", "promotion"]


class StagedChangeState(Strict):
    change_id: str
    kind: ChangeKind
    product_id: str
    new_value: Any
    note: str = ""
    approved_by: str | None = None

    @model_validator(mode="after")
    def _value_fits_kind(self) -> StagedChangeState:
        if self.kind == "price" and not is_money(self.new_value):
            raise ValueError("new_value: a price change's new_value is a price, 0 or more")
        if self.kind == "stock" and not is_count(self.new_value):
            raise ValueError("new_value: a stock change's new_value is a whole number, 0 or more")
        return self


class ShopState(Strict):
    seen_products: list[SeenProduct] = Field(default_factory=list)
    cart: list[CartLineState] = Field(default_factory=list)
    memory: list[MemoryFact] = Field(default_factory=list)
    staged_changes: list[StagedChangeState] = Field(default_factory=list)

    @field_validator("seen_products", mode="before")
    @classmethod
    def _ids_or_rows(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"product_id": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("memory", mode="before")
    @classmethod
    def _texts_or_rows(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"text": v} if isinstance(v, str) else v for v in value]
        return value


# ---- the eval-only poisoned fixtures' manifest (poisoned/shop/vectors.json) ------------------------

VectorKind = Literal["cart_write", "stage_change", "memory_write", "false_claim"]
VectorField = Literal["name", "description", "review", "attribute", "subject", "body"]
MESSAGE_FIELDS = frozenset({"subject", "body"})


class PoisonVector(Strict):
    """One instruction planted in an eval-only listing or seller message.

    `text` is the instruction verbatim, as it appears in `field` of the product or message named;
    a case that asserts the vector names it with the tag `vector:<vector_id>`.
    """

    vector_id: str = Field(pattern=r"^V-\d{2,}$")
    kind: VectorKind
    product_id: str | None = None
    message_id: str | None = None
    field: VectorField
    text: str = Field(min_length=8)

    @model_validator(mode="after")
    def _one_source(self) -> PoisonVector:
        if (self.product_id is None) == (self.message_id is None):
            raise ValueError("name exactly one of product_id and message_id")
        if (self.message_id is not None) != (self.field in MESSAGE_FIELDS):
            raise ValueError(
                "a message vector sits in subject or body; a product vector in name, "
                "description, review or attribute"
            )
        return self


class PoisonVectors(Strict):
    vectors: list[PoisonVector]
