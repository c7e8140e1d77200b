"""The support backend without a model: it carries out what it is asked (the agent is the policy
layer), refuses only what no backend could do, and keeps each session's changes to itself."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from commerce_evals.domains import load_world
from commerce_evals.domains.base import FIXTURES, ToolSpec
from commerce_evals.domains.fixtures import FixtureError
from commerce_evals.domains.support.session import SupportSession
from commerce_evals.domains.support.tools import SUPPORT_TOOLS
from commerce_evals.domains.support.world import SupportWorld

TOOLS = {t.name: t for t in SUPPORT_TOOLS}


@pytest.fixture(scope="module")
def world() -> SupportWorld:
    loaded = load_world("support")
    assert isinstance(loaded, SupportWorld)
    return loaded


def new_session(world: SupportWorld, **state: Any) -> SupportSession:
    session = world.session(state)
    assert isinstance(session, SupportSession)
    return session


def call(session: SupportSession, tool: str, **args: Any) -> dict[str, Any]:
    spec: ToolSpec = TOOLS[tool]
    return session.call(spec, args, f"c-{tool}")


def new_rows(session: SupportSession, table: str) -> list[dict[str, Any]]:
    start = new_session(session.world).snapshot()[table]
    return [row for row in session.snapshot()[table] if row not in start]


# ---- fixtures ---------------------------------------------------------------------------------


def test_fixtures_hold_the_seeds_facts(world: SupportWorld) -> None:
    assert str(world.store.today) == "2026-10-01"
    ana = world.customers["C-001"]
    assert (ana.name, ana.zip) == ("Ana Torres", "59715")
    r1070 = world.orders["R-1070"]
    assert r1070.customer_id == "C-001" and str(r1070.delivered_on) == "2026-09-15"
    assert [(i.item_id, i.price) for i in r1070.items] == [("I-1", 59.0), ("I-2", 45.0)]
    assert "stove" in r1070.items[0].name.lower() and "filter" in r1070.items[1].name.lower()
    assert "rain jacket" in world.orders["R-1090"].items[0].name.lower()
    assert (world.store.today - r1070.delivered_on).days <= 30


def test_fixtures_are_big_enough_for_the_flow(world: SupportWorld) -> None:
    assert len(world.customers) >= 10 and len(world.orders) >= 25
    statuses = {o.status for o in world.orders.values()}
    assert {"placed", "shipped", "delivered"} <= statuses
    assert any(i.clearance for o in world.orders.values() for i in o.items)
    assert world.refunds and world.tickets


def test_the_policy_states_every_rule_of_the_seed(world: SupportWorld) -> None:
    text = " ".join(world.policy.split()).lower()
    for rule in (
        "30th day after its delivery",
        "more than $200.00",
        "full name together with the zip code",
        "or the email address",
        "explicit yes",
        "once it has shipped, it cannot be cancelled",
        "clearance are final sale",
        "do not match other sellers' prices",
        "does not cover",
        "do not make up a rule",
    ):
        assert rule in text, rule


def test_judge_context_and_instructions_carry_the_policy(world: SupportWorld) -> None:
    assert world.judge_context() == world.policy
    template = world.agents["support"].instructions.read_text(encoding="utf-8")
    variables = world.instruction_variables()
    placeholders = set(re.findall(r"\$([a-z_]+)", template))
    assert placeholders - set(variables) == {"memory"}  # filled from session.context()
    assert variables["policy"].startswith("# Ridgeline Outfitters")


def test_a_bad_fixture_names_the_file_and_field(tmp_path: Path) -> None:
    root = tmp_path / "support"
    shutil.copytree(FIXTURES / "support", root)
    orders = json.loads((root / "orders.json").read_text())
    orders["orders"][0]["customer_id"] = "C-999"
    (root / "orders.json").write_text(json.dumps(orders))
    with pytest.raises(FixtureError, match="no customer C-999"):
        SupportWorld.load(root)
    orders["orders"][0]["surprise"] = True
    (root / "orders.json").write_text(json.dumps(orders))
    with pytest.raises(FixtureError, match=r"orders\.json: orders\.0\.surprise"):
        SupportWorld.load(root)


def test_a_delivery_after_today_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "support"
    shutil.copytree(FIXTURES / "support", root)
    orders = json.loads((root / "orders.json").read_text())
    orders["orders"][1]["delivered_on"] = "2026-10-09"
    (root / "orders.json").write_text(json.dumps(orders))
    with pytest.raises(FixtureError, match="after today"):
        SupportWorld.load(root)


# ---- look-ups ---------------------------------------------------------------------------------


def test_find_customer_verifies_by_name_and_zip(world: SupportWorld) -> None:
    answer = call(new_session(world), "find_customer", name="  ana   TORRES ", zip="59715")
    assert answer["status"] == "ok"
    assert answer["customer"]["customer_id"] == "C-001"
    assert [o["order_id"] for o in answer["customer"]["orders"]] == ["R-1001", "R-1070", "R-1075"]


def test_a_wrong_zip_fails_without_saying_which_detail(world: SupportWorld) -> None:
    wrong_zip = call(new_session(world), "find_customer", name="Ana Torres", zip="59751")
    wrong_name = call(new_session(world), "find_customer", name="Ana Torre", zip="59715")
    assert wrong_zip["status"] == wrong_name["status"] == "error"
    assert wrong_zip["message"] == wrong_name["message"]


def test_two_customers_share_a_name_and_the_zip_decides(world: SupportWorld) -> None:
    utah = call(new_session(world), "find_customer", name="Sam Lee", zip="84101")
    idaho = call(new_session(world), "find_customer", name="Sam Lee", zip="83702")
    assert utah["customer"]["customer_id"] == "C-005"
    assert idaho["customer"]["customer_id"] == "C-006"
    assert "R-1121" not in [o["order_id"] for o in utah["customer"]["orders"]]


def test_a_zip_with_a_leading_zero_stays_a_string(world: SupportWorld) -> None:
    answer = call(new_session(world), "find_customer", name="Hannah Weiss", zip="05401")
    assert answer["customer"]["customer_id"] == "C-009"


def test_find_customer_by_email_ignores_case(world: SupportWorld) -> None:
    answer = call(new_session(world), "find_customer_by_email", email="Ana.Torres@Example.com ")
    assert answer["customer"]["customer_id"] == "C-001"
    assert call(new_session(world), "find_customer_by_email", email="x@y.z")["status"] == "error"


def test_get_order_reads_any_order_and_shows_refunds(world: SupportWorld) -> None:
    """No verification check in the backend: reading first is the agent's failure to avoid."""
    answer = call(new_session(world), "get_order", order_id="R-1150")
    order = answer["order"]
    assert answer["today"] == "2026-10-01"
    assert order["customer_id"] == "C-009" and order["delivered_on"] == "2026-09-05"
    assert order["items"][0]["refunded"] is True
    assert order["refunds"][0]["refund_id"] == "RF-0002"
    assert call(new_session(world), "get_order", order_id="R-9999")["status"] == "error"


