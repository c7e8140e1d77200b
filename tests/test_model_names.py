"""The model names the README, the docs and the price table show are ones a user can still run:
known to the installed Anthropic SDK and not on its deprecation list."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from anthropic._data import DEPRECATED_MODELS
from anthropic.types.model_param import ModelParam

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [
    REPO / "README.md",
    *sorted((REPO / "docs").glob("*.md")),
    REPO / "datasets" / "prices.yaml",
]
ANTHROPIC_NAME = re.compile(r"anthropic/(claude-[a-z0-9.-]*[a-z0-9])")


def known_models() -> set[str]:
    literal = next(
        arg for arg in typing.get_args(ModelParam) if typing.get_origin(arg) is typing.Literal
    )
    return set(typing.get_args(literal))


def named_models() -> dict[str, list[str]]:
    names: dict[str, list[str]] = {}
    for path in DOCUMENTS:
        for name in ANTHROPIC_NAME.findall(path.read_text(encoding="utf-8")):
            names.setdefault(name, []).append(path.name)
    return names


def test_documents_name_models_the_sdk_knows_and_has_not_deprecated() -> None:
    names = named_models()
    assert names, "the README names a model to run against"
    deprecated = {n: DEPRECATED_MODELS[n] for n in names if n in DEPRECATED_MODELS}
    assert deprecated == {}, f"deprecated (end of life): {deprecated}, named in {names}"
    unknown = sorted(set(names) - known_models())
    assert unknown == [], f"the installed SDK does not know {unknown}"
