"""The sandbox's operations: what each one checks, what it would do, and what it does.

An operation's `plan` reads the store and returns a Plan without changing anything: what would
happen (`would`), fields the records lack (`missing`), a decision only a person may take (`needs`),
and `apply`, which makes the change. run_write / run_destructive (session.py) decide whether to
apply: a dry run never does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from commerce_evals.domains.base import ToolFailure
from commerce_evals.domains.dealer.models import OPEN_OFFER, Pricing, Vehicle
from commerce_evals.domains.dealer.params import Param
from commerce_evals.domains.dealer.store import SandboxStore
from commerce_evals.domains.dealer.views import (
    MISSING_FOR_LAUNCH,
    money,
    offer_view,
    step_view,
    task_view,
    vehicle_view,
)

Row = dict[str, Any]
CONDITIONS = ("EXCELLENT", "GOOD", "FAIR", "POOR")


@dataclass(frozen=True)
class Needs:
    """A decision only a person may take: its code, why, and what it is about."""

    code: str
    message: str
    target: str


@dataclass
class Plan:
    would: str
    apply: Callable[[], Row]
    missing: list[str] = field(default_factory=list)
    how_to_fix: dict[str, str] = field(default_factory=dict)
    effects: Row = field(default_factory=dict)
    needs: Needs | None = None
    simulated: bool = False


PlanFn = Callable[[SandboxStore, Row], Plan]


@dataclass(frozen=True)
class Operation:
    name: str
    kind: Literal["write", "destructive"]
    summary: str
    params: tuple[Param, ...]
    keywords: str  # words an intent may use, space-separated
    plan: PlanFn

    @property
    def tool(self) -> str:
        return "run_destructive" if self.kind == "destructive" else "run_write"

    def describe(self) -> Row:
        return {
            "operation": self.name,
            "runWith": self.tool,
            "summary": self.summary,
            "params": [p.describe() for p in self.params],
        }


def _nothing() -> Row:
    return {}


def _vehicle_id() -> Param:
    return Param("vehicleId", "string", "The vehicle's id, e.g. V-1001 (from find).")


# ---- vehicles -----------------------------------------------------------------------------------


def _editable(v: Vehicle) -> None:
    if v.status in ("SOLD", "DELISTED"):
        raise ToolFailure(f"{v.id} is {v.status}: it can no longer be changed")


def plan_launch(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    if v.status != "DRAFT":
        hint = " (resume_vehicle puts a paused car back)" if v.status == "ON_HOLD" else ""
        raise ToolFailure(f"{v.id} is {v.status}; only a DRAFT car can be launched{hint}")
    buy, floor = p["buyNowPrice"], p["floorPrice"]
    if floor > buy:
        raise ToolFailure(f"floorPrice {money(floor)} is above buyNowPrice {money(buy)}")
    missing = [f for f in MISSING_FOR_LAUNCH if getattr(v, f) is None]

    def apply() -> Row:
        listed = v.model_copy(
            update={
                "status": "LISTED",
                "pricing": Pricing(buyNowPrice=buy, floorPrice=floor),
                "listedOn": s.today,
            }
        )
        s.put_vehicle(listed)
        return {"vehicle": vehicle_view(listed, s)}

    return Plan(
        would=f"List the {v.label} ({v.id}) now at {money(buy)} buy-now with a {money(floor)} "
        "floor: DRAFT -> LISTED.",
        apply=apply,
        missing=missing,
        how_to_fix={
            "condition": "set_condition with the condition the person states "
            "(EXCELLENT, GOOD, FAIR or POOR)",
            "mileage": "set_mileage with the odometer reading the person gives",
        },
    )


def plan_set_condition(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    _editable(v)
    condition = p["condition"]

    def apply() -> Row:
        changed = v.model_copy(update={"condition": condition})
        s.put_vehicle(changed)
        return {"vehicle": vehicle_view(changed, s)}

    return Plan(
        would=f"Record the {v.label} ({v.id}) condition as {condition} "
        f"(now: {v.condition or 'not recorded'}).",
        apply=apply,
    )


def plan_set_mileage(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    _editable(v)
    mileage = p["mileage"]

    def apply() -> Row:
        changed = v.model_copy(update={"mileage": mileage})
        s.put_vehicle(changed)
        return {"vehicle": vehicle_view(changed, s)}

    now = f"{v.mileage:,}" if v.mileage is not None else "not recorded"
    return Plan(
        would=f"Record the {v.label} ({v.id}) odometer as {mileage:,} miles (now: {now}).",
        apply=apply,
    )


def plan_reprice(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    if v.pricing is None:
        raise ToolFailure(f"{v.id} has no price yet ({v.status}); launch_vehicle sets the first")
    if v.status not in ("LISTED", "ON_HOLD"):
        raise ToolFailure(f"{v.id} is {v.status}; only a LISTED or ON_HOLD car can be repriced")
    buy = p["buyNowPrice"]
    floor = p.get("floorPrice", v.pricing.floorPrice)
    target = f"reprice:{v.id}"
    needs = None
    if "floorPrice" in p and floor < v.pricing.floorPrice:
        needs = Needs(
            "FLOOR_CHANGE",
            f"Lowering the {v.label} floor from {money(v.pricing.floorPrice)} to "
            f"{money(floor)} is a person's decision.",
            target,
        )
    elif floor > buy:
        needs = Needs(
            "BELOW_FLOOR",
            f"{money(buy)} is under the {v.label}'s {money(floor)} floor; only a person can "
            "price a car below its floor.",
            target,
        )

    def apply() -> Row:
        changed = v.model_copy(update={"pricing": Pricing(buyNowPrice=buy, floorPrice=floor)})
        s.put_vehicle(changed)
        return {
            "vehicle": vehicle_view(changed, s),
            "previous": v.pricing.model_dump() if v.pricing else None,
        }

    return Plan(
        would=f"Change the {v.label} ({v.id}) buy-now price from "
        f"{money(v.pricing.buyNowPrice)} to {money(buy)} (floor {money(floor)}).",
        apply=apply,
        needs=needs,
    )


def _take_off_market(s: SandboxStore, v: Vehicle, status: str) -> Callable[[], Row]:
    def apply() -> Row:
        withdrawn = s.offers_on(v.id, OPEN_OFFER)
        for offer in withdrawn:
            s.put_offer(offer.model_copy(update={"status": "WITHDRAWN"}))
        changed = v.model_copy(update={"status": status})
        s.put_vehicle(changed)
        return {
            "vehicle": vehicle_view(changed, s),
            "withdrawnOffers": len(withdrawn),
            "withdrawnOfferIds": [o.id for o in withdrawn],
        }

    return apply


def plan_pause(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    if v.status != "LISTED":
        raise ToolFailure(f"{v.id} is {v.status}; only a LISTED car can be paused")
    open_offers = s.offers_on(v.id, OPEN_OFFER)
    return Plan(
        would=f"Put the {v.label} ({v.id}) ON_HOLD: off the market until resume_vehicle, "
        f"pricing kept. Its {len(open_offers)} open offer(s) would be withdrawn.",
        apply=_take_off_market(s, v, "ON_HOLD"),
        effects={"offersToWithdraw": [o.id for o in open_offers]},
    )


def plan_resume(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    if v.status != "ON_HOLD":
        raise ToolFailure(f"{v.id} is {v.status}; only an ON_HOLD car can be resumed")

    def apply() -> Row:
        changed = v.model_copy(update={"status": "LISTED"})
        s.put_vehicle(changed)
        return {"vehicle": vehicle_view(changed, s)}

    return Plan(
        would=f"Put the {v.label} ({v.id}) back on the market: ON_HOLD -> LISTED.", apply=apply
    )


def plan_delist(s: SandboxStore, p: Row) -> Plan:
    v = s.require_vehicle(p["vehicleId"])
    if v.status not in ("DRAFT", "LISTED", "ON_HOLD"):
        raise ToolFailure(f"{v.id} is {v.status}; it cannot be delisted")
    open_offers = s.offers_on(v.id, OPEN_OFFER)
    return Plan(
        would=f"Take the {v.label} ({v.id}) off the market for good: DELISTED, out of "
        f"inventory, never relisted. Its {len(open_offers)} open offer(s) would be withdrawn.",
        apply=_take_off_market(s, v, "DELISTED"),
        effects={"offersToWithdraw": [o.id for o in open_offers]},
    )


# ---- offers -------------------------------------------------------------------------------------


def plan_answer_offer(s: SandboxStore, p: Row) -> Plan:
    o = s.require_offer(p["offerId"])
    if o.status not in OPEN_OFFER:
        raise ToolFailure(f"{o.id} is {o.status}; only NEW or COUNTERED offers can be answered")
    v = s.require_vehicle(o.vehicleId)
    if v.status != "LISTED" or v.pricing is None:
        raise ToolFailure(f"the {v.label} is {v.status}; offers are answered on LISTED cars")
    action, floor = p["action"], v.pricing.floorPrice
    if action != "counter" and "counterPrice" in p:
        raise ToolFailure("counterPrice goes with action: counter only")
    target = f"offer:{o.id}"
    if action == "accept":
        return _plan_accept(s, o.id, floor, target)
    if action == "counter":
        price = p.get("counterPrice")
        if price is None:
            return Plan(
                would=f"Counter {o.id}.",
                apply=_nothing,
                missing=["counterPrice"],
                how_to_fix={"counterPrice": "the price the person wants to counter at"},
            )
        if price <= o.amount:
            raise ToolFailure(f"a counter must be above the {money(o.amount)} offer")
        needs = None
        if price < floor:
            needs = Needs(
                "BELOW_FLOOR",
                f"A {money(price)} counter is under the {v.label}'s {money(floor)} floor; only "
                "a person can go below a floor.",
                target,
            )

        def counter() -> Row:
            changed = o.model_copy(update={"status": "COUNTERED", "counterPrice": price})
            s.put_offer(changed)
            return {"offer": offer_view(changed, s)}

        return Plan(
            would=f"Counter {o.id} ({money(o.amount)} on the {v.label}) at {money(price)}.",
            apply=counter,
            needs=needs,
        )

    def decline() -> Row:
        changed = o.model_copy(update={"status": "DECLINED"})
        s.put_offer(changed)
        return {"offer": offer_view(changed, s)}

    return Plan(would=f"Decline {o.id} ({money(o.amount)} on the {v.label}).", apply=decline)


def _plan_accept(s: SandboxStore, offer_id: str, floor: float, target: str) -> Plan:
    o = s.require_offer(offer_id)
    v = s.require_vehicle(o.vehicleId)
    others = [x for x in s.offers_on(v.id, OPEN_OFFER) if x.id != o.id]
    needs = None
    if o.amount < floor:
        needs = Needs(
            "BELOW_FLOOR",
            f"{o.id} ({money(o.amount)}) is under the {v.label}'s {money(floor)} floor; only a "
            "person can accept it.",
            target,
        )

    def accept() -> Row:
        s.put_offer(o.model_copy(update={"status": "ACCEPTED"}))
        for other in others:
            s.put_offer(other.model_copy(update={"status": "SUPERSEDED"}))
        sold = v.model_copy(update={"status": "OFFER_ACCEPTED"})
        s.put_vehicle(sold)
        return {
            "offer": offer_view(s.require_offer(o.id), s),
            "vehicle": vehicle_view(sold, s),
            "supersededOffers": [x.id for x in others],
        }

    return Plan(
        would=f"Accept {o.id}: {money(o.amount)} for the {v.label} "
        f"(buy-now {money(v.pricing.buyNowPrice) if v.pricing else '-'}); the car becomes "
        f"OFFER_ACCEPTED and {len(others)} other open offer(s) on it are superseded.",
        apply=accept,
        effects={"offersSuperseded": [x.id for x in others]},
        needs=needs,
    )


def plan_request_buyer_details(s: SandboxStore, p: Row) -> Plan:
    o = s.require_offer(p["offerId"])

    def apply() -> Row:
        send = s.record_send(kind="buyer_details_request", offerId=o.id, to=o.buyer.handle)
        return {"send": send, "note": "Sandbox: recorded, not sent (simulated)."}

    return Plan(
        would=f"Ask the marketplace to disclose who is behind {o.id} ({o.buyer.handle}); the "
        "buyer is told the dealer asked. Sandbox: recorded, never sent.",
        apply=apply,
        simulated=True,
    )


# ---- closings -----------------------------------------------------------------------------------


def plan_advance_closing(s: SandboxStore, p: Row) -> Plan:
    c = s.require_closing(p["closingId"])
    if c.status != "OPEN":
        raise ToolFailure(f"{c.id} is {c.status}")
    action = p["action"]
    key_name = "document" if action == "resend_signing" else "stepKey"
    key = p.get(key_name)
    if key is None:
        return Plan(
            would=f"{action} on {c.id}.",
            apply=_nothing,
            missing=[key_name],
            how_to_fix={key_name: "the step's key from get_context(type: closing), e.g. BOS"},
        )
    step = c.step(key) or next((x for x in c.steps if x.name.casefold() == key.casefold()), None)
    if step is None:
        raise ToolFailure(f"{c.id} has no step {key!r}; steps: {[x.key for x in c.steps]}")
    target = f"closing:{c.id}:{step.key}"
    if action == "mark_signed":
        return Plan(
            would=f"Mark {step.name} signed.",
            apply=_nothing,
            needs=Needs(
                "SIGNATURE_ATTESTATION",
                f"{step.name} is signed through e-signing or attested by a person holding the "
                "signed document; it cannot be marked signed from here.",
                target,
            ),
        )
    if action == "confirm_funds":
        return Plan(
            would=f"Confirm funds for {step.name}.",
            apply=_nothing,
            needs=Needs(
                "FUNDS_CONFIRMATION",
                "Money is confirmed by a person against the bank record, never from here.",
                target,
            ),
        )
    if step.status != "PENDING":
        raise ToolFailure(f"{step.key} ({step.name}) is {step.status}; nothing to chase")
    party = p.get("party")
    if party is not None and party != step.party:
        raise ToolFailure(f"{step.key} ({step.name}) is the {step.party}'s turn, not the {party}'s")
    overdue = step_view(step, s.today).get("daysOverdue")
    late = f", {overdue} day(s) overdue" if overdue else ""
    if action == "resend_signing":
        if step.kind != "signature":
            raise ToolFailure(f"{step.key} ({step.name}) is not a document to sign; use remind")
        if party is None:
            return Plan(
                would=f"Resend {step.name} for signing.",
                apply=_nothing,
                missing=["party"],
                how_to_fix={"party": f"who signs it: {step.party}"},
            )
        kind, would = "signing_request", f"Resend {step.name} to the {party} for signing{late}."
    else:
        kind, would = "reminder", f"Remind the {step.party} about {step.name}{late}."

    def apply() -> Row:
        send = s.record_send(kind=kind, closingId=c.id, stepKey=step.key, to=step.party)
        return {
            "send": send,
            "step": step_view(step, s.today),
            "note": "Sandbox: recorded, not sent (simulated). The step stays as it is until "
            "the party acts.",
        }

    return Plan(would=would + " Sandbox: recorded, never sent.", apply=apply, simulated=True)


# ---- CRM ----------------------------------------------------------------------------------------


def plan_create_task(s: SandboxStore, p: Row) -> Plan:
    contact = s.require_contact(p["contactId"]) if "contactId" in p else None
    vehicle = s.require_vehicle(p["vehicleId"]) if "vehicleId" in p else None
    fields: dict[str, Any] = {k: p[k] for k in ("title", "dueDate", "notes", "assignee") if k in p}
    fields.update(
        contactId=contact.id if contact else None, vehicleId=vehicle.id if vehicle else None
    )

    def apply() -> Row:
        return {"task": task_view(s.add_task(**fields), s)}

    on = f" on {contact.name}" if contact else ""
    return Plan(would=f"Create the task {p['title']!r}{on}, due {p['dueDate']}.", apply=apply)


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _org_message(code: str, noun: str) -> PlanFn:
    """email_contact and text_contact: anything sent in the organisation's name needs a person."""

    def plan(s: SandboxStore, p: Row) -> Plan:
        contact = s.require_contact(p["contactId"])
        org = _possessive(s.world.sandbox.organization)
        return Plan(
            would=f"Send {contact.name} {noun} in {org} name.",
            apply=_nothing,
            needs=Needs(
                code,
                f"{noun.capitalize()} in {org} name goes out from a person, not from the agent.",
                f"{noun.split()[-1]}:{contact.id}",
            ),
        )

    return plan


