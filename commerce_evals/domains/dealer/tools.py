"""The tools the dealer operator is offered: Cypress Operate's core tools over the sandbox.

Each tool is declared once, by its handler on DealerSession (`@tool`); the operation lists in
run_write and run_destructive come from the catalog (descriptions.py).
"""

from __future__ import annotations

from commerce_evals.cases.key_values import ToolPattern
from commerce_evals.domains.dealer.operations import OPERATIONS
from commerce_evals.domains.dealer.session import DealerSession as S
from commerce_evals.domains.tooling import toolset

OPERATOR_TOOLS = toolset(
    S.tool_brief,
    S.tool_find,
    S.tool_get_context,
    S.tool_discover,
    S.tool_run_write,
    S.tool_run_destructive,
)

# Each catalog operation is performed or prepared (a dry run) through either write tool: the
# session answers a call on the wrong one with an error, but the call is still an attempt at it.
OPERATOR_OPERATIONS: dict[str, tuple[ToolPattern, ...]] = {
    name: tuple(
        ToolPattern(tool=tool, args={"operation": name})
        for tool in ("run_write", "run_destructive")
    )
    for name in OPERATIONS
}
