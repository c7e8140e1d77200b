"""What the shop says in the store's language: amounts in its currency, and the lines of the
session context (what a real app would show the agent at the start: memory, screen, cart).
A store's `language` and `currency` (store.json) choose them; tool results stay data."""

from __future__ import annotations

# the symbol and the decimals a currency is written with
_CURRENCIES = {"USD": ("$", 2), "JPY": ("¥", 0), "EUR": ("€", 2), "GBP": ("£", 2)}


def money(amount: float, currency: str = "USD") -> str:
    """$1,234.50, ¥12,800: an amount as the store writes it."""
    symbol, decimals = _CURRENCIES.get(currency.upper(), (currency.upper() + " ", 2))
    return f"{symbol}{amount:,.{decimals}f}"


CONTEXT: dict[str, dict[str, str]] = {
    "en": {
        "memory": "What you remember about this customer from earlier sessions:",
        "no_memory": "You have no stored preferences for this customer yet.",
        "shown": "Products already shown to the customer in this session:",
        "cart": "The customer's cart holds:",
        "id": "id",
        "name": "name",
        "shown_at": "shown at",
        "quantity": "quantity",
    },
    "ja": {
        "memory": "以前のセッションで覚えているこのお客様の情報:",
        "no_memory": "このお客様について保存済みの好みはまだありません。",
        "shown": "このセッションでお客様にすでに表示した商品:",
        "cart": "お客様のカートの中身:",
        "id": "id",
        "name": "商品名",
        "shown_at": "表示価格",
        "quantity": "数量",
    },
}
