"""`-T agent=FILE.py@NAME` (or `package.module@NAME`): the Inspect agent a flow runs instead of its
built-in one, found and checked when the task loads.

NAME is an `@agent` factory. The harness calls it once per sample with the sandbox's tools as
`tools` (a list of Inspect ToolDefs) and, when it takes one, the case's rendered instructions as
`instructions` (an agent without that parameter gets them as a system message at the start of the
conversation). The agent it returns is run once per user turn on the conversation so far.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from inspect_ai.agent import Agent
from inspect_ai.util import registry_info

from commerce_evals.cases.errors import InputError

HOW = "write -T agent=FILE.py@NAME, NAME an @agent factory in FILE (or package.module@NAME)"


class AgentRefError(InputError):
    """A `-T agent=` value that names no usable Inspect agent."""


@dataclass(frozen=True)
class AgentRef:
    """An Inspect agent factory named by `-T agent=`, checked."""

    text: str  # as given
    factory: Callable[..., Agent]
    takes_instructions: bool
    source_sha: str | None  # a hash of the file's text (None for an installed module)

    def build(self, tools: list[Any], instructions: str) -> Agent:
        """The agent for one sample: the sandbox's tools and, when it takes them, the case's
        rendered instructions."""
        if self.takes_instructions:
            return self.factory(tools=tools, instructions=instructions)
        return self.factory(tools=tools)


def _fail(value: str, problem: str) -> AgentRefError:
    return AgentRefError(f"-T agent={value}: {problem}")


def _import_file(value: str, path: Path) -> ModuleType:
    if path.suffix != ".py":
        raise _fail(value, f"{path} is not a Python file; {HOW}")
    if not path.is_file():
        raise _fail(value, f"no such file {path}; {HOW}")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"commerce_evals_agent_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # the user's file: any error is theirs, named in one line
        sys.modules.pop(name, None)
        first = str(err).splitlines()[0] if str(err) else ""
        raise _fail(value, f"importing {path} failed: {type(err).__name__}: {first}") from None
    return module


def _import_module(value: str, name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except Exception as err:
        problem = f"cannot import module {name} ({type(err).__name__}: {err}); {HOW}"
        raise _fail(value, problem) from None


def _is_agent_factory(obj: Any) -> bool:
    try:
        return registry_info(obj).type == "agent"
    except Exception:
        return False


def load_agent(value: str) -> AgentRef:
    """The factory `value` names; one AgentRefError line naming what is wrong otherwise."""
    where, sep, name = value.strip().rpartition("@")
    if not sep or not where or not name:
        raise _fail(value, HOW)
    is_file = where.endswith(".py") or "/" in where or "\\" in where or Path(where).exists()
    module = _import_file(value, Path(where)) if is_file else _import_module(value, where)
    factory = getattr(module, name, None)
    agents = sorted(n for n, v in vars(module).items() if _is_agent_factory(v))
    if factory is None:
        listed = f"its @agent factories: {', '.join(agents)}" if agents else "it has no @agent"
        raise _fail(value, f"{where} defines no {name!r}; {listed}")
    if not _is_agent_factory(factory):
        hint = f" (its @agent factories: {', '.join(agents)})" if agents else ""
        raise _fail(
            value,
            f"{name} in {where} is not an Inspect agent: decorate its factory with "
            f"@agent (from inspect_ai.agent){hint}",
        )
    params = inspect.signature(factory).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    if "tools" not in params and not takes_any:
        raise _fail(
            value,
            f"{name} takes no 'tools' argument: the sandbox's tools reach the agent as "
            f"{name}(tools=[...]); add the parameter and give them to the agent",
        )
    missing = [
        p.name
        for p in params.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in ("tools", "instructions")
    ]
    if missing:
        raise _fail(
            value,
            f"{name} needs arguments the harness does not give ({', '.join(missing)}); it is "
            "called with tools= and instructions= only: give the others defaults",
        )
    source = Path(where) if is_file else None
    return AgentRef(
        text=value.strip(),
        factory=factory,
        takes_instructions="instructions" in params or takes_any,
        source_sha=hashlib.sha256(source.read_bytes()).hexdigest()[:16] if source else None,
    )
