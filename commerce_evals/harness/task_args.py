"""Task arguments (`-T name=value`), checked when the task loads.

Inspect passes `-T` values as YAML parsed them (`-T max_rounds=abc` arrives as the text "abc") and
drops an unknown name with a warning; neither may become a run. Every task of this package is
decorated with `@checked_arguments` (under `@task`), which

- refuses a name the task does not take, listing the names it does take;
- checks each value against its declaration: type, allowed values, a minimum, a path that must
  exist, a form (`shard=i/n`); and converts it (`-T max_rounds="3"` from a config file is 3);
- refuses a name it no longer takes (RETIRED: `-T epochs`, which Inspect's `--epochs` does),
  saying what to write instead.

A declaration lives in ARGUMENTS, one entry per argument name shared by every task that takes it.
An argument with no entry is checked by its annotation in the task's signature (bool, int, float,
str, `X | None`, `Literal[...]` for allowed values), so a new bool or int argument needs nothing
here; add an entry when it needs allowed values, a minimum or a path check.

The seven flow tasks (commerce_evals/<flow>.py) take the same arguments, declared once as
`FlowArguments`; `@flow_arguments` gives a flow task (`def checkout(**arguments)`) that signature,
which is what Inspect reads for the task's parameters (`-T`, the log's task args).
"""

from __future__ import annotations

import functools
import inspect
import re
import types
import typing
from collections.abc import Callable
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any, Literal, TypeVar

from commerce_evals.cases.errors import InputError
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.locales import LOCALES
from commerce_evals.harness.shards import canonical as canonical_shard

PathKind = Literal["file", "folder", "file or folder"]
F = TypeVar("F", bound=Callable[..., Any])


class TaskArgumentError(InputError):
    """A `-T` argument the task does not take, or a value it cannot use."""


@dataclass(frozen=True)
class Argument:
    """What one task argument accepts."""

    type: type
    help: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: int | float | None = None
    path: PathKind | None = None
    # the value's form, checked last: returns the canonical value or raises ValueError saying why
    form: Callable[[Any], Any] | None = None


def comma_separated(value: Any) -> str:
    """Names written `a,b`: Inspect's CLI hands `-T dimensions=a,b` over as the list [a, b], a
    config file or Python as the text; either is the text `a,b` here."""
    items = value if isinstance(value, list) else [value]
    if any(isinstance(i, bool) or not isinstance(i, str | int | float) for i in items):
        raise ValueError("expected comma-separated names")
    text = ",".join(str(i).strip() for i in items)
    if not text.strip(", "):
        raise ValueError("is empty")
    return text


# The one table of declarations: add an entry here for a new argument with allowed values, a
# minimum or a path (a plain bool/int/str argument is checked by its annotation alone).
ARGUMENTS: dict[str, Argument] = {
    "dataset": Argument(str, "a case file or folder", path="file or folder"),
    "fixtures": Argument(str, "a fixtures folder", path="folder"),
    "instructions": Argument(str, "an agent instructions file", path="file"),
    "poisoned": Argument(bool, "merge the eval-only poisoned fixtures"),
    "counterexamples": Argument(bool, "run the counterexamples instead of the cases"),
    "alternatives": Argument(bool, "run the alternative good runs instead of the cases"),
    "judge": Argument(bool, "judge rubric cases (off: a code-only run on purpose)"),
    "max_rounds": Argument(int, "model calls allowed per turn", minimum=1),
    "max_calls_per_turn": Argument(int, "tool calls allowed per turn", minimum=1),
    "cases": Argument(object, "comma-separated case ids or shell patterns", form=comma_separated),
    "flow": Argument(str, "a flow", choices=tuple(FLOWS)),
    "set": Argument(str, "a set of the sets file"),
    "sets_file": Argument(str, "a sets file", path="file"),
    "traffic": Argument(str, "a traffic file (JSON lines)", path="file"),
    "dimensions": Argument(object, "comma-separated shared judge dimensions", form=comma_separated),
    "judge_max_chars": Argument(int, "the judge's transcript budget", minimum=1),
    "shard": Argument(str, "this machine's part of a sweep, i/n", form=canonical_shard),
    "agent": Argument(str, "an Inspect agent, FILE.py@NAME (an @agent factory)"),
    "tools": Argument(str, "a file of tool descriptions", path="file"),
    "recorded": Argument(str, "a run file or folder (commerce-evals serve)", path="file or folder"),
    "locale": Argument(str, "the store's language (domains/locales.py)", choices=tuple(LOCALES)),
}

