"""A tool is declared once: the Session method that handles it.

`@tool(...)` on a `tool_<name>` method turns the method into the tool's declaration: its name (the
method's, without `tool_`), its description (the docstring before `Args:`, each paragraph on one
line), its parameters (the signature: a parameter without a default is required; the type hint
gives the JSON type; `X | None = None` is an optional X) and each parameter's description (the
docstring's `Args:` entry). The flags the graders are told about (a write, a turn-ending tool, a
skill loader) go in the decorator. A docstring may hold `$placeholders`, filled from `fill`, for
text built from data (the dealer's operation catalog); a value is put in after the paragraphs
are unwrapped, so it keeps its own line breaks.

This is what Inspect's `@tool` does from a docstring (inspect_ai/tool/_tool_info.py); its builder
is not reused because it writes optional arguments as `anyOf [X, null]` with their defaults and
keeps the docstring's line breaks, which would change the schemas and descriptions the model has
always seen (they are part of the comparison between models, so they stay byte for byte).
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from string import Template
from typing import Any, Literal, TypeVar, Union, get_args, get_origin, get_type_hints

from docstring_parser import parse

PREFIX = "tool_"
F = TypeVar("F", bound=Callable[..., Any])

_JSON_TYPES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one spec per handler
class ToolSpec:
    """A tool as the model sees it, and the Session method that carries it out."""

    name: str
    description: str
    parameters: dict[str, Any]
    handler: Callable[..., Any]
    ends_turn: bool = False
    writes: bool = False
    # the argument naming the skill, when the tool loads one (graders count skill loads)
    skill_arg: str | None = None
    # the argument holding the ids a presenting tool shows the person (`last_presented`)
    present_arg: str | None = None


class ToolDeclarationError(TypeError):
    """A handler whose signature or docstring cannot be a tool's schema: a bug in a domain."""


def tool(
    *,
    name: str | None = None,
    writes: bool = False,
    ends_turn: bool = False,
    loads_skill: str | None = None,
    presents: str | None = None,
    fill: Mapping[str, object] | None = None,
) -> Callable[[F], F]:
    """Declare a Session method `tool_<name>` as a tool; `name` overrides the derived name (two
    agents may offer one tool name with different descriptions and arguments). `presents` names
    the argument holding the ids the tool shows the person (a product id or a list of them)."""

    def declare(fn: F) -> F:
        if not fn.__name__.startswith(PREFIX):
            raise ToolDeclarationError(f"{fn.__qualname__}: a tool method's name starts {PREFIX}")
        spec = build_spec(
            fn,
            name or fn.__name__.removeprefix(PREFIX),
            writes=writes,
            ends_turn=ends_turn,
            skill_arg=loads_skill,
            present_arg=presents,
            fill=fill or {},
        )
        fn.__tool_spec__ = spec  # type: ignore[attr-defined]
        return fn

    return declare


def spec_of(handler: Callable[..., Any]) -> ToolSpec:
    spec = getattr(handler, "__tool_spec__", None)
    if not isinstance(spec, ToolSpec):
        raise ToolDeclarationError(f"{handler.__qualname__} is not declared with @tool")
    return spec


def toolset(*handlers: Callable[..., Any]) -> tuple[ToolSpec, ...]:
    """The specs of an agent's tools, in the order the model is offered them."""
    specs = tuple(spec_of(h) for h in handlers)
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise ToolDeclarationError(f"tools offered twice: {twice}")
    return specs


def declared_tools(cls: type) -> list[ToolSpec]:
    """Every tool a Session class declares (its own and inherited)."""
    return [
        spec
        for attr in dir(cls)
        if attr.startswith(PREFIX)
        and isinstance(spec := getattr(getattr(cls, attr), "__tool_spec__", None), ToolSpec)
    ]


def build_spec(
    fn: Callable[..., Any],
    name: str,
    *,
    writes: bool = False,
    ends_turn: bool = False,
    skill_arg: str | None = None,
    present_arg: str | None = None,
    fill: Mapping[str, object] | None = None,
) -> ToolSpec:
    where = fn.__qualname__
    raw = inspect.getdoc(fn)
    if not raw:
        raise ToolDeclarationError(f"{where}: a tool needs a docstring (its description)")
    doc = parse(raw)

    def text(written: str) -> str:  # placeholders are filled after unwrapping: a value keeps
        return Template(written).substitute(fill) if fill else written  # its own line breaks

    arg_docs = {p.arg_name: text(_one_line(p.description or "")) for p in doc.params}
    hints = get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    params = list(inspect.signature(fn).parameters.values())[1:]  # after self
    for param in params:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDeclarationError(f"{where}: *{param.name} cannot be part of a schema")
        if param.name not in hints:
            raise ToolDeclarationError(f"{where}: argument {param.name!r} needs a type hint")
        schema = json_type(hints[param.name], f"{where}({param.name})")
        if arg_docs.get(param.name):
            schema["description"] = arg_docs[param.name]
        properties[param.name] = schema
        if param.default is param.empty:
            required.append(param.name)
    unknown = sorted(set(arg_docs) - set(properties))
    if unknown:
        raise ToolDeclarationError(f"{where}: the docstring describes no such arguments {unknown}")
    undescribed = [name for name, schema in properties.items() if "description" not in schema]
    if undescribed:
        # Inspect refuses a tool with an undescribed argument (an agent of its own, such as
        # react(), turns every ToolDef into a Tool and checks), and a model is owed the words
        raise ToolDeclarationError(
            f"{where}: arguments {undescribed} need a description in the docstring's Args:"
        )
    if skill_arg is not None and skill_arg not in properties:
        raise ToolDeclarationError(f"{where}: loads_skill names no argument {skill_arg!r}")
    if present_arg is not None and present_arg not in properties:
        raise ToolDeclarationError(f"{where}: presents names no argument {present_arg!r}")
    description = text(
        "\n".join(_one_line(p) for p in (doc.description or "").split("\n\n") if p.strip())
    )
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    return ToolSpec(name, description, parameters, fn, ends_turn, writes, skill_arg, present_arg)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def json_type(hint: Any, where: str) -> dict[str, Any]:
    """The JSON schema of one argument's type hint, in the project's plain form."""
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        kept = [a for a in args if a is not type(None)]
        if len(kept) != 1:
            raise ToolDeclarationError(f"{where}: only `X | None` unions are supported")
        return json_type(kept[0], where)
    if hint is Any:
        return {}
    if hint in _JSON_TYPES:
        return {"type": _JSON_TYPES[hint]}
    if origin is Literal and all(isinstance(a, str) for a in args):
        return {"type": "string", "enum": list(args)}
    if origin is list and len(args) == 1:
        return {"type": "array", "items": json_type(args[0], where)}
    if origin is dict and args[:1] == (str,):
        return {"type": "object", "additionalProperties": True}
    raise ToolDeclarationError(f"{where}: no JSON type for {hint!r}")
