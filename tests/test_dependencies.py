"""The dependencies pyproject.toml declares are the ones the code imports, and no others.

Every `import` of commerce_evals/ and tests/ is read with ast (lazy imports inside functions and
imports under `if TYPE_CHECKING:` included, and the modules `pytest.importorskip` names), each
top-level module is mapped to the distribution that installs it, and the result is compared with
the core dependencies, the extras and the dev extra. What is declared but never imported must
say why in an allowlist below: a provider Inspect loads for `--model`, a library another library
loads for us, a tool run beside the tests.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from functools import cache
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "commerce_evals"
TESTS = ROOT / "tests"
LOCAL_MODULES = {"commerce_evals", "tests"}

# The subpackages whose third-party imports belong to an extra: only the commands of that extra
# import them (lazily), so a core install never does.
EXTRA_OF_SUBPACKAGE = {"bridge": "agents", "serving": "mcp"}

# Declared, never imported by our code: each is loaded on our behalf by a library we call.
USED_THROUGH_OTHERS = {
    # Inspect's `anthropic` provider imports it: the README's real-model path, `--model
    # anthropic/...`, fails without it
    "anthropic": "core",
    # Inspect's data frames (compare, trends) read logs as parquet through it
    "pyarrow": "core",
    # fsspec opens s3:// log directories through it
    "s3fs": "s3",
}

# Dev dependencies no test imports: tools run beside the tests, or what the tests run through.
DEV_TOOLS = {
    "pytest-xdist",  # `-n auto` in pytest's addopts
    "setuptools",  # the install test builds the wheel with the backend already installed
    "wheel",
    "ruff",
    "mypy",
    "types-pyyaml",  # mypy's stubs for yaml
}

# Inspect's private modules (`inspect_ai._x`, `inspect_ai.x._y`) change without notice. One import
# has no public equivalent: registering the scorer's alias under the name logs record.
PRIVATE_INSPECT_IMPORTS = {("scoring/scorer.py", "inspect_ai._util.registry")}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(spec: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec.strip())
    assert match, f"unreadable requirement {spec!r}"
    return normalized(match.group(0))


@cache
def declared() -> dict[str, frozenset[str]]:
    """The core dependencies and each extra, as sets of normalized distribution names."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    groups = {"core": project["dependencies"], **project["optional-dependencies"]}
    return {group: frozenset(map(requirement_name, specs)) for group, specs in groups.items()}


def imported_modules(path: Path) -> set[str]:
    """The absolute modules a file imports, with those `pytest.importorskip` names."""
    modules: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "importorskip"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            modules.add(node.args[0].value)
    return modules


@cache
def installed_distributions() -> dict[str, list[str]]:
    return packages_distributions()


@cache
def distributions_imported(path: Path) -> dict[str, str]:
    """Third-party distribution -> a module of it the file imports."""
    installed = installed_distributions()
    found: dict[str, str] = {}
    for module in sorted(imported_modules(path)):
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or top in LOCAL_MODULES or top == "__future__":
            continue
        assert top in installed, f"{path.relative_to(ROOT)} imports {module}: not installed"
        for distribution in installed[top]:
            found[normalized(distribution)] = module
    return found


def files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def group_of(path: Path) -> str:
    """The dependency group a module of the package may import from besides core."""
    first = path.relative_to(PACKAGE).parts[0]
    return EXTRA_OF_SUBPACKAGE.get(first, "core")


def test_every_third_party_import_of_the_package_is_declared() -> None:
    groups = declared()
    missing = []
    for path in files(PACKAGE):
        allowed = groups["core"] | groups[group_of(path)]
        missing += [
            f"{path.relative_to(ROOT)}: {module} ({distribution}) is not in "
            + ("core" if group_of(path) == "core" else f"core or [{group_of(path)}]")
            for distribution, module in distributions_imported(path).items()
            if distribution not in allowed
        ]
    assert not missing, "\n".join(missing)


def test_every_declared_dependency_is_imported_or_used_through_a_library() -> None:
    groups = declared()
    imported_by_group: dict[str, set[str]] = {}
    for path in files(PACKAGE):
        imported_by_group.setdefault(group_of(path), set()).update(distributions_imported(path))
    unused = [
        f"[{group}] {distribution}"
        for group, distributions in groups.items()
        if group != "dev"
        for distribution in sorted(distributions)
        if distribution not in imported_by_group.get(group, set())
        and USED_THROUGH_OTHERS.get(distribution) != group
    ]
    assert not unused, "declared, never imported, not allowlisted:\n" + "\n".join(unused)


def test_every_third_party_import_of_the_tests_is_declared_in_core_or_dev() -> None:
    groups = declared()
    allowed = groups["core"] | groups["dev"]
    missing = [
        f"{path.relative_to(ROOT)}: {module} ({distribution})"
        for path in files(TESTS)
        for distribution, module in distributions_imported(path).items()
        if distribution not in allowed
    ]
    assert not missing, "imported by tests, not in core or [dev]:\n" + "\n".join(missing)


def test_the_dev_extra_installs_every_extra_so_their_tests_run() -> None:
    groups = declared()
    missing = [
        f"[{group}] {distribution}"
        for group, distributions in groups.items()
        if group not in ("core", "dev")
        for distribution in sorted(distributions - groups["dev"])
    ]
    assert not missing, "in an extra, not in [dev]:\n" + "\n".join(missing)


def test_every_dev_dependency_is_imported_by_a_test_or_is_a_tool() -> None:
    groups = declared()
    imported = {d for path in files(TESTS) for d in distributions_imported(path)}
    from_extras = set().union(*(v for k, v in groups.items() if k not in ("core", "dev")))
    unused = sorted(groups["dev"] - imported - from_extras - DEV_TOOLS)
    assert not unused, f"[dev] declares what no test imports and no tool needs: {unused}"


def test_the_package_imports_only_public_inspect_modules() -> None:
    private = set()
    for path in files(PACKAGE):
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[0] == "inspect_ai" and any(part.startswith("_") for part in parts[1:]):
                private.add((path.relative_to(PACKAGE).as_posix(), module))
    assert private == PRIVATE_INSPECT_IMPORTS
