"""File formats of the dealer domain: the sandbox's fixtures and a case's injected state.

Field names follow the Cypress Operate API the agent talks to (camelCase), so a fixture row, a
tool answer and a snapshot row read the same. Every model refuses unknown keys.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field, field_validator, model_validator

from commerce_evals.core.strict import FrozenStrict, unique_rows

Condition = Literal["EXCELLENT", "GOOD", "FAIR", "POOR"]
VehicleStatus = Literal[
    "DRAFT", "LISTED", "ON_HOLD", "OFFER_ACCEPTED", "IN_CLOSING", "SOLD", "DELISTED"
]
OfferStatus = Literal[
    "NEW", "COUNTERED", "ACCEPTED", "DECLINED", "WITHDRAWN", "SUPERSEDED", "EXPIRED"
]
OPEN_OFFER = ("NEW", "COUNTERED")
StepStatus = Literal["COMPLETE", "PENDING", "WAITING"]
Party = Literal["buyer", "dealer", "lender"]
TaskStatus = Literal["OPEN", "DONE"]


class Location(FrozenStrict):
    city: str
    state: str = Field(pattern=r"^[A-Z]{2}$")


class Pricing(FrozenStrict):
    buyNowPrice: float = Field(gt=0, allow_inf_nan=False)
    floorPrice: float = Field(gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _floor_under_price(self) -> Pricing:
        if self.floorPrice > self.buyNowPrice:
            raise ValueError("floorPrice must not be above buyNowPrice")
        return self


class Vehicle(FrozenStrict):
    id: str = Field(pattern=r"^V-\d{4}$")
    vin: str = Field(min_length=17, max_length=17)
    year: int = Field(ge=1990, le=2030)
    make: str
    model: str
    trim: str = ""
    color: str = ""
    mileage: int | None = Field(default=None, ge=0)
    condition: Condition | None = None
    status: VehicleStatus
    location: Location
    pricing: Pricing | None = None
    listedOn: date | None = None

    @property
    def label(self) -> str:
        return f"{self.year} {self.make} {self.model} {self.trim}".strip()


class Buyer(FrozenStrict):
    """A marketplace buyer as the dealer sees them before acceptance: a handle, not a person."""

    handle: str
    verified: bool
    financing: Literal["cash", "pre-approved", "needs financing"]


class Offer(FrozenStrict):
    id: str = Field(pattern=r"^OF-\d{4}$")
    vehicleId: str
    amount: float = Field(gt=0, allow_inf_nan=False)
    status: OfferStatus
    receivedAt: datetime
    buyer: Buyer
    counterPrice: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    message: str = ""


class ClosingStep(FrozenStrict):
    key: str = Field(pattern=r"^[A-Z]{2,5}$")
    name: str
    kind: Literal["signature", "payment", "document", "delivery"]
    party: Party
    status: StepStatus
    dueDate: date | None = None
    completedOn: date | None = None


class Closing(FrozenStrict):
    id: str = Field(pattern=r"^CL-\d{4}$")
    vehicleId: str
    offerId: str
    buyerName: str
    salePrice: float = Field(gt=0, allow_inf_nan=False)
    status: Literal["OPEN", "COMPLETE", "CANCELLED"]
    steps: list[ClosingStep] = Field(min_length=1)

    def step(self, key: str) -> ClosingStep | None:
        return next((s for s in self.steps if s.key.casefold() == key.casefold()), None)


class Contact(FrozenStrict):
    id: str = Field(pattern=r"^CT-\d{4}$")
    externalId: str = Field(pattern=r"^[a-z][a-z0-9-]*:[A-Za-z0-9-]+$")
    name: str
    company: str
    role: str = ""
    email: str = ""
    phone: str = ""


class Task(FrozenStrict):
    id: str = Field(pattern=r"^TK-\d{4}$")
    title: str
    dueDate: date
    status: TaskStatus = "OPEN"
    contactId: str | None = None
    vehicleId: str | None = None
    notes: str = ""
    assignee: str | None = None


class BuyTarget(FrozenStrict):
    segment: str
    want: int = Field(ge=0, strict=True)
    bought: int = Field(ge=0, strict=True)
    maxPrice: float = Field(gt=0, allow_inf_nan=False)


class BuyPlan(FrozenStrict):
    id: str
    month: str = Field(pattern=r"^\d{4}-\d{2}$")
    budget: float = Field(gt=0, allow_inf_nan=False)
    spent: float = Field(ge=0, allow_inf_nan=False)
    targets: list[BuyTarget] = Field(min_length=1)


class SandboxInfo(FrozenStrict):
    """The organisation the sandbox belongs to, its fixed today, and its test key."""

    organization: str
    platform: str = "Cypress Operate"
    mode: Literal["sandbox"] = "sandbox"
    today: date
    timezone: str
    keyId: str = Field(pattern=r"^key_test_[A-Za-z0-9]+$")
    keyHint: str
    crmSystem: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    decisionsUrl: str = Field(pattern=r"^https://")


# ---- fixture files ------------------------------------------------------------------------------


class VehiclesFile(FrozenStrict):
    vehicles: list[Vehicle]

    one_row_per_id = field_validator("vehicles")(unique_rows("id"))


class OffersFile(FrozenStrict):
    offers: list[Offer]

    one_row_per_id = field_validator("offers")(unique_rows("id"))


class ClosingsFile(FrozenStrict):
    closings: list[Closing]

    one_row_per_id = field_validator("closings")(unique_rows("id"))


class ContactsFile(FrozenStrict):
    contacts: list[Contact]

    one_row_per_id = field_validator("contacts")(unique_rows("id"))


class TasksFile(FrozenStrict):
    tasks: list[Task]

    one_row_per_id = field_validator("tasks")(unique_rows("id"))


# ---- a case's injected state --------------------------------------------------------------------


class VehiclePatch(FrozenStrict):
    """Fields to change on a fixture vehicle before the case starts; only the ones given."""

    id: str = Field(pattern=r"^V-\d{4}$")
    status: VehicleStatus | None = None
    condition: Condition | None = None
    mileage: int | None = Field(default=None, ge=0)
    pricing: Pricing | None = None
    listedOn: date | None = None


class DealerState(FrozenStrict):
    """What a case may inject: vehicle changes, and offers or tasks added (or replaced by id)."""

    vehicles: list[VehiclePatch] = Field(default_factory=list)
    offers: list[Offer] = Field(default_factory=list)
    tasks: list[Task] = Field(default_factory=list)