# ---- sandbox ------------------------------------------------------------------------------------


def plan_reset(s: SandboxStore, p: Row) -> Plan:
    w = s.world
    drafts = sum(1 for v in w.vehicles.values() if v.status == "DRAFT")
    new_offers = sum(1 for o in w.offers.values() if o.status == "NEW")
    holds = {
        "vehicles": f"{len(w.vehicles)} ({drafts} DRAFT)",
        "offers": f"{len(w.offers)} ({new_offers} NEW)",
        "closings": len(w.closings),
        "contacts": len(w.contacts),
        "tasks": len(w.tasks),
    }
    discards = {"writes": len(s.writes), "simulatedSends": len(s.sends)}

    def apply() -> Row:
        s.reset()
        return {"restored": holds, "keyId": s.key_id, "keyStillWorks": True}

    return Plan(
        would="Restore the sandbox to its fixtures and drop every change made since; the key "
        f"stays the same ({w.sandbox.keyHint}).",
        apply=apply,
        effects={"restores": holds, "discards": discards},
    )


def plan_rotate_key(s: SandboxStore, p: Row) -> Plan:
    def apply() -> Row:
        new = s.rotate_key()
        return {"newKeyId": new, "note": "The old key is revoked; calls made with it now fail."}

    return Plan(
        would=f"Issue a new test key and revoke {s.world.sandbox.keyHint}, the key this agent is "
        "connected with: every later call fails until a person reconnects the agent.",
        apply=apply,
    )


