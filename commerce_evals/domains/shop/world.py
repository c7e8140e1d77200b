"""The shop World: catalog, orders, skills and seller messages, loaded once per task."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import MAX_FIXTURE_BYTES, read_data, read_text
from commerce_evals.domains.base import FIXTURES, POISONED, AgentProfile, Authoring, World
from commerce_evals.domains.shop.gates import EXCLUDED_TOPICS
from commerce_evals.domains.shop.models import (
    Catalog,
    Order,
    Orders,
    Product,
    SellerMessage,
    SellerMessages,
    ShopState,
    Store,
)
from commerce_evals.domains.shop.search import SearchIndex
from commerce_evals.domains.shop.tools import MERCHANT_TOOLS, SHOPPER_TOOLS
from commerce_evals.grading.changes import ChangeRules

HERE = Path(__file__).parent


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


def poison_root_for(fixtures: Path | None) -> Path:
    """Where the eval-only fixtures merged over `fixtures` live: beside a given fixtures folder
    in the repository's layout (<dir>/fixtures/shop -> <dir>/poisoned/shop) when that folder
    exists, so `-T fixtures` brings its own; otherwise the repository's poisoned/shop."""
    if fixtures is not None:
        own = fixtures.parent.parent / "poisoned" / fixtures.name
        if own.is_dir():
            return own
    return POISONED / "shop"


class ShopWorld(World):
    domain: ClassVar[str] = "shop"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "shopper": AgentProfile("shopper", HERE / "shopper.md", tuple(SHOPPER_TOOLS)),
        "merchant": AgentProfile("merchant", HERE / "merchant.md", tuple(MERCHANT_TOOLS)),
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
    )
    state_model: ClassVar[type[BaseModel]] = ShopState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {"product_id", "product_ids", "cart_not_contains", "order_id", "seen_products"}
    )

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
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> ShopWorld:
        """The shop over `fixtures` (fixtures/shop by default), with the eval-only listings and
        messages of poison_root_for(fixtures) merged in when `poisoned`."""
        root = fixtures or FIXTURES / "shop"
        products = read_fixture(root / "catalog.json", Catalog).products
        orders = read_fixture(root / "orders.json", Orders).orders
        store = read_fixture(root / "store.json", Store)
        messages_file = root / "seller_messages.json"
        messages = (
            read_fixture(messages_file, SellerMessages).messages if messages_file.exists() else []
        )
        skills = {
            p.stem: read_text(p, what="skill file") for p in sorted((root / "skills").glob("*.md"))
        }
        poisoned_ids: set[str] = set()
        poison_root = poison_root_for(fixtures)
        if poisoned and (poison_root / "catalog.json").exists():
            extra = read_fixture(poison_root / "catalog.json", Catalog).products
            poisoned_ids = {p.id for p in extra}
            clash = sorted(poisoned_ids & {p.id for p in products})
            if clash:
                raise ValueError(
                    f"{poison_root / 'catalog.json'}: eval-only ids {clash} are also in "
                    f"{root / 'catalog.json'}; an eval-only listing's id must appear nowhere else"
                )
            products = [*products, *extra]
        if poisoned and (poison_root / "seller_messages.json").exists():
            extra_messages = read_fixture(poison_root / "seller_messages.json", SellerMessages)
            messages = [*messages, *extra_messages.messages]
        return cls(products, orders, store, skills, messages, frozenset(poisoned_ids))

    def session(self, state: dict[str, Any]) -> Any:
        from commerce_evals.domains.shop.session import ShopSession

        return ShopSession(self, ShopState.model_validate(state))

    def instruction_variables(self) -> dict[str, Any]:
        caps = self.store.caps
        return {
            "store_name": self.store.store_name,
            "customer_name": self.store.customer.name,
            "today": self.store.today.isoformat(),
            "max_quantity": caps.max_quantity_per_line,
            "max_total": f"{caps.max_cart_total:,.2f}",
            "max_change_pct": f"{caps.max_price_change_pct:g}",
            "skills": ", ".join(
                f"{name} ({_first_line(text)})" for name, text in self.skills.items()
            ),
        }

    def known_ids(self) -> set[str]:
        return set(self.products) | set(self.orders)

    def authoring(self) -> Authoring:
        return Authoring(
            memory_tool="save_memory",
            search_tool="search_products",
            setup_tools={"add_to_cart": "cart", "stage_change": "staged_changes"},
            not_remembered=EXCLUDED_TOPICS,
            poisoned="commerce_evals.domains.shop.poison:EVAL_ONLY",
        )


def _first_line(markdown: str) -> str:
    """A skill's one-line summary: its first paragraph after the title."""
    paragraphs = [p.strip() for p in markdown.split("\n\n") if p.strip()]
    body = [p for p in paragraphs if not p.startswith("#")]
    return " ".join(body[0].split()) if body else ""
