"""Token prices (datasets/prices.yaml): per million tokens, input and output, by model.

A key is a model name as Inspect writes it (`anthropic/claude-sonnet-4-6`) or a shell pattern
(`commerce/*`); an exact name wins over a pattern, and a longer pattern over a shorter one. A
model the table does not name has an unknown cost, reported as unknown, never as zero.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import Field, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import ReadError, parse_yaml, read_text
from commerce_evals.domains.base import DATASETS
from commerce_evals.strict import Strict

PRICES_FILE = DATASETS / "prices.yaml"


class Price(Strict):
    input: float = Field(ge=0)  # per million input tokens
    output: float = Field(ge=0)  # per million output tokens

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


class PriceTable(Strict):
    currency: str = "USD"
    models: dict[str, Price] = Field(default_factory=dict)

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

    def cost(self, model: str | None, input_tokens: int, output_tokens: int) -> float | None:
        price = self.price(model)
        return None if price is None else price.cost(input_tokens, output_tokens)


class PriceFileError(InputError):
    pass


def load_prices(path: Path | str | None = None) -> PriceTable:
    path = Path(path) if path else PRICES_FILE
    try:
        data = parse_yaml(read_text(path, what="price table"), str(path))
    except ReadError as err:
        raise PriceFileError(err.problems) from err
    try:
        return PriceTable.model_validate(data or {})
    except ValidationError as err:
        raise PriceFileError(
            "\n".join(
                f"{path}: {'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}"
                for e in err.errors(include_url=False)
            )
        ) from err