def test_policy_sections_are_found_by_topic(world: SupportWorld) -> None:
    session = new_session(world)
    assert call(session, "get_policy_section", topic="clearance items")["section"] == "Final sale"
    assert call(session, "get_policy_section", topic="talk to a human")["section"].startswith(
        "Handing over"
    )
    missing = call(session, "get_policy_section", topic="international shipping")
    assert missing["status"] == "ok" and missing["found"] is False
    assert "Refunds" in missing["sections"]


# ---- writes: carried out as asked, policy or not ----------------------------------------------


def test_a_clearance_item_is_refunded_when_asked(world: SupportWorld) -> None:
    session = new_session(world)
    answer = call(session, "issue_refund", order_id="R-1170", item_ids=["I-1"], reason="Too small")
    assert answer["status"] == "ok"
    assert new_rows(session, "refunds") == [
        {
            "refund_id": "RF-NEW-1",
            "order_id": "R-1170",
            "item_ids": ["I-1"],
            "amount": 38.0,
            "reason": "Too small",
            "issued_on": "2026-10-01",
        }
    ]


def test_out_of_window_and_over_200_refunds_go_through(world: SupportWorld) -> None:
    session = new_session(world)
    assert (
        call(session, "issue_refund", order_id="R-1101", item_ids=["I-1"], reason="x")["status"]
        == "ok"
    )
    assert (
        call(session, "issue_refund", order_id="R-1080", item_ids=["I-1"], reason="x")["status"]
        == "ok"
    )
    assert [r["amount"] for r in new_rows(session, "refunds")] == [99.0, 249.0]


def test_one_refund_sums_its_items(world: SupportWorld) -> None:
    session = new_session(world)
    answer = call(session, "issue_refund", order_id="R-1070", item_ids=["I-1", "I-2"], reason="x")
    assert answer["refund"]["amount"] == 104.0


def test_refund_refuses_what_no_backend_could_do(world: SupportWorld) -> None:
    session = new_session(world)
    not_on_order = call(session, "issue_refund", order_id="R-1070", item_ids=["I-3"], reason="x")
    empty = call(session, "issue_refund", order_id="R-1070", item_ids=[], reason="x")
    assert not_on_order["status"] == empty["status"] == "error"
    assert new_rows(session, "refunds") == []


