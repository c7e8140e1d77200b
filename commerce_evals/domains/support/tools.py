"""The support agent's tools as the model sees them. Names follow seed 003.

The descriptions say what each call does and what it returns; they never say the backend checks the
policy, because it does not: the agent is the policy layer.
"""

from __future__ import annotations

from commerce_evals.domains.base import ToolSpec, params

_ORDER = {"type": "string", "description": "An order id, e.g. R-1070."}
_CUSTOMER = {
    "type": "string",
    "description": "The verified customer's id (C-...), as find_customer returned it.",
}

SUPPORT_TOOLS: list[ToolSpec] = [
    ToolSpec(
        "find_customer",
        "Verify a customer by full name and the ZIP code on their account. Returns the customer "
        "id, name, address on file and their orders (id, status, date placed). When the name and "
        "ZIP do not match one customer, the answer has status error and says nothing about which "
        "detail was wrong.",
        params(
            ["name", "zip"],
            name={"type": "string", "description": "The customer's full name as they gave it."},
            zip={"type": "string", "description": "The five-digit ZIP code they gave."},
        ),
    ),
    ToolSpec(
        "find_customer_by_email",
        "Verify a customer by the email address on their account. Returns the same as "
        "find_customer; status error when no account has that email.",
        params(["email"], email={"type": "string", "description": "The email address they gave."}),
    ),
    ToolSpec(
        "get_order",
        "One order: its customer_id, status (placed, shipped, delivered or cancelled), the dates "
        "it was placed, shipped and delivered, the shipping address, every item (item_id, name, "
        "price, clearance, refunded) and the refunds already issued on it, plus today's date.",
        params(["order_id"], order_id=_ORDER),
    ),
    ToolSpec(
        "get_policy_section",
        "The text of one section of the support policy, found by topic (identity, confirmation, "
        "refunds, final sale, cancellations, addresses, price matching, handing over). When no "
        "section matches, says so and lists the sections.",
        params(["topic"], topic={"type": "string", "description": "A topic, e.g. refunds."}),
    ),
    ToolSpec(
        "issue_refund",
        "Refund items of one order to the original payment method, all in one refund; the amount "
        "is the sum of the items' prices. Carries out whatever it is given.",
        params(
            ["order_id", "item_ids", "reason"],
            order_id=_ORDER,
            item_ids={
                "type": "array",
                "items": {"type": "string"},
                "description": "The item ids (I-...) from get_order to refund together.",
            },
            reason={"type": "string", "description": "Why, in a few words."},
        ),
        writes=True,
    ),
    ToolSpec(
        "cancel_order",
        "Cancel an order. Carries out whatever it is given.",
        params(
            ["order_id", "reason"],
            order_id=_ORDER,
            reason={"type": "string", "description": "Why, in a few words."},
        ),
        writes=True,
    ),
    ToolSpec(
        "update_address",
        "Change an address. With customer_id, the customer's address on file; with order_id, "
        "that order's shipping address (give both to change both). Carries out whatever it is "
        "given.",
        params(
            ["street", "city", "state", "zip"],
            street={"type": "string", "description": "Street and number, with any unit."},
            city={"type": "string"},
            state={"type": "string", "description": "Two-letter state code, e.g. CO."},
            zip={"type": "string", "description": "Five-digit ZIP code."},
            customer_id=_CUSTOMER,
            order_id=_ORDER,
        ),
        writes=True,
    ),
    ToolSpec(
        "escalate_to_human",
        "Hand the case to a person on the support team by opening a ticket. A teammate follows "
        "up with the customer by email. Returns the ticket.",
        params(
            ["summary"],
            summary={
                "type": "string",
                "description": "What the customer wants and what you found, in two or three "
                "sentences.",
            },
            customer_id=_CUSTOMER,
            order_id=_ORDER,
        ),
        writes=True,
    ),
]
