"""The shop session without a model: tools, gates as the model sees them, snapshots, isolation."""

from __future__ import annotations

import pytest

from commerce_evals.core.events import CartUpdateEvent, ToolResultEvent, UiEvent
from commerce_evals.domains.shop.session import ShopSession
from commerce_evals.domains.shop.tools import MERCHANT_TOOLS, SHOPPER_TOOLS
from commerce_evals.domains.shop.world import ShopWorld
from tests.conftest import MINI_SHOP

# the shopper's spec where both agents offer a tool name (its search takes more filters)
SPECS = {t.name: t for t in [*MERCHANT_TOOLS, *SHOPPER_TOOLS]}


@pytest.fixture(scope="module")
def world() -> ShopWorld:
    return ShopWorld.load(MINI_SHOP, poisoned=False)


def use(session: ShopSession, tool: str, **args):
    return session.call(SPECS[tool], args, f"c-{tool}")


def test_search_marks_results_seen_and_shows_no_reviews(world: ShopWorld) -> None:
    session = world.session({})
    session.begin_turn("trail shoes")
    answer = use(session, "search_products", query="trail running shoes")
    ids = [r["product_id"] for r in answer["results"]]
    assert set(ids) == {"P-1", "P-2"}
    assert all("reviews" not in r for r in answer["results"])
    assert use(session, "add_to_cart", product_id="P-2")["status"] == "ok"


def test_search_filters_by_price_and_stock(world: ShopWorld) -> None:
    session = world.session({})
    assert [
        r["product_id"]
        for r in use(session, "search_products", query="trail shoe", max_price=121)["results"]
    ] == ["P-1"]
    assert use(session, "search_products", query="yoga mat", in_stock_only=True)["count"] == 0


def test_unseen_product_is_blocked_and_recorded(world: ShopWorld) -> None:
    session = world.session({})
    session.begin_turn("add it")
    answer = use(session, "add_to_cart", product_id="P-1")
    assert answer == {
        "status": "blocked",
        "reason": "provenance",
        "message": answer["message"],
    }
    [event] = session.drain_events()
    assert isinstance(event, ToolResultEvent) and event.status == "blocked"
    assert event.reason == "provenance"
    assert session.snapshot()["cart"] == []


def test_price_change_since_seen_is_reported(world: ShopWorld) -> None:
    session = world.session({"seen_products": [{"product_id": "P-1", "price_seen": 99.0}]})
    line = use(session, "add_to_cart", product_id="P-1")["line"]
    assert line["price_changed"] is True and line["price_when_seen"] == 99.0
    assert line["price"] == 120.0


def test_out_of_stock_and_caps(world: ShopWorld) -> None:
    session = world.session({"seen_products": ["P-3", "P-4", "P-1"]})
    assert use(session, "add_to_cart", product_id="P-3")["status"] == "error"
    assert use(session, "add_to_cart", product_id="P-1", quantity=11)["reason"] == "quantity_cap"
    assert use(session, "add_to_cart", product_id="P-4", quantity=3)["reason"] == "cart_total_cap"
    assert use(session, "add_to_cart", product_id="P-4", quantity=2)["status"] == "ok"
    assert session.snapshot()["cart"][0]["quantity"] == 2


def test_order_needs_summary_in_an_earlier_turn_and_a_yes(world: ShopWorld) -> None:
    session = world.session({"cart": [{"product_id": "P-1", "quantity": 1}]})
    session.begin_turn("Yes, buy it", frozenset({"place_order"}))
    assert use(session, "place_order")["reason"] == "approval"  # no summary shown before
    assert use(session, "checkout_summary")["total"] == 120.0
    session.begin_turn("Yes, place it.")  # a yes the case does not declare is no yes
    assert use(session, "place_order")["reason"] == "approval"
    session.begin_turn("Yes, place it.", frozenset({"place_order"}))
    assert use(session, "place_order")["status"] == "ok"
    snapshot = session.snapshot()
    assert snapshot["cart"] == [] and len(snapshot["orders"]) == 1


def test_suggestions_end_the_turn_and_render_a_component(world: ShopWorld) -> None:
    session = world.session({"seen_products": ["P-1"]})
    session.begin_turn("show me")
    assert (
        use(session, "present_suggestions", product_ids=["P-1"], message="One pick")["status"]
        == "ok"
    )
    assert session.turn_ended
    events = session.drain_events()
    assert isinstance(events[1], UiEvent) and events[1].component == "suggestions"
    session.begin_turn("and another")
    assert not session.turn_ended
    use(session, "present_suggestions", product_ids=["P-2"], message="x")
    assert not session.turn_ended  # a blocked presentation does not end the turn


def test_memory_guardrail_stores_nothing_when_blocked(world: ShopWorld) -> None:
    session = world.session({"memory": ["Prefers vegan shoes"]})
    assert use(session, "save_memory", text="My email is a@b.co")["reason"] == "guardrail"
    assert use(session, "save_memory", text="Wears size 10")["status"] == "ok"
    assert [m["text"] for m in session.snapshot()["memory"]] == [
        "Prefers vegan shoes",
        "Wears size 10",
    ]
    assert "Prefers vegan shoes" in session.context()


def test_merchant_changes_stay_staged_until_a_person_approves(world: ShopWorld) -> None:
    session = world.session(
        {
            "staged_changes": [
                {
                    "change_id": "CH-1",
                    "kind": "price",
                    "product_id": "P-1",
                    "new_value": 110,
                    "approved_by": "dana",
                }
            ]
        }
    )
    staged = use(session, "stage_change", kind="price", product_id="P-2", new_value=115)
    assert staged["status"] == "ok"
    new_id = staged["staged"]["change_id"]
    assert use(session, "apply_staged_changes", change_ids=[new_id])["reason"] == "approval"
    assert (
        use(session, "stage_change", kind="price", product_id="P-2", new_value=50)["reason"]
        == "price_cap"
    )
    assert use(session, "apply_staged_changes", change_ids=["CH-1"])["status"] == "ok"
    snapshot = session.snapshot()
    assert [c["change_id"] for c in snapshot["applied_changes"]] == ["CH-1"]
    assert [c["change_id"] for c in snapshot["staged_changes"]] == [new_id]


def test_sessions_share_nothing_mutable(world: ShopWorld) -> None:
    first = world.session({"seen_products": ["P-1"]})
    second = world.session({})
    use(first, "add_to_cart", product_id="P-1")
    use(first, "save_memory", text="Likes blue")
    assert second.snapshot()["cart"] == [] and second.snapshot()["memory"] == []
    assert use(second, "add_to_cart", product_id="P-1")["reason"] == "provenance"


def test_cart_updates_carry_the_whole_cart(world: ShopWorld) -> None:
    session = world.session({"seen_products": ["P-1", "P-2"]})
    use(session, "add_to_cart", product_id="P-1")
    use(session, "add_to_cart", product_id="P-2", quantity=2)
    updates = [e for e in session.drain_events() if isinstance(e, CartUpdateEvent)]
    assert [len(u.cart) for u in updates] == [1, 2]
