"""`-T tools=FILE`: a team's own descriptions of the tools its agent is offered.

The file (YAML or JSON) maps a tool's name to its new text: a `description` and, per argument,
the argument's description. Only the words change; names, argument types, required arguments and
what each tool does stay the domain's (the graders know the tools by them):

    search_products:
      description: Find products in the catalog by what the customer asked for.
      arguments:
        query: The customer's words, shortened to what matters.

Every name is checked against the tools the flow's agent is offered, so a typo is an error that
names the file, the place and the fix, not a description silently never shown. A tool the file
leaves out keeps the domain's text. The flows fingerprint the tools the model is offered
(`tools_sha`, which changes with the text) and name the file (`tools_file`, `tools_file_sha`).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import replace
from difflib import get_close_matches
from pathlib import Path

from pydantic import Field, RootModel, ValidationError

from commerce_evals.cases.errors import InputError
from commerce_evals.cases.reading import ReadError, read_data
from commerce_evals.core.strict import Strict
from commerce_evals.domains.base import AgentProfile
from commerce_evals.domains.tooling import ToolSpec


class ToolsFileError(InputError):
    """A tools file that cannot be applied: one line per problem, naming file, place and fix."""


class ToolText(Strict):
    """One tool's new words: its description, and its arguments' descriptions by name."""

    description: str | None = Field(default=None, min_length=1)
    arguments: dict[str, str] = Field(default_factory=dict)


class ToolsFile(RootModel[dict[str, ToolText]]):
    """Tool name -> its new text."""


def _hint(name: str, choices: list[str]) -> str:
    close = get_close_matches(name, choices, n=1)
    return f"did you mean {close[0]}? " if close else ""


def _problems(path: Path, text: ToolsFile, profile: AgentProfile) -> list[str]:
    offered = {spec.name: spec for spec in profile.tools}
    names = sorted(offered)
    problems = []
    for name, written in text.root.items():
        spec = offered.get(name)
        if spec is None:
            problems.append(
                f"{path}: {name}: the {profile.name} agent has no tool {name!r}; "
                f"{_hint(name, names)}its tools: {', '.join(names)}"
            )
            continue
        arguments = sorted(spec.parameters.get("properties", {}))
        for argument, words in written.arguments.items():
            if argument not in arguments:
                problems.append(
                    f"{path}: {name}.arguments.{argument}: {name} takes no argument "
                    f"{argument!r}; {_hint(argument, arguments)}its arguments: "
                    f"{', '.join(arguments) or 'none'}"
                )
            elif not words.strip():
                problems.append(
                    f"{path}: {name}.arguments.{argument}: an empty description; write one or "
                    "leave the argument out to keep the domain's"
                )
        if written.description is not None and not written.description.strip():
            problems.append(f"{path}: {name}.description: empty; write one or leave it out")
    return problems


def _validation_problems(path: Path, err: ValidationError) -> list[str]:
    problems = []
    for e in err.errors(include_url=False):
        where = ".".join(str(p) for p in e["loc"]) or "(file)"
        fix = ""
        if e["type"] == "extra_forbidden":
            fix = "; a tool takes `description` and `arguments` (argument name -> description)"
        elif "arguments" in where and e["type"] == "string_type":
            fix = "; only an argument's description can change, never its type"
        elif where == "(file)":
            fix = "; the file maps tool names to {description, arguments}"
        problems.append(f"{path}: {where}: {e['msg']}{fix}")
    return problems


def read_tools_file(path: Path, profile: AgentProfile) -> ToolsFile:
    """The file, checked against the tools `profile` offers; every problem raised at once."""
    try:
        data = read_data(path, what="tools file")
    except ReadError as err:
        raise ToolsFileError(err.problems) from err
    try:
        text = ToolsFile.model_validate({} if data is None else data)
    except ValidationError as err:
        raise ToolsFileError(_validation_problems(path, err)) from err
    if not text.root:
        raise ToolsFileError(
            f"{path}: (file): names no tool; map a tool name to its new description"
        )
    problems = _problems(path, text, profile)
    if problems:
        raise ToolsFileError(problems)
    return text


def _described(spec: ToolSpec, text: ToolText) -> ToolSpec:
    parameters = copy.deepcopy(spec.parameters)
    for argument, words in text.arguments.items():
        parameters["properties"][argument]["description"] = words.strip()
    description = text.description.strip() if text.description else spec.description
    return replace(spec, description=description, parameters=parameters)


def with_descriptions(profile: AgentProfile, path: Path) -> AgentProfile:
    """The agent with the file's descriptions on its tools (same names, schemas and handlers)."""
    text = read_tools_file(path, profile)
    tools = tuple(
        _described(spec, text.root[spec.name]) if spec.name in text.root else spec
        for spec in profile.tools
    )
    return replace(profile, tools=tools)


def file_fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]
