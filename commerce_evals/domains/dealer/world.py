"""The dealer World: a Cypress Operate sandbox (vehicles, offers, closings, CRM, tasks, buy plan).

Loaded once per task from fixtures/dealer/ (or a folder given with -T fixtures=...); each file is
JSON or YAML and validated by its pydantic model, unknown keys refused. The dealer domain has no
poisoned fixtures, so the `poisoned` switch changes nothing here.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import MAX_FIXTURE_BYTES, read_data
from commerce_evals.domains.base import FIXTURES, AgentProfile, World
from commerce_evals.domains.dealer.models import (
    BuyPlan,
    Closing,
    ClosingsFile,
    Contact,
    ContactsFile,
    DealerState,
    Offer,
    OffersFile,
    SandboxInfo,
    Task,
    TasksFile,
    Vehicle,
    VehiclesFile,
)
from commerce_evals.domains.dealer.tools import OPERATOR_TOOLS
from commerce_evals.grading.changes import ChangeRules

HERE = Path(__file__).parent
M = TypeVar("M", bound=BaseModel)


class FixtureError(InputError):
    """A dealer fixture that does not load, naming the file and the field."""


def read_fixture(root: Path, stem: str, model: type[M]) -> M:
    """Read <stem>.json, .yaml or .yml under root into `model`."""
    for suffix in (".json", ".yaml", ".yml"):
        path = root / f"{stem}{suffix}"
        if path.exists():
            break
    else:
        raise FixtureError(f"{root}: no {stem}.json or {stem}.yaml")
    data = read_data(path, MAX_FIXTURE_BYTES, "fixture file")
    try:
        return model.model_validate(data)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise FixtureError(
            f"{path}: {loc}: {first['msg']} ({err.error_count()} problem{'s' * (err.error_count() != 1)})"
        ) from err


def _by_id(rows: list[Any], what: str) -> MappingProxyType[str, Any]:
    found: dict[str, Any] = {}
    for row in rows:
        if row.id in found:
            raise FixtureError(f"{what} id {row.id} appears twice")
        found[row.id] = row
    return MappingProxyType(found)


class DealerWorld(World):
    domain: ClassVar[str] = "dealer"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "operator": AgentProfile("operator", HERE / "operate.md", tuple(OPERATOR_TOOLS)),
    }
    tables: ClassVar[frozenset[str]] = frozenset(
        {"vehicles", "offers", "closings", "contacts", "tasks", "sends", "writes", "sandbox"}
    )
    change_rules: ClassVar[ChangeRules] = ChangeRules(
        volatile={
            "tasks": frozenset({"id"}),
            "sends": frozenset({"id"}),
            # the write log repeats what the other tables show; its keys are the agent's own
            "writes": frozenset({"seq", "idempotencyKey", "params"}),
        },
        free_text={
            "tasks": frozenset({"title", "notes"}),
            "sends": frozenset({"message", "body", "subject"}),
        },
    )
    state_model: ClassVar[type[BaseModel]] = DealerState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {"id", "vehicleId", "offerId", "contactId", "closingId"}
    )

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
    def load(cls, fixtures: Path | None = None, poisoned: bool = True) -> DealerWorld:
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

    def session(self, state: dict[str, Any]) -> Any:
        from commerce_evals.domains.dealer.session import DealerSession

        return DealerSession(self, DealerState.model_validate(state))

    def instruction_variables(self) -> dict[str, Any]:
        today = self.sandbox.today
        monday = today - timedelta(days=today.weekday())
        return {
            "organization": self.sandbox.organization,
            "platform": self.sandbox.platform,
            "today": today.isoformat(),
            "weekday": today.strftime("%A"),
            "week_start": monday.isoformat(),
            "week_end": (monday + timedelta(days=6)).isoformat(),
            "timezone": self.sandbox.timezone,
            "key_hint": self.sandbox.keyHint,
            "crm_system": self.sandbox.crmSystem,
        }

    def case_ids(self, state: dict[str, Any]) -> set[str]:
        """Offers and tasks a case injects may carry new ids."""
        rows = [*state.get("offers", []), *state.get("tasks", [])]
        return {row["id"] for row in rows if isinstance(row, dict) and "id" in row}

    def known_ids(self) -> set[str]:
        return (
            set(self.vehicles)
            | set(self.offers)
            | set(self.closings)
            | set(self.contacts)
            | set(self.tasks)
        )
