"""The registry of `expected` keys, read from their declarations, and what is generated from it.

Each key is declared once, by `@expected_key` on its grader (keyspec.py). From the declarations
(graders.KEYS) come the key lists the lint, the injection metrics and the authoring tools read,
the docs' key table (README.md, docs/authoring.md) and the case model `Expected`
(cases/expected.py), which is generated and checked in so the case layer does not import the
graders and a type checker sees every key. `python -m commerce_evals.grading.keys` rewrites
both; tests fail when either is out of date.
"""

from __future__ import annotations

import sys
import textwrap
import types
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

from commerce_evals.cases import key_values
from commerce_evals.grading.graders import JUDGED_KEYS as JUDGED_KEYS
from commerce_evals.grading.graders import KEYS as KEYS
from commerce_evals.grading.keyspec import EMPTY
from commerce_evals.grading.keyspec import KeySpec as KeySpec

BY_NAME: dict[str, KeySpec] = {spec.name: spec for spec in KEYS}
ALIASES: dict[str, str] = {alias: spec.name for spec in KEYS for alias in spec.aliases}
NEGATIVE_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.negative)
ATTACK_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.attack)
BUDGET_KEYS: frozenset[str] = frozenset(s.name for s in KEYS if s.part == "calls")
DEFAULT_KEYS: tuple[str, ...] = tuple(s.name for s in KEYS if s.on_by_default)


def canonical(name: str) -> str:
    """A key's own name for an alias (a counterexample may name `before` for `call_order`)."""
    return ALIASES.get(name, name)


def pattern_values(spec: KeySpec, value: Any) -> Iterable[key_values.ToolPattern]:
    return spec.patterns(value) if spec.patterns and value else ()


# ---- the docs' key table -----------------------------------------------------------------------


def key_table() -> str:
    """The docs' key table (README and docs/authoring.md), rendered from the declarations."""
    lines = ["| key | part | reads | what it asserts |", "|---|---|---|---|"]
    for spec in KEYS:
        name = f"`{spec.name}`" + "".join(f" (alias `{a}`)" for a in spec.aliases)
        doc = spec.doc + (" (negative)" if spec.negative else "")
        lines.append(f"| {name} | {spec.part} | {spec.reads} | {doc} |")
    return "\n".join(lines)


COMMAND = "python -m commerce_evals.grading.keys"
KEYS_START = f"<!-- keys:start (generated from the keys' declarations in commerce_evals/grading/: {COMMAND}) -->"
KEYS_END = "<!-- keys:end -->"
KEY_DOCS = ("README.md", "docs/authoring.md")


def key_block() -> str:
    return f"{KEYS_START}\n{key_table()}\n{KEYS_END}"


# ---- the case model, generated -------------------------------------------------------------------

EXPECTED_MODULE = "commerce_evals/cases/expected.py"


def type_source(value: Any, names: set[str]) -> str:
    """A key's value type as source: a shape or alias of cases/key_values.py by its name (added to
    `names`, the names to import), or a union, list, dict or Literal of such."""
    for name, shape in vars(key_values).items():
        if not name.startswith("_") and _same_type(shape, value):
            names.add(name)
            return name
    if value is type(None):
        return "None"
    if isinstance(value, type) and value.__module__ == "builtins":
        return value.__name__
    origin, args = get_origin(value), get_args(value)
    if origin in (Union, types.UnionType):
        return " | ".join(type_source(arg, names) for arg in args)
    if origin is Literal:
        names.add("Literal")
        return f"Literal[{', '.join(repr(arg) for arg in args)}]"
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_source(arg, names) for arg in args)}]"
    raise TypeError(f"{value!r}: name this value type in cases/key_values.py")


def _same_type(shape: Any, value: Any) -> bool:
    if isinstance(shape, type) or get_origin(shape) is not None:
        try:
            return bool(shape == value)
        except TypeError:
            return False
    return False


def _default_source(spec: KeySpec) -> str:
    if spec.default is EMPTY:
        return "Field(default_factory=list)"
    if spec.default is None or isinstance(spec.default, bool):
        return repr(spec.default)
    raise TypeError(f"{spec.name}: a default is empty, None, true or false")


def _comment(text: str) -> list[str]:
    return textwrap.wrap(text, 96, initial_indent="    # ", subsequent_indent="    # ")


def expected_source() -> str:
    """The source of cases/expected.py: the case model, one field per key in registry order."""
    names: set[str] = {"AliasValue", "ExpectedBase"}
    fields: list[str] = []
    for spec in KEYS:
        annotation = type_source(spec.value, names)
        fields += [*_comment(spec.doc), f"    {spec.name}: {annotation} = {_default_source(spec)}"]
    aliases: list[str] = []
    for spec in KEYS:
        for alias, convert in spec.aliases.items():
            if getattr(key_values, convert.__name__, None) is not convert:
                raise TypeError(f"{alias}: its converter must be a function of cases/key_values.py")
            names.add(convert.__name__)
            aliases.append(f'        "{alias}": ("{spec.name}", {convert.__name__}),')
    typing_names = sorted({"ClassVar"} | ({"Literal"} & names))
    # as ruff sorts them: classes and aliases first, then functions
    shapes = sorted(names - {"Literal"}, key=lambda n: (n[0].islower(), n))
    lines = [
        f'"""The case model of `expected`, generated from the keys\' declarations: {COMMAND}.',
        "",
        "Do not edit: declare a key on its grader (commerce_evals/grading/keyspec.py), regenerate.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f"from typing import {', '.join(typing_names)}",
        "",
        "from pydantic import Field",
        "",
        "from commerce_evals.cases.key_values import (",
        *(f"    {name}," for name in shapes),
        ")",
        "",
        "",
        "class Expected(ExpectedBase):",
        '    """Only the keys a case is about; what each reads and its part are in its declaration."""',
        "",
        "    ALIASES: ClassVar[dict[str, tuple[str, AliasValue]]] = {",
        *aliases,
        "    }",
        "    DEFAULT_KEYS: ClassVar[tuple[str, ...]] = (",
        *(f'        "{name}",' for name in DEFAULT_KEYS),
        "    )",
        "",
        *fields,
        "",
    ]
    return "\n".join(lines)


def write_generated(root: Path) -> list[Path]:
    """Rewrite the case model and the docs' key tables from the declarations."""
    (root / EXPECTED_MODULE).write_text(expected_source(), encoding="utf-8")
    written = [root / EXPECTED_MODULE]
    for doc in KEY_DOCS:
        path = root / doc
        text = path.read_text(encoding="utf-8")
        start, end = text.index("<!-- keys:start"), text.index(KEYS_END) + len(KEYS_END)
        path.write_text(text[:start] + key_block() + text[end:], encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write_generated(Path(__file__).resolve().parents[2]):
        print(f"wrote {path}", file=sys.stderr)
