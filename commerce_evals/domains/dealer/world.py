"""The dealer as a domain: the sandbox's fixtures (fixtures.py) under the World contract. The
dealer has no poisoned fixtures, so the `poisoned` switch changes nothing here."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from commerce_evals.cases.key_values import ToolPattern
from commerce_evals.domains.base import AgentProfile, World
from commerce_evals.domains.dealer import invariants as dealer_invariants
from commerce_evals.domains.dealer.fixtures import DealerFixtures
from commerce_evals.domains.dealer.models import DealerState
from commerce_evals.domains.dealer.session import DealerSession
from commerce_evals.domains.dealer.tools import OPERATOR_OPERATIONS, OPERATOR_TOOLS
from commerce_evals.grading.changes import ChangeRules, WriteRule
from commerce_evals.grading.graders import KeyTables
from commerce_evals.grading.invariants import Invariants

HERE = Path(__file__).parent

# An operation's effect is its name and the records it acts on (and how: accept or decline an
# offer, which closing step); a dry run changes nothing.
OPERATION_WRITE = WriteRule(
    "operation",
    (
        "operation",
        "params.vehicleId",
        "params.offerId",
        "params.closingId",
        "params.contactId",
        "params.action",
        "params.stepKey",
        "params.document",
    ),
    dry_run="dryRun",
    tables=frozenset({"vehicles", "offers", "closings", "contacts", "tasks", "sends", "sandbox"}),
)


class DealerWorld(DealerFixtures, World):
    domain: ClassVar[str] = "dealer"
    agents: ClassVar[dict[str, AgentProfile]] = {
        "operator": AgentProfile("operator", HERE / "operate.md", OPERATOR_TOOLS),
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
        sets={"tasks": frozenset({"decisionIds", "linkedDecisionIds"})},
        caseless={"tasks": frozenset({"assignee"})},
        # who a handover task goes to is the team's call: no case names one, so any or none
        optional_text={"tasks": frozenset({"assignee"})},
        writes={tool: OPERATION_WRITE for tool in ("run_write", "run_destructive")},
    )
    key_tables: ClassVar[KeyTables] = KeyTables()  # no cart, memory or change queue
    invariants: ClassVar[Invariants] = dealer_invariants.RULES
    operations: ClassVar[dict[str, tuple[ToolPattern, ...]]] = OPERATOR_OPERATIONS
    state_model: ClassVar[type[BaseModel]] = DealerState
    id_fields: ClassVar[frozenset[str]] = frozenset(
        {"id", "vehicleId", "offerId", "contactId", "closingId"}
    )

    def session(self, state: dict[str, Any]) -> DealerSession:
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

    def judge_context(self) -> str:
        return ""  # the dealer gives a judge no reference text beyond the transcript

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
