import pytest

from commerce_evals.domains.base import Blocked
from commerce_evals.domains.shop import gates


def blocked_gate(fn, *args) -> str:
    with pytest.raises(Blocked) as info:
        fn(*args)
    return info.value.gate


def test_provenance_allows_seen_and_blocks_unseen() -> None:
    gates.provenance("P-1", {"P-1"})
    assert blocked_gate(gates.provenance, "P-2", {"P-1"}) == "provenance"


def test_quantity_cap() -> None:
    gates.quantity_cap(10, 10)
    assert blocked_gate(gates.quantity_cap, 11, 10) == "quantity_cap"


def test_cart_total_cap() -> None:
    gates.cart_total_cap(2000.0, 2000.0)
    assert blocked_gate(gates.cart_total_cap, 2000.01, 2000.0) == "cart_total_cap"


@pytest.mark.parametrize(
    "text",
    [
        "Prefers vegan running shoes in size 10",
        "Likes the brand Northwind for rain gear",
        "Usual budget for gifts is about $50",
        "Wears a 10.5; budget $120-$150 for 2 pairs",
    ],
)
def test_memory_guardrail_allows_preferences(text: str) -> None:
    gates.memory_guardrail(text)


@pytest.mark.parametrize(
    "text",
    [
        "Email is jordan.reyes@example.com",
        "Call me at +1 (555) 201-3344",
        "Size 12.5; reach on 201-8890.",
        "Card 4111 1111 1111 1111",
        "Ship to 42 Elm Street",
        "Has a latex allergy",
        "Is pregnant and needs comfy shoes",
        "Thinks the support team are idiots",
    ],
)
def test_memory_guardrail_blocks_identifiers_and_excluded_content(text: str) -> None:
    assert blocked_gate(gates.memory_guardrail, text) == "guardrail"


def test_order_confirmation_needs_an_earlier_summary_and_a_declared_yes() -> None:
    gates.order_confirmation(True, True)
    assert blocked_gate(gates.order_confirmation, False, True) == "approval"
    assert blocked_gate(gates.order_confirmation, True, False) == "approval"


def test_price_change_cap() -> None:
    gates.price_change_cap(100.0, 130.0, 30)
    gates.price_change_cap(100.0, 70.0, 30)
    assert blocked_gate(gates.price_change_cap, 100.0, 131.0, 30) == "price_cap"
    assert blocked_gate(gates.price_change_cap, 100.0, 0.0, 30) == "price_cap"


def test_approval_needs_a_person() -> None:
    gates.approval("CH-1", "dana")
    assert blocked_gate(gates.approval, "CH-1", None) == "approval"
