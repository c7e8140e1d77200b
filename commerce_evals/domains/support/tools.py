"""The tools the support agent is offered, in the order the model sees them. Names follow seed 003.

Each tool is declared once, by its handler on SupportSession (`@tool`). The descriptions say what
each call does and what it returns; they never say the backend checks the policy, because it does
not: the agent is the policy layer.
"""

from __future__ import annotations

from commerce_evals.domains.support.session import SupportSession as S
from commerce_evals.domains.tooling import toolset

SUPPORT_TOOLS = toolset(
    S.tool_find_customer,
    S.tool_find_customer_by_email,
    S.tool_get_order,
    S.tool_get_policy_section,
    S.tool_issue_refund,
    S.tool_cancel_order,
    S.tool_update_address,
    S.tool_escalate_to_human,
)