# model calls allowed per turn when a task is not told (the solver's default too)
DEFAULT_MAX_ROUNDS = 12
# tool calls allowed per turn: far above any case's reference, low enough that a model emitting
# thousands of calls ends its turn instead of stalling the run and its scoring
DEFAULT_MAX_CALLS_PER_TURN = 200

# Names a task once took, with what to write instead: each is refused naming the replacement.
RETIRED: dict[str, Callable[[Any], str]] = {
    # Inspect's own --epochs does the same and keeps the tasks' pass^k reducer; two ways to say
    # one thing let a config set one and the command line the other
    "epochs": lambda value: (
        f"use Inspect's --epochs {_shown(value)} instead (the tasks take no epochs argument; "
        "--epochs keeps their pass^k reducer)"
    ),
}

_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}
_INTEGER = re.compile(r"^[+-]?\d+$")


def _shown(value: Any) -> str:
    # a value with a newline or a control character is shown quoted, so the message stays one line
    text = value if isinstance(value, str) and value.isprintable() else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def from_annotation(annotation: Any) -> tuple[Argument, bool]:
    """(declaration, whether None is allowed) read from a parameter's annotation."""
    optional = False
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(members) < len(typing.get_args(annotation))
        annotation = members[0] if len(members) == 1 else Any
        origin = typing.get_origin(annotation)
    if origin is Literal:
        choices = typing.get_args(annotation)
        return Argument(type(choices[0]), choices=choices), optional
    if annotation in (bool, int, float, str):
        return Argument(annotation), optional
    return Argument(object), optional


def check_value(name: str, value: Any, argument: Argument, optional: bool) -> Any:
    """The value converted to the declared type; a TaskArgumentError naming it otherwise."""

    def fail(problem: str) -> TaskArgumentError:
        return TaskArgumentError(f"-T {name}={_shown(value)}: {problem}")

    if value is None:
        if optional:
            return None
        raise fail(f"needs a value ({argument.help or argument.type.__name__})")
    kind = argument.type
    if kind is bool:
        if isinstance(value, bool):
            converted: Any = value
        elif isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            converted = value.strip().lower() in _TRUE
        else:
            raise fail("expected true or false")
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            converted = value
        elif isinstance(value, str) and _INTEGER.match(value.strip()):
            converted = int(value.strip())
        else:
            raise fail("expected a whole number")
    elif kind is float:
        try:
            if isinstance(value, bool):
                raise ValueError
            converted = float(value)
        except (TypeError, ValueError):
            raise fail("expected a number") from None
    elif kind is str:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise fail("expected text")
        converted = str(value)
        if not converted.strip():
            raise fail("is empty")
    else:
        converted = value
    if argument.minimum is not None and converted < argument.minimum:
        raise fail(f"must be at least {argument.minimum}")
    if argument.choices is not None and converted not in argument.choices:
        raise fail(f"not one of {', '.join(map(str, argument.choices))}")
    if argument.path is not None:
        path = Path(converted)
        if not path.exists():
            raise fail(f"no such {argument.path}")
        if argument.path == "file" and not path.is_file():
            raise fail("is a folder; name a file")
        if argument.path == "folder" and not path.is_dir():
            raise fail("is a file; name a folder")
    if argument.form is not None:
        try:
            converted = argument.form(converted)
        except ValueError as err:
            raise fail(str(err)) from None
    return converted


def _annotation(param: inspect.Parameter, hints: dict[str, Any]) -> Any:
    # a signature built in code (FlowArguments) carries types; a written one may carry strings
    if param.annotation is param.empty or isinstance(param.annotation, str):
        return hints.get(param.name, Any)
    return param.annotation


