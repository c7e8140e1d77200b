"""How a grade's reason quotes what the agent said: one place, so every key reads the same."""

from __future__ import annotations


def quoted(text: str) -> str:
    """In quotes as written: repr() would double every backslash of a pattern like `\\d+`."""
    return f'"{text}"'


def quoted_list(items: list[str]) -> str:
    return ", ".join(quoted(item) for item in items)


def clipped(text: str, limit: int = 160) -> str:
    """A reply on one line, quoted, cut to `limit` characters."""
    text = " ".join(text.split())
    return quoted(text if len(text) <= limit else text[: limit - 1] + "…")
