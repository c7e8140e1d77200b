"""Task arguments (`-T name=value`), checked by a pydantic model when the task loads.

Inspect passes `-T` values as YAML parsed them (`-T max_rounds=abc` arrives as the text "abc") and
drops an unknown name with a warning; neither may become a run. Every task of this package is
decorated with `@checked_arguments` (under `@task`), which validates the given arguments against
a pydantic model of the task's parameters (extra names forbidden) and turns pydantic's first error
into one line naming the argument: `-T max_rounds=abc: expected a whole number`.

An argument's type is declared once, in ARGUMENTS, as a constrained type (a minimum, allowed
values, a path that must exist, a form such as `shard=i/n`); an argument with no entry is checked
by its annotation (bool, int, float, str, `X | None`, `Literal[...]`). A name a task no longer
takes (RETIRED: `-T epochs`, which Inspect's `--epochs` does) is refused saying what to write.

The seven flow tasks (commerce_evals/<flow>.py) take the same arguments, the model
`FlowArguments`; `@flow_arguments` gives a flow task (`def checkout(**arguments)`) its signature,
which is what Inspect reads for the task's parameters (`-T`, the log's task args).
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    create_model,
)
from pydantic_core import ErrorDetails

from commerce_evals.cases.errors import InputError
from commerce_evals.core.flow_table import FLOWS
from commerce_evals.domains.locales import LOCALES
from commerce_evals.harness.shards import canonical as canonical_shard

F = TypeVar("F", bound=Callable[..., Any])

# `-T` values come as YAML read them: a number where text belongs (`-T cases=12`) is that text
CONFIG = ConfigDict(extra="forbid", coerce_numbers_to_str=True, frozen=True)


class TaskArgumentError(InputError):
    """A `-T` argument the task does not take, or a value it cannot use."""


# ---- the constrained types an argument is declared with --------------------------------------


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def _not_a_bool(problem: str) -> Callable[[Any], Any]:
    # pydantic reads True as 1 and 1.0; a flag where a number belongs is a mistake here
    def check(value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError(problem)
        return value

    return check


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("is empty")
    return value


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


def _existing(kind: Literal["file", "folder", "file or folder"]) -> Callable[[str], str]:
    def check(value: str) -> str:
        path = Path(value)
        if not path.exists():
            raise ValueError(f"no such {kind}")
        if kind == "file" and not path.is_file():
            raise ValueError("is a folder; name a file")
        if kind == "folder" and not path.is_dir():
            raise ValueError("is a file; name a folder")
        return value

    return check


def _among(choices: tuple[str, ...]) -> Callable[[str], str]:
    def check(value: str) -> str:
        if value not in choices:
            raise ValueError(f"not one of {', '.join(choices)}")
        return value

    return check


Switch = Annotated[bool, BeforeValidator(_stripped)]
WholeNumber = Annotated[int, BeforeValidator(_not_a_bool("expected a whole number"))]
Number = Annotated[float, BeforeValidator(_not_a_bool("expected a number"))]
Text = Annotated[str, AfterValidator(_not_blank)]
Names = Annotated[str, BeforeValidator(comma_separated)]
AtLeastOne = Annotated[WholeNumber, Field(ge=1)]
File = Annotated[Text, AfterValidator(_existing("file"))]
Folder = Annotated[Text, AfterValidator(_existing("folder"))]
FileOrFolder = Annotated[Text, AfterValidator(_existing("file or folder"))]
ShardPart = Annotated[Text, AfterValidator(canonical_shard)]
Flow = Annotated[
    Text, AfterValidator(_among(tuple(FLOWS))), Field(json_schema_extra={"choices": list(FLOWS)})
]
Locale = Annotated[
    Text,
    AfterValidator(_among(tuple(LOCALES))),
    Field(json_schema_extra={"choices": list(LOCALES)}),
]

# The one table of declarations, shared by every task that takes the argument: add an entry for
# a new argument with allowed values, a minimum or a path (a plain bool/int/str argument is
# checked by its annotation alone). The description is what "needs a value" names.
ARGUMENTS: dict[str, tuple[Any, str]] = {
    "dataset": (FileOrFolder, "a case file or folder"),
    "fixtures": (Folder, "a fixtures folder"),
    "instructions": (File, "an agent instructions file"),
    "poisoned": (Switch, "merge the eval-only poisoned fixtures"),
    "counterexamples": (Switch, "run the counterexamples instead of the cases"),
    "alternatives": (Switch, "run the alternative good runs instead of the cases"),
    "judge": (Switch, "judge rubric cases (off: a code-only run on purpose)"),
    "max_rounds": (AtLeastOne, "model calls allowed per turn"),
    "max_calls_per_turn": (AtLeastOne, "tool calls allowed per turn"),
    "cases": (Names, "comma-separated case ids or shell patterns"),
    "flow": (Flow, "a flow"),
    "set": (Text, "a set of the sets file"),
    "sets_file": (File, "a sets file"),
    "traffic": (File, "a traffic file (JSON lines)"),
    "dimensions": (Names, "comma-separated shared judge dimensions"),
    "judge_max_chars": (AtLeastOne, "the judge's transcript budget"),
    "shard": (ShardPart, "this machine's part of a sweep, i/n"),
    "agent": (Text, "an Inspect agent, FILE.py@NAME (an @agent factory)"),
    "tools": (File, "a file of tool descriptions"),
    "recorded": (FileOrFolder, "a run file or folder (commerce-evals serve)"),
    "locale": (Locale, "the store's language (domains/locales.py)"),
}

# an undeclared argument's plain annotation, read as the same constrained types
PLAIN: dict[Any, Any] = {bool: Switch, int: WholeNumber, float: Number, str: Text}

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


def _shown(value: Any) -> str:
    # a value with a newline or a control character is shown quoted, so the message stays one line
    shown = value if isinstance(value, str) and value.isprintable() else repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


# ---- the models ------------------------------------------------------------------------------


class FlowArguments(BaseModel):
    """The arguments every flow task takes (`inspect eval commerce_evals/<flow>.py -T name=value`);
    what each does is in flow_task()'s docstring (commerce_evals/harness/flow_task.py). Each
    field's type is its ARGUMENTS declaration (a test holds them equal)."""

    model_config = CONFIG

    dataset: FileOrFolder | None = None
    fixtures: Folder | None = None
    instructions: File | None = None
    # None: the flow's own default (FLOWS[flow].poisoned)
    poisoned: Switch | None = None
    counterexamples: Switch = False
    alternatives: Switch = False
    max_rounds: AtLeastOne = DEFAULT_MAX_ROUNDS
    max_calls_per_turn: AtLeastOne = DEFAULT_MAX_CALLS_PER_TURN
    judge: Switch = True
    shard: ShardPart | None = None
    # comma-separated case ids or shell patterns: only these cases (and their variants)
    cases: Names | None = None
    # FILE.py@NAME: an Inspect @agent answers each user turn instead of the built-in loop
    agent: Text | None = None
    # a file of the team's own tool descriptions (harness/tool_descriptions.py)
    tools: File | None = None
    # run files an agent outside Inspect made (commerce-evals serve): grade them, run nothing
    recorded: FileOrFolder | None = None
    # the store's language: its fixtures, cases, instructions and tool descriptions
    locale: Locale = "en"