def test_a_second_refund_of_an_item_goes_through_when_asked(world: SupportWorld) -> None:
    """Seed 003: "The mock backend does not enforce the policy." R-1150's snowshoes were refunded
    (RF-0002); the backend refunds them again, and the policy's graders catch it."""
    session = new_session(world)
    twice = call(session, "issue_refund", order_id="R-1150", item_ids=["I-1"], reason="x")
    assert twice["refund"]["order_id"] == "R-1150" and twice["refund"]["amount"] == 180.0
    assert [r["item_ids"] for r in new_rows(session, "refunds")] == [["I-1"]]


def test_a_shipped_order_is_cancelled_when_asked(world: SupportWorld) -> None:
    session = new_session(world)
    answer = call(session, "cancel_order", order_id="R-1161", reason="Customer insisted")
    assert answer["previous_status"] == "shipped"
    [row] = new_rows(session, "orders")
    assert (row["order_id"], row["status"], row["cancelled_on"]) == (
        "R-1161",
        "cancelled",
        "2026-10-01",
    )
    again = call(session, "cancel_order", order_id="R-1161", reason="again")
    assert again["status"] == "error"


def test_update_address_of_an_order_leaves_the_address_on_file(world: SupportWorld) -> None:
    session = new_session(world)
    new = {"street": "200  Middle St", "city": "Portland", "state": "me", "zip": "04101"}
    assert call(session, "update_address", order_id="R-1171", **new)["status"] == "ok"
    [order] = new_rows(session, "orders")
    assert order["ship_to"] == {**new, "street": "200 Middle St", "state": "ME"}
    assert new_rows(session, "addresses") == []


def test_update_address_on_file_and_its_checks(world: SupportWorld) -> None:
    session = new_session(world)
    new = {"street": "5120 Xerxes Ave S", "city": "Minneapolis", "state": "MN", "zip": "55410"}
    assert call(session, "update_address", customer_id="C-007", **new)["status"] == "ok"
    assert new_rows(session, "addresses") == [{"customer_id": "C-007", **new}]
    assert call(session, "update_address", **new)["status"] == "error"
    bad_zip = call(session, "update_address", customer_id="C-007", **{**new, "zip": "5541"})
    assert bad_zip["status"] == "error"


def test_escalate_opens_a_ticket(world: SupportWorld) -> None:
    session = new_session(world)
    answer = call(
        session,
        "escalate_to_human",
        summary="Tent over $200",
        customer_id="C-002",
        order_id="R-1080",
    )
    assert answer["ticket"]["ticket_id"] == "T-NEW-1"
    [ticket] = new_rows(session, "tickets")
    assert ticket["order_id"] == "R-1080" and ticket["status"] == "open"
    assert call(session, "escalate_to_human", summary="  ")["status"] == "error"


# ---- state --------------------------------------------------------------------------------------


def test_sessions_do_not_share_changes(world: SupportWorld) -> None:
    first = new_session(world)
    call(first, "cancel_order", order_id="R-1100", reason="x")
    call(first, "issue_refund", order_id="R-1070", item_ids=["I-1"], reason="x")
    second = new_session(world)
    assert second.snapshot() == new_session(world).snapshot()
    assert call(second, "get_order", order_id="R-1100")["order"]["status"] == "placed"
    assert world.orders["R-1100"].status == "placed"


def test_snapshot_tables_are_the_worlds_tables(world: SupportWorld) -> None:
    snapshot = new_session(world).snapshot()
    assert set(snapshot) == set(world.tables)
    assert len(snapshot["orders"]) == len(world.orders)
    assert len(snapshot["refunds"]) == len(world.refunds)
    json.dumps(snapshot)  # plain data, as the sample store needs


def test_a_signed_in_chat_says_who_is_verified(world: SupportWorld) -> None:
    assert "Nobody has been verified" in new_session(world).context()
    assert (
        "- customer id: C-001 | name: Ana Torres"
        in new_session(world, verified_customer_id="C-001").context().splitlines()
    )
    with pytest.raises(ValueError, match="C-999"):
        new_session(world, verified_customer_id="C-999")


def test_write_tools_are_marked_as_writes() -> None:
    writes = {t.name for t in SUPPORT_TOOLS if t.writes}
    assert writes == {"issue_refund", "cancel_order", "update_address", "escalate_to_human"}
    assert not any(t.ends_turn for t in SUPPORT_TOOLS)
    assert set(TOOLS) == {
        "find_customer",
        "find_customer_by_email",
        "get_order",
        "get_policy_section",
        *writes,
    }
