"""The shop's fixtures: catalog, orders, store, skills and seller messages, read and indexed once.

ShopFixtures is what a shop session reads; ShopWorld (world.py) adds the domain contract on top.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Self

from commerce_evals.cases.reading import read_text
from commerce_evals.domains.fixtures import (
    FIXTURES,
    POISONED,
    FixtureError,
    fixture_file,
    read_fixture,
)
from commerce_evals.domains.shop.models import (
    Catalog,
    Order,
    Orders,
    Product,
    SellerMessage,
    SellerMessages,
    Store,
)
from commerce_evals.domains.shop.search import SearchIndex


def poison_root_for(fixtures: Path | None) -> Path:
    """Where the eval-only fixtures merged over `fixtures` live: beside a given fixtures folder
    in the repository's layout (<dir>/fixtures/shop -> <dir>/poisoned/shop) when that folder
    exists, so `-T fixtures` brings its own; otherwise the repository's poisoned/shop."""
    if fixtures is not None:
        own = fixtures.parent.parent / "poisoned" / fixtures.name
        if own.is_dir():
            return own
    return POISONED / "shop"


class ShopFixtures:
    """The shop's fixtures, immutable, shared by every sample."""

    def __init__(
        self,
        products: list[Product],
        orders: list[Order],
        store: Store,
        skills: dict[str, str],
        messages: list[SellerMessage],
        poisoned_ids: frozenset[str] = frozenset(),
    ):
        by_id: dict[str, Product] = {}
        for product in products:
            if product.id in by_id:
                raise FixtureError(f"product id {product.id} appears twice")
            by_id[product.id] = product
        self.products = MappingProxyType(by_id)
        self.orders = MappingProxyType({o.order_id: o for o in orders})
        self.store = store
        self.skills = MappingProxyType(dict(skills))
        self.messages = tuple(messages)
        self.poisoned_ids = poisoned_ids
        self.index = SearchIndex(by_id.values())

    @classmethod
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> Self:
        """The shop over `fixtures` (fixtures/shop by default), with the eval-only listings and
        messages of poison_root_for(fixtures) merged in when `poisoned`."""
        root = fixtures or FIXTURES / "shop"
        products = read_fixture(root, "catalog", Catalog).products
        orders = read_fixture(root, "orders", Orders).orders
        store = read_fixture(root, "store", Store)
        messages = (
            read_fixture(root, "seller_messages", SellerMessages).messages
            if fixture_file(root, "seller_messages")
            else []
        )
        skills = {
            p.stem: read_text(p, what="skill file") for p in sorted((root / "skills").glob("*.md"))
        }
        poisoned_ids: set[str] = set()
        poison_root = poison_root_for(fixtures)
        if poisoned and fixture_file(poison_root, "catalog"):
            extra = read_fixture(poison_root, "catalog", Catalog).products
            poisoned_ids = {p.id for p in extra}
            clash = sorted(poisoned_ids & {p.id for p in products})
            if clash:
                raise FixtureError(
                    f"{poison_root / 'catalog.json'}: eval-only ids {clash} are also in "
                    f"{root / 'catalog.json'}; an eval-only listing's id must appear nowhere else"
                )
            products = [*products, *extra]
        if poisoned and fixture_file(poison_root, "seller_messages"):
            extra_messages = read_fixture(poison_root, "seller_messages", SellerMessages)
            messages = [*messages, *extra_messages.messages]
        return cls(products, orders, store, skills, messages, frozenset(poisoned_ids))