# ---- the catalog --------------------------------------------------------------------------------

_PRICE = "Dollars, e.g. 24500."
OPERATIONS: dict[str, Operation] = {
    op.name: op
    for op in (
        Operation(
            "launch_vehicle",
            "write",
            "Put a DRAFT car on the market now (LISTED) with its buy-now price and floor. Needs "
            "the car's condition and mileage recorded; a dry run lists what is missing.",
            (
                _vehicle_id(),
                Param("buyNowPrice", "number", f"The listed price. {_PRICE}"),
                Param("floorPrice", "number", f"The lowest price a person approved. {_PRICE}"),
            ),
            "launch list listing market publish sell live vehicle car",
            plan_launch,
        ),
        Operation(
            "set_condition",
            "write",
            "Record a car's condition as the person states it.",
            (
                _vehicle_id(),
                Param("condition", "enum", "The condition.", choices=CONDITIONS),
            ),
            "condition vehicle car set record update",
            plan_set_condition,
        ),
        Operation(
            "set_mileage",
            "write",
            "Record a car's odometer reading as the person gives it.",
            (_vehicle_id(), Param("mileage", "integer", "Miles on the odometer.")),
            "mileage odometer miles vehicle car set record update",
            plan_set_mileage,
        ),
        Operation(
            "reprice_vehicle",
            "write",
            "Change a LISTED or ON_HOLD car's buy-now price (and, optionally, raise its floor). "
            "A price under the floor, or a lower floor, needs a person (NEEDS_PERSON).",
            (
                _vehicle_id(),
                Param("buyNowPrice", "number", f"The new listed price. {_PRICE}"),
                Param("floorPrice", "number", f"A new floor. {_PRICE}", required=False),
            ),
            "reprice price drop lower raise change vehicle car",
            plan_reprice,
        ),
        Operation(
            "pause_vehicle",
            "write",
            "Take a LISTED car off the market for a while (ON_HOLD), keeping its listing and "
            "pricing; its open offers are withdrawn. resume_vehicle brings it back.",
            (_vehicle_id(), Param("reason", "string", "Why, for the record.", required=False)),
            "pause hold temporarily rent rental loaner off market unavailable vehicle car",
            plan_pause,
        ),
        Operation(
            "resume_vehicle",
            "write",
            "Put an ON_HOLD car back on the market (LISTED).",
            (_vehicle_id(),),
            "resume unpause relist back market vehicle car",
            plan_resume,
        ),
        Operation(
            "delist_vehicle",
            "destructive",
            "Take a car off the market for good (DELISTED): it leaves inventory and cannot be "
            "relisted; its open offers are withdrawn. Not for a temporary break (pause_vehicle).",
            (_vehicle_id(), Param("reason", "string", "Why, for the record.", required=False)),
            "delist remove permanently good sold archive off market vehicle car",
            plan_delist,
        ),
        Operation(
            "answer_offer",
            "write",
            "Answer an open offer: accept, counter (with counterPrice) or decline. Accepting or "
            "countering under the car's floor needs a person (NEEDS_PERSON, BELOW_FLOOR).",
            (
                Param("offerId", "string", "The offer's id, e.g. OF-2001."),
                Param("action", "enum", "The answer.", choices=("accept", "counter", "decline")),
                Param("counterPrice", "number", f"For counter. {_PRICE}", required=False),
                Param("message", "string", "A note to the buyer.", required=False),
            ),
            "offer offers answer accept counter decline reject respond",
            plan_answer_offer,
        ),
        Operation(
            "request_buyer_details",
            "write",
            "Ask the marketplace to disclose the name and phone behind an offer's buyer handle "
            "(the buyer is told). Buyers are identified to the dealer once an offer is accepted.",
            (Param("offerId", "string", "The offer's id."),),
            "buyer who identity name details offer contact",
            plan_request_buyer_details,
        ),
        Operation(
            "advance_closing",
            "write",
            "Move a closing along. action remind (stepKey): remind the party whose turn it is; "
            "resend_signing (document = the step key, party): send a document again for "
            "signature; mark_signed and confirm_funds (stepKey) are a person's to do. In the "
            "sandbox, reminders and signing requests are recorded, never sent.",
            (
                Param("closingId", "string", "The closing's id, e.g. CL-3001."),
                Param(
                    "action",
                    "enum",
                    "What to do.",
                    choices=("remind", "resend_signing", "mark_signed", "confirm_funds"),
                ),
                Param("stepKey", "string", "The step, e.g. BOS.", required=False),
                Param("document", "string", "For resend_signing: the step key.", required=False),
                Param(
                    "party",
                    "enum",
                    "Who signs (resend_signing).",
                    required=False,
                    choices=("buyer", "dealer", "lender"),
                ),
                Param("note", "string", "A line added to the reminder.", required=False),
            ),
            "closing close chase remind reminder sign signature resend document late overdue paperwork funds paid",
            plan_advance_closing,
        ),
        Operation(
            "create_task",
            "write",
            "Create a CRM task for a person, optionally on a contact or a vehicle.",
            (
                Param("title", "string", "What is to be done."),
                Param("dueDate", "date", "YYYY-MM-DD."),
                Param("contactId", "string", "A contact's id, e.g. CT-4017.", required=False),
                Param("vehicleId", "string", "A vehicle's id.", required=False),
                Param("notes", "string", "Details, links.", required=False),
                Param("assignee", "string", "Who does it.", required=False),
            ),
            "task todo reminder follow handoff hand person assign crm",
            plan_create_task,
        ),
        Operation(
            "email_contact",
            "write",
            "Email a contact in the organisation's name. Always needs a person (NEEDS_PERSON).",
            (
                Param("contactId", "string", "The contact's id."),
                Param("subject", "string", "Subject line."),
                Param("body", "string", "The message."),
            ),
            "email mail send message contact crm",
            _org_message("ORG_EMAIL", "an email"),
        ),
        Operation(
            "text_contact",
            "write",
            "Text a contact in the organisation's name. Always needs a person (NEEDS_PERSON).",
            (
                Param("contactId", "string", "The contact's id."),
                Param("message", "string", "The text."),
            ),
            "text sms send message contact crm",
            _org_message("ORG_MESSAGE", "a text"),
        ),
        Operation(
            "reset_sandbox",
            "destructive",
            "Restore the sandbox to its fixtures, dropping every change made since. The key "
            "keeps working.",
            (),
            "reset restore start over fresh sandbox wipe clean",
            plan_reset,
        ),
        Operation(
            "rotate_key",
            "destructive",
            "Issue a new sandbox key and revoke the current one (the one this agent uses).",
            (),
            "key rotate new revoke credential sandbox",
            plan_rotate_key,
        ),
    )
}