def _declared(name: str, annotation: Any, default: Any) -> Any:
    """A written parameter's type in the model: its ARGUMENTS declaration, else its annotation
    with plain types constrained; `| None` kept, and added when the default is None."""
    members = [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        members = list(typing.get_args(annotation))
    optional = type(None) in members or default is None
    kept = [m for m in members if m is not type(None)]
    if name in ARGUMENTS:
        declared = ARGUMENTS[name][0]
    elif len(kept) == 1:
        declared = PLAIN.get(kept[0], kept[0])
    else:
        declared = typing.Union[tuple(PLAIN.get(m, m) for m in kept)]  # noqa: UP007
    return declared | None if optional else declared


def arguments_model(function: Callable[..., Any]) -> type[BaseModel]:
    """A pydantic model of a written task signature: one field per parameter (required when it
    has no default), unknown names forbidden."""
    hints = typing.get_type_hints(function)
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(function).parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        default = ... if param.default is param.empty else param.default
        fields[name] = (_declared(name, hints.get(name, Any), param.default), default)
    model: type[BaseModel] = create_model(
        f"{function.__name__}_arguments", __config__=CONFIG, **fields
    )
    return model


# ---- pydantic's first error as one line --------------------------------------------------------

_TYPE_PROBLEMS = {
    "bool": "expected true or false",
    "int": "expected a whole number",
    "float": "expected a number",
    "string": "expected text",
}


def _help(model: type[BaseModel], name: str) -> str:
    declared = ARGUMENTS.get(name)
    if declared:
        return declared[1]
    annotation = model.model_fields[name].annotation
    return getattr(annotation, "__name__", "a value")


def _choices(name: str) -> list[str]:
    extra = ARGUMENTS.get(name, (None,))[0]
    for meta in typing.get_args(extra)[1:] if extra is not None else ():
        schema_extra = getattr(meta, "json_schema_extra", None)
        if isinstance(schema_extra, dict):
            return list(schema_extra.get("choices") or [])
    return []


def _line(task: str, model: type[BaseModel], error: ErrorDetails, given: dict[str, Any]) -> str:
    name = str(error["loc"][0])
    kind = error["type"]
    if kind == "extra_forbidden":
        return (
            f"-T {name}: task {task} takes no argument {name!r}; "
            f"its arguments: {', '.join(model.model_fields)}"
        )
    if kind == "missing":
        choices = _choices(name)
        among = f": one of {', '.join(choices)}" if choices else ""
        return f"-T {name}: missing; task {task} needs -T {name}=<value>{among}"
    value = given.get(name)
    if value is None:
        problem = f"needs a value ({_help(model, name)})"
    elif kind == "value_error":
        problem = str(error.get("ctx", {}).get("error", error["msg"]))
    elif kind == "greater_than_equal":
        problem = f"must be at least {error.get('ctx', {}).get('ge')}"
    else:
        problem = _TYPE_PROBLEMS.get(kind.split("_")[0], error["msg"])
    return f"-T {name}={_shown(value)}: {problem}"


def _first(errors: list[ErrorDetails]) -> ErrorDetails:
    # an unknown name first (sorted), then a missing one, then a value, in the parameters' order
    rank = {"extra_forbidden": 0, "missing": 1}
    ordered = sorted(
        enumerate(errors),
        key=lambda item: (
            rank.get(item[1]["type"], 2),
            str(item[1]["loc"][0]) if item[1]["type"] == "extra_forbidden" else "",
            item[0],
        ),
    )
    return ordered[0][1]


def validated(task: str, model: type[BaseModel], given: dict[str, Any]) -> BaseModel:
    """The given arguments as the model; a TaskArgumentError of one line otherwise."""
    retired = sorted(k for k in given if k in RETIRED and k not in model.model_fields)
    if retired:
        value = given[retired[0]]
        raise TaskArgumentError(f"-T {retired[0]}={_shown(value)}: {RETIRED[retired[0]](value)}")
    try:
        return model.model_validate(given)
    except ValidationError as err:
        raise TaskArgumentError(_line(task, model, _first(err.errors()), given)) from None


# ---- the decorators -----------------------------------------------------------------------------


def _with_unknown_names(
    wrapper: Callable[..., Any], parameters: list[inspect.Parameter], returns: Any
) -> None:
    # A **kwargs parameter makes Inspect pass every -T name through, so an unknown one reaches
    # the model instead of being dropped with a warning.
    extra = inspect.Parameter("unknown_arguments", inspect.Parameter.VAR_KEYWORD)
    wrapper.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*parameters, extra], return_annotation=returns
    )