def checked_arguments(function: F) -> F:
    """Check a task's arguments when it loads (put it under `@task`)."""
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function)
    params = {
        name: param
        for name, param in signature.parameters.items()
        if param.kind not in (param.VAR_POSITIONAL, param.VAR_KEYWORD)
    }
    declarations: dict[str, tuple[Argument, bool]] = {}
    for name, param in params.items():
        annotated, optional = from_annotation(_annotation(param, hints))
        declared = ARGUMENTS.get(name, annotated)
        declarations[name] = (declared, optional or param.default is None)
    task_name = function.__name__

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        kwargs = {**dict(zip(params, args, strict=False)), **kwargs}
        retired = sorted(k for k in kwargs if k in RETIRED and k not in params)
        if retired:
            value = kwargs[retired[0]]
            raise TaskArgumentError(
                f"-T {retired[0]}={_shown(value)}: {RETIRED[retired[0]](value)}"
            )
        unknown = sorted(k for k in kwargs if k not in params)
        if unknown:
            raise TaskArgumentError(
                f"-T {unknown[0]}: task {task_name} takes no argument {unknown[0]!r}; "
                f"its arguments: {', '.join(params)}"
            )
        missing = [n for n, p in params.items() if p.default is p.empty and n not in kwargs]
        if missing:
            choices = declarations[missing[0]][0].choices
            among = f": one of {', '.join(map(str, choices))}" if choices else ""
            raise TaskArgumentError(
                f"-T {missing[0]}: missing; task {task_name} needs -T {missing[0]}=<value>{among}"
            )
        checked = {k: check_value(k, v, *declarations[k]) for k, v in kwargs.items()}
        return function(**checked)

    # A **kwargs parameter makes Inspect pass every -T name through, so an unknown one reaches
    # the check above instead of being dropped with a warning.
    extra = inspect.Parameter("unknown_arguments", inspect.Parameter.VAR_KEYWORD)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*params.values(), extra]
    )
    return wrapper  # type: ignore[return-value]


@dataclass(frozen=True)
class FlowArguments:
    """The arguments every flow task takes (`inspect eval commerce_evals/<flow>.py -T name=value`);
    what each does is in flow_task()'s docstring (commerce_evals/harness/flow_task.py)."""

    dataset: str | None = None
    fixtures: str | None = None
    instructions: str | None = None
    # None: the flow's own default (FLOWS[flow].poisoned)
    poisoned: bool | None = None
    counterexamples: bool = False
    alternatives: bool = False
    max_rounds: int = DEFAULT_MAX_ROUNDS
    max_calls_per_turn: int = DEFAULT_MAX_CALLS_PER_TURN
    judge: bool | str = True
    shard: str | None = None
    # comma-separated case ids or shell patterns: only these cases (and their variants)
    cases: str | None = None
    # FILE.py@NAME: an Inspect @agent answers each user turn instead of the built-in loop
    agent: str | None = None
    # a file of the team's own tool descriptions (harness/tool_descriptions.py)
    tools: str | None = None
    # run files an agent outside Inspect made (commerce-evals serve): grade them, run nothing
    recorded: str | None = None
    # the store's language: its fixtures, cases, instructions and tool descriptions
    locale: str = "en"


def flow_signature() -> inspect.Signature:
    """FlowArguments as a task signature: keyword parameters with their types and defaults."""
    hints = typing.get_type_hints(FlowArguments)
    parameters = []
    for field in fields(FlowArguments):
        assert field.default is not MISSING, field.name  # every task argument is optional
        parameters.append(
            inspect.Parameter(
                field.name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=field.default,
                annotation=hints[field.name],
            )
        )
    return inspect.Signature(parameters)


def flow_arguments(function: F) -> F:
    """Give a flow task (`def <flow>(**arguments: Any) -> Task`) the FlowArguments signature and
    check its arguments when it loads (put it under `@task`). The task receives every argument,
    the ones not given at their defaults."""
    signature = flow_signature()
    defaults = {name: param.default for name, param in signature.parameters.items()}

    @functools.wraps(function)
    def with_defaults(**arguments: Any) -> Any:
        return function(**{**defaults, **arguments})

    with_defaults.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation=inspect.signature(function).return_annotation
    )
    return checked_arguments(with_defaults)  # type: ignore[return-value]
