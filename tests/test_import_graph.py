"""The package's import graph, parsed with ast (no import runs): it has no cycle, and it keeps the
layers docs/architecture.md draws.

Edges are every import the package makes, at module level and inside functions. An import inside a
function hides a cycle from Python's import order but not from a reader: both modules still need
each other. A module's edge goes to the module it names (`from a.b import c` is a.b, or a.b.c when
c is a module).

The cycle test leaves out imports under `if TYPE_CHECKING:` (they never run). The layer test counts
them: a type a module names is a dependency of its reader all the same.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = "commerce_evals"
ROOT = Path(__file__).parent.parent / PACKAGE


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in ROOT.rglob("*.py")}


def _type_checking_nodes(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def _owner(name: str) -> str | None:
    """The package module a dotted name lives in (a.b.C -> a.b), None outside the package."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported(module: str, source: str, is_package: bool = False) -> Iterator[str]:
    """Every package module `module` imports (module level, in functions; not type-only)."""
    for _, owner in import_lines(module, source, is_package, type_only=False):
        yield owner


def import_lines(
    module: str, source: str, is_package: bool = False, type_only: bool = True
) -> Iterator[tuple[int, str]]:
    """(line, package module) for each import of `module`; `type_only` keeps those under
    `if TYPE_CHECKING:`."""
    tree = ast.parse(source)
    skipped = set() if type_only else _type_checking_nodes(tree)
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            names = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            owner = _owner(name)
            if owner is not None and owner != module:
                yield node.lineno, owner


def import_graph() -> dict[str, set[str]]:
    return {
        module: set(imported(module, path.read_text(encoding="utf-8"), path.name == "__init__.py"))
        for module, path in MODULES.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def cycle_path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One concrete loop through a component, a -> b -> ... -> a, to name in a failure."""
    members = set(component)
    start = component[0]
    path, seen = [start], {start}
    while True:
        nxt = sorted(graph[path[-1]] & members)
        back = [n for n in nxt if n in seen]
        if back:
            return [*path[path.index(back[0]) :], back[0]]
        path.append(nxt[0])
        seen.add(nxt[0])


def _short(module: str) -> str:
    return module.removeprefix(f"{PACKAGE}.")


def test_the_package_has_no_import_cycle() -> None:
    graph = import_graph()
    found = [" -> ".join(map(_short, cycle_path(graph, c))) for c in cycles(graph)]
    assert not found, "import cycles:\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(graph: dict[str, set[str]], expected: list) -> None:
    assert cycles(graph) == expected


def test_imports_inside_functions_and_relative_imports_are_edges() -> None:
    source = """
from typing import TYPE_CHECKING
import json
from commerce_evals.harness import solver
from . import sandbox
if TYPE_CHECKING:
    from commerce_evals.judging.judge import judge_case

def later():
    from ..scoring.scorer import commerce_case
    import commerce_evals.cases.model
"""
    edges = set(imported(f"{PACKAGE}.harness.example", source))
    assert {_short(e) for e in edges} == {
        "harness.solver",
        "harness.sandbox",
        "scoring.scorer",
        "cases.model",
    }
    assert cycle_path({"a": {"b"}, "b": {"a"}}, ["a", "b"]) == ["a", "b", "a"]


# The layers, lowest first, as docs/architecture.md draws them. A module may import its own package
# and any package of a lower layer; packages of one layer never import each other. A name is a
# package or a top-level module of commerce_evals; "__init__" is the package's own __init__.py.
FLOW_TASKS = {"checkout", "discovery", "memory", "merchant", "injection", "support", "dealer"}
LAYERS: list[set[str]] = [
    {"__init__", "core", "japanese"},
    {"facts"},
    {"cases"},
    {"grading"},
    {"domains", "judging"},
    {"scoring"},
    {"harness"},
    {"reports", "bridge", "serving"},
    {"authoring", "production", "case_set", *FLOW_TASKS},
    {"scripted", "lint"},
    {"cli", "docgen", "_registry"},
]


def layer_name(module: str) -> str:
    """The package or top-level module of commerce_evals a module belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(name: str) -> int:
    found = [index for index, layer in enumerate(LAYERS) if name in layer]
    assert len(found) == 1, f"{name!r} is in {len(found)} layers: declare it in exactly one"
    return found[0]


def against_layers(modules: dict[str, Path], root: Path = ROOT.parent) -> list[str]:
    """Every import (type-only ones included) that reaches up a layer or across one, as
    `file:line: a (layer i) imports b (layer j)`."""
    found = []
    for module, path in sorted(modules.items()):
        source = path.read_text(encoding="utf-8")
        mine = layer_name(module)
        for line, target in sorted(set(import_lines(module, source, path.name == "__init__.py"))):
            theirs = layer_name(target)
            if theirs == mine or layer_of(theirs) < layer_of(mine):
                continue
            where = path.relative_to(root)
            found.append(
                f"{where}:{line}: {_short(module)} ({mine}, layer {layer_of(mine)}) imports "
                f"{_short(target)} ({theirs}, layer {layer_of(theirs)})"
            )
    return found


def test_every_package_is_in_one_layer() -> None:
    names = {layer_name(module) for module in MODULES}
    declared = set().union(*LAYERS)
    assert names == declared, (
        f"in no layer: {sorted(names - declared)}; no such package: {sorted(declared - names)}"
    )
    for name in names:
        layer_of(name)


def test_imports_point_down_the_layers() -> None:
    found = against_layers(MODULES)
    assert not found, "imports against the layers:\n" + "\n".join(found)


def test_the_layer_check_names_an_upward_type_only_import(tmp_path: Path) -> None:
    package = tmp_path / PACKAGE
    (package / "cases").mkdir(parents=True)
    low = package / "cases" / "model.py"
    low.write_text(
        "from typing import TYPE_CHECKING\n"
        "from commerce_evals.core import events\n"
        "if TYPE_CHECKING:\n"
        "    from commerce_evals.harness.solver import Agent\n"
    )
    found = against_layers({f"{PACKAGE}.cases.model": low}, root=tmp_path)
    assert len(found) == 1
    cases, harness = layer_of("cases"), layer_of("harness")
    assert found[0].startswith(f"{PACKAGE}/cases/model.py:4: cases.model (cases, layer {cases})")
    assert found[0].endswith(f"imports harness.solver (harness, layer {harness})")
