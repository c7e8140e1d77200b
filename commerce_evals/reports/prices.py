"""Token prices (datasets/prices.yaml): per million tokens, by model and by part of the usage.

A key is a model name as Inspect writes it (`anthropic/claude-sonnet-4-6`) or a shell pattern
(`commerce/*`); an exact name wins over a pattern, and a longer pattern over a shorter one. A
model the table does not name has an unknown cost, reported as unknown, never as zero.

Each part of a model's usage is priced at its own rate: input at the full rate, input read from
the provider's prompt cache (`cache_read`), input written to it (`cache_write`), and output
(reasoning tokens are output and priced as output). A model with no `cache_read` or
`cache_write` price has those tokens priced at its input price, and the cost says so (`Cost.
at_input_price`, turned into a note by every report): that is what the tokens cost without a
cache, an upper bound for reads on every provider that discounts them and near the price of a
write (Anthropic bills a write at 1.25 times the input). Pricing them at 0 would hide most of a
cached run's input, an unknown cost would hide a cost that is mostly known, and an error would
stop a whole comparison over one missing price.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import Field, PrivateAttr, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import ReadError, parse_yaml, read_text
from commerce_evals.core.strict import Strict
from commerce_evals.core.tokens import TokenCount
from commerce_evals.domains.base import DATASETS

PRICES_FILE = DATASETS / "prices.yaml"
CACHE_PARTS = ("cache_read", "cache_write")
PART_NAMES = {"cache_read": "cache-read input", "cache_write": "cache-write input"}


@dataclass(frozen=True)
class Cost:
    amount: float
    # tokens of a part the table gives the model no price for, priced at its input price
    at_input_price: Mapping[str, int] = field(default_factory=dict)

    def __add__(self, other: Cost) -> Cost:
        parts = dict(self.at_input_price)
        for part, tokens in other.at_input_price.items():
            parts[part] = parts.get(part, 0) + tokens
        return Cost(self.amount + other.amount, parts)


class Price(Strict):
    input: float = Field(ge=0)  # per million input tokens at the full rate
    output: float = Field(ge=0)  # per million output tokens (reasoning included)
    # per million input tokens read from / written to the provider's prompt cache; when not
    # given, those tokens are priced at `input` and every report names them
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)

    def cost(self, tokens: TokenCount) -> Cost:
        amount = tokens.input * self.input + tokens.output * self.output
        fallback: dict[str, int] = {}
        for part in CACHE_PARTS:
            count = getattr(tokens, part)
            rate = getattr(self, part)
            if rate is None:
                rate = self.input
                if count:
                    fallback[part] = count
            amount += count * rate
        return Cost(amount / 1_000_000, fallback)


class PriceTable(Strict):
    currency: str = "USD"
    models: dict[str, Price] = Field(default_factory=dict)
    _source: str = PrivateAttr(default="the price table")

    @property
    def source(self) -> str:
        """Where the table was read from, for the notes that ask for a missing price."""
        return self._source

    def price(self, model: str | None) -> Price | None:
        if not model:
            return None
        if model in self.models:
            return self.models[model]
        patterns = sorted(
            (key for key in self.models if any(ch in key for ch in "*?[")), key=len, reverse=True
        )
        for pattern in patterns:
            if fnmatchcase(model, pattern):
                return self.models[pattern]
        return None

    def cost(self, model: str | None, tokens: TokenCount) -> Cost | None:
        """The tokens' cost at the model's prices; None when the table does not price it."""
        price = self.price(model)
        return None if price is None else price.cost(tokens)

    def fallback_notes(self, model: str, cost: Cost | None) -> list[str]:
        """One line per part priced at the model's input price for want of its own price."""
        if cost is None:
            return []
        return [
            f"{model}: {tokens:,} {PART_NAMES[part]} tokens priced at its input price;"
            f" {self.source} gives it no {part} price (add one to price them right)"
            for part, tokens in sorted(cost.at_input_price.items())
            if tokens
        ]


class PriceFileError(InputError):
    pass


def load_prices(path: Path | str | None = None) -> PriceTable:
    path = Path(path) if path else PRICES_FILE
    try:
        data = parse_yaml(read_text(path, what="price table"), str(path))
    except ReadError as err:
        raise PriceFileError(err.problems) from err
    try:
        table = PriceTable.model_validate(data or {})
    except ValidationError as err:
        raise PriceFileError(
            "\n".join(
                f"{path}: {'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}"
                for e in err.errors(include_url=False)
            )
        ) from err
    table._source = str(path)
    return table
