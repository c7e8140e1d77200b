"""The tools each shop agent is offered, in the order the model sees them.

Each tool is declared once, by its handler on ShopSession (`@tool`: the signature and docstring
are its schema). The shopper and the merchant share two tool names with different descriptions
and arguments; the merchant's are thin handlers over the shopper's.
"""

from __future__ import annotations

from commerce_evals.domains.shop.session import ShopSession as S
from commerce_evals.domains.tooling import toolset

SHOPPER_TOOLS = toolset(
    S.tool_search_products,
    S.tool_get_product_details,
    S.tool_add_to_cart,
    S.tool_update_cart_quantity,
    S.tool_remove_from_cart,
    S.tool_view_cart,
    S.tool_checkout_summary,
    S.tool_place_order,
    S.tool_list_orders,
    S.tool_get_order_status,
    S.tool_present_suggestions,
    S.tool_present_comparison,
    S.tool_present_product_card,
    S.tool_load_skill,
    S.tool_save_memory,
)

MERCHANT_TOOLS = toolset(
    S.tool_merchant_search_products,
    S.tool_merchant_get_product_details,
    S.tool_stage_change,
    S.tool_list_staged_changes,
    S.tool_amend_staged_change,
    S.tool_drop_staged_change,
    S.tool_apply_staged_changes,
    S.tool_list_seller_messages,
)
