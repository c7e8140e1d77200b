"""What every `commerce-evals` user meets first: --version, help text, refused arguments."""

from __future__ import annotations

from typer.testing import CliRunner

from commerce_evals.cli.app import app, installed_version
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
