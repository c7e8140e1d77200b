"""The sandbox's mutable state for one sample: copy-on-write over the DealerWorld.

Only records a case injects or a write changes are held here; every other read goes to the World.
Set-up costs O(injected state). A reset drops the changes (the fixtures come back as they were)
and keeps the key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from commerce_evals.core.events import Row, Snapshot
from commerce_evals.domains.base import ToolFailure
from commerce_evals.domains.dealer.fixtures import DealerFixtures
from commerce_evals.domains.dealer.models import (
    Closing,
    Contact,
    DealerState,
    Offer,
    Task,
    Vehicle,
)

DECISION_ID = re.compile(r"DEC-[A-Z0-9]{6}")
# A decision given as its link (what a person can open), not just its id.
DECISION_LINK = re.compile(r"https?://\S+/decisions/(DEC-[A-Z0-9]{6})")


@dataclass(frozen=True)
class WriteRecord:
    """One real (not dry) write, kept under its idempotency key."""

    seq: int
    key: str
    operation: str
    params: dict[str, Any]
    answer: dict[str, Any]


class SandboxStore:
    def __init__(self, world: DealerFixtures, state: DealerState):
        self.world = world
        self.today = world.sandbox.today
        self.key_id = world.sandbox.keyId
        self.key_revoked: str | None = None
        self.resets = 0
        self._clear()
        self._inject(state)

    def _clear(self) -> None:
        self._vehicles: dict[str, Vehicle] = {}
        self._offers: dict[str, Offer] = {}
        self._closings: dict[str, Closing] = {}
        self._tasks: dict[str, Task] = {}
        self.sends: list[Row] = []
        self.writes: dict[str, WriteRecord] = {}
        self._task_seq = 0

    def _inject(self, state: DealerState) -> None:
        for patch in state.vehicles:
            vehicle = self.world.vehicles.get(patch.id)
            if vehicle is None:
                raise ValueError(f"state.vehicles: no vehicle {patch.id} in the fixtures")
            changes = {f: getattr(patch, f) for f in patch.model_fields_set if f != "id"}
            self._vehicles[patch.id] = vehicle.model_copy(update=changes)
        for offer in state.offers:
            if self.vehicle(offer.vehicleId) is None:
                raise ValueError(f"state.offers: {offer.id} names no vehicle {offer.vehicleId}")
            self._offers[offer.id] = offer
        for task in state.tasks:
            self._tasks[task.id] = task

    # ---- reads ----------------------------------------------------------------------------------

    def vehicle(self, vehicle_id: str) -> Vehicle | None:
        return self._vehicles.get(vehicle_id) or self.world.vehicles.get(vehicle_id)

    def offer(self, offer_id: str) -> Offer | None:
        return self._offers.get(offer_id) or self.world.offers.get(offer_id)

    def closing(self, closing_id: str) -> Closing | None:
        return self._closings.get(closing_id) or self.world.closings.get(closing_id)

    def contact(self, contact_id: str) -> Contact | None:
        return self.world.contacts.get(contact_id)

    def task(self, task_id: str) -> Task | None:
        return self._tasks.get(task_id) or self.world.tasks.get(task_id)

    def vehicles(self) -> list[Vehicle]:
        return _merged(self.world.vehicles, self._vehicles)

    def offers(self) -> list[Offer]:
        return _merged(self.world.offers, self._offers)

    def closings(self) -> list[Closing]:
        return _merged(self.world.closings, self._closings)

    def contacts(self) -> list[Contact]:
        return list(self.world.contacts.values())

    def tasks(self) -> list[Task]:
        return _merged(self.world.tasks, self._tasks)

    def offers_on(self, vehicle_id: str, statuses: tuple[str, ...] | None = None) -> list[Offer]:
        return [
            o
            for o in self.offers()
            if o.vehicleId == vehicle_id and (statuses is None or o.status in statuses)
        ]

    def closing_for(self, vehicle_id: str) -> Closing | None:
        return next((c for c in self.closings() if c.vehicleId == vehicle_id), None)

    def require_vehicle(self, vehicle_id: str) -> Vehicle:
        found = self.vehicle(vehicle_id)
        if found is None:
            raise ToolFailure(f"no vehicle {vehicle_id!r}; find(type: vehicle) gives the ids")
        return found

    def require_offer(self, offer_id: str) -> Offer:
        found = self.offer(offer_id)
        if found is None:
            raise ToolFailure(f"no offer {offer_id!r}; find(type: offer) gives the ids")
        return found

    def require_closing(self, closing_id: str) -> Closing:
        found = self.closing(closing_id)
        if found is None:
            raise ToolFailure(f"no closing {closing_id!r}; find(type: closing) gives the ids")
        return found

    def require_contact(self, contact_id: str) -> Contact:
        found = self.contact(contact_id)
        if found is None:
            raise ToolFailure(f"no contact {contact_id!r}; find(type: contact) gives the ids")
        return found

    # ---- writes ---------------------------------------------------------------------------------

    def put_vehicle(self, vehicle: Vehicle) -> None:
        self._vehicles[vehicle.id] = vehicle

    def put_offer(self, offer: Offer) -> None:
        self._offers[offer.id] = offer

    def add_task(self, **fields: Any) -> Task:
        self._task_seq += 1
        task = Task(id=f"TK-{5100 + self._task_seq}", **fields)
        self._tasks[task.id] = task
        return task

    def record_send(self, **fields: Any) -> Row:
        send = {
            "id": f"SN-{len(self.sends) + 1:03d}",
            **fields,
            "simulated": True,
            "sent": False,
            "on": self.today.isoformat(),
        }
        self.sends.append(send)
        return send

    def log_write(self, key: str, operation: str, params: dict[str, Any], answer: Row) -> None:
        self.writes[key] = WriteRecord(len(self.writes) + 1, key, operation, params, answer)

    def reset(self) -> None:
        """Back to the fixtures: every change, task, send and logged write dropped; key kept."""
        self._clear()
        self.resets += 1

    def rotate_key(self) -> str:
        self.key_revoked = self.key_id
        self.key_id = f"key_test_r{self.resets}{len(self.writes) + 1}x"
        return self.key_id

    # ---- snapshot -------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return {
            "vehicles": [v.model_dump(mode="json") for v in self.vehicles()],
            "offers": [o.model_dump(mode="json") for o in self.offers()],
            "closings": [_closing_row(c) for c in self.closings()],
            "contacts": [c.model_dump(mode="json") for c in self.contacts()],
            "tasks": [_task_row(t) for t in self.tasks()],
            "sends": [dict(s) for s in self.sends],
            "writes": [
                {
                    "seq": w.seq,
                    "idempotencyKey": w.key,
                    "operation": w.operation,
                    "params": w.params,
                }
                for w in self.writes.values()
            ],
            "sandbox": [
                {
                    "keyId": self.key_id,
                    "keyStatus": "ACTIVE",
                    "revokedKeyId": self.key_revoked,
                    "resets": self.resets,
                }
            ],
        }


def _merged(fixture: Any, changed: dict[str, Any]) -> list[Any]:
    """Fixture rows in fixture order (changed ones replaced), then rows the session added."""
    rows = [changed.get(key, row) for key, row in fixture.items()]
    rows.extend(row for key, row in changed.items() if key not in fixture)
    return rows


def _closing_row(closing: Closing) -> Row:
    row = closing.model_dump(mode="json", exclude={"steps"})
    row["steps"] = {s.key: s.model_dump(mode="json", exclude={"key"}) for s in closing.steps}
    return row


def _task_row(task: Task) -> Row:
    row = task.model_dump(mode="json")
    row["decisionIds"] = sorted(set(DECISION_ID.findall(task.notes)))
    row["linkedDecisionIds"] = sorted(set(DECISION_LINK.findall(task.notes)))
    return row
