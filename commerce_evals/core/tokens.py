"""Every part of a model's token usage, as Inspect records it, and the sums reports need.

Inspect's `ModelUsage.input_tokens` is only the input billed at the full rate: a prompt a
provider served from its prompt cache is counted apart, in `input_tokens_cache_read`, and what it
wrote to the cache in `input_tokens_cache_write`. The input a model processed is the sum of the
three. `reasoning_tokens` is a part of `output_tokens` (every provider Inspect wraps bills
thinking at the output rate and Inspect counts it in the output), so it is shown, never added.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Inspect's ModelUsage fields, as `stats.model_usage` / `stats.role_usage` hold them
USAGE_FIELDS = {
    "input": "input_tokens",
    "cache_read": "input_tokens_cache_read",
    "cache_write": "input_tokens_cache_write",
    "output": "output_tokens",
    "reasoning": "reasoning_tokens",
}


@dataclass(frozen=True)
class TokenCount:
    """Tokens by part. `input` is the input billed at the full rate (Inspect's input_tokens)."""

    input: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    reasoning: int = 0  # of the output

    @classmethod
    def from_usage(cls, usage: Mapping[str, Any] | Any | None) -> TokenCount:
        """From a ModelUsage or its dict (a missing or None part is 0)."""
        if usage is None:
            return cls()
        get = usage.get if isinstance(usage, Mapping) else lambda name: getattr(usage, name, 0)
        return cls(**{part: int(get(name) or 0) for part, name in USAGE_FIELDS.items()})

    @property
    def processed_input(self) -> int:
        """Every input token the model read: full-rate, read from the cache, written to it."""
        return self.input + self.cache_read + self.cache_write

    @property
    def cached(self) -> bool:
        return bool(self.cache_read or self.cache_write)

    def __add__(self, other: TokenCount) -> TokenCount:
        return TokenCount(
            self.input + other.input,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.output + other.output,
            self.reasoning + other.reasoning,
        )

    def __sub__(self, other: TokenCount) -> TokenCount:
        return TokenCount(
            self.input - other.input,
            self.cache_read - other.cache_read,
            self.cache_write - other.cache_write,
            self.output - other.output,
            self.reasoning - other.reasoning,
        )


def total(usages: Mapping[str, Any]) -> TokenCount:
    """The sum over a `model_usage` or `role_usage` mapping (name -> usage)."""
    count = TokenCount()
    for usage in usages.values():
        count = count + TokenCount.from_usage(usage)
    return count
