"""A dealer session: one agent's connection to the sandbox, with the six tools as methods.

Writes go through one path (`_run`): the operation must exist and match the tool (run_write or
run_destructive); params are cleaned; a dry run reports what would happen and what is missing and
changes nothing; a real run needs an idempotency key (the same key with the same request replays
the first answer, with another request it is refused); a decision only a person may take comes
back NEEDS_PERSON with a code and a decision link, dry run or not.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Literal

from commerce_evals.core.events import Snapshot
from commerce_evals.domains.base import NeedsPerson, Session, ToolFailure
from commerce_evals.domains.dealer import views
from commerce_evals.domains.dealer.descriptions import FIND_TEXT, catalog
from commerce_evals.domains.dealer.fixtures import DealerFixtures
from commerce_evals.domains.dealer.models import DealerState
from commerce_evals.domains.dealer.operations import OPERATIONS, Needs, Operation
from commerce_evals.domains.dealer.params import clean_params
from commerce_evals.domains.dealer.store import SandboxStore
from commerce_evals.domains.tooling import tool


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


STOP_WORDS = frozenset(
    words("a an and the to for of on in it its my our we us me i this that with at by from is be")
)


class DealerSession(Session):
    def __init__(self, world: DealerFixtures, state: DealerState):
        super().__init__()
        self.world = world
        self.store = SandboxStore(world, state)

    # ---- reads ----------------------------------------------------------------------------------

    @tool(fill=FIND_TEXT)
    def tool_find(
        self,
        type: Literal["vehicle", "offer", "contact", "task", "closing"],
        id: str | None = None,
        externalId: str | None = None,
        status: str | None = None,
        filters: dict[str, Any] | None = None,
        query: str | None = None,
        page: int = 1,
        pageSize: int = views.DEFAULT_PAGE_SIZE,
    ) -> dict[str, Any]:
        """Look records up. type is vehicle, offer, contact, task or closing. Narrow with id,
        externalId (contacts: the id in your own CRM, namespaced like 'sandbox-crm:C-101'),
        status ($statuses), filters (exact values; $filters; dates as YYYY-MM-DD) or query (words
        that must all appear in the name, title or description). Results are paged: page (from 1)
        and pageSize (default 10, at most $max_page_size); total says how many match.

        Args:
            type: The kind of record: vehicle, offer, contact, task or closing.
            id: A record id, e.g. V-1001, OF-2001, CT-4017.
            externalId: Contacts only: e.g. sandbox-crm:C-101.
            status: A status of that type, e.g. NEW.
            filters: Field values to match, e.g. {"make": "Toyota", "year": 2022}.
            query: Words to search for, e.g. '2022 Camry'.
            page: Page number, from 1.
            pageSize: 1-$max_page_size (default 10).
        """
        self._authorized()
        return views.find(
            self.store, type, id, externalId, status, filters, query, int(page), int(pageSize)
        )

    @tool()
    def tool_get_context(
        self,
        type: Literal["vehicle", "offer", "closing", "contact", "task", "buy_plan"],
        id: str | None = None,
    ) -> dict[str, Any]:
        """One record with what surrounds it: a vehicle with its offers, closing and what it lacks
        for launch; an offer with its car's buy-now price and floor and how the offer compares;
        a closing with every step (whose turn, due date, days overdue) and the sends recorded; a
        contact with its open tasks; a task. type buy_plan needs no id.

        Args:
            type: The kind of record: vehicle, offer, closing, contact, task or buy_plan.
            id: The record's id.
        """
        self._authorized()
        return views.get_context(self.store, type, id)

    @tool()
    def tool_brief(self) -> dict[str, Any]:
        """What needs the operator today, in one call: open tasks due this week (and overdue ones),
        offers waiting, closing steps due or overdue, drafts missing information, cars on hold
        and the month's buy plan. Use it for 'what needs me' questions instead of listing each
        kind of record.
        """
        self._authorized()
        return views.brief(self.store)

    @tool()
    def tool_discover(self, intent: str = "") -> dict[str, Any]:
        """Which operations exist for an intent (e.g. 'pause a car', 'reset the sandbox'), with
        what each does, which tool runs it and its params. Leave intent empty to list all.

        Args:
            intent: What you want to do, in plain words.
        """
        self._authorized()
        wanted = words(intent) - STOP_WORDS
        scored = []
        for index, op in enumerate(OPERATIONS.values()):
            score = len(wanted & (words(op.keywords) | set(op.name.split("_"))))
            if score or not wanted:
                scored.append((-score, index, op))
        scored.sort(key=lambda item: (item[0], item[1]))
        found = [op.describe() for _, _, op in (scored[:6] if wanted else scored)]
        answer: dict[str, Any] = {"intent": intent, "operations": found}
        if not found:
            answer["allOperations"] = list(OPERATIONS)
        answer["howToRun"] = (
            "Dry run first: run_write (or run_destructive) with dryRun: true. Then the real run "
            "with dryRun: false and a fresh idempotencyKey."
        )
        return answer

    # ---- writes ---------------------------------------------------------------------------------

    @tool(writes=True, fill=catalog("write"))
    def tool_run_write(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,  # keyword-only: the schema lists params before dryRun, as the model has always seen
        dryRun: bool,
        idempotencyKey: str | None = None,
    ) -> dict[str, Any]:
        """Run a write operation.

        Always dry run first (dryRun: true), then run it (dryRun: false, with an idempotencyKey).
        An answer with status NEEDS_PERSON carries a code (such as BELOW_FLOOR) and a
        decisionLink: the decision is a person's, so don't retry it or try another way.

        Operations:

        $catalog

        Args:
            operation: The operation's name, e.g. launch_vehicle.
            params: The operation's params, e.g. {"vehicleId": "V-1001"}.
            dryRun: true: report what would happen and what is missing, change nothing. false: do
                it.
            idempotencyKey: Required when dryRun is false: a fresh unique string per intended
                write. The same key again replays the first answer instead of writing twice.
        """
        return self._run("write", operation, params or {}, dryRun, idempotencyKey)

    @tool(writes=True, fill=catalog("destructive"))
    def tool_run_destructive(
        self,
        operation: str,
        params: dict[str, Any] | None = None,
        *,  # keyword-only: the schema lists params before dryRun, as the model has always seen
        dryRun: bool,
        idempotencyKey: str | None = None,
    ) -> dict[str, Any]:
        """Run an operation that cannot be undone.

        Always dry run first (dryRun: true), then run it (dryRun: false, with an idempotencyKey).
        An answer with status NEEDS_PERSON carries a code (such as BELOW_FLOOR) and a
        decisionLink: the decision is a person's, so don't retry it or try another way.

        Operations:

        $catalog

        Args:
            operation: The operation's name, e.g. launch_vehicle.
            params: The operation's params, e.g. {"vehicleId": "V-1001"}.
            dryRun: true: report what would happen and what is missing, change nothing. false: do
                it.
            idempotencyKey: Required when dryRun is false: a fresh unique string per intended
                write. The same key again replays the first answer instead of writing twice.
        """
        return self._run("destructive", operation, params or {}, dryRun, idempotencyKey)

    def _run(
        self, kind: str, name: str, given: dict[str, Any], dry: bool, key: str | None
    ) -> dict[str, Any]:
        self._authorized()
        op = self._operation(kind, name)
        params, missing = clean_params(op.name, op.params, given)
        head = {"operation": op.name, "dryRun": dry}
        if missing:
            if dry:
                return {**head, "ready": False, "missing": [f"params.{m}" for m in missing]}
            raise ToolFailure(f"MISSING_PARAMS: {op.name} needs {missing}; a dry run shows them")
        if not dry:
            key = _key(key)
            prior = self.store.writes.get(key)
            if prior is not None:
                if prior.operation == op.name and prior.params == params:
                    return {**prior.answer, "replayed": True}
                raise ToolFailure(
                    f"IDEMPOTENCY_KEY_REUSED: {key!r} already ran {prior.operation} with other "
                    "params; use a fresh key for a different write"
                )
        plan = op.plan(self.store, params)
        if plan.needs is not None:
            raise self._needs_person(op, plan.needs, dry)
        if dry:
            answer = {**head, "ready": not plan.missing, "wouldDo": plan.would}
            if plan.missing:
                answer["missing"] = plan.missing
                answer["howToFix"] = {m: plan.how_to_fix.get(m, "") for m in plan.missing}
            if plan.effects:
                answer["effects"] = plan.effects
            if plan.simulated:
                answer["simulated"] = True
            return answer
        if plan.missing:
            raise ToolFailure(
                f"MISSING_FIELDS: {op.name} cannot run; missing {plan.missing} (a dry run says "
                "how to fix)"
            )
        assert key is not None
        answer = {**head, "done": plan.would, **plan.apply(), "idempotencyKey": key}
        if plan.simulated:
            answer["simulated"] = True
        self.store.log_write(key, op.name, params, answer)
        return answer

    def _operation(self, kind: str, name: str) -> Operation:
        op = OPERATIONS.get(name.strip())
        if op is None:
            raise ToolFailure(f"no operation {name!r}; discover lists them by intent")
        if op.kind != kind:
            raise ToolFailure(f"{op.name} is a {op.kind} operation: run it with {op.tool}")
        return op

    def _needs_person(self, op: Operation, needs: Needs, dry: bool) -> NeedsPerson:
        digest = hashlib.sha1(f"{needs.code}|{op.name}|{needs.target}".encode()).hexdigest()
        decision = f"DEC-{digest[:6].upper()}"
        return NeedsPerson(
            needs.code,
            needs.message,
            {
                "operation": op.name,
                "dryRun": dry,
                "decisionId": decision,
                "decisionLink": f"{self.world.sandbox.decisionsUrl}/{decision}",
                "next": "A person decides at the decision link. Don't retry this write or look "
                "for another way to do it.",
            },
        )

    def _authorized(self) -> None:
        if self.store.key_revoked:
            raise ToolFailure(
                "401 UNAUTHORIZED: the key this agent is connected with was revoked (rotate_key); "
                "a person must reconnect the agent with the new key"
            )

    # ---- state ----------------------------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return self.store.snapshot()


def _key(key: str | None) -> str:
    if key is None or not str(key).strip():
        raise ToolFailure(
            "IDEMPOTENCY_KEY_REQUIRED: a write with dryRun: false needs an idempotencyKey "
            "(any unique string; reuse it only to retry the same write)"
        )
    return str(key).strip()
