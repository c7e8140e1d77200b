"""Text in the dealer's tool descriptions that is built from data, so a description never names an
operation, a filter or a status the sandbox lacks."""

from __future__ import annotations

from commerce_evals.domains.dealer.operations import OPERATIONS
from commerce_evals.domains.dealer.views import FILTERS, MAX_PAGE_SIZE, STATUSES


def catalog(kind: str) -> dict[str, str]:
    """The operations of one kind (write or destructive), one line each, for `$catalog`."""
    lines = "\n".join(
        f"- {op.name}({', '.join(p.signature() for p in op.params)}): {op.summary}"
        for op in OPERATIONS.values()
        if op.kind == kind
    )
    return {"catalog": lines}


FIND_TEXT = {
    "filters": "; ".join(f"{kind}: {', '.join(names)}" for kind, names in FILTERS.items()),
    "statuses": "; ".join(f"{kind}: {', '.join(s)}" for kind, s in STATUSES.items() if s),
    "max_page_size": str(MAX_PAGE_SIZE),
}
