"""What the read tools answer: records as the agent sees them, find, get_context and the brief.

Pure functions of the store: no writes happen here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import Any

from commerce_evals.domains.base import ToolFailure
from commerce_evals.domains.dealer.models import (
    OPEN_OFFER,
    Closing,
    ClosingStep,
    Contact,
    Offer,
    Task,
    Vehicle,
)
from commerce_evals.domains.dealer.store import SandboxStore
from commerce_evals.grading.matching import matches

Row = dict[str, Any]
DEFAULT_PAGE_SIZE = 10
MAX_PAGE_SIZE = 25

FIND_TYPES = ("vehicle", "offer", "contact", "task", "closing")
STATUSES: dict[str, tuple[str, ...]] = {
    "vehicle": ("DRAFT", "LISTED", "ON_HOLD", "OFFER_ACCEPTED", "IN_CLOSING", "SOLD", "DELISTED"),
    "offer": ("NEW", "COUNTERED", "ACCEPTED", "DECLINED", "WITHDRAWN", "SUPERSEDED", "EXPIRED"),
    "contact": (),
    "task": ("OPEN", "DONE"),
    "closing": ("OPEN", "COMPLETE", "CANCELLED"),
}
FILTERS: dict[str, tuple[str, ...]] = {
    "vehicle": ("make", "model", "year", "trim", "color", "condition", "city", "state"),
    "offer": ("vehicleId",),
    "contact": ("name", "company", "role", "email"),
    "task": ("contactId", "vehicleId", "assignee", "dueOnOrBefore", "dueOnOrAfter"),
    "closing": ("vehicleId",),
}
MISSING_FOR_LAUNCH = ("condition", "mileage")


def money(amount: float) -> str:
    return f"${amount:,.0f}" if float(amount).is_integer() else f"${amount:,.2f}"


# ---- records ------------------------------------------------------------------------------------


def vehicle_view(v: Vehicle, store: SandboxStore) -> Row:
    row = v.model_dump(mode="json", exclude={"location"})
    row["label"] = v.label
    row["location"] = f"{v.location.city}, {v.location.state}"
    row["openOffers"] = len(store.offers_on(v.id, OPEN_OFFER))
    return row


def offer_view(o: Offer, store: SandboxStore) -> Row:
    row = o.model_dump(mode="json", exclude_none=True)
    vehicle = store.vehicle(o.vehicleId)
    if vehicle is not None:
        row["vehicle"] = vehicle.label
    return row


def step_view(step: ClosingStep, today: date) -> Row:
    row = step.model_dump(mode="json", exclude_none=True)
    if step.status == "PENDING":
        row["turn"] = step.party
        if step.dueDate and step.dueDate < today:
            row["daysOverdue"] = (today - step.dueDate).days
    return row


def closing_view(c: Closing, store: SandboxStore) -> Row:
    row = c.model_dump(mode="json", exclude={"steps"})
    vehicle = store.vehicle(c.vehicleId)
    row["vehicle"] = vehicle.label if vehicle else c.vehicleId
    row["steps"] = [step_view(s, store.today) for s in c.steps]
    pending = [s for s in c.steps if s.status == "PENDING"]
    if pending:
        row["nextStep"] = step_view(pending[0], store.today)
    return row


def contact_view(c: Contact) -> Row:
    return c.model_dump(mode="json")


def task_view(t: Task, store: SandboxStore) -> Row:
    row = t.model_dump(mode="json", exclude_none=True)
    if t.status == "OPEN" and t.dueDate < store.today:
        row["overdue"] = True
    if t.contactId and (contact := store.contact(t.contactId)):
        row["contactName"] = contact.name
    return row


# ---- find ---------------------------------------------------------------------------------------


def _text(record: Any, store: SandboxStore) -> str:
    if isinstance(record, Vehicle):
        return f"{record.label} {record.vin} {record.color} {record.location.city}"
    if isinstance(record, Offer):
        vehicle = store.vehicle(record.vehicleId)
        return f"{vehicle.label if vehicle else ''} {record.buyer.handle} {record.message}"
    if isinstance(record, Contact):
        return f"{record.name} {record.company} {record.role} {record.email}"
    if isinstance(record, Task):
        return f"{record.title} {record.notes}"
    vehicle = store.vehicle(record.vehicleId)
    return f"{record.buyerName} {vehicle.label if vehicle else ''}"


def _field(record: Any, name: str) -> Any:
    if isinstance(record, Vehicle) and name in ("city", "state"):
        return getattr(record.location, name)
    value = getattr(record, name, None)
    return value.isoformat() if isinstance(value, date) else value


def _passes(record: Any, filters: dict[str, Any]) -> bool:
    for name, wanted in filters.items():
        if name in ("dueOnOrBefore", "dueOnOrAfter"):
            due = record.dueDate.isoformat()
            if (name == "dueOnOrBefore" and due > str(wanted)) or (
                name == "dueOnOrAfter" and due < str(wanted)
            ):
                return False
        elif not matches(wanted, _field(record, name)):
            return False
    return True


def _records(store: SandboxStore, kind: str) -> list[Any]:
    readers: dict[str, Callable[[], list[Any]]] = {
        "vehicle": store.vehicles,
        "offer": store.offers,
        "contact": store.contacts,
        "task": store.tasks,
        "closing": store.closings,
    }
    return readers[kind]()


def _view(record: Any, store: SandboxStore) -> Row:
    if isinstance(record, Vehicle):
        return vehicle_view(record, store)
    if isinstance(record, Offer):
        return offer_view(record, store)
    if isinstance(record, Contact):
        return contact_view(record)
    if isinstance(record, Task):
        return task_view(record, store)
    return closing_view(record, store)


def find(
    store: SandboxStore,
    type: str,
    id: str | None = None,
    externalId: str | None = None,
    status: str | None = None,
    filters: dict[str, Any] | None = None,
    query: str | None = None,
    page: int = 1,
    pageSize: int = DEFAULT_PAGE_SIZE,
) -> Row:
    kind = type.strip().lower()
    if kind not in FIND_TYPES:
        raise ToolFailure(f"type must be one of {list(FIND_TYPES)}")
    if externalId is not None and kind != "contact":
        raise ToolFailure("externalId applies to type: contact")
    filters = dict(filters or {})
    unknown = sorted(set(filters) - set(FILTERS[kind]))
    if unknown:
        raise ToolFailure(f"unknown filters {unknown} for {kind}; filters: {list(FILTERS[kind])}")
    if status is not None and status.upper() not in STATUSES[kind]:
        allowed = list(STATUSES[kind]) or "none (contacts have no status)"
        raise ToolFailure(f"status {status!r} is not a {kind} status; statuses: {allowed}")
    if page < 1 or not 1 <= pageSize <= MAX_PAGE_SIZE:
        raise ToolFailure(f"page starts at 1; pageSize is 1-{MAX_PAGE_SIZE}")
    rows = _records(store, kind)
    if id is not None:
        rows = [r for r in rows if r.id.casefold() == id.strip().casefold()]
    if externalId is not None:
        wanted = store.world.contacts_by_external.get(externalId.strip().casefold())
        rows = [r for r in rows if r.id == wanted]
    if status is not None:
        rows = [r for r in rows if r.status == status.upper()]
    rows = [r for r in rows if _passes(r, filters)]
    if query:
        words = query.casefold().split()
        rows = [r for r in rows if all(w in _text(r, store).casefold() for w in words)]
    start = (page - 1) * pageSize
    chunk = rows[start : start + pageSize]
    more = start + pageSize < len(rows)
    return {
        "type": kind,
        "total": len(rows),
        "page": page,
        "pageSize": pageSize,
        "nextPage": page + 1 if more else None,
        "items": [_view(r, store) for r in chunk],
    }


# ---- get_context --------------------------------------------------------------------------------


def offer_context(o: Offer, store: SandboxStore) -> Row:
    vehicle = store.require_vehicle(o.vehicleId)
    context: Row = {"offer": offer_view(o, store), "vehicle": vehicle_view(vehicle, store)}
    if vehicle.pricing:
        buy, floor = vehicle.pricing.buyNowPrice, vehicle.pricing.floorPrice
        context["comparison"] = {
            "amount": o.amount,
            "buyNowPrice": buy,
            "floorPrice": floor,
            "vsBuyNow": round(o.amount - buy, 2),
            "atOrAboveBuyNow": o.amount >= buy,
            "belowFloor": o.amount < floor,
        }
    context["otherOpenOffers"] = [
        offer_view(x, store) for x in store.offers_on(o.vehicleId, OPEN_OFFER) if x.id != o.id
    ]
    context["buyerIdentity"] = "shared with the dealer once an offer is accepted"
    return context


def get_context(store: SandboxStore, type: str, id: str | None = None) -> Row:
    kind = type.strip().lower()
    if kind == "buy_plan":
        return {"buyPlan": buy_plan_view(store)}
    if id is None:
        raise ToolFailure(f"get_context(type: {kind}) needs an id; find gives the ids")
    if kind == "vehicle":
        v = store.require_vehicle(id)
        closing = store.closing_for(v.id)
        return {
            "vehicle": vehicle_view(v, store),
            "offers": [offer_view(o, store) for o in store.offers_on(v.id)],
            "closing": closing_view(closing, store) if closing else None,
            "missingForLaunch": [f for f in MISSING_FOR_LAUNCH if getattr(v, f) is None],
        }
    if kind == "offer":
        return offer_context(store.require_offer(id), store)
    if kind == "closing":
        c = store.require_closing(id)
        return {
            "closing": closing_view(c, store),
            "sends": [s for s in store.sends if s.get("closingId") == c.id],
        }
    if kind == "contact":
        contact = store.require_contact(id)
        tasks = [t for t in store.tasks() if t.contactId == contact.id and t.status == "OPEN"]
        return {"contact": contact_view(contact), "openTasks": [task_view(t, store) for t in tasks]}
    if kind == "task":
        task = store.task(id)
        if task is None:
            raise ToolFailure(f"no task {id!r}; find(type: task) gives the ids")
        return {"task": task_view(task, store)}
    raise ToolFailure(
        "type must be one of ['vehicle', 'offer', 'closing', 'contact', 'task', 'buy_plan']"
    )


# ---- brief --------------------------------------------------------------------------------------


def buy_plan_view(store: SandboxStore) -> Row:
    plan = store.world.buy_plan
    row = plan.model_dump(mode="json")
    row["remaining"] = round(plan.budget - plan.spent, 2)
    for target, out in zip(plan.targets, row["targets"], strict=True):
        out["stillToBuy"] = max(target.want - target.bought, 0)
    return row


def week_of(today: date) -> tuple[date, date]:
    monday = today - timedelta(days=today.weekday())
    return monday, monday + timedelta(days=6)


def brief(store: SandboxStore) -> Row:
    today = store.today
    monday, sunday = week_of(today)
    open_tasks = sorted(
        (t for t in store.tasks() if t.status == "OPEN"), key=lambda t: (t.dueDate, t.id)
    )
    offers = []
    for o in store.offers():
        if o.status in OPEN_OFFER:
            ctx = offer_context(o, store)
            offers.append({**ctx["offer"], **ctx.get("comparison", {})})
    closings = []
    for c in store.closings():
        if c.status != "OPEN":
            continue
        attention = [
            step_view(s, today)
            for s in c.steps
            if s.status == "PENDING" and s.dueDate and s.dueDate <= sunday
        ]
        closings.append({**closing_view(c, store), "needsAttention": attention})
    drafts = [v for v in store.vehicles() if v.status == "DRAFT"]
    return {
        "today": today.isoformat(),
        "weekday": today.strftime("%A"),
        "week": {"from": monday.isoformat(), "to": sunday.isoformat()},
        "tasksDueThisWeek": [
            task_view(t, store) for t in open_tasks if monday <= t.dueDate <= sunday
        ],
        "overdueFromEarlierWeeks": [task_view(t, store) for t in open_tasks if t.dueDate < monday],
        "offersWaiting": offers,
        "closings": closings,
        "drafts": {
            "count": len(drafts),
            "missingInfo": [
                {"vehicleId": v.id, "label": v.label, "missing": missing}
                for v in drafts
                if (missing := [f for f in MISSING_FOR_LAUNCH if getattr(v, f) is None])
            ],
        },
        "onHold": [vehicle_view(v, store) for v in store.vehicles() if v.status == "ON_HOLD"],
        "buyPlan": buy_plan_view(store),
    }
