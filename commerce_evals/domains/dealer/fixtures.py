"""The dealer's fixtures: a Cypress Operate sandbox (vehicles, offers, closings, CRM, tasks, buy plan).

Loaded once per task from fixtures/dealer/ (or a folder given with -T fixtures=...); each file is
JSON or YAML and validated by its pydantic model, unknown keys refused. DealerWorld (world.py)
adds the domain contract on top.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Self

from commerce_evals.domains.dealer.models import (
    BuyPlan,
    Closing,
    ClosingsFile,
    Contact,
    ContactsFile,
    Offer,
    OffersFile,
    SandboxInfo,
    Task,
    TasksFile,
    Vehicle,
    VehiclesFile,
)
from commerce_evals.domains.fixtures import FIXTURES, FixtureError, read_fixture


def _by_id(rows: list[Any], what: str) -> MappingProxyType[str, Any]:
    found: dict[str, Any] = {}
    for row in rows:
        if row.id in found:
            raise FixtureError(f"{what} id {row.id} appears twice")
        found[row.id] = row
    return MappingProxyType(found)


class DealerFixtures:
    """The sandbox's fixtures, immutable, with every reference between them checked."""

    def __init__(
        self,
        sandbox: SandboxInfo,
        vehicles: list[Vehicle],
        offers: list[Offer],
        closings: list[Closing],
        contacts: list[Contact],
        tasks: list[Task],
        buy_plan: BuyPlan,
    ):
        self.sandbox = sandbox
        self.vehicles = _by_id(vehicles, "vehicle")
        self.offers = _by_id(offers, "offer")
        self.closings = _by_id(closings, "closing")
        self.contacts = _by_id(contacts, "contact")
        self.tasks = _by_id(tasks, "task")
        self.buy_plan = buy_plan
        self.contacts_by_external = MappingProxyType(
            {c.externalId.casefold(): c.id for c in contacts}
        )
        self._check_references()

    def _check_references(self) -> None:
        for offer in self.offers.values():
            if offer.vehicleId not in self.vehicles:
                raise FixtureError(f"offer {offer.id}: no vehicle {offer.vehicleId}")
        for closing in self.closings.values():
            if closing.vehicleId not in self.vehicles or closing.offerId not in self.offers:
                raise FixtureError(f"closing {closing.id}: unknown vehicle or offer")
        for task in self.tasks.values():
            if task.contactId and task.contactId not in self.contacts:
                raise FixtureError(f"task {task.id}: no contact {task.contactId}")
            if task.vehicleId and task.vehicleId not in self.vehicles:
                raise FixtureError(f"task {task.id}: no vehicle {task.vehicleId}")

    @classmethod
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> Self:
        root = fixtures or FIXTURES / "dealer"
        return cls(
            sandbox=read_fixture(root, "sandbox", SandboxInfo),
            vehicles=read_fixture(root, "vehicles", VehiclesFile).vehicles,
            offers=read_fixture(root, "offers", OffersFile).offers,
            closings=read_fixture(root, "closings", ClosingsFile).closings,
            contacts=read_fixture(root, "contacts", ContactsFile).contacts,
            tasks=read_fixture(root, "tasks", TasksFile).tasks,
            buy_plan=read_fixture(root, "buy_plan", BuyPlan),
        )
