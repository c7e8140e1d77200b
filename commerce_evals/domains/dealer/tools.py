"""The dealer's tools as the model sees them: Cypress Operate's core tools over the sandbox.

The operation lists in run_write and run_destructive are built from the catalog, so a description
never names an operation the sandbox lacks.
"""

from __future__ import annotations

from commerce_evals.domains.base import ToolSpec, params
from commerce_evals.domains.dealer.operations import OPERATIONS
from commerce_evals.domains.dealer.views import FILTERS, MAX_PAGE_SIZE, STATUSES


def _catalog(kind: str) -> str:
    return "\n".join(
        f"- {op.name}({', '.join(p.signature() for p in op.params)}): {op.summary}"
        for op in OPERATIONS.values()
        if op.kind == kind
    )


_FILTERS = "; ".join(f"{kind}: {', '.join(names)}" for kind, names in FILTERS.items())
_STATUSES = "; ".join(f"{kind}: {', '.join(s)}" for kind, s in STATUSES.items() if s)
_WRITE_ARGS = dict(
    operation={"type": "string", "description": "The operation's name, e.g. launch_vehicle."},
    params={
        "type": "object",
        "description": 'The operation\'s params, e.g. {"vehicleId": "V-1001"}.',
        "additionalProperties": True,
    },
    dryRun={
        "type": "boolean",
        "description": "true: report what would happen and what is missing, change nothing. "
        "false: do it.",
    },
    idempotencyKey={
        "type": "string",
        "description": "Required when dryRun is false: a fresh unique string per intended write. "
        "The same key again replays the first answer instead of writing twice.",
    },
)
_RUN_RULES = (
    "Always dry run first (dryRun: true), then run it (dryRun: false, with an idempotencyKey). "
    "An answer with status NEEDS_PERSON carries a code (such as BELOW_FLOOR) and a decisionLink: "
    "the decision is a person's, so don't retry it or try another way."
)

OPERATOR_TOOLS: list[ToolSpec] = [
    ToolSpec(
        "brief",
        "What needs the operator today, in one call: open tasks due this week (and overdue "
        "ones), offers waiting, closing steps due or overdue, drafts missing information, cars "
        "on hold and the month's buy plan. Use it for 'what needs me' questions instead of "
        "listing each kind of record.",
        params(),
    ),
    ToolSpec(
        "find",
        "Look records up. type is vehicle, offer, contact, task or closing. Narrow with id, "
        "externalId (contacts: the id in your own CRM, namespaced like 'sandbox-crm:C-101'), "
        f"status ({_STATUSES}), filters (exact values; {_FILTERS}; dates as YYYY-MM-DD) or "
        "query (words that must all appear in the name, title or description). Results are "
        f"paged: page (from 1) and pageSize (default 10, at most {MAX_PAGE_SIZE}); total says "
        "how many match.",
        params(
            ["type"],
            type={"type": "string", "enum": ["vehicle", "offer", "contact", "task", "closing"]},
            id={"type": "string", "description": "A record id, e.g. V-1001, OF-2001, CT-4017."},
            externalId={"type": "string", "description": "Contacts only: e.g. sandbox-crm:C-101."},
            status={"type": "string", "description": "A status of that type, e.g. NEW."},
            filters={
                "type": "object",
                "description": 'Field values to match, e.g. {"make": "Toyota", "year": 2022}.',
                "additionalProperties": True,
            },
            query={"type": "string", "description": "Words to search for, e.g. '2022 Camry'."},
            page={"type": "integer", "description": "Page number, from 1."},
            pageSize={"type": "integer", "description": f"1-{MAX_PAGE_SIZE} (default 10)."},
        ),
    ),
    ToolSpec(
        "get_context",
        "One record with what surrounds it: a vehicle with its offers, closing and what it lacks "
        "for launch; an offer with its car's buy-now price and floor and how the offer compares; "
        "a closing with every step (whose turn, due date, days overdue) and the sends recorded; "
        "a contact with its open tasks; a task. type buy_plan needs no id.",
        params(
            ["type"],
            type={
                "type": "string",
                "enum": ["vehicle", "offer", "closing", "contact", "task", "buy_plan"],
            },
            id={"type": "string", "description": "The record's id."},
        ),
    ),
    ToolSpec(
        "discover",
        "Which operations exist for an intent (e.g. 'pause a car', 'reset the sandbox'), with "
        "what each does, which tool runs it and its params. Leave intent empty to list all.",
        params(intent={"type": "string", "description": "What you want to do, in plain words."}),
    ),
    ToolSpec(
        "run_write",
        "Run a write operation.\n" + _RUN_RULES + "\nOperations:\n" + _catalog("write"),
        params(["operation", "dryRun"], **_WRITE_ARGS),
        writes=True,
    ),
    ToolSpec(
        "run_destructive",
        "Run an operation that cannot be undone.\n"
        + _RUN_RULES
        + "\nOperations:\n"
        + _catalog("destructive"),
        params(["operation", "dryRun"], **_WRITE_ARGS),
        writes=True,
    ),
]