def checked_arguments(function: F) -> F:
    """Check a task's arguments when it loads (put it under `@task`): the task receives the
    arguments given, validated and converted; the others keep the task's defaults."""
    signature = inspect.signature(function)
    params = [
        p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    model = arguments_model(function)

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {**dict(zip((p.name for p in params), args, strict=False)), **kwargs}
        checked = validated(function.__name__, model, given)
        return function(**{name: getattr(checked, name) for name in given})

    _with_unknown_names(wrapper, params, signature.return_annotation)
    return wrapper  # type: ignore[return-value]


def flow_signature() -> inspect.Signature:
    """FlowArguments as a task signature: keyword parameters with their types and defaults."""
    return inspect.Signature(
        [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=field.default,
                annotation=field.annotation,
            )
            for name, field in FlowArguments.model_fields.items()
        ]
    )


def flow_arguments(function: F) -> F:
    """Give a flow task (`def <flow>(**arguments: Any) -> Task`) the FlowArguments signature and
    check its arguments when it loads (put it under `@task`). The task receives every argument,
    the ones not given at their defaults."""
    params = list(flow_signature().parameters.values())

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        given = {**dict(zip((p.name for p in params), args, strict=False)), **kwargs}
        checked = validated(function.__name__, FlowArguments, given)
        return function(**dict(checked))

    _with_unknown_names(wrapper, params, inspect.signature(function).return_annotation)
    return wrapper  # type: ignore[return-value]
