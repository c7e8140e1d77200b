"""What every `commerce-evals` user meets first: --version, help text, refused arguments."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from commerce_evals.cli.app import COMMANDS, app, installed_version
from commerce_evals.cli.commands._output import plural

runner = CliRunner()


def test_version_prints_the_installed_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"commerce-evals {installed_version()}"
    assert installed_version()[0].isdigit()


def test_help_shows_flags_without_a_type_label() -> None:
    result = runner.invoke(app, ["compare", "--help"])
    assert result.exit_code == 0
    assert "--all" in result.output and "<bool>" not in result.output


# Each of these takes seconds to import; `--help` must not wait for them.
SLOW_IMPORTS = ["inspect_ai", "pandas", "pyarrow", "matplotlib"]
HELP_IMPORTS = """
import json, sys
from commerce_evals.cli.app import COMMANDS, app
slow = json.loads(sys.argv[1])
loaded = {}
for args in (["--help"], *([name, "--help"] for name in COMMANDS)):
    try:
        app(args, prog_name="commerce-evals")
    except SystemExit as done:
        assert done.code == 0, (args, done.code)
    held = {name.split(".")[0] for name in sys.modules}
    loaded[" ".join(args)] = sorted(held & set(slow)) + (["typer"] if "typer" in held else [])
print(json.dumps(loaded))
"""


def test_help_imports_neither_inspect_nor_pandas() -> None:
    """Every `--help` in one fresh interpreter, in turn; the first to load a slow module shows."""
    done = subprocess.run(
        [sys.executable, "-c", HELP_IMPORTS, json.dumps(SLOW_IMPORTS)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert list(loaded) == ["--help", *(f"{name} --help" for name in COMMANDS)]
    # typer is what every help imports: the check does see what a command loaded
    assert loaded == {args: ["typer"] for args in loaded}


def test_search_refuses_a_limit_below_one() -> None:
    for limit in ("0", "-1"):
        result = runner.invoke(app, ["search", "yoga mat", "--limit", limit])
        assert result.exit_code == 2, result.output
    result = runner.invoke(app, ["search", "yoga mat", "--limit", "1"])
    assert result.exit_code == 0 and "1 result for" in result.output


def test_plural() -> None:
    assert [plural(n, "case") for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    assert plural(1, "problem") == "1 problem"
    assert plural(3, "reply", "replies") == "3 replies"
