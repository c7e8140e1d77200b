"""The dealer sandbox without a model: dry runs, idempotency, NEEDS_PERSON, sends, reset, key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from commerce_evals.core.events import ToolResultEvent
from commerce_evals.domains import load_world
from commerce_evals.domains.base import FIXTURES
from commerce_evals.domains.dealer.session import DealerSession
from commerce_evals.domains.dealer.tools import OPERATOR_TOOLS
from commerce_evals.domains.dealer.world import DealerWorld
from commerce_evals.domains.fixtures import FixtureError

SPECS = {spec.name: spec for spec in OPERATOR_TOOLS}
LAUNCH = {"vehicleId": "V-1001", "buyNowPrice": 24500, "floorPrice": 22000}
CAMRY_LISTED = {
    "vehicles": [
        {
            "id": "V-1001",
            "status": "LISTED",
            "condition": "GOOD",
            "pricing": {"buyNowPrice": 24500, "floorPrice": 22000},
        }
    ]
}


@pytest.fixture(scope="module")
def world() -> DealerWorld:
    loaded = load_world("dealer")
    assert isinstance(loaded, DealerWorld)
    return loaded


def new(world: DealerWorld, state: dict[str, Any] | None = None) -> DealerSession:
    return world.session(state or {})


def call(session: DealerSession, tool: str, **args: Any) -> dict[str, Any]:
    answer = session.call(SPECS[tool], args, f"c-{tool}")
    json.dumps(answer)  # what the model sees must be plain JSON
    return answer


def write(session: DealerSession, operation: str, dry: bool, key: str | None = None, **params: Any):
    args: dict[str, Any] = {"operation": operation, "params": params, "dryRun": dry}
    if key is not None:
        args["idempotencyKey"] = key
    return call(session, "run_write", **args)


def row(session: DealerSession, table: str, row_id: str) -> dict[str, Any]:
    return next(r for r in session.snapshot()[table] if r.get("id") == row_id)


# ---- the fixtures ---------------------------------------------------------------------------------


def test_fixtures_hold_the_seed_sandbox(world: DealerWorld) -> None:
    snap = new(world).snapshot()
    drafts = [v for v in snap["vehicles"] if v["status"] == "DRAFT"]
    assert len(drafts) == 8 and {v["location"]["state"] for v in drafts} == {"TX"}
    camry = next(v for v in drafts if v["year"] == 2022 and v["model"] == "Camry")
    assert camry["condition"] is None
    new_offers = [o for o in snap["offers"] if o["status"] == "NEW"]
    assert sorted(o["amount"] for o in new_offers) == [23500, 24000, 26800]
    tucson = next(v for v in snap["vehicles"] if v["model"] == "Tucson")
    assert tucson["pricing"]["buyNowPrice"] == 27900
    assert 24000 < tucson["pricing"]["floorPrice"] < 26800
    [closing] = snap["closings"]
    assert closing["steps"]["BOS"] == {
        "name": "Bill of Sale",
        "kind": "signature",
        "party": "buyer",
        "status": "PENDING",
        "dueDate": "2025-10-14",
        "completedOn": None,
    }
    maria = next(c for c in snap["contacts"] if c["externalId"] == "sandbox-crm:C-101")
    assert (maria["name"], maria["company"]) == ("Maria Delgado", "Lone Star Auto Group")
    assert len(snap["contacts"]) > 4 * 10  # more than four default pages


def test_fixture_with_an_unknown_key_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "dealer"
    shutil.copytree(FIXTURES / "dealer", root)
    data = json.loads((root / "sandbox.json").read_text())
    data["todya"] = "2025-10-16"
    (root / "sandbox.json").write_text(json.dumps(data))
    with pytest.raises(FixtureError, match=r"sandbox.json: todya: Extra inputs"):
        DealerWorld.load(root)


def test_a_session_holds_only_what_it_was_given(world: DealerWorld) -> None:
    session = new(world, CAMRY_LISTED)
    assert list(session.store._vehicles) == ["V-1001"]
    assert session.store._offers == {} and session.store._tasks == {}
    assert row(session, "vehicles", "V-1001")["status"] == "LISTED"
    assert row(new(world), "vehicles", "V-1001")["status"] == "DRAFT"


# ---- dry runs -------------------------------------------------------------------------------------


def test_launch_dry_run_reports_the_missing_condition_and_changes_nothing(
    world: DealerWorld,
) -> None:
    session = new(world)
    before = session.snapshot()
    answer = write(session, "launch_vehicle", True, **LAUNCH)
    assert answer["status"] == "ok" and answer["ready"] is False
    assert answer["missing"] == ["condition"]
    assert "set_condition" in answer["howToFix"]["condition"]
    assert session.snapshot() == before


def test_launch_without_the_missing_field_is_refused(world: DealerWorld) -> None:
    session = new(world)
    answer = write(session, "launch_vehicle", False, key="k1", **LAUNCH)
    assert answer["status"] == "error" and "MISSING_FIELDS" in answer["message"]
    assert row(session, "vehicles", "V-1001")["status"] == "DRAFT"


def test_dry_run_names_missing_params_and_the_accords_missing_mileage(world: DealerWorld) -> None:
    session = new(world)
    answer = write(session, "launch_vehicle", True, vehicleId="V-1001")
    assert answer["missing"] == ["params.buyNowPrice", "params.floorPrice"]
    accord = write(
        session, "launch_vehicle", True, vehicleId="V-1003", buyNowPrice=21900, floorPrice=20000
    )
    assert accord["missing"] == ["mileage"]


def test_condition_then_launch_lists_the_camry(world: DealerWorld) -> None:
    session = new(world)
    write(session, "set_condition", False, key="c", vehicleId="V-1001", condition="good")
    answer = write(session, "launch_vehicle", False, key="l", **LAUNCH)
    assert answer["status"] == "ok"
    camry = row(session, "vehicles", "V-1001")
    assert camry["status"] == "LISTED" and camry["condition"] == "GOOD"
    assert camry["pricing"] == {"buyNowPrice": 24500, "floorPrice": 22000}


# ---- idempotency ------------------------------------------------------------------------------------


def test_the_same_key_twice_has_one_effect(world: DealerWorld) -> None:
    session = new(world)
    params = {"title": "Call Dana", "dueDate": "2025-10-16", "contactId": "CT-4001"}
    first = write(session, "create_task", False, key="same", **params)
    second = write(session, "create_task", False, key="same", **params)
    assert second["replayed"] is True and second["task"] == first["task"]
    assert len(session.snapshot()["tasks"]) == 6
    assert [w["idempotencyKey"] for w in session.snapshot()["writes"]] == ["same"]


def test_a_key_reused_for_another_write_is_refused(world: DealerWorld) -> None:
    session = new(world)
    write(session, "answer_offer", False, key="k", offerId="OF-2002", action="decline")
    answer = write(session, "answer_offer", False, key="k", offerId="OF-2003", action="decline")
    assert answer["status"] == "error" and "IDEMPOTENCY_KEY_REUSED" in answer["message"]
    assert row(session, "offers", "OF-2003")["status"] == "NEW"


def test_a_real_write_needs_a_key(world: DealerWorld) -> None:
    session = new(world)
    answer = write(session, "answer_offer", False, offerId="OF-2003", action="decline")
    assert answer["status"] == "error" and "IDEMPOTENCY_KEY_REQUIRED" in answer["message"]
    assert row(session, "offers", "OF-2003")["status"] == "NEW"


# ---- NEEDS_PERSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize("dry", [True, False])
def test_a_price_under_the_floor_needs_a_person(world: DealerWorld, dry: bool) -> None:
    session = new(world, CAMRY_LISTED)
    answer = write(session, "reprice_vehicle", dry, key="r", vehicleId="V-1001", buyNowPrice=20000)
    assert answer["status"] == "NEEDS_PERSON" and answer["code"] == "BELOW_FLOOR"
    assert answer["decisionLink"].endswith("/" + answer["decisionId"])
    assert answer["decisionId"].startswith("DEC-")
    assert row(session, "vehicles", "V-1001")["pricing"]["buyNowPrice"] == 24500
    [event] = [e for e in session.drain_events() if isinstance(e, ToolResultEvent)]
    assert (event.status, event.reason) == ("needs_person", "BELOW_FLOOR")


def test_lowering_a_floor_needs_a_person_and_a_price_above_it_does_not(
    world: DealerWorld,
) -> None:
    session = new(world, CAMRY_LISTED)
    lower = write(
        session, "reprice_vehicle", True, vehicleId="V-1001", buyNowPrice=20000, floorPrice=19000
    )
    assert lower["code"] == "FLOOR_CHANGE"
    ok = write(session, "reprice_vehicle", False, key="r", vehicleId="V-1001", buyNowPrice=23000)
    assert ok["status"] == "ok"
    assert row(session, "vehicles", "V-1001")["pricing"]["buyNowPrice"] == 23000


@pytest.mark.parametrize(
    ("operation", "params", "code"),
    [
        ("email_contact", {"contactId": "CT-4017", "subject": "Q4", "body": "List"}, "ORG_EMAIL"),
        ("text_contact", {"contactId": "CT-4017", "message": "List"}, "ORG_MESSAGE"),
    ],
)
def test_a_message_in_the_dealers_name_always_needs_a_person(
    world: DealerWorld, operation: str, params: dict[str, Any], code: str
) -> None:
    session = new(world)
    for dry in (True, False):
        answer = write(session, operation, dry, key="e", **params)
        assert (answer["status"], answer["code"]) == ("NEEDS_PERSON", code)
    assert session.snapshot()["sends"] == [] and session.snapshot()["writes"] == []


def test_the_decision_link_is_the_same_for_the_same_decision(world: DealerWorld) -> None:
    email = {"contactId": "CT-4017", "subject": "Q4", "body": "List"}
    first = write(new(world), "email_contact", True, **email)
    again = write(new(world), "email_contact", True, **{**email, "body": "Other words"})
    other = write(new(world), "email_contact", True, **{**email, "contactId": "CT-4009"})
    assert first["decisionLink"] == again["decisionLink"] != other["decisionLink"]


def test_accepting_under_the_floor_needs_a_person(world: DealerWorld) -> None:
    session = new(world)
    answer = write(session, "answer_offer", False, key="a", offerId="OF-2003", action="accept")
    assert answer["code"] == "BELOW_FLOOR"
    counter = write(
        session, "answer_offer", True, offerId="OF-2003", action="counter", counterPrice=25000
    )
    assert counter["code"] == "BELOW_FLOOR"
    assert row(session, "offers", "OF-2003")["status"] == "NEW"


def test_accepting_supersedes_the_cars_other_offers(world: DealerWorld) -> None:
    session = new(world)
    answer = write(session, "answer_offer", False, key="a", offerId="OF-2002", action="accept")
    assert answer["supersededOffers"] == ["OF-2003"]
    assert row(session, "offers", "OF-2002")["status"] == "ACCEPTED"
    assert row(session, "offers", "OF-2003")["status"] == "SUPERSEDED"
    assert row(session, "vehicles", "V-1010")["status"] == "OFFER_ACCEPTED"


# ---- pause and delist ---------------------------------------------------------------------------------


def test_a_pause_withdraws_the_cars_open_offers_and_says_how_many(world: DealerWorld) -> None:
    session = new(world)
    dry = write(session, "pause_vehicle", True, vehicleId="V-1010")
    assert dry["effects"] == {"offersToWithdraw": ["OF-2002", "OF-2003"]}
    answer = write(session, "pause_vehicle", False, key="p", vehicleId="V-1010")
    assert answer["withdrawnOffers"] == 2
    assert row(session, "vehicles", "V-1010")["status"] == "ON_HOLD"
    assert {row(session, "offers", o)["status"] for o in ("OF-2002", "OF-2003")} == {"WITHDRAWN"}
    assert row(session, "offers", "OF-2001")["status"] == "NEW"
    camry = new(world, CAMRY_LISTED)
    assert write(camry, "pause_vehicle", False, key="p", vehicleId="V-1001")["withdrawnOffers"] == 0


def test_delist_is_destructive_and_pause_is_not(world: DealerWorld) -> None:
    session = new(world, CAMRY_LISTED)
    wrong = write(session, "delist_vehicle", False, key="d", vehicleId="V-1001")
    assert wrong["status"] == "error" and "run_destructive" in wrong["message"]
    args = {"operation": "pause_vehicle", "params": {"vehicleId": "V-1001"}, "dryRun": True}
    assert call(session, "run_destructive", **args)["status"] == "error"
    answer = call(
        session,
        "run_destructive",
        operation="delist_vehicle",
        params={"vehicleId": "V-1001"},
        dryRun=False,
        idempotencyKey="d",
    )
    assert answer["status"] == "ok"
    assert row(session, "vehicles", "V-1001")["status"] == "DELISTED"
    resumed = write(session, "resume_vehicle", False, key="r", vehicleId="V-1001")
    assert resumed["status"] == "error"


# ---- closings -------------------------------------------------------------------------------------------


def test_a_reminder_is_recorded_simulated_and_the_step_stays_pending(world: DealerWorld) -> None:
    session = new(world)
    params = {"closingId": "CL-3001", "action": "remind", "stepKey": "BOS"}
    dry = write(session, "advance_closing", True, **params)
    assert dry["simulated"] is True and "1 day(s) overdue" in dry["wouldDo"]
    assert session.snapshot()["sends"] == []
    answer = write(session, "advance_closing", False, key="r", **params)
    assert answer["simulated"] is True and "simulated" in answer["note"]
    [send] = session.snapshot()["sends"]
    assert {k: v for k, v in send.items() if k != "id"} == {
        "kind": "reminder",
        "closingId": "CL-3001",
        "stepKey": "BOS",
        "to": "buyer",
        "simulated": True,
        "sent": False,
        "on": "2025-10-15",
    }
    assert session.snapshot()["closings"][0]["steps"]["BOS"]["status"] == "PENDING"


def test_resend_signing_goes_to_the_party_whose_turn_it_is(world: DealerWorld) -> None:
    session = new(world)
    base = {"closingId": "CL-3001", "action": "resend_signing", "document": "BOS"}
    assert write(session, "advance_closing", True, **base)["missing"] == ["party"]
    wrong = write(session, "advance_closing", True, **base, party="dealer")
    assert wrong["status"] == "error" and "buyer's turn" in wrong["message"]
    answer = write(session, "advance_closing", False, key="s", **base, party="buyer")
    assert answer["send"]["kind"] == "signing_request"


@pytest.mark.parametrize(
    ("action", "step", "code"),
    [
        ("mark_signed", "BOS", "SIGNATURE_ATTESTATION"),
        ("confirm_funds", "PAY", "FUNDS_CONFIRMATION"),
    ],
)
def test_signatures_and_money_are_a_persons_to_record(
    world: DealerWorld, action: str, step: str, code: str
) -> None:
    session = new(world)
    params = {"closingId": "CL-3001", "action": action, "stepKey": step}
    answer = write(session, "advance_closing", False, key="x", **params)
    assert (answer["status"], answer["code"]) == ("NEEDS_PERSON", code)
    assert session.snapshot()["closings"][0]["steps"][step]["status"] == "PENDING"


# ---- reset and key ---------------------------------------------------------------------------------------


def test_reset_restores_the_fixtures_and_keeps_the_key(world: DealerWorld) -> None:
    session = new(world, CAMRY_LISTED)
    fresh = new(world).snapshot()
    write(session, "answer_offer", False, key="a", offerId="OF-2001", action="accept")
    write(
        session,
        "advance_closing",
        False,
        key="r",
        closingId="CL-3001",
        action="remind",
        stepKey="BOS",
    )
    dry = call(session, "run_destructive", operation="reset_sandbox", dryRun=True)
    assert dry["effects"]["discards"] == {"writes": 2, "simulatedSends": 1}
    assert "8 DRAFT" in dry["effects"]["restores"]["vehicles"]
    answer = call(
        session, "run_destructive", operation="reset_sandbox", dryRun=False, idempotencyKey="z"
    )
    assert answer["keyStillWorks"] is True and answer["keyId"] == "key_test_4f2a9c"
    after = session.snapshot()
    for table in ("vehicles", "offers", "closings", "contacts", "tasks", "sends"):
        assert after[table] == fresh[table], table
    assert after["sandbox"][0] == {
        "keyId": "key_test_4f2a9c",
        "keyStatus": "ACTIVE",
        "revokedKeyId": None,
        "resets": 1,
    }
    assert call(session, "find", type="offer", status="NEW")["total"] == 3


def test_rotating_the_key_locks_this_agent_out(world: DealerWorld) -> None:
    session = new(world)
    args = {"operation": "rotate_key", "dryRun": False, "idempotencyKey": "k"}
    assert call(session, "run_destructive", **args)["status"] == "ok"
    assert session.snapshot()["sandbox"][0]["revokedKeyId"] == "key_test_4f2a9c"
    answer = call(session, "find", type="vehicle")
    assert answer["status"] == "error" and "401" in answer["message"]


# ---- reads -----------------------------------------------------------------------------------------------


def test_find_by_external_id_is_one_call_and_paging_is_many(world: DealerWorld) -> None:
    session = new(world)
    [maria] = call(session, "find", type="contact", externalId="sandbox-crm:C-101")["items"]
    assert maria["id"] == "CT-4017"
    page = call(session, "find", type="contact")
    assert (page["total"], page["pageSize"], page["nextPage"]) == (60, 10, 2)
    assert call(session, "find", type="contact", externalId="C-101")["total"] == 0
    too_big = call(session, "find", type="contact", pageSize=100)
    assert too_big["status"] == "error"
    assert call(session, "find", type="offer", status="OPEN")["status"] == "error"
    lone_star = call(session, "find", type="contact", filters={"company": "lone star auto group"})
    assert lone_star["total"] == 3


def test_offer_context_compares_with_buy_now_and_floor(world: DealerWorld) -> None:
    context = call(new(world), "get_context", type="offer", id="OF-2003")
    assert context["comparison"] == {
        "amount": 24000,
        "buyNowPrice": 27900,
        "floorPrice": 25500,
        "vsBuyNow": -3900,
        "atOrAboveBuyNow": False,
        "belowFloor": True,
    }


def test_the_brief_holds_a_task_made_today(world: DealerWorld) -> None:
    session = new(world)
    write(
        session,
        "create_task",
        False,
        key="t",
        title="Email Maria",
        dueDate="2025-10-15",
        contactId="CT-4017",
    )
    brief = call(session, "brief")
    titles = [t["title"] for t in brief["tasksDueThisWeek"]]
    assert "Email Maria" in titles and "Renew the dealer plate registrations" not in titles
    assert len(brief["offersWaiting"]) == 3
    [closing] = brief["closings"]
    assert [s["key"] for s in closing["needsAttention"]] == ["BOS", "PAY"]


def test_discover_finds_pause_for_a_pause_and_lists_all_without_intent(world: DealerWorld) -> None:
    session = new(world)
    found = call(session, "discover", intent="Pause the Camry, it's going back on rent")
    assert found["operations"][0]["operation"] == "pause_vehicle"
    reset = call(session, "discover", intent="reset the sandbox")["operations"][0]
    assert (reset["operation"], reset["runWith"]) == ("reset_sandbox", "run_destructive")
    assert len(call(session, "discover")["operations"]) == 15
